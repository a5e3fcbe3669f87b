// Binds sched/kernel_version.hpp, sched/features.hpp and sched/tunables.hpp: what a kernel
// release has and what its defaults are.
#include "register.hpp"
#include <libsched/sched/features.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/tunables.hpp>
#include <pybind11/stl.h>
#include <string>

namespace py = pybind11;

namespace libsched::python {
namespace {

kernel_version checked_release(const std::string& text) {
    const auto v = kernel_version::parse(text);
    if (!v)
        throw py::value_error("kernel: " + not_a_release(text));
    if (const auto e = unmodelled_release(*v))
        throw py::value_error("kernel: " + *e);
    return *v;
}

} // namespace

void register_kernel(py::module_& m) {
    m.def(
        "features",
        [](const std::string& kernel) {
            const kernel_version v = checked_release(kernel);
            const sched_features defaults(v);
            py::dict out;
            for (std::size_t i = 0; i < feature_count; ++i) {
                const auto f = static_cast<feature>(i);
                if (feature_exists(f, v))
                    out[py::str(std::string{feature_table[i].name})] = defaults(f);
            }
            return out;
        },
        py::arg("kernel"), "The scheduler features a release has, with their defaults.");

    m.def(
        "tunables",
        [](const std::string& kernel, int online_cpus, int hz) {
            if (online_cpus < 1)
                throw py::value_error("online_cpus: must be >= 1, got " +
                                      std::to_string(online_cpus));
            if (const auto e = unsupported_hz(hz))
                throw py::value_error("hz: " + *e);
            const kernel_version v = checked_release(kernel);
            const sched_tunables t = default_tunables(v, online_cpus, hz);
            py::dict out;
            out["tick_nsec"] = t.tick_nsec;
            out["factor"] = t.factor;
            if (v.is_eevdf()) {
                out["base_slice_ns"] = t.base_slice;
            } else {
                out["latency_ns"] = t.latency;
                out["min_granularity_ns"] = t.min_granularity;
                out["wakeup_granularity_ns"] = t.wakeup_granularity;
                out["sched_nr_latency"] = t.nr_latency;
            }
            return out;
        },
        py::arg("kernel"), py::arg("online_cpus") = 1, py::arg("hz") = 250,
        "A release's default tunables (ns) on a machine with this many online CPUs.");
}

} // namespace libsched::python
