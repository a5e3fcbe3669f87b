#pragma once
// The deadline class as far as the model has it (kernel/sched/deadline.c): the 6.12+ fair
// server, one SCHED_DEADLINE reservation per CPU (rq->fair_server: runtime 50 ms per 1 s
// period, deferred) that runs fair tasks above the RT class when they starve. No
// SCHED_DEADLINE tasks are modelled. Every ns fair tasks run is charged to the server's
// budget (dl_server_update() from update_curr()); being deferred (dl_defer, a110a81c52a9,
// 6.12) it waits, throttled, for its zero-laxity point (deadline - runtime): if the fair
// tasks used the budget meanwhile it only starts a new period; if they starved, it is
// enqueued as a DL entity and runs them until the budget is spent, then waits for the next
// period. Up to 6.16 (6.12.91) it stops when its last fair task leaves; from 6.17 (6.12.92)
// only when its pick finds none (lazy_dl_server), and the 6.18.y / 6.12.y fixes of its
// restart are stable_fix entries. 6.19 charges idle time as fair runtime is charged and
// stops a server that idled through a whole period from its timer (e636ffb9e31b,
// f5a538c07df2, ca1e8eede4fc). Runtime is charged unscaled (dl_scaled_delta_exec()
// scales by frequency and capacity, both at their maximum here). The bandwidth accounting
// of GRUB and admission control are left out: they change nothing for one server.
#include <algorithm>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/rq.hpp>
#include <libsched/sched/sched_dl_entity.hpp>
#include <libsched/sched/stable_fix.hpp>
#include <vector>

namespace libsched {

// What the server asks of the core: its CPU's dl_timer (an hrtimer), and (6.19+) the
// running task's time brought up to date.
class dl_timer_ops {
public:
    virtual sim_time dl_timer_now() const = 0;
    virtual bool dl_timer_queued(int cpu) const = 0;
    // hrtimer_start(HRTIMER_MODE_ABS); act may lie up to 1 us in the past (then now).
    virtual void dl_timer_start(int cpu, sim_time act) = 0;
    // hrtimer_try_to_cancel(): no effect while the timer's callback runs.
    virtual void dl_timer_cancel(int cpu) = 0;
    // rq->donor->sched_class->update_curr(rq)
    virtual void update_curr_donor(rq& r) = 0;

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
        : ops_(ops), se_(static_cast<std::size_t>(cpus)), lazy_(p.carries(lazy_dl_server)),
          defers_again_(p.carries(dl_server_defers_again)),
          revised_wakeup_(p.carries(dl_server_revised_wakeup)),
          revised_only_running_(p.carries(dl_server_revised_wakeup_running)),
          boot_setup_(p.since(6, 17)), late_timer_new_period_(p.since(6, 18)),
          idle_rework_(p.since(6, 19)) {
        for (sched_dl_entity& se : se_) { // dl_server_apply_params(), dl_defer = 1
            se.dl_runtime = p.tun.fair_server_runtime;
            se.dl_deadline = p.tun.fair_server_period;
            se.dl_period = p.tun.fair_server_period;
            // sched_init_dl_servers() (6.17+) sets a server up at boot, time 0: its first
            // period, deferred, with no timer until it starts. 6.12.y does that at its first
            // dl_server_start().
            if (boot_setup_) {
                se.dl_server = true;
                se.dl_defer = true;
                se.deadline = se.dl_deadline;
                se.runtime = se.dl_runtime;
                se.dl_throttled = true;
                se.dl_defer_armed = true;
            }
        }
    }

    const sched_dl_entity& server(int cpu) const { return se_[static_cast<std::size_t>(cpu)]; }

    // Whether the server is queued on its CPU's dl_rq and not throttled: it then runs
    // before the RT class (pick_task_dl()).
    bool runnable(const rq& r) const {
        const sched_dl_entity& se = of(r);
        return se.on_dl_rq && !se.dl_throttled;
    }

