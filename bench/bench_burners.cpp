// libsched_bench: how fast the model runs, against a floor measured in the same process.
//
// Each configuration is simulated, and beside it the bare data-structure work the model
// cannot avoid is timed: the run-queue tree (pick the leftmost, erase, move its key,
// re-insert) at the size the run had, and the pending-event heap (pop + push) at the size
// the run had. A counting run of the same scenario (with a trace sink) gives the tree
// updates and queue operations per event; their cost is the floor per event, and the
// model's time per event is printed as a multiple of it (docs/performance.md, "Floor").
//
// Configurations: N nice-0 burners on one CPU at HZ 1000 (a switch every tick or every
// few ticks, the busiest steady state a CPU has) on an EEVDF and an old-CFS release; 16
// periodic tasks on one CPU; 1000 mixed tasks on 64 CPUs with load balancing.
//
// Then the multi-CPU run on its own: 1000 mixed burner / periodic / random-sleeper tasks
// on 64 CPUs (2 packages x 16 cores x 2 threads) at HZ 250 with load balancing, 60
// simulated seconds; prints wall time, events per second and peak RSS.
//
//   libsched_bench           full run (about a minute)
//   libsched_bench --quick   smoke run for CI (a few seconds in all)
//   libsched_bench --scaling cost per event and memory per task over 1 to 1024 CPUs and 2
//                            to 102,400 tasks (with --quick: short runs, a smoke test)
//   libsched_bench --multi PACKAGES CORES THREADS TASKS SECONDS [--no-nohz]
//                            one multi-CPU configuration (for profiling)
//   libsched_bench --profile LABEL [--seconds S]
//                            only the timed runs of one configuration of the floor table
//                            (no counting run, no floor: for perf record); --seconds: one
//                            run of S simulated seconds (for valgrind)
#include <algorithm>
#include <boost/intrusive/set.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <libsched/des/event_queue.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>
#include <libsched/sched/detail/timeline.hpp>
#include <libsched/sched/topology.hpp>
#include <malloc.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace libsched;

struct measurement {
    std::uint64_t events = 0;
    double wall_seconds = 0;
    double events_per_second() const { return static_cast<double>(events) / wall_seconds; }
    double ns_per_event() const { return wall_seconds * 1e9 / static_cast<double>(events); }
};

scenario burners_on_one_cpu(kernel_version kernel, int burners, duration length) {
    scenario sc;
    sc.name = "bench";
    sc.machine.cpus = 1;
    sc.machine.hz = 1000;
    sc.machine.kernel = kernel;
    sc.length = length;
    task_spec t;
    t.name = "burner";
    t.count = burners;
    sc.tasks.push_back(t);
    return sc;
}

// 16 periodic tasks on one CPU at HZ 1000, each 0.5 ms of CPU every 10 ms on an absolute
// timer (80 % busy): wakeups, sleeps and the idle CPU's stopped tick.
scenario periodic_on_one_cpu(kernel_version kernel, int tasks, duration length) {
    scenario sc = burners_on_one_cpu(kernel, tasks, length);
    task_spec& t = sc.tasks.front();
    t.name = "periodic";
    t.behaviour.type = behaviour_spec::kind::periodic;
    t.behaviour.run = 500 * nsec_per_usec;
    t.behaviour.period = 10 * nsec_per_msec;
    return sc;
}

