#pragma once
// idle_sched_class (kernel/sched/idle.c): the class of each CPU's idle task, picked when no
// other class has anything to run. Its task never queues, sleeps or is ticked for time.
#include <libsched/sched/sched_class.hpp>

namespace libsched {

class idle_sched_class final : public sched_class {
public:
    idle_sched_class() : sched_class(sched_class_rank::idle) {}

    void enqueue_task(rq&, task&, enqueue_flags) override {}
    bool dequeue_task(rq&, task&, dequeue_flags) override { return true; }
    // pick_task_idle(): always the CPU's idle task.
    task* pick_next_task(rq& r, task&) override { return &r.idle; }
    void put_prev_task(rq&, task&) override {}
    void set_next_task(rq&, task&) override {}
    void task_tick(rq&, task&, bool) override {}
    // wakeup_preempt_idle(): anything that wakes preempts the idle task.
    void wakeup_preempt(rq& r, task&, wake_flags) override {
        resched_curr(r, resched_reason::wakeup_preempt);
    }
    void update_curr(rq&) override {}
    void yield_task(rq&) override {} // the idle task makes no system calls
    int select_task_rq(task& p, int, int, wake_flags) override { return p.cpu; }
    bool balance(rq&, task&) override { return true; }
    void migrate_task_rq(task&, int) override {}
    void task_fork(rq&, task&) override {}
    void reweight_task(rq&, task&, load_weight) override {}
    void prio_changed(rq&, task&, int) override {}
    void switched_to(rq&, task&) override {}
    std::optional<duration> hrtick_delay(rq&, bool) override { return std::nullopt; }
};

} // namespace libsched
