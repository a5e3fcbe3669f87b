#pragma once
// The statistics load balancing and fork placement compute over a sched group
// (kernel/sched/fair.c: struct sg_lb_stats, group_classify, group_is_overloaded,
// group_has_capacity), from the groups' CPUs' PELT signals and task counts.
#include <libsched/sched/pelt.hpp>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/sched_domain.hpp>

namespace libsched {

// enum cpu_idle_type
enum class cpu_idle_type { idle, not_idle, newly_idle };

// enum group_type, least busy first: a busier group is a better source. group_smt_balance
// came with 6.6; misfit and asym packing need asymmetric CPUs, which the model has not.
enum class group_type {
    has_spare,
    fully_busy,
    misfit_task,
    smt_balance,
    asym_packing,
    imbalanced,
    overloaded
};

// enum migration_type
enum class migration_type { load, util, task, misfit };

struct sg_lb_stats {
    unsigned long avg_load = 0; // group_load scaled by capacity (overloaded / fully busy only)
    unsigned long group_load = 0;
    unsigned long group_capacity = 0;
    unsigned long group_util = 0;
    unsigned long group_runnable = 0;
    unsigned sum_nr_running = 0;   // every class
    unsigned sum_h_nr_running = 0; // fair tasks
    unsigned idle_cpus = 0;
    unsigned group_weight = 0;
    group_type type = group_type::has_spare;
    bool group_smt_balance = false;
};

// group_is_overloaded(): more tasks than CPUs and the CPUs' capacity used up.
inline bool group_is_overloaded(unsigned imbalance_pct, const sg_lb_stats& s) {
    if (s.sum_nr_running <= s.group_weight)
        return false;
    if (s.group_capacity * 100 < s.group_util * imbalance_pct)
        return true;
    return s.group_capacity * imbalance_pct < s.group_runnable * 100;
}

// group_has_capacity(): room for more.
inline bool group_has_capacity(unsigned imbalance_pct, const sg_lb_stats& s) {
    if (s.sum_nr_running < s.group_weight)
        return true;
    if (s.group_capacity * imbalance_pct < s.group_runnable * 100)
        return false;
    return s.group_capacity * 100 > s.group_util * imbalance_pct;
}

// group_classify(): the first type that fits, busiest first.
inline group_type group_classify(unsigned imbalance_pct, const sched_group& g,
                                 const sg_lb_stats& s) {
    if (group_is_overloaded(imbalance_pct, s))
        return group_type::overloaded;
    if (g.sgc->imbalance)
        return group_type::imbalanced;
    if (s.group_smt_balance)
        return group_type::smt_balance;
    if (!group_has_capacity(imbalance_pct, s))
        return group_type::fully_busy;
    return group_type::has_spare;
}

// avg_load: the group's load per unit of capacity.
inline unsigned long group_avg_load(const sg_lb_stats& s) {
    return s.group_load * sched_capacity_scale / s.group_capacity;
}

} // namespace libsched