    // dl_server_start() (enqueue_task_fair(), the first fair task on the CPU). Up to 6.18 the
    // rq's idle time counts first if it was empty (dl_server_update_idle_time()); 6.19
    // brings the running task's time up to date in a server not yet started, which drops
    // the idle time (no server to charge), and ends an idle period's stop in any case
    // (ca1e8eede4fc). 6.12.y sets the server up here, the first time.
    void dl_server_start(rq& r) {
        sched_dl_entity& se = of(r);
        if (idle_rework_)
            se.dl_defer_idle = false;
        else if (nr_running(r) == r.cfs.h_nr_queued && r.curr == &r.idle)
            dl_server_update_idle_time(r, r.idle);
        if (!se.dl_server) {
            se.dl_server = true;
            se.dl_defer = true;
            setup_new_dl_entity(r, se);
        }
        if (se.dl_runtime == 0 || se.dl_server_active)
            return;
        if (idle_rework_)
            ops_.update_curr_donor(r);
        se.dl_server_active = true;
        enqueue_dl_entity(r, se, enqueue_kind::wakeup);
        resched_curr(r, resched_reason::dl_server); // !dl_task(rq->curr)
    }

    // dl_server_stop(): from __pick_task_dl() when the server's pick finds no fair task; up
    // to 6.16 also from dequeue_entities() / throttle_cfs_rq() when the last one leaves.
    void dl_server_stop(rq& r) {
        sched_dl_entity& se = of(r);
        if (se.dl_runtime == 0 || !se.dl_server_active)
            return;
        se.on_dl_rq = false;
        ops_.dl_timer_cancel(r.cpu);
        se.dl_defer_armed = false;
        se.dl_throttled = false;
        se.dl_defer_idle = false;
        se.dl_server_active = false;
    }

    bool active(const rq& r) const { return of(r).dl_server_active; }
    // Whether the server stays started when its fair tasks leave (cccb45d7c429).
    bool stays_started() const { return lazy_; }

    // dl_server_update(): fair tasks ran delta_exec, on the server's behalf or not.
    void dl_server_update(rq& r, duration delta_exec) override {
        sched_dl_entity& se = of(r);
        if (se.dl_server_active && se.dl_runtime != 0)
            update_curr_dl_se(r, se, delta_exec);
    }

    // put_prev_task_idle(): the idle time up to now counts against the budget, in defer
    // mode.
    void put_prev_task_idle(rq& r, task& idle) {
        if (idle_rework_)
            update_curr_idle(r, idle);
        else
            dl_server_update_idle_time(r, idle);
    }

    // task_tick_idle(): from 6.19 each tick on an idle CPU charges its idle time too.
    void task_tick_idle(rq& r, task& idle) {
        if (idle_rework_)
            update_curr_idle(r, idle);
    }

    // update_curr_idle() (6.19+): idle time is charged as fair runtime is, to a started
    // server (dl_server_update_idle()).
    void update_curr_idle(rq& r, task& idle) {
        const duration delta = r.clock_task - idle.se.exec_start;
        if (delta <= 0)
            return;
        idle.se.exec_start = r.clock_task;
        sched_dl_entity& se = of(r);
        if (se.dl_server_active && se.dl_runtime != 0 && se.dl_defer)
            update_curr_dl_se(r, se, delta);
    }

