#pragma once
// Scheduling domains and groups (kernel/sched/topology.c: default_topology, sd_init,
// build_sched_groups, the degenerate-domain pruning of cpu_attach_domain). Each CPU has
// its own chain of domains, bottom up (SMT, MC, PKG, NUMA), each split into groups (the
// child domain's spans); the chain holds the balancing state the CPU keeps per level.
#include <algorithm>
#include <cstddef>
#include <libsched/sched/flags.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/topology.hpp>
#include <libsched/sched/types.hpp>
#include <memory>
#include <string>
#include <vector>

namespace libsched {

// SD_* (include/linux/sched/sd_flags.h); the low nibble matches WF_EXEC / WF_FORK /
// WF_TTWU, so a wakeup's flags select the domains that balance it.
enum class sd_flag : unsigned {
    none = 0,
    balance_newidle = 1u << 0,
    balance_exec = 1u << 1,
    balance_fork = 1u << 2,
    balance_wake = 1u << 3,
    wake_affine = 1u << 4,
    share_cpucapacity = 1u << 7, // SMT siblings
    share_llc = 1u << 9,         // SD_SHARE_PKG_RESOURCES before 6.10
    serialize = 1u << 10,
    prefer_sibling = 1u << 12,
    numa = 1u << 14,
};
template <> inline constexpr bool is_flag_mask<sd_flag> = true;

// The kernel's node_reclaim_distance (RECLAIM_DISTANCE): beyond it a NUMA level neither
// balances forks and execs nor wakes affine.
inline constexpr int node_reclaim_distance = 30;

// struct sched_group_capacity: shared by every CPU's copy of a group.
struct sched_group_capacity {
    unsigned long capacity = 0;
    bool imbalance = false; // a child level failed to balance because of affinity
};

// struct sched_group: a set of CPUs a domain balances between.
struct sched_group {
    std::vector<int> cpus;         // sorted
    sd_flag flags = sd_flag::none; // the child domain's flags (SMT core: share_cpucapacity)
    std::shared_ptr<sched_group_capacity> sgc;
    int weight() const { return static_cast<int>(cpus.size()); }
    bool contains(int cpu) const { return std::binary_search(cpus.begin(), cpus.end(), cpu); }
};

// struct sched_domain: one level of one CPU's chain. Intervals are in milliseconds (jiffies
// are derived at use, as get_sd_balance_interval() does).
struct sched_domain {
    std::string name; // SMT, MC, PKG (DIE before 6.7), NUMA
    int level = 0;
    std::vector<int> span; // sorted
    sd_flag flags = sd_flag::none;
    unsigned min_interval = 0, max_interval = 0, busy_factor = 16;
    unsigned imbalance_pct = 117, cache_nice_tries = 0;
    unsigned imb_numa_nr = 0;        // NUMA: tasks tolerated as imbalance (5.16+)
    std::vector<sched_group> groups; // groups[0] is the local group (holds this CPU)
    sched_domain* parent = nullptr;
    sched_domain* child = nullptr;

    // Balancing state of this CPU at this level.
    unsigned long balance_interval = 0; // ms
    unsigned nr_balance_failed = 0;
    u64 last_balance = 0; // jiffies
    duration max_newidle_lb_cost = 0;
    u64 last_decay_max_lb_cost = 0; // jiffies
    // Proportional newidle balancing (update_newidle_stats()): passes counted, their
    // successes weighed, and the success rate out of 1024, from a 50 % prior (sd_init).
    unsigned newidle_call = 512, newidle_success = 256, newidle_ratio = 512;

    int span_weight() const { return static_cast<int>(span.size()); }
    bool contains(int cpu) const { return std::binary_search(span.begin(), span.end(), cpu); }
};

// struct sched_domain_shared of an LLC: the wakeup path's hints.
struct sched_domain_shared {
    int nr_busy_cpus = 0;
    bool has_idle_cores = false;
    int nr_idle_scan = 0; // SIS_UTIL (6.0+)
};

// The domains of every CPU and the per-CPU LLC facts (sd_llc, sd_llc_size, sd_llc_id,
// sd_llc_shared, sd_numa).
class sched_domains {
public:
    sched_domains(const cpu_topology& topo, kernel_version v);
    sched_domains(const sched_domains&) = delete;
    sched_domains& operator=(const sched_domains&) = delete;

