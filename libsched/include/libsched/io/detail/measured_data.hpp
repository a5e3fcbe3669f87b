#pragma once
// A replay's measured figures read from a data file instead of copied into the scenario:
// [measured] data = FILE, experiment = ID, figure = "pairs[0]", entries = [...]
// (docs/scenario-format.md). The data file keeps each figure once, as the source reported
// it; the shares and ratios a replay compares with are computed from it here. A two-group
// figure ("combos[1]": ratio and jratio of groups A and B) may bring the source's own weight
// table (claimed_weights) and a perf stat figure (perf_stat) with it.
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/stats/summary.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace libsched::detail {

struct measured_data_ref {
    std::string data;                 // the data file, relative to the scenario file
    std::string experiment;           // the "id" of one of its "experiments"
    std::string figure;               // a key of the experiment, indexed if an array: "pairs[0]"
    std::vector<std::string> entries; // the entries that stand for the figure's processes
    std::string claimed_weights;      // a key of the experiment: the source's nice -> weight
    std::string perf_stat;            // a key of the experiment: perf stat counters
};

// The [[tasks]] entry a measured.entries element names.
inline const task_spec* entry_named(const scenario& sc, const std::string& entry,
                                    const std::string& field,
                                    const std::vector<std::string_view>& names) {
    for (const task_spec& t : sc.tasks)
        if (t.name == entry)
            return &t;
    throw scenario_error(field,
                         "\"" + entry + "\" names no [[tasks]] entry" + did_you_mean(entry, names));
}

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
    if (!figure.contains(key) || !figure[key].is_number())
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

// The key of the experiment a [measured] key names: claimed_weights, perf_stat.
inline const nlohmann::json& experiment_object(const nlohmann::json& experiment,
                                               const std::string& key, const std::string& field,
                                               const measured_data_ref& ref) {
    if (!experiment.contains(key) || !experiment[key].is_object())
        throw scenario_error(field, "no object \"" + key + "\" in experiment " + ref.experiment);
    return experiment[key];
}

inline std::vector<double> numbers_in(const nlohmann::json& figure, const std::string& key,
                                      const measured_data_ref& ref) {
    std::vector<double> values;
    if (figure.contains(key) && figure[key].is_array())
        for (const nlohmann::json& v : figure[key])
            if (v.is_number())
                values.push_back(v.get<double>());
    if (values.empty() || values.size() != figure[key].size()) // not empty: an array
        throw scenario_error("measured.figure", ref.figure + "." + key + " in " + ref.data +
                                                    " is not a list of numbers (one for each run)");
    return values;
}

// The source's medians are rounded to three decimals, as its runs are.
inline constexpr double stated_median_precision = 0.0005;

// A two-group figure: nice_A, nice_B, the runs' "ratio" and "jratio" lists and their
// "ratio_median" and "jratio_median", which must be the medians of the lists.
inline group_ratio_spec read_group_figure(const nlohmann::json& figure, const scenario& sc,
                                          const measured_data_ref& ref) {
    if (ref.entries.size() != 2)
        throw scenario_error("measured.entries", std::to_string(ref.entries.size()) +
                                                     " names for the 2 groups (A, B) of " +
                                                     ref.figure);
    group_ratio_spec g;
    g.a = ref.entries[0];
    g.b = ref.entries[1];
    if (figure.contains("name") && figure["name"].is_string())
        g.combo = figure["name"].get<std::string>();
    std::vector<std::string_view> names;
    for (const task_spec& t : sc.tasks)
        names.push_back(t.name);
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string field = "measured.entries[" + std::to_string(i) + "]";
        const std::string& entry = ref.entries[i];
        const std::string nice_key = i == 0 ? "nice_A" : "nice_B";
        const task_spec* spec = entry_named(sc, entry, field, names);
        if (!figure.contains(nice_key) || !figure[nice_key].is_number_integer())
            throw scenario_error("measured.figure", ref.figure + "." + nice_key + " in " +
                                                        ref.data + " is not a nice value");
        if (figure[nice_key].get<int>() != spec->nice)
            throw scenario_error(field, "entry " + entry + " has nice " +
                                            std::to_string(spec->nice) + " but " + ref.figure +
                                            " measured nice " + figure[nice_key].dump() +
                                            " for group " + (i == 0 ? "A" : "B"));
    }
    if (g.a == g.b)
        throw scenario_error("measured.entries[1]", "\"" + g.b + "\" is named twice");
    g.ratio_runs = numbers_in(figure, "ratio", ref);
    g.jratio_runs = numbers_in(figure, "jratio", ref);
    g.ratio = number_in(figure, "ratio_median", ref);
    g.jratio = number_in(figure, "jratio_median", ref);
    for (const auto& [key, runs, stated] : {std::tuple{"ratio", &g.ratio_runs, g.ratio},
                                            std::tuple{"jratio", &g.jratio_runs, g.jratio}})
        if (std::abs(stats::median(*runs) - stated) > stated_median_precision)
            throw scenario_error("measured.figure",
                                 ref.figure + "." + key + "_median in " + ref.data + " is " +
                                     figure[std::string{key} + "_median"].dump() +
                                     " but the median of its runs is " +
                                     std::to_string(stats::median(*runs)));
    return g;
}

