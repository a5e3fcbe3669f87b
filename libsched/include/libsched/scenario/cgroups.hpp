#pragma once
// The cgroup hierarchy a scenario describes: every group's path with the parents a path
// implies, and the weight each group's files give it, converted as the kernel's cpu
// controller does (kernel/sched/core.c cpu_shares_write_u64, cpu_weight_write_u64,
// cpu_weight_nice_write_s64).
#include <algorithm>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/weight.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace libsched {

// MIN_SHARES / MAX_SHARES (sched.h): __sched_group_set_shares() clamps a v1 write into them.
inline constexpr long long min_shares = 2;
inline constexpr long long max_shares = 1LL << 18;
// CGROUP_WEIGHT_MIN / _DFL / _MAX (include/linux/cgroup.h)
inline constexpr int cgroup_weight_min = 1;
inline constexpr int cgroup_weight_dfl = 100;
inline constexpr int cgroup_weight_max = 10'000;

// sched_weight_from_cgroup(): cpu.weight to shares, rounded to the nearest.
inline constexpr u64 sched_weight_from_cgroup(u64 weight) {
    return (weight * 1024 + cgroup_weight_dfl / 2) / cgroup_weight_dfl;
}

// The scaled shares a group's settings give (tg->shares): v1 cpu.shares clamped to
// [2, 262144] as the kernel does; v2 cpu.weight through sched_weight_from_cgroup(), or
// cpu.weight.nice through the nice table; 1024 by default. Needs a valid spec.
inline u64 cgroup_shares(const cgroup_spec& g) {
    if (g.shares)
        return scale_load(
            static_cast<u64>(std::clamp<long long>(*g.shares, min_shares, max_shares)));
    if (g.weight)
        return scale_load(sched_weight_from_cgroup(static_cast<u64>(*g.weight)));
    if (g.weight_nice)
        return scale_load(nice_to_weight(*g.weight_nice));
    return nice_0_load;
}

// The scaled shares on this machine: a cpu_request becomes cpu.shares (kubelet
// MilliCPUToShares) and, on cgroup v2, cpu.weight by the runtime's formula; otherwise as
// above.
inline u64 cgroup_shares(const cgroup_spec& g, const machine_spec& m) {
    if (!g.cpu_request)
        return cgroup_shares(g);
    const auto shares = static_cast<u64>(milli_cpu_to_shares(*g.cpu_request));
    if (m.cgroup_version == 1)
        return scale_load(shares);
    return scale_load(sched_weight_from_cgroup(cpu_shares_to_weight(shares, m.shares_to_weight)));
}

// "web" for "web/api"; "" for a top-level group.
inline std::string cgroup_parent(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string{} : std::string{path.substr(0, slash)};
}

// Every group of the hierarchy, parents first: the declared ones in their order, each
// preceded by the ancestors its path implies that were not declared before it (created
// with the defaults, as `mkdir -p` would). Needs valid paths.
inline std::vector<std::string> cgroup_paths(const scenario& sc) {
    std::vector<std::string> out;
    const auto add = [&out](const std::string& path, auto& self) -> void {
        if (path.empty() || std::find(out.begin(), out.end(), path) != out.end())
            return;
        self(cgroup_parent(path), self);
        out.push_back(path);
    };
    for (const cgroup_spec& g : sc.cgroups)
        add(g.name, add);
    return out;
}

// The declared group of that path, or nullptr (an implied parent, with the defaults).
inline const cgroup_spec* find_cgroup(const scenario& sc, std::string_view path) {
    for (const cgroup_spec& g : sc.cgroups)
        if (g.name == path)
            return &g;
    return nullptr;
}

} // namespace libsched
