#pragma once
// The workload: what each simulated process does. A program forks at its start, burns CPU
// or alternates CPU bursts and sleeps (drawn from the simulator's seeded source), or runs
// a program of steps (rt-app's events: runs, sleeps, timers, and tasks waking tasks through
// semaphores and suspend / resume), may renice itself, and exits at the end of its life. It drives
// its task through the core scheduler as a real process drives the kernel: by running, blocking and
// being woken.
#include <deque>
#include <functional>
#include <libsched/des/member_call.hpp>
#include <libsched/des/random.hpp>
#include <libsched/des/timer.hpp>
#include <libsched/model/observe.hpp>
#include <libsched/model/task_index.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/core.hpp>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace libsched {

inline constexpr duration unlimited = std::numeric_limits<duration>::max();

// A task's behaviour: the length of each CPU burst and of the sleep after it.
class behaviour {
public:
    explicit behaviour(const behaviour_spec& b) : spec_(b) {}

    // CPU time of the next burst; unlimited for a burner. A burst is at least 1 ns. A
    // program of steps starts with none: its first step runs as soon as it gets a CPU.
    duration next_burst(des::random_source& rng) const {
        switch (spec_.type) {
        case behaviour_spec::kind::steps:
            return 0;
        case behaviour_spec::kind::periodic:
            return std::max<duration>(spec_.run, 1);
        case behaviour_spec::kind::random:
            return std::max<duration>(rng.draw(spec_.run_dist), 1);
        case behaviour_spec::kind::burner:
        default:
            return unlimited;
        }
    }

    // The period of a periodic task on an absolute timer, else nothing.
    std::optional<duration> period() const {
        return spec_.type == behaviour_spec::kind::periodic ? spec_.period : std::nullopt;
    }

    duration next_sleep(des::random_source& rng) const {
        switch (spec_.type) {
        case behaviour_spec::kind::periodic:
            return spec_.sleep;
        case behaviour_spec::kind::random:
            return std::max<duration>(rng.draw(spec_.sleep_dist), 0);
        case behaviour_spec::kind::burner:
        case behaviour_spec::kind::steps:
        default:
            return 0;
        }
    }

    bool steps() const { return spec_.type == behaviour_spec::kind::steps; }
    const std::vector<phase_spec>& phases() const { return spec_.steps.phases; }
    int loop() const { return spec_.steps.loop; }

private:
    behaviour_spec spec_;
};

