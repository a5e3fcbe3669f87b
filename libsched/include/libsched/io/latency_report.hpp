#pragma once
// `perf sched latency` of a simulated run: per task, its runtime, switches and scheduling
// delays (from a wakeup or a preemption to the switch that runs it: the run delay of
// task_result) inside the window, one table per repetition. Sorted as perf sorts by default
// ("avg, max, switch, runtime"): by average delay, then maximum delay, switches and runtime,
// each largest first; then by pid.
#include <algorithm>
#include <cstdint>
#include <libsched/io/detail/repetition_tables.hpp>
#include <libsched/io/detail/text_table.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace libsched {

struct latency_row {
    std::string comm;
    int pid = 0;
    duration runtime = 0;       // window_runtime
    std::uint64_t switches = 0; // window_nvcsw + window_nivcsw: the times it left a CPU
    std::uint64_t delays = 0;   // waits that ended in the window
    duration total_delay = 0;   // their sum (schedstat's run_delay over the window)
    duration max_delay = 0;
    sim_time max_delay_end = -1; // when the longest ended: the switch-in (-1: no delay)

    double avg_delay() const {
        return delays == 0 ? 0.0 : static_cast<double>(total_delay) / static_cast<double>(delays);
    }
};

// The rows of one repetition, in perf's order.
inline std::vector<latency_row> latency_rows(const repetition_result& rep) {
    std::vector<latency_row> rows;
    rows.reserve(rep.tasks.size());
    for (const task_result& t : rep.tasks) {
        latency_row r;
        r.comm = t.name;
        r.pid = t.pid;
        r.runtime = t.window_runtime;
        r.switches = t.window_nvcsw + t.window_nivcsw;
        r.delays = t.run_delay.size();
        r.total_delay = static_cast<duration>(t.run_delay.sum());
        r.max_delay = t.run_delay.empty() ? 0 : t.run_delay.max();
        r.max_delay_end = t.run_delay_max_at;
        rows.push_back(std::move(r));
    }
    const auto key = [](const latency_row& r) {
        return std::make_tuple(r.avg_delay(), r.max_delay, r.switches, r.runtime, -r.pid);
    };
    std::sort(rows.begin(), rows.end(),
              [&](const latency_row& a, const latency_row& b) { return key(a) > key(b); });
    return rows;
}

// One repetition's table and a TOTAL line; times in ms, the longest delay's start and end in
// s of simulated time.
inline void print_latency_table(std::ostream& out, const repetition_result& rep) {
    using detail::align;
    using detail::fixed;
    detail::text_table table({{"task", align::left},
                              {"runtime ms"},
                              {"switches"},
                              {"avg delay ms"},
                              {"max delay ms"},
                              {"max delay start s"},
                              {"max delay end s"}});
    duration runtime = 0;
    std::uint64_t switches = 0;
    const auto ms = [](double ns) { return fixed(ns / 1e6, 3); };
    const auto s = [](sim_time ns) { return fixed(static_cast<double>(ns) / 1e9, 6); };
    for (const latency_row& r : latency_rows(rep)) {
        runtime += r.runtime;
        switches += r.switches;
        const bool any = r.delays > 0;
        table.add_row({r.comm + ":" + std::to_string(r.pid), ms(static_cast<double>(r.runtime)),
                       std::to_string(r.switches), any ? ms(r.avg_delay()) : "-",
                       any ? ms(static_cast<double>(r.max_delay)) : "-",
                       any ? s(r.max_delay_end - r.max_delay) : "-",
                       any ? s(r.max_delay_end) : "-"});
    }
    table.add_row({"TOTAL", ms(static_cast<double>(runtime)), std::to_string(switches)});
    table.print(out);
}

// Every repetition's table under a line naming the scenario, the window and the repetition.
inline void print_latency_report(std::ostream& out, const run_result& result, const scenario& sc) {
    detail::print_repetition_tables(out, result, sc, "scheduling delays (perf sched latency)",
                                    print_latency_table);
}

} // namespace libsched
