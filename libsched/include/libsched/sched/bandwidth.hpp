#pragma once
// CFS bandwidth control (kernel/sched/fair.c, CONFIG_CFS_BANDWIDTH), from 5.4 (de53fd7aedb1
// ended the expiry of runtime a CPU holds, which is not modelled; validate() refuses a quota
// before 5.4): a group's quota per period is a global pool that each CPU's queue of the group
// draws runtime from in slices (sched_cfs_bandwidth_slice, 5 ms); a queue that has run out and
// finds the pool empty is throttled until the period timer refills the pool and hands it out to
// the throttled queues, oldest first. The slack timer hands out what an emptied queue gives
// back. What "throttled" does to the queue's tasks depends on the release:
//
// * 5.4-6.17, whole-queue throttling: throttle_cfs_rq() dequeues the group entity from the
//   parent queue with every task below it; unthrottle_cfs_rq() enqueues it again.
// * 6.18+, task-based throttling (e1fad12dcb66 "Switch to task based throttle model" and the
//   series merged with it for 6.18: 2cd571245b43, 7fc2d1439247, eb962f251fbb, 5b726e9bf954,
//   253b3f587241, 0d4eaf8caf8c): throttle_cfs_rq() only marks the hierarchy throttled
//   (tg_throttle_down()); the group entity and the tasks stay queued and keep competing. A
//   task picked from a throttled hierarchy (pick_task_fair() -> task_throttle_setup_work())
//   leaves at its return to user mode (throttle_cfs_rq_work()): it is dequeued as a sleep and
//   parked, still TASK_RUNNING, on its queue's throttled_limbo_list; the group entity leaves
//   the parent only when its queue empties that way. unthrottle_cfs_rq() enqueues the parked
//   tasks again (tg_unthrottle_up()). Throttled time counts from the first task parked
//   (record_throttle_clock()), the balancer may move a task of a throttled group (no
//   throttled_lb_pair()) but not to a CPU where its group is throttled
//   (lb_throttled_hierarchy()). The model's tasks run in user mode: the return to user mode
//   that follows the pick by the context switch's few microseconds is taken to be the pick
//   itself, so the picked task is parked at once and the pick goes on; the kernel's switch
//   to the task and back (a pair in nr_switches, one in its nivcsw) is not counted.
//
// Hooks in fair.hpp, at the kernel's places: update_curr() -> account_cfs_rq_runtime();
// put_prev_entity() and the pick -> check_cfs_rq_runtime(); enqueue_entity() ->
// check_enqueue_throttle(); dequeue_entity() -> return_cfs_rq_runtime(); up to 6.17 the
// hierarchy walks stop at a throttled queue. The core owns the timers (sched_cfs_period_timer,
// sched_cfs_slack_timer) and sets a group's bandwidth (tg_set_cfs_bandwidth).
//
// The PELT clock of a queue in a throttled hierarchy stands still (tg_throttle_down(); 6.18+
// from when the queue has emptied, and again while something is enqueued on it), so its
// averages and those of its parked tasks neither grow nor decay meanwhile.
//
// Not modelled: throttled_clock_self (6.6+, cpu.stat.local); remote unthrottles take effect at the
// timer's instant (6.2+ sends them as an IPI); the period-timer callback takes no time, so its
// "period too short" doubling never happens.
#include <functional>
#include <libsched/des/timer.hpp>
#include <libsched/sched/pelt.hpp>
#include <libsched/sched/task_group.hpp>
#include <list>

namespace libsched {

// min_cfs_quota_period, max_cfs_quota_period, default_cfs_period() (fair.c / core.c).
inline constexpr duration min_cfs_quota_period = 1'000'000;
inline constexpr duration max_cfs_quota_period = 1'000'000'000;
inline constexpr duration default_cfs_period = 100'000'000;
// max_cfs_runtime = MAX_BW * NSEC_PER_USEC, MAX_BW = 2^(64 - BW_SHIFT) - 1 (sched.h).
inline constexpr duration max_cfs_runtime = ((s64{1} << 44) - 1) * 1'000;
// sysctl_sched_cfs_bandwidth_slice default (5000 us).
inline constexpr duration default_cfs_bandwidth_slice = 5'000'000;
// A queue keeps this much when it gives runtime back; the slack timer's wait, and how
// close the refresh may be for it to bother (fair.c).
inline constexpr duration min_cfs_rq_runtime = 1'000'000;
inline constexpr duration min_bandwidth_expiration = 2'000'000;
inline constexpr duration cfs_bandwidth_slack_period = 5'000'000;

// struct cfs_bandwidth (sched.h): one per group with a quota.
struct cfs_bandwidth {
    using timer_type = des::timer<std::function<void()>>;