    // dl_server_update_idle_time() up to 6.18 (put_prev_task_idle(), and a fair enqueue on
    // an empty rq): in defer mode idle time is taken off the budget, down to 0.
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
    // budget ran out. The clock has been updated. Up to 6.16 a server with no fair task
    // queued (fair_server_has_tasks(): cfs.nr_queued) only replenishes; from 6.17
    // (4ae8d9aa9f9d) it is enqueued all the same, and its pick stops it. From 6.19 the
    // running task's time is charged first, and a server whose period began in idle time
    // stops here (f5a538c07df2).
    void dl_server_timer(rq& r) {
        sched_dl_entity& se = of(r);
        if (!se.dl_throttled || se.dl_runtime == 0)
            return;
        if (idle_rework_) {
            ops_.update_curr_donor(r);
            if (se.dl_defer_idle) {
                dl_server_stop(r);
                return;
            }
        }
        if (!lazy_ && r.cfs.nr_queued == 0) {
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
        resched_curr(r, resched_reason::dl_server);
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

    // update_dl_revised_wakeup(): runtime = dl_density x (deadline - now), dl_density being
    // to_ratio(dl_deadline, dl_runtime) in BW_SHIFT (20) fixed point.
    static void update_dl_revised_wakeup(const rq& r, sched_dl_entity& se) {
        constexpr int bw_shift = 20;
        const u64 density = se.dl_deadline == 0 ? 0
                                                : (static_cast<u64>(se.dl_runtime) << bw_shift) /
                                                      static_cast<u64>(se.dl_deadline);
        const u64 laxity = static_cast<u64>(se.deadline) - static_cast<u64>(r.clock);
        se.runtime = static_cast<s64>((density * laxity) >> bw_shift);
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
    // rule says so; a deferred server keeps its deadline and waits again otherwise. With
    // 14a857056466 a server whose deadline has not passed keeps it and has its budget cut
    // to what its density allows (update_dl_revised_wakeup()); with 1842bf97af10 only one
    // handling a starvation. With 115135422562 a new period defers again.
    void update_dl_entity(const rq& r, sched_dl_entity& se) const {
        const bool passed =
            dl_time_before(static_cast<u64>(se.deadline), static_cast<u64>(r.clock));
        if (passed || dl_entity_overflow(se, r.clock)) {
            const bool revised =
                revised_only_running_ ? se.dl_defer_running : revised_wakeup_ && se.dl_defer;
            if (revised && !passed) {
                update_dl_revised_wakeup(r, se);
                return;
            }
            if (defers_again_)
                se.dl_defer_running = false;
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
            (lazy_ || r.cfs.nr_queued > 0)) {
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
    // throttled until the next period (and reschedules: it is no longer leftmost). From
    // 6.19 a period begun by idle time (idle_rq(): nothing runnable) is marked so, and
    // further idle time does not push it; any other time clears the mark.
    void update_curr_dl_se(rq& r, sched_dl_entity& se, duration delta_exec) {
        if (delta_exec <= 0)
            return;
        // idle_rq(): wakeups are enqueued at once here, so none is pending (ttwu_pending)
        const bool idle = idle_rework_ && idle_cpu(r);
        se.runtime -= delta_exec;
        if (!idle)
            se.dl_defer_idle = false;
        if (se.dl_defer && se.dl_throttled && se.runtime <= 0) {
            if (se.dl_defer_idle) { // idle: leave the timer at the zero-laxity point
                se.runtime = 0;
                return;
            }
            se.dl_defer_running = false;
            ops_.dl_timer_cancel(r.cpu);
            replenish_dl_new_period(r, se);
            se.dl_defer_idle = idle;
            start_dl_timer(r, se);
            return;
        }
        if (se.runtime <= 0) {
            se.dl_throttled = true;
            se.on_dl_rq = false;
            if (!start_dl_timer(r, se)) {     // the next period has begun
                if (late_timer_new_period_) { // 6.18+: a new one from now
                    replenish_dl_new_period(r, se);
                    start_dl_timer(r, se);
                } else {
                    enqueue_dl_entity(r, se, enqueue_kind::replenish);
                }
            }
            if (!se.on_dl_rq) // !is_leftmost()
                resched_curr(r, resched_reason::dl_server);
        }
    }

    dl_timer_ops& ops_;
    std::vector<sched_dl_entity> se_;
    bool lazy_;                 // lazy_dl_server
    bool defers_again_;         // dl_server_defers_again
    bool revised_wakeup_;       // dl_server_revised_wakeup
    bool revised_only_running_; // dl_server_revised_wakeup_running
    bool boot_setup_;           // 6.17+: sched_init_dl_servers()
    // 6.18+ (the 6.18-rc1 source; not in 6.12.y): a server throttled after its next period
    // began starts a new one from now instead of replenishing.
    bool late_timer_new_period_;
    bool idle_rework_; // 6.19+: e636ffb9e31b, f5a538c07df2, ca1e8eede4fc
};

} // namespace libsched
