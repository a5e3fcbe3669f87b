#pragma once
// struct rq: one per CPU. Holds the fair run queue, the CPU's idle task and what the core
// scheduler needs.
#include <boost/intrusive/list.hpp>
#include <cstdint>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/reason.hpp>
#include <libsched/sched/rt_rq.hpp>
#include <libsched/sched/task.hpp>
#include <vector>

namespace libsched {

// rq->cfs_tasks: the queued fair tasks, most recently run at the front; load balancing
// takes from the back.
using cfs_task_list = boost::intrusive::list<
    sched_entity, boost::intrusive::member_hook<sched_entity, decltype(sched_entity::group_node),
                                                &sched_entity::group_node>>;

struct rq {
    int cpu = 0;
    cfs_rq cfs;
    struct rt_rq rt;
    task* curr = &idle;        // the running task, idle when nothing else runs
    bool need_resched = false; // TIF_NEED_RESCHED on curr
    // TIF_NEED_RESCHED_LAZY on curr (6.13+, preempt=lazy): honoured at the CPU's next return
    // to user mode, promoted by its next tick.
    bool need_resched_lazy = false;
    resched_reason resched_why = resched_reason::none; // who set it first
    bool hrtick_active = false; // hrtimer_active(&rq->hrtick_timer): the HRTICK is pending
    // curr came from the fair server, whose budget ran out in that very pick (6.12+): the
    // task still runs until the next reschedule, as __schedule() clears the reschedule
    // the pick's update_curr() asked for.
    bool served_past_budget = false;
    std::uint64_t nr_switches = 0;
    sim_time clock = 0;         // rq_clock(): wall clock at the last update
    sim_time clock_task = 0;    // rq_clock_task(): wall clock less the IRQ time taken out
    duration irq_time = 0;      // IRQ time raised so far (irq_time_read())
    duration prev_irq_time = 0; // IRQ time already taken out of clock_task
    cfs_task_list cfs_tasks;
    // rq->leaf_cfs_rq_list without the root queue: the task groups' queues on this CPU,
    // children before parents (for_each_leaf_cfs_rq_safe()); each says whether it is on the
    // list now (cfs_rq->on_list).
    std::vector<cfs_rq*> leaf_cfs_rqs;
    // Load balancing (CONFIG_SMP): when the next periodic balance is due (jiffies), when the
    // CPU last went idle (rq->idle_stamp), the active balance in flight and where it pushes.
    u64 next_balance = 0;
    sim_time idle_stamp = 0;       // -1 while not idle; 0: idle since boot
    duration avg_idle = 1'000'000; // 2 * migration_cost at boot
    bool active_balance = false;
    int push_cpu = 0;
    bool nohz_tick_stopped = false;
    task idle; // the idle task (swapper/N, pid 0), after the hot fields

    rq(int id, const fair_params& p) : cpu(id), cfs(p.timeline_by_deadline()) {
        cfs.rq = this;
        idle.cpu = id;
        idle.state = task_state::runnable;
    }
    rq(const rq&) = delete;
    rq& operator=(const rq&) = delete;
};

inline bool is_idle_task(const rq& r, const task& t) {
    return &t == &r.idle;
}

// rq->nr_running: the runnable tasks of every class: the fair class's and the RT class's
// while its queue is not throttled (enqueue_top_rt_rq() / dequeue_top_rt_rq()). The
// stopper is left out (the callers that care say so).
inline unsigned nr_running(const rq& r) {
    return r.cfs.h_nr_queued + (r.rt.rt_queued ? r.rt.rt_nr_running : 0u);
}

// idle_cpu(): nothing runs and nothing waits.
inline bool idle_cpu(const rq& r) {
    return r.curr == &r.idle && nr_running(r) == 0;
}

// sched_idle_cpu(): every runnable task is SCHED_IDLE.
inline bool sched_idle_cpu(const rq& r) {
    return nr_running(r) > 0 && r.cfs.h_nr_idle == nr_running(r);
}

// update_rq_clock_task(): the task clock advances by the elapsed time less the IRQ time
// raised meanwhile, never backwards; IRQ time beyond the elapsed time waits for the next
// update. Returns the IRQ time taken out by this update. No steal time is modelled.
inline duration update_rq_clock(rq& r, sim_time now) {
    const duration delta = now - r.clock;
    duration irq_delta = r.irq_time - r.prev_irq_time;
    if (irq_delta > delta)
        irq_delta = delta;
    r.prev_irq_time += irq_delta;
    r.clock_task += delta - irq_delta;
    r.clock = now;
    return irq_delta;
}

// A reschedule, lazy or not, is pending on the CPU.
inline bool resched_pending(const rq& r) {
    return r.need_resched || r.need_resched_lazy;
}

// resched_curr(): ask the CPU to reschedule at its next preemption point. The first
// request since the last switch is the one that preempts.
inline void resched_curr(rq& r, resched_reason why) {
    if (!resched_pending(r))
        r.resched_why = why;
    r.need_resched = true;
}

// resched_curr_lazy() (6.13+): under the lazy preemption model only TIF_NEED_RESCHED_LAZY,
// unless the idle task runs (__resched_curr() asks it outright); otherwise resched_curr().
inline void resched_curr_lazy(rq& r, resched_reason why, bool lazy_preemption) {
    if (!lazy_preemption || is_idle_task(r, *r.curr)) {
        resched_curr(r, why);
        return;
    }
    if (!resched_pending(r))
        r.resched_why = why;
    r.need_resched_lazy = true;
}

} // namespace libsched
