#pragma once
// A run as JSON (docs/output-format.md): where the numbers come from, the scenario's window,
// every repetition's per-task and per-CPU results, the per-entry summary and, for replays,
// the measured values with the prediction's error. What a real machine shows too is at the
// top of each object, the model's internals under "model". Times are integer nanoseconds
// unless a key names another unit.
#include <libsched/scenario/provenance.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/group_comparison.hpp>
#include <libsched/stats/perf_stat.hpp>
#include <libsched/stats/summary.hpp>
#include <libsched/stats/theory.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

namespace libsched {
namespace detail {

template <class T> nlohmann::json optional_json(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// count, mean, nearest-rank percentiles and max in ns; the statistics are null without any
// sample, the percentiles also where the values were not kept (latency_samples = "entry").
inline nlohmann::json latency_json(const stats::sample_summary& s) {
    const auto value = [&](double v) {
        return s.count == 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
    };
    const auto rank = [&](double v) { return s.percentiles ? value(v) : nlohmann::json(nullptr); };
    return {
        {"count", s.count},   {"mean", value(s.mean)},  {"p50", rank(s.p50)},  {"p90", rank(s.p90)},
        {"p99", rank(s.p99)}, {"p99_9", rank(s.p99_9)}, {"max", value(s.max)},
    };
}

// A task's run delay: its latency_json(), the total (schedstat's run_delay over the window)
// and when the longest wait ended (null without any).
inline nlohmann::json run_delay_json(const duration_samples& d, sim_time max_at) {
    nlohmann::json j = latency_json(stats::summarize(d));
    j["sum"] = static_cast<duration>(d.sum());
    j["max_at"] = d.empty() ? nlohmann::json(nullptr) : nlohmann::json(max_at);
    return j;
}

// A measured task's run delay: the count and total of its waits from /proc/PID/schedstat,
// their mean; the distribution is null.
inline nlohmann::json schedstat_run_delay_json(const task_result& t) {
    nlohmann::json j = latency_json(stats::summarize(duration_samples{}));
    j["count"] = t.window_pcount;
    if (t.window_pcount > 0)
        j["mean"] = static_cast<double>(t.window_run_delay) / static_cast<double>(t.window_pcount);
    j["sum"] = t.window_run_delay;
    j["max_at"] = nullptr;
    return j;
}

// The tunables the release's fair class reads, named as in debugfs.
inline nlohmann::json tunables_json(const sched_tunables& t, kernel_version v) {
    const char* const scaling[] = {"none", "log", "linear"};
    nlohmann::json j = {{"scaling", scaling[static_cast<int>(t.scaling)]},
                        {"factor", t.factor},
                        {"tick_nsec", t.tick_nsec}};
    // The RT class's sysctls as the kernel keeps them (-1: unlimited), then the fair server.
    j["sched_rt_period_us"] = t.rt_period / nsec_per_usec;
    j["sched_rt_runtime_us"] = t.rt_runtime == runtime_inf ? -1 : t.rt_runtime / nsec_per_usec;
    j["sched_rr_timeslice_jiffies"] = t.rr_timeslice;
    j["rt_group_sched"] = t.rt_group_sched;
    if (v >= kernel_version{6, 12}) {
        j["fair_server_runtime_ns"] = t.fair_server_runtime;
        j["fair_server_period_ns"] = t.fair_server_period;
    }
    if (v.is_eevdf()) {
        j["base_slice_ns"] = t.base_slice;
        return j;
    }
    j["latency_ns"] = t.latency;
    j["min_granularity_ns"] = t.min_granularity;
    j["wakeup_granularity_ns"] = t.wakeup_granularity;
    j["sched_nr_latency"] = t.nr_latency;
    if (feature_exists(feature::base_slice, v)) // read under BASE_SLICE (cfs::sched_slice)
        j["idle_min_granularity_ns"] = t.idle_min_granularity;
    return j;
}

// A distribution as its TOML table has it, times in ns.
inline nlohmann::json distribution_json(const distribution& d) {
    switch (d.type) {
    case distribution::kind::uniform:
        return {{"dist", "uniform"}, {"low", d.a}, {"high", d.b}};
    case distribution::kind::exponential:
        return {{"dist", "exponential"}, {"mean", d.a}};
    case distribution::kind::constant:
    default:
        return {{"dist", "constant"}, {"value", d.a}};
    }
}

inline nlohmann::json provenance_json(const provenance& p) {
    nlohmann::json j = {
        {"source", p.source == result_source::simulated ? "simulated" : "measured"},
        {"producer", p.producer},
        {"producer_version", p.producer_version},
        {"kernel", p.kernel.str()},
        {"scheduler", p.kernel.is_eevdf() ? "eevdf" : "cfs"},
        {"hz", p.hz},
        {"cpus", p.cpus},
        {"online_cpus", p.online_cpus},
        {"tunables", tunables_json(p.tunables, p.kernel)},
        {"features", p.features},
        {"irq_time_accounting", p.irq_time_accounting},
        {"nohz_idle", p.nohz_idle},
        {"preempt", p.preempt ? nlohmann::json(preempt_mode_name(*p.preempt)) : nullptr},
        {"host_name", optional_json(p.host_name)},
        {"host_release", optional_json(p.host_release)},
        {"model", nullptr},
    };
    if (const auto& m = p.model)
        j["model"] = {
            {"calc_delta", m->delta_mode == calc_delta_mode::exact_division ? "exact" : "inverse"},
            {"resched_latency", m->resched_latency_ns},
            {"tick_irq", m->tick_irq_ns},
            {"timer_slack", m->timer_slack_ns},
            {"idle_exit_latency", m->idle_exit_latency_ns},
            {"ipi_latency", m->ipi_latency_ns},
            {"tick_latency", distribution_json(m->tick_latency)},
            {"sleep_cost", distribution_json(m->sleep_cost)},
            {"seed", m->seed},
            {"smt_throughput", optional_json(m->smt_throughput)},
            {"newidle_ratio",
             m->newidle_ratio.empty() ? nlohmann::json(nullptr) : nlohmann::json(m->newidle_ratio)},
        };
    return j;
}

// A measurement has no model internals and no per-wakeup latencies: user space cannot see
// them, so they are null rather than zero.
inline bool is_measured(const run_result& r) {
    return r.provenance.source == result_source::measured;
}

// Counts by reason, every reason from `first` on named (resched_reason::none is left out).
template <class Reason, std::size_t N>
nlohmann::json reason_counts_json(const std::array<std::uint64_t, N>& counts, std::size_t first) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = first; i < N; ++i)
        j[std::string{reason_name(static_cast<Reason>(i))}] = counts[i];
    return j;
}

inline nlohmann::json task_json(const task_result& t, bool measured = false) {
    nlohmann::json j = {
        {"name", t.name},
        {"entry", t.entry},
        {"pid", t.pid},
        {"cpu", t.cpu},
        {"nice", t.nice},
        {"nice_clamped", t.nice_clamped},
        {"policy", policy_name(t.policy)},
        {"rt_priority", t.rt_priority},
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
        {"nvcsw", t.nvcsw},
        {"nivcsw", t.nivcsw},
        {"window_nvcsw", t.window_nvcsw},
        {"window_nivcsw", t.window_nivcsw},
        {"nr_migrations", t.nr_migrations},
        {"window_nr_migrations", t.window_nr_migrations},
        {"wakeup_latency", latency_json(stats::summarize(t.wakeup_latency))},
        {"lateness", latency_json(stats::summarize(t.lateness))},
        {"run_delay", run_delay_json(t.run_delay, t.run_delay_max_at)},
        {"started", t.started},
        {"exited", t.exited < 0 ? nlohmann::json(nullptr) : nlohmann::json(t.exited)},
        {"loops", optional_json(t.loops)},
        {"loop_time",
         t.loops ? latency_json(stats::summarize(t.loop_time)) : nlohmann::json(nullptr)},
        {"model",
         {{"utime_ticks", t.utime_ticks},
          {"stime_ticks", t.stime_ticks},
          {"work_ns", optional_json(t.work_ns)},
          {"window_work_ns", optional_json(t.window_work_ns)},
          {"window_preempted_by", reason_counts_json<resched_reason>(t.window_preempted_by, 1)},
          {"window_migrated_by", reason_counts_json<migrate_reason>(t.window_migrated_by, 0)}}},
    };
    if (measured) { // /proc/PID/schedstat has the total wait, not each one
        j["model"] = j["wakeup_latency"] = nullptr;
        j["run_delay"] = schedstat_run_delay_json(t);
    }
    return j;
}

// A CPU's load-balancing counters (/proc/schedstat's).
inline nlohmann::json balance_json(const balance_counters& b) {
    return {{"lb_count", b.lb_count},     {"lb_failed", b.lb_failed}, {"lb_gained", b.lb_gained},
            {"alb_pushed", b.alb_pushed}, {"newidle", b.newidle},     {"nohz_kicks", b.nohz_kicks}};
}

// Measured: /proc/stat's busy and idle time only; the switch and balancing counts are null.
inline nlohmann::json cpu_json(const cpu_result& c, bool measured = false) {
    nlohmann::json j = {{"cpu", c.cpu},
                        {"busy", c.busy},
                        {"idle", c.idle},
                        {"window_busy", c.window_busy},
                        {"window_idle", c.window_idle},
                        {"nr_switches", c.nr_switches},
                        {"balance", balance_json(c.balance)},
                        {"window_balance", balance_json(c.window_balance)},
                        {"model", {{"irq", c.irq}}}};
    if (measured)
        j["nr_switches"] = j["balance"] = j["window_balance"] = j["model"] = nullptr;
    return j;
}

// cpu.stat's bandwidth lines, in ns (v2 shows throttled_usec and burst_usec: these / 1000).
inline nlohmann::json cpu_stat_json(const cfs_bandwidth_stat& s) {
    return {{"nr_periods", s.nr_periods},
            {"nr_throttled", s.nr_throttled},
            {"throttled_time", s.throttled_time},
            {"nr_bursts", s.nr_bursts},
            {"burst_time", s.burst_time}};
}

inline nlohmann::json task_group_json(const task_group_result& g) {
    nlohmann::json j = {{"name", g.name},
                        {"autogroup", g.autogroup},
                        {"session", g.session},
                        {"shares", g.shares},
                        {"nr_tasks", g.nr_tasks},
                        {"sum_exec_runtime", g.sum_exec_runtime},
                        {"window_runtime", g.window_runtime},
                        {"share", g.share}};
    if (g.bandwidth)
        j["bandwidth"] = {{"quota", g.quota},
                          {"period", g.period},
                          {"burst", g.burst},
                          {"cpu_stat", cpu_stat_json(g.cpu_stat)},
                          {"window_cpu_stat", cpu_stat_json(g.window_cpu_stat)}};
    return j;
}

inline nlohmann::json perf_json(const stats::perf_counters& p) {
    return {{"context_switches", p.context_switches},
            {"cpu_migrations", p.cpu_migrations},
            {"task_clock_ms", p.task_clock_ms},
            {"cpus_utilized", p.cpus_utilized}};
}

// perf stat over all the tasks, inside the window and over the whole run.
inline nlohmann::json perf_stat_json(const stats::perf_counters& window,
                                     const stats::perf_counters& run) {
    return {{"window", perf_json(window)}, {"run", perf_json(run)}};
}

// A repetition with its tasks as given: the built array, or a placeholder that write_json()
// streams.
inline nlohmann::json repetition_json(const repetition_result& rep, const run_result& result,
                                      const scenario& sc, nlohmann::json tasks) {
    nlohmann::json cpus = nlohmann::json::array();
    const bool measured = is_measured(result);
    for (const cpu_result& c : rep.cpus)
        cpus.push_back(cpu_json(c, measured));
    nlohmann::json groups = nlohmann::json::array();
    for (const task_group_result& g : rep.task_groups)
        groups.push_back(task_group_json(g));
    return {
        {"tasks", std::move(tasks)},
        {"cpus", cpus},
        {"task_groups", groups},
        {"perf_stat", perf_stat_json(stats::perf_stat_window(rep, stats::window_length(result, sc)),
                                     stats::perf_stat_run(rep, sc.length))},
        {"model", measured ? nlohmann::json(nullptr)
                           : nlohmann::json{{"seed", rep.seed}, {"events", rep.events}}}};
}

inline nlohmann::json tasks_json(const repetition_result& rep, bool measured) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const task_result& t : rep.tasks)
        tasks.push_back(task_json(t, measured));
    return tasks;
}

