#pragma once
// The simulated machine: per-CPU run queues driven by the event engine. This is where
// the core scheduler's sequence lives (kernel/sched/core.c: __schedule, try_to_wake_up,
// wake_up_new_task, scheduler_tick, set_user_nice, do_exit) and where user-space
// observations (/proc reads, getrusage, wakeup latency) are taken.
#include <algorithm>
#include <functional>
#include <libsched/des/simulator.hpp>
#include <libsched/model/trace.hpp>
#include <libsched/model/fair_params_of.hpp>
#include <libsched/model/workload.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/cputime.hpp>
#include <libsched/sched/fair_class.hpp>
#include <memory>
#include <string>
#include <vector>

namespace libsched {

// Order of simultaneous events (lower first): a task appears before anything else reads
// it, the tick sees wakeups of the same instant, observations come last.
namespace event_priority {
inline constexpr int fork = 0;
inline constexpr int exit = 1;
inline constexpr int wakeup = 2;
inline constexpr int burst_done = 3;
inline constexpr int renice = 4;
inline constexpr int tick = 5;
inline constexpr int resched = 6;
inline constexpr int observe = 7;
} // namespace event_priority

class machine {
public:
    using progress_fn = std::function<void(sim_time)>;

    machine(const scenario& sc, std::uint64_t seed, trace_sink trace = {})
        : sc_(sc), sim_(seed), trace_(std::move(trace)), fair_(make_fair_params(sc.machine)),
          tick_h_(this), resched_h_(this), fork_h_(this), exit_h_(this), wakeup_h_(this),
          burst_h_(this), renice_h_(this), observe_h_(this), hrtick_h_(this) {
        const bool eevdf = sc.machine.kernel.is_eevdf();
        for (int c = 0; c < sc.machine.cpus; ++c) {
            rqs_.push_back(std::make_unique<rq>(c, eevdf));
            cpus_.emplace_back();
        }
        create_tasks();
    }

    repetition_result run(const progress_fn& progress = {}) {
        const duration tick = fair_.params().tun.tick_nsec;
        for (int c = 0; c < sc_.machine.cpus; ++c)
            sim_.schedule_at(tick, event_priority::tick, tick_h_, static_cast<u64>(c));
        sim_.schedule_at(sc_.window_start, event_priority::observe, observe_h_, 0);
        if (sc_.window_stop() < sc_.length)
            sim_.schedule_at(sc_.window_stop(), event_priority::observe, observe_h_, 1);
        constexpr duration progress_step = 100 * nsec_per_msec;
        for (sim_time t = 0; t < sc_.length;) {
            t = std::min(t + progress_step, sc_.length);
            sim_.run(t);
            if (progress)
                progress(t);
        }
        if (sc_.window_stop() == sc_.length) // the engine stops short of events at `length`
            on_observe(1);
        return collect();
    }

private:
    struct snapshot {
        duration runtime = 0;
        std::int64_t stat_utime = 0, stat_stime = 0;
        std::uint64_t nvcsw = 0, nivcsw = 0;
    };

    // Model-side state of one task: its workload and what user space has observed.
    struct record {
        std::string name, entry;
        workload work;
        sim_time start = 0;
        std::optional<sim_time> end_of_life;
        std::vector<renice_spec> renice;
        bool nice_clamped = false;
        double system_share = 0.0;
        duration budget = unlimited; // CPU time left in the current burst
        duration runtime_at_switch_in = 0;
        des::event_id burst_timer = 0;
        bool burst_armed = false;
        sim_time wake_time = -1; // pending wakeup-latency measurement
        bool exit_pending = false;
        sim_time exited = -1;
        std::vector<duration> latencies;
        snapshot at_start, at_end;
        std::int64_t ru_utime_us = 0, ru_stime_us = 0;
        explicit record(const behaviour_spec& b) : work(b) {}
    };

    struct cpu_record {
        duration busy = 0;
        duration busy_irq = 0; // IRQ time taken out of the tasks' clock while busy
        sim_time last_change = 0;
        bool resched_pending = false;
        des::event_id hrtick_timer = 0;
        bool hrtick_armed = false;
        bool tick_stopped = false; // NOHZ idle
        duration busy_at_start = 0, busy_at_end = 0;
    };