// The source's weight of a nice value as it wrote it ("20" stays 20: no clamping).
inline double claimed_weight(const nlohmann::json& table, int nice, const measured_data_ref& ref) {
    const std::string key = std::to_string(nice);
    if (!table.contains(key) || !table[key].is_number() || table[key].get<double>() <= 0)
        throw scenario_error("measured.claimed_weights", ref.claimed_weights + " in " + ref.data +
                                                             " has no weight for nice " + key);
    return table[key].get<double>();
}

inline perf_stat_spec read_perf_stat(const nlohmann::json& perf, const measured_data_ref& ref) {
    const measured_data_ref at{ref.data, ref.experiment, ref.perf_stat, {}, {}, {}};
    perf_stat_spec p;
    p.context_switches = number_in(perf, "context_switches", at);
    p.cpu_migrations = number_in(perf, "cpu_migrations", at);
    p.task_clock_ms = number_in(perf, "task_clock_ms", at);
    p.cpus_utilized = number_in(perf, "cpus_utilized", at);
    return p;
}

// Fills m.share (and m.ratio, against the reference entry), or m.groups for a two-group
// figure, from the figure ref names, and m.perf_stat if ref names one; base is the folder of
// the scenario file. The figure's "nice" list, when it has one, must match
// the entries' nice values, so a replay cannot point at another experiment's figure.
inline void read_measured_data(measured_spec& m, const measured_data_ref& ref, const scenario& sc,
                               const std::filesystem::path& base) {
    const nlohmann::json doc = read_data_file(base / ref.data, ref.data);
    const nlohmann::json& experiment = find_experiment(doc, ref);
    const nlohmann::json& figure = find_figure(experiment, ref);
    if (m.source.empty())
        m.source = ref.data + ": " + ref.experiment + ", " + ref.figure;
    if (!ref.perf_stat.empty())
        m.perf_stat = read_perf_stat(
            experiment_object(experiment, ref.perf_stat, "measured.perf_stat", ref), ref);
    if (figure.is_object() && figure.contains("nice_A")) {
        group_ratio_spec g = read_group_figure(figure, sc, ref);
        if (!ref.claimed_weights.empty()) {
            const nlohmann::json& table =
                experiment_object(experiment, ref.claimed_weights, "measured.claimed_weights", ref);
            g.claimed_theory = claimed_weight(table, figure["nice_A"].get<int>(), ref) /
                               claimed_weight(table, figure["nice_B"].get<int>(), ref);
        }
        m.groups = std::move(g);
        return;
    }
    if (!ref.claimed_weights.empty())
        throw scenario_error("measured.claimed_weights",
                             "a source's weight table goes with a two-group figure (nice_A, "
                             "nice_B); " +
                                 ref.figure + " is not one");
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
        const task_spec* spec = entry_named(sc, entry, field, names);
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
}

} // namespace libsched::detail
