#pragma once
// struct rq: one per CPU. Holds the fair run queue, the CPU's idle task and what the core
// scheduler needs.
#include <cstdint>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/task.hpp>

namespace libsched {

struct rq {
    int cpu = 0;
    cfs_rq cfs;
    task* curr = &idle;        // the running task, idle when nothing else runs
    bool need_resched = false; // TIF_NEED_RESCHED on curr
    std::uint64_t nr_switches = 0;
    sim_time clock = 0;         // rq_clock(): wall clock at the last update
    sim_time clock_task = 0;    // rq_clock_task(): wall clock less the IRQ time taken out
    duration irq_time = 0;      // IRQ time raised so far (irq_time_read())
    duration prev_irq_time = 0; // IRQ time already taken out of clock_task
    task idle;                  // the idle task (swapper/N, pid 0), after the hot fields

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

// resched_curr(): ask the CPU to reschedule at its next preemption point.
inline void resched_curr(rq& r) {
    r.need_resched = true;
}

} // namespace libsched
