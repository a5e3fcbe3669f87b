#pragma once
// Two-group replays (measured_spec::groups): A's CPU time over B's as the source measured it,
// in each repetition, then the median over repetitions as its script took the median of its
// runs; the theory of the kernel's weight table beside it; and perf stat's counters over the
// two groups' tasks (stats/perf_stat.hpp). Everything a replay judges: compare_replay().
#include <algorithm>
#include <cstddef>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/perf_stat.hpp>
#include <libsched/stats/summary.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libsched::stats {

// A over B by the kernel's weight table (sched_prio_to_weight), each nice clamped to
// [-20, 19] as setpriority() does: the share ratio of tasks that always share one queue.
inline double weight_theory(int nice_a, int nice_b) {
    return static_cast<double>(nice_to_weight(nice_a)) /
           static_cast<double>(nice_to_weight(nice_b));
}

// One repetition's figures of groups A and B.
struct group_figures {
    std::optional<double> ratio;  // nullopt when B got no getrusage time
    std::optional<double> jratio; // or no jiffies
    perf_counters perf;
};

// run_end: the end of the run, where a task still alive stops being counted.
inline group_figures figures_of(const repetition_result& rep, const group_ratio_spec& g,
                                sim_time run_end) {
    double ru_a = 0, ru_b = 0, j_a = 0, j_b = 0;
    group_figures f;
    perf_tally perf; // perf stat over the two groups' tasks
    for (const task_result& t : rep.tasks) {
        const double ru = static_cast<double>(t.ru_utime_us);
        const double j = static_cast<double>(t.stat_utime_end - t.stat_utime_start);
        if (t.entry == g.a) {
            ru_a += ru;
            j_a += j;
        } else if (t.entry == g.b) {
            ru_b += ru;
            j_b += j;
        } else {
            continue;
        }
        perf.add_run(t, run_end);
    }
    if (ru_b > 0)
        f.ratio = ru_a / ru_b;
    if (j_b > 0)
        f.jratio = j_a / j_b;
    f.perf = perf.run_counters();
    return f;
}

// Medians over the repetitions.
struct group_summary {
    int nice_a = 0, nice_b = 0; // as the scenario requests them
    double theory = 0;          // weight_theory of the two
    std::optional<double> ratio, jratio;
    std::optional<perf_counters> perf; // nullopt without a repetition
};

inline std::optional<double> median_or_none(const std::vector<double>& v) {
    return v.empty() ? std::nullopt : std::optional{median(v)};
}

inline group_summary summarize_groups(const run_result& result, const scenario& sc,
                                      const group_ratio_spec& g) {
    group_summary s;
    for (const task_spec& t : sc.tasks) {
        if (t.name == g.a)
            s.nice_a = t.nice;
        if (t.name == g.b)
            s.nice_b = t.nice;
    }
    s.theory = weight_theory(s.nice_a, s.nice_b);
    std::vector<double> ratios, jratios;
    std::vector<perf_counters> perf;
    for (const repetition_result& rep : result.repetitions) {
        const group_figures f = figures_of(rep, g, sc.length);
        if (f.ratio)
            ratios.push_back(*f.ratio);
        if (f.jratio)
            jratios.push_back(*f.jratio);
        perf.push_back(f.perf);
    }
    s.ratio = median_or_none(ratios);
    s.jratio = median_or_none(jratios);
    if (!result.repetitions.empty())
        s.perf = median_counters(perf);
    return s;
}

// The simulated ratio and jratio against the measured medians, entry "A/B".
inline std::vector<comparison> compare_groups(const group_summary& s, const measured_spec& m) {
    std::vector<comparison> out;
    if (!m.groups)
        return out;
    const group_ratio_spec& g = *m.groups;
    for (const auto q : {measured_quantity::ratio, measured_quantity::jratio}) {
        const bool ru = q == measured_quantity::ratio;
        comparison c;
        c.entry = g.a + "/" + g.b;
        c.quantity = q;
        c.predicted = ru ? s.ratio : s.jratio;
        c.theory = s.theory;
        c.measured = ru ? g.ratio : g.jratio;
        c.tolerance = ru ? m.tolerance.ratio : m.tolerance.jratio;
        c.judged = m.judged;
        c.known_gap = is_known_gap(m, q);
        judge_ratio(c);
        out.push_back(std::move(c));
    }
    return out;
}

// Every measured quantity of a replay against the run: shares and ratios of entries, then
// a two-group figure's ratio and jratio.
inline std::vector<comparison> compare_replay(const run_result& result, const scenario& sc) {
    const theory_figures theory = theory_figures_of(sc);
    std::vector<comparison> out =
        compare_measured(summarize_entries(result, sc), sc.measured, &theory);
    if (sc.measured.groups) {
        const auto groups =
            compare_groups(summarize_groups(result, sc, *sc.measured.groups), sc.measured);
        out.insert(out.end(), groups.begin(), groups.end());
    }
    return out;
}

} // namespace libsched::stats