// The fastest of `runs` runs: the least disturbed by the rest of the machine.
measurement measure(const scenario& sc, int runs) {
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

// ---- The floor: the bare data-structure work per event -----------------------------------

// What a counting run of a scenario saw: its events, the events it scheduled (each one
// push and one pop of the heap, refused ones included), the tree updates (an erase and an
// insert each) and the mean sizes of a CPU's tree and of the pending-event set.
struct op_counts {
    std::uint64_t events = 0;
    std::uint64_t scheduled = 0;
    std::uint64_t tree_updates = 0;
    double tree_size = 0;
    double pending = 0;
    bool by_deadline = true; // the release's tree: by deadline and augmented (EEVDF) or not
    double tree_per_event() const {
        return static_cast<double>(tree_updates) / static_cast<double>(events);
    }
    double queue_per_event() const {
        return static_cast<double>(scheduled) / static_cast<double>(events);
    }
};

// Tree updates are counted from the trace: every switch to a task picked it from the tree
// (erased it; it was inserted once before, at its put_prev, wakeup or fork), and every
// migration by the balancer detaches a queued task and attaches it on the other CPU. A
// wakeup's migration (traced just before its sched_wakeup) moves a sleeping task that is
// in no tree and is not counted; neither is a pick that keeps the same task, which is not
// traced, so the floor is if anything low.
op_counts count_ops(const scenario& sc) {
    op_counts c;
    std::uint64_t picks = 0;
    std::uint64_t migrations = 0;
    int migrated_pid = -1;
    sim_time migrated_at = -1;
    const trace_sink sink = [&](const trace_event& e) {
        if (e.kind == trace_kind::sched_switch && e.next_pid != 0)
            ++picks;
        else if (e.kind == trace_kind::sched_migrate_task) {
            ++migrations;
            migrated_pid = e.pid;
            migrated_at = e.time;
        } else if (e.kind == trace_kind::sched_wakeup && e.pid == migrated_pid &&
                   e.time == migrated_at) {
            --migrations; // the wakeup's own migration
            migrated_pid = -1;
        }
    };
    libsched::system sys(sc, sc.seed, sink);
    constexpr int samples = 16;
    std::uint64_t queued = 0;
    std::uint64_t pending = 0;
    for (int i = 1; i <= samples; ++i) {
        sys.run(sc.length / (samples + 1) * i);
        pending += sys.pending_events();
        for (int cpu = 0; cpu < sys.nr_cpus(); ++cpu)
            queued += sys.cpu_rq(cpu).cfs.tasks_timeline.size();
    }
    sys.run(sc.length);
    c.events = sys.events();
    c.scheduled = sys.events_scheduled() - sys.pending_events();
    c.tree_updates = picks + migrations;
    c.tree_size = static_cast<double>(queued) / samples / sys.nr_cpus();
    c.pending = static_cast<double>(pending) / samples;
    c.by_deadline = sys.cpu_rq(0).cfs.tasks_timeline.by_deadline();
    return c;
}

// Read by nothing, written by every measurement: the work cannot be optimised away.
volatile std::uint64_t floor_sink = 0;

// ns per call of op(), the fastest of `reps` timed batches of `ops` calls after one
// untimed batch.
template <class Op> double fastest_ns(int reps, int ops, Op&& op) {
    double best = 0;
    for (int r = 0; r <= reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < ops; ++i)
            op();
        const std::chrono::duration<double, std::nano> ns =
            std::chrono::steady_clock::now() - start;
        const double per_op = ns.count() / ops;
        if (r == 1 || (r > 1 && per_op < best))
            best = per_op; // r == 0 is the warm-up
    }
    return best;
}

// A bare Boost.Intrusive multiset node, as large as a sched_entity: the model's tree
// links entities of that size, so at 8192 of them the same cache lines are touched.
struct bare_node : boost::intrusive::set_base_hook<> {
    u64 key = 0;
};
struct padded_node : bare_node {
    static constexpr std::size_t pad = sizeof(sched_entity) > sizeof(bare_node)
                                           ? sizeof(sched_entity) - sizeof(bare_node)
                                           : 1;
    unsigned char bytes[pad] = {};
};
struct key_less {
    bool operator()(const bare_node& a, const bare_node& b) const { return a.key < b.key; }
};
using bare_tree = boost::intrusive::multiset<padded_node, boost::intrusive::compare<key_less>>;

constexpr u64 key_step = 750'000; // an EEVDF slice, ns

// The burners' steady state: the leftmost node is taken, runs a slice and goes back at the
// right, behind the others.
double bare_tree_ns(int n, int reps, int ops) {
    std::vector<padded_node> nodes(static_cast<std::size_t>(n));
    bare_tree tree;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        nodes[i].key = i * key_step;
        tree.insert(nodes[i]);
    }
    const double ns = fastest_ns(reps, ops, [&] {
        padded_node& first = *tree.begin();
        tree.erase(tree.begin());
        first.key += static_cast<u64>(n) * key_step;
        tree.insert(first);
    });
    floor_sink = tree.begin()->key;
    tree.clear();
    return ns;
}

