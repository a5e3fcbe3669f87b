#pragma once
// rt_sched_class (kernel/sched/rt.c): SCHED_FIFO and SCHED_RR. Each CPU's rt_rq holds a
// FIFO list per priority; the highest non-empty one runs, in list order. The running task
// stays on its list (so a preempted task keeps its place at the head); a woken one joins
// the tail. SCHED_RR rotates equal priorities every sched_rr_timeslice jiffies. With more
// than one CPU, wakeup placement (select_task_rq_rt) and push/pull move RT tasks to CPUs
// running lower-priority work, by cpupri (each CPU's highest queued RT priority). RT
// bandwidth (rt_time against sched_rt_runtime per sched_rt_period) throttles a CPU's RT
// queue before 6.12, and from 6.12 only with CONFIG_RT_GROUP_SCHED (5f6bd380c7bd).
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/sched_class.hpp>
#include <libsched/sched/sched_domain.hpp>
#include <vector>

namespace libsched {

// What the RT class asks of the core scheduler.
class rt_ops {
public:
    // start_rt_bandwidth(): arm the RT period timer if it is not running.
    virtual void start_rt_bandwidth() = 0;
    // deactivate_task() + set_task_cpu() + activate_task() (push_rt_task(), pull_rt_task()):
    // a queued, not running task moves and may preempt at its destination.
    virtual void move_queued_task(task& p, rq& src, rq& dst, migrate_reason why) = 0;
    // resched_curr() of another CPU's rq, taking effect there as after an IPI.
    virtual void resched_cpu(rq& r, resched_reason why) = 0;

protected:
    ~rt_ops() = default;
};

class rt_sched_class final : public sched_class {
public:
    rt_sched_class(const fair_params& params, std::vector<rq*> rqs, rt_ops& ops)
        : sched_class(sched_class_rank::rt), p_(params), rqs_(std::move(rqs)), ops_(ops) {
        for (rq* r : rqs_)
            r->rt.rt_runtime = p_.tun.rt_runtime; // sched_rt_global_constraints()
    }

    const fair_params& params() const { return p_; }
    // The sched domains find_lowest_rq() walks (none on one CPU).
    void set_domains(sched_domains* sd) { sd_ = sd; }

    // Whether RT bandwidth is enforced: sysctl_sched_rt_runtime >= 0 (rt_bandwidth_enabled())
    // and, from 6.12, CONFIG_RT_GROUP_SCHED (where the root group's bandwidth applies).
    bool rt_bandwidth_enabled() const {
        return p_.tun.rt_runtime != runtime_inf && (!p_.since(6, 12) || p_.tun.rt_group_sched);
    }

    // ---- the class's hooks ----

    // enqueue_task_rt() -> enqueue_rt_entity(): to the tail of its priority's list, the
    // head with ENQUEUE_HEAD; the queue counts in nr_running again unless throttled.
    void enqueue_task(rq& r, task& p, enqueue_flags flags) override {
        enqueue_rt_list(r, p, has(flags, enqueue_flags::head));
        enqueue_top_rt_rq(r.rt);
    }

    // dequeue_task_rt(): the running task's time is charged first.
    bool dequeue_task(rq& r, task& p, dequeue_flags) override {
        update_curr_rt(r);
        dequeue_rt_list(r, p);
        if (r.rt.rt_nr_running == 0)
            r.rt.rt_queued = false;
        return true;
    }

    // pick_next_task_rt(): nothing while the queue is throttled (sched_rt_runnable());
    // else the first task of the highest priority (pick_next_rt_entity()). A running RT
    // prev is charged first (put_prev_task() before the pick, as 5.x's slow path).
    task* pick_next_task(rq& r, task& prev) override {
        if (prev.sched_class == this)
            update_curr_rt(r);
        if (!r.rt.rt_queued || r.rt.rt_nr_running == 0)
            return nullptr;
        const int idx = r.rt.active.find_first_bit();
        task* next = r.rt.active.queue[static_cast<std::size_t>(idx)].front().owner;
        set_next_task_rt(r, *next, true);
        return next;
    }

    // put_prev_task_rt(): charge it; it stays on its list (and becomes pushable).
    void put_prev_task(rq& r, task& prev) override {
        (void)prev;
        update_curr_rt(r);
    }
    void set_next_task(rq& r, task& next) override { set_next_task_rt(r, next, false); }

