#pragma once
// A hand-made run for the tests of the summaries, the JSON document and the report: entries
// a (two tasks, nice 0) and b (one task, nice 5, the reference) over three repetitions of
// a 1 s window. The numbers are chosen so that the median of the per-repetition ratios
// (7/3) differs from the ratio of the medians (0.65 / 0.30).
//
//   repetition            0       1       2
//   share  a.0 + a.1   0.30+0.30 0.35+0.35 0.32+0.33  -> a: 0.60 0.70 0.65 (median 0.65)
//          b              0.40    0.30    0.10                            (median 0.30)
//   a / b                 1.5     7/3     6.5                             (median 7/3)
//   jiffies: 100 x share, read as /proc deltas from a start of 5
//   getrusage utime: a.0 1 s, a.1 0.5 s, b 0.25 s   -> a 1500 ms, b 250 ms, ratio 6
//   window switches: a.0 4 + a.1 6 involuntary; b 10, 20, 30 voluntary (median 20)
//   migrations: a.0 3 in the run, 2 of them in the window
//   schedstat run delay of b: 100, 200, 300 ms in 4, 5, 6 waits (median 0.2 of the window)
//   wakeup latency of b: {1, 3} us, {2} us, {}      -> pooled {1, 2, 3} us
#include <cstdint>
#include <libsched/model/fair_params_of.hpp>
#include <libsched/scenario/provenance.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <string>
#include <vector>

namespace sample_run {

inline libsched::scenario scenario() {
    libsched::scenario sc;
    sc.name = "sample";
    sc.length = libsched::nsec_per_sec;
    sc.machine.kernel = {6, 8};
    libsched::task_spec a;
    a.name = "a";
    a.count = 2;
    libsched::task_spec b;
    b.name = "b";
    b.nice = 5;
    sc.tasks = {a, b};
    sc.reference = "b";
    sc.repetitions = 3;
    return sc;
}

inline libsched::task_result task(const std::string& name, const std::string& entry, int nice,
                                  double share) {
    libsched::task_result t;
    t.name = name;
    t.entry = entry;
    t.nice = nice;
    t.share = share;
    t.window_runtime = static_cast<libsched::duration>(share * 1e9);
    t.stat_utime_start = 5;
    t.stat_utime_end = 5 + static_cast<std::int64_t>(share * 100 + 0.5);
    return t;
}

inline libsched::run_result result() {
    const double a0[] = {0.30, 0.35, 0.32};
    const double a1[] = {0.30, 0.35, 0.33};
    const double b[] = {0.40, 0.30, 0.10};
    const std::vector<std::vector<libsched::duration>> wakeups = {{1'000, 3'000}, {2'000}, {}};
    libsched::run_result r;
    r.scenario = "sample";
    r.window_start = 0;
    r.window_end = libsched::nsec_per_sec;
    const libsched::scenario sc = scenario();
    r.provenance = libsched::simulated_provenance(sc, libsched::make_fair_params(sc.machine), 1);
    for (std::size_t i = 0; i < 3; ++i) {
        libsched::repetition_result rep;
        rep.seed = 1 + i;
        rep.events = 1000;
        rep.tasks = {task("a.0", "a", 0, a0[i]), task("a.1", "a", 0, a1[i]),
                     task("b", "b", 5, b[i])};
        rep.tasks[0].ru_utime_us = 1'000'000;
        rep.tasks[1].ru_utime_us = 500'000;
        rep.tasks[2].ru_utime_us = 250'000;
        rep.tasks[0].window_nivcsw = 4;
        rep.tasks[0].nr_migrations = 3;
        rep.tasks[0].window_nr_migrations = 2;
        rep.tasks[1].window_nivcsw = 6;
        rep.tasks[2].window_nvcsw = 10 * (i + 1);
        rep.tasks[2].window_run_delay = 100'000'000 * static_cast<libsched::duration>(i + 1);
        rep.tasks[2].window_pcount = 4 + i;
        for (const libsched::duration l : wakeups[i])
            rep.tasks[2].wakeup_latency.add(l);
        rep.tasks[2].exited = 900'000'000;
        libsched::cpu_result cpu;
        cpu.busy = 1'000'000'000;
        cpu.window_busy = 1'000'000'000;
        cpu.nr_switches = 500;
        rep.cpus = {cpu};
        r.repetitions.push_back(rep);
    }
    return r;
}

} // namespace sample_run