// Over the core scheduler Core (a basic_core).
template <class Core> class workload {
public:
    // Order among simultaneous events: a task appears before anything else reads it, an
    // exit before it could run on, a wakeup before a burst of the same instant ends and
    // both before the tick (basic_core::tick_order) sees them.
    static constexpr des::event_order fork_order = 0;
    static constexpr des::event_order exit_order = 1;
    static constexpr des::event_order wakeup_order = 2;
    static constexpr des::event_order burst_order = 3;
    static constexpr des::event_order renice_order = 4;
    static constexpr des::event_order affinity_order = 4;

    // timer_slack: the slack of a task that does not set its own (machine.timer_slack);
    // sleep_cost: machine.sleep_cost.
    workload(des::simulator& sim, Core& c, observer<Core>& obs, duration timer_slack,
             const des::distribution& sleep_cost)
        : sim_(sim), core_(c), obs_(obs), timer_slack_(timer_slack), sleep_cost_(sleep_cost),
          fork_h_(this), exit_h_(this), renice_h_(this), affinity_h_(this) {
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu)
            cpus_.push_back(
                std::make_unique<cpu_timers>(sim, this, static_cast<std::uint64_t>(cpu)));
    }
    workload(const workload&) = delete;
    workload& operator=(const workload&) = delete;

    // The program of one task instance, forked at `start`.
    // affinity_masks: the effective mask of each of spec.set_affinity, in its order.
    void add(task& t, const task_spec& spec, sim_time start,
             std::vector<std::vector<bool>> affinity_masks = {}) {
        const std::uint64_t idx = programs_.size();
        auto pg = std::make_unique<program>(sim_, this, idx, t, spec.behaviour);
        pg->start = start;
        pg->release = start;
        if (spec.lifetime)
            pg->end_of_life = start + *spec.lifetime;
        if (spec.exit_at)
            pg->end_of_life = std::min(pg->end_of_life.value_or(*spec.exit_at), *spec.exit_at);
        pg->renice = spec.renice;
        for (std::size_t i = 0; i < affinity_masks.size() && i < spec.set_affinity.size(); ++i)
            pg->affinity.push_back({spec.set_affinity[i].at, std::move(affinity_masks[i])});
        pg->system_share = spec.system_share;
        pg->timer_slack = spec.timer_slack.value_or(timer_slack_);
        pg->clock_reads = spec.cpu_clock_reads.value_or(0);
        pg->nice_clamped = clamp_nice(spec.nice).clamped;
        pg->entry = &spec.name;
        if (pg->what.steps()) {
            pg->st = std::make_unique<steps_state>();
            resolve_names(*pg);
        }
        // The task joins the targets of the resumes named so far that name it: by its
        // instance's name, or by its entry's for every instance.
        const auto join = [&](const std::string& name) {
            if (const auto it = target_index_.find(name); it != target_index_.end())
                resume_targets_[it->second].push_back(idx);
        };
        join(t.comm);
        if (spec.count > 1) // else its instance's name is its entry's
            join(spec.name);
        programs_.push_back(std::move(pg));
        sim_.schedule_at(start, fork_order, fork_h_, idx);
    }

    // What the core tells the program and asks it (through the system's task_hooks).
    void switched_in(task& t) {
        program& pg = of(t);
        pg.runtime_at_switch_in = t.se.sum_exec_runtime;
        pg.kernel_until = t.se.sum_exec_runtime + pg.kernel_left;
        // A runtime step ends by the wall clock, however long it waited.
        if (pg.st && pg.st->runtime_end)
            pg.budget = std::max<duration>(*pg.st->runtime_end - sim_.now(), 0);
        if (pg.exit_pending)
            sim_.schedule_at(sim_.now(), exit_order, exit_h_, pg.index);
        else if (pg.budget != unlimited)
            arm_burst(pg);
        if (pg.clock_reads > 0)
            cpus_[static_cast<std::size_t>(t.cpu)]->clock_read.start_in(pg.clock_reads);
    }
    void switched_out(task& t) {
        program& pg = of(t);
        if (pg.budget != unlimited)
            pg.budget -= t.se.sum_exec_runtime - pg.runtime_at_switch_in;
        pg.kernel_left = std::max<duration>(pg.kernel_until - t.se.sum_exec_runtime, 0);
        pg.burst.cancel();
        if (pg.clock_reads > 0)
            cpus_[static_cast<std::size_t>(t.cpu)]->clock_read.cancel();
    }
    // In kernel mode while the task runs the sleep_cost of its last sleep (the way back
    // from it to user space), else by its system_share.
    bool tick_in_kernel_mode(task& t) {
        const program& pg = of(t);
        if (pg.kernel_left > 0 && core_.task_sched_runtime(t) < pg.kernel_until)
            return true;
        const double share = pg.system_share;
        return share > 0.0 && sim_.rng().uniform01() < share;
    }

    // The CPU's hrtimer interrupt (its own timers, the core's or a sleep's hard expiry),
    // whose walk reads the time basenow: handled at once, or by a CPU waiting idle once it
    // has left its idle state. An interrupt meanwhile is the same wakeup; one during the
    // handler of a tick with timers to expire makes that tick's walk run again.
    void hrtimer_interrupt(int cpu, sim_time basenow) {
        cpu_timers& c = *cpus_[static_cast<std::size_t>(cpu)];
        if (core_.in_tick_handler(cpu)) {
            c.hard_expiry_in_handler = true;
            return;
        }
        const bool hard_expired = std::exchange(c.hard_expiry_in_handler, false);
        if (c.idle_exit.active())
            return;
        const duration exit_latency = core_.costs().idle_exit_latency;
        if (exit_latency > 0 && core_.in_idle_state(cpu)) {
            if (first_due(c, sim_.now()))
                c.idle_exit.start_in(exit_latency);
        } else {
            run_queues(cpu, basenow, hard_expired);
        }
    }

    bool timer_due(int cpu, sim_time handler_end) const {
        const cpu_timers& c = *cpus_[static_cast<std::size_t>(cpu)];
        if (c.queue.empty())
            return false;
        const auto* first = first_due(c, sim_.now());
        return (first != nullptr && expires_now(cpu, first->first, sim_.now())) ||
               c.queue.top().first <= handler_end;
    }

    sim_time next_timer(int cpu) const {
        const cpu_timers& c = *cpus_[static_cast<std::size_t>(cpu)];
        return c.queue.empty() ? std::numeric_limits<sim_time>::max() : c.queue.top().first;
    }

    sim_time start_of(const task& t) const { return of(t).start; }
    bool nice_clamped(const task& t) const { return of(t).nice_clamped; }