    // task_tick_rt(): SCHED_RR's slice runs down by a jiffy; at 0 it is refilled and, if
    // another task shares the list, the task moves to its tail and yields.
    void task_tick(rq& r, task& curr, bool queued) override {
        (void)queued;
        update_curr_rt(r);
        if (curr.policy != sched_policy::rr)
            return;
        if (--curr.rt.time_slice != 0)
            return;
        curr.rt.time_slice = p_.tun.rr_timeslice;
        rt_run_list& list = r.rt.active.queue[static_cast<std::size_t>(task_prio(curr))];
        if (list.size() > 1) { // run_list.prev != run_list.next
            requeue_task_rt(r, curr, false);
            resched_curr(r, resched_reason::task_tick_rt);
        }
    }

    // check_preempt_curr_rt() (wakeup_preempt_rt from 6.6): a strictly higher priority
    // preempts; an equal one may make room by pushing curr (check_preempt_equal_prio()).
    void wakeup_preempt(rq& r, task& p, wake_flags flags) override {
        (void)flags;
        task& curr = *r.curr;
        if (task_prio(p) < task_prio(curr)) {
            resched_curr(r, resched_reason::wakeup_preempt);
            return;
        }
        if (task_prio(p) == task_prio(curr) && !r.need_resched)
            check_preempt_equal_prio(r, p);
    }

    // update_curr_rt(): sum_exec_runtime from exec_start on clock_task, as the fair class;
    // then the RT bandwidth (sched_rt_runtime_exceeded()).
    void update_curr(rq& r) override { update_curr_rt(r); }

    // yield_task_rt(): the task goes to the tail of its priority's list, behind the tasks
    // of its priority that wait.
    void yield_task(rq& r) override { requeue_task_rt(r, *r.curr, false); }

    // select_task_rq_rt(): a waking or new task stays on its CPU unless an RT task runs
    // there that it does not preempt (or that cannot move): then the lowest-priority CPU
    // (find_lowest_rq()) if that runs lower-priority work than the task.
    int select_task_rq(task& p, int prev_cpu, int this_cpu, wake_flags flags) override {
        (void)flags; // the core asks only for wakeups and forks
        const rq& r = *rqs_[static_cast<std::size_t>(prev_cpu)];
        const task& curr = *r.curr;
        const bool test = curr.sched_class == this &&
                          (curr.nr_cpus_allowed(nr_cpus()) < 2 || task_prio(curr) <= task_prio(p));
        if (test) {
            const int target = find_lowest_rq(p, this_cpu);
            if (target != -1 &&
                task_prio(p) < rqs_[static_cast<std::size_t>(target)]->rt.highest_prio_curr)
                return target;
        }
        return prev_cpu;
    }

    // balance_rt(): prev (RT, or the stopper) leaves and the CPU's priority drops: pull.
    bool balance(rq& r, task& prev) override {
        if (!prev.rt.on_rq && r.rt.highest_prio_curr > task_prio(prev))
            pull_rt_task(r);
        return r.rt.rt_queued && r.rt.rt_nr_running > 0;
    }

    void migrate_task_rq(task&, int) override {}
    void task_fork(rq&, task&) override {}
    // set_user_nice() of an RT task only sets its static priority (the core does not
    // reach these for one).
    void reweight_task(rq&, task&, load_weight) override {}
    void prio_changed(rq&, task&, int) override {}
    void switched_to(rq&, task&) override {}
    std::optional<duration> hrtick_delay(rq&, bool) override { return std::nullopt; }

    // ---- what the core calls besides the hooks ----

    // __sched_fork(): p->rt.time_slice = sched_rr_timeslice.
    void sched_fork(task& p) const { p.rt.time_slice = p_.tun.rr_timeslice; }

    // task_woken_rt(): a woken task that will not run soon is pushed away now.
    void task_woken(rq& r, task& p) {
        const task& curr = *r.curr;
        if (r.curr != &p && !r.need_resched && p.nr_cpus_allowed(nr_cpus()) > 1 &&
            curr.sched_class == this &&
            (curr.nr_cpus_allowed(nr_cpus()) < 2 || task_prio(curr) <= task_prio(p)))
            push_rt_tasks(r);
    }

    // The balance callback queued during __schedule() runs at its end
    // (__balance_callbacks()): push_rt_tasks() after an RT pick. rt_queue_pull_task() has
    // no caller here: it comes from a policy or priority change of a running RT task.
    // Returns whether it ran.
    bool balance_callbacks(rq& r) {
        if (!r.rt.push_pending)
            return false;
        r.rt.push_pending = false;
        push_rt_tasks(r);
        return true;
    }