inline nlohmann::json row_json(const stats::row_summary& row, const stats::theory_figures& theory,
                               bool measured) {
    const auto in_theory = theory.entry_share.find(row.entry);
    const std::optional<double> theory_share =
        in_theory == theory.entry_share.end() ? std::nullopt : std::optional{in_theory->second};
    nlohmann::json j = {
        {"entry", row.entry},
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
        {"migrations_per_s", row.migrations_per_s},
        {"run_delay_share", row.run_delay_share},
        {"wakeup_latency", latency_json(row.wakeup_latency)},
        {"lateness", latency_json(row.lateness)},
        {"run_delay", latency_json(row.run_delay)},
        {"loops", optional_json(row.loops)},
        {"loops_per_s", optional_json(row.loops_per_s)},
        {"loop_time", row.loops ? latency_json(row.loop_time) : nlohmann::json(nullptr)},
        {"last_exit", optional_json(row.last_exit)},
        {"theory_share", optional_json(theory_share)},
        {"theory_ratio", optional_json(theory_share ? theory.ratio(*theory_share) : std::nullopt)}};
    if (measured) { // user space sees none of the distributions
        j["wakeup_latency"] = nullptr;
        j["lateness"] = nullptr;
        j["run_delay"] = nullptr;
    }
    return j;
}

