#pragma once
// struct cfs_rq (kernel/sched/sched.h) and the bookkeeping behind V, the load-weighted
// average vruntime (fair.c avg_vruntime_add/sub/update, avg_vruntime, vruntime_eligible,
// update_min_vruntime), as kernels 6.6-6.18 keep it relative to min_vruntime.
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/detail/timeline.hpp>
#include <libsched/sched/sched_avg.hpp>
#include <list>

namespace libsched {

struct rq;
struct task;
struct task_group;

struct cfs_rq {
    detail::timeline tasks_timeline;
    sched_entity* curr = nullptr; // running entity; kept outside the tree
    sched_entity* next = nullptr; // buddies
    sched_entity* last = nullptr; // old CFS LAST_BUDDY
    sched_entity* skip = nullptr; // old CFS: the entity that yielded (sched_yield())

    load_weight load;       // all queued entities, curr and delayed ones included
    unsigned nr_queued = 0; // entities queued here (nr_running before 6.14); delayed count
    // Tasks queued in this queue and the groups below it (h_nr_running before 6.14), of
    // them SCHED_IDLE ones (idle_h_nr_running) and, 6.12+, delayed ones (h_nr_delayed).
    unsigned h_nr_queued = 0;
    unsigned h_nr_idle = 0;
    unsigned h_nr_delayed = 0;

    // Sum of (vruntime - min_vruntime) * w and sum of w over the tree, w at 1024
    // resolution (scale_load_down). Curr is added on the fly by readers. Each term is about
    // the entity's lag in real time times 1024, whatever its weight, so a group entity's
    // weight (up to 2^18 at this resolution) fits as well as a task's.
    s64 avg_vruntime_sum = 0;
    u64 avg_load = 0;

    // Starts just below zero so that wraparound paths run early (init_cfs_rq).
    u64 min_vruntime = static_cast<u64>(-(s64{1} << 20));

    // PELT (sched/pelt.hpp): the queue's signals, its entities' blocked load included, and
    // the averages of entities that left while asleep (migrated at wakeup, exited), taken
    // off at the queue's next update (cfs_rq->removed).
    sched_avg avg;
    struct {
        unsigned nr = 0;
        u64 load_avg = 0;
        u64 util_avg = 0;
        u64 runnable_avg = 0;
    } removed;

    struct rq* rq = nullptr; // the CPU's run queue this queue belongs to (rq_of())
    // The task group owning the queue (the root group for a CPU's rq->cfs) and the queue's
    // part of the group's load_avg as last published (update_tg_load_avg()).
    struct task_group* tg = nullptr;
    u64 tg_load_avg_contrib = 0;
    // Group scheduling's PELT (fair.c): a group queue's load change waiting to reach the
    // group entity above (propagate, prop_runnable_sum: add_tg_cfs_propagate()), when
    // tg->load_avg last took this queue's part (6.7+ rate limit), whether the queue is on
    // its rq's leaf list (update_blocked_averages() visits it), cpu.idle of its group.
    bool propagate = false;
    s64 prop_runnable_sum = 0;
    sim_time last_update_tg_load_avg = -1'000'000; // the first update is never held back
    bool on_list = false;
    bool idle = false;

    // CFS bandwidth control (sched/bandwidth.hpp), all unused while the group has no quota:
    // the runtime this CPU holds from the group's pool, whether the queue is throttled,
    // how many queues of it and above it are (throttled_hierarchy()), and since when the
    // queue's throttled time counts (rq clock; 0: not counting). 6.18+: the tasks of this
    // queue that a throttle of it or of a queue above it has parked, most recent first
    // (throttled_limbo_list); they are on no run queue until the unthrottle.
    bool runtime_enabled = false;
    s64 runtime_remaining = 0;
    bool throttled = false;
    int throttle_count = 0;
    sim_time throttled_clock = 0;
    // The queue's PELT clock stands still while it is throttled (tg_throttle_down(); 6.18+
    // only once the queue has emptied): since when (rq_clock_pelt()), and for how long it
    // has stood still in all (cfs_rq_clock_pelt() leaves that out).
    bool pelt_clock_throttled = false;
    u64 throttled_clock_pelt = 0;
    u64 throttled_clock_pelt_time = 0;
    std::list<task*> throttled_limbo_list;

