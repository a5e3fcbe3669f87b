#pragma once
// Per-entity load tracking of the fair class: the per-object updates of kernel/sched/pelt.c
// (__update_load_avg_se, __update_load_avg_cfs_rq, __update_load_avg_blocked_se) and
// fair.c's bookkeeping around them (update_load_avg, attach/detach/remove, util_est, the
// new-task initialisation, update_blocked_averages), plus the readers load balancing and
// wakeup placement use (cpu_load, cpu_util_cfs, task_h_load...).
//
// The PELT clock is the rq's clock_task: capacity is symmetric (1024 on every CPU) and
// there is no frequency invariance, so rq_clock_pelt() never runs slower than it. Without
// task groups every entity is a task's on its CPU's queue; the functions are still written
// per entity and per queue, as fair.c's, so that group entities can come later.
#include <algorithm>
#include <libsched/sched/flags.hpp>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/sched_avg.hpp>

namespace libsched {

// update_load_avg()'s flags (fair.c).
enum class update_load_flags : unsigned {
    none = 0,
    update_tg = 0x1,     // UPDATE_TG: refresh the task group's load (no task groups yet)
    skip_age_load = 0x2, // SKIP_AGE_LOAD: do not age the entity
    do_attach = 0x4,     // DO_ATTACH: attach a migrated (last_update_time 0) entity
    do_detach = 0x8,     // DO_DETACH: detach an entity leaving for another CPU
};
template <> inline constexpr bool is_flag_mask<update_load_flags> = true;

// rq_clock_pelt() / cfs_rq_clock_pelt(): clock_task, counted from one PELT period before
// the simulation's time 0 so that a last_update_time of 0 keeps the kernel's meaning
// ("not attached to any queue") from the first instant.
inline constexpr u64 pelt_clock_origin = u64{1024} << 10;
inline u64 cfs_rq_clock_pelt(const cfs_rq& q) {
    return pelt_clock_origin + static_cast<u64>(rq_of(q).clock_task);
}

// se_weight(): the weight at 1024 resolution.
inline u64 se_weight(const sched_entity& se) {
    return scale_load_down(se.load.weight);
}

// se_runnable() of a task's entity: queued; 6.13+ (76f2f783294d) not while delayed.
inline u64 se_runnable(const fair_params& fp, const sched_entity& se) {
    if (se.sched_delayed && fp.since(6, 13))
        return 0;
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

} // namespace detail

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
}

// detach_entity_load_avg(): an entity leaves q's signals now.
inline void detach_entity_load_avg(const fair_params& fp, cfs_rq& q, const sched_entity& se) {
    const u32 divider = get_pelt_divider(q.avg);
    dequeue_load_avg(fp, q, se);
    detail::take_off(fp, q.avg.util_avg, q.avg.util_sum, se.avg.util_avg, se.avg.util_sum, divider);
    detail::take_off(fp, q.avg.runnable_avg, q.avg.runnable_sum, se.avg.runnable_avg,
                     se.avg.runnable_sum, divider);
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
        decayed = true;
    }
    return update_load_avg_cfs_rq(fp, now, q) || decayed;
}

// update_load_avg(): bring an entity (unless SKIP_AGE_LOAD, or it is not attached) and its
// queue up to the PELT clock; attach an entity that arrives from another CPU (DO_ATTACH
// with last_update_time 0) or detach one that leaves (DO_DETACH).
inline void update_load_avg(const fair_params& fp, cfs_rq& q, sched_entity& se,
                            update_load_flags flags) {
    const u64 now = cfs_rq_clock_pelt(q);
    if (se.avg.last_update_time != 0 && !has(flags, update_load_flags::skip_age_load))
        update_load_avg_se(fp, now, q, se);
    update_cfs_rq_load_avg(fp, now, q);
    if (se.avg.last_update_time == 0 && has(flags, update_load_flags::do_attach))
        attach_entity_load_avg(q, se);
    else if (has(flags, update_load_flags::do_detach))
        detach_entity_load_avg(fp, q, se);
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
// task_h_load(): the task's load as seen from the root queue; without task groups its own
// load_avg.
inline u64 task_h_load(const task& p) {
    return p.se.avg.load_avg;
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

// update_blocked_averages() without task groups (__update_blocked_fair()): age the CPU's
// queue to its clock and take off removed load; true if the averages changed. The caller
// updates the rq clock first, as the kernel does under the rq lock (the balancer on an idle
// CPU, the NOHZ blocked-load update).
inline bool update_blocked_averages(const fair_params& fp, rq& r) {
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