// A two-group figure: the run's medians beside the measured ones and the theories.
inline nlohmann::json groups_json(const stats::group_summary& s, const measured_spec& m) {
    const group_ratio_spec& g = *m.groups;
    nlohmann::json j = {
        {"a", g.a},
        {"b", g.b},
        {"combo", g.combo},
        {"theory", s.theory},
        {"claimed_theory", optional_json(g.claimed_theory)},
        {"simulated", {{"ratio", optional_json(s.ratio)}, {"jratio", optional_json(s.jratio)}}},
        {"measured",
         {{"ratio", g.ratio},
          {"jratio", g.jratio},
          {"ratio_runs", g.ratio_runs},
          {"jratio_runs", g.jratio_runs}}},
    };
    if (m.perf_stat && s.perf)
        j["perf_stat"] = {{"simulated", perf_json(*s.perf)}, {"measured", perf_json(*m.perf_stat)}};
    return j;
}

// The document with its repetitions as given (see repetition_json()).
inline nlohmann::json document_json(const run_result& result, const scenario& sc,
                                    nlohmann::json reps) {
    const std::vector<stats::row_summary> entries = stats::summarize_entries(result, sc);
    nlohmann::json summary = nlohmann::json::array();
    const stats::theory_figures theory = stats::theory_figures_of(sc);
    for (const stats::row_summary& row : entries)
        summary.push_back(detail::row_json(row, theory, is_measured(result)));

    nlohmann::json j = {
        {"provenance", detail::provenance_json(result.provenance)},
        {"scenario", sc.name},
        {"description", sc.description},
        {"window", {{"start", sc.window_start}, {"end", sc.window_stop()}}},
        {"reference",
         sc.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(sc.reference)},
        {"repetitions", std::move(reps)},
        {"interrupted", nullptr},
        {"summary", summary},
    };
    if (const auto& stop = result.interrupted)
        j["interrupted"] = {{"repetition", stop->repetition},
                            {"repetitions", stop->repetitions},
                            {"repetitions_finished", result.repetitions.size()},
                            {"at", stop->at}};
    if (!result.repetitions.empty()) {
        const stats::perf_summary perf = stats::summarize_perf(result, sc);
        j["perf_stat"] = detail::perf_stat_json(perf.window, perf.run);
    }

    const measured_spec& m = sc.measured;
    if (m.share.empty() && m.ratio.empty() && !m.groups)
        return j;
    j["measured"] = {
        {"source", m.source},
        {"share", m.share},
        {"ratio", m.ratio},
        {"judged", m.judged},
        {"tolerance",
         {{"share", detail::optional_json(m.tolerance.share)},
          {"ratio", detail::optional_json(m.tolerance.ratio)},
          {"jratio", detail::optional_json(m.tolerance.jratio)}}},
    };
    nlohmann::json by_quantity = {{"share", nlohmann::json::object()},
                                  {"ratio", nlohmann::json::object()}};
    if (m.groups) {
        by_quantity["jratio"] = nlohmann::json::object();
        j["groups"] = detail::groups_json(stats::summarize_groups(result, sc, *m.groups), m);
    }
    nlohmann::json error = by_quantity, within = by_quantity;
    for (const stats::comparison& c : stats::compare_replay(result, sc)) {
        const std::string q{stats::quantity_name(c.quantity)};
        error[q][c.entry] = detail::optional_json(c.error);
        within[q][c.entry] = detail::optional_json(c.within);
    }
    j["error"] = error;
    j["within_tolerance"] = within;
    return j;
}

