// libsched_bench: how fast the model runs. N nice-0 burners share one CPU at HZ 1000 (a
// switch every tick or every few ticks, the busiest steady state a CPU has), on an EEVDF
// and an old-CFS release; prints engine events per wall-clock second and ns per event.
//
// Then a multi-CPU run: 1000 mixed burner / periodic / random-sleeper tasks on 64 CPUs
// (2 packages x 16 cores x 2 threads) at HZ 250 with load balancing, 60 simulated seconds;
// prints wall time, events per second and peak RSS.
//
//   libsched_bench           full run (a few seconds per configuration)
//   libsched_bench --quick   smoke run for CI (a few seconds in all)
//   libsched_bench --scaling the multi-CPU run over 8 to 1024 CPUs and 250 to 4000 tasks
//   libsched_bench --multi PACKAGES CORES THREADS TASKS SECONDS [--no-nohz]
//                            one multi-CPU configuration (for profiling)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <libsched/model/simulate.hpp>
#include <libsched/sched/topology.hpp>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace libsched;

struct config {
    kernel_version kernel;
    int burners;
};

struct measurement {
    std::uint64_t events = 0;
    double wall_seconds = 0;
    double events_per_second() const { return static_cast<double>(events) / wall_seconds; }
    double ns_per_event() const { return wall_seconds * 1e9 / static_cast<double>(events); }
};

scenario burners_on_one_cpu(const config& c, duration length) {
    scenario sc;
    sc.name = "bench";
    sc.machine.cpus = 1;
    sc.machine.hz = 1000;
    sc.machine.kernel = c.kernel;
    sc.length = length;
    task_spec t;
    t.name = "burner";
    t.count = c.burners;
    sc.tasks.push_back(t);
    return sc;
}

// The fastest of `runs` runs: the least disturbed by the rest of the machine.
measurement measure(const config& c, duration length, int runs) {
    const scenario sc = burners_on_one_cpu(c, length);
    measurement best;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const run_result r = simulate(sc);
        const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
        if (i == 0 || wall.count() < best.wall_seconds)
            best = {r.repetitions.front().events, wall.count()};
    }
    return best;
}

// ---- Multi-CPU: a mixed workload on a multi-socket machine, load balancing on ----------

struct multi_config {
    int packages, cores, threads; // symmetric_topology(packages, cores, threads)
    int tasks;                    // 10 % burners, 45 % periodic, 45 % random sleepers
    int seconds;                  // simulated length
    bool nohz_idle = true;
    int cpus() const { return packages * cores * threads; }
};

// Burners never sleep; periodic tasks run 2 ms every 10 ms on an absolute timer; random
// sleepers run 0.1 to 2 ms (uniform) and sleep 10 ms on average (exponential). At 1000
// tasks that asks for about 230 CPUs: 64 CPUs are overloaded, 1024 mostly idle.
scenario mixed_on_many_cpus(const multi_config& c) {
    scenario sc;
    sc.name = "bench-multi";
    sc.machine.topology = symmetric_topology(c.packages, c.cores, c.threads);
    sc.machine.cpus = c.cpus();
    sc.machine.hz = 250;
    sc.machine.kernel = {6, 6};
    sc.machine.nohz_idle = c.nohz_idle;
    sc.length = c.seconds * nsec_per_sec;
    const int burners = c.tasks / 10;
    const int periodic = (c.tasks - burners) / 2;
    const int sleepers = c.tasks - burners - periodic;
    task_spec b;
    b.name = "burner";
    b.count = burners;
    task_spec p;
    p.name = "periodic";
    p.count = periodic;
    p.behaviour.type = behaviour_spec::kind::periodic;
    p.behaviour.run = 2 * nsec_per_msec;
    p.behaviour.period = 10 * nsec_per_msec;
    task_spec s;
    s.name = "sleeper";
    s.count = sleepers;
    s.behaviour.type = behaviour_spec::kind::random;
    s.behaviour.run_dist = {distribution::kind::uniform, 100 * nsec_per_usec, 2 * nsec_per_msec};
    s.behaviour.sleep_dist = {distribution::kind::exponential, 10 * nsec_per_msec, 0};
    for (task_spec* t : {&b, &p, &s})
        if (t->count > 0)
            sc.tasks.push_back(*t);
    return sc;
}

// Peak resident set of this process so far (Linux reports ru_maxrss in KiB).
long peak_rss_kib() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

// User + system CPU time of this process so far: the wall time less what the other
// processes on a shared machine took from it.
double cpu_seconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto s = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return s(ru.ru_utime) + s(ru.ru_stime);
}

void print_multi_header() {
    std::printf("%-9s %5s %6s %5s %5s %12s %8s %8s %10s %9s %9s\n", "shape", "cpus", "tasks",
                "sim s", "nohz", "events", "wall s", "cpu s", "M events/s", "ns/event", "peak MiB");
}

