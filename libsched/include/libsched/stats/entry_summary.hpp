#pragma once
// Per entry (and per task) figures of a run, each the median over repetitions of a
// per-repetition total: what the report, the JSON summary and the replay comparison print.
// Ratios are taken per repetition first, then the median, as a measurement script would.
// Each summary takes one pass over the tasks of every repetition, so a run of 100 000 tasks
// costs no more per task than a run of two.
#include <algorithm>
#include <cstddef>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/stats/summary.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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
    double migrations_per_s = 0;    // moves to another CPU in the window per second
    double run_delay_share = 0;     // sum of the window's waits on run queues / its length
    sample_summary wakeup_latency;  // ns, pooled over members and repetitions
    sample_summary lateness;        // ns, members on an absolute timer, pooled likewise
    sample_summary run_delay;       // ns, each wait on a run queue, pooled likewise
    // Members running a program of steps: the passes ending in the window, per second of
    // it, and each pass's wall time (ns, pooled); unset / empty otherwise.
    std::optional<double> loops;
    std::optional<double> loops_per_s;
    sample_summary loop_time;
    // When the last member exited (ns), once every member exits in every repetition.
    std::optional<double> last_exit;
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
    double migrations = 0;
    double run_delay = 0; // ns
    double loops = 0;
    double last_exit = 0; // of the members that exited
    bool alive = false;   // some member is still alive at the end

    void add(const task_result& task) {
        share += task.share;
        jiffies += static_cast<double>(task.stat_utime_end - task.stat_utime_start);
        ru_utime_ms += static_cast<double>(task.ru_utime_us) / 1000;
        stime_jiffies += static_cast<double>(task.stat_stime_end - task.stat_stime_start);
        ru_stime_ms += static_cast<double>(task.ru_stime_us) / 1000;
        nvcsw += static_cast<double>(task.window_nvcsw);
        nivcsw += static_cast<double>(task.window_nivcsw);
        migrations += static_cast<double>(task.window_nr_migrations);
        run_delay += static_cast<double>(task.window_run_delay);
        loops += static_cast<double>(task.loops.value_or(0));
        alive = alive || task.exited < 0;
        last_exit = std::max(last_exit, static_cast<double>(task.exited));
    }
};

// What one row gathers from its members.
struct row_members {
    std::vector<repetition_totals> totals; // one per repetition
    duration_samples latencies;            // pooled over members and repetitions
    duration_samples lateness;             // the same
    duration_samples run_delay;            // the same
    duration_samples loop_time;            // the same
    bool steps = false;                    // some member runs a program of steps
    int tasks = 0;                         // members in the first repetition
    std::optional<int> nice;               // the first member's, in the first repetition
};

inline constexpr std::size_t no_row = static_cast<std::size_t>(-1);

// One pass over every task of every repetition; row_of(task) is the task's row or no_row.
// by_entry: row i is entry i, whose distributions come from the repetition's per-entry
// samples where it has them (the tasks then keep no values).
template <class RowOf>
std::vector<row_members> gather(const run_result& result, std::size_t rows, RowOf row_of,
                                bool by_entry = false) {
    std::vector<row_members> members(rows);
    for (row_members& m : members)
        m.totals.resize(result.repetitions.size());
    for (std::size_t r = 0; r < result.repetitions.size(); ++r) {
        const std::vector<entry_samples>& pools = result.repetitions[r].entries;
        const bool pooled = by_entry && pools.size() == rows;
        for (std::size_t row = 0; pooled && row < rows; ++row) {
            row_members& m = members[row];
            m.latencies.merge(pools[row].wakeup_latency);
            m.lateness.merge(pools[row].lateness);
            m.run_delay.merge(pools[row].run_delay);
            m.loop_time.merge(pools[row].loop_time);
        }
        for (const task_result& task : result.repetitions[r].tasks) {
            const std::size_t row = row_of(task);
            if (row == no_row)
                continue;
            row_members& m = members[row];
            m.totals[r].add(task);
            if (!pooled) {
                m.latencies.merge(task.wakeup_latency);
                m.lateness.merge(task.lateness);
                m.run_delay.merge(task.run_delay);
                m.loop_time.merge(task.loop_time);
            }
            m.steps = m.steps || task.loops.has_value();
            if (r == 0 && m.tasks == 0)
                m.nice = task.nice;
            if (r == 0)
                ++m.tasks;
        }
    }
    return members;
}

// Rows by name: row i is names[i]. Results list their tasks in row order, so a lookup
// tries the row found last and the next one before a hash map, built at the first miss.
class row_index {
public:
    explicit row_index(std::vector<std::string_view> names) : names_(std::move(names)) {}

    std::size_t operator()(std::string_view name) {
        for (const std::size_t row : {last_, last_ + 1})
            if (row < names_.size() && names_[row] == name)
                return last_ = row;
        if (rows_.empty())
            for (std::size_t i = 0; i < names_.size(); ++i)
                rows_.emplace(names_[i], i);
        const auto it = rows_.find(name);
        return it == rows_.end() ? no_row : (last_ = it->second);
    }

private:
    std::vector<std::string_view> names_;
    std::unordered_map<std::string_view, std::size_t> rows_;
    std::size_t last_ = 0;
};

using total_field = double repetition_totals::*;

// Medians over repetitions. One scratch sample serves every row, so a run of many small
// rows does not allocate for each figure of each row.
class repetition_medians {
public:
    double of(const std::vector<repetition_totals>& totals, total_field field) {
        sample_.clear();
        for (const auto& t : totals)
            sample_.push_back(t.*field);
        return sorted_median();
    }

