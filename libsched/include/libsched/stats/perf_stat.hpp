#pragma once
// perf stat's software counters over tasks, as `perf stat` run around the scenario reports
// them: context-switches = sum of nvcsw + nivcsw, cpu-migrations = sum of nr_migrations,
// task-clock = sum of the tasks' runtime, CPUs utilized = task-clock / the elapsed time.
// Over the whole run the elapsed time runs from the first fork to the last exit (or the end
// of the run); inside the window it is the window's length.
#include <algorithm>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/types.hpp>
#include <libsched/stats/summary.hpp>
#include <vector>

namespace libsched::stats {

// The four counters, the same figures a replay's measured perf stat holds.
using perf_counters = perf_stat_spec;

// Sums tasks one by one; counters() divides by the elapsed time.
class perf_tally {
public:
    // Whole run: a task still alive stops being counted at run_end.
    void add_run(const task_result& t, sim_time run_end) {
        add(t.nvcsw + t.nivcsw, t.nr_migrations, t.sum_exec_runtime);
        const sim_time end = t.exited >= 0 ? t.exited : run_end;
        first_ = any_ ? std::min(first_, t.started) : t.started;
        last_ = any_ ? std::max(last_, end) : end;
        any_ = true;
    }
    // Inside the window: the window deltas.
    void add_window(const task_result& t) {
        add(t.window_nvcsw + t.window_nivcsw, t.window_nr_migrations, t.window_runtime);
    }
    // CPUs utilized over `elapsed` (0 when it is not positive).
    perf_counters counters(duration elapsed) const {
        perf_counters c = c_;
        if (elapsed > 0)
            c.cpus_utilized = c.task_clock_ms / (static_cast<double>(elapsed) / nsec_per_msec);
        return c;
    }
    // Over the whole run: from the first fork to the last exit.
    perf_counters run_counters() const { return counters(any_ ? last_ - first_ : 0); }

private:
    void add(std::uint64_t switches, std::uint64_t migrations, duration runtime) {
        c_.context_switches += static_cast<double>(switches);
        c_.cpu_migrations += static_cast<double>(migrations);
        c_.task_clock_ms += static_cast<double>(runtime) / nsec_per_msec;
    }
    perf_counters c_;
    sim_time first_ = 0, last_ = 0;
    bool any_ = false;
};

// perf stat over all tasks of a repetition, whole run.
inline perf_counters perf_stat_run(const repetition_result& rep, sim_time run_end) {
    perf_tally t;
    for (const task_result& r : rep.tasks)
        t.add_run(r, run_end);
    return t.run_counters();
}

// perf stat over all tasks of a repetition, inside a window of length `window`.
inline perf_counters perf_stat_window(const repetition_result& rep, duration window) {
    perf_tally t;
    for (const task_result& r : rep.tasks)
        t.add_window(r);
    return t.counters(window);
}

// The window's length: the run's, or the scenario's for a result that does not record it.
inline duration window_length(const run_result& result, const scenario& sc) {
    return result.window_end > result.window_start ? result.window_end - result.window_start
                                                   : sc.window_stop() - sc.window_start;
}

// Each counter's median over repetitions (each figure on its own, as summaries take them).
inline perf_counters median_counters(const std::vector<perf_counters>& v) {
    if (v.empty())
        return {};
    std::vector<double> cs, mig, clock, cpus;
    for (const perf_counters& c : v) {
        cs.push_back(c.context_switches);
        mig.push_back(c.cpu_migrations);
        clock.push_back(c.task_clock_ms);
        cpus.push_back(c.cpus_utilized);
    }
    return {median(cs), median(mig), median(clock), median(cpus)};
}

// Both spans of a run, medians over its repetitions.
struct perf_summary {
    perf_counters window, run;
};

inline perf_summary summarize_perf(const run_result& result, const scenario& sc) {
    std::vector<perf_counters> window, run;
    for (const repetition_result& rep : result.repetitions) {
        window.push_back(perf_stat_window(rep, window_length(result, sc)));
        run.push_back(perf_stat_run(rep, sc.length));
    }
    return {median_counters(window), median_counters(run)};
}

} // namespace libsched::stats
