#pragma once
// A scenario: the machine, the tasks and how to measure. Plain data; io/ reads it from
// TOML, model/ runs it. All times are integer nanoseconds.
#include <cstdint>
#include <libsched/des/random.hpp>
#include <libsched/scenario/container_cpu.hpp>
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/preempt.hpp>
#include <libsched/sched/sched_policy.hpp>
#include <libsched/sched/topology.hpp>
#include <libsched/sched/tunables.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace libsched {

// A random (or constant) duration drawn from the simulator's seeded source.
using des::distribution;

// One event of a program of steps (rt-app's events).
struct step_spec {
    enum class kind {
        run,        // consume `time` of CPU time
        runtime,    // run until `time` of wall time has passed since the step began
        sleep,      // a relative sleep of `time`
        timer,      // sleep until the timer `name`'s next expiry, `time` after its previous one
        suspend,    // wait until resumed (a condition variable, without memory)
        resume,     // wake the task(s) `name` if suspended
        sem_post,   // semaphore `name`: wake its first waiter, else count the post
        sem_wait,   // take a post of semaphore `name`, or wait for one
        yield,      // sched_yield()
        pipe_write, // write a message to pipe `name`: wake its first reader (WF_SYNC)
        pipe_read,  // read a message from pipe `name`, or wait for one
    };
    kind type = kind::run;
    distribution time;     // run, sleep: as drawn; runtime, timer: a constant
    std::string name;      // timer: its ref; resume: a task; sem_*, pipe_*: the semaphore, pipe
    bool relative = false; // timer: mode = "relative" (an expiry found passed restarts from now)
};

// A phase: its steps, run `loop` times in a row (-1: for ever).
struct phase_spec {
    int loop = 1;
    std::vector<step_spec> steps;
};

// Whether a timer ref is the task instance's own (rt-app's "unique" timers) rather than one
// timer shared by every task that names it.
inline bool unique_timer(const std::string& ref) {
    return ref.rfind("unique", 0) == 0;
}

// A steps behaviour's program: the phases, and how many passes through them before the
// task exits (-1: for ever). written_as_phases: the file gave [[phases]] rather than one
// list of steps, so that errors name the field as written.
struct steps_program {
    std::vector<phase_spec> phases;
    int loop = -1;
    bool written_as_phases = false;
};

struct behaviour_spec {
    enum class kind {
        burner,   // always runnable
        periodic, // run `run` ns of CPU, then sleep `sleep` ns (or until the next period), repeat
        random,   // run and sleep drawn from run_dist / sleep_dist
        steps,    // a program of steps in phases (rt-app's events)
    };
    kind type = kind::burner;
    duration run = 0;
    duration sleep = 0;
    distribution run_dist;
    distribution sleep_dist;
    // periodic on an absolute timer (clock_nanosleep(TIMER_ABSTIME)): each burst starts at
    // start + k * period; unset: a relative `sleep` after each burst.
    std::optional<duration> period;
    steps_program steps;
};

struct renice_spec {
    sim_time at = 0;
    int nice = 0;
};

// sched_setaffinity() at a time of the run (as taskset -p): the CPUs allowed from then on.
struct affinity_change_spec {
    sim_time at = 0;
    std::vector<int> cpus;
};

struct task_spec {
    std::string name; // entry name; instances are name, or name.0 .. name.{count-1}
    int count = 1;
    int nice = 0; // as requested; the model clamps to [-20, 19] like setpriority()
    sched_policy policy = sched_policy::normal;
    // SCHED_FIFO / SCHED_RR: sched_param.sched_priority, 1 (lowest) .. 99; 0 otherwise.
    int rt_priority = 0;
    std::vector<int> affinity; // allowed CPUs; empty = all
    std::vector<affinity_change_spec> set_affinity;
    std::string cpuset; // a machine.cpusets name; empty = the root cpuset (every CPU)
    behaviour_spec behaviour;
    sim_time start = 0; // fork time of the first instance; the least one with start_drawn
    // `start` given as a uniform DIST: drawn for each repetition, before the run, so that
    // repetitions meet the tick at different phases.
    std::optional<distribution> start_drawn;
    // The gap between one instance's fork and the next; a drawn gap is drawn anew for each,
    // as a shell's fork + exec of each background process takes its own time.
    distribution stagger;
    // When set, an earlier entry: this entry's first instance forks one stagger gap after
    // that entry's last one (a shell launching the entries one after the other).
    std::string after;
    std::optional<duration> lifetime; // exits lifetime ns after its own start
    std::optional<sim_time> exit_at;  // exits at this absolute time
    std::vector<renice_spec> renice;
    // Share of its CPU time the task spends in the kernel (system calls): the chance that a
    // tick finds it in kernel mode, which decides the utime / stime split user space sees.
    double system_share = 0.0;
    // prctl(PR_SET_TIMERSLACK): the slack of the task's sleeps (0 allowed). Unset: the
    // machine's timer_slack. SCHED_FIFO / SCHED_RR tasks sleep without slack whatever it says.
    std::optional<duration> timer_slack;
    // 6.12+: a requested slice (sched_setattr() sched_runtime); the kernel clamps it to
    // [0.1 ms, 100 ms]. Unset: the base slice.
    std::optional<duration> slice;
    // The task reads its own CPU-time clock (clock_gettime(CLOCK_THREAD_CPUTIME_ID),
    // getrusage(RUSAGE_SELF)) every this much of its run time, as a loop that times its
    // work by CPU time does. Each read is task_sched_runtime(): the class's update_curr(),
    // which may find the slice used up and reschedule. Unset: it never reads it.
    std::optional<duration> cpu_clock_reads;
    // The cpu cgroup the task runs in (a [[cgroups]] path such as "web/api"); empty = the
    // root cgroup.
    std::string cgroup;
    // The session it was started in (setsid()): tasks with the same value share one
    // autogroup. Empty = the boot session, whose autogroup is the root group.
    std::string session;
};

