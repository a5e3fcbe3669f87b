#pragma once
// The invariant-checking mode, like the kernel's SCHED_DEBUG warnings: after an event,
// the state every rule relies on is checked against a recomputation from the entities
// themselves. A violation throws invariant_violation naming what broke, with the run
// queues' state. O(queued entities + tasks) per check.
#include <algorithm>
#include <libsched/sched/bandwidth.hpp>
#include <libsched/sched/core.hpp>
#include <libsched/sched/debug.hpp>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace libsched {

class invariant_violation : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

template <class Core> class invariant_checker {
public:
    // Checks the state after `events` events at the core's now(); throws on a violation.
    void check(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
               std::uint64_t events) {
        std::string what;
        const auto fail = [&](const std::string& w) {
            if (what.empty())
                what = w;
        };
        for (const auto& tg : c.task_groups())
            for (std::size_t cpu = 0; cpu < tg->cfs_rq.size(); ++cpu)
                check_queue(c, *tg->cfs_rq[cpu], queue_name(*tg, cpu), fail);
        check_tasks(c, tasks, fail);
        check_class_order(c, fail);
        check_fair_server(c, fail);
        check_idle_balance(c, tasks, fail);
        check_bandwidth(c, tasks, fail);
        check_conservation(c, tasks, fail);
        check_monotonic(c, tasks, fail);
        if (!what.empty())
            throw invariant_violation(report(c, events, what));
    }

private:
    template <class Fail>
    static void check_queue(const Core& c, const cfs_rq& q, const std::string& name, Fail fail) {
        if (!q.tasks_timeline.verify())
            fail(name + ": the tree's links, order or augmented values are wrong");
        // The entities queued here: the tree's, and curr if it is still queued.
        std::vector<const sched_entity*> queued;
        s128 sum = 0;
        s64 load = 0;
        for (const sched_entity* se = q.tasks_timeline.first(); se != nullptr;
             se = q.tasks_timeline.next(*se)) {
            queued.push_back(se);
            const auto w = static_cast<s64>(scale_load_down(se->load.weight));
            sum += static_cast<s128>(entity_key(q, *se)) * w;
            load += w;
            if (se == q.curr)
                fail(name + ": curr is in the tree");
        }
        if (sum != q.avg_vruntime_sum || load != static_cast<s64>(q.avg_load))
            fail(name + ": avg_vruntime_sum / avg_load differ from the tree's entities");
        if (q.curr != nullptr && q.curr->on_rq)
            queued.push_back(q.curr);
        u64 weight = 0;
        unsigned h_nr = 0, h_delayed = 0;
        for (const sched_entity* se : queued) {
            if (!se->on_rq || se->cfs_rq != &q)
                fail(name + ": a queued entity is not on_rq or names another queue");
            weight += se->load.weight;
            if (entity_is_task(*se)) {
                ++h_nr;
                h_delayed += se->sched_delayed ? 1u : 0u;
            } else {
                h_nr += se->my_q->h_nr_queued;
                h_delayed += se->my_q->h_nr_delayed;
            }
        }
        if (queued.size() != q.nr_queued)
            fail(name + ": nr_queued is " + std::to_string(q.nr_queued) + ", " +
                 std::to_string(queued.size()) + " entities are queued");
        if (weight != q.load.weight)
            fail(name + ": load.weight differs from the sum of the queued entities' weights");
        if (h_nr != q.h_nr_queued || h_delayed != q.h_nr_delayed)
            fail(name + ": h_nr_queued / h_nr_delayed are " + std::to_string(q.h_nr_queued) +
                 " / " + std::to_string(q.h_nr_delayed) + ", the entities below hold " +
                 std::to_string(h_nr) + " / " + std::to_string(h_delayed));
        // EEVDF: the queue's weighted lags Σ w·(V − v) lie in (−W, 0] (V rounds down).
        if (c.params().eevdf() && load + (q.curr && q.curr->on_rq ? 1 : 0) > 0) {
            const u64 v = avg_vruntime(q);
            s128 lag = 0;
            s128 total = 0;
            for (const sched_entity* se : queued) {
                const auto w = static_cast<s128>(scale_load_down(se->load.weight));
                lag += w * static_cast<s128>(static_cast<s64>(v - se->vruntime));
                total += w;
            }
            if (lag > 0 || lag <= -total)
                fail(name + ": the weighted lags do not sum to zero (within V's rounding)");
        }
        check_limbo(c, q, name, fail);
    }

    // 6.18+ task-based throttling: a parked task is on its own queue's limbo list once, marked
    // throttled, on no run queue (so outside every count above) and not running, and only
    // while the queue's hierarchy is throttled.
    template <class Fail>
    static void check_limbo(const Core& c, const cfs_rq& q, const std::string& name, Fail fail) {
        if (q.throttled_limbo_list.empty())
            return;
        if (!task_based_throttle(c.params()))
            fail(name + ": a task is parked on a release that dequeues whole queues");
        if (!throttled_hierarchy(q))
            fail(name + ": tasks are parked while the hierarchy is not throttled");
        for (auto it = q.throttled_limbo_list.begin(); it != q.throttled_limbo_list.end(); ++it) {
            const task& p = **it;
            if (!p.throttled || p.se.on_rq || p.se.cfs_rq != &q)
                fail(name + ": " + p.comm + " is parked but queued, unmarked, or of another queue");
            if (c.cpu_rq(p.cpu).curr == &p)
                fail(name + ": " + p.comm + " is parked but running");
            if (std::find(std::next(it), q.throttled_limbo_list.end(), &p) !=
                q.throttled_limbo_list.end())
                fail(name + ": " + p.comm + " is parked twice");
        }
    }

    template <class Fail>
    static void check_tasks(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
                            Fail fail) {
        for (const auto& t : tasks) {
            const task& p = *t;
            const bool running = c.cpu_rq(p.cpu).curr == &p;
            // Queued in its class: the RT class's list, or the fair class's tree.
            const bool queued = rt_policy(p.policy) ? p.rt.on_rq : p.se.on_rq;
            for (int cpu = 0; cpu < c.nr_cpus(); ++cpu)
                if (cpu != p.cpu && c.cpu_rq(cpu).curr == &p)
                    fail(p.comm + ": runs on CPU " + std::to_string(cpu) + " but is on CPU " +
                         std::to_string(p.cpu));
            switch (p.state) {
            case task_state::runnable:
                if (!queued && !parked(p))
                    fail(p.comm + ": runnable but on no run queue nor parked (lost)");
                break;
            case task_state::sleeping:
                if (queued && !p.se.sched_delayed)
                    fail(p.comm + ": sleeping but queued without being delayed");
                break;
            case task_state::dead:
            case task_state::not_started:
                if (queued || running)
                    fail(p.comm + ": not alive but queued or running");
                break;
            }
            if (p.se.on_rq && &rq_of(cfs_rq_of(p.se)) != &c.cpu_rq(p.cpu))
                fail(p.comm + ": queued on another CPU's queue than its own");
            if (p.throttled && (p.state != task_state::runnable || !parked(p) ||
                                &rq_of(cfs_rq_of(p.se)) != &c.cpu_rq(p.cpu)))
                fail(p.comm + ": throttled but not a runnable task parked on its CPU's queue");
        }
    }

    // The class order stop > fair server > RT > fair > idle: what runs is what
    // __pick_next_task() would pick now, or it becomes so within two ticks. Not at once: a
    // reschedule asked for during the pick is cleared after it (clear_tsk_need_resched()),
    // as when the fair server's budget runs out in the pick's update_curr(), and then the
    // next tick or wakeup repairs the order.
    template <class Fail> void check_class_order(const Core& c, Fail fail) {
        broken_since_.resize(static_cast<std::size_t>(c.nr_cpus()), -1);
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu) {
            const rq& r = c.cpu_rq(cpu);
            const std::string broken = class_order_broken(c, r);
            sim_time& since = broken_since_[static_cast<std::size_t>(cpu)];
            if (broken.empty())
                since = -1;
            else if (since < 0)
                since = c.now();
            else if (c.now() - since > 2 * c.params().tun.tick_nsec)
                fail("cpu " + std::to_string(cpu) + ": " + r.curr->comm + broken +
                     " since t = " + std::to_string(since) + " ns");
        }
    }

    // 6.12+: a CPU's fair server is started while fair tasks are queued there and, up to
    // 6.16, stopped while none are (dl_server_start() / dl_server_stop() from
    // enqueue_task_fair(), dequeue_entities(), throttle_cfs_rq() and unthrottle_cfs_rq());
    // from 6.17 it may stay started without them. A server without runtime never starts.
    template <class Fail> static void check_fair_server(const Core& c, Fail fail) {
        const auto* servers = c.dl_servers();
        if (servers == nullptr)
            return;
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu) {
            const rq& r = c.cpu_rq(cpu);
            const bool queued = r.cfs.h_nr_queued > 0;
            if (servers->server(cpu).dl_runtime != 0 && servers->active(r) != queued &&
                (queued || !servers->stays_started()))
                fail("cpu " + std::to_string(cpu) + ": the fair server is " +
                     (servers->active(r) ? "active without" : "stopped with") +
                     " queued fair tasks");
        }
    }

    // How the CPU's running task breaks the class order; empty if it does not.
    static std::string class_order_broken(const Core& c, const rq& r) {
        const task& curr = *r.curr;
        if (c.is_stopper(curr))
            return {};
        const bool fair_waiting = r.cfs.h_nr_queued > 0;
        const bool server =
            fair_waiting && c.dl_servers() != nullptr && c.dl_servers()->runnable(r);
        const bool rt_waiting = r.rt.rt_queued && r.rt.rt_nr_running > 0;
        if (is_idle_task(r, curr))
            return nr_running(r) > 0 ? " (idle) runs while tasks wait" : "";
        if (rt_policy(curr.policy)) {
            if (server)
                return " (RT) runs while the fair server is runnable";
            if (!rt_waiting || r.rt.highest_prio_curr < task_prio(curr))
                return " (RT) runs while a higher RT priority waits or its queue is throttled";
            return {};
        }
        return rt_waiting && !server && !r.served_past_budget
                   ? " (fair) runs while an RT task waits"
                   : "";
    }

    // Load balancing: no CPU stays idle while a CPU sharing its cache runs more than one
    // fair task, one of which may run on it, for longer than MAX_PINNED_INTERVAL (512 ms,
    // the longest an idle CPU's balance interval grows) and two ticks: that CPU's tick kicks
    // the idle CPUs' balance (nohz_balancer_kick()), which pulls a waiting task or, failing
    // that, has the stopper push the running one (active balance). Left out: a task in a
    // throttled hierarchy on either CPU (throttled_lb_pair(); 6.18's
    // lb_throttled_hierarchy()) and CPUs in different LLCs (NUMA imbalance is tolerated).
    template <class Fail>
    void check_idle_balance(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
                            Fail fail) {
        const load_balancer* lb = c.balancer();
        if (lb == nullptr)
            return;
        const auto n = static_cast<std::size_t>(c.nr_cpus());
        std::vector<const task*> takeable(n, nullptr); // a task each idle CPU could take
        for (const auto& t : tasks) {
            const task& p = *t;
            const rq& src = c.cpu_rq(p.cpu);
            if (!c.is_fair(p) || p.state != task_state::runnable || !p.se.on_rq ||
                p.se.sched_delayed || src.cfs.h_nr_queued < 2 ||
                throttled_hierarchy(cfs_rq_of(p.se)))
                continue;
            for (int cpu = 0; cpu < c.nr_cpus(); ++cpu)
                if (cpu != p.cpu && idle_cpu(c.cpu_rq(cpu)) && p.allowed_on(cpu) &&
                    lb->domains().cpus_share_cache(cpu, p.cpu) &&
                    !throttled_hierarchy(
                        *p.sched_task_group->cfs_rq[static_cast<std::size_t>(cpu)]))
                    takeable[static_cast<std::size_t>(cpu)] = &p;
        }
        const duration bound = 512 * nsec_per_msec + 2 * c.params().tun.tick_nsec;
        starved_since_.resize(n, -1);
        for (std::size_t cpu = 0; cpu < n; ++cpu) {
            sim_time& since = starved_since_[cpu];
            if (takeable[cpu] == nullptr)
                since = -1;
            else if (since < 0)
                since = c.now();
            else if (c.now() - since > bound)
                fail("cpu " + std::to_string(cpu) + " idle since t = " + std::to_string(since) +
                     " ns while cpu " + std::to_string(takeable[cpu]->cpu) + " runs " +
                     std::to_string(c.cpu_rq(takeable[cpu]->cpu).cfs.h_nr_queued) +
                     " fair tasks, " + takeable[cpu]->comm + " among them, that it may take");
        }
    }

    // CFS bandwidth (sched/bandwidth.hpp), for every group with a quota: the pool never
    // negative; the throttled list holding exactly the group's throttled queues,
    // none of them with runtime left; and runtime conserved: everything put into the pool
    // is in the pool, held by a CPU's queue, or charged to what ran on the group's queues
    // (its fair tasks and its child groups' entities), to the ns.
    template <class Fail>
    static void check_bandwidth(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
                                Fail fail) {
        for (const auto& tg : c.task_groups()) {
            const cfs_bandwidth* b = tg->cfs_b;
            if (b == nullptr || b->quota == runtime_inf)
                continue;
            const std::string name = "group " + tg->name;
            // Runtime given back (__return_cfs_rq_runtime()) may take it above quota + burst
            // until the next refill caps it.
            if (b->runtime < 0)
                fail(name + ": the pool holds " + std::to_string(b->runtime) + " ns");
            s128 held = b->runtime;
            std::size_t throttled = 0;
            for (const cfs_rq* q : tg->cfs_rq) {
                held += q->runtime_remaining;
                if (!q->throttled)
                    continue;
                ++throttled;
                if (q->runtime_remaining > 0)
                    fail(name + ": a throttled queue holds runtime");
                if (std::find(b->throttled_cfs_rq.begin(), b->throttled_cfs_rq.end(), q) ==
                    b->throttled_cfs_rq.end())
                    fail(name + ": a throttled queue is not on the throttled list");
            }
            if (throttled != b->throttled_cfs_rq.size())
                fail(name + ": the throttled list holds other queues than the throttled ones");
            for (const auto& t : tasks)
                if (t->sched_task_group == tg.get() && !rt_policy(t->policy))
                    held += t->se.sum_exec_runtime;
            for (const task_group* child : tg->children)
                for (const sched_entity* se : child->se)
                    held += se->sum_exec_runtime;
            if (held != b->runtime_in)
                fail(name + ": runtime is not conserved: " + std::to_string(b->runtime_in) +
                     " ns put into the pool, " + std::to_string(static_cast<s64>(held)) +
                     " ns in the pool, held or charged");
        }
    }

    // On its queue's limbo list (6.18+ task-based throttling).
    static bool parked(const task& p) {
        if (!p.throttled || p.se.cfs_rq == nullptr)
            return false;
        const auto& l = p.se.cfs_rq->throttled_limbo_list;
        return std::find(l.begin(), l.end(), &p) != l.end();
    }

    // CPU time handed out equals busy time: each CPU's task clock advanced while a task ran
    // (wall busy time less the IRQ time taken out) is what the tasks were charged plus what
    // the running ones have not been charged yet.
    template <class Fail>
    static void check_conservation(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
                                   Fail fail) {
        duration charged = 0;
        for (const auto& t : tasks)
            charged += t->se.sum_exec_runtime;
        duration busy = 0;
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu) {
            const rq& r = c.cpu_rq(cpu);
            busy += c.cpu_busy(cpu) - c.cpu_irq(cpu);
            if (!is_idle_task(r, *r.curr)) {
                busy -= c.now() - r.clock; // wall time not yet on the task clock
                charged += r.clock_task - r.curr->se.exec_start;
            }
        }
        if (charged != busy)
            fail("CPU time handed out (" + std::to_string(charged) + " ns) differs from the " +
                 "CPUs' busy time (" + std::to_string(busy) + " ns)");
    }

    template <class Fail>
    void check_monotonic(const Core& c, const std::vector<std::unique_ptr<task>>& tasks,
                         Fail fail) {
        counters_.resize(tasks.size());
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            const task& p = *tasks[i];
            const task_counters now{p.se.sum_exec_runtime, p.nvcsw, p.nivcsw,
                                    p.se.nr_migrations,    p.utime, p.stime};
            if (now.runtime < counters_[i].runtime || now.nvcsw < counters_[i].nvcsw ||
                now.nivcsw < counters_[i].nivcsw || now.migrations < counters_[i].migrations ||
                now.utime < counters_[i].utime || now.stime < counters_[i].stime)
                fail(p.comm + ": a counter went backwards");
            counters_[i] = now;
        }
        switches_.resize(static_cast<std::size_t>(c.nr_cpus()));
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu) {
            const std::uint64_t n = c.cpu_rq(cpu).nr_switches;
            if (n < switches_[static_cast<std::size_t>(cpu)])
                fail("cpu " + std::to_string(cpu) + ": nr_switches went backwards");
            switches_[static_cast<std::size_t>(cpu)] = n;
        }
    }

    static std::string queue_name(const task_group& tg, std::size_t cpu) {
        return (tg.is_root() ? std::string{"cpu "} : "group " + tg.name + " on cpu ") +
               std::to_string(cpu);
    }

    // What broke, when, and each CPU's root queue as /proc/sched_debug would show it.
    static std::string report(const Core& c, std::uint64_t events, const std::string& what) {
        std::ostringstream s;
        s << "invariant violated after event " << events << " at t = " << c.now()
          << " ns: " << what;
        for (int cpu = 0; cpu < c.nr_cpus(); ++cpu) {
            const rq& r = c.cpu_rq(cpu);
            const cfs_rq_state q = read_cfs_rq(r.cfs);
            s << "\n  cpu " << cpu << ": curr " << r.curr->comm << ", nr_queued " << q.nr_queued
              << ", h_nr_queued " << q.h_nr_queued << ", load " << q.load << ", min_vruntime "
              << q.min_vruntime << ", V " << q.avg_vruntime;
        }
        return s.str();
    }

    struct task_counters {
        duration runtime = 0;
        std::uint64_t nvcsw = 0, nivcsw = 0, migrations = 0;
        duration utime = 0, stime = 0;
    };
    std::vector<task_counters> counters_;
    std::vector<std::uint64_t> switches_;
    std::vector<sim_time> broken_since_; // per CPU: since when the class order is broken
    // Per CPU: since when it is idle beside a CPU with a task it may take.
    std::vector<sim_time> starved_since_;
};

} // namespace libsched
