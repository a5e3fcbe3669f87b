#pragma once
// What user space sees of the tasks (over the core scheduler Core, a basic_core), taken as a real
// measurement would take it: the wakeup latency of each wakeup, the run delay (schedstat) of each
// wait on a run queue, getrusage() as the process reads it
// at exit, /proc/PID/stat and the switch counters read at the window's ends, CPU busy time and
// the load balancer's counters.
#include <array>
#include <cstdint>
#include <libsched/des/member_call.hpp>
#include <libsched/model/smt_work.hpp>
#include <libsched/model/task_index.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/core.hpp>
#include <libsched/sched/cputime.hpp>
#include <optional>
#include <vector>

namespace libsched {

template <class Core> class observer {
public:
    // Observations come after everything else of their instant.
    static constexpr des::event_order observe_order = 7;

    observer(des::simulator& sim, Core& c, const scenario& sc)
        : sim_(sim), core_(c), window_start_(sc.window_start), window_stop_(sc.window_stop()),
          cpus_(static_cast<std::size_t>(c.nr_cpus())), observe_h_(this) {
        if (sc.latency_samples == sample_scope::entry)
            pools_.resize(sc.tasks.size());
        if (sc.machine.smt_throughput)
            smt_.emplace(topology_of(sc.machine), *sc.machine.smt_throughput);
        sim_.schedule_at(window_start_, observe_order, observe_h_, 0);
        if (window_stop_ < sc.length)
            sim_.schedule_at(window_stop_, observe_order, observe_h_, 1);
    }
    observer(const observer&) = delete;
    observer& operator=(const observer&) = delete;

    // Room for n tasks, so that the records are not moved (or held twice) as tasks come.
    void reserve(std::size_t n) {
        tasks_.reserve(n);
        records_.reserve(n);
        waits_.reserve(n);
    }

    // steps: the task runs a program of steps, whose passes are counted; entry: its
    // [[tasks]] entry.
    void add(task& t, bool steps = false, std::size_t entry = 0) {
        tasks_.push_back(&t);
        record& rc = records_.emplace_back();
        rc.steps = steps;
        if (!pools_.empty()) { // the values go to the entry's pool, the task keeps statistics
            rc.pool = &pools_.at(entry);
            rc.latencies = rc.lateness = rc.run_delay = rc.loop_time =
                duration_samples::statistics_only();
        }
        waits_.emplace_back();
        if (smt_)
            smt_->add(t);
    }

    // The task was woken: its wakeup latency runs until it next gets a CPU; a task that
    // was due at `due` (an absolute timer) also has that lateness measured. Only wakeups
    // inside the window count.
    void woke(const task& t, std::optional<sim_time> due = std::nullopt) {
        wait& w = wait_of(t);
        const sim_time now = sim_.now();
        const bool in_window = now >= window_start_ && now < window_stop_;
        w.wake_time = in_window ? now : -1;
        w.due = in_window && due ? *due : -1;
        became_runnable(t);
    }
    // A program of steps finished a pass begun at `began`; passes ending inside the window
    // count.
    void loop_done(const task& t, sim_time began) {
        const sim_time now = sim_.now();
        if (now < window_start_ || now >= window_stop_)
            return;
        record& rc = rec(t);
        ++rc.loops;
        add(rc, &samples::loop_time, now - began);
    }
    // The task was forked: it waits for its first run from now.
    void forked(const task& t) { became_runnable(t); }
    void switched_in(const task& t) {
        if (smt_)
            smt_->set_running(t.cpu, &t, sim_.now());
        const std::size_t i = task_index(t);
        wait& w = waits_[i];
        const sim_time now = sim_.now();
        if (w.runnable_since >= 0) {
            // Counted when the wait ends, as sched_info_arrive() adds it to run_delay:
            // the waits ending after the window's start snapshot and up to its end one
            // (both come after everything else of their instant).
            const duration d = now - w.runnable_since;
            w.runnable_since = -1;
            if (in_window_counters(now)) {
                if (d > w.run_delay_max) {
                    w.run_delay_max = d;
                    records_[i].run_delay_max_at = now;
                }
                w.run_delays[w.run_delays_held++] = d;
                if (w.run_delays_held == w.run_delays.size())
                    hand_over_run_delays(i);
            }
        }
        if (w.wake_time >= 0) {
            add(records_[i], &samples::latencies, now - w.wake_time);
            w.wake_time = -1;
        }
        if (w.due >= 0) {
            add(records_[i], &samples::lateness, now - w.due);
            w.due = -1;
        }
    }
    // why: what preempted t, none if it blocked or exited.
    void switched_out(const task& t, resched_reason why) {
        if (smt_)
            smt_->set_running(t.cpu, nullptr, sim_.now());
        if (t.state == task_state::runnable) // preempted: back to waiting on the queue
            wait_of(t).runnable_since = sim_.now();
        if (why != resched_reason::none && in_window_counters(sim_.now()))
            ++rec(t).preempted_by[static_cast<std::size_t>(why)];
    }
    void migrated(const task& t, migrate_reason why) {
        if (in_window_counters(sim_.now()))
            ++rec(t).migrated_by[static_cast<std::size_t>(why)];
    }
    // The process reads getrusage(RUSAGE_SELF) and exits.
    void exiting(task& t) {
        read_rusage(t);
        rec(t).exited = sim_.now();
    }

    // The window's end, when it is the end of the run (no event runs at `length`).
    void observe_end() { observe(1); }

    // One task's results: the window figures from the snapshots, getrusage() at exit (or
    // now, for a task still alive), the counters.
    task_result task_figures(task& t) {
        hand_over_run_delays(task_index(t));
        record& rc = rec(t);
        if (t.state != task_state::dead && t.state != task_state::not_started)
            read_rusage(t);
        const duration window = window_stop_ - window_start_;
        task_result tr;
        tr.pid = t.pid;
        tr.cpu = t.cpu;
        tr.nice = t.nice;
        tr.sum_exec_runtime =
            t.state == task_state::dead ? t.se.sum_exec_runtime : core_.task_sched_runtime(t);
        tr.window_runtime = rc.at_end.runtime - rc.at_start.runtime;
        tr.share =
            window > 0 ? static_cast<double>(tr.window_runtime) / static_cast<double>(window) : 0.0;
        tr.stat_utime_start = rc.at_start.stat_utime;
        tr.stat_utime_end = rc.at_end.stat_utime;
        tr.stat_stime_start = rc.at_start.stat_stime;
        tr.stat_stime_end = rc.at_end.stat_stime;
        tr.ru_utime_us = rc.ru_utime_us;
        tr.ru_stime_us = rc.ru_stime_us;
        const duration tick = core_.params().tun.tick_nsec;
        tr.utime_ticks = t.utime / tick;
        tr.stime_ticks = t.stime / tick;
        tr.nvcsw = t.nvcsw;
        tr.nivcsw = t.nivcsw;
        tr.window_nvcsw = rc.at_end.nvcsw - rc.at_start.nvcsw;
        tr.window_nivcsw = rc.at_end.nivcsw - rc.at_start.nivcsw;
        tr.nr_migrations = t.se.nr_migrations;
        tr.window_nr_migrations = rc.at_end.nr_migrations - rc.at_start.nr_migrations;
        tr.window_preempted_by = rc.preempted_by;
        tr.window_migrated_by = rc.migrated_by;
        tr.wakeup_latency = rc.latencies;
        tr.lateness = rc.lateness;
        tr.run_delay = rc.run_delay;
        tr.run_delay_max_at = rc.run_delay_max_at;
        tr.window_run_delay = static_cast<duration>(rc.run_delay.sum());
        tr.window_pcount = rc.run_delay.size();
        tr.exited = rc.exited;
        tr.loop_time = rc.loop_time; // empty unless the task runs a program of steps
        if (rc.steps)
            tr.loops = rc.loops;
        if (smt_) {
            tr.work_ns = smt_->work_ns(t, sim_.now());
            tr.window_work_ns = rc.at_end.work_ns - rc.at_start.work_ns;
        }
        return tr;
    }

    // Each entry's pooled distributions, in the scenario's order; none unless the scenario
    // keeps them per entry.
    std::vector<entry_samples> entry_figures(const scenario& sc) {
        if (pools_.empty())
            return {};
        for (std::size_t i = 0; i < records_.size(); ++i)
            hand_over_run_delays(i);
        std::vector<entry_samples> out;
        for (std::size_t e = 0; e < pools_.size(); ++e)
            out.push_back({sc.tasks[e].name, pools_[e].latencies, pools_[e].lateness,
                           pools_[e].run_delay, pools_[e].loop_time});
        return out;
    }

    cpu_result cpu_figures(int cpu) const {
        const cpu_window& w = cpus_[static_cast<std::size_t>(cpu)];
        cpu_result cr;
        cr.cpu = cpu;
        cr.busy = core_.cpu_busy(cpu);
        cr.idle = sim_.now() - cr.busy;
        cr.window_busy = w.busy_at_end - w.busy_at_start;
        cr.window_idle = (window_stop_ - window_start_) - cr.window_busy;
        cr.nr_switches = core_.cpu_rq(cpu).nr_switches;
        cr.balance = balance_of(cpu);
        cr.window_balance = counters_between(w.balance_at_start, w.balance_at_end);
        cr.irq = core_.cpu_irq(cpu);
        return cr;
    }

private:
    struct snapshot {
        duration runtime = 0;
        std::int64_t stat_utime = 0, stat_stime = 0;
        std::uint64_t nvcsw = 0, nivcsw = 0;
        std::uint64_t nr_migrations = 0;
        double work_ns = 0; // with the SMT throughput model
    };
    // What every switch and wakeup reads and writes, in a cache line of its own apart from
    // the rest of the record. The last run delays wait here and go to the record's
    // duration_samples a few at a time, in their order (the same add() calls): with
    // thousands of tasks, reaching that memory at every switch cost several cache misses.
    struct alignas(64) wait {
        sim_time wake_time = -1;      // pending wakeup-latency measurement
        sim_time due = -1;            // pending lateness measurement: when the wakeup was due
        sim_time runnable_since = -1; // pending run delay: waiting on a queue since then
        duration run_delay_max = -1;  // the largest run delay recorded (-1: none yet)
        std::array<duration, 3> run_delays{}; // recorded, not yet in record::run_delay
        std::uint8_t run_delays_held = 0;
    };
    struct samples {
        duration_samples latencies;
        duration_samples lateness;
        duration_samples run_delay;
        duration_samples loop_time;
    };
    struct record : samples {
        samples* pool = nullptr; // the entry's, where the values are kept per entry
        sim_time run_delay_max_at = -1;
        snapshot at_start, at_end;
        std::int64_t ru_utime_us = 0, ru_stime_us = 0;
        sim_time exited = -1;
        bool steps = false;
        std::uint64_t loops = 0;
        std::array<std::uint64_t, nr_resched_reasons> preempted_by{};
        std::array<std::uint64_t, nr_migrate_reasons> migrated_by{};
    };
    struct cpu_window {
        duration busy_at_start = 0, busy_at_end = 0;
        balance_counters balance_at_start, balance_at_end;
    };

    // The CPU's balancing counters so far (none on one CPU: no balancer).
    balance_counters balance_of(int cpu) const {
        const auto* lb = core_.balancer();
        return lb ? lb->counters(cpu) : balance_counters{};
    }

    // A counter changed at `now` differs between the window's snapshots, which come after
    // everything else of their instant: from just after its start to its end.
    bool in_window_counters(sim_time now) const {
        return now > window_start_ && now <= window_stop_;
    }

    record& rec(const task& t) { return records_[task_index(t)]; }
    wait& wait_of(const task& t) { return waits_[task_index(t)]; }

    // Runnable but not running from now (a wakeup of the running task changes nothing).
    // The core calls switched_out() before the switch, so this is not for a preemption.
    void became_runnable(const task& t) {
        if (core_.task_rq(t).curr != &t)
            wait_of(t).runnable_since = sim_.now();
    }

    // A measurement for the task, and for its entry's pool if there is one.
    static void add(record& rc, duration_samples samples::*kind, duration d) {
        (rc.*kind).add(d);
        if (rc.pool != nullptr)
            (rc.pool->*kind).add(d);
    }

    void hand_over_run_delays(std::size_t i) {
        wait& w = waits_[i];
        for (std::size_t k = 0; k < w.run_delays_held; ++k)
            add(records_[i], &samples::run_delay, w.run_delays[k]);
        w.run_delays_held = 0;
    }

    // getrusage(RUSAGE_SELF) by the process itself: its own pending runtime counts.
    void read_rusage(task& t) {
        const adjusted_cputime a =
            cputime_adjust(core_.task_sched_runtime(t), t.utime, t.stime, t.prev_cputime_proc);
        record& rc = rec(t);
        rc.ru_utime_us = a.utime / nsec_per_usec;
        rc.ru_stime_us = a.stime / nsec_per_usec;
    }

    // Window observation: /proc/PID/stat as another process reads it (a running task's
    // runtime as of its last update), the precise runtime, switch counters, CPU busy time.
    void observe(std::uint64_t which) {
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            task& t = *tasks_[i];
            snapshot& s = which == 0 ? records_[i].at_start : records_[i].at_end;
            if (t.state == task_state::not_started)
                continue;
            const adjusted_cputime a =
                cputime_adjust(t.se.sum_exec_runtime, t.utime, t.stime, t.prev_cputime_proc);
            s.stat_utime = nsec_to_clock_t(a.utime);
            s.stat_stime = nsec_to_clock_t(a.stime);
            s.runtime =
                t.state == task_state::dead ? t.se.sum_exec_runtime : core_.task_sched_runtime(t);
            s.nvcsw = t.nvcsw;
            s.nivcsw = t.nivcsw;
            s.nr_migrations = t.se.nr_migrations;
            if (smt_)
                s.work_ns = smt_->work_ns(t, sim_.now());
        }
        for (std::size_t c = 0; c < cpus_.size(); ++c) {
            const duration b = core_.cpu_busy(static_cast<int>(c));
            (which == 0 ? cpus_[c].busy_at_start : cpus_[c].busy_at_end) = b;
            (which == 0 ? cpus_[c].balance_at_start : cpus_[c].balance_at_end) =
                balance_of(static_cast<int>(c));
        }
    }

    des::simulator& sim_;
    Core& core_;
    sim_time window_start_, window_stop_;
    std::vector<task*> tasks_;
    std::vector<record> records_;
    std::vector<wait> waits_;    // beside records_, by task index
    std::vector<samples> pools_; // per entry, where the values are kept per entry
    std::vector<cpu_window> cpus_;
    des::member_handler<observer, &observer::observe> observe_h_;
    std::optional<smt_work_meter> smt_;
};

} // namespace libsched