private:
    struct program;
    struct cpu_timers;

    // The running task's burst ends once it has had its remaining budget of CPU.
    void arm_burst(program& pg) { pg.burst.start_in(pg.budget); }

    // The CPU's running task reads its CPU clock, and goes on doing so while it runs.
    void on_clock_read(std::uint64_t cpu) {
        program& pg = of(*core_.cpu_rq(static_cast<int>(cpu)).curr);
        core_.read_cpu_clock(pg.t);
        cpus_[cpu]->clock_read.start_in(pg.clock_reads);
    }

    // The process starts: wake_up_new_task(), then its own plans.
    void on_fork(std::uint64_t idx) {
        program& pg = *programs_[idx];
        pg.budget = pg.what.next_burst(sim_.rng());
        // Set before the fork (an instance started after them): the child inherits them.
        for (const auto& [at, mask] : pg.affinity)
            if (at <= sim_.now())
                pg.t.cpus_allowed = mask;
        for (const renice_spec& r : pg.renice)
            if (r.at <= sim_.now()) {
                const nice_clamp nc = clamp_nice(r.nice);
                pg.nice_clamped = pg.nice_clamped || nc.clamped;
                pg.t.nice = nc.nice;
                pg.t.se.load = task_load_weight(nc.nice, pg.t.policy == sched_policy::idle);
            }
        obs_.forked(pg.t);
        core_.wake_up_new_task(pg.t);
        if (pg.end_of_life)
            sim_.schedule_at(*pg.end_of_life, exit_order, exit_h_, idx);
        for (std::size_t i = 0; i < pg.renice.size(); ++i)
            if (pg.renice[i].at > sim_.now())
                sim_.schedule_at(pg.renice[i].at, renice_order, renice_h_, idx << 32 | i);
        for (std::size_t i = 0; i < pg.affinity.size(); ++i)
            if (pg.affinity[i].first > sim_.now())
                sim_.schedule_at(pg.affinity[i].first, affinity_order, affinity_h_, idx << 32 | i);
    }

    // The process notices its end only while it runs (a queued or sleeping one exits as
    // soon as it next gets the CPU); it reads getrusage() and exits.
    void on_exit(std::uint64_t idx) {
        program& pg = *programs_[idx];
        task& t = pg.t;
        if (t.state == task_state::dead)
            return;
        if (core_.task_rq(t).curr != &t) {
            pg.exit_pending = true;
            return;
        }
        obs_.exiting(t);
        core_.do_exit(t);
    }

    // hrtimer_nanosleep(): the sleep is a range timer [due, due + slack]
    // (hrtimer_set_expires_range_ns()) on the CPU the task sleeps on, armed for its hard
    // expiry; SCHED_FIFO and SCHED_RR tasks sleep without slack.
    void arm_sleep(program& pg, duration sleep) {
        const duration slack = rt_policy(pg.t.policy) ? 0 : pg.timer_slack;
        pg.soft = sim_.after(sleep);
        const sim_time hard = pg.soft > std::numeric_limits<sim_time>::max() - slack
                                  ? std::numeric_limits<sim_time>::max()
                                  : pg.soft + slack;
        pg.sleep_cpu = pg.t.cpu;
        cpus_[static_cast<std::size_t>(pg.sleep_cpu)]->queue.push({hard, pg.index});
        pg.sleep.start(hard);
    }

    // The sleep's hard expiry: the CPU's tick device (its clock_event_device, which
    // tick_program_event() sets to the first hrtimer) was programmed for it. Its interrupt
    // comes tick_latency later, as the tick's own does; a hard expiry meanwhile is handled
    // by the same interrupt.
    void on_sleep_expiry(std::uint64_t idx) {
        const int cpu = programs_[idx]->sleep_cpu;
        const duration latency = core_.timer_interrupt_latency(cpu, sim_.now());
        if (latency == 0) {
            hrtimer_interrupt(cpu, sim_.now());
            return;
        }
        cpu_timers& c = *cpus_[static_cast<std::size_t>(cpu)];
        if (!c.timer_irq.active())
            c.timer_irq.start_in(latency);
    }
    void on_timer_irq(std::uint64_t cpu) { hrtimer_interrupt(static_cast<int>(cpu), sim_.now()); }

    // The idle CPU woken by an interrupt runs its handler.
    void on_idle_exit(std::uint64_t cpu) { run_queues(static_cast<int>(cpu), sim_.now()); }

    // The first sleep timer of the CPU's queue, if its soft expiry is at or before basenow.
    const std::pair<sim_time, std::uint64_t>* first_due(const cpu_timers& c,
                                                        sim_time basenow) const {
        if (c.queue.empty() || programs_[c.queue.top().second]->soft > basenow)
            return nullptr;
        return &c.queue.top();
    }

    // A timer past its soft expiry expires if its hard one has come, or if no core timer
    // not yet due is queued before it.
    bool expires_now(int cpu, sim_time hard, sim_time basenow) const {
        return hard <= basenow || hard <= core_.next_cpu_timer(cpu, basenow);
    }

    // hrtimer_interrupt(): __hrtimer_run_queues() walks with the time read on entry; it
    // walks again with the time now only if a hard expiry has passed meanwhile
    // (tick_program_event() refuses a time in the past).
    void run_queues(int cpu, sim_time basenow, bool hard_expired = false) {
        cpu_timers& c = *cpus_[static_cast<std::size_t>(cpu)];
        expire_due(cpu, c, basenow);
        if (basenow < sim_.now() &&
            (hard_expired || (!c.queue.empty() && c.queue.top().first <= sim_.now())))
            expire_due(cpu, c, sim_.now());
    }

    // __hrtimer_run_queues(): in the order of their hard expiries the CPU's timers expire
    // while their soft expiry is at or before basenow. The walk stops at the first one not
    // due yet, or at one queued behind a core timer not due yet (the re-armed tick), whose
    // soft and hard expiry are the same.
    void expire_due(int cpu, cpu_timers& c, sim_time basenow) {
        while (const auto* first = first_due(c, basenow)) {
            const auto [hard, idx] = *first;
            if (!expires_now(cpu, hard, basenow))
                return;
            c.queue.pop();
            program& pg = *programs_[idx];
            pg.sleep.cancel();
            wake(pg);
        }
    }

    // hrtimer_wakeup(): the sleeper is woken, from the timer's CPU. On an absolute timer
    // (a periodic task's, a steps timer's) it was due at pg.release.
    void wake(program& pg) {
        if (pg.what.period() || (pg.st && pg.st->on_timer))
            obs_.woke(pg.t, pg.release);
        else
            obs_.woke(pg.t);
        core_.try_to_wake_up(pg.t);
    }

    // The burst timer expired: the burst ends once the task has had its budget of CPU
    // time (the timer runs in wall time, which includes the IRQ time taken out of the
    // task's clock, so it may have to run on a little). Then the task sleeps (a voluntary
    // switch) or, with nothing to sleep, runs its next burst at once.
    void on_burst_done(std::uint64_t idx) {
        program& pg = *programs_[idx];
        task& t = pg.t;
        rq& r = core_.task_rq(t);
        core_.update_curr(r);
        const duration ran = t.se.sum_exec_runtime - pg.runtime_at_switch_in;
        pg.runtime_at_switch_in = t.se.sum_exec_runtime;
        if (pg.st && pg.st->runtime_end) {
            if (sim_.now() < *pg.st->runtime_end) {
                pg.budget = *pg.st->runtime_end - sim_.now();
                arm_burst(pg);
                return;
            }
        } else if (ran < pg.budget) {
            pg.budget -= ran;
            arm_burst(pg);
            return;
        }
        if (pg.what.steps()) {
            run_steps(pg);
            return;
        }
        const duration sleep = next_sleep(pg);
        pg.budget = pg.what.next_burst(sim_.rng());
        if (sleep <= 0) {
            arm_burst(pg);
            core_.maybe_resched(r);
            return;
        }
        t.state = task_state::sleeping;
        const duration cost = draw_sleep_cost(pg);
        pg.budget += cost;
        arm_sleep(pg, sleep);
        core_.schedule(t);
        pg.kernel_left = cost; // after switched_out(), which keeps what is left
    }

    // ---- programs of steps (rt-app's events) ----

    // A timer of rt-app: its next expiry, set from the first user's start at its first use.
    struct rt_timer {
        bool init = false;
        sim_time next = 0;
    };
    // A counting semaphore (initial 0) or a pipe, shared by name: the posts (messages) not
    // yet taken, each with when it was made, and the programs blocked waiting for one, first
    // come first served. A pipe has no capacity here: its writers never block.
    struct channel {
        std::deque<sim_time> posts;
        std::deque<std::uint64_t> waiters;
    };
    enum class step_outcome { done, waits };

    // A step's name resolved to an index when its program is added: a resume's entry of
    // resume_targets_, a semaphore's or a pipe's of channels_, a timer's of timers_ or, for a
    // unique timer (own), of its program's steps_state::timers. Unused by the other steps.
    struct name_slot {
        std::size_t index = 0;
        bool own = false;
    };

    // The index of `name` in `index`, a new default item of `items` for a new name.
    template <class T>
    static std::size_t intern(std::map<std::string, std::size_t>& index, const std::string& name,
                              std::vector<T>& items) {
        const auto [it, fresh] = index.try_emplace(name, items.size());
        if (fresh)
            items.emplace_back();
        return it->second;
    }

    // The targets of a resume naming `name`: the programs added so far with that instance
    // or entry name (the rest join as they are added, so the list keeps their order). Only
    // names some resume gives have a list.
    std::size_t resume_targets(const std::string& name) {
        const auto [it, fresh] = target_index_.try_emplace(name, resume_targets_.size());
        if (fresh) {
            std::vector<std::uint64_t>& targets = resume_targets_.emplace_back();
            for (const auto& p : programs_)
                if (p->t.comm == name || *p->entry == name)
                    targets.push_back(p->index);
        }
        return it->second;
    }

    // Every step's name of the program as an index, so that running a step looks nothing
    // up by name. Resume names may be of programs added later: their lists fill as they come.
    void resolve_names(program& pg) {
        using kind = step_spec::kind;
        std::map<std::string, std::size_t> own_timers;
        for (const phase_spec& ph : pg.what.phases()) {
            std::vector<name_slot>& slots = pg.st->slots.emplace_back();
            for (const step_spec& st : ph.steps) {
                name_slot& n = slots.emplace_back();
                if (st.type == kind::resume)
                    n.index = resume_targets(st.name);
                else if (st.type == kind::sem_post || st.type == kind::sem_wait)
                    n.index = intern(semaphore_index_, st.name, channels_);
                else if (st.type == kind::pipe_write || st.type == kind::pipe_read)
                    n.index = intern(pipe_index_, st.name, channels_);
                else if (st.type == kind::timer && unique_timer(st.name))
                    n = {intern(own_timers, st.name, pg.st->timers), true};
                else if (st.type == kind::timer)
                    n.index = intern(timer_index_, st.name, timers_);
            }
        }
    }

    // Passes ending at one instant, in a row, after which a program is taken to spin
    // without ever taking time (no run, no sleep, no wait that blocks).
    static constexpr int max_passes_per_instant = 1'000'000;

    // The running program has finished its current step (or not begun): it goes on through
    // its steps, at once, until one takes CPU time, blocks or the program exits.
    void run_steps(program& pg) {
        steps_state& s = *pg.st;
        s.runtime_end.reset();
        s.on_timer = false;
        if (s.begun) {
            if (s.head_wait) { // the pass began with a wait: it counts from the release
                s.pass_start = s.released_at;
                s.head_wait = false;
            }
            if (!advance(pg))
                return;
        } else {
            s.begun = true;
            s.pass_start = sim_.now();
        }
        while (execute(pg) == step_outcome::done)
            if (!advance(pg))
                return;
    }

    // The next step, phase or pass; false once the last pass is over and the task exited.
    bool advance(program& pg) {
        steps_state& s = *pg.st;
        const std::vector<phase_spec>& phases = pg.what.phases();
        if (++s.step < phases[s.phase].steps.size())
            return true;
        s.step = 0;
        const int phase_loop = phases[s.phase].loop;
        if (phase_loop == -1 || ++s.phase_pass < phase_loop)
            return true;
        s.phase_pass = 0;
        if (++s.phase < phases.size())
            return true;
        s.phase = 0;
        pass_done(pg);
        if (pg.what.loop() != -1 && s.passes >= pg.what.loop()) {
            obs_.exiting(pg.t);
            core_.do_exit(pg.t);
            return false;
        }
        s.pass_start = sim_.now();
        return true;
    }

    void pass_done(program& pg) {
        steps_state& s = *pg.st;
        ++s.passes;
        obs_.loop_done(pg.t, s.pass_start);
        const sim_time now = sim_.now();
        s.passes_at_instant = now == s.last_pass_end ? s.passes_at_instant + 1 : 0;
        s.last_pass_end = now;
        if (s.passes_at_instant >= max_passes_per_instant)
            throw std::runtime_error(
                pg.t.comm + ": " + std::to_string(max_passes_per_instant) +
                " passes through its steps at one instant: the program never takes time (give "
                "it a run, a sleep or a wait that blocks)");
    }

    // The step the program stands at, run by the task on its CPU.
    step_outcome execute(program& pg) {
        using kind = step_spec::kind;
        steps_state& s = *pg.st;
        const step_spec& st = pg.what.phases()[s.phase].steps[s.step];
        const name_slot& n = s.slots[s.phase][s.step];
        switch (st.type) {
        case kind::run:
            pg.budget = std::max<duration>(sim_.rng().draw(st.time), 1);
            arm_burst(pg);
            return step_outcome::waits;
        case kind::runtime:
            s.runtime_end = sim_.now() + st.time.a;
            pg.budget = st.time.a;
            arm_burst(pg);
            return step_outcome::waits;
        case kind::sleep: {
            const duration d = std::max<duration>(sim_.rng().draw(st.time), 0);
            if (d == 0)
                return step_outcome::done;
            block(pg, d);
            return step_outcome::waits;
        }
        case kind::timer:
            return timer_step(pg, st, n);
        case kind::suspend:
            s.suspended = true;
            s.head_wait = s.at_head();
            block(pg);
            return step_outcome::waits;
        case kind::resume:
            for (const std::uint64_t i : resume_targets_[n.index]) {
                program& target = *programs_[i];
                if (target.st->suspended) { // else the resume is lost: no memory
                    target.st->suspended = false;
                    wake_by(target, pg);
                }
            }
            return step_outcome::done;
        // pipe_write() wakes a reader with wake_up_interruptible_sync_poll(): WF_SYNC, as
        // the writer is expected to sleep soon. Each write is a message the reader takes.
        case kind::sem_post:
        case kind::pipe_write: {
            channel& ch = channels_[n.index];
            if (ch.waiters.empty()) {
                ch.posts.push_back(sim_.now());
            } else {
                program& target = *programs_[ch.waiters.front()];
                ch.waiters.pop_front();
                wake_by(target, pg,
                        st.type == kind::pipe_write ? wake_flags::sync : wake_flags::none);
            }
            return step_outcome::done;
        }
        case kind::sem_wait:
        case kind::pipe_read: {
            channel& ch = channels_[n.index];
            if (!ch.posts.empty()) {
                if (s.at_head()) // released by that post, before the pass began
                    s.pass_start = ch.posts.front();
                ch.posts.pop_front();
                return step_outcome::done;
            }
            ch.waiters.push_back(pg.index);
            s.head_wait = s.at_head();
            block(pg);
            return step_outcome::waits;
        }
        case kind::yield: {
            // sched_yield(): if another task gets the CPU, the program goes on when the
            // task next runs (with no CPU time to burn first).
            pg.budget = 0;
            core_.sched_yield(pg.t);
            return core_.task_rq(pg.t).curr == &pg.t ? step_outcome::done : step_outcome::waits;
        }
        }
        return step_outcome::done;
    }

    // rt-app's timer event: the expiry moves on by the period at each use; the task sleeps
    // until it on an absolute timer (clock_nanosleep(TIMER_ABSTIME)) unless it has passed,
    // in which case it goes on at once and, in relative mode, the expiry restarts from now.
    step_outcome timer_step(program& pg, const step_spec& st, const name_slot& n) {
        rt_timer& tm = n.own ? pg.st->timers[n.index] : timers_[n.index];
        if (!tm.init) {
            tm.init = true;
            tm.next = pg.start;
        }
        tm.next += st.time.a;
        const sim_time now = sim_.now();
        if (now < tm.next) {
            pg.release = tm.next;
            pg.st->on_timer = true;
            block(pg, tm.next - now);
            return step_outcome::waits;
        }
        if (st.relative)
            tm.next = now;
        return step_outcome::done;
    }

    // machine.sleep_cost for a sleep of pg now: a draw keyed by the task and the instant,
    // which takes nothing from the seeded stream the workloads' random times come from.
    duration draw_sleep_cost(const program& pg) const {
        if (sleep_cost_.type == des::distribution::kind::constant)
            return sleep_cost_.a;
        return sim_.keyed_draw(sleep_cost_, sleep_cost_key | pg.index,
                               static_cast<std::uint64_t>(sim_.now()));
    }
    // Apart from the keys of the CPUs' timer-interrupt draws, which are CPU numbers.
    static constexpr std::uint64_t sleep_cost_key = std::uint64_t{1} << 63;

    // The running task blocks: on a sleep timer of `sleep` (hrtimer_nanosleep()), or until
    // another task wakes it. It goes on with its program when it next runs.
    void block(program& pg, std::optional<duration> sleep = std::nullopt) {
        pg.t.state = task_state::sleeping;
        if (sleep)
            arm_sleep(pg, *sleep);
        core_.schedule(pg.t);
        pg.budget = draw_sleep_cost(pg);
        pg.kernel_left = pg.budget; // after switched_out(), which keeps what is left
    }

    // A blocked task woken by the running one (a resume, a sem_post, a pipe_write):
    // try_to_wake_up() on the waker's CPU.
    void wake_by(program& target, const program& waker, wake_flags wf = wake_flags::none) {
        target.st->released_at = sim_.now();
        obs_.woke(target.t);
        core_.try_to_wake_up(target.t, waker.t.cpu, wf);
    }

    // The sleep after a burst. On an absolute timer the next release is the next point of
    // the grid start + k * period not yet passed, as clock_nanosleep(TIMER_ABSTIME) sleeps
    // until it (a point already reached returns at once, and missed ones are skipped).
    duration next_sleep(program& pg) {
        const std::optional<duration> period = pg.what.period();
        if (!period)
            return pg.what.next_sleep(sim_.rng());
        const sim_time now = sim_.now();
        pg.release += *period;
        if (pg.release < now)
            pg.release += (now - pg.release + *period - 1) / *period * *period;
        return pg.release - now;
    }

    // setpriority(): clamped to [-20, 19], then set_user_nice().
    void on_renice(std::uint64_t payload) {
        program& pg = *programs_[payload >> 32];
        if (pg.t.state == task_state::dead)
            return;
        const nice_clamp nc = clamp_nice(pg.renice[payload & 0xffff'ffff].nice);
        pg.nice_clamped = pg.nice_clamped || nc.clamped;
        core_.set_user_nice(pg.t, nc.nice);
    }

    // sched_setaffinity() (taskset -p): the effective mask, then set_cpus_allowed_ptr().
    void on_set_affinity(std::uint64_t payload) {
        program& pg = *programs_[payload >> 32];
        if (pg.t.state == task_state::dead)
            return;
        core_.set_cpus_allowed_ptr(pg.t, pg.affinity[payload & 0xffff'ffff].second);
    }

    using burst_timer = des::timer<des::member_call<workload, &workload::on_burst_done>>;
    using sleep_timer = des::timer<des::member_call<workload, &workload::on_sleep_expiry>>;
    using idle_exit_timer = des::timer<des::member_call<workload, &workload::on_idle_exit>>;
    using timer_irq_timer = des::timer<des::member_call<workload, &workload::on_timer_irq>>;
    using clock_read_timer = des::timer<des::member_call<workload, &workload::on_clock_read>>;

    // A CPU's sleep timers, earliest hard expiry (then program) first: the timerqueue of
    // its CLOCK_MONOTONIC base, a binary heap (no allocation per sleep, unlike a tree
    // node), and the handling of an interrupt that found it idle.
    struct cpu_timers {
        cpu_timers(des::simulator& sim, workload* w, std::uint64_t cpu)
            : idle_exit(sim, wakeup_order, {w, cpu}), timer_irq(sim, wakeup_order, {w, cpu}),
              clock_read(sim, burst_order, {w, cpu}) {}
        using sleeper = std::pair<sim_time, std::uint64_t>; // hard expiry, program
        std::priority_queue<sleeper, std::vector<sleeper>, std::greater<>> queue;
        idle_exit_timer idle_exit;
        timer_irq_timer timer_irq;   // a sleep's interrupt, tick_latency after its hard expiry
        clock_read_timer clock_read; // the running task's next CPU-clock read
        bool hard_expiry_in_handler = false; // during a tick's handler with timers to expire
    };

    // Where a program of steps stands, and its timers of its own.
    struct steps_state {
        bool begun = false;
        std::size_t phase = 0, step = 0;
        int phase_pass = 0; // passes through the current phase so far
        int passes = 0;     // passes through all the phases
        sim_time pass_start = 0;
        bool head_wait = false;              // blocked in the pass's first step (a suspend, a wait)
        sim_time released_at = 0;            // when a resume, sem_post or pipe_write last woke it
        bool suspended = false;              // waiting in a suspend step
        bool on_timer = false;               // sleeping on a timer step
        std::optional<sim_time> runtime_end; // in a runtime step: its wall-clock end
        std::vector<rt_timer> timers;        // the "unique" timers
        sim_time last_pass_end = -1;
        int passes_at_instant = 0;

        std::vector<std::vector<name_slot>> slots; // [phase][step]: resolve_names()

        bool at_head() const { return phase == 0 && phase_pass == 0 && step == 0; }
    };

    struct program {
        program(des::simulator& sim, workload* w, std::uint64_t idx, task& tk,
                const behaviour_spec& b)
            : index(idx), t(tk), what(b), burst(sim, burst_order, {w, idx}),
              sleep(sim, wakeup_order, {w, idx}) {}
        std::uint64_t index;
        task& t;
        behaviour what;
        sim_time start = 0;
        std::optional<sim_time> end_of_life;
        std::vector<renice_spec> renice;
        std::vector<std::pair<sim_time, std::vector<bool>>> affinity; // set_affinity, masked
        double system_share = 0.0;
        duration timer_slack = 0; // prctl(PR_SET_TIMERSLACK), or the machine's
        duration clock_reads = 0; // reads its CPU clock every this much of its run; 0: never
        bool nice_clamped = false;
        duration budget = unlimited; // CPU time left in the current burst
        duration runtime_at_switch_in = 0;
        duration kernel_left = 0;  // of the last sleep's sleep_cost, the part not yet run
        duration kernel_until = 0; // while it runs: the runtime at which that part ends
        bool exit_pending = false;
        sim_time release = 0; // absolute timer: when the current burst was due
        sim_time soft = 0;    // the pending sleep's soft expiry
        int sleep_cpu = 0;    // the CPU whose timer base holds it
        burst_timer burst;
        sleep_timer sleep;
        const std::string* entry = nullptr; // its [[tasks]] entry's name
        std::unique_ptr<steps_state> st;    // a program of steps only
    };

    program& of(const task& t) const { return *programs_[task_index(t)]; }

    des::simulator& sim_;
    Core& core_;
    observer<Core>& obs_;
    duration timer_slack_;
    des::distribution sleep_cost_; // machine.sleep_cost: charged at the next run after a sleep
    std::vector<std::unique_ptr<program>> programs_;
    std::vector<std::unique_ptr<cpu_timers>> cpus_;
    // Names to indices, looked up only while programs are added.
    std::map<std::string, std::size_t> target_index_, semaphore_index_, pipe_index_, timer_index_;
    std::vector<std::vector<std::uint64_t>> resume_targets_; // the programs each resume wakes
    std::vector<channel> channels_;
    std::vector<rt_timer> timers_; // the shared ones
    des::member_handler<workload, &workload::on_fork> fork_h_;
    des::member_handler<workload, &workload::on_exit> exit_h_;
    des::member_handler<workload, &workload::on_renice> renice_h_;
    des::member_handler<workload, &workload::on_set_affinity> affinity_h_;
};

} // namespace libsched