// The same on libsched's own timeline as the release keeps it (EEVDF's by deadline, its
// augmented values kept up; the old CFS's plain): the model's tree, not part of the floor,
// printed beside it.
double timeline_ns(int n, bool by_deadline, int reps, int ops) {
    const auto entities = std::make_unique<sched_entity[]>(static_cast<std::size_t>(n));
    detail::timeline tree(by_deadline);
    for (int i = 0; i < n; ++i) {
        sched_entity& se = entities[static_cast<std::size_t>(i)];
        se.vruntime = static_cast<u64>(i) * key_step;
        se.deadline = se.vruntime + key_step;
        se.slice = static_cast<duration>(key_step);
        tree.insert(se);
    }
    const double ns = fastest_ns(reps, ops, [&] {
        sched_entity& first = *tree.first();
        tree.erase(first);
        first.vruntime += static_cast<u64>(n) * key_step;
        first.deadline += static_cast<u64>(n) * key_step;
        tree.insert(first);
    });
    floor_sink = tree.first()->vruntime;
    for (int i = 0; i < n; ++i)
        tree.erase(entities[static_cast<std::size_t>(i)]);
    return ns;
}

// des::event_queue holding `size` events: pop the earliest and push one a uniformly drawn
// interval later (the classic "hold" operation; the intervals are drawn beforehand).
double queue_ns(int size, int reps, int ops) {
    constexpr std::size_t draws = 4096; // a power of two
    std::vector<des::time_point> interval(draws);
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    const auto span = static_cast<std::uint64_t>(size) * 2000; // mean interval: size us
    for (des::time_point& d : interval) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d = static_cast<des::time_point>(x % span);
    }
    des::event_queue queue;
    des::event_id seq = 0;
    for (int i = 0; i < size; ++i, ++seq)
        queue.push({{interval[seq % draws], 0, seq}, nullptr, 0});
    const double ns = fastest_ns(reps, ops, [&] {
        des::event e = queue.pop();
        e.key = {e.key.time() + interval[seq % draws], e.key.order(), seq};
        ++seq;
        queue.push(e);
    });
    floor_sink = static_cast<std::uint64_t>(queue.top().key.time());
    return ns;
}

struct floor_costs {
    int tree_n = 1;
    int queue_n = 1;
    double tree_ns = 0;     // bare tree update
    double timeline_ns = 0; // the model's timeline, same update
    double queue_ns = 0;    // heap pop + push
    double per_event(const op_counts& c) const {
        return c.tree_per_event() * tree_ns + c.queue_per_event() * queue_ns;
    }
};

floor_costs measure_floor(const op_counts& c, bool quick) {
    const int reps = quick ? 3 : 7;
    const int ops = quick ? 1 << 14 : 1 << 18;
    floor_costs f;
    f.tree_n = std::max(1, static_cast<int>(std::lround(c.tree_size)));
    f.queue_n = std::max(1, static_cast<int>(std::lround(c.pending)));
    f.tree_ns = bare_tree_ns(f.tree_n, reps, ops);
    f.timeline_ns = timeline_ns(f.tree_n, c.by_deadline, reps, ops);
    f.queue_ns = queue_ns(f.queue_n, reps, ops);
    return f;
}

floor_costs fastest(const floor_costs& a, const floor_costs& b) {
    floor_costs f = a;
    f.tree_ns = std::min(a.tree_ns, b.tree_ns);
    f.timeline_ns = std::min(a.timeline_ns, b.timeline_ns);
    f.queue_ns = std::min(a.queue_ns, b.queue_ns);
    return f;
}

struct bench_case {
    std::string label;
    scenario sc;
    int runs;
};

struct floor_result {
    measurement model;
    op_counts ops;
    floor_costs floor;
    double floor_ns() const { return floor.per_event(ops); }
    double ratio() const { return model.ns_per_event() / floor_ns(); }
};

void print_floor_header() {
    std::printf("%-21s %10s %7s %7s %8s %6s | %6s %7s %7s %7s %6s %7s %7s\n", "configuration",
                "events", "M ev/s", "ns/ev", "floor ns", "ratio", "tree n", "tree ns", "model",
                "tree/ev", "queue", "heap ns", "heap/ev");
}

