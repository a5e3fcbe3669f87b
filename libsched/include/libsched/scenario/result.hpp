#pragma once
// Results of a scenario: per repetition, per task and per CPU, with the provenance of the
// numbers. Each struct lists first what user space can read on a real machine too
// (/proc/PID/stat, /proc/PID/sched and schedstat, getrusage, /proc/stat), then the model's
// internals, which only a simulation has; the JSON document keeps the latter under "model".
#include <array>
#include <cstdint>
#include <libsched/scenario/duration_samples.hpp>
#include <libsched/scenario/provenance.hpp>
#include <libsched/sched/balance_counters.hpp>
#include <libsched/sched/reason.hpp>
#include <libsched/sched/sched_policy.hpp>
#include <libsched/sched/types.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libsched {

struct task_result {
    std::string name;  // instance name
    std::string entry; // task_spec name: the scenario's [[tasks]] entry
    int pid = 0;
    int cpu = 0;  // CPU at the end of the run
    int nice = 0; // effective nice at the end (after clamping and renice)
    bool nice_clamped = false;
    sched_policy policy = sched_policy::normal;
    int rt_priority = 0; // SCHED_FIFO / SCHED_RR: 1..99; 0 otherwise

    // Precise clock (se.sum_exec_runtime).
    duration sum_exec_runtime = 0; // whole run
    duration window_runtime = 0;   // inside the window
    double share = 0.0;            // window_runtime / window length (of one CPU)

    // /proc/PID/stat fields 14/15 as read at window start and end (USER_HZ ticks).
    std::int64_t stat_utime_start = 0, stat_utime_end = 0;
    std::int64_t stat_stime_start = 0, stat_stime_end = 0;
    // getrusage(RUSAGE_SELF) as the process reads it at exit (or at the end of the run).
    std::int64_t ru_utime_us = 0;
    std::int64_t ru_stime_us = 0;

    std::uint64_t nvcsw = 0;  // voluntary context switches, whole run
    std::uint64_t nivcsw = 0; // involuntary
    std::uint64_t window_nvcsw = 0;
    std::uint64_t window_nivcsw = 0;
    std::uint64_t nr_migrations = 0; // se.nr_migrations, whole run
    std::uint64_t window_nr_migrations = 0;

    // Wakeup latency: wake (enqueue) -> first run, ns, one entry per wakeup inside the window.
    duration_samples wakeup_latency;
    // Lateness of a task on an absolute timer: first run after a wakeup minus the time it
    // was due, one entry per wakeup in the window, ns (cyclictest's latency).
    duration_samples lateness;
    // Run delay (schedstat's run_delay, /proc/PID/schedstat field 2 summed): each wait on a
    // run queue, from being forked, woken or preempted to the switch that runs the task,
    // ns, one entry per wait ending inside the window; and when the longest one ended (-1:
    // none).
    duration_samples run_delay;
    sim_time run_delay_max_at = -1;
    // What /proc/PID/schedstat shows of them: its run_delay and pcount (fields 2 and 3)
    // grown over the window, their sum and count; all a measurement has of the waits.
    duration window_run_delay = 0;
    std::uint64_t window_pcount = 0;

    sim_time started = 0;
    sim_time exited = -1; // -1: still alive at the end

    // A program of steps: the passes through its phases that ended inside the window, and
    // each one's wall time (from its start, or from the resume / post / write that released a
    // pass beginning with a wait); unset for other behaviours.
    std::optional<std::uint64_t> loops;
    duration_samples loop_time;

    // Model internals: the tick samples (p->utime / p->stime in ticks), which user space
    // only sees blended with the precise clock by cputime_adjust.
    std::int64_t utime_ticks = 0;
    std::int64_t stime_ticks = 0;
    // The window's involuntary switches by what asked for them (window_nivcsw split, by
    // resched_reason; `none` stays 0) and its migrations by what made them
    // (window_nr_migrations split, by migrate_reason): the kernel keeps neither.
    std::array<std::uint64_t, nr_resched_reasons> window_preempted_by{};
    std::array<std::uint64_t, nr_migrate_reasons> window_migrated_by{};
    // With machine.smt_throughput: the work done, in ns of running alone on a core (whole
    // run and window), a model assumption, not something the kernel counts.
    std::optional<double> work_ns;
    std::optional<double> window_work_ns;
};

