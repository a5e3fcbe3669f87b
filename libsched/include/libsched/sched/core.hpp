#pragma once
// The core scheduler (kernel/sched/core.c): __schedule, try_to_wake_up, wake_up_new_task,
// set_user_nice, set_cpus_allowed_ptr, sched_tick, wakeup_preempt, resched_curr, set_task_cpu,
// do_exit's last schedule. It calls the scheduling classes through their hooks and runs over a
// small environment: the event engine's clock and timers, a trace sink, and task_hooks for what
// runs above the scheduler.
#include <libsched/des/timer.hpp>
#include <libsched/sched/deadline.hpp>
#include <libsched/sched/fair.hpp>
#include <libsched/sched/idle.hpp>
#include <libsched/sched/jiffies.hpp>
#include <libsched/sched/load_balance.hpp>
#include <libsched/sched/rt.hpp>
#include <libsched/sched/stop.hpp>
#include <libsched/sched/task_group.hpp>
#include <libsched/sched/topology.hpp>
#include <libsched/sched/trace.hpp>
#include <libsched/sched/weight.hpp>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace libsched {

// What the machine costs the scheduler besides the rules: properties of the hardware and
// kernel configuration, stated, not fitted (machine_spec documents each).
struct machine_costs {
    duration resched_latency = 1'000;   // resched request -> schedule() reading the clock
    duration tick_irq = 2'000;          // the tick interrupt's own time
    bool irq_time_accounting = true;    // CONFIG_IRQ_TIME_ACCOUNTING
    bool nohz_idle = true;              // CONFIG_NO_HZ_IDLE
    duration idle_exit_latency = 1'000; // an interrupt finding the CPU idle -> its handler
    duration ipi_latency = 1'000;       // an IPI's sending -> its handler on the target
    // The tick's hrtimer expiry -> its interrupt's handler, drawn for each tick of each CPU
    // (a VM's timer injection); below one tick.
    des::distribution tick_latency{};
};

// What runs above the scheduler (the tasks' programs), told when a task gets or loses a
// CPU, asked in which mode a tick finds it and told of the CPU's own hrtimer interrupts
// (the tasks' sleep timers share them). basic_core takes any type with these six members;
// task_hooks is the one to derive from where the type is not known in advance.
class task_hooks {
public:
    virtual void switched_in(task& t) = 0;
    // why: what preempted t (resched_reason::none when t blocked or exited).
    virtual void switched_out(task& t, resched_reason why) = 0;
    // set_task_cpu() moved t to another CPU.
    virtual void migrated(task& t, migrate_reason why) = 0;
    // The tick interrupted t in kernel mode (a system call) rather than in user mode.
    virtual bool tick_in_kernel_mode(task& t) = 0;
    // hrtimer_interrupt() on cpu ran the core's own timer (the tick, the HRTICK, the fair
    // server's dl_timer); __hrtimer_run_queues() expires the other timers due at basenow,
    // the time the interrupt read on entry, too.
    virtual void hrtimer_interrupt(int cpu, sim_time basenow) = 0;
    // Whether the tick's interrupt now has timers to expire: due now, or whose hard expiry
    // comes before its handler's end.
    virtual bool timer_due(int cpu, sim_time handler_end) = 0;
    // The hard expiry of the first of those timers on cpu, or max() if none.
    virtual sim_time next_timer(int cpu) = 0;

protected:
    ~task_hooks() = default;
};

// The core scheduler over Hooks (task_hooks, or a model's own final type, which spares
// an indirect call per switch and tick).
template <class Hooks>
class basic_core final : private balance_ops, private rt_ops, private dl_timer_ops {
public:
    // Order among simultaneous events: the tick sees wakeups and bursts ending at its
    // instant; a reschedule comes after the tick that asked for it.
    static constexpr des::event_order tick_order = 5;
    static constexpr des::event_order resched_order = 6;
    // A group's bandwidth period refill runs before a tick of the same instant.
    static constexpr des::event_order bandwidth_order = 4;

    // With more than one CPU, wakeup placement and load balancing run over the topology's
    // sched domains.
    basic_core(des::simulator& sim, const fair_params& params, const machine_costs& costs,
               const cpu_topology& topo, Hooks& hooks, trace_sink trace = {})
        : sim_(sim), costs_(costs), hooks_(hooks), trace_(std::move(trace)), fair_(params),
          stop_(topo.nr_cpus()), rt_period_timer_(sim, tick_order, {this, 0}),
          jiffies_(params.tun.tick_nsec) {
        std::vector<rq*> rqs;
        for (int c = 0; c < topo.nr_cpus(); ++c) {
            auto cs = std::make_unique<cpu_state>(sim, c, this, params);
            cs->runqueue.idle.sched_class = &idle_;
            cs->runqueue.idle.comm = idle_comm;
            cs->stopper.sched_class = &stop_;
            cs->stopper.comm = "migration/" + std::to_string(c);
            cs->stopper.cpu = c;
            // sched_set_stop_task(): SCHED_FIFO at MAX_RT_PRIO - 1, above every RT task.
            cs->stopper.policy = sched_policy::fifo;
            cs->stopper.rt_priority = max_rt_prio - 1;
            rqs.push_back(&cs->runqueue);
            cpus_.push_back(std::move(cs));
        }
        groups_.push_back(std::make_unique<task_group>(rqs));
        rt_ = std::make_unique<rt_sched_class>(params, rqs, static_cast<rt_ops&>(*this));
        if (topo.nr_cpus() > 1) {
            lb_ = std::make_unique<load_balancer>(topo, params, rqs,
                                                  static_cast<balance_ops&>(*this), jiffies_, sim);
            placement_ =
                std::make_unique<select_task_rq_fair>(params, lb_->domains(), rqs, sim, jiffies_);
            fair_.set_placement(placement_.get());
            rt_->set_domains(&lb_->domains());
        }
    }
    basic_core(des::simulator& sim, const fair_params& params, const machine_costs& costs, int cpus,
               Hooks& hooks, trace_sink trace = {})
        : basic_core(sim, params, costs, symmetric_topology(1, cpus, 1), hooks, std::move(trace)) {}
    basic_core(const basic_core&) = delete;
    basic_core& operator=(const basic_core&) = delete;