// The floor is timed just before and just after the model's runs; the faster counts.
floor_result run_with_floor(const bench_case& b, bool quick) {
    floor_result r;
    r.ops = count_ops(b.sc);
    const floor_costs before = measure_floor(r.ops, quick);
    r.model = measure(b.sc, b.runs);
    r.floor = fastest(before, measure_floor(r.ops, quick));
    if (r.model.events != r.ops.events)
        throw std::runtime_error(b.label + ": the counting run made " +
                                 std::to_string(r.ops.events) + " events, the timed run " +
                                 std::to_string(r.model.events));
    std::printf("%-21s %10llu %7.2f %7.1f %8.1f %6.2f | %6d %7.1f %7.1f %7.3f %6d %7.1f %7.3f\n",
                b.label.c_str(), static_cast<unsigned long long>(r.model.events),
                r.model.events_per_second() / 1e6, r.model.ns_per_event(), r.floor_ns(), r.ratio(),
                r.floor.tree_n, r.floor.tree_ns, r.floor.timeline_ns, r.ops.tree_per_event(),
                r.floor.queue_n, r.floor.queue_ns, r.ops.queue_per_event());
    std::fflush(stdout);
    return r;
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

// Runs fn() in a child process, so that each peak RSS is that configuration's own.
template <class Fn> void in_child(Fn&& fn) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        int status = 0;
        try {
            fn();
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
        throw std::runtime_error("a benchmark child process failed");
}

void run_multi(const multi_config& c) {
    in_child([&] {
        const scenario sc = mixed_on_many_cpus(c);
        const double cpu_start = cpu_seconds();
        const auto start = std::chrono::steady_clock::now();
        const run_result r = simulate(sc);
        const double cpu = cpu_seconds() - cpu_start;
        const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
        const std::uint64_t events = r.repetitions.front().events;
        const std::string shape = std::to_string(c.packages) + "x" + std::to_string(c.cores) + "x" +
                                  std::to_string(c.threads);
        std::printf("%-9s %5d %6d %5d %5s %12llu %8.2f %8.2f %10.2f %9.1f %9.1f\n", shape.c_str(),
                    c.cpus(), c.tasks, c.seconds, c.nohz_idle ? "on" : "off",
                    static_cast<unsigned long long>(events), wall.count(), cpu,
                    static_cast<double>(events) / wall.count() / 1e6,
                    wall.count() * 1e9 / static_cast<double>(events),
                    static_cast<double>(peak_rss_kib()) / 1024.0);
    });
}

// ---- Scale: cost per event and memory per task, 1 to 1024 CPUs, 2 to 102,400 tasks -------

// The resident set now, in bytes (/proc/self/statm's second field, in pages).
double rss_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    unsigned long long size = 0, resident = 0;
    const bool ok = f != nullptr && std::fscanf(f, "%llu %llu", &size, &resident) == 2;
    if (f != nullptr)
        std::fclose(f);
    if (!ok)
        throw std::runtime_error("cannot read /proc/self/statm");
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

// Bytes the allocator hands out now (live heap, without what it keeps free).
double heap_in_use_bytes() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd);
}

struct scale_case {
    std::string workload;
    scenario sc;
    int tasks;
};

void print_scale_header() {
    std::printf("%-9s %5s %7s %6s %11s %8s %8s %9s %8s %9s %9s %9s\n", "workload", "cpus", "tasks",
                "sim s", "events", "setup s", "run s", "ns/event", "peak MiB", "setup B/t",
                "heap B/t", "peak B/t");
}

// One configuration in a child: the system is built (its tasks forked into the model), run
// to the end and its results collected. CPU time (user + system) of the set-up and of the
// run with the results; ns/event from the latter. Per task: the resident set the built
// system added (setup), the live heap at the end of the run, and the peak resident set of
// the whole run (results included) less the process's before it started.
void run_scale(const scale_case& c) {
    in_child([&] {
        const double rss0 = rss_bytes();
        const double heap0 = heap_in_use_bytes();
        const double cpu_start = cpu_seconds();
        libsched::system sys(c.sc, c.sc.seed);
        const double setup = rss_bytes() - rss0;
        const double cpu_run = cpu_seconds();
        sys.run(c.sc.length);
        const double heap = heap_in_use_bytes() - heap0;
        const repetition_result r = sys.result();
        const double cpu = cpu_seconds() - cpu_run;
        const double peak = static_cast<double>(peak_rss_kib()) * 1024.0 - rss0;
        const double n = c.tasks;
        std::printf("%-9s %5d %7d %6lld %11llu %8.2f %8.2f %9.1f %8.1f %9.0f %9.0f %9.0f\n",
                    c.workload.c_str(), c.sc.machine.cpus, c.tasks,
                    static_cast<long long>(c.sc.length / nsec_per_sec),
                    static_cast<unsigned long long>(r.events), cpu_run - cpu_start, cpu,
                    cpu * 1e9 / static_cast<double>(r.events), peak / (1024.0 * 1024.0), setup / n,
                    heap / n, peak / n);
    });
}

