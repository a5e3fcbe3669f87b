// Binds a scenario file's TOML as plain Python values (io/scenario_toml.hpp): dict, list,
// str, int, float and bool in both directions, and the scenario check
// (scenario/validate.hpp), and rt-app workload files (io/rt_app.hpp), for libsched.Scenario.
#include "register.hpp"
#include <cstdint>
#include <filesystem>
#include <libsched/io/rt_app.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/scenario/validate.hpp>
#include <optional>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <string>
#include <toml++/toml.h>
#include <type_traits>
#include <utility>
#include <variant>

namespace py = pybind11;

namespace libsched::python {
namespace {

// Field names as the scenario reader spells them: "tasks[1].nice".
std::string key_field(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string element_field(const std::string& parent, std::size_t i) {
    return parent + "[" + std::to_string(i) + "]";
}

py::object to_python(const toml::node& n, const std::string& field, const std::string& origin) {
    return n.visit([&](const auto& v) -> py::object {
        using T = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_same_v<T, toml::table>) {
            py::dict d;
            for (const auto& [key, value] : v) {
                const std::string k{key.str()};
                d[py::str(k)] = to_python(value, key_field(field, k), origin);
            }
            return d;
        } else if constexpr (std::is_same_v<T, toml::array>) {
            py::list l;
            for (std::size_t i = 0; i < v.size(); ++i)
                l.append(to_python(v[i], element_field(field, i), origin));
            return l;
        } else if constexpr (std::is_same_v<T, toml::value<std::string>>) {
            return py::str(v.get());
        } else if constexpr (std::is_same_v<T, toml::value<std::int64_t>>) {
            return py::int_(v.get());
        } else if constexpr (std::is_same_v<T, toml::value<double>>) {
            return py::float_(v.get());
        } else if constexpr (std::is_same_v<T, toml::value<bool>>) {
            return py::bool_(v.get());
        } else {
            // No scenario key takes a date or a time, and Python's hold no nanoseconds.
            throw scenario_error(field,
                                 "a TOML date or time, which no scenario key takes (line " +
                                     std::to_string(n.source().begin.line) + ")",
                                 origin);
        }
    });
}

// "int", "set", "numpy.float32": the module is named unless it is builtins.
std::string python_type(py::handle v) {
    const py::handle type = py::type::handle_of(v);
    const auto module = py::str(type.attr("__module__")).cast<std::string>();
    const auto name = py::str(type.attr("__qualname__")).cast<std::string>();
    return module == "builtins" ? name : module + "." + name;
}

[[noreturn]] void not_a_toml_value(py::handle v, const std::string& field) {
    throw py::type_error(field + ": TOML cannot hold " + std::string(py::repr(v)) + " (type " +
                         python_type(v) +
                         "); a scenario value is a str, int, float, bool, list or dict with str "
                         "keys");
}

toml::table to_table(py::handle dict, const std::string& field, int depth);

using toml_value = std::variant<bool, std::int64_t, double, std::string, toml::table, toml::array>;

// Python's recursion limit, so that a list holding itself is a RecursionError, not a crash.
class recursion_guard {
public:
    recursion_guard() {
        if (Py_EnterRecursiveCall(" while writing a scenario as TOML") != 0)
            throw py::error_already_set();
    }
    ~recursion_guard() { Py_LeaveRecursiveCall(); }
    recursion_guard(const recursion_guard&) = delete;
    recursion_guard& operator=(const recursion_guard&) = delete;
};

// The tables of the top level and the entries of its arrays of tables are written as
// sections ([machine], [[tasks]]); deeper ones inline, as the scenario files spell them.
toml_value to_toml(py::handle v, const std::string& field, int depth) {
    const recursion_guard guard;
    if (py::isinstance<py::bool_>(v))
        return v.cast<bool>();
    if (PyIndex_Check(v.ptr()) != 0) { // int, and NumPy's integers
        const auto i = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
        if (!i)
            throw py::error_already_set();
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
        if (overflow != 0)
            throw py::value_error(field + ": " + std::string(py::repr(i)) +
                                  " is beyond TOML's integers (-2**63 to 2**63 - 1)");
        return static_cast<std::int64_t>(x);
    }
    if (PyFloat_Check(v.ptr()) != 0)
        return v.cast<double>();
    if (py::isinstance<py::str>(v))
        return v.cast<std::string>();
    if (py::isinstance<py::dict>(v))
        return to_table(v, field, depth + 1);
    if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
        not_a_toml_value(v, field);
    toml::array a;
    std::size_t i = 0;
    for (py::handle e : v)
        std::visit([&a](auto&& x) { a.push_back(std::forward<decltype(x)>(x)); },
                   to_toml(e, element_field(field, i++), depth));
    return a;
}

toml::table to_table(py::handle dict, const std::string& field, int depth) {
    toml::table t;
    t.is_inline(depth > 1);
    for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
        if (!py::isinstance<py::str>(key))
            throw py::type_error((field.empty() ? "the scenario" : field) + ": the key " +
                                 std::string(py::repr(key)) + " (type " + python_type(key) +
                                 ") is not a str; TOML keys are strings");
        const auto k = key.cast<std::string>();
        std::visit([&](auto&& x) { t.insert_or_assign(k, std::forward<decltype(x)>(x)); },
                   to_toml(value, key_field(field, k), depth));
    }
    return t;
}

std::string format_toml(const py::dict& document) {
    return toml_text(to_table(document, "", 0));
}

} // namespace

void register_scenario(py::module_& m) {
    m.def(
        "parse_toml",
        [](const std::string& toml, const std::string& origin) {
            return to_python(parse_toml(toml, origin), "", origin);
        },
        py::arg("toml"), py::arg("origin") = "<string>",
        "The TOML text as a dict of plain values; ScenarioError naming origin and the line for "
        "a syntax error.");

    m.def("format_toml", &format_toml, py::arg("document"),
          "TOML text of a dict of plain values (str, int, float, bool, list, dict); TypeError "
          "or ValueError naming the field of a value TOML cannot hold.");

    m.def(
        "rt_app_document",
        [](const std::filesystem::path& path, const std::optional<std::string>& machine_toml,
           const std::string& machine_origin, const std::optional<std::string>& kernel) {
            const std::string origin = path.string();
            rt_app_options options;
            if (machine_toml)
                options.machine = machine_of(*machine_toml, machine_origin);
            options.kernel = kernel;
            return to_python(
                rt_app_to_toml(read_input_file(path, "an rt-app file"), origin, options), "",
                origin);
        },
        py::arg("path"), py::arg("machine_toml") = py::none(),
        py::arg("machine_origin") = "<machine>", py::arg("kernel") = py::none(),
        "The scenario of the rt-app file at path as a dict of plain values, its [machine] that "
        "of the scenario TOML machine_toml and kernel its release; ScenarioError naming each "
        "JSON path the model cannot honour.");

    m.def(
        "check",
        [](const std::string& toml, const std::string& origin) {
            return validate(parse_scenario(toml, origin));
        },
        py::arg("toml"), py::arg("origin") = "<string>",
        "The scenario's warnings (\"field: what\"); ScenarioError listing its errors.");
}

} // namespace libsched::python
