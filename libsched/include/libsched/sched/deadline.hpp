#pragma once
// The deadline class as far as the model has it (kernel/sched/deadline.c): the 6.12+ fair
// server, one SCHED_DEADLINE reservation per CPU (rq->fair_server: runtime 50 ms per 1 s
// period, deferred) that runs fair tasks above the RT class when they starve. No
// SCHED_DEADLINE tasks are modelled. Every ns fair tasks run is charged to the server's
// budget (dl_server_update() from update_curr()); being deferred (dl_defer, a110a81c52a9,
// 6.12) it waits, throttled, for its zero-laxity point (deadline - runtime): if the fair
// tasks used the budget meanwhile it only starts a new period; if they starved, it is
// enqueued as a DL entity and runs them until the budget is spent, then waits for the next
// period. The rules are 6.12's for every release: the 6.17 rework of when the server stops
// (cccb45d7c429) and the 6.18.y fixes of its wakeup (115135422562, 14a857056466) are not
// modelled (docs/model.md). Runtime is charged unscaled (dl_scaled_delta_exec()
// scales by frequency and capacity, both at their maximum here). The bandwidth accounting
// of GRUB and admission control are left out: they change nothing for one server.
#include <algorithm>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/sched_dl_entity.hpp>
#include <vector>

namespace libsched {

// What the server asks of the core: its CPU's dl_timer (an hrtimer).
class dl_timer_ops {
public:
    virtual sim_time dl_timer_now() const = 0;
    virtual bool dl_timer_queued(int cpu) const = 0;
    // hrtimer_start(HRTIMER_MODE_ABS); act may lie up to 1 us in the past (then now).
    virtual void dl_timer_start(int cpu, sim_time act) = 0;
    virtual void dl_timer_cancel(int cpu) = 0;

protected:
    ~dl_timer_ops() = default;
};

// The fair class's side: it charges what fair tasks run (update_curr()).
class dl_server_account {
public:
    virtual void dl_server_update(rq& r, duration delta_exec) = 0;

protected:
    ~dl_server_account() = default;
};

class fair_server final : public dl_server_account {
public:
    fair_server(const fair_params& p, int cpus, dl_timer_ops& ops)
        : ops_(ops), se_(static_cast<std::size_t>(cpus)) {
        for (sched_dl_entity& se : se_) { // dl_server_apply_params(), dl_defer = 1
            se.dl_runtime = p.tun.fair_server_runtime;
            se.dl_deadline = p.tun.fair_server_period;
            se.dl_period = p.tun.fair_server_period;
        }
    }

    const sched_dl_entity& server(int cpu) const { return se_[static_cast<std::size_t>(cpu)]; }

    // Whether the server is queued on its CPU's dl_rq and not throttled: it then runs
    // before the RT class (pick_task_dl()).
    bool runnable(const rq& r) const {
        const sched_dl_entity& se = of(r);
        return se.on_dl_rq && !se.dl_throttled;
    }

    // dl_server_start() (enqueue_task_fair(), the first fair task on the CPU); the rq was
    // empty: its idle time counts first (dl_server_update_idle_time()).
    void dl_server_start(rq& r) {
        sched_dl_entity& se = of(r);
        if (nr_running(r) == r.cfs.h_nr_queued && r.curr == &r.idle)
            dl_server_update_idle_time(r, r.idle);
        if (!se.dl_server) {
            se.dl_server = true;
            se.dl_defer = true;
            setup_new_dl_entity(r, se);
        }
        if (se.dl_runtime == 0 || se.dl_server_active)
            return;
        se.dl_server_active = true;
        enqueue_dl_entity(r, se, enqueue_kind::wakeup);
        resched_curr(r); // !dl_task(rq->curr)
    }

    // dl_server_stop() (dequeue_entities(), the last fair task left the CPU).
    void dl_server_stop(rq& r) {
        sched_dl_entity& se = of(r);
        if (se.dl_runtime == 0 || !se.dl_server_active)
            return;
        se.on_dl_rq = false;
        ops_.dl_timer_cancel(r.cpu);
        se.dl_defer_armed = false;
        se.dl_throttled = false;
        se.dl_server_active = false;
    }