    // do_sched_rt_period_timer(), for one CPU after its clock update: rt_time is paid back
    // by overrun periods' runtime; a throttled queue whose debt fell below its runtime
    // runs again (resched). Returns whether the CPU keeps the timer busy (not idle).
    // RT_RUNTIME_SHARE is not modelled (off by default from 5.10, 2586af1ac187): each
    // CPU's runtime is reset to the global one.
    bool do_sched_rt_period_timer(rq& r, u64 overrun) {
        rt_rq& q = r.rt;
        if (q.rt_runtime != runtime_inf)
            q.rt_runtime = p_.tun.rt_runtime;
        if (q.rt_time == 0 && q.rt_nr_running == 0)
            return false;
        bool idle = true;
        bool enqueue = false;
        if (q.rt_time != 0) {
            const duration runtime = q.rt_runtime;
            const u64 pay = overrun * static_cast<u64>(runtime);
            q.rt_time -= static_cast<duration>(std::min(static_cast<u64>(q.rt_time), pay));
            if (q.rt_throttled && q.rt_time < runtime) {
                q.rt_throttled = false;
                enqueue = true;
            }
            if (q.rt_time != 0 || q.rt_nr_running != 0)
                idle = false;
        } else if (q.rt_nr_running != 0) {
            idle = false;
            if (!q.rt_throttled)
                enqueue = true;
        }
        if (enqueue && q.rt_nr_running != 0) { // sched_rt_rq_enqueue()
            enqueue_top_rt_rq(q);
            resched_curr(r, resched_reason::sched_rt_period_timer);
        }
        return !idle;
    }

    int nr_cpus() const { return static_cast<int>(rqs_.size()); }

private:
    rt_run_list& list_of(rq& r, const task& p) {
        return r.rt.active.queue[static_cast<std::size_t>(task_prio(p))];
    }

    // __enqueue_rt_entity() + inc_rt_tasks(): inc_rt_prio() keeps highest_prio.curr;
    // inc_rt_group() starts the bandwidth timer.
    void enqueue_rt_list(rq& r, task& p, bool head) {
        rt_run_list& list = list_of(r, p);
        if (head)
            list.push_front(p.rt);
        else
            list.push_back(p.rt);
        r.rt.active.set_bit(task_prio(p));
        p.rt.on_list = true;
        p.rt.on_rq = true;
        ++r.rt.rt_nr_running;
        if (p.policy == sched_policy::rr)
            ++r.rt.rr_nr_running;
        if (task_prio(p) < r.rt.highest_prio_curr)
            r.rt.highest_prio_curr = task_prio(p);
        if (rt_bandwidth_enabled())
            ops_.start_rt_bandwidth();
    }

    // __dequeue_rt_entity() + dec_rt_tasks() (dec_rt_prio()).
    void dequeue_rt_list(rq& r, task& p) {
        rt_run_list& list = list_of(r, p);
        list.erase(list.iterator_to(p.rt));
        if (list.empty())
            r.rt.active.clear_bit(task_prio(p));
        p.rt.on_list = false;
        p.rt.on_rq = false;
        --r.rt.rt_nr_running;
        if (p.policy == sched_policy::rr)
            --r.rt.rr_nr_running;
        r.rt.highest_prio_curr = r.rt.active.find_first_bit();
    }

    // enqueue_top_rt_rq(): the queue's tasks count in nr_running, unless throttled.
    static void enqueue_top_rt_rq(rt_rq& q) {
        if (q.rt_queued || q.rt_throttled)
            return;
        if (q.rt_nr_running != 0)
            q.rt_queued = true;
    }

    // requeue_task_rt(): to the head or the tail of its list, staying queued.
    void requeue_task_rt(rq& r, task& p, bool head) {
        if (!p.rt.on_rq)
            return;
        rt_run_list& list = list_of(r, p);
        list.erase(list.iterator_to(p.rt));
        if (head)
            list.push_front(p.rt);
        else
            list.push_back(p.rt);
    }

    // set_next_task_rt(): exec_start; a first pick queues a push of what else waits.
    void set_next_task_rt(rq& r, task& p, bool first) {
        p.se.exec_start = r.clock_task;
        if (first && has_pushable_tasks(r, &p))
            r.rt.push_pending = true;
    }

