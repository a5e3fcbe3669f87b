#pragma once
// Old CFS entity rules (kernel/sched/fair.c before 6.6, modelled on 5.15/6.1): period and
// slice, sleeper credit and START_DEBIT, tick and wakeup preemption, buddies.
#include <initializer_list>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/rq.hpp>

namespace libsched::cfs {

// __sched_period(): sched_latency, stretched to nr * min_granularity past sched_nr_latency.
inline u64 sched_period(const fair_params& p, u64 nr_running) {
    if (nr_running > p.tun.nr_latency)
        return nr_running * static_cast<u64>(p.tun.min_granularity);
    return static_cast<u64>(p.tun.latency);
}

// Whether se is an idle entity that sched_slice() and place_entity() treat apart: 5.16's
// SCHED_IDLE series (after 5.15's cpu.idle) gave them a lower slice floor and less sleeper
// credit; 5.15 treats them as any entity.
inline bool reduced_idle_entity(const fair_params& p, const sched_entity& se) {
    return p.since(5, 16) && se_is_idle(se);
}

// sched_slice(): the entity's weighted share of the period, and of each queue above it.
// With ALT_PERIOD (5.13+, on by default) the period counts the tasks on the CPU
// (rq->cfs.h_nr_running), before it the entity's queue's entities.
inline u64 sched_slice(const fair_params& p, const cfs_rq& q, const sched_entity& se) {
    const u64 nr = (p.since(5, 13) ? rq_of(q).cfs.h_nr_queued : q.nr_queued) + (se.on_rq ? 0u : 1u);
    u64 slice = sched_period(p, nr);
    for (const sched_entity* e = &se; e != nullptr; e = e->parent) {
        load_weight lw = (e == &se ? q : *e->cfs_rq).load;
        if (!e->on_rq) {
            lw.weight += e->load.weight;
            lw.inv_weight = 0;
        }
        slice = calc_delta(slice, e->load.weight, lw, p.delta_mode);
    }
    if (p.feat(feature::base_slice)) {
        // se_is_idle() && !sched_idle_cfs_rq(): a SCHED_IDLE entity's floor is lower unless
        // the queue holds nothing else (5.16+).
        const bool idle_rq = q.nr_queued > 0 && q.nr_queued == q.h_nr_idle;
        const bool idle = reduced_idle_entity(p, se) && !idle_rq;
        const u64 min_gran =
            static_cast<u64>(idle ? p.tun.idle_min_granularity : p.tun.min_granularity);
        slice = std::max(slice, min_gran);
    }
    return slice;
}

// sched_vslice(): the slice in the entity's virtual time.
inline u64 sched_vslice(const fair_params& p, const cfs_rq& q, sched_entity& se) {
    return p.delta_fair(sched_slice(p, q, se), se);
}

// place_entity(): new tasks start a virtual slice behind min_vruntime (START_DEBIT);
// sleepers get at most latency/2 of credit (GENTLE_FAIR_SLEEPERS; 5.16+ a SCHED_IDLE
// entity min_granularity/2) and never move back.
inline void place_entity(const fair_params& p, cfs_rq& q, sched_entity& se, bool initial) {
    u64 v = q.min_vruntime;
    if (initial && p.feat(feature::start_debit))
        v += sched_vslice(p, q, se);
    if (!initial) {
        u64 thresh =
            static_cast<u64>(reduced_idle_entity(p, se) ? p.tun.min_granularity : p.tun.latency);
        if (p.feat(feature::gentle_fair_sleepers))
            thresh >>= 1;
        v -= thresh;
    }
    se.vruntime = vtime_max(se.vruntime, v);
}

// wakeup_gran(): the wakeup granularity in the wakee's virtual time.
inline u64 wakeup_gran(const fair_params& p, sched_entity& se) {
    return p.delta_fair(static_cast<u64>(p.tun.wakeup_granularity), se);
}

// wakeup_preempt_entity(): 1 if se is far enough left of curr to preempt it, -1 if it is
// not left at all, 0 in between.
inline int wakeup_preempt_entity(const fair_params& p, const sched_entity& curr, sched_entity& se) {
    const s64 vdiff = static_cast<s64>(curr.vruntime - se.vruntime);
    if (vdiff <= 0)
        return -1;
    if (static_cast<u64>(vdiff) > wakeup_gran(p, se))
        return 1;
    return 0;
}

// __clear_buddies_last/next/skip(): the buddy of the queue q, and of each queue above for
// as long as it names se's ancestor on that level.
inline void clear_buddy_upwards(sched_entity* cfs_rq::*buddy, cfs_rq& q, sched_entity& se) {
    cfs_rq* level = &q;
    for (sched_entity* e = &se; level->*buddy == e;) {
        level->*buddy = nullptr;
        e = e->parent;
        if (e == nullptr)
            return;
        level = &cfs_rq_of(*e);
    }
}

// clear_buddies() before 6.6: the last, next and skip buddies that name se.
inline void clear_buddies(cfs_rq& q, sched_entity& se) {
    for (sched_entity* cfs_rq::*buddy : {&cfs_rq::last, &cfs_rq::next, &cfs_rq::skip})
        clear_buddy_upwards(buddy, q, se);
}

// pick_next_entity(): the leftmost (or curr if further left), passed over for the one after
// it if it is the skip buddy and that one is not more than a wakeup granularity ahead; then
// the next and last buddies.
inline sched_entity* pick_next_entity(const fair_params& p, cfs_rq& q, sched_entity* curr) {
    sched_entity* left = q.tasks_timeline.first();
    if (left == nullptr || (curr != nullptr && vtime_before(curr->vruntime, left->vruntime)))
        left = curr;
    sched_entity* se = left;
    if (q.skip != nullptr && q.skip == se) {
        sched_entity* second = nullptr;
        if (se == curr) {
            second = q.tasks_timeline.first();
        } else {
            second = q.tasks_timeline.next(*se);
            if (second == nullptr ||
                (curr != nullptr && vtime_before(curr->vruntime, second->vruntime)))
                second = curr;
        }
        if (second != nullptr && wakeup_preempt_entity(p, *second, *left) < 1)
            se = second;
    }
    if (q.next != nullptr && wakeup_preempt_entity(p, *q.next, *left) < 1)
        se = q.next;
    else if (q.last != nullptr && wakeup_preempt_entity(p, *q.last, *left) < 1)
        se = q.last;
    return se;
}

// check_preempt_tick(): resched once curr ran more than its ideal slice, or (after
// min_granularity) once it is more than a slice of vruntime ahead of the leftmost.
inline bool check_preempt_tick(const fair_params& p, cfs_rq& q, sched_entity& curr) {
    const u64 ideal = sched_slice(p, q, curr);
    const u64 ran = static_cast<u64>(curr.sum_exec_runtime - curr.prev_sum_exec_runtime);
    if (ran > ideal) {
        clear_buddies(q, curr);
        return true;
    }
    if (ran < static_cast<u64>(p.tun.min_granularity))
        return false;
    const sched_entity* se = q.tasks_timeline.first();
    if (se == nullptr)
        return false;
    const s64 delta = static_cast<s64>(curr.vruntime - se->vruntime);
    return delta > 0 && static_cast<u64>(delta) > ideal;
}

} // namespace libsched::cfs
