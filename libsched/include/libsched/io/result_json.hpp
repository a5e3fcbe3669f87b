#pragma once
// A run as JSON (docs/output-format.md): the scenario's machine and window, every
// repetition's per-task and per-CPU results, the per-entry summary and, for replays, the
// measured values with the prediction's error. Times are integer nanoseconds unless a key
// names another unit.
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/summary.hpp>
#include <libsched/version.hpp>
#include <nlohmann/json.hpp>
#include <optional>

namespace libsched {
namespace detail {

inline nlohmann::json optional_json(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// count, mean, nearest-rank percentiles and max in ns; the statistics are null without any
// sample.
inline nlohmann::json latency_json(const stats::sample_summary& s) {
    const auto value = [&](double v) {
        return s.count == 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
    };
    return {{"count", s.count},    {"mean", value(s.mean)}, {"p50", value(s.p50)},
            {"p90", value(s.p90)}, {"p99", value(s.p99)},   {"p99_9", value(s.p99_9)},
            {"max", value(s.max)}};
}

inline nlohmann::json task_json(const task_result& t) {
    return {
        {"name", t.name},
        {"entry", t.entry},
        {"pid", t.pid},
        {"cpu", t.cpu},
        {"nice", t.nice},
        {"nice_clamped", t.nice_clamped},
        {"sum_exec_runtime", t.sum_exec_runtime},
        {"window_runtime", t.window_runtime},
        {"share", t.share},
        {"stat_utime_start", t.stat_utime_start},
        {"stat_utime_end", t.stat_utime_end},
        {"stat_stime_start", t.stat_stime_start},
        {"stat_stime_end", t.stat_stime_end},
        // The window's /proc/PID/stat deltas, in USER_HZ ticks (jiffies).
        {"stat_utime", t.stat_utime_end - t.stat_utime_start},
        {"stat_stime", t.stat_stime_end - t.stat_stime_start},
        {"ru_utime_us", t.ru_utime_us},
        {"ru_stime_us", t.ru_stime_us},
        {"utime_ticks", t.utime_ticks},
        {"stime_ticks", t.stime_ticks},
        {"nvcsw", t.nvcsw},
        {"nivcsw", t.nivcsw},
        {"window_nvcsw", t.window_nvcsw},
        {"window_nivcsw", t.window_nivcsw},
        {"nr_migrations", t.nr_migrations},
        {"window_nr_migrations", t.window_nr_migrations},
        {"wakeup_latency", latency_json(stats::summarize(t.wakeup_latency))},
        {"started", t.started},
        {"exited", t.exited < 0 ? nlohmann::json(nullptr) : nlohmann::json(t.exited)},
    };
}

inline nlohmann::json cpu_json(const cpu_result& c) {
    return {{"cpu", c.cpu},
            {"busy", c.busy},
            {"idle", c.idle},
            {"window_busy", c.window_busy},
            {"window_idle", c.window_idle},
            {"irq", c.irq},
            {"nr_switches", c.nr_switches}};
}

inline nlohmann::json repetition_json(const repetition_result& rep) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const task_result& t : rep.tasks)
        tasks.push_back(task_json(t));
    nlohmann::json cpus = nlohmann::json::array();
    for (const cpu_result& c : rep.cpus)
        cpus.push_back(cpu_json(c));
    return {{"seed", rep.seed}, {"events", rep.events}, {"tasks", tasks}, {"cpus", cpus}};
}

inline nlohmann::json row_json(const stats::row_summary& row) {
    return {{"entry", row.entry},
            {"nice", row.nice},
            {"tasks", row.tasks},
            {"share", row.share},
            {"ratio", optional_json(row.ratio)},
            {"jiffies", row.jiffies},
            {"jratio", optional_json(row.jratio)},
            {"ru_utime_ms", row.ru_utime_ms},
            {"ru_ratio", optional_json(row.ru_ratio)},
            {"stime_jiffies", row.stime_jiffies},
            {"ru_stime_ms", row.ru_stime_ms},
            {"nvcsw_per_s", row.nvcsw_per_s},
            {"nivcsw_per_s", row.nivcsw_per_s},
            {"wakeup_latency", latency_json(row.wakeup_latency)}};
}

} // namespace detail

inline nlohmann::json to_json(const run_result& result, const scenario& sc) {
    nlohmann::json reps = nlohmann::json::array();
    for (const repetition_result& rep : result.repetitions)
        reps.push_back(detail::repetition_json(rep));

    const std::vector<stats::row_summary> entries = stats::summarize_entries(result, sc);
    nlohmann::json summary = nlohmann::json::array();
    for (const stats::row_summary& row : entries)
        summary.push_back(detail::row_json(row));

    nlohmann::json j = {
        {"libsched_version", LIBSCHED_VERSION_STRING},
        {"scenario", sc.name},
        {"description", sc.description},
        {"machine",
         {{"cpus", sc.machine.cpus},
          {"online_cpus", sc.machine.online_cpus == 0 ? sc.machine.cpus : sc.machine.online_cpus},
          {"hz", sc.machine.hz},
          {"kernel", sc.machine.kernel.str()},
          {"model", sc.machine.kernel.is_eevdf() ? "eevdf" : "cfs"}}},
        {"window", {{"start", sc.window_start}, {"end", sc.window_stop()}}},
        {"reference",
         sc.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(sc.reference)},
        {"repetitions", reps},
        {"summary", summary},
    };

    const measured_spec& m = sc.measured;
    if (m.share.empty() && m.ratio.empty())
        return j;
    j["measured"] = {{"source", m.source}, {"share", m.share}, {"ratio", m.ratio}};
    nlohmann::json error = {{"share", nlohmann::json::object()},
                            {"ratio", nlohmann::json::object()}};
    for (const stats::comparison& c : stats::compare_measured(entries, m))
        error[std::string{stats::quantity_name(c.quantity)}][c.entry] =
            detail::optional_json(c.error);
    j["error"] = error;
    return j;
}

} // namespace libsched