    sim_time now() const { return sim_.now(); }
    const fair_params& params() const { return fair_.params(); }
    int nr_cpus() const { return static_cast<int>(cpus_.size()); }
    rq& cpu_rq(int cpu) { return cpus_[static_cast<std::size_t>(cpu)]->runqueue; }
    const rq& cpu_rq(int cpu) const { return cpus_[static_cast<std::size_t>(cpu)]->runqueue; }
    rq& task_rq(const task& p) { return cpu_rq(p.cpu); }
    const rq& task_rq(const task& p) const { return cpu_rq(p.cpu); }
    fair_sched_class& fair() { return fair_; }
    rt_sched_class& rt() { return *rt_; }
    // The CPU's stopper (migration/N), above every class.
    bool is_stopper(const task& t) const { return t.sched_class == &stop_; }
    bool is_fair(const task& t) const { return t.sched_class == &fair_; }
    // 6.12+ with RT tasks: the CPUs' fair servers (nullptr otherwise).
    const fair_server* dl_servers() const { return server_.get(); }
    // The load balancer (nullptr on one CPU): its domains and counters.
    const load_balancer* balancer() const { return lb_.get(); }
    // machine.newidle_ratio: where NI_RANDOM's success rate of cpu starts.
    void set_newidle_ratio(int cpu, unsigned ratio) {
        if (lb_)
            lb_->set_newidle_ratio(cpu, ratio);
    }

    // The root task group (root_task_group): the CPUs' own queues.
    task_group& root_task_group() { return *groups_.front(); }

    // sched_create_group() + sched_online_group(): a new group below parent, with a queue and
    // an entity on every CPU (cpu_cgroup_css_alloc() for a cgroup's mkdir, or an autogroup),
    // given its scaled shares before any task joins it (as a cpu.shares write right after
    // the mkdir).
    task_group& sched_create_group(task_group& parent, std::string name, u64 shares = nice_0_load) {
        std::vector<rq*> rqs;
        for (auto& c : cpus_)
            rqs.push_back(&c->runqueue);
        auto tg = std::make_unique<task_group>(parent, std::move(name), rqs,
                                               params().timeline_by_deadline());
        tg->shares = shares;
        for (sched_entity* se : tg->se)
            se->load = {shares, 0};
        groups_.push_back(std::move(tg));
        return *groups_.back();
    }
    const std::vector<std::unique_ptr<task_group>>& task_groups() const { return groups_; }

    // sched_group_set_shares() (cpu.shares, cpu.weight): on every CPU the group's entity
    // and its ancestors take the new weight. The caller has checked or clamped the value.
    void sched_group_set_shares(task_group& tg, u64 shares) {
        tg.shares = shares;
        for (auto& c : cpus_)
            update_rq_clock(c->runqueue);
        fair_.group_shares_changed(tg);
    }

    // sched_group_set_idle() (cpu.idle, 5.15+): the group's queues and entities become idle
    // (or not), then the group takes WEIGHT_IDLEPRIO (scale_load(3)) or NICE_0_LOAD as its
    // shares, as the kernel does whatever cpu.shares / cpu.weight said.
    void sched_group_set_idle(task_group& tg, bool idle) {
        for (auto& c : cpus_)
            update_rq_clock(c->runqueue);
        fair_.group_set_idle(tg, idle);
        sched_group_set_shares(tg, idle ? scale_load(weight_idleprio) : nice_0_load);
    }

    // tg_set_cfs_bandwidth() (cpu.max, cpu.max.burst; v1 cpu.cfs_quota_us, cfs_period_us,
    // cfs_burst_us), as written right after the group's mkdir; quota runtime_inf = "max".
    // The caller has checked the values (validate()). The group's bandwidth and its timers
    // exist from its first quota on, so a group never limited adds no events.
    void tg_set_cfs_bandwidth(task_group& tg, duration period, duration quota, duration burst) {
        if (tg.cfs_b == nullptr) {
            if (quota == runtime_inf)
                return;
            init_cfs_bandwidth(tg);
        }
        cfs_bandwidth& b = *tg.cfs_b;
        const bool enabled = quota != runtime_inf;
        b.period = period;
        b.quota = quota;
        b.burst = burst;
        bandwidth::refill_cfs_bandwidth_runtime(b);
        if (enabled)
            bandwidth::start_cfs_bandwidth(b);
        for (std::size_t c = 0; c < cpus_.size(); ++c) {
            cfs_rq& q = *tg.cfs_rq[c];
            update_rq_clock(cpus_[c]->runqueue);
            q.runtime_enabled = enabled;
            b.runtime_in -= q.runtime_remaining;
            q.runtime_remaining = 0;
            if (q.throttled)
                bandwidth::unthrottle_cfs_rq(fair_, q);
        }
        after_bandwidth_change();
    }

    // Every CPU's tick starts at the first tick period.
    void start() {
        for (auto& c : cpus_)
            arm_tick(*c, params().tun.tick_nsec);
    }

    // sched_fork(): a new task joins its policy's class on `cpu` (__set_task_cpu(), no
    // migration counted): SCHED_FIFO / SCHED_RR the RT class at 99 - rt_priority
    // (__sched_fork() gives it a full RR slice), the others the fair class with the weight
    // of their nice and policy. On 6.12+ the first RT task brings in the fair servers:
    // without RT tasks they would only follow the fair tasks' runtime in the background
    // (a fair task never starves behind another class), so a run without any leaves them
    // out and has no events for them.
    void sched_fork(task& p, int cpu) {
        if (p.sched_task_group == nullptr)
            p.sched_task_group = &root_task_group();
        p.se.load = task_load_weight(p.nice, p.policy == sched_policy::idle);
        p.se.idle = p.policy == sched_policy::idle;
        if (rt_policy(p.policy)) {
            p.sched_class = rt_.get();
            rt_->sched_fork(p);
            if (params().since(6, 12) && !server_) {
                server_ = std::make_unique<fair_server>(params(), nr_cpus(),
                                                        static_cast<dl_timer_ops&>(*this));
                fair_.set_dl_server(server_.get());
                for (auto& c : cpus_) {
                    rq& r = c->runqueue;
                    if (is_idle_task(r, *r.curr)) // idle from here on, as far as it counts
                        r.curr->se.exec_start = r.clock_task;
                    sync_fair_server(r);
                }
            }
        } else {
            p.sched_class = &fair_;
        }
        set_task_rq(p, cpu);
    }

    // wake_up_new_task(): the child is placed on the CPU select_task_rq() gives (as at
    // fork, not counted as a migration) and enqueued; 6.12+ with ENQUEUE_INITIAL (half a
    // slice), 6.6-6.11 re-placed at enqueue with a full one.
    void wake_up_new_task(task& p) {
        p.recent_used_cpu = p.cpu;
        wake_flags wf = wake_flags::fork;
        set_task_rq(p, select_task_rq(p, p.cpu, p.cpu, wf));
        rq& r = task_rq(p);
        update_rq_clock(r);
        p.state = task_state::runnable;
        trace(trace_kind::sched_wakeup_new, p);
        p.sched_class->task_fork(r, p);
        if (p.sched_class == &fair_)
            post_init_entity_util_avg(p); // on the chosen CPU, before the first enqueue
        p.sched_class->enqueue_task(
            r, p, params().since(6, 12) ? enqueue_flags::initial : enqueue_flags::none);
        sync_fair_server(r);
        activated(r);
        wakeup_preempt(r, p, wf);
        task_woken(r, p);
        hrtick_start(r, *r.curr, true);
    }

