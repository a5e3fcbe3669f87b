#pragma once
// A replay's measured figures read from a data file instead of copied into the scenario:
// [measured] data = FILE, experiment = ID, figure = "pairs[0]", entries = [...]
// (docs/scenario-format.md). The data file keeps each figure once, as the source reported
// it; the shares and ratios a replay compares with are computed from it here.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace libsched::detail {

struct measured_data_ref {
    std::string data;                 // the data file, relative to the scenario file
    std::string experiment;           // the "id" of one of its "experiments"
    std::string figure;               // a key of the experiment, indexed if an array: "pairs[0]"
    std::vector<std::string> entries; // the entries that stand for the figure's processes
};

inline nlohmann::json read_data_file(const std::filesystem::path& path, const std::string& shown) {
    std::ifstream in(path);
    if (!in)
        throw scenario_error("measured.data",
                             "cannot read " + shown + " (a path relative to the scenario file)");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw scenario_error("measured.data", shown + " is not JSON: " + e.what());
    }
}

inline const nlohmann::json& find_experiment(const nlohmann::json& doc,
                                             const measured_data_ref& ref) {
    std::vector<std::string> ids;
    if (doc.is_object() && doc.contains("experiments") && doc["experiments"].is_array())
        for (const nlohmann::json& e : doc["experiments"])
            if (e.is_object() && e.contains("id") && e["id"].is_string()) {
                if (e["id"] == ref.experiment)
                    return e;
                ids.push_back(e["id"].get<std::string>());
            }
    throw scenario_error("measured.experiment", "no experiment \"" + ref.experiment + "\" in " +
                                                    ref.data + did_you_mean(ref.experiment, ids));
}

// "pairs[1]" is element 1 of the array "pairs"; "alone" is the value of key "alone".
inline const nlohmann::json& find_figure(const nlohmann::json& experiment,
                                         const measured_data_ref& ref) {
    const std::string& f = ref.figure;
    const auto open = f.find('[');
    const std::string key = f.substr(0, open);
    const auto missing = [&](const std::string& what) {
        return scenario_error("measured.figure",
                              "\"" + f + "\": " + what + " in experiment " + ref.experiment);
    };
    if (!experiment.contains(key))
        throw missing("no \"" + key + "\"");
    const nlohmann::json& value = experiment[key];
    if (open == std::string::npos)
        return value;
    std::size_t index = 0, end = open + 1;
    while (end < f.size() && f[end] >= '0' && f[end] <= '9')
        index = index * 10 + static_cast<std::size_t>(f[end++] - '0');
    if (end == open + 1 || end + 1 != f.size() || f[end] != ']')
        throw scenario_error("measured.figure", "\"" + f + "\" is not KEY or KEY[INDEX]");
    if (!value.is_array() || index >= value.size())
        throw missing(value.is_array()
                          ? "\"" + key + "\" has " + std::to_string(value.size()) + " elements"
                          : "\"" + key + "\" is not an array");
    return value[index];
}

inline double number_in(const nlohmann::json& figure, const std::string& key,
                        const measured_data_ref& ref) {
    if (!figure[key].is_number())
        throw scenario_error("measured.figure",
                             ref.figure + "." + key + " in " + ref.data + " is not a number");
    return figure[key].get<double>();
}

// Each process's share of one CPU, in the figure's order: "share_percent": [75, 25], or
// "per_process" (or "per_process_approx") out of "total" work units for each of "n" equal
// processes.
inline std::vector<double> figure_shares(const nlohmann::json& figure,
                                         const measured_data_ref& ref) {
    std::vector<double> shares;
    if (figure.is_object() && figure.contains("share_percent") &&
        figure["share_percent"].is_array()) {
        for (const nlohmann::json& p : figure["share_percent"]) {
            if (!p.is_number())
                throw scenario_error("measured.figure", ref.figure + ".share_percent in " +
                                                            ref.data + " holds a non-number");
            shares.push_back(p.get<double>() / 100);
        }
        return shares;
    }
    const char* per =
        figure.is_object() && figure.contains("per_process") ? "per_process" : "per_process_approx";
    if (!figure.is_object() || !figure.contains(per) || !figure.contains("total"))
        throw scenario_error("measured.figure",
                             ref.figure + " in " + ref.data +
                                 " has neither share_percent nor per_process and total, the "
                                 "figures a share can be computed from");
    if (figure.contains("n") && !figure["n"].is_number_unsigned())
        throw scenario_error("measured.figure",
                             ref.figure + ".n in " + ref.data + " is not a process count");
    const auto n = figure.contains("n") ? figure["n"].get<std::size_t>() : 1;
    shares.assign(n, number_in(figure, per, ref) / number_in(figure, "total", ref));
    return shares;
}

// Fills m.share (and m.ratio, against the reference entry) from the figure ref names; base
// is the folder of the scenario file. The figure's "nice" list, when it has one, must match
// the entries' nice values, so a replay cannot point at another experiment's figure.
inline void read_measured_data(measured_spec& m, const measured_data_ref& ref, const scenario& sc,
                               const std::filesystem::path& base) {
    const nlohmann::json doc = read_data_file(base / ref.data, ref.data);
    const nlohmann::json& figure = find_figure(find_experiment(doc, ref), ref);
    const std::vector<double> shares = figure_shares(figure, ref);
    if (shares.size() != ref.entries.size())
        throw scenario_error("measured.entries",
                             std::to_string(ref.entries.size()) + " names for the " +
                                 std::to_string(shares.size()) + " processes of " + ref.figure);
    std::vector<std::string_view> names;
    for (const task_spec& t : sc.tasks)
        names.push_back(t.name);
    for (std::size_t i = 0; i < ref.entries.size(); ++i) {
        const std::string field = "measured.entries[" + std::to_string(i) + "]";
        const std::string& entry = ref.entries[i];
        const task_spec* spec = nullptr;
        for (const task_spec& t : sc.tasks)
            if (t.name == entry)
                spec = &t;
        if (spec == nullptr)
            throw scenario_error(field, "\"" + entry + "\" names no [[tasks]] entry" +
                                            did_you_mean(entry, names));
        if (figure.contains("nice") && figure["nice"].is_array() &&
            figure["nice"].size() == shares.size() && figure["nice"][i] != spec->nice)
            throw scenario_error(field, "entry " + entry + " has nice " +
                                            std::to_string(spec->nice) + " but " + ref.figure +
                                            " measured nice " + figure["nice"][i].dump());
        if (!m.share.emplace(entry, shares[i]).second)
            throw scenario_error(field, "\"" + entry + "\" is named twice");
    }
    if (const auto r = m.share.find(sc.reference); r != m.share.end() && r->second > 0)
        for (const auto& [entry, share] : m.share)
            if (entry != sc.reference)
                m.ratio[entry] = share / r->second;
    if (m.source.empty())
        m.source = ref.data + ": " + ref.experiment + ", " + ref.figure;
}

} // namespace libsched::detail