// The simulated length that gives about `events` events at `per_second` events per
// simulated second, at least one second.
duration length_for(double events, double per_second) {
    return std::max<duration>(1, std::llround(events / per_second)) * nsec_per_sec;
}

// Periodic tasks on one CPU that keep it 80 % busy at any count: 0.5 ms of CPU every
// n x 0.625 ms.
scenario periodic_load(int n, duration length) {
    scenario sc = periodic_on_one_cpu({6, 6}, n, length);
    sc.tasks.front().behaviour.period = n * 625 * nsec_per_usec;
    return sc;
}

// The machine of `cpus` CPUs for the scale table: 1 and 2 CPUs are one package of cores
// without SMT, then 2 packages of SMT pairs, 1024 as 8 packages of 64 cores.
multi_config scale_shape(int cpus, int tasks, int seconds) {
    if (cpus <= 2)
        return {1, cpus, 1, tasks, seconds};
    if (cpus == 1024)
        return {8, 64, 2, tasks, seconds};
    return {2, cpus / 4, 2, tasks, seconds};
}

void run_scale_tables(bool quick) {
    // Events per run: ~2 M (quick: 20 k, and at most 8192 tasks and 64 CPUs); the
    // per-simulated-second rates are rough figures from earlier runs, only to size the runs.
    const double events = quick ? 2e4 : 2e6;
    const int max_tasks = quick ? 8192 : 102400;
    const int max_cpus = quick ? 64 : 1024;
    const std::vector<int> task_counts = {2, 16, 128, 1024, 8192, 102400};
    print_scale_header();
    // Tasks per CPU on one CPU: burners (a switch every slice) and periodic tasks.
    for (const int n : task_counts) {
        if (n > max_tasks)
            continue;
        scenario b = burners_on_one_cpu({6, 6}, n, length_for(events, 2000));
        run_scale({"burners", b, n});
    }
    for (const int n : task_counts) {
        if (n > max_tasks)
            continue;
        // per simulated second: 2 events per burst (wakeup, burst end) and 800 busy ticks
        const double per_s = 2.0 * n / (n * 625e-6) + 800;
        run_scale({"periodic", periodic_load(n, length_for(events, per_s)), n});
    }
    // CPUs, at 4 mixed tasks per CPU (about 0.9 CPU asked per CPU) and at 100 (overloaded).
    for (const int per_cpu : {4, 100})
        for (const int cpus : {1, 2, 8, 64, 256, 1024}) {
            const int tasks = per_cpu * cpus;
            if (cpus > max_cpus || tasks > max_tasks)
                continue;
            const double per_s = 1700.0 * cpus;
            const multi_config c = scale_shape(
                cpus, tasks, static_cast<int>(length_for(events, per_s) / nsec_per_sec));
            run_scale({"mixed", mixed_on_many_cpus(c), tasks});
        }
    // Flat in the run length: the same configurations run 6x longer.
    if (!quick) {
        run_scale({"mixed", mixed_on_many_cpus({2, 16, 2, 1000, 10}), 1000});
        run_scale({"mixed", mixed_on_many_cpus({2, 16, 2, 1000, 60}), 1000});
        run_scale({"burners", burners_on_one_cpu({6, 6}, 8192, 200 * nsec_per_sec), 8192});
        run_scale({"burners", burners_on_one_cpu({6, 6}, 8192, 1200 * nsec_per_sec), 8192});
    }
    // With the latency samples kept per entry (latency_samples = "entry"): "mixed/e".
    const auto per_entry = [](scenario sc) {
        sc.latency_samples = sample_scope::entry;
        return sc;
    };
    run_scale({"mixed/e", per_entry(mixed_on_many_cpus({2, 16, 2, 1000, quick ? 1 : 10})), 1000});
    if (!quick) {
        run_scale({"mixed/e", per_entry(mixed_on_many_cpus({2, 16, 2, 1000, 60})), 1000});
        // Twice the tasks on the same machine: the difference is what a task adds.
        run_scale({"mixed/e", per_entry(mixed_on_many_cpus({2, 16, 2, 2000, 10})), 2000});
        run_scale({"mixed/e", per_entry(mixed_on_many_cpus({2, 16, 2, 4000, 10})), 4000});
        run_scale({"mixed/e", per_entry(mixed_on_many_cpus(scale_shape(1024, 102400, 1))),
                   102400});
    }
}

