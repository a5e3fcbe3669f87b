#pragma once
// A table per repetition, each under a line naming the scenario, what the table shows, the
// window and the repetition (the --latency and --why reports).
#include <cstddef>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <ostream>
#include <string_view>

namespace libsched::detail {

template <class PrintTable>
void print_repetition_tables(std::ostream& out, const run_result& result, const scenario& sc,
                             std::string_view what, PrintTable print_table) {
    for (std::size_t r = 0; r < result.repetitions.size(); ++r) {
        if (r > 0)
            out << '\n';
        out << sc.name << ": " << what << " in the window " << format_duration(sc.window_start)
            << " to " << format_duration(sc.window_stop()) << ", repetition " << r << '\n';
        print_table(out, result.repetitions[r]);
    }
}

} // namespace libsched::detail
