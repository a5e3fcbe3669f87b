#pragma once
// struct rq: one per CPU. Holds the fair run queue and what the core scheduler needs.
#include <cstdint>
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/task.hpp>

namespace libsched {

struct rq {
    int cpu = 0;
    cfs_rq cfs;
    task* curr = nullptr;     // nullptr: the idle task runs
    bool need_resched = false; // TIF_NEED_RESCHED on curr
    std::uint64_t nr_switches = 0;
    sim_time clock_task = 0; // rq_clock_task(): wall clock less accounted IRQ time
    duration irq_time = 0;   // IRQ time accounted so far (no steal time is modelled)

    explicit rq(int id = 0, bool eevdf = true) : cpu(id), cfs(eevdf) {}
    rq(const rq&) = delete;
    rq& operator=(const rq&) = delete;
};

// resched_curr(): ask the CPU to reschedule at its next preemption point.
inline void resched_curr(rq& r) { r.need_resched = true; }

} // namespace libsched
