#pragma once
// The human-readable report of a run: one header line, then a table row per entry (and per
// task when entries have several members and the run is small), medians over repetitions,
// with measured values and the error beside the prediction when the scenario has them.
#include <algorithm>
#include <libsched/io/detail/text_table.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/group_comparison.hpp>
#include <libsched/stats/perf_stat.hpp>
#include <libsched/stats/summary.hpp>
#include <libsched/stats/theory.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace libsched {
namespace detail {

// Task rows are listed under their entry when some entry has several members and there are
// at most this many tasks in all.
inline constexpr int max_tasks_listed = 16;

inline std::string report_header(const scenario& sc, std::size_t repetitions) {
    const machine_spec& m = sc.machine;
    std::string h = sc.name + ": kernel " + m.kernel.str() +
                    (m.kernel.is_eevdf() ? " (EEVDF)" : " (CFS)") + ", " + std::to_string(m.cpus) +
                    (m.cpus == 1 ? " CPU" : " CPUs");
    if (m.online_cpus != 0 && m.online_cpus != m.cpus)
        h += " (" + std::to_string(m.online_cpus) + " online)";
    h += ", HZ " + std::to_string(m.hz) + ", window " + format_duration(sc.window_start) + " to " +
         format_duration(sc.window_stop()) + ", " + std::to_string(repetitions) +
         (repetitions == 1 ? " repetition" : " repetitions (medians)");
    return h;
}

inline std::string latency_us(const stats::sample_summary& s, double ns) {
    return s.count == 0 ? "-" : fixed(ns / 1000, 1);
}

// The entries running programs of steps: passes (loops) and their wall time, and the last
// exit (a hackbench-like run's completion time).
inline void print_steps_table(std::ostream& out, const std::vector<stats::row_summary>& entries) {
    text_table table({{"entry", align::left},
                      {"loops"},
                      {"loops/s"},
                      {"wake p99 us"},
                      {"loop p50 us"},
                      {"loop p99 us"},
                      {"loop max us"},
                      {"last exit ms"}});
    for (const auto& e : entries) {
        if (!e.loops)
            continue;
        const stats::sample_summary& l = e.loop_time;
        table.add_row({e.entry, fixed(e.loops, 0), fixed(e.loops_per_s, 1),
                       latency_us(e.wakeup_latency, e.wakeup_latency.p99), latency_us(l, l.p50),
                       latency_us(l, l.p99), latency_us(l, l.max),
                       fixed(e.last_exit ? std::optional{*e.last_exit / 1e6} : std::nullopt, 3)});
    }
    table.print(out);
}

// A tolerance as the replay summary prints it: "+-0.50 pp", "+-3.0 %".
inline std::string tolerance_text(const stats::comparison& c) {
    if (!c.tolerance)
        return "-";
    const bool share = c.quantity == stats::measured_quantity::share;
    return "+-" + fixed(*c.tolerance * 100, share ? 2 : 1) + " " +
           std::string{stats::error_unit(c.quantity)};
}

inline std::string verdict_text(const stats::comparison& c) {
    if (!c.judged)
        return "not judged";
    if (!c.tolerance)
        return "no tolerance";
    if (!c.within)
        return "no prediction";
    if (*c.within)
        return c.known_gap ? "within (marked known gap)" : "within";
    return c.known_gap ? "OUTSIDE (known gap)" : "OUTSIDE";
}

// A / b - 1 in percent, or nothing.
inline std::optional<double> percent_off(std::optional<double> a, double b) {
    if (!a || b == 0)
        return std::nullopt;
    return (*a / b - 1) * 100;
}

} // namespace detail

// One row of the two-group table: a replay, its run's medians and its measurement.
struct group_row {
    std::string replay;
    stats::group_summary simulated;
    group_ratio_spec measured;
};