    // try_to_wake_up(p, state, wake_flags) run on the CPU `waker`: a task still queued as
    // delayed (6.12+) is requeued in place (ttwu_runnable); otherwise it goes to the CPU
    // select_task_rq() gives, with the waker's CPU as this_cpu, and is enqueued. A wakee
    // placed on another CPU than the waker's costs that CPU an IPI (ttwu_queue_wakelist()
    // or the remote resched_curr()) before it can reschedule; the enqueue itself is done at
    // once, as the waker does it when the CPUs share a cache. Under the lazy model a lazy
    // request alone sends no IPI (lazy_waits()); the waker's CPU returns to user mode after
    // the wakeup (its interrupt or system call) and honours its own.
    void try_to_wake_up(task& p, int waker, wake_flags wf = wake_flags::none) {
        if (!p.se.on_rq) {
            const int cpu = select_task_rq(p, p.cpu, waker, wf);
            if (cpu != p.cpu) {
                wf = wf | wake_flags::migrated;
                set_task_cpu(p, cpu, migrate_reason::select_task_rq);
            }
        }
        rq& r = task_rq(p);
        const duration ipi = r.cpu != waker ? ipi_cost(r) : 0; // before the enqueue
        update_rq_clock(r);
        p.state = task_state::runnable;
        trace(trace_kind::sched_wakeup, p);
        if (p.se.on_rq) {
            if (p.se.sched_delayed)
                p.sched_class->enqueue_task(r, p, enqueue_flags::delayed);
            if (r.curr != &p)
                wakeup_preempt(r, p, wf);
        } else {
            enqueue_flags ef = enqueue_flags::wakeup;
            if (has(wf, wake_flags::migrated))
                ef = ef | enqueue_flags::migrated;
            p.sched_class->enqueue_task(r, p, ef);
            sync_fair_server(r);
            activated(r);
            wakeup_preempt(r, p, wf);
            task_woken(r, p);
            if (lb_)
                lb_->idle_ended(r, now());
        }
        if (r.cpu == waker) {
            hrtick_start(r, *r.curr, true);
            return;
        }
        // hrtick_start() of another CPU's timer goes by IPI too (hrtick_csd), and so does
        // the resched_curr() of a slice it finds overrun.
        const bool hrtick_ipi = arm_hrtick(r, *r.curr, true);
        if (!lazy_waits(r, waker) || hrtick_ipi)
            maybe_resched(r, ipi);
        rq& w = cpu_rq(waker);
        if (w.need_resched_lazy)
            maybe_resched(w);
    }

    // The wakeup by a timer on the CPU the task slept on: that CPU is the waker's.
    void try_to_wake_up(task& p) { try_to_wake_up(p, p.cpu); }

    // The CPU waits in its idle state: it runs its idle task with no reschedule pending
    // (once one is, an interrupt has already woken it).
    bool in_idle_state(const rq& r) const { return is_idle_task(r, *r.curr) && !r.need_resched; }
    bool in_idle_state(int cpu) const { return in_idle_state(cpu_rq(cpu)); }
    // Inside the handler of a tick whose interrupt has timers to expire at its end.
    bool in_tick_handler(int cpu) const {
        return cpus_[static_cast<std::size_t>(cpu)]->tick_exit.active();
    }

    // The earliest expiry after `after` among the core's own timers pending on cpu (its
    // tick, HRTICK, the fair server's dl_timer), or max() if none.
    sim_time next_cpu_timer(int cpu, sim_time after) const {
        const cpu_state& c = *cpus_[static_cast<std::size_t>(cpu)];
        const sim_time tick = c.tick.active() && c.tick_expiry > after
                                  ? c.tick_expiry
                                  : std::numeric_limits<sim_time>::max();
        return std::min(tick, next_hrtimer(c, after));
    }

    const machine_costs& costs() const { return costs_; }
    // How long after the expiry the CPU's tick device was programmed for its interrupt's
    // handler runs: one draw per CPU and expiry, so that timers of one CPU expiring at one
    // instant share an interrupt, and the draw takes nothing from the seeded stream.
    duration timer_interrupt_latency(int cpu, sim_time expiry) const {
        return sim_.keyed_draw(costs_.tick_latency, static_cast<std::uint64_t>(cpu),
                               static_cast<std::uint64_t>(expiry));
    }

    // wakeup_preempt(): the class decides within itself; a task of a higher class always
    // preempts.
    void wakeup_preempt(rq& r, task& p, wake_flags flags) {
        task& curr = *r.curr;
        if (p.sched_class == curr.sched_class)
            curr.sched_class->wakeup_preempt(r, p, flags);
        else if (sched_class_above(*p.sched_class, *curr.sched_class))
            resched_curr(r, resched_reason::wakeup_preempt);
    }

    // schedule(): the running task p blocks, its state already set.
    void schedule(task& p) { schedule(task_rq(p), false); }

    // do_sched_yield(): the running task p calls sched_yield(): its class's yield_task(),
    // then schedule() with p still runnable, so a switch away counts as involuntary.
    void sched_yield(task& p) {
        rq& r = task_rq(p);
        update_rq_clock(r);
        p.sched_class->yield_task(r);
        schedule(r, false, resched_reason::sched_yield);
    }

    // do_exit(): the running task dies, its time charged up to now.
    void do_exit(task& p) {
        rq& r = task_rq(p);
        update_curr(r);
        p.state = task_state::dead;
        trace(trace_kind::sched_process_exit, p);
        schedule(r, false);
    }

    // set_user_nice() (the caller has clamped the value as setpriority() does): nothing
    // if it does not change; otherwise dequeue with DEQUEUE_SAVE, reweight, enqueue with
    // ENQUEUE_RESTORE (a delayed task stays delayed), then the class is told.
    // An RT task only takes the value (its static priority), which changes nothing until
    // it returns to a fair policy. The caller is not simulated: with more than one CPU it is
    // taken to run on another, so a lazy request alone waits for the task's CPU to return to
    // user mode (__resched_curr() sends no IPI for it); on one CPU the caller's own switch
    // brings the reschedule at once.
    void set_user_nice(task& p, int nice) {
        if (nice == p.nice)
            return;
        if (rt_policy(p.policy)) {
            p.nice = nice;
            return;
        }
        rq& r = task_rq(p);
        update_rq_clock(r);
        const int old_nice = p.nice;
        const bool queued = p.se.on_rq || p.throttled; // task_on_rq_queued(): parked too
        const bool running = r.curr == &p;
        if (queued)
            p.sched_class->dequeue_task(r, p, dequeue_flags::save);
        if (running)
            p.sched_class->put_prev_task(r, p);
        p.nice = nice;
        p.sched_class->reweight_task(r, p, task_load_weight(nice, p.policy == sched_policy::idle));
        if (queued)
            p.sched_class->enqueue_task(r, p, enqueue_flags::restore);
        if (running)
            p.sched_class->set_next_task(r, p);
        if (params().since(5, 6)) {
            p.sched_class->prio_changed(r, p, old_nice);
        } else if (queued && (nice < old_nice || (nice > old_nice && running))) {
            resched_curr(r, resched_reason::prio_changed); // before prio_changed_fair(): more
                                                           // important, or less while running
        }
        sync_fair_server(r); // the requeue may throttle the task's queue (throttle_cfs_rq())
        if (nr_cpus() == 1 || !lazy_alone(r))
            maybe_resched(r);
    }

