// Binds sched/weight.hpp and sched/calc_delta.hpp.
#include "register.hpp"
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/weight.hpp>
#include <pybind11/stl.h>
#include <string>
#include <vector>

namespace py = pybind11;

namespace libsched::python {
namespace {

// Python callers get an error for an out-of-range nice; clamp_nice() is the explicit way to
// clamp like setpriority() does.
int checked_nice(int nice) {
    if (nice < min_nice || nice > max_nice)
        throw py::value_error("nice: must be in [" + std::to_string(min_nice) + ", " +
                              std::to_string(max_nice) + "], got " + std::to_string(nice) +
                              " (clamp_nice() clamps like setpriority())");
    return nice;
}

template <std::size_t N> std::vector<u32> to_vector(const std::array<u32, N>& table) {
    return {table.begin(), table.end()};
}

} // namespace

void register_weight(py::module_& m) {
    m.attr("sched_prio_to_weight") = to_vector(sched_prio_to_weight);
    m.attr("sched_prio_to_wmult") = to_vector(sched_prio_to_wmult);
    m.attr("weight_idleprio") = weight_idleprio;
    m.attr("nice_0_load") = nice_0_load;

    m.def(
        "nice_to_weight", [](int nice) { return nice_to_weight(checked_nice(nice)); },
        py::arg("nice"), "sched_prio_to_weight[nice + 20]; nice must be in [-20, 19].");

    m.def(
        "clamp_nice",
        [](int nice) {
            const nice_clamp c = clamp_nice(nice);
            return py::make_tuple(c.nice, c.clamped);
        },
        py::arg("nice"), "Clamp to [-20, 19] as setpriority() does: (nice, clamped).");

    m.def(
        "calc_delta_fair",
        [](s64 delta_ns, int nice, bool exact) {
            if (delta_ns < 0)
                throw py::value_error("delta_ns: must be >= 0, got " + std::to_string(delta_ns));
            load_weight lw = task_load_weight(checked_nice(nice), false);
            return calc_delta_fair(static_cast<u64>(delta_ns), lw,
                                   exact ? calc_delta_mode::exact_division
                                         : calc_delta_mode::inverse_multiply);
        },
        py::arg("delta_ns"), py::arg("nice"), py::arg("exact") = false,
        "Virtual runtime (ns) a task at this nice accrues for delta_ns of real runtime.\n"
        "exact=False uses the kernel's inverse-weight multiply, exact=True plain division.");
}

} // namespace libsched::python