// Side by side for each two-group replay: the kernel's weight-table theory and the source's
// own, the simulated ratio and jratio (medians over repetitions) and the measured medians;
// each error in percent of the measured median of its measure (the theories' of the ratio).
inline void print_group_table(std::ostream& out, const std::vector<group_row>& rows) {
    using detail::align;
    using detail::fixed;
    using detail::percent_off;
    detail::text_table table({{"replay", align::left},
                              {"A/B", align::left},
                              {"nice"},
                              {"theory"},
                              {"err %"},
                              {"claimed"},
                              {"err %"},
                              {"ratio"},
                              {"measured"},
                              {"err %"},
                              {"jratio"},
                              {"measured"},
                              {"err %"}});
    for (const group_row& r : rows) {
        const stats::group_summary& s = r.simulated;
        const group_ratio_spec& m = r.measured;
        table.add_row(
            {r.replay, m.a + "/" + m.b, std::to_string(s.nice_a) + "/" + std::to_string(s.nice_b),
             fixed(s.theory, 3), fixed(percent_off(s.theory, m.ratio), 1, true),
             fixed(m.claimed_theory, 3), fixed(percent_off(m.claimed_theory, m.ratio), 1, true),
             fixed(s.ratio, 3), fixed(m.ratio, 3), fixed(percent_off(s.ratio, m.ratio), 1, true),
             fixed(s.jratio, 3), fixed(m.jratio, 3),
             fixed(percent_off(s.jratio, m.jratio), 1, true)});
    }
    table.print(out);
}

// perf stat's counters, one column per span (as labelled), and when a measurement is given
// the measured counters with the first column's error beside them.
inline void print_perf_stat(std::ostream& out,
                            const std::vector<std::pair<std::string, stats::perf_counters>>& spans,
                            const perf_stat_spec* measured = nullptr) {
    using detail::align;
    using detail::fixed;
    std::vector<detail::column> columns = {{"perf stat", align::left}};
    for (const auto& span : spans)
        columns.push_back({span.first});
    if (measured)
        columns.insert(columns.end(), {{"measured"}, {"error %"}});
    detail::text_table table(std::move(columns));
    using field = double stats::perf_counters::*;
    const auto row = [&](const char* name, field f, int decimals) {
        std::vector<std::string> cells = {name};
        for (const auto& span : spans)
            cells.push_back(fixed(span.second.*f, decimals));
        if (measured && !spans.empty())
            cells.insert(
                cells.end(),
                {fixed(measured->*f, decimals),
                 fixed(detail::percent_off(spans.front().second.*f, measured->*f), 1, true)});
        table.add_row(std::move(cells));
    };
    row("context-switches", &stats::perf_counters::context_switches, 0);
    row("cpu-migrations", &stats::perf_counters::cpu_migrations, 0);
    row("task-clock ms", &stats::perf_counters::task_clock_ms, 2);
    row("CPUs utilized", &stats::perf_counters::cpus_utilized, 3);
    table.print(out);
}

// Per CPU, medians over repetitions: busy share of the window, context switches and the load
// balancer's counters over the whole run.
inline void print_cpu_table(std::ostream& out, const run_result& result) {
    using detail::align;
    using detail::fixed;
    if (result.repetitions.empty())
        return;
    detail::text_table table({{"cpu"},
                              {"busy %"},
                              {"switches"},
                              {"lb passes"},
                              {"lb failed"},
                              {"pulled"},
                              {"pushed"},
                              {"newidle"},
                              {"nohz"}});
    const std::size_t nr_cpus = result.repetitions.front().cpus.size();
    for (std::size_t c = 0; c < nr_cpus; ++c) {
        const auto med = [&](auto value) {
            std::vector<double> v;
            for (const repetition_result& rep : result.repetitions)
                if (c < rep.cpus.size())
                    v.push_back(value(rep.cpus[c]));
            return v.empty() ? 0.0 : stats::median(v);
        };
        const auto counter = [&](std::uint64_t balance_counters::*f) {
            return fixed(
                med([&](const cpu_result& r) { return static_cast<double>(r.balance.*f); }), 0);
        };
        const double busy = med([](const cpu_result& r) {
            const duration w = r.window_busy + r.window_idle;
            return w > 0 ? static_cast<double>(r.window_busy) / static_cast<double>(w) * 100 : 0.0;
        });
        table.add_row(
            {std::to_string(c), fixed(busy, 1),
             fixed(med([](const cpu_result& r) { return static_cast<double>(r.nr_switches); }), 0),
             counter(&balance_counters::lb_count), counter(&balance_counters::lb_failed),
             counter(&balance_counters::lb_gained), counter(&balance_counters::alb_pushed),
             counter(&balance_counters::newidle), counter(&balance_counters::nohz_kicks)});
    }
    table.print(out);
}

