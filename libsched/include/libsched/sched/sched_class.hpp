#pragma once
// struct sched_class (kernel/sched/sched.h): the hooks the core scheduler calls on a
// task's class, and the order in which classes are asked for a task to run.
#include <libsched/sched/flags.hpp>
#include <libsched/sched/rq.hpp>
#include <optional>

namespace libsched {

// Highest first: a runnable task of an earlier class always runs before one of a later
// class (stop > deadline, with the 6.12+ fair server > RT > fair > idle). The deadline class
// is there only as the fair server (sched/deadline.hpp), which the core asks directly.
enum class sched_class_rank { stop, deadline, rt, fair, idle };

class sched_class {
public:
    explicit sched_class(sched_class_rank r) : rank(r) {}
    sched_class(const sched_class&) = delete;
    sched_class& operator=(const sched_class&) = delete;

    const sched_class_rank rank;

    // enqueue_task / dequeue_task: dequeue returns false if the task stays queued
    // (6.12+ DELAY_DEQUEUE).
    virtual void enqueue_task(rq& r, task& p, enqueue_flags flags) = 0;
    virtual bool dequeue_task(rq& r, task& p, dequeue_flags flags) = 0;

    // pick_next_task(): the next task of this class, prev put back if it is of this class
    // and not picked again; nullptr if the class has nothing to run.
    virtual task* pick_next_task(rq& r, task& prev) = 0;
    // put_prev_task / set_next_task, around a change of a running task (and at a switch).
    virtual void put_prev_task(rq& r, task& prev) = 0;
    virtual void set_next_task(rq& r, task& next) = 0;

    // task_tick(): the periodic tick, or (queued) the HRTICK timer, hit the running task.
    virtual void task_tick(rq& r, task& curr, bool queued) = 0;
    // wakeup_preempt(): may the woken (or forked, or reniced) task p preempt curr, of the
    // same class?
    virtual void wakeup_preempt(rq& r, task& p, wake_flags flags) = 0;
    // update_curr(): charge the running task up to the rq clock.
    virtual void update_curr(rq& r) = 0;
    // yield_task(): the running task calls sched_yield(); schedule() follows.
    virtual void yield_task(rq& r) = 0;

    // select_task_rq(): the CPU a waking or new task goes to, asked on this_cpu (the
    // waker's, or the forking parent's).
    virtual int select_task_rq(task& p, int prev_cpu, int this_cpu, wake_flags flags) = 0;
    // balance(): pull work before a pick (newly-idle balancing); true if this class has a
    // task to run.
    virtual bool balance(rq& r, task& prev) = 0;
    // migrate_task_rq(): p leaves its CPU for new_cpu (from set_task_cpu()).
    virtual void migrate_task_rq(task& p, int new_cpu) = 0;

    // task_fork(): a new task's class state, before its first enqueue.
    virtual void task_fork(rq& r, task& p) = 0;
    // reweight_task(): p's weight changes (set_load_weight() from set_user_nice()).
    virtual void reweight_task(rq& r, task& p, load_weight lw) = 0;
    // prio_changed(): after p's priority changed (renice), from old_nice.
    virtual void prio_changed(rq& r, task& p, int old_nice) = 0;
    // switched_to(): p joined this class (sched_setscheduler()).
    virtual void switched_to(rq& r, task& p) = 0;

    // With HRTICK, how long the running task may still run before its slice ends
    // (hrtick_start_fair()); nothing when the timer is to be left as it is. enqueue: asked
    // after an enqueue (hrtick_update()) rather than at the pick. Asked only under HRTICK
    // (the core tests it first, as hrtick_enabled_fair() does).
    virtual std::optional<duration> hrtick_delay(rq& r, bool enqueue) = 0;

protected:
    ~sched_class() = default;
};

// sched_class_above(a, b)
inline bool sched_class_above(const sched_class& a, const sched_class& b) {
    return a.rank < b.rank;
}

} // namespace libsched