    template <void (machine::*Method)(u64)> struct bound final : des::handler {
        explicit bound(machine* m) : self(m) {}
        void fire(des::simulator&, u64 payload) override { (self->*Method)(payload); }
        machine* self;
    };

    rq& rq_of(const task& t) { return *rqs_[static_cast<std::size_t>(t.cpu)]; }

    void trace(trace_kind kind, const task& t) {
        if (trace_)
            trace_({kind, now(), t.cpu, t.pid, rec(t).name, 'R', 0, {}});
    }
    void trace_switch(const rq& r, const task* prev, const task* next) {
        if (!trace_)
            return;
        trace_event e{trace_kind::sched_switch, now(), r.cpu, 0, "swapper", 'R', 0, "swapper"};
        if (prev != nullptr) {
            e.pid = prev->pid;
            e.comm = rec(*prev).name;
            e.prev_state = prev->state == task_state::dead       ? 'X'
                           : prev->state == task_state::sleeping ? 'S'
                                                                 : 'R';
        }
        if (next != nullptr) {
            e.next_pid = next->pid;
            e.next_comm = rec(*next).name;
        }
        trace_(e);
    }
    sim_time now() const { return sim_.now(); }
    // IRQ time taken out while a task runs is part of the CPU's busy time, not the task's.
    void update_rq_clock(rq& r) {
        const duration irq = libsched::update_rq_clock(r, now());
        if (r.curr != nullptr)
            cpus_[static_cast<std::size_t>(r.cpu)].busy_irq += irq;
    }

    void create_tasks() {
        std::vector<int> assigned(static_cast<std::size_t>(sc_.machine.cpus), 0);
        int pid = first_pid;
        for (const task_spec& spec : sc_.tasks) {
            for (int i = 0; i < spec.count; ++i) {
                auto t = std::make_unique<task>();
                auto r = std::make_unique<record>(spec.behaviour);
                r->entry = spec.name;
                r->name = spec.count == 1 ? spec.name : spec.name + "." + std::to_string(i);
                r->start = spec.start + i * spec.stagger;
                if (spec.lifetime)
                    r->end_of_life = r->start + *spec.lifetime;
                if (spec.exit_at)
                    r->end_of_life =
                        std::min(r->end_of_life.value_or(*spec.exit_at), *spec.exit_at);
                r->renice = spec.renice;
                r->system_share = spec.system_share;
                const nice_clamp nc = clamp_nice(spec.nice);
                r->nice_clamped = nc.clamped;
                t->pid = pid++;
                t->nice = nc.nice;
                t->policy = spec.policy;
                t->se.load = task_load_weight(t->nice, spec.policy == sched_policy::idle);
                if (spec.slice) { // set by the process itself right after it starts
                    t->se.custom_slice = true;
                    t->se.slice = eevdf::clamp_custom_slice(*spec.slice);
                }
                if (!spec.affinity.empty()) {
                    t->cpus_allowed.assign(static_cast<std::size_t>(sc_.machine.cpus), false);
                    for (int c : spec.affinity)
                        t->cpus_allowed[static_cast<std::size_t>(c)] = true;
                }
                t->cpu = initial_cpu(*t, assigned);
                ++assigned[static_cast<std::size_t>(t->cpu)];
                const u64 idx = tasks_.size();
                tasks_.push_back(std::move(t));
                records_.push_back(std::move(r));
                sim_.schedule_at(records_.back()->start, event_priority::fork, fork_h_, idx);
            }
        }
    }

    // Fork-time CPU: the allowed CPU with the fewest tasks so far. A stand-in for
    // select_task_rq_fair() until wakeup placement and load balancing are modelled.
    int initial_cpu(const task& t, const std::vector<int>& assigned) const {
        int best = -1;
        for (int c = 0; c < sc_.machine.cpus; ++c)
            if (t.allowed_on(c) && (best < 0 || assigned[static_cast<std::size_t>(c)] <
                                                    assigned[static_cast<std::size_t>(best)]))
                best = c;
        return best < 0 ? 0 : best;
    }