    // The tree is ordered by deadline (EEVDF) or by vruntime (old CFS): fair_params says.
    explicit cfs_rq(bool by_deadline = true) : tasks_timeline(by_deadline) {}
    cfs_rq(const cfs_rq&) = delete;
    cfs_rq& operator=(const cfs_rq&) = delete;
};

inline struct rq& rq_of(const cfs_rq& q) {
    return *q.rq;
}

// update_load_add/sub/set: a changed sum needs a new inverse.
inline void update_load_add(load_weight& lw, u64 inc) {
    lw.weight += inc;
    lw.inv_weight = 0;
}
inline void update_load_sub(load_weight& lw, u64 dec) {
    lw.weight -= dec;
    lw.inv_weight = 0;
}

inline s64 entity_key(const cfs_rq& q, const sched_entity& se) {
    return static_cast<s64>(se.vruntime - q.min_vruntime);
}

inline void avg_vruntime_add(cfs_rq& q, const sched_entity& se) {
    const u64 w = scale_load_down(se.load.weight);
    q.avg_vruntime_sum += entity_key(q, se) * static_cast<s64>(w);
    q.avg_load += w;
}
inline void avg_vruntime_sub(cfs_rq& q, const sched_entity& se) {
    const u64 w = scale_load_down(se.load.weight);
    q.avg_vruntime_sum -= entity_key(q, se) * static_cast<s64>(w);
    q.avg_load -= w;
}
// min_vruntime moved by delta: keep V where it was.
inline void avg_vruntime_update(cfs_rq& q, s64 delta) {
    q.avg_vruntime_sum -= static_cast<s64>(q.avg_load) * delta;
}

// Σ (v − min_vruntime)·w and Σ w over the queue, curr added if it is still queued.
struct weighted_sum {
    s64 avg;
    s64 load;
};
inline weighted_sum queue_sums(const cfs_rq& q) {
    weighted_sum s{q.avg_vruntime_sum, static_cast<s64>(q.avg_load)};
    if (const sched_entity* c = q.curr; c && c->on_rq) {
        const s64 w = static_cast<s64>(scale_load_down(c->load.weight));
        s.avg += entity_key(q, *c) * w;
        s.load += w;
    }
    return s;
}

// avg_vruntime(): V, rounded towards -inf so that an entity exactly at V is eligible.
inline u64 avg_vruntime(const cfs_rq& q) {
    auto [avg, load] = queue_sums(q);
    if (load != 0) {
        if (avg < 0)
            avg -= load - 1;
        avg /= load;
    }
    return q.min_vruntime + static_cast<u64>(avg);
}

// vruntime_eligible(): lag >= 0 without a division, exactly as the kernel compares.
inline bool vruntime_eligible(const cfs_rq& q, u64 vruntime) {
    const auto [avg, load] = queue_sums(q);
    return avg >= static_cast<s64>(vruntime - q.min_vruntime) * load;
}

inline bool entity_eligible(const cfs_rq& q, const sched_entity& se) {
    return vruntime_eligible(q, se.vruntime);
}

// __enqueue_entity / __dequeue_entity: the raw tree plus the weighted sums.
inline void timeline_insert(cfs_rq& q, sched_entity& se) {
    avg_vruntime_add(q, se);
    q.tasks_timeline.insert(se);
}
inline void timeline_erase(cfs_rq& q, sched_entity& se) {
    q.tasks_timeline.erase(se);
    avg_vruntime_sub(q, se);
}

// update_min_vruntime(): the smallest of curr and the tree, never moving backwards.
inline void update_min_vruntime(cfs_rq& q) {
    const sched_entity* c = q.curr;
    u64 v = q.min_vruntime;
    if (c != nullptr) {
        if (c->on_rq)
            v = c->vruntime;
        else
            c = nullptr;
    }
    if (!q.tasks_timeline.empty()) {
        const u64 tree_min = q.tasks_timeline.min_vruntime();
        v = c == nullptr ? tree_min : vtime_min(v, tree_min);
    }
    const s64 delta = static_cast<s64>(v - q.min_vruntime);
    if (delta > 0) {
        avg_vruntime_update(q, delta);
        q.min_vruntime = v;
    }
}

// account_entity_enqueue / account_entity_dequeue
inline void account_entity_enqueue(cfs_rq& q, sched_entity& se) {
    update_load_add(q.load, se.load.weight);
    ++q.nr_queued;
}
inline void account_entity_dequeue(cfs_rq& q, sched_entity& se) {
    update_load_sub(q.load, se.load.weight);
    --q.nr_queued;
}

} // namespace libsched