    // __set_cpus_allowed_ptr() / affine_move_task() (sched_setaffinity(), a cpuset change):
    // the task may now run only on the CPUs of mask (empty = every CPU). If its CPU is still
    // allowed nothing more happens; a sleeping task moves at its next wakeup
    // (select_task_rq()); a queued one is moved now (move_queued_task()); a running one is
    // pushed by its CPU's stopper (stop_one_cpu() + migration_cpu_stop()). The destination
    // is the first allowed CPU (cpumask_any_and(), as before 5.10; later kernels spread
    // the choice with cpumask_any_and_distribute()). A task still queued as delayed (6.12+)
    // is moved like a queued one and stays delayed there, a parked one (6.18+ throttling)
    // too, parked again there if its group is throttled there. The caller checks that mask
    // allows some CPU.
    void set_cpus_allowed_ptr(task& p, std::vector<bool> mask) {
        p.cpus_allowed = std::move(mask);
        if (p.state == task_state::dead || p.state == task_state::not_started ||
            p.allowed_on(p.cpu))
            return;
        rq& r = task_rq(p);
        update_rq_clock(r);
        if (r.curr == &p) {
            cpu_of(r).migration_pending = &p;
            stop_one_cpu(r.cpu);
            return;
        }
        if (p.se.on_rq || p.throttled)
            move_queued_task(p, r, cpu_rq(first_allowed_cpu(p)), migrate_reason::set_cpus_allowed);
    }

    // select_task_rq() (core.c): the class chooses for a task that may run on several
    // CPUs; a choice it may not run on falls back to its first allowed CPU
    // (select_fallback_rq()).
    // The flags gain WF_RQ_SELECTED when the class was asked.
    int select_task_rq(task& p, int prev_cpu, int this_cpu, wake_flags& flags) {
        int cpu = prev_cpu;
        if (p.nr_cpus_allowed(nr_cpus()) > 1) {
            cpu = p.sched_class->select_task_rq(p, prev_cpu, this_cpu, flags);
            flags = flags | wake_flags::rq_selected;
        }
        if (p.allowed_on(cpu))
            return cpu;
        for (int c = 0; c < nr_cpus(); ++c)
            if (p.allowed_on(c))
                return c;
        return cpu;
    }

    // cpumask_any_and(p->cpus_ptr, cpu_active_mask): the first CPU the task may run on.
    int first_allowed_cpu(const task& p) const {
        for (int c = 0; c < nr_cpus(); ++c)
            if (p.allowed_on(c))
                return c;
        return p.cpu;
    }

    // set_task_cpu(): a move to another CPU is a migration: the class is told and the
    // task's counter goes up.
    void set_task_cpu(task& p, int new_cpu, migrate_reason why) {
        if (p.cpu != new_cpu) {
            if (trace_)
                trace_({trace_kind::sched_migrate_task,
                        0,
                        now(),
                        p.cpu,
                        p.pid,
                        p.comm,
                        'R',
                        0,
                        {},
                        new_cpu,
                        reason_name(why)});
            p.sched_class->migrate_task_rq(p, new_cpu);
            ++p.se.nr_migrations;
            hooks_.migrated(p, why);
        }
        set_task_rq(p, new_cpu);
    }

    // The clock and the running task's runtime brought up to now (update_rq_clock() and
    // the class's update_curr()).
    void update_curr(rq& r) {
        update_rq_clock(r);
        r.curr->sched_class->update_curr(r);
    }

    // A preemption point: a pending reschedule takes effect resched_latency later (after
    // the rest of an interrupt handler that asked for it, or the IPI that carries it to
    // another CPU, if any). It is the CPU's return to user mode, which honours a lazy
    // request too (exit_to_user_mode_loop()); the tick's promotes one (sched_tick()).
    void maybe_resched(rq& r, duration before = 0) {
        cpu_state& c = cpu_of(r);
        if (!resched_pending(r) || c.resched.active())
            return;
        c.resched.start_in(before + costs_.resched_latency);
    }

    // Only a lazy request pends on r: __resched_curr() sent no IPI for it.
    static bool lazy_alone(const rq& r) { return r.need_resched_lazy && !r.need_resched; }

    // A lazy request alone, made on r from the CPU `from`, waits for r's CPU to return to
    // user mode on its own, unless the wakeup itself went to that CPU by IPI
    // (ttwu_queue_wakelist(): the CPUs share no cache).
    bool lazy_waits(const rq& r, int from) const {
        return lazy_alone(r) && r.cpu != from &&
               (lb_ == nullptr || lb_->domains().cpus_share_cache(r.cpu, from));
    }

    // clock_gettime(CLOCK_THREAD_CPUTIME_ID) by the running task itself: task_sched_runtime()
    // brings its class's accounting up to now (update_curr()), which may find its slice used
    // up; the reschedule comes at the system call's return.
    void read_cpu_clock(task& p) {
        rq& r = task_rq(p);
        if (r.curr != &p)
            return;
        update_curr(r);
        maybe_resched(r);
    }

    // task_sched_runtime(): sum_exec_runtime including the part not yet accounted.
    duration task_sched_runtime(const task& p) {
        rq& r = cpu_rq(p.cpu);
        duration rt = p.se.sum_exec_runtime;
        if (r.curr == &p) {
            update_rq_clock(r);
            rt += r.clock_task - p.se.exec_start;
        }
        return rt;
    }

    // Wall time the CPU ran tasks (not idle), and the IRQ time taken out of the tasks'
    // clock meanwhile.
    duration cpu_busy(int cpu) const {
        const cpu_state& c = *cpus_[static_cast<std::size_t>(cpu)];
        return c.busy + (is_idle_task(c.runqueue, *c.runqueue.curr) ? 0 : now() - c.last_change);
    }
    duration cpu_irq(int cpu) const { return cpus_[static_cast<std::size_t>(cpu)]->busy_irq; }

private:
    // ---- what load balancing asks (balance_ops) ----

