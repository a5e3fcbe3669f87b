#pragma once
// Per entry (and per task) figures of a run, each the median over repetitions of a
// per-repetition total: what the report, the JSON summary and the replay comparison print.
// Ratios are taken per repetition first, then the median, as a measurement script would.
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/stats/summary.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libsched::stats {

struct row_summary {
    std::string name;               // the entry, or one instance ("a.1")
    std::string entry;              // the entry it belongs to
    int nice = 0;                   // effective nice at the end of the first repetition
    int tasks = 0;                  // instances in the row
    double share = 0;               // sum of the members' window_runtime / window length
    std::optional<double> ratio;    // share / the reference entry's share
    double jiffies = 0;             // sum of /proc/PID/stat utime deltas over the window
    std::optional<double> jratio;   // jiffies / the reference entry's jiffies
    double ru_utime_ms = 0;         // sum of getrusage ru_utime (whole life), ms
    std::optional<double> ru_ratio; // ru_utime / the reference entry's ru_utime
    double stime_jiffies = 0;       // sum of /proc/PID/stat stime deltas over the window
    double ru_stime_ms = 0;         // sum of getrusage ru_stime (whole life), ms
    double nvcsw_per_s = 0;         // voluntary switches in the window per second of window
    double nivcsw_per_s = 0;        // involuntary ones
    sample_summary wakeup_latency;  // ns, pooled over members and repetitions
};

namespace detail {

struct repetition_totals {
    double share = 0;
    double jiffies = 0;
    double ru_utime_ms = 0;
    double stime_jiffies = 0;
    double ru_stime_ms = 0;
    double nvcsw = 0;
    double nivcsw = 0;
};

template <class Member> repetition_totals totals_of(const repetition_result& rep, Member member) {
    repetition_totals t;
    for (const task_result& task : rep.tasks) {
        if (!member(task))
            continue;
        t.share += task.share;
        t.jiffies += static_cast<double>(task.stat_utime_end - task.stat_utime_start);
        t.ru_utime_ms += static_cast<double>(task.ru_utime_us) / 1000;
        t.stime_jiffies += static_cast<double>(task.stat_stime_end - task.stat_stime_start);
        t.ru_stime_ms += static_cast<double>(task.ru_stime_us) / 1000;
        t.nvcsw += static_cast<double>(task.window_nvcsw);
        t.nivcsw += static_cast<double>(task.window_nivcsw);
    }
    return t;
}

using total_field = double repetition_totals::*;

// Median over repetitions of value / the reference's value, skipping repetitions where the
// reference got nothing; nullopt without a reference or when every repetition is skipped.
inline std::optional<double> median_ratio(const std::vector<repetition_totals>& mine,
                                          const std::vector<repetition_totals>& reference,
                                          total_field field) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < mine.size() && r < reference.size(); ++r)
        if (reference[r].*field > 0)
            ratios.push_back(mine[r].*field / reference[r].*field);
    if (ratios.empty())
        return std::nullopt;
    return median(ratios);
}

inline double median_of(const std::vector<repetition_totals>& totals, total_field field) {
    std::vector<double> v;
    for (const auto& t : totals)
        v.push_back(t.*field);
    return median(v);
}

inline double window_seconds(const run_result& result, const scenario& sc) {
    const sim_time start =
        result.window_end > result.window_start ? result.window_start : sc.window_start;
    const sim_time end =
        result.window_end > result.window_start ? result.window_end : sc.window_stop();
    return static_cast<double>(end - start) / static_cast<double>(nsec_per_sec);
}

// One row over the tasks `member` selects; `reference` holds the reference entry's totals
// per repetition (empty: no ratios). Needs at least one repetition.
template <class Member>
row_summary summarize_members(const run_result& result, double window_s,
                              const std::vector<repetition_totals>& reference, row_summary row,
                              Member member) {
    std::vector<repetition_totals> totals;
    std::vector<duration> latencies;
    for (const repetition_result& rep : result.repetitions) {
        totals.push_back(totals_of(rep, member));
        for (const task_result& task : rep.tasks)
            if (member(task))
                latencies.insert(latencies.end(), task.wakeup_latency.begin(),
                                 task.wakeup_latency.end());
    }
    row.tasks = 0;
    for (const task_result& task : result.repetitions.front().tasks) {
        if (!member(task))
            continue;
        if (row.tasks == 0)
            row.nice = task.nice;
        ++row.tasks;
    }
    const double per_s = window_s > 0 ? 1 / window_s : 0;
    row.share = median_of(totals, &repetition_totals::share);
    row.jiffies = median_of(totals, &repetition_totals::jiffies);
    row.ru_utime_ms = median_of(totals, &repetition_totals::ru_utime_ms);
    row.stime_jiffies = median_of(totals, &repetition_totals::stime_jiffies);
    row.ru_stime_ms = median_of(totals, &repetition_totals::ru_stime_ms);
    row.nvcsw_per_s = median_of(totals, &repetition_totals::nvcsw) * per_s;
    row.nivcsw_per_s = median_of(totals, &repetition_totals::nivcsw) * per_s;
    row.ratio = median_ratio(totals, reference, &repetition_totals::share);
    row.jratio = median_ratio(totals, reference, &repetition_totals::jiffies);
    row.ru_ratio = median_ratio(totals, reference, &repetition_totals::ru_utime_ms);
    row.wakeup_latency = summarize(latencies);
    return row;
}

inline std::vector<repetition_totals> reference_totals(const run_result& result,
                                                       const scenario& sc) {
    std::vector<repetition_totals> totals;
    if (sc.reference.empty())
        return totals;
    for (const repetition_result& rep : result.repetitions)
        totals.push_back(
            totals_of(rep, [&](const task_result& t) { return t.entry == sc.reference; }));
    return totals;
}

} // namespace detail

// One row per entry ([[tasks]] table), in the scenario's order; empty when no repetition ran.
inline std::vector<row_summary> summarize_entries(const run_result& result, const scenario& sc) {
    std::vector<row_summary> rows;
    if (result.repetitions.empty())
        return rows;
    const double window_s = detail::window_seconds(result, sc);
    const auto reference = detail::reference_totals(result, sc);
    for (const task_spec& spec : sc.tasks) {
        row_summary row;
        row.name = row.entry = spec.name;
        row.nice = clamp_nice(spec.nice).nice;
        rows.push_back(
            detail::summarize_members(result, window_s, reference, std::move(row),
                                      [&](const task_result& t) { return t.entry == spec.name; }));
    }
    return rows;
}

// One row per task instance, in the order of the first repetition; ratios are to the
// reference entry. Empty when no repetition ran.
inline std::vector<row_summary> summarize_tasks(const run_result& result, const scenario& sc) {
    std::vector<row_summary> rows;
    if (result.repetitions.empty())
        return rows;
    const double window_s = detail::window_seconds(result, sc);
    const auto reference = detail::reference_totals(result, sc);
    for (const task_result& task : result.repetitions.front().tasks) {
        row_summary row;
        row.name = task.name;
        row.entry = task.entry;
        rows.push_back(
            detail::summarize_members(result, window_s, reference, std::move(row),
                                      [&](const task_result& t) { return t.name == task.name; }));
    }
    return rows;
}

} // namespace libsched::stats
