// libsched_bench: how fast the model runs. N nice-0 burners share one CPU at HZ 1000 (a
// switch every tick or every few ticks, the busiest steady state a CPU has), on an EEVDF
// and an old-CFS release; prints engine events per wall-clock second and ns per event.
//
//   libsched_bench           full run (a few seconds per configuration)
//   libsched_bench --quick   smoke run for CI (well under two seconds in all)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <libsched/model/simulate.hpp>
#include <string>
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

int usage(std::FILE* out, int status) {
    std::fputs("usage: libsched_bench [--quick]\n"
               "  --quick  short smoke run (for CI); the default is the full measurement\n",
               out);
    return status;
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        else {
            std::fprintf(stderr, "libsched_bench: unknown argument '%s'\n", argv[i]);
            return usage(stderr, 2);
        }
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "libsched_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