    // detach_task() + attach_task(): the task leaves src as queued (DEQUEUE_NOCLOCK only,
    // so old CFS keeps its vruntime relative and EEVDF its lag), moves, and joins dst, which
    // may then preempt. A balance pass pulls to its own CPU; src's stopper pushes (an
    // active balance, an affinity change), so a lazy request waits there (lazy_waits()).
    void move_queued_task(task& p, rq& src, rq& dst, migrate_reason why) override {
        update_rq_clock(src);
        update_rq_clock(dst);
        p.migrating = true;
        p.sched_class->dequeue_task(src, p, dequeue_flags::none);
        sync_fair_server(src);
        set_task_cpu(p, dst.cpu, why);
        p.sched_class->enqueue_task(dst, p, enqueue_flags::none);
        sync_fair_server(dst);
        p.migrating = false;
        activated(dst);
        wakeup_preempt(dst, p, wake_flags::none);
        const bool pushed =
            why == migrate_reason::active_load_balance || why == migrate_reason::set_cpus_allowed;
        if (!lazy_waits(dst, pushed ? src.cpu : dst.cpu))
            maybe_resched(dst);
    }

    // stop_one_cpu_nowait(): the CPU's stopper wakes and preempts whatever runs.
    void stop_one_cpu(int cpu) override {
        cpu_state& c = *cpus_[static_cast<std::size_t>(cpu)];
        rq& r = c.runqueue;
        update_rq_clock(r);
        if (c.stopper.se.on_rq)
            return;
        c.stopper.state = task_state::runnable;
        stop_.enqueue_task(r, c.stopper, enqueue_flags::wakeup);
        wakeup_preempt(r, c.stopper, wake_flags::none);
        maybe_resched(r);
    }

    // kick_ilb(): the IPI to the idle balancer, which leaves its idle state to take it.
    void kick_ilb(int cpu) override {
        cpus_[static_cast<std::size_t>(cpu)]->ilb.start_in(ipi_cost(cpu_rq(cpu)));
    }

    // An IPI's delay until its handler runs on r's CPU: the delivery, and the exit from
    // the idle state the CPU may wait in.
    duration ipi_cost(const rq& r) const {
        return costs_.ipi_latency + (in_idle_state(r) ? costs_.idle_exit_latency : 0);
    }

    void on_ilb(std::uint64_t cpu) {
        rq& r = cpu_rq(static_cast<int>(cpu));
        update_rq_clock(r);
        jiffies_.update(now()); // the IPI found the tick stopped
        lb_->nohz_idle_balance(r, now());
    }

    // The stopper runs: it does its work (the active balance), then sleeps again.
    void on_stop_work(std::uint64_t cpu) {
        cpu_state& c = *cpus_[static_cast<std::size_t>(cpu)];
        rq& r = c.runqueue;
        if (r.curr != &c.stopper)
            return;
        update_rq_clock(r);
        if (task* p = c.migration_pending) {
            c.migration_pending = nullptr;
            migration_cpu_stop(r, *p);
        }
        if (lb_)
            lb_->active_load_balance_cpu_stop(r, now());
        c.stopper.state = task_state::sleeping;
        schedule(r, false);
    }

    // migration_cpu_stop(): the stopper preempted p, which is now only queued here, and
    // moves it to a CPU of its new mask. A task that has since blocked, moved or been
    // allowed here again is left alone (a sleeper moves at its wakeup).
    void migration_cpu_stop(rq& r, task& p) {
        if (p.cpu != r.cpu || !(p.se.on_rq || p.throttled) || p.allowed_on(r.cpu) || r.curr == &p)
            return;
        move_queued_task(p, r, cpu_rq(first_allowed_cpu(p)), migrate_reason::set_cpus_allowed);
    }

    // add_nr_running(): a task joined r's queue.
    void activated(const rq& r) {
        if (lb_)
            lb_->note_nr_running(r);
    }

    // init_cfs_bandwidth(): the period timer's first expiry is drawn in [0, default period)
    // so that groups' timers interleave (6.4+, "sched: Interleave cfs bandwidth timers";
    // before, 0), from the run's seeded generator.
    void init_cfs_bandwidth(task_group& tg) {
        auto b = std::make_unique<cfs_bandwidth>(
            sim_, bandwidth_order, [this, &tg] { on_cfs_period_timer(*tg.cfs_b); },
            [this, &tg] { on_cfs_slack_timer(*tg.cfs_b); });
        b->slice = params().tun.cfs_bandwidth_slice;
        if (params().since(6, 4))
            b->period_timer.set_expires(sim_.rng().uniform_int(0, default_cfs_period - 1));
        tg.cfs_b = b.get();
        bandwidths_.push_back(std::move(b));
    }

    // The period and slack timers run with every CPU's clock brought up to now (the kernel
    // updates each CPU's clock as it unthrottles there); unthrottled CPUs then reschedule.
    // An unthrottle that gives the CPU its first queued fair tasks starts its fair server:
    // 6.12-6.17 in unthrottle_cfs_rq(), 6.18+ in the enqueue_task_fair() of the parked tasks.
    void on_cfs_period_timer(cfs_bandwidth& b) {
        const std::vector<unsigned> before = nr_running_per_cpu();
        bandwidth::sched_cfs_period_timer(fair_, b);
        after_bandwidth_change(before);
    }
    void on_cfs_slack_timer(cfs_bandwidth& b) {
        const std::vector<unsigned> before = nr_running_per_cpu();
        bandwidth::sched_cfs_slack_timer(fair_, b);
        after_bandwidth_change(before);
    }
    std::vector<unsigned> nr_running_per_cpu() {
        std::vector<unsigned> out;
        for (auto& c : cpus_) {
            update_rq_clock(c->runqueue);
            out.push_back(nr_running(c->runqueue));
        }
        return out;
    }
    void after_bandwidth_change(const std::vector<unsigned>& before = {}) {
        for (std::size_t c = 0; c < cpus_.size(); ++c) {
            rq& r = cpus_[c]->runqueue;
            if (c < before.size() && nr_running(r) > before[c])
                activated(r); // add_nr_running()
            sync_fair_server(r);
            maybe_resched(r);
        }
    }

    // A task of a program, not the idle task or a stopper: what the hooks hear of.
    bool user_task(const rq& r, const task& t) const {
        return !is_idle_task(r, t) && t.sched_class != &stop_;
    }

    // ---- what the RT class and the fair server ask (rt_ops, dl_timer_ops) ----

    // start_rt_bandwidth(): hrtimer_forward_now(timer, 0) puts the expiry a resolution
    // (1 ns) after now; the period grid starts there.
    void start_rt_bandwidth() override {
        if (rt_period_timer_.active())
            return;
        rt_period_timer_.forward(now(), 1);
        rt_period_timer_.start(rt_period_timer_.expires());
    }