    // A reschedule takes effect at the next preemption point, resched_latency later (after
    // the rest of an interrupt handler that asked for it, if any).
    void maybe_resched(rq& r, duration in_handler = 0) {
        cpu_record& cr = cpus_[static_cast<std::size_t>(r.cpu)];
        if (!r.need_resched || cr.resched_pending)
            return;
        cr.resched_pending = true;
        sim_.schedule_in(in_handler + sc_.machine.resched_latency_ns, event_priority::resched,
                         resched_h_, static_cast<u64>(r.cpu));
    }

    // __schedule(): a blocking or exiting task leaves the queue (a voluntary switch);
    // otherwise prev is preempted (involuntary). Counters move only if next != prev.
    void schedule(rq& r, bool preempt) {
        update_rq_clock(r);
        hrtick_clear(r);
        task* prev = r.curr;
        std::uint64_t* switch_count = prev != nullptr ? &prev->nivcsw : nullptr;
        if (!preempt && prev != nullptr && prev->state != task_state::runnable) {
            const unsigned flags =
                dequeue::sleep | (prev->state == task_state::dead ? dequeue::special : 0u);
            fair_.dequeue_task(r, *prev, flags);
            switch_count = &prev->nvcsw;
        }
        task* next = fair_.pick_next_task(r, prev);
        r.need_resched = false; // clear_tsk_need_resched(prev): after the pick, as the kernel
        hrtick_start(r);
        if (next == prev)
            return;
        ++r.nr_switches;
        if (switch_count != nullptr)
            ++*switch_count;
        trace_switch(r, prev, next);
        cpu_record& cr = cpus_[static_cast<std::size_t>(r.cpu)];
        if (prev != nullptr)
            cr.busy += now() - cr.last_change;
        cr.last_change = now();
        if (prev != nullptr)
            switch_out(*prev);
        r.curr = next;
        if (next != nullptr) {
            restart_tick(r);
            switch_in(*next);
        }
    }

    static constexpr int first_pid = 1000;
    static u64 index_of(const task& t) { return static_cast<u64>(t.pid - first_pid); }
    record& rec(const task& t) { return *records_[index_of(t)]; }

    void switch_out(task& t) {
        record& rc = rec(t);
        if (rc.budget != unlimited)
            rc.budget -= t.se.sum_exec_runtime - rc.runtime_at_switch_in;
        if (rc.burst_armed) {
            sim_.cancel(rc.burst_timer);
            rc.burst_armed = false;
        }
    }

    void switch_in(task& t) {
        record& rc = rec(t);
        if (rc.wake_time >= 0) {
            rc.latencies.push_back(now() - rc.wake_time);
            rc.wake_time = -1;
        }
        rc.runtime_at_switch_in = t.se.sum_exec_runtime;
        const u64 idx = index_of(t);
        if (rc.exit_pending) {
            sim_.schedule_at(now(), event_priority::exit, exit_h_, idx);
        } else if (rc.budget != unlimited) {
            arm_burst(rc, idx);
        }
    }

    // The running task's burst ends once it has had its remaining budget of CPU.
    void arm_burst(record& rc, u64 idx) {
        rc.burst_timer = sim_.schedule_in(rc.budget, event_priority::burst_done, burst_h_, idx);
        rc.burst_armed = true;
    }

    // wake_up_new_task()
    void on_fork(u64 idx) {
        task& t = *tasks_[idx];
        record& rc = *records_[idx];
        rq& r = rq_of(t);
        update_rq_clock(r);
        t.state = task_state::runnable;
        rc.budget = rc.work.next_burst(sim_.rng());
        trace(trace_kind::sched_wakeup_new, t);
        fair_.wake_up_new_task(r, t);
        fair_.wakeup_preempt(r, t, wake::fork);
        hrtick_start(r);
        if (rc.end_of_life)
            sim_.schedule_at(*rc.end_of_life, event_priority::exit, exit_h_, idx);
        for (std::size_t i = 0; i < rc.renice.size(); ++i)
            sim_.schedule_at(rc.renice[i].at, event_priority::renice, renice_h_, idx << 32 | i);
    }