// Per task group (cgroup or autogroup), medians over repetitions: its tasks' and subgroups'
// CPU time in the window, as a share of one CPU.
inline void print_task_group_table(std::ostream& out, const run_result& result) {
    using detail::align;
    using detail::fixed;
    detail::text_table table({{"group", align::left}, {"shares"}, {"tasks"}, {"share %"}});
    const std::vector<task_group_result>& first = result.repetitions.front().task_groups;
    for (std::size_t g = 0; g < first.size(); ++g) {
        std::vector<double> share;
        for (const repetition_result& rep : result.repetitions)
            if (g < rep.task_groups.size())
                share.push_back(rep.task_groups[g].share * 100);
        const task_group_result& tg = first[g];
        table.add_row({tg.autogroup ? tg.name + " (session " + tg.session + ")" : tg.name,
                       std::to_string(tg.shares), std::to_string(tg.nr_tasks),
                       fixed(stats::median(share), 2)});
    }
    table.print(out);
}

// The groups with a quota: cpu.stat's bandwidth lines as read at the window's start and
// end (their difference), medians over repetitions; throttled and burst time in ms.
inline bool any_bandwidth(const run_result& result) {
    if (result.repetitions.empty())
        return false;
    const std::vector<task_group_result>& g = result.repetitions.front().task_groups;
    return std::any_of(g.begin(), g.end(), [](const task_group_result& t) { return t.bandwidth; });
}

inline void print_bandwidth_table(std::ostream& out, const run_result& result) {
    using detail::align;
    using detail::fixed;
    detail::text_table table({{"group", align::left},
                              {"quota/period"},
                              {"burst"},
                              {"nr_periods"},
                              {"nr_throttled"},
                              {"throttled ms"},
                              {"nr_bursts"},
                              {"burst ms"}});
    const std::vector<task_group_result>& first = result.repetitions.front().task_groups;
    for (std::size_t g = 0; g < first.size(); ++g) {
        if (!first[g].bandwidth)
            continue;
        std::vector<double> periods, throttled, throttled_ms, bursts, burst_ms;
        for (const repetition_result& rep : result.repetitions) {
            if (g >= rep.task_groups.size())
                continue;
            const cfs_bandwidth_stat& s = rep.task_groups[g].window_cpu_stat;
            periods.push_back(static_cast<double>(s.nr_periods));
            throttled.push_back(static_cast<double>(s.nr_throttled));
            throttled_ms.push_back(static_cast<double>(s.throttled_time) / 1e6);
            bursts.push_back(static_cast<double>(s.nr_bursts));
            burst_ms.push_back(static_cast<double>(s.burst_time) / 1e6);
        }
        const task_group_result& tg = first[g];
        table.add_row({tg.name, format_duration(tg.quota) + "/" + format_duration(tg.period),
                       format_duration(tg.burst), fixed(stats::median(periods), 0),
                       fixed(stats::median(throttled), 0), fixed(stats::median(throttled_ms), 1),
                       fixed(stats::median(bursts), 0), fixed(stats::median(burst_ms), 1)});
    }
    table.print(out);
}