    // sched_rt_period_timer(): forward by whole periods, each CPU's RT queue paid back
    // (do_sched_rt_period_timer()); the timer stops once a pass finds nothing to do.
    void on_rt_period(std::uint64_t) {
        bool idle = false;
        for (;;) {
            const std::uint64_t overrun = rt_period_timer_.forward(now(), params().tun.rt_period);
            if (overrun == 0)
                break;
            idle = true;
            for (auto& c : cpus_) {
                rq& r = c->runqueue;
                const bool busy = r.rt.rt_time != 0 || r.rt.rt_nr_running != 0;
                if (busy)
                    update_rq_clock(r);
                if (rt_->do_sched_rt_period_timer(r, overrun))
                    idle = false;
                if (r.rt.rt_throttled)
                    idle = false;
                if (busy)
                    maybe_resched(r);
            }
        }
        if (!idle)
            rt_period_timer_.start(rt_period_timer_.expires());
    }

    void resched_cpu(rq& r, resched_reason why) override {
        resched_curr(r, why);
        maybe_resched(r);
    }

    sim_time dl_timer_now() const override { return now(); }
    bool dl_timer_queued(int cpu) const override {
        return cpus_[static_cast<std::size_t>(cpu)]->dl_timer.active();
    }
    void dl_timer_start(int cpu, sim_time act) override {
        cpus_[static_cast<std::size_t>(cpu)]->dl_timer.start(std::max(act, now()));
    }
    void dl_timer_cancel(int cpu) override {
        cpu_state& c = *cpus_[static_cast<std::size_t>(cpu)];
        if (!c.in_dl_timer) // a timer restarted by its own callback stays queued
            c.dl_timer.cancel();
    }
    void update_curr_donor(rq& r) override {
        task& curr = *r.curr;
        if (is_idle_task(r, curr))
            server_->update_curr_idle(r, curr);
        else
            curr.sched_class->update_curr(r);
    }

    void on_dl_timer(std::uint64_t cpu) {
        cpu_state& c = *cpus_[cpu];
        rq& r = c.runqueue;
        update_rq_clock(r);
        c.in_dl_timer = true;
        server_->dl_server_timer(r);
        c.in_dl_timer = false;
        maybe_resched(r);
        hooks_.hrtimer_interrupt(static_cast<int>(cpu), now());
    }

    // dl_server_start() when the CPU's first fair task is enqueued (enqueue_task_fair(),
    // unthrottle_cfs_rq()), also to a started server; up to 6.16 dl_server_stop() when its
    // last leaves (dequeue_entities()); 6.12+ with RT tasks.
    void sync_fair_server(rq& r) {
        if (!server_)
            return;
        cpu_state& c = cpu_of(r);
        const bool queued = r.cfs.h_nr_queued > 0;
        const bool first = queued && !c.fair_queued;
        c.fair_queued = queued;
        if (queued && (first || !server_->active(r)))
            server_->dl_server_start(r);
        else if (!queued && server_->active(r) && !server_->stays_started())
            server_->dl_server_stop(r);
    }

    // task_woken(): only the RT class has one (task_woken_rt()).
    void task_woken(rq& r, task& p) {
        if (p.sched_class == rt_.get())
            rt_->task_woken(r, p);
    }

    // The tick and the HRTICK are hrtimers: their interrupt also expires the CPU's other
    // timers that are due.
    void on_tick(std::uint64_t cpu) {
        rq& r = cpu_rq(static_cast<int>(cpu));
        if (!sched_tick(r)) {
            hooks_.hrtimer_interrupt(static_cast<int>(cpu), now());
            return;
        }
        // __hrtimer_run_queues() expires the other timers due after the tick's handler, with
        // clock_task tick_irq on: the interrupt's time is taken off only at its exit. A
        // wakee's zero-lag deadline then comes after the one the tick just renewed.
        if (hooks_.timer_due(static_cast<int>(cpu), now() + costs_.tick_irq)) {
            cpu_of(r).tick_exit.start_in(costs_.tick_irq);
            return;
        }
        tick_irq_exit(r);
        hooks_.hrtimer_interrupt(static_cast<int>(cpu), now());
    }
    // The walk read its time when the interrupt began, at the tick.
    void on_tick_exit(std::uint64_t cpu) {
        rq& r = cpu_rq(static_cast<int>(cpu));
        hooks_.hrtimer_interrupt(static_cast<int>(cpu), now() - costs_.tick_irq);
        tick_irq_exit(r);
    }
    void on_hrtick(std::uint64_t cpu) {
        hrtick(cpu_rq(static_cast<int>(cpu)));
        hooks_.hrtimer_interrupt(static_cast<int>(cpu), now());
    }
    void on_resched(std::uint64_t cpu) {
        rq& r = cpu_rq(static_cast<int>(cpu));
        if (resched_pending(r))
            schedule(r, true);
    }

    template <void (basic_core::*Method)(std::uint64_t)>
    using cpu_timer = des::timer<des::member_call<basic_core, Method>>;

    struct cpu_state {
        cpu_state(des::simulator& sim, int cpu, basic_core* self, const fair_params& p)
            : runqueue(cpu, p), tick(sim, tick_order, {self, static_cast<std::uint64_t>(cpu)}),
              hrtick(sim, tick_order, {self, static_cast<std::uint64_t>(cpu)}),
              resched(sim, resched_order, {self, static_cast<std::uint64_t>(cpu)}),
              ilb(sim, resched_order, {self, static_cast<std::uint64_t>(cpu)}),
              stop_work(sim, resched_order, {self, static_cast<std::uint64_t>(cpu)}),
              dl_timer(sim, tick_order, {self, static_cast<std::uint64_t>(cpu)}),
              tick_exit(sim, tick_order, {self, static_cast<std::uint64_t>(cpu)}) {}
        rq runqueue;
        cpu_timer<&basic_core::on_tick> tick;
        cpu_timer<&basic_core::on_hrtick> hrtick; // HRTICK: the running task's slice end
        cpu_timer<&basic_core::on_resched> resched;
        cpu_timer<&basic_core::on_ilb> ilb;             // the NOHZ balance kick's IPI
        cpu_timer<&basic_core::on_stop_work> stop_work; // the stopper, once it runs
        cpu_timer<&basic_core::on_dl_timer> dl_timer;   // the fair server's dl_timer
        cpu_timer<&basic_core::on_tick_exit> tick_exit; // the tick's handler done, timers due
        task stopper;                                   // migration/N
        task* migration_pending = nullptr; // set_cpus_allowed_ptr()'s work for the stopper
        duration busy = 0;                 // wall time tasks ran, up to last_change
        duration busy_irq = 0;             // IRQ time taken out of the tasks' clock while busy
        sim_time last_change = 0;
        sim_time tick_expiry = 0;  // the tick hrtimer's expiry, a point of the tick grid
        bool tick_stopped = false; // NOHZ idle
        bool in_dl_timer = false;  // the dl_timer's callback runs
        bool fair_queued = false;  // fair tasks queued when the fair server last looked
    };

    cpu_state& cpu_of(const rq& r) { return *cpus_[static_cast<std::size_t>(r.cpu)]; }

