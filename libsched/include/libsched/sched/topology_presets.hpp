#pragma once
// Machines by shape (packages x cores x SMT threads, LLCs and NUMA nodes per package) and
// the named presets a scenario's machine.topology may give ("1c2t", "2s32c2t", ...).
#include <array>
#include <cstddef>
#include <libsched/sched/topology.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libsched {

// Distance between two nodes of one package (AMD NPS2/NPS4-like). Firmware tables vary
// (11 and 12 are common); it lies between LOCAL_DISTANCE and REMOTE_DISTANCE.
inline constexpr int package_node_distance = 12;

struct topology_shape {
    int packages = 1;
    int cores = 1;   // per package
    int threads = 1; // SMT threads per core
    int llcs = 1;    // last-level caches per package, each over an equal share of its cores
    int nodes = 1;   // NUMA nodes per package, each over an equal share of its LLCs

    int nr_cpus() const { return packages * cores * threads; }
};

// One mistake in a shape, naming the member ("llcs").
struct shape_problem {
    std::string_view member;
    std::string reason;
};

// Every member at least 1, at most cpu_limit CPUs in all, cores split evenly among the
// LLCs and LLCs among the nodes (an LLC never spans nodes: x86's match_llc() drops such a
// dependency too).
inline std::vector<shape_problem> check_shape(const topology_shape& s, int cpu_limit) {
    std::vector<shape_problem> problems;
    const std::array<std::pair<std::string_view, int>, 5> members = {{{"packages", s.packages},
                                                                      {"cores", s.cores},
                                                                      {"threads", s.threads},
                                                                      {"llcs", s.llcs},
                                                                      {"nodes", s.nodes}}};
    for (const auto& [member, value] : members)
        if (value < 1 || value > cpu_limit)
            problems.push_back({member, std::to_string(value) + " is outside [1, " +
                                            std::to_string(cpu_limit) + "]"});
    if (!problems.empty())
        return problems;
    const long long cpus = static_cast<long long>(s.packages) * s.cores * s.threads;
    if (cpus > cpu_limit)
        problems.push_back({"cores", std::to_string(s.packages) + " x " + std::to_string(s.cores) +
                                         " x " + std::to_string(s.threads) + " is " +
                                         std::to_string(cpus) + " CPUs, more than " +
                                         std::to_string(cpu_limit)});
    if (s.cores % s.llcs != 0)
        problems.push_back({"llcs", std::to_string(s.llcs) + " LLCs cannot share " +
                                        std::to_string(s.cores) + " cores a package evenly"});
    if (s.llcs % s.nodes != 0)
        problems.push_back({"nodes", std::to_string(s.nodes) + " nodes cannot share " +
                                         std::to_string(s.llcs) +
                                         " LLCs a package evenly (an LLC lies within one "
                                         "node; set llcs to a multiple of nodes)"});
    return problems;
}

// The machine of a shape that check_shape() accepts, numbered as symmetric_topology()
// numbers it (the first thread of every core, package by package, then the second threads).
inline cpu_topology shaped_topology(const topology_shape& s) {
    cpu_topology t = symmetric_topology(s.packages, s.cores, s.threads);
    const int cores_per_llc = s.cores / s.llcs;
    const int llcs_per_node = s.llcs / s.nodes;
    for (cpu_topology::cpu_place& p : t.cpus) {
        const int llc_in_package = (p.core % s.cores) / cores_per_llc;
        p.llc = p.package * s.llcs + llc_in_package;
        p.node = p.package * s.nodes + llc_in_package / llcs_per_node;
    }
    const auto nodes = static_cast<std::size_t>(s.packages * s.nodes);
    t.distance.assign(nodes, std::vector<int>(nodes, remote_distance));
    for (std::size_t a = 0; a < nodes; ++a)
        for (std::size_t b = 0; b < nodes; ++b)
            if (a == b)
                t.distance[a][b] = local_distance;
            else if (a / static_cast<std::size_t>(s.nodes) == b / static_cast<std::size_t>(s.nodes))
                t.distance[a][b] = package_node_distance;
    return t;
}

struct topology_preset {
    std::string_view name;
    std::string_view description;
    topology_shape shape;
};

inline constexpr std::array<topology_preset, 9> topology_presets = {{
    {"1c", "1 CPU", {1, 1, 1, 1, 1}},
    {"1c2t", "1 core with 2 SMT siblings (a 2-vCPU cloud VM)", {1, 1, 2, 1, 1}},
    {"2c", "2 cores, no SMT", {1, 2, 1, 1, 1}},
    {"4c", "4 cores, no SMT", {1, 4, 1, 1, 1}},
    {"4c8t", "4 cores x 2 SMT threads, one LLC (a desktop)", {1, 4, 2, 1, 1}},
    {"8c16t", "8 cores x 2 SMT threads, one package, one LLC", {1, 8, 2, 1, 1}},
    {"16c32t-2llc",
     "16 cores x 2 SMT threads in 2 LLCs of 8 cores (AMD Ryzen 9-like)",
     {1, 16, 2, 2, 1}},
    {"64c128t-8llc",
     "64 cores x 2 SMT threads in 8 LLCs of 8 cores (AMD EPYC-like)",
     {1, 64, 2, 8, 1}},
    {"2s32c2t",
     "2 sockets x 32 cores x 2 SMT threads, a NUMA node per socket (distance 20)",
     {2, 32, 2, 1, 1}},
}};

inline const topology_preset* find_topology_preset(std::string_view name) {
    for (const topology_preset& p : topology_presets)
        if (p.name == name)
            return &p;
    return nullptr;
}

// The preset's machine; nothing for a name that is not a preset.
inline std::optional<cpu_topology> preset_topology(std::string_view name) {
    if (const topology_preset* p = find_topology_preset(name))
        return shaped_topology(p->shape);
    return std::nullopt;
}

} // namespace libsched
