#pragma once
// The machine's CPU topology (what /sys/devices/system/cpu/cpuN/topology and the cache and
// NUMA files describe): for each logical CPU its package, core, SMT thread, last-level
// cache and NUMA node, and the node distances. Sched domains are built from it
// (sched/sched_domain.hpp).
#include <cstddef>
#include <vector>

namespace libsched {

struct cpu_topology {
    struct cpu_place {
        int package = 0; // physical_package_id
        int core = 0;    // machine-wide core number: CPUs with the same core are SMT siblings
        int thread = 0;  // the sibling's index within its core
        int llc = 0;     // machine-wide last-level-cache number (index3 shared_cpu_list)
        int node = 0;    // NUMA node
    };
    std::vector<cpu_place> cpus;            // index = logical CPU number
    std::vector<std::vector<int>> distance; // node distance [from][to], 10 on the diagonal

    int nr_cpus() const { return static_cast<int>(cpus.size()); }
    int nr_nodes() const { return static_cast<int>(distance.size()); }
    const cpu_place& of(int cpu) const { return cpus[static_cast<std::size_t>(cpu)]; }
    bool same_core(int a, int b) const { return of(a).core == of(b).core; }
    bool same_llc(int a, int b) const { return of(a).llc == of(b).llc; }
    bool same_node(int a, int b) const { return of(a).node == of(b).node; }
    bool same_package(int a, int b) const { return of(a).package == of(b).package; }
    int node_distance(int a, int b) const {
        return distance[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
    }
};

// The kernel's LOCAL_DISTANCE and REMOTE_DISTANCE (include/linux/topology.h).
inline constexpr int local_distance = 10;
inline constexpr int remote_distance = 20;

// packages x cores_per_package x threads_per_core, one LLC and one NUMA node per package
// (remote nodes at REMOTE_DISTANCE). CPUs are numbered as x86 firmware usually enumerates
// them: the first thread of every core, package by package, then the second threads in the
// same order (so on 2 cores x 2 threads, CPUs 0 and 2 are siblings).
inline cpu_topology symmetric_topology(int packages, int cores_per_package, int threads_per_core) {
    cpu_topology t;
    const int cores = packages * cores_per_package;
    for (int th = 0; th < threads_per_core; ++th)
        for (int c = 0; c < cores; ++c) {
            const int package = c / cores_per_package;
            t.cpus.push_back({package, c, th, package, package});
        }
    t.distance.assign(static_cast<std::size_t>(packages),
                      std::vector<int>(static_cast<std::size_t>(packages), remote_distance));
    for (std::size_t n = 0; n < t.distance.size(); ++n)
        t.distance[n][n] = local_distance;
    return t;
}

} // namespace libsched