inline void print_report(std::ostream& out, const run_result& result, const scenario& sc) {
    using detail::align;
    using detail::fixed;
    out << detail::report_header(sc, result.repetitions.size()) << '\n';
    if (const auto& stop = result.interrupted)
        out << "INTERRUPTED: repetition " << stop->repetition + 1 << " of " << stop->repetitions
            << " stopped at " << format_duration(stop->at) << " of " << format_duration(sc.length)
            << "; the figures below are of the " << result.repetitions.size()
            << (result.repetitions.size() == 1 ? " repetition" : " repetitions")
            << " that finished\n";
    const std::vector<stats::row_summary> entries = stats::summarize_entries(result, sc);
    if (entries.empty()) {
        out << (result.interrupted ? "(no repetition finished)\n" : "(no repetition ran)\n");
        return;
    }

    int total_tasks = 0;
    bool several = false, wakeups = false, system_time = false;
    for (const auto& e : entries) {
        total_tasks += e.tasks;
        several = several || e.tasks > 1;
        wakeups = wakeups || e.wakeup_latency.count > 0;
        system_time = system_time || e.ru_stime_ms > 0 || e.stime_jiffies > 0;
    }
    const bool with_ratio = !sc.reference.empty();
    const bool with_share = !sc.measured.share.empty();
    const bool with_measured_ratio = !sc.measured.ratio.empty();

    // A policy column when some task is SCHED_FIFO or SCHED_RR: "fifo 80", "normal".
    const auto policy_of = [&sc](const std::string& entry) -> std::string {
        for (const task_spec& t : sc.tasks)
            if (t.name == entry)
                return std::string{policy_name(t.policy)} +
                       (rt_policy(t.policy) ? " " + std::to_string(t.rt_priority) : "");
        return "";
    };
    bool with_policy = false;
    for (const task_spec& t : sc.tasks)
        with_policy = with_policy || rt_policy(t.policy);
    std::vector<detail::column> columns = {{"entry", align::left}};
    if (with_policy)
        columns.push_back({"policy", align::left});
    columns.insert(columns.end(), {{"nice"}, {"tasks"}, {"share %"}, {"theory %"}});
    if (with_ratio)
        columns.insert(columns.end(), {{"ratio to " + sc.reference}, {"theory ratio"}});
    columns.insert(columns.end(), {{"jiffies (window)"}, {"utime ms (rusage)"}});
    if (system_time)
        columns.insert(columns.end(), {{"stime jiffies"}, {"stime ms (rusage)"}});
    columns.insert(columns.end(), {{"vcsw/s"}, {"ivcsw/s"}});
    if (wakeups)
        columns.insert(columns.end(), {{"wake p50 us"}, {"wake max us"}});
    if (with_share)
        columns.insert(columns.end(), {{"measured %"}, {"error pp"}});
    if (with_measured_ratio)
        columns.insert(columns.end(), {{"measured ratio"}, {"error %"}});
    detail::text_table table(std::move(columns));

    const stats::theory_figures theory = stats::theory_figures_of(sc);
    const auto comparisons = stats::compare_measured(entries, sc.measured);
    const auto measured_cells = [&](const std::string& entry, stats::measured_quantity q,
                                    std::vector<std::string>& cells) {
        const bool share = q == stats::measured_quantity::share;
        for (const auto& c : comparisons) {
            if (c.entry != entry || c.quantity != q)
                continue;
            cells.push_back(fixed(share ? c.measured * 100 : c.measured, share ? 2 : 3));
            cells.push_back(fixed(c.error, share ? 2 : 1, true));
            return;
        }
        cells.insert(cells.end(), {"", ""});
    };
    const auto add_row = [&](const stats::row_summary& row, const std::string& label,
                             bool entry_row) {
        std::vector<std::string> cells = {label};
        if (with_policy)
            cells.push_back(entry_row ? policy_of(row.entry) : "");
        const auto& shares = entry_row ? theory.entry_share : theory.task_share;
        const auto theory_share = shares.find(entry_row ? row.entry : row.name);
        const std::optional<double> share_in_theory =
            theory_share == shares.end() ? std::nullopt : std::optional{theory_share->second};
        cells.insert(
            cells.end(),
            {std::to_string(row.nice), std::to_string(row.tasks), fixed(row.share * 100, 2),
             fixed(share_in_theory ? std::optional{*share_in_theory * 100} : std::nullopt, 2)});
        if (with_ratio)
            cells.insert(
                cells.end(),
                {fixed(row.ratio, 3),
                 fixed(share_in_theory ? theory.ratio(*share_in_theory) : std::nullopt, 3)});
        cells.insert(cells.end(), {fixed(row.jiffies, 1), fixed(row.ru_utime_ms, 1)});
        if (system_time)
            cells.insert(cells.end(), {fixed(row.stime_jiffies, 1), fixed(row.ru_stime_ms, 1)});
        cells.insert(cells.end(), {fixed(row.nvcsw_per_s, 1), fixed(row.nivcsw_per_s, 1)});
        if (wakeups)
            cells.insert(cells.end(),
                         {detail::latency_us(row.wakeup_latency, row.wakeup_latency.p50),
                          detail::latency_us(row.wakeup_latency, row.wakeup_latency.max)});
        if (entry_row && with_share)
            measured_cells(row.entry, stats::measured_quantity::share, cells);
        else if (with_share)
            cells.insert(cells.end(), {"", ""});
        if (entry_row && with_measured_ratio)
            measured_cells(row.entry, stats::measured_quantity::ratio, cells);
        table.add_row(std::move(cells));
    };

    const bool list_tasks = several && total_tasks <= detail::max_tasks_listed;
    const auto tasks =
        list_tasks ? stats::summarize_tasks(result, sc) : std::vector<stats::row_summary>{};
    for (const auto& e : entries) {
        add_row(e, e.name, true);
        if (e.tasks < 2)
            continue;
        for (const auto& t : tasks)
            if (t.entry == e.entry)
                add_row(t, "  " + t.name, false);
    }
    table.print(out);
    if (std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.loops; })) {
        out << "\nprograms of steps: passes through their phases ending in the window, the "
               "wakeups' 99th percentile, each pass's wall time; when the entry's last task "
               "exited\n";
        detail::print_steps_table(out, entries);
    }

    if (!result.repetitions.empty() && !result.repetitions.front().task_groups.empty()) {
        out << "\nper task group: its tasks' and subgroups' CPU time in the window\n";
        print_task_group_table(out, result);
        if (any_bandwidth(result)) {
            out << "\nper task group with a quota: cpu.stat read at the window's start and end\n";
            print_bandwidth_table(out, result);
        }
    }
    out << "\nper CPU: busy in the window; switches and load balancing (schedstat) over the run\n";
    print_cpu_table(out, result);
    const stats::perf_summary perf = stats::summarize_perf(result, sc);
    out << "\nperf stat over all tasks, medians over repetitions\n";
    print_perf_stat(out, {{"window", perf.window}, {"whole run", perf.run}});

    if (!sc.measured.groups)
        return;
    const stats::group_summary groups = stats::summarize_groups(result, sc, *sc.measured.groups);
    out << "\ngroups A/B: ratio of getrusage utime (each at its exit), jratio of /proc/PID/stat "
           "utime over the window; theory from the kernel's weight table, claimed from the "
           "source's\n";
    print_group_table(out, {{sc.name, groups, *sc.measured.groups}});
    if (sc.measured.perf_stat && groups.perf) {
        out << "\nperf stat over the two groups' tasks, medians over repetitions; measured: one "
               "run\n";
        print_perf_stat(out, {{"simulated", *groups.perf}}, &*sc.measured.perf_stat);
    }
}