struct cpu_result {
    int cpu = 0;
    duration busy = 0, idle = 0;               // whole run
    duration window_busy = 0, window_idle = 0; // inside the window
    std::uint64_t nr_switches = 0;
    // Load balancing as /proc/schedstat counts it (all 0 on one CPU): whole run and inside
    // the window.
    balance_counters balance, window_balance;
    // Model internal: interrupt time left out of the tasks' runtime (IRQ time accounting).
    duration irq = 0;
};

// A group's cpu.stat bandwidth lines (cpu_cfs_stat_show(), cpu_extra_stat_show()).
struct cfs_bandwidth_stat {
    std::uint64_t nr_periods = 0;
    std::uint64_t nr_throttled = 0;
    duration throttled_time = 0; // ns: v1 throttled_time; v2 throttled_usec = this / 1000
    std::uint64_t nr_bursts = 0;
    duration burst_time = 0; // ns: v1 burst_time; v2 burst_usec = this / 1000
};

inline cfs_bandwidth_stat operator-(const cfs_bandwidth_stat& a, const cfs_bandwidth_stat& b) {
    return {a.nr_periods - b.nr_periods, a.nr_throttled - b.nr_throttled,
            a.throttled_time - b.throttled_time, a.nr_bursts - b.nr_bursts,
            a.burst_time - b.burst_time};
}

// A cgroup or an autogroup: the CPU time of its tasks and of the groups below it, as the
// cgroup's cpuacct.usage / cpu.stat usage_usec counts it.
struct task_group_result {
    std::string name; // the cgroup's path ("web/api"), or "autogroup-N"
    bool autogroup = false;
    std::string session;      // an autogroup's session
    std::uint64_t shares = 0; // tg->shares at 1024 resolution (cpu.shares; cpu.weight 100 = 1024)
    int nr_tasks = 0;         // tasks started in the group itself
    duration sum_exec_runtime = 0; // whole run
    duration window_runtime = 0;   // inside the window
    double share = 0.0;            // window_runtime / window length (of one CPU)
    // CFS bandwidth control, for a group with a quota (bandwidth = true): its settings and
    // cpu.stat over the whole run and as read at the window's start and end.
    bool bandwidth = false;
    duration quota = 0, period = 0, burst = 0;
    cfs_bandwidth_stat cpu_stat, window_cpu_stat;
};

// An entry's distributions, pooled over its tasks, where the run keeps them per entry
// (scenario::latency_samples); its tasks' own then hold count, sum, minimum and maximum only.
struct entry_samples {
    std::string entry;
    duration_samples wakeup_latency, lateness, run_delay, loop_time;
};

struct repetition_result {
    std::uint64_t seed = 0; // model internal, like events: a real run has no seed
    std::vector<task_result> tasks;
    std::vector<entry_samples> entries; // one per [[tasks]] entry, per-entry samples only
    std::vector<cpu_result> cpus;
    std::vector<task_group_result> task_groups; // parents before children; none without groups
    std::uint64_t events = 0;                   // engine events processed
};

// Where an interrupted run stopped (run_options::interrupt): the repetitions before this one
// finished and are the run's results; this one is left out.
struct interruption {
    int repetition = 0;  // 0-based
    int repetitions = 0; // asked for
    sim_time at = 0;     // the stopped repetition's simulated time
};

struct run_result {
    std::string scenario;
    sim_time window_start = 0, window_end = 0;
    libsched::provenance provenance; // where the numbers come from
    std::vector<repetition_result> repetitions;
    std::optional<interruption> interrupted; // unset: every repetition ran to the end
};

} // namespace libsched
