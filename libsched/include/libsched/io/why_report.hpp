#pragma once
// Why each task lost its CPU and moved, in the window: its involuntary switches split by the
// kernel function that asked for the reschedule, its migrations by the one that made them
// (sched/reason.hpp), one table per repetition. Only the reasons seen in a repetition get a
// column. The trace has the same reasons event by event (docs/output-format.md).
#include <array>
#include <cstddef>
#include <cstdint>
#include <libsched/io/detail/repetition_tables.hpp>
#include <libsched/io/detail/text_table.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace libsched {

namespace detail {

// The indices of the reasons some task of rep has a count for, in the enum's order.
template <std::size_t N>
std::vector<std::size_t> reasons_seen(const repetition_result& rep,
                                      std::array<std::uint64_t, N> task_result::*counts) {
    std::vector<std::size_t> seen;
    for (std::size_t i = 0; i < N; ++i)
        for (const task_result& t : rep.tasks)
            if ((t.*counts)[i] > 0) {
                seen.push_back(i);
                break;
            }
    return seen;
}

} // namespace detail

inline void print_why_table(std::ostream& out, const repetition_result& rep) {
    using detail::align;
    const auto preempted = detail::reasons_seen(rep, &task_result::window_preempted_by);
    const auto migrated = detail::reasons_seen(rep, &task_result::window_migrated_by);
    std::vector<detail::column> columns{{"task", align::left}, {"preempted"}};
    for (const std::size_t i : preempted)
        columns.push_back({std::string{reason_name(static_cast<resched_reason>(i))}});
    columns.push_back({"migrated"});
    for (const std::size_t i : migrated)
        columns.push_back({std::string{reason_name(static_cast<migrate_reason>(i))}});
    detail::text_table table(std::move(columns));

    const auto row = [&](std::string label, const task_result& t) {
        std::vector<std::string> cells{std::move(label), std::to_string(t.window_nivcsw)};
        for (const std::size_t i : preempted)
            cells.push_back(std::to_string(t.window_preempted_by[i]));
        cells.push_back(std::to_string(t.window_nr_migrations));
        for (const std::size_t i : migrated)
            cells.push_back(std::to_string(t.window_migrated_by[i]));
        table.add_row(std::move(cells));
    };
    task_result total;
    for (const task_result& t : rep.tasks) {
        row(t.name + ":" + std::to_string(t.pid), t);
        total.window_nivcsw += t.window_nivcsw;
        total.window_nr_migrations += t.window_nr_migrations;
        for (std::size_t i = 0; i < nr_resched_reasons; ++i)
            total.window_preempted_by[i] += t.window_preempted_by[i];
        for (std::size_t i = 0; i < nr_migrate_reasons; ++i)
            total.window_migrated_by[i] += t.window_migrated_by[i];
    }
    row("TOTAL", total);
    table.print(out);
}

// Every repetition's table under a line naming the scenario, the window and the repetition.
inline void print_why_report(std::ostream& out, const run_result& result, const scenario& sc) {
    detail::print_repetition_tables(out, result, sc, "preemptions and migrations by reason",
                                    print_why_table);
}

} // namespace libsched
