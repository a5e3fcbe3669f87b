#pragma once
// EEVDF entity rules (kernel/sched/fair.c, 6.6 and later): lag, deadline, placement and
// the pick. Release differences are named where they apply.
#include <algorithm>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/fair_params.hpp>
#include <limits>

namespace libsched::eevdf {

// cfs_rq_max_slice() (6.18.17, 6.19.7): the longest slice among curr (if queued) and the
// tree. The kernel's __enqueue_entity() leaves se->max_slice as it was, so with slices of
// different lengths its augmented value can be stale; here it is exact.
inline duration cfs_rq_max_slice(const cfs_rq& q) {
    duration max_slice = 0;
    if (q.curr != nullptr && q.curr->on_rq)
        max_slice = q.curr->slice;
    if (const sched_entity* root = q.tasks_timeline.root())
        max_slice = std::max(max_slice, root->subtree_max_slice);
    return max_slice;
}

// The union of vlag and vprot in 6.17 up to 80390ead2080 (7.0, 6.18.45): what writes one
// writes the other, so a lag written while the entity runs ends its protected slice.
inline void set_vlag(const fair_params& p, sched_entity& se, s64 vlag) {
    se.vlag = vlag;
    if (p.vprot_shares_vlag())
        se.vprot = static_cast<u64>(vlag);
}
inline void set_vprot(const fair_params& p, sched_entity& se, u64 vprot) {
    se.vprot = vprot;
    if (p.vprot_shares_vlag())
        se.vlag = static_cast<s64>(vprot);
}

// update_entity_lag() / entity_lag(): vlag = V - vruntime (V given), clamped to the
// entity's virtual max(2 * slice, TICK_NSEC); from 6.18.17 / 6.19.7 (6e3c0a4e1ad1) to the
// queue's longest slice plus TICK_NSEC.
inline void update_entity_lag_at(const fair_params& p, const cfs_rq& q, u64 v, sched_entity& se) {
    const s64 vlag = static_cast<s64>(v - se.vruntime);
    const u64 tick = static_cast<u64>(p.tun.tick_nsec);
    const u64 span = p.carries(lag_clamp_max_slice)
                         ? static_cast<u64>(cfs_rq_max_slice(q)) + tick
                         : std::max<u64>(2 * static_cast<u64>(se.slice), tick);
    const s64 limit = static_cast<s64>(p.delta_fair(span, se));
    set_vlag(p, se, std::clamp(vlag, -limit, limit));
}
inline void update_entity_lag(const fair_params& p, cfs_rq& q, sched_entity& se) {
    update_entity_lag_at(p, q, avg_vruntime(q), se);
}

// update_deadline(): once vruntime reaches the deadline a new request starts from the
// current vruntime (overshoot is forgiven). Returns true when the request was used up.
inline bool update_deadline(const fair_params& p, sched_entity& se) {
    if (vtime_before(se.vruntime, se.deadline))
        return false;
    if (!se.custom_slice)
        se.slice = p.tun.base_slice;
    se.deadline = se.vruntime + p.delta_fair(static_cast<u64>(se.slice), se);
    return true;
}

// __setparam_fair() (6.12+): a requested slice, clamped to [0.1 ms, 100 ms].
inline constexpr duration min_custom_slice = nsec_per_msec / 10;
inline constexpr duration max_custom_slice = 100 * nsec_per_msec;
inline constexpr duration clamp_custom_slice(duration requested) {
    return std::clamp(requested, min_custom_slice, max_custom_slice);
}

// cfs_rq_min_slice(): the shortest slice among curr (if queued) and the tree.
inline duration cfs_rq_min_slice(const cfs_rq& q) {
    duration min_slice = std::numeric_limits<duration>::max();
    if (q.curr != nullptr && q.curr->on_rq)
        min_slice = q.curr->slice;
    if (const sched_entity* root = q.tasks_timeline.root())
        min_slice = std::min(min_slice, root->subtree_min_slice);
    return min_slice;
}

// 6.17+ set_protect_slice(): the end of the slice the entity may run undisturbed, the
// shortest slice queued with it under RUN_TO_PARITY.
inline void set_protect_slice(const fair_params& p, const cfs_rq& q, sched_entity& se) {
    duration slice =
        p.feat(feature::run_to_parity) ? cfs_rq_min_slice(q) : normalized_base_slice(p.version);
    slice = std::min(slice, se.slice);
    u64 vprot = se.deadline;
    if (slice != se.slice)
        vprot = vtime_min(vprot, se.vruntime + p.delta_fair(static_cast<u64>(slice), se));
    set_vprot(p, se, vprot);
}

// 6.17+ update_protect_slice(): a wakee that did not preempt still shortens curr's
// protection to the shortest slice now queued.
inline void update_protect_slice(const fair_params& p, const cfs_rq& q, sched_entity& se) {
    const duration slice = cfs_rq_min_slice(q);
    set_vprot(p, se, vtime_min(se.vprot, se.vruntime + p.delta_fair(static_cast<u64>(slice), se)));
}

// protect_slice(): 6.17+ still inside vprot; 6.6-6.16 the vlag == deadline marker of the
// pick is intact.
inline bool protect_slice(const fair_params& p, const sched_entity& curr) {
    if (p.since(6, 17))
        return static_cast<s64>(curr.vprot - curr.vruntime) > 0;
    return static_cast<u64>(curr.vlag) == curr.deadline;
}

// Cancels the run-to-parity protection of curr (PREEMPT_SHORT).
inline void cancel_protect_slice(const fair_params& p, sched_entity& curr) {
    if (!protect_slice(p, curr))
        return;
    if (p.since(6, 17))
        set_vprot(p, curr, curr.vruntime);
    else
        curr.vlag = static_cast<s64>(curr.deadline + 1);
}

// place_entity(): vruntime = V - lag, the saved lag inflated so that it survives the
// entity's own effect on V; deadline one virtual slice later (half for new tasks).
inline void place_entity(const fair_params& p, cfs_rq& q, sched_entity& se, enqueue_flags flags) {
    const u64 v = avg_vruntime(q);
    s64 lag = 0;
    if (!se.custom_slice)
        se.slice = p.tun.base_slice;
    u64 vslice = p.delta_fair(static_cast<u64>(se.slice), se);

    // 6.12+ also skips a zero lag; the result is the same.
    if (p.feat(feature::place_lag) && q.nr_queued > 0 && se.vlag != 0) {
        u64 load = q.avg_load;
        if (q.curr != nullptr && q.curr->on_rq)
            load += scale_load_down(q.curr->load.weight);
        lag = se.vlag * static_cast<s64>(load + scale_load_down(se.load.weight));
        if (load == 0)
            load = 1;
        lag /= static_cast<s64>(load); // div_s64 truncates toward zero, as does C++
    }
    se.vruntime = v - static_cast<u64>(lag);

    if (se.rel_deadline) { // 6.12+ PLACE_REL_DEADLINE
        se.deadline += se.vruntime;
        se.rel_deadline = false;
        return;
    }
    if (p.feat(feature::place_deadline_initial) && has(flags, enqueue_flags::initial))
        vslice /= 2;
    se.deadline = se.vruntime + vslice;
}

// pick_eevdf(): the eligible entity with the earliest virtual deadline, curr included,
// unless curr is still protected (RUN_TO_PARITY). The tree is ordered by deadline and
// augmented with the minimum vruntime (6.8+); 6.6-6.7 ordered by vruntime and searched
// by min_deadline, with the same result except the order among equal deadlines.
inline sched_entity* pick_eevdf(const fair_params& p, cfs_rq& q, bool protect = true) {
    sched_entity* first = q.tasks_timeline.first();
    sched_entity* curr = q.curr;
    sched_entity* best = nullptr;

    if (p.since(6, 8) && q.nr_queued == 1)
        return curr != nullptr && curr->on_rq ? curr : first;
    // 6.19, 6.18.33 (e837456fdca8): the next buddy, if eligible, here rather than in
    // pick_next_entity(), so that the wakeup test sees it too.
    if (p.reworked_next_buddy() && p.feat(feature::pick_buddy) && q.next != nullptr &&
        entity_eligible(q, *q.next))
        return q.next;

    if (curr != nullptr && (!curr->on_rq || !entity_eligible(q, *curr)))
        curr = nullptr;
    // RUN_TO_PARITY: before 6.17 a feature test here; from 6.17 it sizes vprot instead.
    const bool parity = p.since(6, 17) || p.feat(feature::run_to_parity);
    if (curr != nullptr && protect && parity && protect_slice(p, *curr))
        return curr;

    if (first != nullptr && entity_eligible(q, *first)) {
        best = first;
    } else {
        const detail::rb_node* node = q.tasks_timeline.root();
        while (node != nullptr) {
            const detail::rb_node* left = node->rb_left;
            if (left != nullptr && vruntime_eligible(q, left->subtree_min_vruntime)) {
                node = left;
                continue;
            }
            auto* se = const_cast<sched_entity*>(detail::entity(node));
            if (entity_eligible(q, *se)) {
                best = se;
                break;
            }
            node = node->rb_right;
        }
    }
    if (best == nullptr || (curr != nullptr && vtime_before(curr->deadline, best->deadline)))
        best = curr;
    return best != nullptr ? best : first; // the kernel's "EEVDF scheduling fail" fallback
}

// do_preempt_short() (6.12+): a wakee with a shorter slice may cut curr's protection.
inline bool do_preempt_short(const fair_params& p, cfs_rq& q, const sched_entity& pse,
                             const sched_entity& se) {
    if (!p.feat(feature::preempt_short) || pse.slice >= se.slice)
        return false;
    if (!entity_eligible(q, pse))
        return false;
    return vtime_before(pse.deadline, se.deadline) || !entity_eligible(q, se);
}

} // namespace libsched::eevdf
