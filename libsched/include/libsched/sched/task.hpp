#pragma once
// The scheduler's view of a task (struct task_struct): its entity, class, policy, CPU and
// the counters user space reads. Workload behaviour lives in model/, not here.
#include <libsched/sched/sched_entity.hpp>
#include <libsched/sched/sched_policy.hpp>
#include <libsched/sched/sched_rt_entity.hpp>
#include <string>
#include <vector>

namespace libsched {

class sched_class;
struct task_group;

enum class task_state {
    not_started,
    runnable, // TASK_RUNNING: queued or on a CPU
    sleeping, // blocked (possibly still queued as sched_delayed on 6.12+)
    dead,
};

// prev_cputime: what cputime_adjust last reported, so reports never go backwards.
struct prev_cputime {
    duration utime = 0;
    duration stime = 0;
};

struct task {
    sched_entity se;
    sched_rt_entity rt;
    class sched_class* sched_class = nullptr;
    int pid = 0;
    std::string comm; // the name tracepoints print
    int cpu = 0;      // task_cpu()
    int nice = 0;     // effective (clamped) nice
    sched_policy policy = sched_policy::normal;
    int rt_priority = 0; // SCHED_FIFO / SCHED_RR: 1 (lowest) .. 99; 0 for the fair policies
    task_state state = task_state::not_started;
    std::vector<bool> cpus_allowed; // empty = every CPU
    int recent_used_cpu = -1;       // wakeup placement's second choice after prev
    // record_wakee(): how often this task, as a waker, switched to waking another task
    // (halved at most once a second, from wakee_flip_decay_ts in jiffies); wake_wide()
    // compares waker and wakee. A new task starts with none.
    unsigned wakee_flips = 0;
    std::uint64_t wakee_flip_decay_ts = 0;
    const task* last_wakee = nullptr;
    // The task's group (task_group(p)): its cpu cgroup, or its autogroup when that is the
    // root; the core sets the root group at sched_fork() if none was given.
    struct task_group* sched_task_group = nullptr;
    // TASK_ON_RQ_MIGRATING: a queued task being moved to another CPU (dequeued here,
    // set_task_cpu(), enqueued there), set by whoever moves it for the duration of the move.
    bool migrating = false;
    // p->throttled (6.18+ task-based CFS bandwidth throttling): dequeued by its group's
    // throttle at its return to user mode and parked on its queue's throttled_limbo_list,
    // still TASK_RUNNING, until the hierarchy is unthrottled (sched/bandwidth.hpp).
    bool throttled = false;

    // Tick-sampled times (p->utime / p->stime), ns, in whole ticks.
    duration utime = 0;
    duration stime = 0;
    prev_cputime prev_cputime_proc; // /proc reads and getrusage share signal->prev_cputime
    std::uint64_t nvcsw = 0;        // voluntary context switches
    std::uint64_t nivcsw = 0;       // involuntary

    task() {
        se.owner = this;
        rt.owner = this;
    }
    task(const task&) = delete;
    task& operator=(const task&) = delete;

    // p->nr_cpus_allowed
    int nr_cpus_allowed(int nr_cpus) const {
        if (cpus_allowed.empty())
            return nr_cpus;
        int n = 0;
        for (bool b : cpus_allowed)
            n += b ? 1 : 0;
        return n;
    }

    bool allowed_on(int c) const {
        return cpus_allowed.empty() ||
               (c >= 0 && static_cast<std::size_t>(c) < cpus_allowed.size() &&
                cpus_allowed[static_cast<std::size_t>(c)]);
    }
};

// MAX_RT_PRIO, DEFAULT_PRIO (include/linux/sched/prio.h)
inline constexpr int max_rt_prio = 100;
inline constexpr int default_prio = max_rt_prio + 20;

// p->prio as normal_prio() gives it (no priority inheritance is modelled): 99 - rt_priority
// for SCHED_FIFO / SCHED_RR (0 the highest), 120 + nice otherwise.
inline int task_prio(const task& p) {
    return rt_policy(p.policy) ? max_rt_prio - 1 - p.rt_priority : default_prio + p.nice;
}

} // namespace libsched
