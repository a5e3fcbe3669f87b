#pragma once
// Why the scheduler preempted a task or moved it: the kernel function that asked for the
// reschedule (resched_curr()'s caller) or made the move (set_task_cpu()'s caller). The
// kernel keeps no such record; the model does, for the trace (docs/output-format.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace libsched {

enum class resched_reason : std::uint8_t {
    none,
    update_deadline,           // EEVDF: the slice is used up (update_curr())
    protect_slice,             // 6.12+: a protected or PREEMPT_SHORT slice ended early
    check_preempt_tick,        // old CFS: the ideal runtime is used up at the tick
    hrtick,                    // HRTICK: the slice timer expired
    wakeup_preempt,            // a woken, forked or moved task preempts
    prio_changed,              // renice: curr less important (before 5.6: another more)
    switched_to_fair,          // the running task joined the fair class
    sched_yield,               // the running task yielded
    account_cfs_rq_runtime,    // CFS bandwidth: the group's runtime ran out
    unthrottle_cfs_rq,         // CFS bandwidth: a throttled group runs again
    task_tick_rt,              // SCHED_RR: the time slice is used up
    check_preempt_equal_prio,  // RT: an equal-priority wakee's turn, curr being pushable
    sched_rt_runtime_exceeded, // RT throttling
    sched_rt_period_timer,     // RT throttling ends
    push_rt_task,              // RT push: a higher-priority task is queued here
    dl_server,                 // 6.12+ fair server: started, replenished or out of budget
};
inline constexpr std::size_t nr_resched_reasons =
    static_cast<std::size_t>(resched_reason::dl_server) + 1;

inline constexpr std::string_view reason_name(resched_reason r) {
    switch (r) {
    case resched_reason::update_deadline:
        return "update_deadline";
    case resched_reason::protect_slice:
        return "protect_slice";
    case resched_reason::check_preempt_tick:
        return "check_preempt_tick";
    case resched_reason::hrtick:
        return "hrtick";
    case resched_reason::wakeup_preempt:
        return "wakeup_preempt";
    case resched_reason::prio_changed:
        return "prio_changed";
    case resched_reason::switched_to_fair:
        return "switched_to_fair";
    case resched_reason::sched_yield:
        return "sched_yield";
    case resched_reason::account_cfs_rq_runtime:
        return "account_cfs_rq_runtime";
    case resched_reason::unthrottle_cfs_rq:
        return "unthrottle_cfs_rq";
    case resched_reason::task_tick_rt:
        return "task_tick_rt";
    case resched_reason::check_preempt_equal_prio:
        return "check_preempt_equal_prio";
    case resched_reason::sched_rt_runtime_exceeded:
        return "sched_rt_runtime_exceeded";
    case resched_reason::sched_rt_period_timer:
        return "sched_rt_period_timer";
    case resched_reason::push_rt_task:
        return "push_rt_task";
    case resched_reason::dl_server:
        return "dl_server";
    case resched_reason::none:
    default:
        return "";
    }
}

enum class migrate_reason : std::uint8_t {
    select_task_rq,      // wakeup placement
    load_balance,        // the periodic or nohz idle balance
    newidle_balance,     // a CPU about to go idle pulls
    active_load_balance, // the stopper pushes a running task's queue mate
    push_rt_task,
    pull_rt_task,
    set_cpus_allowed, // an affinity change leaves the task's CPU outside its mask
};
inline constexpr std::size_t nr_migrate_reasons =
    static_cast<std::size_t>(migrate_reason::set_cpus_allowed) + 1;

inline constexpr std::string_view reason_name(migrate_reason r) {
    switch (r) {
    case migrate_reason::select_task_rq:
        return "select_task_rq";
    case migrate_reason::load_balance:
        return "load_balance";
    case migrate_reason::newidle_balance:
        return "newidle_balance";
    case migrate_reason::active_load_balance:
        return "active_load_balance";
    case migrate_reason::push_rt_task:
        return "push_rt_task";
    case migrate_reason::pull_rt_task:
        return "pull_rt_task";
    case migrate_reason::set_cpus_allowed:
    default:
        return "set_cpus_allowed";
    }
}

} // namespace libsched