    void update_curr_rt(rq& r) {
        task& curr = *r.curr;
        if (curr.sched_class != this)
            return;
        const duration delta = r.clock_task - curr.se.exec_start;
        if (delta <= 0)
            return;
        curr.se.sum_exec_runtime += delta;
        curr.se.exec_start = r.clock_task;
        if (!rt_bandwidth_enabled() || r.rt.rt_runtime == runtime_inf)
            return;
        r.rt.rt_time += delta;
        if (sched_rt_runtime_exceeded(r.rt))
            resched_curr(r, resched_reason::sched_rt_runtime_exceeded);
    }

    // sched_rt_runtime_exceeded(): over its runtime in the period, the queue is throttled
    // and leaves nr_running (sched_rt_rq_dequeue()). A runtime of a whole period never
    // throttles; a runtime of 0 does not either (rt_time is reset instead).
    bool sched_rt_runtime_exceeded(rt_rq& q) const {
        const duration runtime = q.rt_runtime;
        if (q.rt_throttled)
            return true;
        if (runtime >= p_.tun.rt_period)
            return false;
        if (q.rt_time > runtime) {
            if (p_.tun.rt_runtime != 0) {
                q.rt_throttled = true;
            } else {
                q.rt_time = 0;
            }
            if (q.rt_throttled) {
                q.rt_queued = false;
                return true;
            }
        }
        return false;
    }

    // ---- SMP: cpupri, find_lowest_rq, push and pull ----

    // convert_prio() of a CPU's highest RT priority: 0 (CPUPRI_NORMAL) without RT tasks,
    // 100 - prio for RT. All CPUs without RT work are alike (5.11+, and in effect before).
    static int cpupri_of(const rq& r) {
        return r.rt.highest_prio_curr >= max_rt_prio ? 0 : max_rt_prio - r.rt.highest_prio_curr;
    }

    // cpupri_find(): the CPUs p may run on at the lowest cpupri level below p's own.
    std::vector<int> cpupri_find(const task& p) const {
        const int task_pri = max_rt_prio - task_prio(p);
        for (int idx = 0; idx < task_pri; ++idx) {
            std::vector<int> mask;
            for (const rq* r : rqs_)
                if (cpupri_of(*r) == idx && p.allowed_on(r->cpu))
                    mask.push_back(r->cpu);
            if (!mask.empty())
                return mask;
        }
        return {};
    }

    // find_lowest_rq(): of the lowest-priority CPUs, p's own; else this_cpu or the first
    // in the lowest SD_WAKE_AFFINE domain that has one; else this_cpu or any.
    int find_lowest_rq(const task& p, int this_cpu) const {
        if (p.nr_cpus_allowed(nr_cpus()) == 1)
            return -1;
        const std::vector<int> mask = cpupri_find(p);
        if (mask.empty())
            return -1;
        const auto in_mask = [&](int c) {
            return std::find(mask.begin(), mask.end(), c) != mask.end();
        };
        if (in_mask(p.cpu))
            return p.cpu;
        if (!in_mask(this_cpu))
            this_cpu = -1;
        if (sd_ != nullptr) {
            for (const sched_domain* sd = sd_->lowest(p.cpu); sd != nullptr; sd = sd->parent) {
                if (!has(sd->flags, sd_flag::wake_affine))
                    continue;
                if (this_cpu != -1 && sd->contains(this_cpu))
                    return this_cpu;
                for (int c : mask) // cpumask_first_and(): mask is in CPU order
                    if (sd->contains(c))
                        return c;
            }
        }
        return this_cpu != -1 ? this_cpu : mask.front();
    }

    // has_pushable_tasks(): a queued RT task other than the running one may run elsewhere
    // (rq->rt.pushable_tasks). `running`: the task about to run (set_next_task_rt()).
    bool has_pushable_tasks(rq& r, const task* running = nullptr) {
        return pick_next_pushable_task(r, running) != nullptr;
    }

    // pick_next_pushable_task(): the highest-priority such task, first queued first. The
    // kernel's plist orders equal priorities by when each became pushable, which differs
    // from the run list only for a task put back after running.
    task* pick_next_pushable_task(rq& r, const task* running = nullptr) {
        return first_pushable(r, running != nullptr ? running : r.curr, -1);
    }

    // pick_highest_pushable_task(): the first pushable task that may run on `cpu`.
    task* pick_highest_pushable_task(rq& r, int cpu) { return first_pushable(r, r.curr, cpu); }