// The name of instance i of an entry: the entry's name for a single instance, else
// name.0 .. name.{count-1}.
inline std::string instance_name(const task_spec& t, int i) {
    return t.count == 1 ? t.name : t.name + "." + std::to_string(i);
}

// A cpu cgroup, as its files read: cgroup v1 cpu.shares, cpu.cfs_quota_us / cfs_period_us /
// cfs_burst_us; v2 cpu.weight or cpu.weight.nice, cpu.max ("quota period"), cpu.max.burst;
// cpu.idle in both. Unset values are the kernel's defaults.
struct cgroup_spec {
    std::string name;               // its path below the root: "web", or "web/api" inside "web"
    std::optional<int> shares;      // v1 cpu.shares (default 1024)
    std::optional<int> weight;      // v2 cpu.weight, 1-10000 (default 100)
    std::optional<int> weight_nice; // v2 cpu.weight.nice, -20..19
    std::optional<duration> quota;  // runtime per period; unset = unlimited ("max", -1)
    std::optional<duration> period; // default 100 ms
    std::optional<duration> burst;  // default 0
    bool idle = false;              // cpu.idle = 1 (5.15+)
    // A container's CPU request in millicores (a pod's resources.requests.cpu), written as
    // the kubelet and the OCI runtime would: cpu.shares on v1, cpu.weight on v2 by the
    // machine's shares_to_weight (scenario/container_cpu.hpp); not with shares or weight.
    std::optional<long long> cpu_request;
};

// The autogroup of a session: /proc/PID/autogroup's nice (default 0).
struct session_spec {
    std::string name;
    int nice = 0;
};

