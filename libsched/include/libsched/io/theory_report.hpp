#pragma once
// The theory predictor's figures (stats/theory.hpp) for people and programs: a table of
// tasks and one of groups, or one JSON object per scenario. `libsched theory` prints them;
// the Python binding reads the JSON.
#include <libsched/io/detail/text_table.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/stats/theory.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace libsched {
namespace detail {

// "0-3,6" for a CPU list; "all" for every CPU.
inline std::string cpus_text(const std::vector<int>& cpus) {
    if (cpus.empty())
        return "all";
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) +
               (j > i ? "-" + std::to_string(cpus[j]) : "");
        i = j + 1;
    }
    return out;
}

// "fifo 50" for an RT task, "normal", "idle", "batch" otherwise.
inline std::string theory_policy(const stats::theory_task& t) {
    std::string p = policy_name(t.policy);
    return rt_policy(t.policy) ? p + " " + std::to_string(t.rt_priority) : p;
}

} // namespace detail

// One object: the scenario's name, its CPUs, what a CPU gives RT at most, then every task
// and group with its settings and its share of one CPU.
inline nlohmann::json theory_json(const stats::theory_result& r, const scenario& sc) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const stats::theory_task& t : r.tasks)
        tasks.push_back({{"name", t.name},
                         {"entry", t.entry},
                         {"group", t.group},
                         {"policy", policy_name(t.policy)},
                         {"nice", t.nice},
                         {"rt_priority", t.rt_priority},
                         {"weight", t.weight},
                         {"demand", t.demand},
                         {"cpus", t.cpus},
                         {"share", t.share}});
    nlohmann::json groups = nlohmann::json::array();
    for (const stats::theory_group& g : r.groups)
        groups.push_back({{"name", g.name},
                          {"parent", g.parent},
                          {"session", g.session},
                          {"weight", g.weight},
                          {"quota", g.quota ? nlohmann::json(*g.quota) : nlohmann::json(nullptr)},
                          {"share", g.share}});
    return {{"scenario", sc.name},
            {"cpus", r.cpus},
            {"rt_limit", r.rt_limit},
            {"tasks", tasks},
            {"groups", groups}};
}

// A header line, the tasks' table, and the groups' when there are any.
inline void print_theory(std::ostream& out, const stats::theory_result& r, const scenario& sc) {
    using detail::align;
    using detail::fixed;
    out << sc.name << ": fluid (GPS) shares in % of one CPU, on " << r.cpus
        << (r.cpus == 1 ? " CPU" : " CPUs") << ", kernel " << sc.machine.kernel.str();
    bool rt = false;
    for (const stats::theory_task& t : r.tasks)
        rt = rt || rt_policy(t.policy);
    if (rt)
        out << "; RT gets at most " << fixed(100 * r.rt_limit, 1) << " % of a CPU";
    out << '\n';
    detail::text_table tasks({{"task", align::left},
                              {"policy", align::left},
                              {"nice"},
                              {"group", align::left},
                              {"cpus", align::left},
                              {"weight"},
                              {"demand"},
                              {"theory %"}});
    for (const stats::theory_task& t : r.tasks)
        tasks.add_row({t.name, detail::theory_policy(t),
                       rt_policy(t.policy) ? "-" : std::to_string(t.nice),
                       t.group.empty() ? "/" : t.group, detail::cpus_text(t.cpus),
                       rt_policy(t.policy) ? "-" : fixed(t.weight, 0), fixed(t.demand, 3),
                       fixed(100 * t.share, 2)});
    tasks.print(out);
    if (r.groups.empty())
        return;
    out << '\n';
    detail::text_table groups({{"group", align::left},
                               {"parent", align::left},
                               {"weight"},
                               {"quota (CPUs)"},
                               {"theory %"}});
    for (const stats::theory_group& g : r.groups)
        groups.add_row({g.session.empty() ? g.name : g.name + " (session " + g.session + ")",
                        g.parent.empty() ? "/" : g.parent, fixed(g.weight, 0), fixed(g.quota, 3),
                        fixed(100 * g.share, 2)});
    groups.print(out);
}

} // namespace libsched
