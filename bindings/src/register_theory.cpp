// Binds the theory predictor (stats/theory.hpp) with its JSON form (io/theory_report.hpp).
#include "register.hpp"
#include <libsched/io/scenario_toml.hpp>
#include <libsched/io/theory_report.hpp>
#include <libsched/stats/theory.hpp>
#include <pybind11/stl.h>
#include <string>

namespace py = pybind11;

namespace libsched::python {
namespace {

std::string theory_to_json(const scenario& sc) {
    return theory_json(stats::theory_shares(sc), sc).dump();
}

} // namespace

void register_theory(py::module_& m) {
    m.def(
        "theory_scenario_text",
        [](const std::string& toml, const std::string& origin) {
            return theory_to_json(parse_scenario(toml, origin));
        },
        py::arg("toml"), py::arg("origin") = "<string>",
        "The fluid (GPS) shares of a scenario given as TOML text, as JSON text; origin names it "
        "in errors.");
}

} // namespace libsched::python