int usage(std::FILE* out, int status) {
    std::fputs("usage: libsched_bench [--quick | --scaling | --profile LABEL [--seconds S] |\n"
               "                       --multi PACKAGES CORES THREADS TASKS SECONDS [--no-nohz]]\n"
               "  --quick    short smoke run (for CI); the default is the full measurement\n"
               "  --scaling  cost per event and memory per task, 1 to 1024 CPUs and 2 to\n"
               "             102,400 tasks (with --quick: short runs)\n"
               "  --profile  only the timed runs of one configuration of the floor table,\n"
               "             by its label (\"6.6 burners 2\"): for perf record; --seconds S:\n"
               "             one run of S simulated seconds (for valgrind)\n"
               "  --multi    one multi-CPU configuration (--no-nohz: keep idle ticks)\n",
               out);
    return status;
}

// The floor table's configurations, full length or quick.
std::vector<bench_case> floor_cases(bool quick) {
    // ~2 events per simulated ms, so 4000 s is ~8-10 million events per run.
    const duration length = (quick ? 5 : 4000) * nsec_per_sec;
    const int runs = quick ? 1 : 3;
    std::vector<bench_case> cases;
    for (const kernel_version k : {kernel_version{6, 6}, kernel_version{5, 15}})
        for (const int n : {2, 64, 8192})
            cases.push_back({k.str() + " burners " + std::to_string(n),
                             burners_on_one_cpu(k, n, length), runs});
    cases.push_back({"6.6 periodic 16",
                     periodic_on_one_cpu({6, 6}, 16, (quick ? 5 : 1000) * nsec_per_sec), runs});
    cases.push_back(
        {"6.6 multi 64 cpus", mixed_on_many_cpus({2, 16, 2, 1000, quick ? 1 : 10}), runs});
    return cases;
}

// seconds > 0: one run of that simulated length instead of the three full-length ones (for
// instruction counts under valgrind, which runs 50 times slower).
int profile_one(const std::string& label, int seconds) {
    for (bench_case& b : floor_cases(false))
        if (b.label == label) {
            if (seconds > 0) {
                b.sc.length = seconds * nsec_per_sec;
                b.runs = 1;
            }
            const measurement m = measure(b.sc, b.runs);
            std::printf("%s: %llu events, %.1f ns/event\n", label.c_str(),
                        static_cast<unsigned long long>(m.events), m.ns_per_event());
            return 0;
        }
    std::fprintf(stderr, "libsched_bench: no configuration '%s'\n", label.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    bool scaling = false;
    bool one = false;
    std::string profile;
    int profile_seconds = 0;
    multi_config single{2, 16, 2, 1000, 60};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--scaling") == 0)
            scaling = true;
        else if (std::strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            profile = argv[++i];
        else if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            profile_seconds = std::atoi(argv[++i]);
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

    if (!profile.empty()) {
        try {
            return profile_one(profile, profile_seconds);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "libsched_bench: %s\n", e.what());
            return 1;
        }
    }

    try {
        if (scaling) {
            run_scale_tables(quick);
            return 0;
        }
        if (one) {
            print_multi_header();
            run_multi(single);
            return 0;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "libsched_bench: %s\n", e.what());
        return 1;
    }

    try {
        print_floor_header();
        std::vector<floor_result> rs;
        for (const bench_case& b : floor_cases(quick))
            rs.push_back(run_with_floor(b, quick));
        // rs: 6.6 at 2, 64, 8192 burners, then 5.15 at the same, then periodic and multi.
        bool targets_met = true;
        bool ratios_met = true;
        for (const std::size_t k : {0u, 3u}) {
            const double slowdown = rs[k + 2].model.ns_per_event() / rs[k].model.ns_per_event();
            std::printf("%-7s 8192 vs 2 burners: %.2fx the time per event\n",
                        k == 0 ? "6.6" : "5.15", slowdown);
            targets_met = targets_met && rs[k].model.events_per_second() >= 10e6 && slowdown <= 3.0;
            ratios_met = ratios_met && rs[k].ratio() <= 1.3 && rs[k + 2].ratio() <= 1.3;
        }
        const char* const short_run = quick ? " (quick run: too short to judge)" : "";
        std::printf(
            "targets (>= 10 M events/s with 2 burners, 8192 burners <= 3x per event): %s%s\n",
            targets_met ? "met" : "missed", short_run);
        std::printf("issue 12 targets (2 and 8192 burners <= 1.3x their floor): %s%s\n",
                    ratios_met ? "met" : "missed", short_run);

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