    // do_exit(): the process notices its end only while it runs; a queued or sleeping one
    // exits as soon as it next gets the CPU.
    void on_exit(u64 idx) {
        task& t = *tasks_[idx];
        record& rc = *records_[idx];
        if (t.state == task_state::dead)
            return;
        rq& r = rq_of(t);
        if (r.curr != &t) {
            rc.exit_pending = true;
            return;
        }
        update_rq_clock(r);
        fair_.update_curr(r);
        read_rusage(t, rc);
        t.state = task_state::dead;
        rc.exited = now();
        trace(trace_kind::sched_process_exit, t);
        schedule(r, false);
    }

    // try_to_wake_up(): a task still queued as delayed (6.12+) is requeued in place.
    void on_wakeup(u64 idx) {
        task& t = *tasks_[idx];
        record& rc = *records_[idx];
        rq& r = rq_of(t);
        update_rq_clock(r);
        t.state = task_state::runnable;
        rc.wake_time = now();
        trace(trace_kind::sched_wakeup, t);
        if (t.se.on_rq) {
            fair_.enqueue_task(r, t, enqueue::delayed);
            if (r.curr != &t)
                fair_.wakeup_preempt(r, t, 0);
        } else {
            fair_.enqueue_task(r, t, enqueue::wakeup);
            fair_.wakeup_preempt(r, t, 0);
        }
        hrtick_start(r);
    }

    // The running task used up its CPU burst: it sleeps (a voluntary switch).
    void on_burst_done(u64 idx) {
        task& t = *tasks_[idx];
        record& rc = *records_[idx];
        rc.burst_armed = false;
        rq& r = rq_of(t);
        update_rq_clock(r);
        fair_.update_curr(r);
        const duration sleep = rc.work.next_sleep(sim_.rng());
        rc.budget = rc.work.next_burst(sim_.rng());
        rc.runtime_at_switch_in = t.se.sum_exec_runtime;
        if (sleep <= 0) {
            arm_burst(rc, idx);
            maybe_resched(r);
            return;
        }
        t.state = task_state::sleeping;
        sim_.schedule_in(sleep, event_priority::wakeup, wakeup_h_, idx);
        schedule(r, false);
    }