    cfs_bandwidth(des::simulator& s, des::event_order order, std::function<void()> on_period,
                  std::function<void()> on_slack)
        : sim(&s), period_timer(s, order, std::move(on_period)),
          slack_timer(s, order, std::move(on_slack)) {}
    cfs_bandwidth(const cfs_bandwidth&) = delete;
    cfs_bandwidth& operator=(const cfs_bandwidth&) = delete;

    des::simulator* sim;
    duration period = default_cfs_period;
    duration quota = runtime_inf;
    duration burst = 0;
    duration slice = default_cfs_bandwidth_slice; // sched_cfs_bandwidth_slice()
    s64 runtime = 0;                              // the pool (u64 in the kernel, never < 0)
    s64 runtime_snap = 0;                         // the pool after the last refill
    // Everything put into the pool, less what a new quota took from the queues (for the
    // invariant checker's conservation of runtime).
    s64 runtime_in = 0;
    bool idle = false; // no runtime asked for this period
    bool period_active = false;
    bool slack_started = false;
    std::list<cfs_rq*> throttled_cfs_rq; // oldest first
    timer_type period_timer;
    timer_type slack_timer;
    // cpu.stat
    std::uint64_t nr_periods = 0;
    std::uint64_t nr_throttled = 0;
    duration throttled_time = 0;
    std::uint64_t nr_burst = 0;
    duration burst_time = 0;
};

inline bool cfs_rq_throttled(const cfs_rq& q) {
    return q.throttled;
}

// throttled_hierarchy(): this queue or one above it is throttled.
inline bool throttled_hierarchy(const cfs_rq& q) {
    return q.throttle_count != 0;
}

// throttled_lb_pair() (can_migrate_task(); removed by 6.18's task-based throttling,
// 5b726e9bf954): the group is throttled on either CPU.
inline bool throttled_lb_pair(const task_group& tg, int src_cpu, int dst_cpu) {
    return throttled_hierarchy(*tg.cfs_rq[static_cast<std::size_t>(src_cpu)]) ||
           throttled_hierarchy(*tg.cfs_rq[static_cast<std::size_t>(dst_cpu)]);
}

// 6.18+: a throttle parks the tasks one by one at their return to user mode (e1fad12dcb66)
// instead of dequeuing the group's entity.
inline bool task_based_throttle(const fair_params& p) {
    return p.since(6, 18);
}

// lb_throttled_hierarchy() (can_migrate_task(), 6.18+, 0d4eaf8caf8c): the task's group is
// throttled on the destination CPU, where it would only be parked.
inline bool lb_throttled_hierarchy(const task& p, int dst_cpu) {
    return throttled_hierarchy(*p.sched_task_group->cfs_rq[static_cast<std::size_t>(dst_cpu)]);
}

namespace bandwidth {

// The queue's PELT clock stops, and goes on later without the time it stood still
// (throttled_clock_pelt, throttled_clock_pelt_time, pelt_clock_throttled).
inline void stop_pelt_clock(cfs_rq& q) {
    q.throttled_clock_pelt = rq_clock_pelt(rq_of(q));
    q.pelt_clock_throttled = true;
}
inline void restart_pelt_clock(cfs_rq& q) {
    if (!q.pelt_clock_throttled)
        return;
    q.throttled_clock_pelt_time += rq_clock_pelt(rq_of(q)) - q.throttled_clock_pelt;
    q.pelt_clock_throttled = false;
}

// tg_throttle_down(): one more throttled queue at or above this one. The first stops the
// queue's PELT clock and takes it off the leaf list; 6.18+ only if nothing is queued on it,
// else its last dequeue will (dequeue_entity()).
inline void tg_throttle_down(cfs_rq& q, bool task_based) {
    if (q.throttle_count++ != 0 || (task_based && q.nr_queued != 0))
        return;
    q.on_list = false; // list_del_leaf_cfs_rq()
    stop_pelt_clock(q);
}

// tg_unthrottle_up()'s start: one throttled queue fewer; with none left the PELT clock goes
// on. True if the queue is no longer in a throttled hierarchy.
inline bool tg_unthrottle_up_clock(cfs_rq& q) {
    if (--q.throttle_count != 0)
        return false;
    restart_pelt_clock(q);
    return true;
}

// tg_unthrottle_up()'s end: a queue with load or averages left goes back on the leaf list.
inline void unthrottled_leaf(const fair_params& fp, cfs_rq& q) {
    if (!cfs_rq_is_decayed(fp, q))
        q.on_list = true; // list_add_leaf_cfs_rq()
}

// walk_tg_tree_from(): the group and its descendants, parents first.
template <class F> void walk_tg_tree_from(task_group& tg, F&& down) {
    down(tg);
    for (task_group* c : tg.children)
        walk_tg_tree_from(*c, down);
}

// walk_tg_tree_from() with an "up" visitor: the group after its descendants.
template <class F> void walk_tg_tree_from_up(task_group& tg, F&& up) {
    for (task_group* c : tg.children)
        walk_tg_tree_from_up(*c, up);
    up(tg);
}

// start_cfs_bandwidth(): arm the period timer, at the next multiple of the period from
// its last expiry (hrtimer_forward_now()).
inline void start_cfs_bandwidth(cfs_bandwidth& b) {
    if (b.period_active)
        return;
    b.period_active = true;
    b.period_timer.forward(b.sim->now(), b.period);
    b.period_timer.start(b.period_timer.expires());
}

// __refill_cfs_bandwidth_runtime(): a period's quota into the pool, at most quota + burst;
// what the last period used beyond its quota counts as a burst (5.14+, bcb1704a1ed2; with
// no burst, before 5.14 too, the pool is simply quota again).
inline void refill_cfs_bandwidth_runtime(cfs_bandwidth& b) {
    if (b.quota == runtime_inf)
        return;
    const s64 before = b.runtime;
    b.runtime += b.quota;
    const s64 used_beyond = b.runtime_snap - b.runtime;
    if (used_beyond > 0) {
        b.burst_time += used_beyond;
        ++b.nr_burst;
    }
    b.runtime = std::min(b.runtime, b.quota + b.burst);
    b.runtime_snap = b.runtime;
    b.runtime_in += b.runtime - before;
}

// __assign_cfs_rq_runtime(): bring the queue's runtime up to target from the pool, as far
// as it goes; asking starts the period timer. True if the queue has runtime left.
inline bool assign_cfs_rq_runtime(cfs_bandwidth& b, cfs_rq& q, s64 target) {
    const s64 min_amount = target - q.runtime_remaining;
    s64 amount = 0;
    if (b.quota == runtime_inf) {
        amount = min_amount;
    } else {
        start_cfs_bandwidth(b);
        if (b.runtime > 0) {
            amount = std::min(b.runtime, min_amount);
            b.runtime -= amount;
            b.idle = false;
        }
    }
    q.runtime_remaining += amount;
    return q.runtime_remaining > 0;
}

// account_cfs_rq_runtime() / __account_cfs_rq_runtime(): the queue's curr ran delta; out of
// runtime, it asks for a slice, and if none is left the CPU reschedules so that
// put_prev_entity() throttles the queue.
inline void account_cfs_rq_runtime(cfs_rq& q, s64 delta) {
    if (!q.runtime_enabled)
        return;
    q.runtime_remaining -= delta;
    if (q.runtime_remaining > 0 || q.throttled)
        return;
    cfs_bandwidth& b = *q.tg->cfs_b;
    if (!assign_cfs_rq_runtime(b, q, b.slice) && q.curr != nullptr)
        resched_curr(rq_of(q), resched_reason::account_cfs_rq_runtime);
}

// runtime_refresh_within(): the period timer expires within min_expire (an inactive one
// expired in the past).
inline bool runtime_refresh_within(const cfs_bandwidth& b, duration min_expire) {
    return b.period_timer.expires() - b.sim->now() < min_expire;
}

// start_cfs_slack_bandwidth(): hand out returned runtime after the slack period, unless
// the refresh comes first anyway or a slack timer is already pending.
inline void start_cfs_slack_bandwidth(cfs_bandwidth& b) {
    if (runtime_refresh_within(b, cfs_bandwidth_slack_period + min_bandwidth_expiration))
        return;
    if (b.slack_started)
        return;
    b.slack_started = true;
    b.slack_timer.start_in(cfs_bandwidth_slack_period);
}

// return_cfs_rq_runtime() / __return_cfs_rq_runtime(): a queue that emptied gives back what
// it holds beyond min_cfs_rq_runtime; a pool then above a slice with throttled queues
// starts the slack timer.
inline void return_cfs_rq_runtime(cfs_rq& q) {
    if (!q.runtime_enabled || q.nr_queued != 0)
        return;
    const s64 slack_runtime = q.runtime_remaining - min_cfs_rq_runtime;
    if (slack_runtime <= 0)
        return;
    cfs_bandwidth& b = *q.tg->cfs_b;
    if (b.quota != runtime_inf) {
        b.runtime += slack_runtime;
        if (b.runtime > b.slice && !b.throttled_cfs_rq.empty())
            start_cfs_slack_bandwidth(b);
    }
    q.runtime_remaining -= slack_runtime;
}

// The counts a whole queue carries up the hierarchy when it leaves or comes back.
struct queue_counts {
    unsigned queued, idle, delayed;
};

// throttle_cfs_rq(): one last try for 1 ns from the pool; otherwise the queue joins the
// throttled list and its subtree counts as throttled (tg_throttle_down()). 6.18+: that is
// all; its tasks are parked as they are picked (throttle_cfs_rq_work()). Up to 6.17 its
// group entity leaves the parent queues upwards (as a sleep; 6.12+ never delayed,
// DEQUEUE_SPECIAL) with the tasks below it, up to a queue that keeps other entities, and its
// throttled time counts from now; 6.6+ (79462e8c879a) only if it has entities, else from the
// first one enqueued.
template <class Fair> bool throttle_cfs_rq(Fair& fair, cfs_rq& q) {
    const fair_params& p = fair.params();
    cfs_bandwidth& b = *q.tg->cfs_b;
    if (assign_cfs_rq_runtime(b, q, 1))
        return false;
    b.throttled_cfs_rq.push_back(&q);
    rq& r = rq_of(q);
    const auto cpu = static_cast<std::size_t>(r.cpu);
    const bool task_based = task_based_throttle(p);
    walk_tg_tree_from(*q.tg, [cpu, task_based](task_group& tg) {
        tg_throttle_down(*tg.cfs_rq[cpu], task_based);
    });
    if (task_based) {
        q.throttled = true;
        return true;
    }
    queue_counts d{q.h_nr_queued, q.h_nr_idle, q.h_nr_delayed};
    sched_entity* se = q.tg->se[cpu];
    bool to_root = true;
    for (; se != nullptr; se = se->parent) { // for_each_sched_entity
        cfs_rq& qq = cfs_rq_of(*se);
        if (!se->on_rq) { // throttled above, or throttled on its way in
            to_root = false;
            break;
        }
        dequeue_flags flags = dequeue_flags::sleep;
        if (p.since(6, 12)) {
            flags = flags | dequeue_flags::special;
            if (se->sched_delayed)
                flags = flags | dequeue_flags::delayed;
        }
        fair.dequeue_entity(qq, *se, flags);
        if (se->my_q->tg->idle) // cfs_rq_is_idle()
            d.idle = q.h_nr_queued;
        qq.h_nr_queued -= d.queued;
        qq.h_nr_idle -= d.idle;
        qq.h_nr_delayed -= d.delayed;
        if (qq.load.weight != 0) {
            se = se->parent;
            break;
        }
    }
    for (; to_root && se != nullptr; se = se->parent) {
        cfs_rq& qq = cfs_rq_of(*se);
        if (!se->on_rq)
            break;
        update_load_avg(p, qq, *se, update_load_flags::none);
        if (se->my_q->tg->idle)
            d.idle = q.h_nr_queued;
        qq.h_nr_queued -= d.queued;
        qq.h_nr_idle -= d.idle;
        qq.h_nr_delayed -= d.delayed;
    }
    q.throttled = true;
    if (!p.since(6, 6) || q.nr_queued != 0)
        q.throttled_clock = r.clock;
    return true;
}

// record_throttle_clock() (6.18+, eb962f251fbb): a task parked below a throttled queue
// starts the queue's throttled time, unless it runs already.
inline void record_throttle_clock(cfs_rq& q) {
    if (cfs_rq_throttled(q) && q.throttled_clock == 0)
        q.throttled_clock = rq_of(q).clock;
}

// throttle_cfs_rq_work() (6.18+): the task work that task_throttle_setup_work() gave a task
// picked in a throttled hierarchy, run at its return to user mode. Unless the hierarchy is
// no longer throttled (or the task has left it), the task is dequeued as a sleep
// (DEQUEUE_THROTTLE: never delayed; each throttled queue on its way up starts its throttled
// time) and parked on its queue's limbo list, most recent first, still runnable. The
// kernel's resched_curr() that follows is the pick that called this (see the header).
// True if the task was parked.
template <class Fair> bool throttle_cfs_rq_work(Fair& fair, task& p) {
    cfs_rq& q = cfs_rq_of(p.se);
    if (q.throttle_count == 0)
        return false;
    fair.dequeue_task(rq_of(q), p, dequeue_flags::sleep | dequeue_flags::throttle);
    q.throttled_limbo_list.push_front(&p);
    p.throttled = true;
    return true;
}

// dequeue_throttled_task() (6.18+): a parked task dequeued again leaves its limbo list;
// blocked, it is no longer throttled; moved to another CPU, its load leaves the old queue
// (detach_task_cfs_rq(): the queue's averages lose it, and the levels above are brought up
// to date, propagate_entity_cfs_rq()).
inline void dequeue_throttled_task(const fair_params& fp, task& p, dequeue_flags flags) {
    cfs_rq& q = cfs_rq_of(p.se);
    q.throttled_limbo_list.remove(&p);
    if (has(flags, dequeue_flags::sleep)) {
        p.throttled = false;
        return;
    }
    if (!p.migrating || p.se.avg.last_update_time == 0)
        return;
    update_load_avg(fp, q, p.se, update_load_flags::do_detach);
    for (sched_entity& e : for_each_sched_entity(p.se.parent))
        update_load_avg(fp, cfs_rq_of(e), e, update_load_flags::update_tg);
}

// enqueue_throttled_task() (6.18+): a parked task enqueued again (moved, or restored) goes
// straight to its queue's limbo list while its hierarchy there is throttled, unless it is
// the CPU's current task; otherwise it is no longer throttled and is enqueued for real
// (false).
inline bool enqueue_throttled_task(task& p) {
    cfs_rq& q = cfs_rq_of(p.se);
    if (throttled_hierarchy(q) && rq_of(q).curr != &p) {
        q.throttled_limbo_list.push_front(&p);
        return true;
    }
    p.throttled = false;
    return false;
}

// tg_unthrottle_up() (6.18+): the queue counts one throttled queue fewer; once none is
// left its PELT clock goes on and its parked tasks are enqueued again as wakeups, most
// recently parked first.
template <class Fair> void tg_unthrottle_up(Fair& fair, cfs_rq& q) {
    if (!tg_unthrottle_up_clock(q))
        return;
    std::list<task*> parked;
    parked.swap(q.throttled_limbo_list);
    for (task* p : parked) {
        p->throttled = false;
        fair.enqueue_task(rq_of(q), *p, enqueue_flags::wakeup);
    }
    unthrottled_leaf(fair.params(), q);
}

// unthrottle_cfs_rq() 6.18+: a queue still without runtime stays throttled (it would only be
// throttled again by the enqueues); otherwise its throttled time is counted and the subtree,
// children first, no longer counts as throttled (tg_unthrottle_up(), which enqueues the
// parked tasks); an idle CPU reschedules. The caller has brought the CPU's clock up to now.
template <class Fair> void unthrottle_cfs_rq_tasks(Fair& fair, cfs_rq& q) {
    if (q.runtime_enabled && q.runtime_remaining <= 0)
        return;
    cfs_bandwidth& b = *q.tg->cfs_b;
    rq& r = rq_of(q);
    const auto cpu = static_cast<std::size_t>(r.cpu);
    q.throttled = false;
    if (q.throttled_clock != 0) {
        b.throttled_time += r.clock - q.throttled_clock;
        q.throttled_clock = 0;
    }
    b.throttled_cfs_rq.remove(&q);
    walk_tg_tree_from_up(*q.tg,
                         [&fair, cpu](task_group& tg) { tg_unthrottle_up(fair, *tg.cfs_rq[cpu]); });
    if (is_idle_task(r, *r.curr) && r.cfs.nr_queued > 0)
        resched_curr(r, resched_reason::unthrottle_cfs_rq);
}

// unthrottle_cfs_rq() up to 6.17: the throttled time is counted, the subtree no longer
// counts as throttled (tg_unthrottle_up()), and the group entity is enqueued again as a
// wakeup on every level up to a queued one or a throttled queue; an idle CPU reschedules.
// The caller has brought the CPU's clock up to now.
template <class Fair> void unthrottle_cfs_rq(Fair& fair, cfs_rq& q) {
    const fair_params& p = fair.params();
    if (task_based_throttle(p)) {
        unthrottle_cfs_rq_tasks(fair, q);
        return;
    }
    cfs_bandwidth& b = *q.tg->cfs_b;
    rq& r = rq_of(q);
    const auto cpu = static_cast<std::size_t>(r.cpu);
    q.throttled = false;
    if (!p.since(6, 6) || q.throttled_clock != 0) {
        b.throttled_time += r.clock - q.throttled_clock;
        q.throttled_clock = 0;
    }
    b.throttled_cfs_rq.remove(&q);
    walk_tg_tree_from_up(*q.tg, [cpu, &p](task_group& tg) {
        cfs_rq& gq = *tg.cfs_rq[cpu];
        if (tg_unthrottle_up_clock(gq))
            unthrottled_leaf(p, gq);
    });
    if (q.load.weight == 0)
        return;
    queue_counts d{q.h_nr_queued, q.h_nr_idle, q.h_nr_delayed};
    sched_entity* se = q.tg->se[cpu];
    bool stopped = false;
    for (; se != nullptr; se = se->parent) {
        cfs_rq& qq = cfs_rq_of(*se);
        // 6.12+: an ancestor still queued as delayed finishes its dequeue and is enqueued
        // again ("unfinished DELAY_DEQUEUE business"), rather than left to a pick that would
        // dequeue it with the unthrottled tasks below.
        if (se->sched_delayed)
            fair.dequeue_entity(qq, *se, dequeue_flags::sleep | dequeue_flags::delayed);
        else if (se->on_rq)
            break;
        fair.enqueue_entity(qq, *se, enqueue_flags::wakeup);
        if (se->my_q->tg->idle)
            d.idle = q.h_nr_queued;
        qq.h_nr_queued += d.queued;
        qq.h_nr_idle += d.idle;
        qq.h_nr_delayed += d.delayed;
        if (cfs_rq_throttled(qq)) {
            stopped = true;
            break;
        }
    }
    for (; !stopped && se != nullptr; se = se->parent) {
        cfs_rq& qq = cfs_rq_of(*se);
        update_load_avg(p, qq, *se, update_load_flags::update_tg);
        fair.update_cfs_group(*se);
        if (se->my_q->tg->idle)
            d.idle = q.h_nr_queued;
        qq.h_nr_queued += d.queued;
        qq.h_nr_idle += d.idle;
        qq.h_nr_delayed += d.delayed;
        if (cfs_rq_throttled(qq))
            break;
    }
    if (is_idle_task(r, *r.curr) && r.cfs.nr_queued > 0)
        resched_curr(r, resched_reason::unthrottle_cfs_rq);
}

// check_cfs_rq_runtime(): a queue out of runtime is throttled (put_prev_entity(), the
// pick). True if it is throttled.
template <class Fair> bool check_cfs_rq_runtime(Fair& fair, cfs_rq& q) {
    if (!q.runtime_enabled || q.runtime_remaining > 0)
        return false;
    if (cfs_rq_throttled(q))
        return true;
    return throttle_cfs_rq(fair, q);
}

// check_enqueue_throttle() (enqueue_entity(), first entity of the queue): a queue not
// running is throttled at once if it has no runtime and gets none (6.18+: the entity stays
// queued and is parked when picked). 6.6-6.17: an entity arriving on a throttled queue
// starts its throttled time (6.18+ starts it when a task is parked).
template <class Fair> void check_enqueue_throttle(Fair& fair, cfs_rq& q) {
    if (!q.runtime_enabled)
        return;
    if (q.curr == nullptr && !cfs_rq_throttled(q)) {
        account_cfs_rq_runtime(q, 0);
        if (q.runtime_remaining <= 0)
            throttle_cfs_rq(fair, q);
    }
    const fair_params& p = fair.params();
    if (p.since(6, 6) && !task_based_throttle(p) && cfs_rq_throttled(q) && q.throttled_clock == 0)
        q.throttled_clock = rq_of(q).clock;
}

// distribute_cfs_runtime(): the pool to the throttled queues, oldest first, each given
// what brings its runtime to 1 ns and unthrottled if it got it, until the pool is empty.
// True if a queue it reached stays throttled. The caller has brought the CPUs' clocks up
// to now.
template <class Fair> bool distribute_cfs_runtime(Fair& fair, cfs_bandwidth& b) {
    bool throttled = false;
    for (auto it = b.throttled_cfs_rq.begin(); it != b.throttled_cfs_rq.end();) {
        cfs_rq& q = **it++; // unthrottling removes it from the list
        const s64 runtime = std::min(-q.runtime_remaining + 1, b.runtime);
        b.runtime -= runtime;
        q.runtime_remaining += runtime;
        if (q.runtime_remaining > 0)
            unthrottle_cfs_rq(fair, q);
        else
            throttled = true;
        if (b.runtime == 0)
            break;
    }
    return throttled;
}

// do_sched_cfs_period_timer(): overrun periods have ended. The pool is refilled; a group
// with nothing throttled that asked for no runtime during the last period stops its timer
// (true), otherwise it is marked idle for the next one; with queues throttled the periods
// count as throttled and the pool is handed out.
template <class Fair> bool do_sched_cfs_period_timer(Fair& fair, cfs_bandwidth& b, u64 overrun) {
    if (b.quota == runtime_inf)
        return true;
    bool throttled = !b.throttled_cfs_rq.empty();
    b.nr_periods += overrun;
    // 5.14 (f4183717b370, burst) refills even a group going idle; before, only one that
    // stays active.
    const bool refill_first = fair.params().since(5, 14);
    if (refill_first)
        refill_cfs_bandwidth_runtime(b);
    if (b.idle && !throttled)
        return true;
    if (!refill_first)
        refill_cfs_bandwidth_runtime(b);
    if (!throttled) {
        b.idle = true;
        return false;
    }
    b.nr_throttled += overrun;
    while (throttled && b.runtime > 0)
        throttled = distribute_cfs_runtime(fair, b);
    b.idle = false;
    return false;
}

// sched_cfs_period_timer(): forward by whole periods and run the period's work; restart
// unless the group went idle.
template <class Fair> void sched_cfs_period_timer(Fair& fair, cfs_bandwidth& b) {
    bool idle = false;
    for (;;) {
        const u64 overrun = b.period_timer.forward(b.sim->now(), b.period);
        if (overrun == 0)
            break;
        idle = do_sched_cfs_period_timer(fair, b, overrun);
    }
    if (idle)
        b.period_active = false;
    else
        b.period_timer.start(b.period_timer.expires());
}

// sched_cfs_slack_timer() / do_sched_cfs_slack_timer(): hand out the pool if it holds more
// than a slice, unless the refresh is within min_bandwidth_expiration.
template <class Fair> void sched_cfs_slack_timer(Fair& fair, cfs_bandwidth& b) {
    b.slack_started = false;
    if (runtime_refresh_within(b, min_bandwidth_expiration))
        return;
    if (b.quota != runtime_inf && b.runtime > b.slice)
        distribute_cfs_runtime(fair, b);
}

} // namespace bandwidth
} // namespace libsched