    bool active(const rq& r) const { return of(r).dl_server_active; }

    // dl_server_update(): fair tasks ran delta_exec, on the server's behalf or not.
    void dl_server_update(rq& r, duration delta_exec) override {
        sched_dl_entity& se = of(r);
        if (se.dl_server_active && se.dl_runtime != 0)
            update_curr_dl_se(r, se, delta_exec);
    }

    // dl_server_update_idle_time() (put_prev_task_idle(), and a fair enqueue on an empty
    // rq): in defer mode idle time also counts against the budget.
    void dl_server_update_idle_time(rq& r, task& idle) {
        sched_dl_entity& se = of(r);
        if (!se.dl_defer || se.runtime < 0)
            return;
        const duration delta = r.clock_task - idle.se.exec_start;
        if (delta < 0)
            return;
        se.runtime -= delta;
        if (se.runtime < 0) {
            se.dl_defer_running = false;
            se.runtime = 0;
        }
        idle.se.exec_start = r.clock_task;
    }

    // dl_server_timer(): the zero-laxity point (armed), or the next period after the
    // budget ran out. The clock has been updated. fair_server_has_tasks(): cfs.nr_queued.
    void dl_server_timer(rq& r) {
        sched_dl_entity& se = of(r);
        if (!se.dl_throttled || se.dl_runtime == 0)
            return;
        if (r.cfs.nr_queued == 0) {
            replenish_dl_entity(r, se);
            return;
        }
        if (se.dl_defer_armed) {
            // The fair tasks ran in the background meanwhile: push the activation back by
            // the runtime they used (not for less than dl_server_min_res, 1 ms).
            if (r.clock < se.deadline - se.runtime - dl_server_min_res) {
                ops_.dl_timer_start(r.cpu,
                                    ops_.dl_timer_now() + (se.deadline - r.clock - se.runtime));
                return;
            }
            se.dl_defer_running = true;
        }
        enqueue_dl_entity(r, se, enqueue_kind::replenish);
        resched_curr(r);
    }

private:
    enum class enqueue_kind { wakeup, replenish };
    static constexpr duration dl_server_min_res = 1'000'000;
    static constexpr int dl_scale = 10; // DL_SCALE

    sched_dl_entity& of(const rq& r) { return se_[static_cast<std::size_t>(r.cpu)]; }
    const sched_dl_entity& of(const rq& r) const { return se_[static_cast<std::size_t>(r.cpu)]; }

    // dl_time_before()
    static bool dl_time_before(u64 a, u64 b) { return static_cast<s64>(a - b) < 0; }

    // dl_entity_overflow(): the CBS wakeup rule, runtime / (deadline - t) against
    // dl_runtime / dl_deadline, in the kernel's u64 arithmetic.
    static bool dl_entity_overflow(const sched_dl_entity& se, sim_time t) {
        const u64 left = (static_cast<u64>(se.dl_deadline) >> dl_scale) *
                         static_cast<u64>(se.runtime >> dl_scale);
        const u64 right = ((static_cast<u64>(se.deadline) - static_cast<u64>(t)) >> dl_scale) *
                          (static_cast<u64>(se.dl_runtime) >> dl_scale);
        return dl_time_before(right, left);
    }

    // replenish_dl_new_period(): a new period from now; a deferred server not handling a
    // starvation waits for its zero-laxity point.
    static void replenish_dl_new_period(const rq& r, sched_dl_entity& se) {
        se.deadline = r.clock + se.dl_deadline;
        se.runtime = se.dl_runtime;
        if (se.dl_defer && !se.dl_defer_running) {
            se.dl_throttled = true;
            se.dl_defer_armed = true;
        }
    }

    static void setup_new_dl_entity(const rq& r, sched_dl_entity& se) {
        if (se.dl_throttled)
            return;
        replenish_dl_new_period(r, se);
    }