// Writes v as v.dump(indent) would, nested `depth` levels deep.
inline void write_indented(std::ostream& out, const nlohmann::json& v, int indent, int depth) {
    const std::string text = v.dump(indent);
    if (indent < 0 || depth == 0) {
        out << text;
        return;
    }
    // dump() escapes newlines inside strings: every raw one is the layout's.
    const std::string pad(static_cast<std::size_t>(indent * depth), ' ');
    for (const char c : text) {
        out.put(c);
        if (c == '\n')
            out << pad;
    }
}

inline void write_newline(std::ostream& out, int indent, int depth) {
    if (indent >= 0)
        out << '\n' << std::string(static_cast<std::size_t>(indent * depth), ' ');
}

// Writes an object (keys in j's order, as dump() does) whose value at `streamed_key` comes
// from write_streamed(depth) instead of j.
template <class Streamed>
void write_object(std::ostream& out, const nlohmann::json& j, const char* streamed_key, int indent,
                  int depth, Streamed write_streamed) {
    out << '{';
    bool first = true;
    for (const auto& [key, value] : j.items()) {
        if (!first)
            out << ',';
        first = false;
        write_newline(out, indent, depth + 1);
        out << nlohmann::json(key).dump() << (indent < 0 ? ":" : ": ");
        if (key == streamed_key)
            write_streamed(depth + 1);
        else
            write_indented(out, value, indent, depth + 1);
    }
    if (!first)
        write_newline(out, indent, depth);
    out << '}';
}