    template <class Timer> static sim_time expiry_after(const Timer& timer, sim_time after) {
        return timer.active() && timer.expires() > after ? timer.expires()
                                                         : std::numeric_limits<sim_time>::max();
    }
    // The earliest expiry after `after` among the CPU's hrtimers other than its tick.
    static sim_time next_hrtimer(const cpu_state& c, sim_time after) {
        return std::min(expiry_after(c.hrtick, after), expiry_after(c.dl_timer, after));
    }

    // __set_task_cpu() / set_task_rq(): the task's entity now belongs to its group's queue
    // on that CPU, below the group's entity there.
    void set_task_rq(task& p, int cpu) {
        const task_group& tg = *p.sched_task_group;
        const auto c = static_cast<std::size_t>(cpu);
        p.cpu = cpu;
        p.se.cfs_rq = tg.cfs_rq[c];
        p.se.parent = tg.se[c];
        p.se.depth = p.se.parent != nullptr ? p.se.parent->depth + 1 : 0;
    }

    // IRQ time taken out while a task runs is part of the CPU's busy time, not the task's.
    void update_rq_clock(rq& r) {
        const duration irq = libsched::update_rq_clock(r, now());
        if (!is_idle_task(r, *r.curr))
            cpu_of(r).busy_irq += irq;
    }

    // __schedule(), then the balance callbacks it queued (the RT class's push and pull).
    void schedule(rq& r, bool preempt, resched_reason why = resched_reason::none) {
        do_schedule(r, preempt, why);
        if (rt_->balance_callbacks(r))
            maybe_resched(r);
    }

    // __schedule(): a blocking or exiting task leaves the queue (a voluntary switch);
    // otherwise prev is preempted (involuntary). Counters move only if next != prev.
    // why: what made a still runnable prev give up the CPU, for the trace.
    void do_schedule(rq& r, bool preempt, resched_reason why) {
        if (resched_pending(r) && why == resched_reason::none)
            why = r.resched_why;
        update_rq_clock(r);
        if (params().feat(feature::hrtick)) // HRTICK_DL, the other test, is not modelled
            hrtick_clear(r);
        task& prev = *r.curr;
        const bool prev_idle = is_idle_task(r, prev);
        std::uint64_t* switch_count = prev_idle ? nullptr : &prev.nivcsw;
        if (!preempt && !prev_idle && prev.state != task_state::runnable) {
            dequeue_flags flags = dequeue_flags::sleep;
            if (prev.state == task_state::dead)
                flags = flags | dequeue_flags::special;
            prev.sched_class->dequeue_task(r, prev, flags);
            sync_fair_server(r);
            switch_count = &prev.nvcsw;
        }
        task& next = pick_next_task(r, prev);
        sync_fair_server(r);    // the pick may have dequeued delayed tasks for good
        r.need_resched = false; // clear_tsk_need_resched(prev): after the pick, as the kernel
        r.need_resched_lazy = false;
        hrtick_start(r, next, false);
        if (&next == &prev)
            return;
        ++r.nr_switches;
        if (switch_count != nullptr)
            ++*switch_count;
        trace_switch(r, prev, next, why);
        cpu_state& c = cpu_of(r);
        if (!prev_idle)
            c.busy += now() - c.last_change;
        c.last_change = now();
        if (user_task(r, prev))
            hooks_.switched_out(prev, switch_count == &prev.nivcsw ? why : resched_reason::none);
        r.curr = &next;
        if (is_idle_task(r, next)) {
            if (lb_)
                lb_->cpu_went_idle(r);
            stop_idle_tick(r);
            return;
        }
        restart_tick(r);
        if (user_task(r, next))
            hooks_.switched_in(next);
        else
            c.stop_work.start(now());
    }

    // __pick_next_task(): the classes in order, stop > deadline (the 6.12+ fair server) >
    // RT > fair > idle. With only fair tasks this is the kernel's fast path: the fair class
    // picks, putting prev back if prev is its own; with nothing to run the CPU goes to its
    // idle task. The stopper comes first when woken. A prev of the RT class or above first
    // lets the RT class pull (prev_balance() -> balance_rt()). A queued, unthrottled fair
    // server picks a fair task (its server_pick_task) above the RT class; picking none (the
    // pick's delayed dequeues or throttle emptied the queue) it stops, keeping its budget
    // for a later wakeup under the CBS rules. The kernel stops it there since a3a70caf7906
    // (6.17); before, dequeue_entities() / throttle_cfs_rq() had stopped it, and
    // __pick_task_dl() yields only an active server (b53127db1dbf, 6.13 and 6.12.y). The
    // fast path (prev of the fair or idle class, only fair tasks queued) passes a queued
    // server over, so it stops only when an RT task is queued too. A CPU about to go idle
    // first tries to pull work (newidle_balance() from pick_next_task_fair()).
    task& pick_next_task(rq& r, task& prev) {
        const bool prev_above_fair = prev.sched_class == rt_.get() || prev.sched_class == &stop_;
        if (prev_above_fair)
            rt_->balance(r, prev);
        task* next = stop_.pick_next_task(r, prev);
        r.served_past_budget = false;
        const bool fast_path = !prev_above_fair && nr_running(r) == r.cfs.h_nr_queued;
        if (next == nullptr && !fast_path && server_ && server_->runnable(r)) {
            next = fair_.pick_next_task(r, prev);
            if (next == nullptr)
                server_->dl_server_stop(r);
            else
                r.served_past_budget = !server_->runnable(r);
        }
        if (next == nullptr)
            next = rt_->pick_next_task(r, prev);
        if (next == nullptr) {
            next = fair_.pick_next_task(r, prev);
            if (next == nullptr && lb_ && lb_->newidle_balance(r, now()))
                next = fair_.pick_next_task(r, prev);
        }
        if (next == nullptr)
            next = idle_.pick_next_task(r, prev);
        put_prev_task(r, prev, *next);
        return *next;
    }

    // put_prev_task() of a prev that is not picked again, if its class has not put it
    // already (the fair class's pick puts its own). Leaving idle, the idle time counts
    // against the fair server (put_prev_task_idle()); entering it, it starts counting
    // (set_next_task_idle()).
    void put_prev_task(rq& r, task& prev, task& next) {
        if (&next == &prev)
            return;
        if (prev.sched_class == &fair_) {
            if (cfs_rq_of(prev.se).curr == &prev.se)
                fair_.put_prev_task(r, prev);
        } else {
            prev.sched_class->put_prev_task(r, prev);
        }
        if (server_ && is_idle_task(r, prev))
            server_->put_prev_task_idle(r, prev);
        if (server_ && is_idle_task(r, next))
            next.se.exec_start = r.clock_task;
    }