    // start_dl_timer(): at deadline - runtime when armed, else at the next period
    // (dl_next_period()); refused (false) for a time more than a microsecond past.
    bool start_dl_timer(const rq& r, const sched_dl_entity& se) {
        const sim_time act = se.dl_defer_armed ? se.deadline - se.runtime
                                               : se.deadline - se.dl_deadline + se.dl_period;
        const sim_time now = ops_.dl_timer_now();
        const sim_time at = act + (now - r.clock);
        if ((at - now) / 1000 < 0) // ktime_us_delta(act, now) < 0
            return false;
        if (!ops_.dl_timer_queued(r.cpu))
            ops_.dl_timer_start(r.cpu, std::max(at, now));
        return true;
    }

    // update_dl_entity(): at a wakeup, a new period if the deadline passed or the CBS
    // rule says so; a deferred server keeps its deadline and waits again otherwise.
    static void update_dl_entity(const rq& r, sched_dl_entity& se) {
        if (dl_time_before(static_cast<u64>(se.deadline), static_cast<u64>(r.clock)) ||
            dl_entity_overflow(se, r.clock)) {
            replenish_dl_new_period(r, se);
        } else if (se.dl_defer && !se.dl_defer_running) {
            se.dl_defer_armed = true;
            se.dl_throttled = true;
        }
    }

    // replenish_dl_entity()
    void replenish_dl_entity(const rq& r, sched_dl_entity& se) {
        if (se.dl_deadline == 0 || (se.dl_defer_armed && dl_entity_overflow(se, r.clock))) {
            se.deadline = r.clock + se.dl_deadline;
            se.runtime = se.dl_runtime;
        }
        while (se.runtime <= 0) {
            se.deadline += se.dl_period;
            se.runtime += se.dl_runtime;
        }
        if (dl_time_before(static_cast<u64>(se.deadline), static_cast<u64>(r.clock)))
            replenish_dl_new_period(r, se); // "DL replenish lagged too much"
        se.dl_throttled = false;
        if (se.dl_defer_armed) {
            se.dl_defer_armed = false;
            return;
        }
        if (se.dl_defer && !se.dl_defer_running && r.clock < se.deadline - se.runtime &&
            r.cfs.nr_queued > 0) {
            se.dl_defer_armed = true;
            se.dl_throttled = true;
            if (!start_dl_timer(r, se)) {
                ops_.dl_timer_cancel(r.cpu);
                se.dl_defer_armed = false;
                se.dl_throttled = false;
            }
        }
    }

    // enqueue_dl_entity() for the server
    void enqueue_dl_entity(const rq& r, sched_dl_entity& se, enqueue_kind kind) {
        if (kind == enqueue_kind::wakeup)
            update_dl_entity(r, se);
        else
            replenish_dl_entity(r, se);
        if (se.dl_throttled && start_dl_timer(r, se))
            return; // still deferred
        if (se.dl_throttled) {
            ops_.dl_timer_cancel(r.cpu);
            se.dl_defer_armed = false;
            se.dl_throttled = false;
        }
        se.on_dl_rq = true;
    }

    // update_curr_dl_se() for the server: the budget runs down; used up in the background
    // (deferred, throttled), the server starts a new period; used up while it runs, it is
    // throttled until the next period (and reschedules: it is no longer leftmost).
    void update_curr_dl_se(rq& r, sched_dl_entity& se, duration delta_exec) {
        if (delta_exec <= 0)
            return;
        se.runtime -= delta_exec;
        if (se.dl_defer && se.dl_throttled && se.runtime <= 0) {
            se.dl_defer_running = false;
            ops_.dl_timer_cancel(r.cpu);
            replenish_dl_new_period(r, se);
            start_dl_timer(r, se);
            return;
        }
        if (se.runtime <= 0) {
            se.dl_throttled = true;
            se.on_dl_rq = false;
            if (!start_dl_timer(r, se))
                enqueue_dl_entity(r, se, enqueue_kind::replenish);
            if (!se.on_dl_rq) // !is_leftmost()
                resched_curr(r);
        }
    }

    dl_timer_ops& ops_;
    std::vector<sched_dl_entity> se_;
};

} // namespace libsched