    int nr_cpus() const { return static_cast<int>(chains_.size()); }
    // The lowest domain of cpu (nullptr on a machine of one CPU); walk ->parent upwards.
    sched_domain* lowest(int cpu) {
        auto& c = chains_[static_cast<std::size_t>(cpu)];
        return c.empty() ? nullptr : c.front().get();
    }
    const std::vector<std::unique_ptr<sched_domain>>& chain(int cpu) const {
        return chains_[static_cast<std::size_t>(cpu)];
    }
    // The highest domain sharing the LLC (sd_llc), or nullptr.
    sched_domain* llc(int cpu) { return llc_[static_cast<std::size_t>(cpu)]; }
    int llc_size(int cpu) const { return llc_size_[static_cast<std::size_t>(cpu)]; }
    int llc_id(int cpu) const { return llc_id_[static_cast<std::size_t>(cpu)]; }
    bool cpus_share_cache(int a, int b) const { return llc_id(a) == llc_id(b); }
    sched_domain_shared& llc_shared(int cpu) {
        return *shared_[static_cast<std::size_t>(llc_id(cpu))];
    }
    const cpu_topology& topology() const { return topo_; }
    // The CPU's SMT siblings, itself included (cpu_smt_mask).
    const std::vector<int>& smt_mask(int cpu) const { return smt_[static_cast<std::size_t>(cpu)]; }
    bool smt_active() const { return smt_active_; }

private:
    cpu_topology topo_;
    std::vector<std::vector<std::unique_ptr<sched_domain>>> chains_;
    std::vector<sched_domain*> llc_;
    std::vector<int> llc_size_, llc_id_;
    std::vector<std::unique_ptr<sched_domain_shared>> shared_; // by llc_id (its first CPU)
    std::vector<std::vector<int>> smt_;
    bool smt_active_ = false;
};

namespace detail {

struct topology_level {
    std::string name;
    sd_flag flags; // the topology flags (SD_SHARE_CPUCAPACITY, SD_SHARE_LLC, SD_NUMA)
    int numa_distance = 0;
    bool (*same)(const cpu_topology&, int, int, int);
};

inline std::vector<int> span_of(const cpu_topology& t, const topology_level& l, int cpu) {
    std::vector<int> s;
    for (int c = 0; c < t.nr_cpus(); ++c)
        if (l.same(t, cpu, c, l.numa_distance))
            s.push_back(c);
    return s;
}

// sd_init(): a level's defaults from its topology flags and span.
inline sched_domain sd_init(const topology_level& l, std::vector<int> span, kernel_version v) {
    sched_domain sd;
    sd.name = l.name;
    sd.span = std::move(span);
    const auto w = static_cast<unsigned>(sd.span.size());
    sd.min_interval = w;
    sd.max_interval = 2 * w;
    sd.balance_interval = w;
    // busy_factor 32 -> 16: "Reduce busy load balance interval", in tip September 2020,
    // so 5.10 (release inferred; 5.15 has 16).
    sd.busy_factor = v >= kernel_version{5, 10} ? 16 : 32;
    sd.imbalance_pct = 117;
    sd.cache_nice_tries = 0;
    sd.flags = sd_flag::balance_newidle | sd_flag::balance_exec | sd_flag::balance_fork |
               sd_flag::wake_affine | sd_flag::prefer_sibling | l.flags;
    if (has(sd.flags, sd_flag::share_cpucapacity)) {
        sd.imbalance_pct = 110;
    } else if (has(sd.flags, sd_flag::share_llc)) {
        sd.imbalance_pct = 117;
        sd.cache_nice_tries = 1;
    } else if (has(sd.flags, sd_flag::numa)) {
        sd.cache_nice_tries = 2;
        sd.flags = (sd.flags & ~sd_flag::prefer_sibling) | sd_flag::serialize;
        if (l.numa_distance > node_reclaim_distance)
            sd.flags =
                sd.flags & ~(sd_flag::balance_exec | sd_flag::balance_fork | sd_flag::wake_affine);
    } else {
        sd.cache_nice_tries = 1;
    }
    return sd;
}

} // namespace detail

inline sched_domains::sched_domains(const cpu_topology& topo, kernel_version v) : topo_(topo) {
    using detail::topology_level;
    const int n = topo.nr_cpus();
    // default_topology: SMT, MC (the LLC), PKG (the node), then one NUMA level per distance.
    std::vector<topology_level> levels = {
        {"SMT", sd_flag::share_cpucapacity | sd_flag::share_llc, 0,
         [](const cpu_topology& t, int a, int b, int) { return t.same_core(a, b); }},
        {"MC", sd_flag::share_llc, 0,
         [](const cpu_topology& t, int a, int b, int) { return t.same_llc(a, b); }},
        {v >= kernel_version{6, 7} ? "PKG" : "DIE", sd_flag::none, 0,
         [](const cpu_topology& t, int a, int b, int) { return t.same_node(a, b); }},
    };
    std::vector<int> distances;
    for (int a = 0; a < topo.nr_nodes(); ++a)
        for (int b = 0; b < topo.nr_nodes(); ++b)
            if (topo.node_distance(a, b) > local_distance)
                distances.push_back(topo.node_distance(a, b));
    std::sort(distances.begin(), distances.end());
    distances.erase(std::unique(distances.begin(), distances.end()), distances.end());
    for (int d : distances)
        levels.push_back(
            {"NUMA", sd_flag::numa, d, [](const cpu_topology& t, int a, int b, int dd) {
                 return t.node_distance(t.of(a).node, t.of(b).node) <= dd;
             }});

    chains_.resize(static_cast<std::size_t>(n));
    for (int cpu = 0; cpu < n; ++cpu) {
        auto& chain = chains_[static_cast<std::size_t>(cpu)];
        std::vector<int> prev_span{cpu};
        for (const topology_level& l : levels) {
            std::vector<int> span = detail::span_of(topo, l, cpu);
            // A level spanning no more than the one below is degenerate (sd_degenerate,
            // sd_parent_degenerate: its flags add nothing a wider span would need).
            if (span == prev_span)
                continue;
            auto sd = std::make_unique<sched_domain>(detail::sd_init(l, span, v));
            sd->level = static_cast<int>(chain.size());
            prev_span = std::move(span);
            chain.push_back(std::move(sd));
        }
        for (std::size_t i = 0; i < chain.size(); ++i) {
            chain[i]->child = i > 0 ? chain[i - 1].get() : nullptr;
            chain[i]->parent = i + 1 < chain.size() ? chain[i + 1].get() : nullptr;
        }
    }

    // Groups (build_sched_groups): the child spans covering the domain, local first; the
    // lowest level's groups are single CPUs. Copies of one group share its capacity.
    std::vector<std::vector<std::pair<std::vector<int>, std::shared_ptr<sched_group_capacity>>>>
        sgcs(levels.size() + 1);
    for (int cpu = 0; cpu < n; ++cpu)
        for (auto& sd : chains_[static_cast<std::size_t>(cpu)]) {
            const auto child_span = [&](int c) -> std::vector<int> {
                if (sd->child == nullptr)
                    return {c};
                for (const auto& other : chains_[static_cast<std::size_t>(c)])
                    if (other->level == sd->child->level)
                        return other->span;
                return {c};
            };
            std::vector<int> covered;
            std::vector<int> order = sd->span;
            std::rotate(order.begin(), std::find(order.begin(), order.end(), cpu), order.end());
            for (int c : order) {
                if (std::find(covered.begin(), covered.end(), c) != covered.end())
                    continue;
                sched_group g;
                g.cpus = child_span(c);
                g.flags = sd->child != nullptr ? sd->child->flags : sd_flag::none;
                covered.insert(covered.end(), g.cpus.begin(), g.cpus.end());
                auto& pool = sgcs[static_cast<std::size_t>(sd->level)];
                auto it = std::find_if(pool.begin(), pool.end(),
                                       [&](const auto& e) { return e.first == g.cpus; });
                if (it == pool.end()) {
                    auto sgc = std::make_shared<sched_group_capacity>();
                    sgc->capacity = 1024 * static_cast<unsigned long>(g.cpus.size());
                    pool.emplace_back(g.cpus, sgc);
                    it = std::prev(pool.end());
                }
                g.sgc = it->second;
                sd->groups.push_back(std::move(g));
            }
        }

    // sd_llc and its shared hints; the SMT masks.
    llc_.assign(static_cast<std::size_t>(n), nullptr);
    llc_size_.assign(static_cast<std::size_t>(n), 1);
    llc_id_.resize(static_cast<std::size_t>(n));
    shared_.resize(static_cast<std::size_t>(n));
    smt_.resize(static_cast<std::size_t>(n));
    for (int cpu = 0; cpu < n; ++cpu) {
        const auto ucpu = static_cast<std::size_t>(cpu);
        for (auto& sd : chains_[ucpu])
            if (has(sd->flags, sd_flag::share_llc))
                llc_[ucpu] = sd.get();
        llc_id_[ucpu] = llc_[ucpu] != nullptr ? llc_[ucpu]->span.front() : cpu;
        llc_size_[ucpu] = llc_[ucpu] != nullptr ? llc_[ucpu]->span_weight() : 1;
        auto& sh = shared_[static_cast<std::size_t>(llc_id_[ucpu])];
        if (!sh)
            sh = std::make_unique<sched_domain_shared>();
        for (int c = 0; c < n; ++c)
            if (topo.same_core(cpu, c))
                smt_[ucpu].push_back(c);
        smt_active_ = smt_active_ || smt_[ucpu].size() > 1;
    }
}

} // namespace libsched
