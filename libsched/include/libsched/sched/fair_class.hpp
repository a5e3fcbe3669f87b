#pragma once
// fair_sched_class: the fair class's task-level operations (kernel/sched/fair.c) over one
// CPU's rq, dispatching to the EEVDF (6.6+) or old CFS rules by release.
#include <libsched/sched/cfs.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/rq.hpp>
#include <optional>

namespace libsched {

// wake_flags (kernel/sched/sched.h WF_*)
namespace wake {
inline constexpr unsigned fork = 0x04;
} // namespace wake

class fair_class {
public:
    explicit fair_class(fair_params params) : p_(params) {}

    const fair_params& params() const { return p_; }

    // update_curr(): charge the running entity up to the rq clock, advance its vruntime
    // and decide whether it must give up the CPU (6.6+: deadline reached; 6.12 adds
    // PREEMPT_SHORT; 6.17 the protected slice).
    void update_curr(rq& r) {
        cfs_rq& q = r.cfs;
        sched_entity* curr = q.curr;
        if (curr == nullptr)
            return;
        const duration delta = r.clock_task - curr->exec_start;
        if (delta <= 0)
            return;
        curr->exec_start = r.clock_task;
        curr->sum_exec_runtime += delta;
        curr->vruntime += p_.delta_fair(static_cast<u64>(delta), *curr);
        if (!p_.eevdf()) {
            update_min_vruntime(q);
            return;
        }
        const bool used_up = eevdf::update_deadline(p_, *curr);
        update_min_vruntime(q);
        if (!p_.since(6, 12)) { // 6.6-6.11: update_deadline reschedules itself
            if (used_up && q.nr_queued > 1) {
                resched_curr(r);
                clear_buddies(q, *curr);
            }
            return;
        }
        if (q.nr_queued == 1)
            return;
        bool resched = used_up;
        if (p_.since(6, 17))
            resched = resched || !eevdf::protect_slice(p_, *curr);
        else if (p_.feat(feature::preempt_short) && !eevdf::protect_slice(p_, *curr))
            resched = resched || !entity_eligible(q, *curr); // did_preempt_short()
        if (resched) {
            resched_curr(r);
            clear_buddies(q, *curr);
        }
    }

    // enqueue_task_fair(): a wakeup of a delayed task only requeues it (6.12+).
    void enqueue_task(rq& r, task& t, unsigned flags) {
        if (flags & enqueue::delayed) {
            requeue_delayed_entity(r, t.se);
            return;
        }
        enqueue_entity(r, t.se, flags, t.policy == sched_policy::idle);
    }

    // dequeue_task_fair(): false if the entity stays queued as delayed (6.12+).
    bool dequeue_task(rq& r, task& t, unsigned flags) { return dequeue_entity(r, t.se, flags); }

    // pick_next_task_fair() with the running task still current (the FAIR_GROUP_SCHED
    // path): returns the next task (possibly prev again) or nullptr to go idle.
    task* pick_next_task(rq& r, task* prev) {
        cfs_rq& q = r.cfs;
        sched_entity* se = nullptr;
        for (;;) {
            if (q.nr_queued == 0)
                break;
            sched_entity* curr = q.curr;
            if (curr != nullptr) {
                if (curr->on_rq)
                    update_curr(r);
                else
                    curr = nullptr;
            }
            se = pick_next_entity(r, curr);
            if (se != nullptr)
                break;
        }
        sched_entity* prev_se = prev != nullptr ? &prev->se : nullptr;
        if (se == prev_se)
            return prev;
        if (prev_se != nullptr && q.curr == prev_se)
            put_prev_entity(r, *prev_se);
        if (se == nullptr)
            return nullptr;
        set_next_entity(r, *se);
        return se->task_of;
    }

    // put_prev_task_fair / set_next_task_fair, for save/restore around a change.
    void put_prev_task(rq& r, task& t) { put_prev_entity(r, t.se); }
    void set_next_task(rq& r, task& t) { set_next_entity(r, t.se); }