    // sched_tick(): account_process_tick() charges the whole tick to the running task's
    // utime or stime by the mode the tick interrupted, then the class's task_tick. True when
    // its handler ran for tick_irq on behalf of a running task, whose clock_task loses that
    // time at the interrupt's exit (on_tick() says when that is).
    bool sched_tick(rq& r) {
        cpu_state& c = cpu_of(r);
        if (timekeeper_ < 0) // tick_sched_do_timer(): the first CPU to tick takes the duty
            timekeeper_ = r.cpu;
        update_rq_clock(r);
        task& curr = *r.curr;
        const bool idle = is_idle_task(r, curr);
        if (!idle) {
            if (user_task(r, curr))
                (hooks_.tick_in_kernel_mode(curr) ? curr.stime : curr.utime) +=
                    params().tun.tick_nsec;
            curr.sched_class->task_tick(r, curr, false);
        } else if (server_) {
            server_->task_tick_idle(r, curr);
        }
        // trigger_load_balance(): the balancing softirq runs at the interrupt's exit.
        if (lb_)
            lb_->trigger_load_balance(r, now(), idle);
        if (!idle || nr_running(r) > 0) {
            // The tick's handler runs for tick_irq; schedule() comes after its exit.
            maybe_resched(r, costs_.tick_irq);
        } else if (stop_idle_tick(r)) {
            return false;
        }
        arm_tick(c, c.tick_expiry + params().tun.tick_nsec);
        return !idle && costs_.tick_irq > 0;
    }

    // tick_nohz_idle_stop_tick(), from the idle loop as the CPU goes idle and again after an
    // interrupt that left it idle: the tick stops unless a timer of this CPU expires before
    // the next tick would (tick_nohz_next_event()). The cpuidle governor is taken to ask for
    // the stop, as haltpoll does when it does not poll and menu and teo do when they expect
    // more than a tick of idle.
    bool stop_idle_tick(rq& r) {
        cpu_state& c = cpu_of(r);
        if (!costs_.nohz_idle || c.tick_stopped || nr_running(r) > 0)
            return false;
        const duration tick = params().tun.tick_nsec;
        const sim_time next_tick = (now() / tick + 1) * tick;
        if (std::min(hooks_.next_timer(r.cpu), next_hrtimer(c, now())) <= next_tick)
            return false;
        c.tick.cancel();
        c.tick_stopped = true;
        if (timekeeper_ == r.cpu) { // tick_nohz_stop_tick() drops the duty
            timekeeper_ = -1;
            jiffies_.timekeeper_dropped();
        }
        if (lb_)
            lb_->nohz_balance_enter_idle(r, now());
        return true;
    }

    // irqtime_account_irq() at the tick interrupt's exit: later clock reads lose its time.
    void tick_irq_exit(rq& r) {
        if (costs_.irq_time_accounting)
            r.irq_time += costs_.tick_irq;
    }

    // tick_nohz_idle_exit(): the tick resumes at the next point of its grid. A CPU only
    // leaves idle in a reschedule event, which runs after a tick of the same instant.
    void restart_tick(rq& r) {
        cpu_state& c = cpu_of(r);
        if (!c.tick_stopped)
            return;
        c.tick_stopped = false;
        jiffies_.update(now()); // tick_nohz_idle_exit()
        const duration tick = params().tun.tick_nsec;
        arm_tick(c, (now() / tick + 1) * tick);
    }

    // The tick hrtimer expires at a point of the grid (hrtimer_forward() keeps it there);
    // its handler runs tick_latency later, and the timekeeper's advances jiffies there.
    void arm_tick(cpu_state& c, sim_time expiry) {
        c.tick_expiry = expiry;
        const sim_time at = expiry + timer_interrupt_latency(c.runqueue.cpu, expiry);
        c.tick.start(at);
        if (timekeeper_ == c.runqueue.cpu)
            jiffies_.timekeeper_armed(expiry, at);
    }

    void hrtick_clear(rq& r) {
        cpu_of(r).hrtick.cancel();
        r.hrtick_active = false;
    }

    // hrtick_start() at the pick, hrtick_update() after an enqueue: (re)arm the slice timer
    // of the running task, or leave it as it is. __schedule() cleared it before the pick.
    // The class is asked only under HRTICK, tested first as hrtick_enabled_fair() does.
    void hrtick_start(rq& r, task& running, bool enqueue) {
        arm_hrtick(r, running, enqueue);
        maybe_resched(r);
    }
    // Whether the timer was (re)armed.
    bool arm_hrtick(rq& r, task& running, bool enqueue) {
        if (!params().feat(feature::hrtick))
            return false;
        const auto delay = running.sched_class->hrtick_delay(r, enqueue);
        if (!delay)
            return false;
        cpu_of(r).hrtick.start_in(*delay);
        r.hrtick_active = true;
        return true;
    }

    // hrtick(): the slice timer expired; the class's tick with queued = 1.
    void hrtick(rq& r) {
        r.hrtick_active = false;
        update_rq_clock(r);
        task& curr = *r.curr;
        if (is_idle_task(r, curr))
            return;
        curr.sched_class->task_tick(r, curr, true);
        maybe_resched(r);
    }

    void trace(trace_kind kind, const task& t) {
        if (trace_)
            trace_({kind, 0, now(), t.cpu, t.pid, t.comm, 'R', 0, {}, -1, {}});
    }
    void trace_switch(const rq& r, const task& prev, const task& next, resched_reason why) {
        if (!trace_)
            return;
        const char state = prev.state == task_state::dead       ? 'X'
                           : prev.state == task_state::sleeping ? 'S'
                                                                : 'R';
        const bool preempted = state == 'R' && !is_idle_task(r, prev);
        trace_({trace_kind::sched_switch, 0, now(), r.cpu, prev.pid, prev.comm, state, next.pid,
                next.comm, -1, preempted ? reason_name(why) : std::string_view{}});
    }

    des::simulator& sim_;
    machine_costs costs_;
    Hooks& hooks_;
    trace_sink trace_;
    fair_sched_class fair_;
    idle_sched_class idle_;
    stop_sched_class stop_;
    std::unique_ptr<rt_sched_class> rt_; // over the run queues, made with them
    std::unique_ptr<fair_server> server_;
    des::timer<des::member_call<basic_core, &basic_core::on_rt_period>> rt_period_timer_;
    std::vector<std::unique_ptr<cpu_state>> cpus_;
    std::vector<std::unique_ptr<task_group>> groups_; // the root first, parents before children
    std::vector<std::unique_ptr<cfs_bandwidth>> bandwidths_; // of the groups that had a quota
    jiffies_clock jiffies_;
    int timekeeper_ = 0; // tick_do_timer_cpu: the boot CPU; -1 (none) once its tick stops
    std::unique_ptr<load_balancer> lb_;
    std::unique_ptr<select_task_rq_fair> placement_;
};

using core = basic_core<task_hooks>;

} // namespace libsched
