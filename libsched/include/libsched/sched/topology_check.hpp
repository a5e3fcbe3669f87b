#pragma once
// Whether a cpu_topology describes a machine the kernel could build sched domains on:
// check_topology() lists every inconsistency in words, none for a valid topology.
#include <cstddef>
#include <libsched/sched/topology.hpp>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libsched {
namespace detail {

// Numbers used for one field ("llc") must be 0, 1, ..., n-1.
inline void check_dense(std::string_view what, const std::set<int>& used,
                        std::vector<std::string>& problems) {
    int expected = 0;
    for (const int n : used) {
        if (n != expected) {
            problems.push_back(std::string{what} + " numbers are not dense: " + std::string{what} +
                               " " + std::to_string(n) + " is used but " + std::string{what} + " " +
                               std::to_string(expected) + " is not");
            return;
        }
        ++expected;
    }
}

// The CPUs of one core, or of one LLC, lie in one package and one node (and a core in one
// LLC): what cpu_smt_mask() and cpu_coregroup_mask() nest on.
inline void check_within(const cpu_topology& t, bool is_core, int cpu, int first,
                         std::vector<std::string>& problems) {
    const std::string_view group = is_core ? "a core" : "an llc";
    const cpu_topology::cpu_place& p = t.of(cpu);
    const cpu_topology::cpu_place& q = t.of(first);
    const auto differs = [&](std::string_view field, int a, int b) {
        if (a != b)
            problems.push_back("cpu " + std::to_string(cpu) + " shares " + std::string{group} +
                               " with cpu " + std::to_string(first) + " but is in " +
                               std::string{field} + " " + std::to_string(a) + ", not " +
                               std::to_string(b));
    };
    differs("package", p.package, q.package);
    differs("node", p.node, q.node);
    if (is_core)
        differs("llc", p.llc, q.llc);
}

} // namespace detail

// Every problem of t, in words: dense numbering of packages, cores, LLCs and nodes, cores
// and LLCs nested in packages and nodes, distinct thread numbers within a core, and a node
// distance matrix as the kernel accepts a SLIT (slit_valid(), drivers/acpi/numa/srat.c):
// square over the nodes, LOCAL_DISTANCE on the diagonal, more than it elsewhere; and
// symmetric, as the model reads it both ways.
inline std::vector<std::string> check_topology(const cpu_topology& t) {
    std::vector<std::string> problems;
    if (t.cpus.empty())
        return {"no CPUs"};
    std::set<int> packages, cores, llcs, nodes;
    std::map<int, int> first_of_core, first_of_llc;
    std::map<int, std::set<int>> threads_of_core;
    for (int cpu = 0; cpu < t.nr_cpus(); ++cpu) {
        const cpu_topology::cpu_place& p = t.of(cpu);
        const std::pair<std::string_view, int> fields[] = {{"package", p.package},
                                                           {"core", p.core},
                                                           {"thread", p.thread},
                                                           {"llc", p.llc},
                                                           {"node", p.node}};
        bool negative = false;
        for (const auto& [field, value] : fields)
            if (value < 0) {
                problems.push_back("cpu " + std::to_string(cpu) + ": " + std::string{field} + " " +
                                   std::to_string(value) + " is negative");
                negative = true;
            }
        if (negative)
            continue;
        packages.insert(p.package);
        cores.insert(p.core);
        llcs.insert(p.llc);
        nodes.insert(p.node);
        const auto [core_at, new_core] = first_of_core.emplace(p.core, cpu);
        if (!new_core)
            detail::check_within(t, true, cpu, core_at->second, problems);
        if (!threads_of_core[p.core].insert(p.thread).second)
            problems.push_back("cpu " + std::to_string(cpu) + " is thread " +
                               std::to_string(p.thread) + " of core " + std::to_string(p.core) +
                               ", as another cpu is");
        const auto [llc_at, new_llc] = first_of_llc.emplace(p.llc, cpu);
        if (!new_llc)
            detail::check_within(t, false, cpu, llc_at->second, problems);
    }
    detail::check_dense("package", packages, problems);
    detail::check_dense("core", cores, problems);
    detail::check_dense("llc", llcs, problems);
    detail::check_dense("node", nodes, problems);

    const std::size_t n = nodes.empty() ? 0 : static_cast<std::size_t>(*nodes.rbegin()) + 1;
    if (t.distance.size() != n) {
        problems.push_back("the distance matrix has " + std::to_string(t.distance.size()) +
                           " rows for " + std::to_string(n) + " nodes");
        return problems;
    }
    for (std::size_t a = 0; a < n; ++a) {
        if (t.distance[a].size() != n) {
            problems.push_back("distance row " + std::to_string(a) + " has " +
                               std::to_string(t.distance[a].size()) + " entries for " +
                               std::to_string(n) + " nodes");
            return problems;
        }
    }
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b) {
            const int d = t.distance[a][b];
            const std::string at = "distance from node " + std::to_string(a) + " to node " +
                                   std::to_string(b) + " is " + std::to_string(d);
            if (a == b && d != local_distance)
                problems.push_back(at + ", not " + std::to_string(local_distance));
            else if (a != b && d <= local_distance)
                problems.push_back(at + ", not above " + std::to_string(local_distance));
            else if (a < b && d != t.distance[b][a])
                problems.push_back(at + " but back is " + std::to_string(t.distance[b][a]));
        }
    return problems;
}

} // namespace libsched