struct machine_spec {
    int cpus = 1;
    // Unset: `cpus` cores of one package sharing one LLC, without SMT.
    std::optional<cpu_topology> topology;
    int online_cpus = 0; // CPUs the kernel sees for tunable scaling; 0 = cpus
    int hz = 250;
    kernel_version kernel{6, 6};
    tunable_scaling scaling = tunable_scaling::log;
    // debugfs-style overrides (scaled values, ns); unset = the release's default.
    std::optional<duration> base_slice_ns;
    std::optional<duration> latency_ns;
    std::optional<duration> min_granularity_ns;
    std::optional<duration> wakeup_granularity_ns;
    std::map<std::string, bool> features; // feature name -> on/off
    // cpuset name -> its CPUs (cpuset.cpus); a task in one runs only there.
    std::map<std::string, std::vector<int>> cpusets;
    calc_delta_mode delta_mode = calc_delta_mode::inverse_multiply;
    // Time from a reschedule request (tick, wakeup) to the pick reading the clock:
    // interrupt return and __schedule() entry. A machine property, not a fitted value.
    duration resched_latency_ns = 1'000;
    // Time the tick interrupt itself takes. With CONFIG_IRQ_TIME_ACCOUNTING (on in the
    // common distribution kernels) it is left out of rq_clock_task, so a task is charged
    // slightly less than TICK_NSEC per tick it runs through. Also a machine property.
    bool irq_time_accounting = true;
    duration tick_irq_ns = 2'000;
    // CONFIG_NO_HZ_IDLE (the distributions' default): an idle CPU stops its tick and
    // restarts it on the tick grid when it gets work. An idle tick changes nothing in the
    // model, so this only saves events; false keeps every tick.
    bool nohz_idle = true;
    // The preemption model (CONFIG_PREEMPT_*, or preempt= with PREEMPT_DYNAMIC); unset:
    // the release's Kconfig default (default_preempt()). none, voluntary and full treat a
    // user-space task alike; lazy (6.13+) lets the fair class's requests to a busy CPU
    // wait for its next return to user mode.
    std::optional<preempt_mode> preempt;
    // The timer slack of a normal task (its timer_slack_ns, inherited from init: 50 us): a
    // sleep becomes a range timer [due, due + slack] (hrtimer_set_expires_range_ns()).
    duration timer_slack_ns = 50'000;
    // The exit latency of the idle state a CPU waits in: an interrupt (a timer, an IPI)
    // that finds the CPU idle is handled that much later. 1 us: C1 / haltpoll.
    duration idle_exit_latency_ns = 1'000;
    // The time an IPI takes from its sender to the handler on the target CPU: a wakeup
    // onto another CPU, the NOHZ balance kick.
    duration ipi_latency_ns = 1'000;
    // The time from the tick hrtimer's expiry, a point of the tick grid, to its handler,
    // drawn for each CPU and expiry: in a VM the host's timer injection. 0 on bare metal
    // to within a microsecond, when every CPU's tick comes at the same instant.
    distribution tick_latency{};
    // CPU time a task spends in the kernel for each of its sleeps (the system call, arming
    // the timer, the switch out and back, the return to user space), charged to it when it
    // next runs, before its work goes on; drawn for each sleep (constant or uniform).
    // 0: the model's tasks sleep and wake for free.
    distribution sleep_cost{};
    // The cgroup hierarchy mounted for the cpu controller: 1 (cpu.shares, cpu.cfs_*) or 2
    // (cpu.weight, cpu.max); it decides which [[cgroups]] keys apply.
    int cgroup_version = 2;
    // sched_autogroup_enabled (1 by default with CONFIG_SCHED_AUTOGROUP, as in the common
    // distribution kernels): tasks of the root cgroup that started a session run in its
    // autogroup.
    bool autogroup = true;
    // How the OCI runtime turns the cpu.shares of a [[cgroups]] cpu_request into cgroup v2
    // cpu.weight: runc >= 1.3.2 / crun >= 1.23 (log-quadratic, the default), older ones
    // (linear), or systemd's CPUShares= rule.
    shares_to_weight_formula shares_to_weight = shares_to_weight_formula::log_quadratic;
    // sysctl_sched_cfs_bandwidth_slice (/proc/sys/kernel/sched_cfs_bandwidth_slice_us): the
    // runtime a CPU's queue of a group with a quota takes from the group's pool at a time.
    duration cfs_bandwidth_slice_ns = 5'000'000;
    // Optional, an assumption about the hardware: the throughput of an SMT thread while
    // another thread of its core also runs, relative to running alone (0 < f <= 1). CPU
    // time is unaffected (the kernel charges each thread alike); it yields a "work" figure
    // per task. Unset: not modelled.
    std::optional<double> smt_throughput;
    // RT bandwidth (sysctl kernel.sched_rt_period_us / sched_rt_runtime_us; runtime -1 =
    // unlimited) and the SCHED_RR slice (kernel.sched_rr_timeslice_ms); unset = 1 s, 950 ms,
    // 100 ms. CONFIG_RT_GROUP_SCHED: from 6.12 RT bandwidth throttles only with it (the
    // root group's sched_rt_runtime per sched_rt_period). 6.12+: the fair server's runtime
    // and period (debugfs sched/fair_server/cpuN); unset = 50 ms per 1 s.
    std::optional<duration> sched_rt_runtime;
    std::optional<duration> sched_rt_period;
    std::optional<duration> sched_rr_timeslice;
    bool rt_group_sched = false;
    std::optional<duration> fair_server_runtime;
    std::optional<duration> fair_server_period;
    // NI_RANDOM (6.19, 6.18.5): the success rate out of 1024 each CPU's sched domains start
    // from (sd->newidle_ratio), one value for every CPU or one per CPU. Empty: sd_init()'s
    // prior of 512. A host's rate reflects its history since boot and moves only every 512
    // newly idle passes, so a run shorter than that keeps the rate it starts with.
    std::vector<int> newidle_ratio;
};

// The NI_RANDOM rate cpu's sched domains start from: machine.newidle_ratio's, else sd_init()'s.
inline int newidle_ratio_of(const machine_spec& m, int cpu) {
    const std::vector<int>& r = m.newidle_ratio;
    return r.empty() ? 512 : r.size() == 1 ? r.front() : r[static_cast<std::size_t>(cpu)];
}

// The preemption model the machine runs: the one set, else the release's default.
inline preempt_mode effective_preempt(const machine_spec& m) {
    return m.preempt.value_or(default_preempt(m.kernel));
}