    // Of value / the reference's value, skipping repetitions where the reference got
    // nothing; nullopt without a reference or when every repetition is skipped.
    std::optional<double> ratio(const std::vector<repetition_totals>& mine,
                                const std::vector<repetition_totals>& reference,
                                total_field field) {
        sample_.clear();
        for (std::size_t r = 0; r < mine.size() && r < reference.size(); ++r)
            if (reference[r].*field > 0)
                sample_.push_back(mine[r].*field / reference[r].*field);
        if (sample_.empty())
            return std::nullopt;
        return sorted_median();
    }

private:
    double sorted_median() {
        std::sort(sample_.begin(), sample_.end());
        return median_of_sorted(sample_);
    }
    std::vector<double> sample_;
};

inline double window_seconds(const run_result& result, const scenario& sc) {
    const sim_time start =
        result.window_end > result.window_start ? result.window_start : sc.window_start;
    const sim_time end =
        result.window_end > result.window_start ? result.window_end : sc.window_stop();
    return static_cast<double>(end - start) / static_cast<double>(nsec_per_sec);
}

// The row's figures from its members; `reference` holds the reference entry's totals per
// repetition (empty: no ratios). Needs at least one repetition.
inline row_summary finish_row(row_summary row, const row_members& m, double window_s,
                              const std::vector<repetition_totals>& reference,
                              repetition_medians& median) {
    using t = repetition_totals;
    row.tasks = m.tasks;
    row.nice = m.nice.value_or(row.nice);
    const double per_s = window_s > 0 ? 1 / window_s : 0;
    row.share = median.of(m.totals, &t::share);
    row.jiffies = median.of(m.totals, &t::jiffies);
    row.ru_utime_ms = median.of(m.totals, &t::ru_utime_ms);
    row.stime_jiffies = median.of(m.totals, &t::stime_jiffies);
    row.ru_stime_ms = median.of(m.totals, &t::ru_stime_ms);
    row.nvcsw_per_s = median.of(m.totals, &t::nvcsw) * per_s;
    row.nivcsw_per_s = median.of(m.totals, &t::nivcsw) * per_s;
    row.migrations_per_s = median.of(m.totals, &t::migrations) * per_s;
    row.run_delay_share = median.of(m.totals, &t::run_delay) * per_s / nsec_per_sec;
    row.ratio = median.ratio(m.totals, reference, &t::share);
    row.jratio = median.ratio(m.totals, reference, &t::jiffies);
    row.ru_ratio = median.ratio(m.totals, reference, &t::ru_utime_ms);
    row.wakeup_latency = summarize(m.latencies);
    row.lateness = summarize(m.lateness);
    row.run_delay = summarize(m.run_delay);
    if (m.steps) {
        row.loops = median.of(m.totals, &t::loops);
        row.loops_per_s = *row.loops * per_s;
        row.loop_time = summarize(m.loop_time);
    }
    if (std::none_of(m.totals.begin(), m.totals.end(), [](const t& r) { return r.alive; }))
        row.last_exit = median.of(m.totals, &t::last_exit);
    return row;
}

// The reference entry's totals per repetition; empty without a reference.
inline std::vector<repetition_totals> reference_totals(const run_result& result,
                                                       const scenario& sc) {
    if (sc.reference.empty())
        return {};
    return gather(result, 1,
                  [&](const task_result& t) { return t.entry == sc.reference ? 0 : no_row; })
        .front()
        .totals;
}

// One row per name in `names` (row i for the tasks whose key is names[i]), each started by
// head(i) with its name and entry and finished from the medians over repetitions.
template <class Key, class Head>
std::vector<row_summary> summary_rows(const run_result& result, const scenario& sc,
                                      const std::vector<std::string_view>& names, Key key,
                                      Head head, bool by_entry) {
    std::vector<row_summary> rows;
    const double window_s = window_seconds(result, sc);
    const auto reference = reference_totals(result, sc);
    row_index row_of(names);
    const auto members = gather(
        result, names.size(), [&](const task_result& t) { return row_of(key(t)); }, by_entry);
    repetition_medians median;
    rows.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        rows.push_back(finish_row(head(i), members[i], window_s, reference, median));
    return rows;
}

} // namespace detail

// One row per entry ([[tasks]] table), in the scenario's order; empty when no repetition ran.
inline std::vector<row_summary> summarize_entries(const run_result& result, const scenario& sc) {
    if (result.repetitions.empty())
        return {};
    std::vector<std::string_view> names;
    names.reserve(sc.tasks.size());
    for (const task_spec& spec : sc.tasks)
        names.push_back(spec.name);
    return detail::summary_rows(
        result, sc, names, [](const task_result& t) { return std::string_view{t.entry}; },
        [&](std::size_t i) {
            row_summary row;
            row.name = row.entry = sc.tasks[i].name;
            row.nice = clamp_nice(sc.tasks[i].nice).nice;
            return row;
        },
        true);
}

// One row per task instance, in the order of the first repetition; ratios are to the
// reference entry. Empty when no repetition ran.
inline std::vector<row_summary> summarize_tasks(const run_result& result, const scenario& sc) {
    if (result.repetitions.empty())
        return {};
    const std::vector<task_result>& first = result.repetitions.front().tasks;
    std::vector<std::string_view> names;
    names.reserve(first.size());
    for (const task_result& task : first)
        names.push_back(task.name);
    return detail::summary_rows(
        result, sc, names, [](const task_result& t) { return std::string_view{t.name}; },
        [&](std::size_t i) {
            row_summary row;
            row.name = first[i].name;
            row.entry = first[i].entry;
            return row;
        },
        false);
}

} // namespace libsched::stats