// The closing table of a replay run: every measured quantity of every replay, with the
// tolerance the measurement states and whether the prediction lies within it.
inline void print_replay_summary(
    std::ostream& out,
    const std::vector<std::pair<std::string, std::vector<stats::comparison>>>& replays) {
    using detail::align;
    using detail::fixed;
    detail::text_table table({{"replay", align::left},
                              {"quantity", align::left},
                              {"predicted"},
                              {"theory"},
                              {"measured"},
                              {"error"},
                              {"tolerance"},
                              {"verdict", align::left}});
    for (const auto& [name, comparisons] : replays) {
        for (const auto& c : comparisons) {
            const bool share = c.quantity == stats::measured_quantity::share;
            const double scale = share ? 100 : 1;
            const int decimals = share ? 2 : 3;
            const std::string unit = share ? " %" : "";
            const std::optional<double> predicted =
                c.predicted ? std::optional{*c.predicted * scale} : std::nullopt;
            const std::optional<double> theory =
                c.theory ? std::optional{*c.theory * scale} : std::nullopt;
            table.add_row({name, std::string{stats::quantity_name(c.quantity)} + " " + c.entry,
                           fixed(predicted, decimals) + (predicted ? unit : ""),
                           fixed(theory, decimals) + (theory ? unit : ""),
                           fixed(c.measured * scale, decimals) + unit,
                           fixed(c.error, share ? 2 : 1, true) +
                               (c.error ? " " + std::string{stats::error_unit(c.quantity)} : ""),
                           detail::tolerance_text(c), detail::verdict_text(c)});
        }
    }
    table.print(out);
}

} // namespace libsched