// Writes an array of n elements, element i by write_element(i, depth).
template <class Element>
void write_array(std::ostream& out, std::size_t n, int indent, int depth, Element write_element) {
    out << '[';
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0)
            out << ',';
        write_newline(out, indent, depth + 1);
        write_element(i, depth + 1);
    }
    if (n > 0)
        write_newline(out, indent, depth);
    out << ']';
}

} // namespace detail

inline nlohmann::json to_json(const run_result& result, const scenario& sc) {
    nlohmann::json reps = nlohmann::json::array();
    for (const repetition_result& rep : result.repetitions)
        reps.push_back(detail::repetition_json(
            rep, result, sc, detail::tasks_json(rep, detail::is_measured(result))));
    return detail::document_json(result, sc, std::move(reps));
}

// The text of to_json(result, sc).dump(indent), written one task at a time: the memory it
// needs grows with the largest task's record, not with the number of tasks (a whole
// nlohmann::json document of 100,000 tasks takes about 8 KiB per task).
inline void write_json(std::ostream& out, const run_result& result, const scenario& sc,
                       int indent = 2, int depth = 0) {
    using namespace detail;
    const nlohmann::json head = document_json(result, sc, nullptr);
    write_object(out, head, "repetitions", indent, depth, [&](int reps_depth) {
        const auto& reps = result.repetitions;
        write_array(out, reps.size(), indent, reps_depth, [&](std::size_t r, int rep_depth) {
            const nlohmann::json rep = repetition_json(reps[r], result, sc, nullptr);
            write_object(out, rep, "tasks", indent, rep_depth, [&](int tasks_depth) {
                const auto& tasks = reps[r].tasks;
                write_array(out, tasks.size(), indent, tasks_depth,
                            [&](std::size_t t, int task_depth) {
                                write_indented(out, task_json(tasks[t], is_measured(result)),
                                               indent, task_depth);
                            });
            });
        });
    });
}

} // namespace libsched