    // The first queued task, in pushable order, that is not `running`, may move, and (cpu
    // != -1) may run on cpu.
    task* first_pushable(rq& r, const task* running, int cpu) {
        for (int prio = r.rt.active.find_first_bit(); prio < max_rt_prio; ++prio)
            for (sched_rt_entity& rt_se : r.rt.active.queue[static_cast<std::size_t>(prio)]) {
                task* p = rt_se.owner;
                if (p != running && p->nr_cpus_allowed(nr_cpus()) > 1 &&
                    (cpu == -1 || p->allowed_on(cpu)))
                    return p;
            }
        return nullptr;
    }

    // check_preempt_equal_prio(): curr could move elsewhere but p cannot: put p at the
    // head and reschedule so that curr gets pushed.
    void check_preempt_equal_prio(rq& r, task& p) {
        task& curr = *r.curr;
        if (curr.nr_cpus_allowed(nr_cpus()) == 1 || cpupri_find(curr).empty())
            return;
        if (p.nr_cpus_allowed(nr_cpus()) != 1 && !cpupri_find(p).empty())
            return;
        requeue_task_rt(r, p, true);
        resched_curr(r, resched_reason::check_preempt_equal_prio);
    }

    // push_rt_task(): the highest pushable task goes to the lowest-priority CPU if that
    // runs lower-priority work (find_lock_lowest_rq()); one that outranks curr makes curr
    // reschedule instead.
    bool push_rt_task(rq& r) {
        task* next_task = pick_next_pushable_task(r);
        if (next_task == nullptr)
            return false;
        if (task_prio(*next_task) < task_prio(*r.curr)) {
            ops_.resched_cpu(r, resched_reason::push_rt_task);
            return false;
        }
        const int cpu = find_lowest_rq(*next_task, r.cpu);
        if (cpu == -1 || cpu == r.cpu)
            return false;
        rq& lowest = *rqs_[static_cast<std::size_t>(cpu)];
        if (lowest.rt.highest_prio_curr <= task_prio(*next_task))
            return false;
        ops_.move_queued_task(*next_task, r, lowest, migrate_reason::push_rt_task);
        return true;
    }

    void push_rt_tasks(rq& r) {
        while (push_rt_task(r)) {
        }
    }

    // pull_rt_task(): this CPU's priority drops; the RT-overloaded CPUs (rto_mask: those
    // with a pushable task) hold tasks that may now run here.
    void pull_rt_task(rq& this_rq) {
        int overloaded = 0;
        for (rq* src : rqs_)
            overloaded += has_pushable_tasks(*src) ? 1 : 0;
        // Nothing to pull if no CPU, or only this one, is overloaded.
        if (overloaded == 0 || (overloaded == 1 && has_pushable_tasks(this_rq)))
            return;
        // RT_PUSH_IPI: each overloaded CPU pushes its waiting tasks (tell_cpu_to_push() ->
        // rto_push_irq_work_func()), here at once rather than an IPI later. A push stops at
        // the first pushable task with nowhere to go, though one behind it might run here.
        if (p_.feat(feature::rt_push_ipi)) {
            for (rq* src : rqs_)
                if (src != &this_rq && has_pushable_tasks(*src))
                    push_rt_tasks(*src);
            return;
        }
        // Without it (the default from rt_push_ipi_off): this CPU takes, from each overloaded
        // CPU in turn, the first pushable task allowed here that outranks this CPU's best,
        // unless it also outranks what runs on its own CPU (which will reschedule for it).
        // A later CPU's task is taken only if it outranks the one taken before. The kernel's
        // closing resched_curr(this_rq) is left out: the only caller, balance(), runs
        // before this CPU's pick, which then finds what was pulled.
        for (rq* src : rqs_) {
            if (src == &this_rq)
                continue;
            const task* next = pick_next_pushable_task(*src); // highest_prio.next
            if (next == nullptr || task_prio(*next) >= this_rq.rt.highest_prio_curr)
                continue;
            task* p = pick_highest_pushable_task(*src, this_rq.cpu);
            if (p == nullptr || task_prio(*p) >= this_rq.rt.highest_prio_curr ||
                task_prio(*p) < task_prio(*src->curr))
                continue;
            ops_.move_queued_task(*p, *src, this_rq, migrate_reason::pull_rt_task);
        }
    }

    fair_params p_;
    std::vector<rq*> rqs_;
    rt_ops& ops_;
    sched_domains* sd_ = nullptr;
};

} // namespace libsched
