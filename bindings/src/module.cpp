// libsched._core: the compiled layer under the Python package, one submodule per area.
#include "register.hpp"
#include <libsched/version.hpp>

PYBIND11_MODULE(_core, m) {
    m.doc() = "Compiled core of libsched; use the libsched package instead.";
    m.attr("__version__") = LIBSCHED_VERSION_STRING;

    auto weight = m.def_submodule("weight", "Nice levels, load weights and calc_delta_fair.");
    libsched::python::register_weight(weight);
    auto run = m.def_submodule("run", "Run scenario files and the command-line tool.");
    libsched::python::register_run(run);
    auto kernel = m.def_submodule("kernel", "Features and default tunables per kernel release.");
    libsched::python::register_kernel(kernel);
    auto theory = m.def_submodule("theory", "The fluid (GPS) shares of scenario files.");
    libsched::python::register_theory(theory);
    auto measure = m.def_submodule("measure", "What measuring a scenario on the host needs.");
    libsched::python::register_measure(measure);
    auto system = m.def_submodule("system", "One repetition of a scenario, steppable.");
    libsched::python::register_system(system);
    auto scenario = m.def_submodule("scenario", "Scenario TOML as plain values, and its check.");
    libsched::python::register_scenario(scenario);
}
