#pragma once
// Per-entity load tracking of the fair class: the per-object updates of kernel/sched/pelt.c
// (__update_load_avg_se, __update_load_avg_cfs_rq, __update_load_avg_blocked_se) and
// fair.c's bookkeeping around them (update_load_avg, attach/detach/remove, util_est, the
// new-task initialisation, update_blocked_averages), plus the readers load balancing and
// wakeup placement use (cpu_load, cpu_util_cfs, task_h_load...).
//
// The PELT clock is the rq's clock_task: capacity is symmetric (1024 on every CPU) and
// there is no frequency invariance, so rq_clock_pelt() never runs slower than it. With
// task groups (CONFIG_FAIR_GROUP_SCHED) a group entity's signals follow its queue's:
// load changes below propagate up (propagate_entity_load_avg()), each group queue
// publishes its load in tg->load_avg (update_tg_load_avg()), which calc_group_shares()
// (fair.hpp) divides the group's shares by.
#include <algorithm>
#include <libsched/sched/flags.hpp>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/sched_avg.hpp>
#include <libsched/sched/task_group.hpp>

namespace libsched {

// update_load_avg()'s flags (fair.c).
enum class update_load_flags : unsigned {
    none = 0,
    update_tg = 0x1,     // UPDATE_TG: publish the queue's load in its group's tg->load_avg
    skip_age_load = 0x2, // SKIP_AGE_LOAD: do not age the entity
    do_attach = 0x4,     // DO_ATTACH: attach a migrated (last_update_time 0) entity
    do_detach = 0x8,     // DO_DETACH: detach an entity leaving for another CPU
};
template <> inline constexpr bool is_flag_mask<update_load_flags> = true;

// rq_clock_pelt(): clock_task, counted from one PELT period before the simulation's time 0
// so that a last_update_time of 0 keeps the kernel's meaning ("not attached to any queue")
// from the first instant.
inline constexpr u64 pelt_clock_origin = u64{1024} << 10;
inline u64 rq_clock_pelt(const rq& r) {
    return pelt_clock_origin + static_cast<u64>(r.clock_task);
}
// cfs_rq_clock_pelt(): the rq's, less the time the queue's clock stood still under CFS
// bandwidth throttling (sched/bandwidth.hpp); standing still while it does.
inline u64 cfs_rq_clock_pelt(const cfs_rq& q) {
    if (q.pelt_clock_throttled)
        return q.throttled_clock_pelt - q.throttled_clock_pelt_time;
    return rq_clock_pelt(rq_of(q)) - q.throttled_clock_pelt_time;
}

// se_weight(): the weight at 1024 resolution.
inline u64 se_weight(const sched_entity& se) {
    return scale_load_down(se.load.weight);
}

// se_runnable(): a task's entity is runnable while queued, a group entity counts its
// queue's runnable tasks (runnable_weight); 6.13+ (76f2f783294d) neither while delayed.
inline u64 se_runnable(const fair_params& fp, const sched_entity& se) {
    if (se.sched_delayed && fp.since(6, 13))
        return 0;
    if (!entity_is_task(se))
        return se.runnable_weight;
    return se.on_rq ? 1 : 0;
}

// The runnable count a queue's signal follows: h_nr_running, which counts delayed tasks,
// before 6.13; h_nr_running - h_nr_delayed (6.13, 76f2f783294d), h_nr_runnable from 6.14.
inline u64 cfs_rq_runnable(const fair_params& fp, const cfs_rq& q) {
    return q.h_nr_queued - (fp.since(6, 13) ? q.h_nr_delayed : 0u);
}

// cfs_se_util_change(): util_avg moved, so the next dequeue may sample it again.
inline void cfs_se_util_change(sched_avg& sa) {
    sa.util_est.enqueued &= ~util_avg_unchanged;
    sa.util_est.ewma &= ~util_avg_unchanged;
}

// __update_load_avg_blocked_se(): age an entity that is on no queue.
inline bool update_load_avg_blocked_se(u64 now, sched_entity& se) {
    if (!update_load_sum(now, se.avg, 0, 0, false))
        return false;
    update_load_avg_from_sums(se.avg, se_weight(se));
    return true;
}

// __update_load_avg_se(): load while queued, runnable, running while it is q's curr.
inline bool update_load_avg_se(const fair_params& fp, u64 now, const cfs_rq& q, sched_entity& se) {
    if (!update_load_sum(now, se.avg, se.on_rq ? 1 : 0, se_runnable(fp, se), q.curr == &se))
        return false;
    update_load_avg_from_sums(se.avg, se_weight(se));
    cfs_se_util_change(se.avg);
    return true;
}

// __update_load_avg_cfs_rq(): load = the queue's weight, runnable = its runnable tasks,
// running while it has a curr; averaged with weight 1 (the load is already weighted).
inline bool update_load_avg_cfs_rq(const fair_params& fp, u64 now, cfs_rq& q) {
    if (!update_load_sum(now, q.avg, scale_load_down(q.load.weight), cfs_rq_runnable(fp, q),
                         q.curr != nullptr))
        return false;
    update_load_avg_from_sums(q.avg, 1);
    return true;
}

namespace detail {

// sub_positive(): subtract, clamping at zero.
template <class T> void sub_positive(T& var, u64 val) {
    var = var > val ? static_cast<T>(var - val) : T{0};
}

// An average and its sum taken off a queue's. 5.17+ (the "relax the sync of *_sum with
// *_avg" commits) subtract the sum too and keep it no lower than avg * PELT_MIN_DIVIDER,
// compared as u32 as the kernel's max_t(u32, ...) does; before, the sum was re-derived
// as avg * divider.
template <class Sum>
void take_off(const fair_params& fp, u64& avg, Sum& sum, u64 d_avg, u64 d_sum, u32 divider) {
    sub_positive(avg, d_avg);
    if (!fp.since(5, 17)) {
        sum = static_cast<Sum>(avg * divider);
        return;
    }
    sub_positive(sum, d_sum);
    sum = std::max(static_cast<u32>(sum), static_cast<u32>(avg * pelt_min_divider));
}

// add_positive(): add a signed delta, clamping at zero.
template <class T> void add_positive(T& var, s64 delta) {
    const s64 res = static_cast<s64>(var) + delta;
    var = res < 0 ? T{0} : static_cast<T>(res);
}

} // namespace detail

// add_tg_cfs_propagate(): a load change of q (attach, detach, removal) for the group
// entity above to take at its next update.
inline void add_tg_cfs_propagate(cfs_rq& q, s64 runnable_sum) {
    q.propagate = true;
    q.prop_runnable_sum += runnable_sum;
}

// enqueue_load_avg() / dequeue_load_avg(): an entity's load in its queue's.
inline void enqueue_load_avg(cfs_rq& q, const sched_entity& se) {
    q.avg.load_avg += se.avg.load_avg;
    q.avg.load_sum += se_weight(se) * se.avg.load_sum;
}
inline void dequeue_load_avg(const fair_params& fp, cfs_rq& q, const sched_entity& se) {
    detail::take_off(fp, q.avg.load_avg, q.avg.load_sum, se.avg.load_avg,
                     se_weight(se) * se.avg.load_sum, get_pelt_divider(q.avg));
}

// attach_entity_load_avg(): an entity joins q's signals, aligned on q's period (its sums
// re-derived from its averages at q's position in the period).
inline void attach_entity_load_avg(cfs_rq& q, sched_entity& se) {
    const u32 divider = get_pelt_divider(q.avg);
    se.avg.last_update_time = q.avg.last_update_time;
    se.avg.period_contrib = q.avg.period_contrib;
    se.avg.util_sum = static_cast<u32>(se.avg.util_avg * divider);
    se.avg.runnable_sum = se.avg.runnable_avg * divider;
    se.avg.load_sum = se.avg.load_avg * divider;
    // 5.18+ (40f5aa4c5eae): never 0 while load_avg is not; earlier releases could truncate
    // a tiny load to a load_sum of 0 (not modelled).
    se.avg.load_sum = se_weight(se) < se.avg.load_sum ? se.avg.load_sum / se_weight(se) : 1;
    enqueue_load_avg(q, se);
    q.avg.util_avg += se.avg.util_avg;
    q.avg.util_sum += se.avg.util_sum;
    q.avg.runnable_avg += se.avg.runnable_avg;
    q.avg.runnable_sum += se.avg.runnable_sum;
    add_tg_cfs_propagate(q, static_cast<s64>(se.avg.load_sum));
}

// detach_entity_load_avg(): an entity leaves q's signals now.
inline void detach_entity_load_avg(const fair_params& fp, cfs_rq& q, const sched_entity& se) {
    const u32 divider = get_pelt_divider(q.avg);
    dequeue_load_avg(fp, q, se);
    detail::take_off(fp, q.avg.util_avg, q.avg.util_sum, se.avg.util_avg, se.avg.util_sum, divider);
    detail::take_off(fp, q.avg.runnable_avg, q.avg.runnable_sum, se.avg.runnable_avg,
                     se.avg.runnable_sum, divider);
    add_tg_cfs_propagate(q, -static_cast<s64>(se.avg.load_sum));
}

// update_cfs_rq_load_avg(): take off what was removed meanwhile, then age the queue; true
// if its averages changed.
inline bool update_cfs_rq_load_avg(const fair_params& fp, u64 now, cfs_rq& q) {
    bool decayed = false;
    if (q.removed.nr != 0) {
        const u32 divider = get_pelt_divider(q.avg);
        const auto removed = q.removed;
        q.removed = {};
        detail::take_off(fp, q.avg.load_avg, q.avg.load_sum, removed.load_avg,
                         removed.load_avg * divider, divider);
        detail::take_off(fp, q.avg.util_avg, q.avg.util_sum, removed.util_avg,
                         removed.util_avg * divider, divider);
        detail::take_off(fp, q.avg.runnable_avg, q.avg.runnable_sum, removed.runnable_avg,
                         removed.runnable_avg * divider, divider);
        // The unweighted removed runnable estimates the removed load_sum.
        add_tg_cfs_propagate(q, -static_cast<s64>(removed.runnable_avg * divider) >>
                                    sched_capacity_shift);
        decayed = true;
    }
    return update_load_avg_cfs_rq(fp, now, q) || decayed;
}

// update_tg_load_avg(): publish a group queue's load_avg in tg->load_avg when it moved by
// more than 1/64 of what was published (nothing for the root group). 6.7+ (1528c661c24b)
// at most once a millisecond per queue, by the CPU's clock.
inline void update_tg_load_avg(const fair_params& fp, cfs_rq& q) {
    if (q.tg == nullptr || q.tg->is_root())
        return;
    const sim_time now = rq_of(q).clock;
    if (fp.since(6, 7) && now - q.last_update_tg_load_avg < nsec_per_msec)
        return;
    const s64 delta = static_cast<s64>(q.avg.load_avg) - static_cast<s64>(q.tg_load_avg_contrib);
    if (static_cast<u64>(delta < 0 ? -delta : delta) > q.tg_load_avg_contrib / 64) {
        q.tg->load_avg += delta;
        q.tg_load_avg_contrib = q.avg.load_avg;
        q.last_update_tg_load_avg = now;
    }
}

// update_tg_cfs_util() / update_tg_cfs_runnable(): the group entity takes its queue's
// average, and its parent queue the difference. 5.17+ move the sums by the difference
// too (kept no lower than avg * PELT_MIN_DIVIDER); before, re-derived from the averages.
template <class Sum>
void update_tg_cfs_signal(const fair_params& fp, cfs_rq& q, u64& se_avg, Sum& se_sum, u64 group_avg,
                          u64& q_avg, Sum& q_sum) {
    const s64 delta_avg = static_cast<s64>(group_avg) - static_cast<s64>(se_avg);
    if (delta_avg == 0)
        return;
    const u32 divider = get_pelt_divider(q.avg);
    se_avg = group_avg;
    const u64 new_sum = se_avg * divider;
    const s64 delta_sum = static_cast<s64>(new_sum) - static_cast<s64>(se_sum);
    se_sum = static_cast<Sum>(new_sum);
    detail::add_positive(q_avg, delta_avg);
    if (!fp.since(5, 17)) {
        q_sum = static_cast<Sum>(q_avg * divider);
        return;
    }
    detail::add_positive(q_sum, delta_sum);
    q_sum = std::max(static_cast<u32>(q_sum), static_cast<u32>(q_avg * pelt_min_divider));
}

// update_tg_cfs_load(): the load propagated from below becomes the group entity's
// runnable sum (added and clipped at the divider, or for a removal estimated from the
// queue's load per weight, never above the entity's), at least its running sum; the
// entity's load follows at its weight, and its parent queue's by the difference.
inline void update_tg_cfs_load(const fair_params& fp, cfs_rq& q, sched_entity& se, cfs_rq& gq) {
    s64 runnable_sum = gq.prop_runnable_sum;
    if (runnable_sum == 0)
        return;
    gq.prop_runnable_sum = 0;
    const u32 divider = get_pelt_divider(q.avg);
    if (runnable_sum >= 0) {
        runnable_sum += static_cast<s64>(se.avg.load_sum);
        runnable_sum = std::min<s64>(runnable_sum, divider);
    } else {
        u64 load_sum = 0;
        if (const u64 w = scale_load_down(gq.load.weight); w != 0)
            load_sum = gq.avg.load_sum / w;
        runnable_sum = static_cast<s64>(std::min(se.avg.load_sum, load_sum));
    }
    const auto running_sum = static_cast<s64>(se.avg.util_sum >> sched_capacity_shift);
    runnable_sum = std::max(runnable_sum, running_sum);
    const u64 load_sum = se_weight(se) * static_cast<u64>(runnable_sum);
    const u64 load_avg = load_sum / divider;
    const s64 delta_avg = static_cast<s64>(load_avg) - static_cast<s64>(se.avg.load_avg);
    if (!fp.since(5, 17)) {
        se.avg.load_sum = static_cast<u64>(runnable_sum);
        if (delta_avg == 0)
            return;
        se.avg.load_avg = load_avg;
        detail::add_positive(q.avg.load_avg, delta_avg);
        q.avg.load_sum = q.avg.load_avg * divider;
        return;
    }
    if (delta_avg == 0)
        return;
    const s64 delta_sum =
        static_cast<s64>(load_sum) - static_cast<s64>(se_weight(se) * se.avg.load_sum);
    se.avg.load_sum = static_cast<u64>(runnable_sum);
    se.avg.load_avg = load_avg;
    detail::add_positive(q.avg.load_avg, delta_avg);
    detail::add_positive(q.avg.load_sum, delta_sum);
    q.avg.load_sum = std::max(static_cast<u32>(q.avg.load_sum),
                              static_cast<u32>(q.avg.load_avg * pelt_min_divider));
}

// propagate_entity_load_avg(): a group entity whose queue changed (attach, detach,
// removal below) takes the change, and passes it on to its own queue; true if it did.
inline bool propagate_entity_load_avg(const fair_params& fp, sched_entity& se) {
    if (entity_is_task(se))
        return false;
    cfs_rq& gq = *group_cfs_rq(se);
    if (!gq.propagate)
        return false;
    gq.propagate = false;
    cfs_rq& q = cfs_rq_of(se);
    add_tg_cfs_propagate(q, gq.prop_runnable_sum);
    update_tg_cfs_signal(fp, q, se.avg.util_avg, se.avg.util_sum, gq.avg.util_avg, q.avg.util_avg,
                         q.avg.util_sum);
    update_tg_cfs_signal(fp, q, se.avg.runnable_avg, se.avg.runnable_sum, gq.avg.runnable_avg,
                         q.avg.runnable_avg, q.avg.runnable_sum);
    update_tg_cfs_load(fp, q, se, gq);
    return true;
}

// update_load_avg(): bring an entity (unless SKIP_AGE_LOAD, or it is not attached) and its
// queue up to the PELT clock, take what a group entity's queue propagates; attach an
// entity that arrives from another CPU (DO_ATTACH with last_update_time 0) or detach one
// that leaves (DO_DETACH); then (on those, or with UPDATE_TG when the queue's averages
// changed) publish a group queue's load in its group's.
inline void update_load_avg(const fair_params& fp, cfs_rq& q, sched_entity& se,
                            update_load_flags flags) {
    const u64 now = cfs_rq_clock_pelt(q);
    if (se.avg.last_update_time != 0 && !has(flags, update_load_flags::skip_age_load))
        update_load_avg_se(fp, now, q, se);
    bool decayed = update_cfs_rq_load_avg(fp, now, q);
    decayed = propagate_entity_load_avg(fp, se) || decayed;
    if (se.avg.last_update_time == 0 && has(flags, update_load_flags::do_attach)) {
        attach_entity_load_avg(q, se);
        update_tg_load_avg(fp, q);
    } else if (has(flags, update_load_flags::do_detach)) {
        detach_entity_load_avg(fp, q, se);
        update_tg_load_avg(fp, q);
    } else if (decayed && has(flags, update_load_flags::update_tg)) {
        update_tg_load_avg(fp, q);
    }
}

// remove_entity_load_avg(): a sleeping entity leaves q without taking q's lock (migrated
// at wakeup, or its task died): aged to q's last update, its averages are queued in
// q.removed for q's next update. 6.0+ also age it by an estimate of q's idle time since
// then (migrate_se_pelt_lag); not modelled.
inline void remove_entity_load_avg(cfs_rq& q, sched_entity& se) {
    update_load_avg_blocked_se(q.avg.last_update_time, se); // sync_entity_load_avg()
    ++q.removed.nr;
    q.removed.load_avg += se.avg.load_avg;
    q.removed.util_avg += se.avg.util_avg;
    q.removed.runnable_avg += se.avg.runnable_avg;
}

// reweight_entity()'s PELT part: the entity's load_avg follows its new weight at once, in
// its queue's too, queued or blocked.
inline void reweight_load_avg(const fair_params& fp, cfs_rq& q, sched_entity& se, load_weight lw) {
    dequeue_load_avg(fp, q, se);
    se.load = lw;
    se.avg.load_avg = se_weight(se) * se.avg.load_sum / get_pelt_divider(se.avg);
    enqueue_load_avg(q, se);
}

// init_entity_runnable_average() (sched_fork()): a new task looks fully loaded until its
// signals settle.
inline void init_entity_runnable_average(sched_entity& se) {
    se.avg = {};
    if (entity_is_task(se))
        se.avg.load_avg = se_weight(se);
}

// post_init_entity_util_avg() (wake_up_new_task(), on the chosen CPU, before the first
// enqueue): util_avg starts at the queue's utilization shared by weight, at most half the
// spare capacity; runnable_avg starts equal. The first enqueue attaches it (DO_ATTACH).
inline void post_init_entity_util_avg(task& p) {
    sched_entity& se = p.se;
    const cfs_rq& q = cfs_rq_of(se);
    const s64 cap = (static_cast<s64>(sched_capacity_scale) - static_cast<s64>(q.avg.util_avg)) / 2;
    if (cap > 0) {
        if (q.avg.util_avg != 0) {
            se.avg.util_avg = q.avg.util_avg * se_weight(se) / (q.avg.load_avg + 1);
            se.avg.util_avg = std::min(se.avg.util_avg, static_cast<u64>(cap));
        } else {
            se.avg.util_avg = static_cast<u64>(cap);
        }
    }
    se.avg.runnable_avg = se.avg.util_avg;
}

// ---- readers ----

// task_util(), task_runnable()
inline u64 task_util(const task& p) {
    return p.se.avg.util_avg;
}
inline u64 task_runnable(const task& p) {
    return p.se.avg.runnable_avg;
}
// _task_util_est(): the task's estimate; before 6.9 the larger of its moving average and
// its last sample. A 6.9+ task keeps only `ewma`, so one reading fits every release.
inline u64 task_util_est_raw(const task& p) {
    const util_est& ue = p.se.avg.util_est;
    return std::max(ue.ewma & ~util_avg_unchanged, ue.enqueued & ~util_avg_unchanged);
}
// task_util_est(): the larger of the estimate and the current utilization.
inline u64 task_util_est(const task& p) {
    return std::max(task_util(p), task_util_est_raw(p));
}
// cfs_rq_load_avg()
inline u64 cfs_rq_load_avg(const cfs_rq& q) {
    return q.avg.load_avg;
}
// update_cfs_rq_h_load(): a queue's load as seen from the root queue, from the root down:
// each group entity's share of its parent queue's. The kernel keeps the result for the
// rest of the jiffy; it is computed afresh here, from the same averages.
inline u64 cfs_rq_h_load(const cfs_rq& q) {
    const sched_entity* se =
        q.tg->is_root() ? nullptr : q.tg->se[static_cast<std::size_t>(rq_of(q).cpu)];
    if (se == nullptr)
        return cfs_rq_load_avg(q);
    const cfs_rq& parent = cfs_rq_of(*se);
    return cfs_rq_h_load(parent) * se->avg.load_avg / (cfs_rq_load_avg(parent) + 1);
}
// task_h_load(): the task's load as seen from the root queue, its share of its queue's
// h_load. A task of the root group keeps its own load_avg (the !CONFIG_FAIR_GROUP_SCHED
// value; the kernel's load * L / (L + 1) with groups built in is at most 1 lower).
inline u64 task_h_load(const task& p) {
    const cfs_rq& q = cfs_rq_of(p.se);
    if (q.tg == nullptr || q.tg->is_root())
        return p.se.avg.load_avg;
    return p.se.avg.load_avg * cfs_rq_h_load(q) / (cfs_rq_load_avg(q) + 1);
}

// cpu_load() (cpu_load(rq) in 5.x-6.x): the CPU's fair load, blocked load included.
inline u64 cpu_load(const rq& r) {
    return r.cfs.avg.load_avg;
}
// cpu_runnable()
inline u64 cpu_runnable(const rq& r) {
    return r.cfs.avg.runnable_avg;
}
// cpu_util_cfs() (cpu_util(cpu) before 6.0, cpu_util(cpu, NULL, -1, 0) after): the larger of
// the fair utilization and its queued tasks' estimates (UTIL_EST, on in every release),
// at most the CPU's capacity.
inline u64 cpu_util_cfs(const rq& r) {
    const u64 util = std::max<u64>(r.cfs.avg.util_avg, r.cfs.avg.util_est.enqueued);
    return std::min(util, sched_capacity_scale);
}
// cpu_util_cfs_boost() (6.5+, 7d0583cf9ec7): runnable_avg counts too; the balancer's
// migrate_util source choice.
inline u64 cpu_util_cfs_boost(const rq& r) {
    const u64 util = std::max({r.cfs.avg.util_avg, r.cfs.avg.runnable_avg,
                               static_cast<u64>(r.cfs.avg.util_est.enqueued)});
    return std::min(util, sched_capacity_scale);
}
// cfs_rq_has_blocked(): load or utilization is left to decay.
inline bool cfs_rq_has_blocked(const cfs_rq& q) {
    return q.avg.load_avg != 0 || q.avg.util_avg != 0;
}

// cfs_rq_is_decayed(): nothing queued and nothing left to decay; the queue leaves the
// leaf list (the kernel also keeps a parent while a child is listed; not modelled). With
// ca125231dd29 not while tg->load_avg still holds its contribution, which the rate limit
// of update_tg_load_avg() can leave there when its last task moves away.
inline bool cfs_rq_is_decayed(const fair_params& fp, const cfs_rq& q) {
    return q.load.weight == 0 && q.avg.load_sum == 0 && q.avg.util_sum == 0 &&
           q.avg.runnable_sum == 0 &&
           !(q.tg_load_avg_contrib != 0 && fp.carries(stalled_tg_load_withdrawn));
}

// skip_blocked_update(): a group entity with nothing to decay or propagate.
inline bool skip_blocked_update(const sched_entity& se) {
    return se.avg.load_avg == 0 && se.avg.util_avg == 0 && !group_cfs_rq(se)->propagate;
}

// update_blocked_averages() (__update_blocked_fair()): bottom up over the CPU's group
// queues on the leaf list, age each to its clock and take off removed load, publish its
// load (update_tg_load_avg) and bring its group entity up to date, which propagates it
// upwards; decayed queues leave the list. The CPU's own queue last; true if its averages
// changed. The caller updates the rq clock first, as the kernel does under the rq lock
// (the balancer on an idle CPU, the NOHZ blocked-load update).
inline bool update_blocked_averages(const fair_params& fp, rq& r) {
    for (cfs_rq* q : r.leaf_cfs_rqs) {
        if (!q->on_list)
            continue;
        if (update_cfs_rq_load_avg(fp, cfs_rq_clock_pelt(*q), *q))
            update_tg_load_avg(fp, *q);
        sched_entity& se = *q->tg->se[static_cast<std::size_t>(r.cpu)];
        if (!skip_blocked_update(se))
            update_load_avg(fp, cfs_rq_of(se), se, update_load_flags::update_tg);
        if (cfs_rq_is_decayed(fp, *q))
            q->on_list = false;
    }
    return update_cfs_rq_load_avg(fp, cfs_rq_clock_pelt(r.cfs), r.cfs);
}

// ---- util_est (UTIL_EST is on by default in every modelled release and always on here) ----

// util_est_enqueue() / util_est_dequeue(): the root queue's sum of its tasks' estimates.
inline void util_est_enqueue(cfs_rq& q, const task& p) {
    q.avg.util_est.enqueued += static_cast<u32>(task_util_est_raw(p));
}
inline void util_est_dequeue(cfs_rq& q, const task& p) {
    q.avg.util_est.enqueued -=
        std::min(q.avg.util_est.enqueued, static_cast<u32>(task_util_est_raw(p)));
}

inline constexpr u32 util_est_weight_shift = 2; // new samples weigh 1/4
inline constexpr auto util_est_margin = static_cast<s64>(sched_capacity_scale / 100); // ~1%

// util_est_update(): at a sleep, sample util_avg into the task's estimate: a rise is taken
// at once, a fall through the moving average, changes within ~1% are ignored, and no
// sample is taken while util_avg has not changed since the last. Releases 5.13-6.8 keep
// the sample itself too (ue.enqueued) and take no new average when only it moved by
// more than 1%; 6.2+ (50181c0cff31) keep the average when the task waited for the CPU
// (runnable above util by more than the margin). A task with more utilization than its
// CPU's capacity leaves its estimate alone. (Before 5.13 the unchanged flag was the
// sample's lowest bit; not modelled.)
inline void util_est_update(const fair_params& fp, task& p, bool task_sleep) {
    if (!task_sleep)
        return;
    util_est& ue = p.se.avg.util_est;
    if (((ue.enqueued | ue.ewma) & util_avg_unchanged) != 0)
        return;
    const bool single_value = fp.since(6, 9);
    const auto dequeued = static_cast<u32>(task_util(p));
    const auto store = [&](u32 ewma) {
        if (single_value) {
            ue.ewma = ewma | util_avg_unchanged;
        } else {
            ue.enqueued = dequeued | util_avg_unchanged;
            ue.ewma = ewma;
        }
    };
    const auto within_margin = [](s64 v) { return -util_est_margin < v && v < util_est_margin; };
    u32 ewma = ue.ewma;
    if (ewma < dequeued) {
        store(dequeued);
        return;
    }
    const s64 last_ewma_diff = static_cast<s64>(dequeued) - static_cast<s64>(ewma);
    if (within_margin(last_ewma_diff)) {
        if (single_value || !within_margin(static_cast<s64>(ue.enqueued) - dequeued))
            store(ewma);
        return;
    }
    if (dequeued > sched_capacity_scale)
        return;
    if (fp.since(6, 2) && dequeued + static_cast<u64>(util_est_margin) < task_runnable(p)) {
        store(ewma);
        return;
    }
    ewma = static_cast<u32>((static_cast<s64>(ewma) << util_est_weight_shift) + last_ewma_diff) >>
           util_est_weight_shift;
    store(ewma);
}

} // namespace libsched