    // task_tick_fair() -> entity_tick(): EEVDF decides in update_curr; old CFS also runs
    // check_preempt_tick when more than one entity is queued.
    void task_tick(rq& r, task& t) {
        (void)t;
        update_curr(r);
        if (!p_.eevdf() && r.cfs.nr_queued > 1 && r.cfs.curr != nullptr &&
            cfs::check_preempt_tick(p_, r.cfs, *r.cfs.curr))
            resched_curr(r);
    }

    // After a renice of a queued task: prio_changed_fair() (5.6+); before, set_user_nice()
    // rescheduled when the task got more important, or less important while running.
    void prio_changed(rq& r, task& t, int old_nice, bool running) {
        if (!p_.since(5, 6)) {
            if (t.nice < old_nice || (t.nice > old_nice && running))
                resched_curr(r);
            return;
        }
        if (r.cfs.nr_queued == 1)
            return;
        if (running) {
            if (t.nice > old_nice)
                resched_curr(r);
        } else {
            wakeup_preempt(r, t, 0);
        }
    }

    // hrtick_start_fair(): with HRTICK, the delay after which the running task's slice
    // ends (old CFS: sched_slice; EEVDF: se->slice), or nothing when there is no need for
    // a timer. A slice already overrun asks for a reschedule instead.
    std::optional<duration> hrtick_delay(rq& r) {
        if (!p_.feat(feature::hrtick) || r.cfs.curr == nullptr || r.cfs.nr_queued <= 1)
            return std::nullopt;
        sched_entity& se = *r.cfs.curr;
        const duration ran = se.sum_exec_runtime - se.prev_sum_exec_runtime;
        const duration slice =
            p_.eevdf() ? se.slice : static_cast<duration>(cfs::sched_slice(p_, r.cfs, se));
        if (slice - ran < 0) {
            resched_curr(r);
            return std::nullopt;
        }
        return std::max<duration>(slice - ran, 10'000); // hrtick_start(): no shorter timers
    }

    // The HRTICK timer expired: entity_tick() with queued = 1 reschedules outright.
    void hrtick(rq& r) {
        update_curr(r);
        resched_curr(r);
    }

    // check_preempt_wakeup_fair() (wakeup_preempt / check_preempt_curr): may the woken
    // (or forked, or reniced) task p preempt the running one?
    void wakeup_preempt(rq& r, task& p, unsigned wake_flags) {
        if (r.curr == nullptr) { // the idle task is always preempted
            resched_curr(r);
            return;
        }
        task& curr_task = *r.curr;
        sched_entity& se = curr_task.se;
        sched_entity& pse = p.se;
        cfs_rq& q = r.cfs;
        if (&se == &pse)
            return;
        if (p_.since(6, 19) && (wake_flags & wake::fork))
            return; // 6.19: fork wakeups never preempt
        const bool scale = q.nr_queued >= p_.tun.nr_latency;
        bool next_buddy_marked = false;
        if (!p_.eevdf() && p_.feat(feature::next_buddy) && scale && !(wake_flags & wake::fork)) {
            set_next_buddy(q, p);
            next_buddy_marked = true;
        }
        if (r.need_resched)
            return;
        const bool preempt_idle =
            curr_task.policy == sched_policy::idle && p.policy != sched_policy::idle;
        // 6.12 (faa42d29419d) tests WAKEUP_PREEMPTION before the idle-entity rule.
        if (p_.since(6, 12) && !p_.feat(feature::wakeup_preemption))
            return;
        if (preempt_idle && p_.since(6, 15)) {
            // f553741ac8c0: a preempted SCHED_IDLE entity keeps no slice protection.
            eevdf::cancel_protect_slice(p_, se);
        } else if (!preempt_idle) {
            if (p.policy != sched_policy::normal || !p_.feat(feature::wakeup_preemption))
                return;
            update_curr(r);
            if (p_.eevdf()) {
                if (!eevdf_wakeup_preempts(q, pse, se))
                    return;
            } else {
                if (cfs::wakeup_preempt_entity(p_, se, pse) != 1)
                    return;
                if (!next_buddy_marked)
                    set_next_buddy(q, p);
            }
        }
        resched_curr(r);
        if (!p_.eevdf() && se.on_rq && p_.feat(feature::last_buddy) && scale &&
            curr_task.policy != sched_policy::idle)
            q.last = &se;
    }

    // Fork: initial placement of a new task on its CPU (task_fork_fair, then
    // wake_up_new_task's enqueue). The launching parent is not simulated; its vruntime is
    // taken not to be ahead of the queue.
    void wake_up_new_task(rq& r, task& t) {
        sched_entity& se = t.se;
        se.vlag = 0;
        if (!se.custom_slice)
            se.slice = p_.tun.base_slice;
        se.vruntime = r.cfs.min_vruntime;
        if (p_.eevdf()) {
            // 6.12+ places the child on its CPU with ENQUEUE_INITIAL (half a slice);
            // 6.6-6.11 re-placed it at enqueue without the flag, with a full slice.
            enqueue_entity(r, se, p_.since(6, 12) ? enqueue::initial : 0u, false);
        } else {
            update_curr(r);
            cfs::place_entity(p_, r.cfs, se, true, t.policy == sched_policy::idle);
            se.vruntime -= r.cfs.min_vruntime; // made relative, re-based by the enqueue
            enqueue_entity(r, se, 0, t.policy == sched_policy::idle);
        }
    }

    // reweight_entity() for an entity off the queue (set_user_nice dequeues with
    // DEQUEUE_SAVE first): EEVDF keeps lag in service terms by scaling vlag (and a
    // relative deadline, 6.12+) by old/new weight.
    void reweight_dequeued(sched_entity& se, load_weight lw) {
        if (p_.eevdf()) {
            se.vlag =
                static_cast<s64>(static_cast<s128>(se.vlag) * static_cast<s128>(se.load.weight) /
                                 static_cast<s128>(lw.weight));
            if (se.rel_deadline)
                se.deadline = static_cast<u64>(static_cast<s64>(
                    static_cast<s128>(static_cast<s64>(se.deadline)) *
                    static_cast<s128>(se.load.weight) / static_cast<s128>(lw.weight)));
        }
        se.load = lw;
    }

    // The entity-level steps, public for tests and the model's own checks.
    void enqueue_entity(rq& r, sched_entity& se, unsigned flags, bool sched_idle) {
        cfs_rq& q = r.cfs;
        const bool is_curr = q.curr == &se;
        if (p_.eevdf()) {
            if (is_curr)
                eevdf::place_entity(p_, q, se, flags);
            update_curr(r);
            if (!is_curr)
                eevdf::place_entity(p_, q, se, flags);
        } else {
            // Vruntime is relative to min_vruntime unless the task slept here.
            const bool renorm = !(flags & enqueue::wakeup) || (flags & enqueue::migrated);
            if (renorm && is_curr)
                se.vruntime += q.min_vruntime;
            update_curr(r);
            if (renorm && !is_curr)
                se.vruntime += q.min_vruntime;
        }
        account_entity_enqueue(q, se);
        if (!p_.eevdf() && (flags & enqueue::wakeup))
            cfs::place_entity(p_, q, se, false, sched_idle);
        if (flags & enqueue::migrated)
            se.exec_start = 0;
        if (!is_curr)
            timeline_insert(q, se);
        se.on_rq = true;
    }

    bool dequeue_entity(rq& r, sched_entity& se, unsigned flags) {
        cfs_rq& q = r.cfs;
        const bool sleep = flags & dequeue::sleep;
        update_curr(r);
        clear_buddies(q, se);
        if (p_.eevdf()) {
            if (!(flags & dequeue::delayed)) {
                const bool delay = sleep && !(flags & dequeue::special);
                if (p_.feat(feature::delay_dequeue) && delay && !entity_eligible(q, se)) {
                    se.sched_delayed = true; // set_delayed()
                    ++q.nr_delayed;
                    return false;
                }
            }
            eevdf::update_entity_lag(p_, q, se);
            if (p_.feat(feature::place_rel_deadline) && !sleep) {
                se.deadline -= se.vruntime;
                se.rel_deadline = true;
            }
        }
        if (&se != q.curr)
            timeline_erase(q, se);
        se.on_rq = false;
        account_entity_dequeue(q, se);
        if (!p_.eevdf() && !sleep)
            se.vruntime -= q.min_vruntime;
        if ((flags & (dequeue::save | dequeue::move)) != dequeue::save)
            update_min_vruntime(q);
        if (flags & dequeue::delayed) { // finish_delayed_dequeue_entity()
            se.sched_delayed = false;
            --q.nr_delayed;
            if (p_.feat(feature::delay_zero) && se.vlag > 0)
                se.vlag = 0;
        }
        return true;
    }

private:
    void clear_buddies(cfs_rq& q, const sched_entity& se) const {
        if (p_.eevdf()) {
            if (q.next == &se)
                q.next = nullptr;
        } else {
            cfs::clear_buddies(q, se);
        }
    }

    static void set_next_buddy(cfs_rq& q, task& t) {
        if (t.policy != sched_policy::idle)
            q.next = &t.se;
    }

    // The EEVDF wakeup decision: would pick_eevdf() choose the wakee now?
    bool eevdf_wakeup_preempts(cfs_rq& q, sched_entity& pse, sched_entity& se) {
        if (p_.since(6, 17)) {
            const bool shorter = p_.feat(feature::preempt_short) && pse.slice < se.slice;
            if (eevdf::pick_eevdf(p_, q, !shorter) == &pse) {
                if (shorter)
                    eevdf::cancel_protect_slice(p_, se);
                return true;
            }
            // 6.17-6.18 shrink the protection for a shorter-slice wakee, 6.19 for any.
            if (p_.feat(feature::run_to_parity) && (shorter || p_.since(6, 19)))
                eevdf::update_protect_slice(p_, q, se);
            return false;
        }
        if (p_.since(6, 12) && eevdf::do_preempt_short(p_, q, pse, se))
            eevdf::cancel_protect_slice(p_, se);
        return eevdf::pick_eevdf(p_, q) == &pse;
    }

    // pick_next_entity(): buddies first, then the policy's pick. A delayed entity that
    // gets picked is dequeued for real and the pick starts over (nullptr).
    sched_entity* pick_next_entity(rq& r, sched_entity* curr) {
        cfs_rq& q = r.cfs;
        if (!p_.eevdf()) {
            sched_entity* se = cfs::pick_next_entity(p_, q, curr);
            cfs::clear_buddies(q, *se);
            return se;
        }
        const feature buddy = p_.since(6, 12) ? feature::pick_buddy : feature::next_buddy;
        sched_entity* se = nullptr;
        if (p_.feat(buddy) && q.next != nullptr && entity_eligible(q, *q.next))
            se = q.next;
        else
            se = eevdf::pick_eevdf(p_, q);
        if (se->sched_delayed) {
            dequeue_entity(r, *se, dequeue::sleep | dequeue::delayed);
            return nullptr;
        }
        return se;
    }

    // requeue_delayed_entity() (6.12+): the task woke while still queued.
    void requeue_delayed_entity(rq& r, sched_entity& se) {
        cfs_rq& q = r.cfs;
        if (p_.feat(feature::delay_zero)) {
            eevdf::update_entity_lag(p_, q, se);
            if (se.vlag > 0) {
                --q.nr_queued;
                if (&se != q.curr)
                    timeline_erase(q, se);
                se.vlag = 0;
                eevdf::place_entity(p_, q, se, 0);
                if (&se != q.curr)
                    timeline_insert(q, se);
                ++q.nr_queued;
            }
        }
        se.sched_delayed = false;
        --q.nr_delayed;
    }

    void set_next_entity(rq& r, sched_entity& se) {
        cfs_rq& q = r.cfs;
        if (p_.eevdf())
            clear_buddies(q, se);
        if (se.on_rq) {
            timeline_erase(q, se);
            if (p_.eevdf()) {
                if (p_.since(6, 17))
                    eevdf::set_protect_slice(p_, q, se);
                else
                    se.vlag = static_cast<s64>(se.deadline); // run-to-parity marker
            }
        }
        se.exec_start = r.clock_task;
        q.curr = &se;
        se.prev_sum_exec_runtime = se.sum_exec_runtime;
    }

    void put_prev_entity(rq& r, sched_entity& prev) {
        cfs_rq& q = r.cfs;
        if (prev.on_rq) {
            update_curr(r);
            timeline_insert(q, prev);
        }
        q.curr = nullptr;
    }

    fair_params p_;
};

} // namespace libsched