    // setpriority() clamps, set_user_nice() returns if nothing changes; otherwise dequeue
    // with DEQUEUE_SAVE, reweight, enqueue with ENQUEUE_RESTORE (a delayed task stays
    // delayed), then the class is told.
    void on_renice(u64 payload) {
        const std::size_t idx = payload >> 32;
        task& t = *tasks_[idx];
        record& rc = *records_[idx];
        if (t.state == task_state::dead)
            return;
        const nice_clamp nc = clamp_nice(rc.renice[payload & 0xffff'ffff].nice);
        rc.nice_clamped = rc.nice_clamped || nc.clamped;
        if (nc.nice == t.nice)
            return;
        rq& r = rq_of(t);
        update_rq_clock(r);
        const int old_nice = t.nice;
        const bool queued = t.se.on_rq;
        const bool running = r.curr == &t;
        if (queued)
            fair_.dequeue_task(r, t, dequeue::save);
        if (running)
            fair_.put_prev_task(r, t);
        t.nice = nc.nice;
        fair_.reweight_dequeued(t.se, task_load_weight(t.nice, t.policy == sched_policy::idle));
        if (queued)
            fair_.enqueue_task(r, t, enqueue::restore);
        if (running)
            fair_.set_next_task(r, t);
        if (queued)
            fair_.prio_changed(r, t, old_nice, running);
        maybe_resched(r);
    }

    // scheduler_tick(): account_process_tick() charges the whole tick to the running task's
    // utime or stime by the mode the tick interrupted, then the class's task_tick.
    void on_tick(u64 cpu) {
        rq& r = *rqs_[cpu];
        update_rq_clock(r);
        if (r.curr != nullptr) {
            const double system_share = rec(*r.curr).system_share;
            const bool kernel_mode = system_share > 0.0 && sim_.rng().uniform01() < system_share;
            (kernel_mode ? r.curr->stime : r.curr->utime) += fair_.params().tun.tick_nsec;
            fair_.task_tick(r, *r.curr);
            // The tick's handler runs for tick_irq; __schedule() comes after its exit.
            maybe_resched(r, sc_.machine.tick_irq_ns);
            // irqtime_account_irq() at the interrupt's exit: later clock reads lose it.
            if (sc_.machine.irq_time_accounting)
                r.irq_time += sc_.machine.tick_irq_ns;
        } else if (sc_.machine.nohz_idle) {
            cpus_[cpu].tick_stopped = true; // tick_nohz_idle_stop_tick()
            return;
        }
        sim_.schedule_in(fair_.params().tun.tick_nsec, event_priority::tick, tick_h_, cpu);
    }

    // tick_nohz_idle_exit(): the tick resumes at the next point of its grid. A CPU only
    // leaves idle in a reschedule event, which runs after a tick of the same instant.
    void restart_tick(rq& r) {
        cpu_record& cr = cpus_[static_cast<std::size_t>(r.cpu)];
        if (!cr.tick_stopped)
            return;
        cr.tick_stopped = false;
        const duration tick = fair_.params().tun.tick_nsec;
        sim_.schedule_at((now() / tick + 1) * tick, event_priority::tick, tick_h_,
                         static_cast<u64>(r.cpu));
    }

    void hrtick_clear(rq& r) {
        cpu_record& cr = cpus_[static_cast<std::size_t>(r.cpu)];
        if (cr.hrtick_armed) {
            sim_.cancel(cr.hrtick_timer);
            cr.hrtick_armed = false;
        }
    }

    // hrtick_start() / hrtick_update(): (re)arm the slice timer of the running task.
    void hrtick_start(rq& r) {
        hrtick_clear(r);
        if (const auto delay = fair_.hrtick_delay(r)) {
            cpu_record& cr = cpus_[static_cast<std::size_t>(r.cpu)];
            cr.hrtick_timer =
                sim_.schedule_in(*delay, event_priority::tick, hrtick_h_, static_cast<u64>(r.cpu));
            cr.hrtick_armed = true;
        }
        maybe_resched(r);
    }

    void on_hrtick(u64 cpu) {
        rq& r = *rqs_[cpu];
        cpus_[cpu].hrtick_armed = false;
        update_rq_clock(r);
        if (r.curr != nullptr) {
            fair_.hrtick(r);
            maybe_resched(r);
        }
    }

    void on_resched(u64 cpu) {
        rq& r = *rqs_[cpu];
        cpus_[cpu].resched_pending = false;
        if (r.need_resched)
            schedule(r, true);
    }

    // sum_exec_runtime including the not yet accounted part (task_sched_runtime()).
    duration precise_runtime(const task& t) {
        rq& r = rq_of(t);
        duration rt = t.se.sum_exec_runtime;
        if (r.curr == &t) {
            update_rq_clock(r);
            rt += r.clock_task - t.se.exec_start;
        }
        return rt;
    }

    // getrusage(RUSAGE_SELF) by the process itself: its own pending runtime counts.
    void read_rusage(task& t, record& rc) {
        const adjusted_cputime a =
            cputime_adjust(precise_runtime(t), t.utime, t.stime, t.prev_cputime_proc);
        rc.ru_utime_us = a.utime / nsec_per_usec;
        rc.ru_stime_us = a.stime / nsec_per_usec;
    }

    // Window observation: /proc/PID/stat as another process reads it (a running task's
    // runtime as of its last update), the precise runtime, switch counters, CPU busy time.
    void on_observe(u64 which) {
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            task& t = *tasks_[i];
            record& rc = *records_[i];
            snapshot& s = which == 0 ? rc.at_start : rc.at_end;
            if (t.state == task_state::not_started)
                continue;
            const adjusted_cputime a =
                cputime_adjust(t.se.sum_exec_runtime, t.utime, t.stime, t.prev_cputime_proc);
            s.stat_utime = nsec_to_clock_t(a.utime);
            s.stat_stime = nsec_to_clock_t(a.stime);
            s.runtime = t.state == task_state::dead ? t.se.sum_exec_runtime : precise_runtime(t);
            s.nvcsw = t.nvcsw;
            s.nivcsw = t.nivcsw;
        }
        for (std::size_t c = 0; c < rqs_.size(); ++c) {
            const duration b = busy_now(c);
            (which == 0 ? cpus_[c].busy_at_start : cpus_[c].busy_at_end) = b;
        }
    }

    duration busy_now(std::size_t c) const {
        return cpus_[c].busy + (rqs_[c]->curr != nullptr ? now() - cpus_[c].last_change : 0);
    }

    repetition_result collect() {
        repetition_result out;
        const duration window = sc_.window_stop() - sc_.window_start;
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            task& t = *tasks_[i];
            record& rc = *records_[i];
            if (t.state != task_state::dead && t.state != task_state::not_started)
                read_rusage(t, rc);
            task_result tr;
            tr.name = rc.name;
            tr.entry = rc.entry;
            tr.pid = t.pid;
            tr.cpu = t.cpu;
            tr.nice = t.nice;
            tr.nice_clamped = rc.nice_clamped;
            tr.sum_exec_runtime =
                t.state == task_state::dead ? t.se.sum_exec_runtime : precise_runtime(t);
            tr.window_runtime = rc.at_end.runtime - rc.at_start.runtime;
            tr.share = window > 0
                           ? static_cast<double>(tr.window_runtime) / static_cast<double>(window)
                           : 0.0;
            tr.stat_utime_start = rc.at_start.stat_utime;
            tr.stat_utime_end = rc.at_end.stat_utime;
            tr.stat_stime_start = rc.at_start.stat_stime;
            tr.stat_stime_end = rc.at_end.stat_stime;
            tr.ru_utime_us = rc.ru_utime_us;
            tr.ru_stime_us = rc.ru_stime_us;
            const duration tick = fair_.params().tun.tick_nsec;
            tr.utime_ticks = t.utime / tick;
            tr.stime_ticks = t.stime / tick;
            tr.nvcsw = t.nvcsw;
            tr.nivcsw = t.nivcsw;
            tr.window_nvcsw = rc.at_end.nvcsw - rc.at_start.nvcsw;
            tr.window_nivcsw = rc.at_end.nivcsw - rc.at_start.nivcsw;
            tr.nr_migrations = t.se.nr_migrations;
            tr.wakeup_latency = std::move(rc.latencies);
            tr.started = rc.start;
            tr.exited = rc.exited;
            out.tasks.push_back(std::move(tr));
        }
        for (std::size_t c = 0; c < rqs_.size(); ++c) {
            cpu_result cr;
            cr.cpu = static_cast<int>(c);
            cr.busy = busy_now(c);
            cr.idle = now() - cr.busy;
            cr.window_busy = cpus_[c].busy_at_end - cpus_[c].busy_at_start;
            cr.window_idle = window - cr.window_busy;
            cr.nr_switches = rqs_[c]->nr_switches;
            cr.irq = cpus_[c].busy_irq;
            out.cpus.push_back(cr);
        }
        out.events = sim_.events_processed();
        return out;
    }

    const scenario& sc_;
    des::simulator sim_;
    trace_sink trace_;
    fair_class fair_;
    std::vector<std::unique_ptr<rq>> rqs_;
    std::vector<cpu_record> cpus_;
    std::vector<std::unique_ptr<task>> tasks_;
    std::vector<std::unique_ptr<record>> records_;

    bound<&machine::on_tick> tick_h_;
    bound<&machine::on_resched> resched_h_;
    bound<&machine::on_fork> fork_h_;
    bound<&machine::on_exit> exit_h_;
    bound<&machine::on_wakeup> wakeup_h_;
    bound<&machine::on_burst_done> burst_h_;
    bound<&machine::on_renice> renice_h_;
    bound<&machine::on_observe> observe_h_;
    bound<&machine::on_hrtick> hrtick_h_;
};

} // namespace libsched
