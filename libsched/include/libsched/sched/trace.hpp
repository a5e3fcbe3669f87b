#pragma once
// Scheduling events as the kernel's tracepoints name them (sched_wakeup_new, sched_wakeup,
// sched_switch, sched_migrate_task, sched_process_exit), handed to a trace sink as they happen.
#include <functional>
#include <libsched/sched/types.hpp>
#include <string_view>

namespace libsched {

enum class trace_kind {
    sched_wakeup_new,
    sched_wakeup,
    sched_switch,
    sched_migrate_task,
    sched_process_exit,
};

inline constexpr std::string_view trace_name(trace_kind k) {
    switch (k) {
    case trace_kind::sched_wakeup_new:
        return "sched_wakeup_new";
    case trace_kind::sched_wakeup:
        return "sched_wakeup";
    case trace_kind::sched_switch:
        return "sched_switch";
    case trace_kind::sched_migrate_task:
        return "sched_migrate_task";
    case trace_kind::sched_process_exit:
    default:
        return "sched_process_exit";
    }
}

// The idle task's name; it has pid 0, as the CPUs' stoppers (migration/N) do here.
inline constexpr std::string_view idle_comm = "swapper";

inline bool is_idle_in_trace(int pid, std::string_view comm) {
    return pid == 0 && comm == idle_comm;
}

// pid 0 is the idle task (swapper) or a stopper (migration/N). For sched_switch, pid/comm are
// prev's and prev_state is what ftrace prints: R (preempted, still runnable), S (blocked), X
// (exiting). The views are valid during the call only.
struct trace_event {
    trace_kind kind = trace_kind::sched_switch;
    int repetition = 0;
    sim_time time = 0;
    int cpu = 0;
    int pid = 0;
    std::string_view comm;
    char prev_state = 'R';
    int next_pid = 0;
    std::string_view next_comm;
    int dest_cpu = -1; // sched_migrate_task: where the task goes (cpu is where it was)
    // sched_switch of a preempted task (prev_state R): the kernel function that asked for
    // the reschedule; sched_migrate_task: the one that moved it (sched/reason.hpp).
    std::string_view reason;
};

using trace_sink = std::function<void(const trace_event&)>;

} // namespace libsched