// The task's effective mask for the requested CPUs (empty = every CPU): their
// intersection with its cpuset's CPUs, as __sched_setaffinity() takes
// cpuset_cpus_allowed(). Empty result = every CPU; all false = nothing allowed (the
// kernel's -EINVAL, which validate() rejects). Needs a valid scenario.
inline std::vector<bool> effective_cpus(const machine_spec& m, const task_spec& t,
                                        const std::vector<int>& requested) {
    const auto n = static_cast<std::size_t>(m.cpus);
    const auto set = t.cpuset.empty() ? m.cpusets.end() : m.cpusets.find(t.cpuset);
    if (requested.empty() && set == m.cpusets.end())
        return {};
    std::vector<bool> mask(n, requested.empty());
    for (int c : requested)
        if (c >= 0 && static_cast<std::size_t>(c) < n)
            mask[static_cast<std::size_t>(c)] = true;
    if (set != m.cpusets.end()) {
        std::vector<bool> in_set(n, false);
        for (int c : set->second)
            if (c >= 0 && static_cast<std::size_t>(c) < n)
                in_set[static_cast<std::size_t>(c)] = true;
        for (std::size_t c = 0; c < n; ++c)
            mask[c] = mask[c] && in_set[c];
    }
    return mask;
}

inline cpu_topology topology_of(const machine_spec& m) {
    return m.topology ? *m.topology : symmetric_topology(1, m.cpus, 1);
}

// How far a prediction may lie from a measurement and still agree with it: the precision
// of the measurement itself (a figure rounded to whole percent is known to +-0.5 points).
struct tolerance_spec {
    std::optional<double> share;  // absolute, in shares of one CPU: 0.005 = +-0.5 points
    std::optional<double> ratio;  // relative: 0.03 = +-3% of the measured ratio
    std::optional<double> jratio; // relative, for a two-group figure's jiffy ratio
};

// A two-group experiment: groups A and B of tasks, and A's CPU time over B's measured two
// ways. ratio: the sum over A of getrusage utime, each process reading it at its exit, over
// the same for B; jratio: the same of /proc/PID/stat utime deltas over the window (jiffies).
struct group_ratio_spec {
    std::string a, b;                // the entries of groups A and B
    std::string combo;               // the figure's name for the pairing ("n10")
    std::vector<double> ratio_runs;  // each measured run's ratio
    std::vector<double> jratio_runs; // and jratio
    double ratio = 0;                // the medians over the runs
    double jratio = 0;
    // A over B by the source's own weight table, which may not be the kernel's.
    std::optional<double> claimed_theory;
};

// perf stat over the process tree of one run.
struct perf_stat_spec {
    double context_switches = 0;
    double cpu_migrations = 0;
    double task_clock_ms = 0;
    double cpus_utilized = 0;
};

// Reference values a replay compares with (from a measurement write-up).
struct measured_spec {
    std::string source;                  // where the numbers come from
    std::map<std::string, double> share; // entry -> share of one CPU in the window
    std::map<std::string, double> ratio; // entry -> ratio to the reference entry
    std::optional<group_ratio_spec> groups;
    std::optional<perf_stat_spec> perf_stat; // shown beside the run's counters, never judged:
                                             // one run states no spread
    // false: shown for comparison only, as when the measurement ran another kernel release.
    bool judged = true;
    tolerance_spec tolerance;
    // Quantities ("share", "ratio", "jratio") the model is known to miss, each explained
    // where the scenario says: shown as outside, not counted as a miss; one that comes
    // within its tolerance is a miss, so a mark never outlives the gap.
    std::vector<std::string> known_gaps;
};

// Where a run keeps the distributions of wakeup latency, lateness, run delay and loop time:
// per task (each task's percentiles are reported), or per [[tasks]] entry (the entries'
// percentiles only; each task keeps its count, mean, minimum and maximum, so its memory
// stays flat however long the run).
enum class sample_scope { task, entry };

struct scenario {
    std::string name;
    std::string description;
    machine_spec machine;
    std::vector<cgroup_spec> cgroups;
    std::vector<session_spec> sessions;
    std::vector<task_spec> tasks;
    duration length = 10 * nsec_per_sec; // simulated time
    sim_time window_start = 0;           // measurement window [start, end)
    std::optional<sim_time> window_end;  // unset = length
    int repetitions = 1;
    std::uint64_t seed = 1; // repetition r uses seed + r
    std::string reference;  // entry for the ratio column
    sample_scope latency_samples = sample_scope::task;
    measured_spec measured;

    sim_time window_stop() const { return window_end.value_or(length); }
};

} // namespace libsched
