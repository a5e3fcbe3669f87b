#pragma once
// stop_sched_class (kernel/sched/stop_task.c): the class of each CPU's stopper thread
// ("migration/N"), above every other. The core wakes it for work that must run on that
// CPU with nothing else running there, such as pushing away the task it preempted in an
// active balance.
#include <libsched/sched/sched_class.hpp>
#include <vector>

namespace libsched {

class stop_sched_class final : public sched_class {
public:
    explicit stop_sched_class(int cpus)
        : sched_class(sched_class_rank::stop), queued_(static_cast<std::size_t>(cpus), nullptr) {}

    void enqueue_task(rq& r, task& p, enqueue_flags) override {
        queued_[static_cast<std::size_t>(r.cpu)] = &p;
        p.se.on_rq = true;
    }
    bool dequeue_task(rq& r, task& p, dequeue_flags) override {
        queued_[static_cast<std::size_t>(r.cpu)] = nullptr;
        p.se.on_rq = false;
        return true;
    }
    // pick_task_stop() + set_next_task_stop(): the stopper while it has work, its clock
    // started.
    task* pick_next_task(rq& r, task&) override {
        task* stopper = queued_[static_cast<std::size_t>(r.cpu)];
        if (stopper != nullptr)
            set_next_task(r, *stopper);
        return stopper;
    }
    // put_prev_task_stop(): update_curr_common() charges its run.
    void put_prev_task(rq& r, task& prev) override {
        const duration delta = r.clock_task - prev.se.exec_start;
        if (delta > 0) {
            prev.se.sum_exec_runtime += delta;
            prev.se.exec_start = r.clock_task;
        }
    }
    void set_next_task(rq& r, task& next) override { next.se.exec_start = r.clock_task; }
    void task_tick(rq&, task&, bool) override {}
    void wakeup_preempt(rq&, task&, wake_flags) override {}
    void update_curr(rq&) override {}
    void yield_task(rq&) override {} // the stopper never yields (yield_task_stop() is BUG())
    // select_task_rq_stop(): a stopper never leaves its CPU.
    int select_task_rq(task& p, int, int, wake_flags) override { return p.cpu; }
    bool balance(rq& r, task&) override {
        return queued_[static_cast<std::size_t>(r.cpu)] != nullptr;
    }
    void migrate_task_rq(task&, int) override {}
    void task_fork(rq&, task&) override {}
    void reweight_task(rq&, task&, load_weight) override {}
    void prio_changed(rq&, task&, int) override {}
    void switched_to(rq&, task&) override {}
    std::optional<duration> hrtick_delay(rq&, bool) override { return std::nullopt; }

private:
    std::vector<task*> queued_; // per CPU: its stopper if woken
};

} // namespace libsched