// One configuration in a child process, so that each peak RSS is that configuration's own.
void run_multi(const multi_config& c) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        int status = 0;
        try {
            const scenario sc = mixed_on_many_cpus(c);
            const double cpu_start = cpu_seconds();
            const auto start = std::chrono::steady_clock::now();
            const run_result r = simulate(sc);
            const double cpu = cpu_seconds() - cpu_start;
            const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
            const std::uint64_t events = r.repetitions.front().events;
            const std::string shape = std::to_string(c.packages) + "x" + std::to_string(c.cores) +
                                      "x" + std::to_string(c.threads);
            std::printf("%-9s %5d %6d %5d %5s %12llu %8.2f %8.2f %10.2f %9.1f %9.1f\n",
                        shape.c_str(), c.cpus(), c.tasks, c.seconds, c.nohz_idle ? "on" : "off",
                        static_cast<unsigned long long>(events), wall.count(), cpu,
                        static_cast<double>(events) / wall.count() / 1e6,
                        wall.count() * 1e9 / static_cast<double>(events),
                        static_cast<double>(peak_rss_kib()) / 1024.0);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "libsched_bench: %s\n", e.what());
            status = 1;
        }
        std::fflush(stdout);
        std::_Exit(status);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        throw std::runtime_error("a multi-CPU run failed");
}

int usage(std::FILE* out, int status) {
    std::fputs("usage: libsched_bench [--quick | --scaling |\n"
               "                       --multi PACKAGES CORES THREADS TASKS SECONDS [--no-nohz]]\n"
               "  --quick    short smoke run (for CI); the default is the full measurement\n"
               "  --scaling  the multi-CPU run over 8 to 1024 CPUs and 250 to 4000 tasks\n"
               "  --multi    one multi-CPU configuration (--no-nohz: keep idle ticks)\n",
               out);
    return status;
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    bool scaling = false;
    bool one = false;
    multi_config single{2, 16, 2, 1000, 60};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--scaling") == 0)
            scaling = true;
        else if (std::strcmp(argv[i], "--multi") == 0 && i + 5 < argc) {
            one = true;
            single.packages = std::atoi(argv[++i]);
            single.cores = std::atoi(argv[++i]);
            single.threads = std::atoi(argv[++i]);
            single.tasks = std::atoi(argv[++i]);
            single.seconds = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--no-nohz") == 0)
            single.nohz_idle = false;
        else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        else {
            std::fprintf(stderr, "libsched_bench: unknown argument '%s'\n", argv[i]);
            return usage(stderr, 2);
        }
    }

    if (one || scaling) {
        try {
            print_multi_header();
            if (one)
                run_multi(single);
            else {
                // 2 packages x 2 threads, but 1024 CPUs as 8 packages of 64 cores.
                const multi_config shapes[] = {
                    {2, 2, 2, 0, 0}, {2, 16, 2, 0, 0}, {2, 64, 2, 0, 0}, {8, 64, 2, 0, 0}};
                for (const multi_config& shape : shapes)
                    for (const int n : {250, 1000, 4000}) {
                        multi_config c = shape;
                        c.tasks = n;
                        // the big ones are run shorter: the cost per simulated second is
                        // steady after the first second
                        c.seconds = shape.cpus() * n >= 256 * 4000 ? 10 : 60;
                        run_multi(c);
                    }
                run_multi({2, 16, 2, 1000, 10});
                run_multi({2, 16, 2, 1000, 60, false});
                run_multi({8, 64, 2, 250, 10, false});
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "libsched_bench: %s\n", e.what());
            return 1;
        }
        return 0;
    }

    // Full: ~2 events per simulated ms, so 4000 s is ~8-10 million events per run.
    const duration length = (quick ? 5 : 4000) * nsec_per_sec;
    const int runs = quick ? 1 : 3;
    const std::vector<int> counts = {2, 64, 8192};
    const kernel_version kernels[] = {{6, 6}, {5, 15}};

    try {
        std::printf("%-7s %7s %12s %12s %10s %10s\n", "kernel", "burners", "sim seconds", "events",
                    "M events/s", "ns/event");
        bool targets_met = true;
        for (const kernel_version k : kernels) {
            std::vector<measurement> ms;
            for (const int n : counts) {
                const measurement m = measure({k, n}, length, runs);
                ms.push_back(m);
                std::printf("%-7s %7d %12lld %12llu %10.2f %10.1f\n", k.str().c_str(), n,
                            static_cast<long long>(length / nsec_per_sec),
                            static_cast<unsigned long long>(m.events), m.events_per_second() / 1e6,
                            m.ns_per_event());
            }
            const double slowdown = ms.back().ns_per_event() / ms.front().ns_per_event();
            std::printf("%-7s 8192 vs 2 burners: %.2fx the time per event\n", k.str().c_str(),
                        slowdown);
            targets_met = targets_met && ms.front().events_per_second() >= 10e6 && slowdown <= 3.0;
        }
        std::printf(
            "targets (>= 10 M events/s with 2 burners, 8192 burners <= 3x per event): %s%s\n",
            targets_met ? "met" : "missed", quick ? " (quick run: too short to judge)" : "");

        // The multi-CPU run: 64 CPUs, 1000 mixed tasks, 60 simulated s (quick: 1 s).
        std::printf("\n");
        print_multi_header();
        run_multi({2, 16, 2, 1000, quick ? 1 : 60});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "libsched_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
