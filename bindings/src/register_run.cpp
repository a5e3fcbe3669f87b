// Binds the scenario runner (io/scenario_toml.hpp, model/simulate.hpp, io/result_json.hpp)
// and the command-line tool (io/cli.hpp).
#include "interruptible.hpp"
#include "register.hpp"
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <libsched/io/cli.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/scenario/validate.hpp>
#include <optional>
#include <pybind11/gil_safe_call_once.h>
#include <pybind11/iostream.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace libsched::python {
namespace {

// The run's JSON document and the scenario's validation warnings ("field: what").
std::pair<std::string, std::vector<std::string>>
run_to_json(const scenario& sc, std::optional<int> repetitions, std::optional<std::uint64_t> seed) {
    if (repetitions && *repetitions < 1)
        throw scenario_error("repetitions", "must be >= 1, got " + std::to_string(*repetitions));
    std::vector<std::string> warnings = validate(sc);
    run_options opt;
    opt.repetitions = repetitions;
    opt.seed = seed;
    run_result result; // Ctrl-C stops it before its next event
    run_interruptible([&](const std::atomic<bool>* flag) {
        opt.interrupt = flag;
        result = simulate(sc, opt);
        return result.interrupted.has_value();
    });
    std::ostringstream text;
    write_json(text, result, sc, -1);
    return {text.str(), std::move(warnings)};
}

} // namespace

void register_run(py::module_& m) {
    // ScenarioError(ValueError) carries the C++ error's field, reason and origin.
    PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::object> error_type;
    error_type.call_once_and_store_result([&]() -> py::object {
        return py::exception<scenario_error>(m, "ScenarioError", PyExc_ValueError);
    });
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const scenario_error& e) {
            py::object error = error_type.get_stored()(e.what());
            error.attr("field") = e.field();
            error.attr("reason") = e.reason();
            error.attr("origin") = e.origin();
            py::set_error(error_type.get_stored(), error);
        }
    });

    m.def(
        "run_scenario_text",
        [](const std::string& toml, std::optional<int> repetitions,
           std::optional<std::uint64_t> seed, const std::string& origin) {
            return run_to_json(parse_scenario(toml, origin), repetitions, seed);
        },
        py::arg("toml"), py::arg("repetitions") = py::none(), py::arg("seed") = py::none(),
        py::arg("origin") = "<string>",
        "Run a scenario given as TOML text; the result as JSON text and the warnings. origin "
        "names the text in errors (a file name: its folder holds [measured] data files).");

    m.def(
        "read_scenario_file",
        [](const std::filesystem::path& path) { return read_scenario_file(path); }, py::arg("path"),
        "The text of the scenario file at path; ScenarioError naming it when there is none.");

    m.def(
        "nearest_name",
        [](const std::string& word,
           const std::vector<std::string>& candidates) -> std::optional<std::string> {
            const std::string_view best = detail::nearest(word, candidates);
            if (best.empty())
                return std::nullopt;
            return std::string{best};
        },
        py::arg("word"), py::arg("candidates"),
        "The candidate nearest to word, ignoring case, with at most a third of its letters "
        "differing, or None: the suggestion behind the scenario reader's \"did you mean\".");

    m.def(
        "cli_main",
        [](const std::vector<std::string>& args) {
            // Route the tool's output through sys.stdout / sys.stderr so Python sees it.
            py::scoped_ostream_redirect out(std::cout, py::module_::import("sys").attr("stdout"));
            py::scoped_estream_redirect err(std::cerr, py::module_::import("sys").attr("stderr"));
            return run_cli(args, std::cout, std::cerr);
        },
        py::arg("args"), "The libsched command-line tool; args exclude the program name.");
}

} // namespace libsched::python
