#pragma once
// fair_sched_class (kernel/sched/fair.c): the task-level hooks over the entity operations,
// which act on the cfs_rq they are given, dispatching to the EEVDF (6.6+) or old CFS rules
// by release. With task groups a task's entity sits under group entities (task_group.hpp);
// the hierarchy walks (for_each_sched_entity) are those of the kernel.
#include <libsched/sched/bandwidth.hpp>
#include <libsched/sched/cfs.hpp>
#include <libsched/sched/deadline.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/pelt.hpp>
#include <libsched/sched/sched_class.hpp>
#include <libsched/sched/select_task_rq.hpp>
#include <libsched/sched/task_group.hpp>
#include <optional>

namespace libsched {

class fair_sched_class final : public sched_class {
public:
    explicit fair_sched_class(fair_params params)
        : sched_class(sched_class_rank::fair), p_(params),
          buddy_(feature_exists(feature::pick_buddy, p_.version) ? feature::pick_buddy
                                                                 : feature::next_buddy) {}

    const fair_params& params() const { return p_; }

    // ---- the class's hooks ----

    // enqueue_task_fair(): a wakeup of a delayed task only requeues it (6.12+). The task's
    // estimate joins the CPU's first, unless a delayed task (whose estimate stayed) is only
    // being moved or restored (6.12+, 729288bc6856). 6.18+: a parked task may go straight
    // back to a limbo list (enqueue_throttled_task()), and the walks no longer stop at a
    // throttled queue.
    void enqueue_task(rq& r, task& p, enqueue_flags flags) override {
        if (p.throttled && bandwidth::enqueue_throttled_task(p))
            return;
        const bool stop_at_throttled = !task_based_throttle(p_);
        if (!(p.se.sched_delayed && (p.migrating || has(flags, enqueue_flags::restore))))
            util_est_enqueue(r.cfs, p);
        if (has(flags, enqueue_flags::delayed)) {
            requeue_delayed_entity(p.se);
            return;
        }
        // A SCHED_IDLE task counts as idle on every level, any task as idle above an idle
        // group's queue (5.15+, cfs_rq_is_idle()).
        unsigned idle = se_is_idle(p.se) ? 1u : 0u;
        // A task still delayed arrives only when moved (6.12+: it stays delayed on its new
        // CPU until picked there) or restored after a save: it counts as delayed here.
        const unsigned delayed = p.se.sched_delayed ? 1u : 0u;
        // 6.12+: each group entity takes the shortest slice of the queue below it.
        duration slice = 0;
        sched_entity* se = &p.se;
        for (; se != nullptr; se = se->parent) { // for_each_sched_entity
            if (se->on_rq) {
                if (se->sched_delayed)
                    requeue_delayed_entity(*se);
                break;
            }
            cfs_rq& q = cfs_rq_of(*se);
            if (slice != 0) {
                se->slice = slice;
                se->custom_slice = true;
            }
            enqueue_entity(q, *se, flags);
            slice = group_slices() ? eevdf::cfs_rq_min_slice(q) : 0;
            ++q.h_nr_queued;
            q.h_nr_idle += idle;
            q.h_nr_delayed += delayed;
            if (q.idle)
                idle = 1;
            if (stop_at_throttled && cfs_rq_throttled(q)) { // the walks end at a throttled queue
                se = nullptr;
                break;
            }
            flags = enqueue_flags::wakeup;
        }
        for (sched_entity& e : for_each_sched_entity(se)) {
            cfs_rq& q = cfs_rq_of(e);
            update_load_avg(p_, q, e, update_load_flags::update_tg);
            se_update_runnable(e);
            update_cfs_group(e);
            slice = update_group_slice(q, e, slice);
            ++q.h_nr_queued;
            q.h_nr_idle += idle;
            q.h_nr_delayed += delayed;
            if (q.idle)
                idle = 1;
            if (stop_at_throttled && cfs_rq_throttled(cfs_rq_of(e)))
                break;
        }
        r.cfs_tasks.push_front(p.se); // account_entity_enqueue(): the task joins cfs_tasks
    }

    // dequeue_task_fair(): false if the task stays queued as delayed (6.12+). The task's
    // estimate leaves the CPU's (a delayed one's stays while it is moved or saved, 6.12+),
    // and a sleep samples util_avg into it: after the dequeue has brought util_avg up to
    // now before 6.12, before it from 6.12 (729288bc6856). A dead task's load is removed
    // as task_dead_fair() does, which the kernel runs right after this last dequeue. 6.18+:
    // a parked task only leaves its limbo list (dequeue_throttled_task()).
    bool dequeue_task(rq& r, task& p, dequeue_flags flags) override {
        if (p.throttled) {
            bandwidth::dequeue_throttled_task(p_, p, flags);
            return true;
        }
        const bool sleep = has(flags, dequeue_flags::sleep);
        if (!(p.se.sched_delayed && (p.migrating || has(flags, dequeue_flags::save))))
            util_est_dequeue(r.cfs, p);
        if (p_.since(6, 12))
            util_est_update(p_, p, sleep);
        const bool dequeued = dequeue_entities(p.se, flags);
        if (!p_.since(6, 12))
            util_est_update(p_, p, sleep);
        if (p.state == task_state::dead)
            remove_entity_load_avg(cfs_rq_of(p.se), p.se);
        return dequeued;
    }

    // pick_next_task_fair(): the pick walks down from the CPU's queue through group
    // entities to a task; a delayed entity that gets picked is dequeued for real and the
    // pick starts over. prev is put back unless it is picked again. 6.18+: a task picked
    // below a throttled queue is parked (task_throttle_setup_work() and, at its return to
    // user mode, throttle_cfs_rq_work(); sched/bandwidth.hpp) and the pick starts over.
    task* pick_next_task(rq& r, task& prev) override {
        const bool task_based = task_based_throttle(p_);
        sched_entity* se = nullptr;
        while (r.cfs.nr_queued > 0) {
            cfs_rq* q = &r.cfs;
            bool throttled = false;
            do {
                sched_entity* curr = q->curr;
                if (curr != nullptr) {
                    if (curr->on_rq)
                        update_curr(*q);
                    else
                        curr = nullptr;
                }
                // A queue out of runtime is throttled here and the pick starts over
                // (pick_task_fair(); before 6.6, pick_next_task_fair() for a queue with curr);
                // 6.18+ goes on picking below it.
                if (task_based) {
                    throttled = check_cfs_rq_runtime(*q) || throttled;
                } else if (check_cfs_rq_runtime(*q)) {
                    se = nullptr;
                    break;
                }
                se = pick_next_entity(*q, curr);
                q = se != nullptr ? se->my_q : nullptr;
            } while (q != nullptr);
            if (se != nullptr && throttled && bandwidth::throttle_cfs_rq_work(*this, *task_of(*se)))
                se = nullptr;
            if (se != nullptr)
                break;
        }
        const bool prev_fair = prev.sched_class == this;
        if (prev_fair && se == &prev.se)
            return &prev;
        const bool prev_running = prev_fair && cfs_rq_of(prev.se).curr == &prev.se;
        if (se == nullptr) {
            if (prev_running)
                put_prev_task(r, prev);
            return nullptr;
        }
        task* next = task_of(*se);
        if (prev_running)
            put_prev_set_next(&prev.se, se);
        else
            set_next_task_fair(*next, true);
        r.cfs_tasks.erase(r.cfs_tasks.iterator_to(next->se)); // most recently run first
        r.cfs_tasks.push_front(next->se);
        return next;
    }

    // pick_next_task_fair() after a fair prev: prev's entities are put back and next's set,
    // bottom up, until the two meet on one queue; the ancestors above that keep running
    // untouched (their buddy marks and protected slices stay).
    void put_prev_set_next(sched_entity* pse, sched_entity* se) {
        while (se->cfs_rq != pse->cfs_rq) { // !is_same_group()
            const int se_depth = se->depth, pse_depth = pse->depth;
            if (se_depth <= pse_depth) {
                put_prev_entity(cfs_rq_of(*pse), *pse);
                pse = pse->parent;
            }
            if (se_depth >= pse_depth) {
                set_next_entity(cfs_rq_of(*se), *se, true);
                se = se->parent;
            }
        }
        put_prev_entity(cfs_rq_of(*pse), *pse);
        set_next_entity(cfs_rq_of(*se), *se, true);
    }

    // put_prev_task_fair / set_next_task_fair: every level of the hierarchy. The class's
    // set_next_task() sets a running task again after a change (first = false); a pick
    // sets it first.
    void put_prev_task(rq& r, task& prev) override {
        (void)r;
        for (sched_entity& se : for_each_sched_entity(&prev.se))
            put_prev_entity(cfs_rq_of(se), se);
    }
    void set_next_task(rq& r, task& next) override {
        (void)r;
        set_next_task_fair(next, false);
    }
    void set_next_task_fair(task& next, bool first) {
        for (sched_entity& se : for_each_sched_entity(&next.se))
            set_next_entity(cfs_rq_of(se), se, first);
    }

    // task_tick_fair() -> entity_tick() on every level.
    void task_tick(rq& r, task& curr, bool queued) override {
        (void)r;
        for (sched_entity& se : for_each_sched_entity(&curr.se))
            entity_tick(cfs_rq_of(se), se, queued);
    }

    // check_preempt_wakeup_fair() (check_preempt_wakeup before 6.6): may the woken (or
    // forked, or reniced) task p preempt the running fair task?
    void wakeup_preempt(rq& r, task& p, wake_flags flags) override {
        task& curr_task = *r.curr;
        if (&curr_task == &p)
            return;
        // Enqueued below a throttled queue; 6.18+ (253b3f587241): only a parked task.
        if (task_based_throttle(p_) ? p.throttled : throttled_hierarchy(cfs_rq_of(p.se)))
            return;
        const bool fork = has(flags, wake_flags::fork);
        const bool scale = cfs_rq_of(curr_task.se).nr_queued >= p_.tun.nr_latency;
        sched_entity& wakee = p.se;
        // NEXT_BUDDY marks a non-fork wakee before any other test: old CFS only on a busy
        // queue (6.6's "sched/fair: Commit to EEVDF" dropped that test), not a delayed wakee
        // from 6.13 and 6.12.7 (493afbd187c4); 6.19 and 6.18.33 mark it further down
        // (e837456fdca8).
        bool next_buddy_marked = false;
        if (p_.feat(feature::next_buddy) && !fork && !p_.reworked_next_buddy() &&
            (p_.eevdf() ? !(wakee.sched_delayed && p_.carries(next_buddy_not_delayed)) : scale)) {
            set_next_buddy(wakee);
            next_buddy_marked = true;
        }
        if (r.need_resched) // test_tsk_need_resched(): TIF_NEED_RESCHED, not the lazy bit
            return;
        sched_entity* se = &curr_task.se;
        if (!should_preempt_wakeup(curr_task, p, se, flags, next_buddy_marked))
            return;
        resched_curr_lazy(r, resched_reason::wakeup_preempt, p_.lazy_preemption);
        if (!p_.eevdf() && se->on_rq && p_.feat(feature::last_buddy) && scale &&
            entity_is_task(*se))
            set_last_buddy(*se);
    }

    // update_curr_fair(): the running task's own queue.
    void update_curr(rq& r) override { update_curr(cfs_rq_of(r.curr->se)); }

    // yield_task_fair(): nothing if the task is alone on its CPU. Otherwise its buddy
    // marks go and its runtime is charged (before 6.6 not a SCHED_BATCH task's); before 6.6
    // it becomes the skip buddy, which the pick passes over if that is not too unfair; 6.6+
    // pushes its deadline a slice further, and an eligible task also forfeits the rest of
    // its slice, its vruntime moved to its old deadline, from 6.19, 6.18.2, 6.17.13 and
    // 6.12.63 (79104becf42b).
    void yield_task(rq& r) override {
        if (nr_running(r) == 1)
            return;
        sched_entity& se = r.curr->se;
        cfs_rq& q = cfs_rq_of(se);
        clear_buddies(q, se);
        if (!p_.eevdf()) {
            if (r.curr->policy != sched_policy::batch)
                update_curr(q);
            for (sched_entity& e : for_each_sched_entity(&se)) // set_skip_buddy()
                cfs_rq_of(e).skip = &e;
            return;
        }
        update_curr(q);
        const bool forfeit = p_.carries(yield_forfeits_vruntime);
        if (forfeit && !entity_eligible(q, se))
            return;
        if (forfeit)
            se.vruntime = se.deadline;
        se.deadline += p_.delta_fair(static_cast<u64>(se.slice), se);
        if (forfeit)
            update_min_vruntime(q);
    }

    // select_task_rq_fair(): the placement the core gave this class for its CPUs; on one
    // CPU, the task's own.
    int select_task_rq(task& p, int prev_cpu, int this_cpu, wake_flags flags) override {
        if (placement_ == nullptr)
            return prev_cpu;
        return (*placement_)(p, prev_cpu, this_cpu, flags);
    }
    void set_placement(select_task_rq_fair* placement) { placement_ = placement; }
    // 6.12+: the CPUs' fair server, charged for what fair tasks run.
    void set_dl_server(dl_server_account* server) { server_ = server; }

    // balance_fair(): work to run here (newly-idle balancing comes with the multi-CPU model).
    bool balance(rq& r, task& prev) override {
        (void)prev;
        return r.cfs.h_nr_queued > 0;
    }

    // migrate_task_rq_fair(): before 6.6 a waking task's vruntime leaves relative to its old
    // queue (the enqueue with ENQUEUE_MIGRATED adds the new one's); a queued task's was made
    // relative by its dequeue. A migrated task is no longer cache hot. Its load leaves the
    // old queue: a waking task's through the queue's removed load; a queued one's was
    // detached by its dequeue (DO_DETACH; before 6.1 detached here, at the same instant).
    // last_update_time 0 tells the new queue to attach it.
    void migrate_task_rq(task& p, int new_cpu) override {
        (void)new_cpu;
        sched_entity& se = p.se;
        if (!p_.eevdf() && p.state == task_state::sleeping && !se.on_rq)
            se.vruntime -= cfs_rq_of(se).min_vruntime;
        if (!p.migrating)
            remove_entity_load_avg(cfs_rq_of(se), se);
        se.avg.last_update_time = 0;
        se.exec_start = 0;
    }

    // sched_fork() / task_fork_fair(): the new task's entity before wake_up_new_task()
    // enqueues it. The launching parent is not simulated; its vruntime is taken not to be
    // ahead of the queue. Old CFS places the child now (START_DEBIT), relative to the queue.
    void task_fork(rq& r, task& p) override {
        (void)r;
        sched_entity& se = p.se;
        cfs_rq& q = cfs_rq_of(se);
        init_entity_runnable_average(se);
        eevdf::set_vlag(p_, se, 0);
        if (!se.custom_slice)
            se.slice = p_.tun.base_slice;
        se.vruntime = q.min_vruntime;
        if (!p_.eevdf()) {
            update_curr(q);
            cfs::place_entity(p_, q, se, true);
            se.vruntime -= q.min_vruntime;
        }
    }

    // reweight_task_fair()
    void reweight_task(rq& r, task& p, load_weight lw) override {
        (void)r;
        reweight_entity(cfs_rq_of(p.se), p.se, lw);
    }

    // prio_changed_fair() (5.6+): a queued task whose nice changed may preempt, or be
    // preempted if it runs and got less important.
    void prio_changed(rq& r, task& p, int old_nice) override {
        if (!p.se.on_rq || r.cfs.nr_queued == 1)
            return;
        if (r.curr == &p) {
            if (p.nice > old_nice)
                resched_curr(r, resched_reason::prio_changed);
        } else {
            core_wakeup_preempt(r, p);
        }
    }

    // switched_to_fair(): a task that joined the class may preempt, or is rescheduled.
    void switched_to(rq& r, task& p) override {
        if (!p.se.on_rq)
            return;
        if (r.curr == &p)
            resched_curr(r, resched_reason::switched_to_fair);
        else
            core_wakeup_preempt(r, p);
    }

    // hrtick_start_fair(): with HRTICK, the delay after which the running task's slice
    // ends (old CFS: sched_slice; EEVDF: se->slice). A slice already overrun asks for a
    // reschedule instead. After an enqueue (hrtick_update()) old CFS re-arms only while
    // fewer than sched_nr_latency tasks are queued; 6.6 dropped that test.
    std::optional<duration> hrtick_delay(rq& r, bool enqueue) override {
        if (r.cfs.curr == nullptr || r.cfs.h_nr_queued <= 1)
            return std::nullopt;
        sched_entity* running = r.cfs.curr; // the task below the running group entities
        while (running->my_q != nullptr)
            running = running->my_q->curr;
        sched_entity& se = *running;
        cfs_rq& q = cfs_rq_of(se);
        if (enqueue && !p_.eevdf() && q.nr_queued >= p_.tun.nr_latency)
            return std::nullopt;
        const duration ran = se.sum_exec_runtime - se.prev_sum_exec_runtime;
        const duration slice =
            p_.eevdf() ? se.slice : static_cast<duration>(cfs::sched_slice(p_, q, se));
        if (slice - ran < 0) {
            resched_curr(r, resched_reason::hrtick);
            return std::nullopt;
        }
        return std::max<duration>(slice - ran, 10'000); // hrtick_start(): no shorter timers
    }

    // __sched_group_set_shares(): on every CPU the group's entity and those above it are
    // brought up to date and reweighted. The caller has updated the CPUs' clocks.
    void group_shares_changed(task_group& tg) {
        for (sched_entity* ge : tg.se)
            for (sched_entity& e : for_each_sched_entity(ge)) {
                update_load_avg(p_, cfs_rq_of(e), e, update_load_flags::update_tg);
                update_cfs_group(e);
            }
    }

    // sched_group_set_idle() (cpu.idle, 5.15+): on every CPU the group's queue becomes
    // idle (or not), its entity with it (se_is_idle() of a group entity), and its queued
    // non-idle tasks count as idle above it up to the next idle queue. The caller then
    // sets the group's shares (WEIGHT_IDLEPRIO for an idle group, NICE_0_LOAD when not).
    void group_set_idle(task_group& tg, bool idle) {
        tg.idle = idle;
        for (std::size_t c = 0; c < tg.cfs_rq.size(); ++c) {
            cfs_rq& gq = *tg.cfs_rq[c];
            if (gq.idle == idle)
                continue;
            gq.idle = idle;
            tg.se[c]->idle = idle;
            const auto n = static_cast<int>(gq.h_nr_queued - gq.h_nr_idle);
            const int delta = idle ? n : -n;
            for (sched_entity& e : for_each_sched_entity(tg.se[c])) {
                if (!e.on_rq)
                    break;
                cfs_rq& q = cfs_rq_of(e);
                q.h_nr_idle = static_cast<unsigned>(static_cast<int>(q.h_nr_idle) + delta);
                if (q.idle)
                    break;
            }
        }
    }

    // update_cfs_group(): a group entity takes the weight calc_group_shares() gives it on
    // its CPU; nothing for a task's entity, nor (6.12+) while the group's queue is empty,
    // whose weight is then kept.
    void update_cfs_group(sched_entity& se) {
        const cfs_rq* gq = group_cfs_rq(se);
        if (gq == nullptr || (p_.since(6, 12) && gq->load.weight == 0))
            return;
        const u64 shares = calc_group_shares(*gq);
        if (se.load.weight != shares)
            reweight_entity(cfs_rq_of(se), se, {shares, 0});
    }

    // calc_group_shares() (CONFIG_SMP): the group's shares split over its CPUs by load.
    // This CPU's load is the larger of its queue's weight and load_avg, put in place of its
    // published part of tg->load_avg, so that a queue that just got busy counts at once:
    // shares * load / tg_weight, within [MIN_SHARES, shares].
    static u64 calc_group_shares(const cfs_rq& gq) {
        const auto tg_shares = static_cast<s64>(gq.tg->shares);
        const auto load =
            static_cast<s64>(std::max<u64>(scale_load_down(gq.load.weight), gq.avg.load_avg));
        const s64 tg_weight = gq.tg->load_avg - static_cast<s64>(gq.tg_load_avg_contrib) + load;
        s64 shares = tg_shares * load;
        if (tg_weight != 0)
            shares /= tg_weight;
        return static_cast<u64>(std::clamp<s64>(shares, 2, tg_shares)); // MIN_SHARES
    }

    // ---- entity operations, on the queue they act on (public for tests) ----

    // update_curr(): charge the running entity up to the rq clock, advance its vruntime
    // and decide whether it must give up the CPU (6.6+: deadline reached; 6.12 adds
    // PREEMPT_SHORT; 6.17 the protected slice).
    void update_curr(cfs_rq& q) {
        sched_entity* curr = q.curr;
        if (curr == nullptr)
            return;
        rq& r = rq_of(q);
        const duration delta = r.clock_task - curr->exec_start;
        if (delta <= 0)
            return;
        curr->exec_start = r.clock_task;
        curr->sum_exec_runtime += delta;
        if (server_ != nullptr && entity_is_task(*curr))
            server_->dl_server_update(r, delta); // 6.12+, whether the server runs it or not
        // account_cfs_rq_runtime(): each level's update charges its own queue (the kernel
        // does it further down; nothing in between depends on it).
        bandwidth::account_cfs_rq_runtime(q, delta);
        curr->vruntime += p_.delta_fair(static_cast<u64>(delta), *curr);
        if (!p_.eevdf()) {
            update_min_vruntime(q);
            return;
        }
        const bool used_up = eevdf::update_deadline(p_, *curr);
        update_min_vruntime(q);
        if (!p_.since(6, 12)) { // 6.6-6.11: update_deadline reschedules itself
            if (used_up && q.nr_queued > 1) {
                resched_curr(r, resched_reason::update_deadline);
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
            resched_curr_lazy(
                r, used_up ? resched_reason::update_deadline : resched_reason::protect_slice,
                p_.lazy_preemption);
            clear_buddies(q, *curr);
        }
    }

    void enqueue_entity(cfs_rq& q, sched_entity& se, enqueue_flags flags) {
        const bool is_curr = q.curr == &se;
        // Vruntime is relative to min_vruntime unless the task slept here (old CFS).
        const bool renorm = !p_.eevdf() && (!has(flags, enqueue_flags::wakeup) ||
                                            has(flags, enqueue_flags::migrated));
        if (is_curr) {
            if (p_.eevdf())
                eevdf::place_entity(p_, q, se, flags);
            else if (renorm)
                se.vruntime += q.min_vruntime;
        }
        update_curr(q);
        if (!is_curr && renorm)
            se.vruntime += q.min_vruntime;
        update_load_avg(p_, q, se, update_load_flags::update_tg | update_load_flags::do_attach);
        se_update_runnable(se);
        update_cfs_group(se); // a group entity's weight, which placement scales lag by
        if (!is_curr && p_.eevdf())
            eevdf::place_entity(p_, q, se, flags);
        account_entity_enqueue(q, se);
        // list_add_leaf_cfs_rq(); up to 6.17 not in a throttled hierarchy.
        if (q.nr_queued == 1 && q.tg != nullptr && !q.tg->is_root() &&
            (task_based_throttle(p_) || !throttled_hierarchy(q)))
            q.on_list = true;
        if (!p_.eevdf() && has(flags, enqueue_flags::wakeup))
            cfs::place_entity(p_, q, se, false);
        if (!is_curr)
            timeline_insert(q, se);
        se.on_rq = true;
        if (q.nr_queued == 1) {
            bandwidth::check_enqueue_throttle(*this, q);
            // 6.18+: in a throttled hierarchy the PELT clock runs while something is queued.
            if (task_based_throttle(p_) && throttled_hierarchy(q))
                bandwidth::restart_pelt_clock(q);
        }
    }

    // dequeue_entity(): false if the entity stays queued as delayed (6.12+).
    bool dequeue_entity(cfs_rq& q, sched_entity& se, dequeue_flags flags) {
        const bool sleep = has(flags, dequeue_flags::sleep);
        const bool delayed = has(flags, dequeue_flags::delayed);
        update_curr(q);
        clear_buddies(q, se);
        const bool migrating = entity_is_task(se) && task_of(se)->migrating;
        if (p_.eevdf() && !delayed) {
            const bool delay =
                sleep && !has(flags, dequeue_flags::special | dequeue_flags::throttle);
            if (p_.feat(feature::delay_dequeue) && delay && !entity_eligible(q, se)) {
                update_load_avg(p_, q, se, update_load_flags::none);
                set_delayed(se);
                return false;
            }
        }
        update_load_avg(p_, q, se,
                        migrating ? update_load_flags::update_tg | update_load_flags::do_detach
                                  : update_load_flags::update_tg);
        se_update_runnable(se);
        if (p_.eevdf()) {
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
        bandwidth::return_cfs_rq_runtime(q); // the last entity leaving gives runtime back
        update_cfs_group(se);
        const dequeue_flags save_move = flags & (dequeue_flags::save | dequeue_flags::move);
        if (save_move != dequeue_flags::save)
            update_min_vruntime(q);
        if (delayed) { // finish_delayed_dequeue_entity()
            clear_delayed(se);
            if (p_.feat(feature::delay_zero) && se.vlag > 0)
                eevdf::set_vlag(p_, se, 0);
        }
        // 6.18+: a queue of a throttled hierarchy left empty stops its PELT clock and leaves
        // the leaf list.
        if (q.nr_queued == 0 && task_based_throttle(p_) && throttled_hierarchy(q)) {
            q.on_list = false;
            bandwidth::stop_pelt_clock(q);
        }
        return true;
    }

    // reweight_entity(): a new weight for an entity. Off the queue (set_user_nice()
    // dequeues with DEQUEUE_SAVE first) EEVDF keeps lag in service terms by scaling vlag
    // (and, 6.13+, the relative deadline that 6.12+ keeps across the save) by old/new
    // weight. On the queue (a group's share
    // changing): reweight_queued().
    void reweight_entity(cfs_rq& q, sched_entity& se, load_weight lw) {
        if (!se.on_rq) {
            if (p_.eevdf()) {
                eevdf::set_vlag(p_, se, scale_by_weight(se.vlag, se.load.weight, lw.weight));
                if (se.rel_deadline && p_.since(6, 13)) // 6d71a9c61604; 6.12 left it as it was
                    se.deadline = static_cast<u64>(
                        scale_by_weight(static_cast<s64>(se.deadline), se.load.weight, lw.weight));
            }
            reweight_load_avg(p_, q, se, lw);
            return;
        }
        reweight_queued(q, se, lw);
    }

    // set_next_entity(): from 5.14 (21f56ffe4482, which made the pick free of side
    // effects for core scheduling) the entity's buddy marks go here, so a curr picked again
    // keeps them; before, pick_next_entity() cleared them. From 6.18.17 / 6.19.7 only a
    // pick (first) sets the protected slice (bcd74b2ffdd0).
    void set_next_entity(cfs_rq& q, sched_entity& se, bool first) {
        if (p_.since(5, 14))
            clear_buddies(q, se);
        if (se.on_rq) {
            timeline_erase(q, se);
            update_load_avg(p_, q, se, update_load_flags::update_tg); // waited, not ran
            if (p_.eevdf()) {
                if (!p_.since(6, 17))
                    se.vlag = static_cast<s64>(se.deadline); // run-to-parity marker
                else if (first || !p_.carries(protect_slice_at_pick))
                    eevdf::set_protect_slice(p_, q, se);
            }
        }
        se.exec_start = rq_of(q).clock_task;
        q.curr = &se;
        se.prev_sum_exec_runtime = se.sum_exec_runtime;
    }

    void put_prev_entity(cfs_rq& q, sched_entity& prev) {
        if (prev.on_rq)
            update_curr(q);
        check_cfs_rq_runtime(q); // a queue out of runtime is throttled
        if (prev.on_rq) {
            timeline_insert(q, prev);
            update_load_avg(p_, q, prev, update_load_flags::none); // ran until now
        }
        q.curr = nullptr;
    }

    // check_cfs_rq_runtime() (sched/bandwidth.hpp): true if the queue is throttled.
    bool check_cfs_rq_runtime(cfs_rq& q) { return bandwidth::check_cfs_rq_runtime(*this, q); }

private:
    // aef6987d8954 (6.12): a group entity's slice is the shortest queued below it, so that
    // a task's requested slice counts at every level (PREEMPT_SHORT, the deadlines).
    bool group_slices() const { return p_.since(6, 12); }

    // The walk up over the group entities that stay queued: e takes the slice of the queue
    // below, the tree it sits in follows (563bc2161b94, 6.15, and 6.12.23, 6.14.2; earlier
    // the tree's shortest slice stayed stale until its next change, which the model does
    // not reproduce); returns the slice of e's own queue for the next level.
    duration update_group_slice(cfs_rq& q, sched_entity& e, duration slice) {
        if (!group_slices())
            return 0;
        e.slice = slice;
        if (&e != q.curr)
            q.tasks_timeline.update_augmented(e);
        return eevdf::cfs_rq_min_slice(q);
    }

    // wakeup_preempt() of core.c, as prio_changed_fair() and switched_to_fair() call it:
    // this class decides only against a fair curr; curr of a higher class (RT, the
    // stopper) stays, and the idle task is always preempted.
    void core_wakeup_preempt(rq& r, task& p) {
        const sched_class& curr_class = *r.curr->sched_class;
        if (&curr_class == this)
            wakeup_preempt(r, p, wake_flags::none);
        else if (sched_class_above(*this, curr_class))
            resched_curr(r, resched_reason::wakeup_preempt);
    }

    static s64 scale_by_weight(s64 v, u64 old_w, u64 new_w) {
        return static_cast<s64>(static_cast<s128>(v) * static_cast<s128>(old_w) /
                                static_cast<s128>(new_w));
    }

    // reweight_entity() of a queued entity (a group entity whose share changes; a task
    // being reniced is dequeued first). Old CFS keeps vruntime. EEVDF by release:
    // 6.6 keeps vruntime and scales the relative deadline; 6.7-6.12 (reweight_eevdf, as
    // fixed in 6.9) keep the clamped lag: v' = V - lag * w/w', d' = V + (d - V) * w/w';
    // 6.13+ (6d71a9c61604) save the lag and relative deadline, scale both and place the
    // entity again (6.16, c70fc32f4443: counted out of the queue meanwhile).
    void reweight_queued(cfs_rq& q, sched_entity& se, load_weight lw) {
        const bool is_curr = q.curr == &se;
        const u64 old_w = se.load.weight;
        if (!p_.eevdf()) {
            if (is_curr)
                update_curr(q);
            else
                avg_vruntime_sub(q, se); // the tree's weighted sums follow, its order does not
            update_load_sub(q.load, old_w);
            reweight_load_avg(p_, q, se, lw);
            update_load_add(q.load, lw.weight);
            if (!is_curr)
                avg_vruntime_add(q, se);
            return;
        }
        if (!p_.since(6, 7)) {
            if (is_curr)
                update_curr(q);
            else
                timeline_erase(q, se); // the tree is ordered by the deadline that changes
            update_load_sub(q.load, old_w);
            const s64 rel =
                scale_by_weight(static_cast<s64>(se.deadline - se.vruntime), old_w, lw.weight);
            se.deadline = se.vruntime + static_cast<u64>(rel);
            reweight_load_avg(p_, q, se, lw);
            update_load_add(q.load, lw.weight);
            if (!is_curr)
                timeline_insert(q, se);
            return;
        }
        update_curr(q);
        if (!p_.since(6, 13)) {
            const u64 v = avg_vruntime(q);
            if (!is_curr)
                timeline_erase(q, se);
            update_load_sub(q.load, old_w);
            eevdf::update_entity_lag_at(p_, q, v, se);
            const s64 vlag = scale_by_weight(se.vlag, old_w, lw.weight);
            const s64 vslice = scale_by_weight(static_cast<s64>(se.deadline - v), old_w, lw.weight);
            reweight_load_avg(p_, q, se, lw);
            se.vruntime = v - static_cast<u64>(vlag);
            se.deadline = v + static_cast<u64>(vslice);
            update_load_add(q.load, lw.weight);
            if (!is_curr)
                timeline_insert(q, se);
            update_min_vruntime(q);
            return;
        }
        const bool out_of_queue = p_.since(6, 16);
        eevdf::update_entity_lag(p_, q, se);
        se.deadline -= se.vruntime;
        se.rel_deadline = true;
        // 6.18.17 / 6.19.7 (ff38424030f9): curr's protected slice, like its deadline, is kept
        // relative and scaled; before, vprot stayed where it was as vruntime moved.
        const bool rel_vprot =
            is_curr && p_.carries(reweight_keeps_vprot) && eevdf::protect_slice(p_, se);
        s64 vprot = rel_vprot ? static_cast<s64>(se.vprot - se.vruntime) : 0;
        if (out_of_queue)
            --q.nr_queued;
        if (!is_curr)
            timeline_erase(q, se);
        update_load_sub(q.load, old_w);
        eevdf::set_vlag(p_, se, scale_by_weight(se.vlag, old_w, lw.weight));
        se.deadline =
            static_cast<u64>(scale_by_weight(static_cast<s64>(se.deadline), old_w, lw.weight));
        vprot = scale_by_weight(vprot, old_w, lw.weight);
        reweight_load_avg(p_, q, se, lw);
        // 6.16 adds the load after the placement; place_entity() does not read it.
        eevdf::place_entity(p_, q, se, enqueue_flags::none);
        if (rel_vprot)
            eevdf::set_vprot(p_, se, se.vruntime + static_cast<u64>(vprot));
        update_load_add(q.load, lw.weight);
        if (!is_curr)
            timeline_insert(q, se);
        if (out_of_queue)
            ++q.nr_queued;
        update_min_vruntime(q);
    }

    // dequeue_entities(): the entity and, while their queues empty, its ancestors; false if
    // a task's entity stays queued as delayed (6.12+). A group entity leaves its parent
    // only once its own queue has nothing left. Up to 6.17 the walks stop at a throttled
    // queue; 6.18+ goes on, and a task being parked (DEQUEUE_THROTTLE, kept on every level)
    // starts the throttled time of the throttled queues it leaves (record_throttle_clock()).
    bool dequeue_entities(sched_entity& first, dequeue_flags flags) {
        const bool stop_at_throttled = !task_based_throttle(p_);
        const bool parking = has(flags, dequeue_flags::throttle);
        const bool task = entity_is_task(first);
        const unsigned h_nr = task ? 1u : first.my_q->h_nr_queued;
        // As at the enqueue: idle above an idle group's queue (5.15+). A group entity
        // dequeued by itself (6.12+: picked while delayed) has no task below it.
        unsigned idle = task && se_is_idle(first) ? 1u : 0u;
        // A delayed task that leaves without finishing its sleep (moved, or saved) keeps its
        // flag but no longer counts here; finishing it (DEQUEUE_DELAYED) uncounts it itself.
        const unsigned delayed =
            task && first.sched_delayed && !has(flags, dequeue_flags::delayed) ? 1u : 0u;
        // 6.12+: the queues' shortest slices, for the group entities that stay queued.
        duration slice = task || !group_slices() ? 0 : eevdf::cfs_rq_min_slice(*first.my_q);
        sched_entity* se = &first;
        for (; se != nullptr; se = se->parent) { // for_each_sched_entity
            cfs_rq& q = cfs_rq_of(*se);
            if (!dequeue_entity(q, *se, flags)) {
                if (task && se == &first)
                    return false;
                // bbce3de72be5 (6.15): this queue's slice, not the emptied one's U64_MAX.
                if (group_slices())
                    slice = eevdf::cfs_rq_min_slice(q);
                break;
            }
            q.h_nr_queued -= h_nr;
            q.h_nr_idle -= idle;
            q.h_nr_delayed -= delayed;
            if (q.idle)
                idle = h_nr;
            if (parking && throttled_hierarchy(q))
                bandwidth::record_throttle_clock(q);
            if (stop_at_throttled && cfs_rq_throttled(q)) { // the walks end at a throttled queue
                se = nullptr;
                break;
            }
            if (q.load.weight != 0) { // the group keeps other entities: it stays queued
                if (group_slices())
                    slice = eevdf::cfs_rq_min_slice(q);
                se = se->parent;
                // A sleeping task's group is the next pick's bias (set_next_buddy()).
                if (task && has(flags, dequeue_flags::sleep) && se != nullptr)
                    set_next_buddy(*se);
                break;
            }
            // The levels above are left as by a sleep, keeping only SAVE and MOVE (and
            // THROTTLE).
            flags =
                (flags & (dequeue_flags::save | dequeue_flags::move | dequeue_flags::throttle)) |
                dequeue_flags::sleep;
        }
        for (sched_entity& e : for_each_sched_entity(se)) {
            cfs_rq& q = cfs_rq_of(e);
            update_load_avg(p_, q, e, update_load_flags::update_tg);
            se_update_runnable(e);
            update_cfs_group(e);
            slice = update_group_slice(q, e, slice);
            q.h_nr_queued -= h_nr;
            q.h_nr_idle -= idle;
            q.h_nr_delayed -= delayed;
            if (q.idle)
                idle = h_nr;
            if (parking && throttled_hierarchy(q))
                bandwidth::record_throttle_clock(q);
            if (stop_at_throttled && cfs_rq_throttled(cfs_rq_of(e)))
                break;
        }
        if (task) { // account_entity_dequeue(): the task leaves cfs_tasks
            cfs_task_list& l = rq_of(cfs_rq_of(first)).cfs_tasks;
            l.erase(l.iterator_to(first));
        }
        return true;
    }

    // entity_tick(): EEVDF decides in update_curr; old CFS also runs check_preempt_tick
    // when more than one entity is queued. The HRTICK expiry (queued) reschedules outright,
    // and while the HRTICK timer is pending the periodic tick leaves preemption to it
    // (DOUBLE_TICK, off by default, is not modelled); EEVDF returns there too, but after
    // update_curr() has decided.
    void entity_tick(cfs_rq& q, sched_entity& curr, bool queued) {
        update_curr(q);
        update_load_avg(p_, q, curr, update_load_flags::update_tg);
        update_cfs_group(curr);
        rq& r = rq_of(q);
        if (queued) { // lazy up to 7.0 (5d88e424ec1b makes it resched_curr() after)
            resched_curr_lazy(r, resched_reason::hrtick, p_.lazy_preemption);
            return;
        }
        if (r.hrtick_active)
            return;
        if (!p_.eevdf() && q.nr_queued > 1 && cfs::check_preempt_tick(p_, q, curr))
            resched_curr(r, resched_reason::check_preempt_tick);
    }

    // set_delayed() / clear_delayed() (6.12+): a delayed task counted on every level above,
    // up to 6.17 only up to a throttled queue (whose entity left the levels above it). A
    // group entity is delayed only with no task left below it: nothing to count.
    void set_delayed(sched_entity& se) const { count_delayed(se, true); }
    void clear_delayed(sched_entity& se) const { count_delayed(se, false); }
    void count_delayed(sched_entity& se, bool delayed) const {
        se.sched_delayed = delayed;
        if (!entity_is_task(se))
            return;
        const bool stop_at_throttled = !task_based_throttle(p_);
        for (sched_entity& e : for_each_sched_entity(&se)) {
            cfs_rq& q = cfs_rq_of(e);
            q.h_nr_delayed = delayed ? q.h_nr_delayed + 1 : q.h_nr_delayed - 1;
            if (stop_at_throttled && cfs_rq_throttled(q))
                break;
        }
    }

    // se_update_runnable(): a group entity's runnable count follows its queue's.
    void se_update_runnable(sched_entity& se) const {
        if (!entity_is_task(se))
            se.runnable_weight = cfs_rq_runnable(p_, *se.my_q);
    }

    // clear_buddies(): EEVDF keeps only the next buddy.
    void clear_buddies(cfs_rq& q, sched_entity& se) const {
        if (!p_.eevdf())
            cfs::clear_buddies(q, se);
        else
            cfs::clear_buddy_upwards(&cfs_rq::next, q, se);
    }

    // set_next_buddy() / set_last_buddy(): on every level, unless an idle entity is on the
    // way.
    static void set_next_buddy(sched_entity& se) {
        for (sched_entity& e : for_each_sched_entity(&se)) {
            if (se_is_idle(e))
                return;
            cfs_rq_of(e).next = &e;
        }
    }
    static void set_last_buddy(sched_entity& se) {
        for (sched_entity& e : for_each_sched_entity(&se)) {
            if (se_is_idle(e))
                return;
            cfs_rq_of(e).last = &e;
        }
    }

    // check_preempt_wakeup_fair() past its first tests: whether the wakee p preempts curr.
    // se (curr's entity on entry) ends on the entity the decision was taken for, the one
    // old CFS marks as the last buddy.
    bool should_preempt_wakeup(const task& curr, task& p, sched_entity*& se, wake_flags flags,
                               bool next_buddy_marked) {
        if (!p_.since(6, 12)) {
            // check_preempt_wakeup() before 6.12 (faa42d29419d) tests the two tasks'
            // policies before matching their entities: a SCHED_IDLE curr yields to a wakee
            // of any other policy whatever their groups, and a BATCH or IDLE wakee, or any
            // wakee without WAKEUP_PREEMPTION, preempts nothing, not even an idle group.
            if (curr.policy == sched_policy::idle && p.policy != sched_policy::idle)
                return true;
            if (p.policy != sched_policy::normal || !p_.feat(feature::wakeup_preemption))
                return false;
        } else if (!p_.feat(feature::wakeup_preemption)) {
            return false;
        }
        // The two tasks' ancestors on their first common queue decide.
        sched_entity* pse = &p.se;
        find_matching_se(se, pse);
        if (se_is_idle(*se) && !se_is_idle(*pse)) {
            // f553741ac8c0: a preempted SCHED_IDLE entity keeps no slice protection.
            if (p_.carries(idle_loses_protection))
                eevdf::cancel_protect_slice(p_, *se);
            return true;
        }
        // 6.12+: an idle wakee, or a BATCH / IDLE one, does not preempt.
        if (se_is_idle(*se) != se_is_idle(*pse) || p.policy != sched_policy::normal)
            return false;
        cfs_rq& q = cfs_rq_of(*se);
        update_curr(q);
        if (p_.eevdf())
            return eevdf_wakeup_preempts(q, *pse, *se, flags);
        if (cfs::wakeup_preempt_entity(p_, *se, *pse) != 1)
            return false;
        if (!next_buddy_marked)
            set_next_buddy(*pse);
        return true;
    }

    // The EEVDF wakeup decision: would pick_eevdf() choose the wakee now?
    bool eevdf_wakeup_preempts(cfs_rq& q, sched_entity& pse, sched_entity& se, wake_flags flags) {
        const bool fork = has(flags, wake_flags::fork);
        if (p_.since(6, 17)) {
            const bool shorter = p_.feat(feature::preempt_short) && pse.slice < se.slice;
            // 6.19, 6.18.33 (e837456fdca8), past the PREEMPT_SHORT test: a fork or a delayed wakee
            // never preempts; NEXT_BUDDY marks the wakee unless the buddy's deadline is
            // earlier (set_preempt_buddy), and pick_eevdf() then honours it; a sync wakeup
            // that marked it is decided by preempt_sync() instead.
            if (p_.reworked_next_buddy() && !shorter) {
                if (fork || pse.sched_delayed)
                    return false;
                if (p_.feat(feature::next_buddy) &&
                    !(q.next != nullptr && vtime_before(q.next->deadline, pse.deadline))) {
                    set_next_buddy(pse);
                    if (has(flags, wake_flags::sync))
                        return preempt_sync(q, pse, se, flags);
                }
            }
            if (wakeup_pick(q, !shorter) == &pse) {
                if (shorter)
                    eevdf::cancel_protect_slice(p_, se);
                return true;
            }
            // 6.17-6.18 shrink the protection for a shorter-slice wakee, 6.19 (6.18.33) for any.
            if (p_.feat(feature::run_to_parity) && (shorter || p_.reworked_next_buddy()))
                eevdf::update_protect_slice(p_, q, se);
            return false;
        }
        if (p_.since(6, 12) && eevdf::do_preempt_short(p_, q, pse, se))
            eevdf::cancel_protect_slice(p_, se);
        return eevdf::pick_eevdf(p_, q) == &pse;
    }

    // The wakeup's pick. 6.18.33 (ac8e69e69363, 9f6d929ee2c6; 7.1) picks as
    // pick_next_entity() does: a delayed entity picked is dequeued for real, and the pick
    // is made again while the queue has entities; before, the delayed one stood in the
    // wakee's way.
    sched_entity* wakeup_pick(cfs_rq& q, bool protect) {
        sched_entity* se = eevdf::pick_eevdf(p_, q, protect);
        while (se->sched_delayed && p_.carries(wakeup_pick_dequeues_delayed)) {
            dequeue_entities(*se, dequeue_flags::sleep | dequeue_flags::delayed);
            if (q.nr_queued == 0)
                return nullptr;
            se = eevdf::pick_eevdf(p_, q, protect);
        }
        return se;
    }

    // preempt_sync() (6.19, 6.18.33): the sleeping-soon waker gives way to an earlier
    // deadline only once it has run migration_cost (a quarter of it when the wakee's CPU
    // was chosen for it) since exec_start. The kernel reads exec_start after update_curr()
    // has just set it to the clock, so this never preempts; no protection changes either.
    bool preempt_sync(const cfs_rq& q, const sched_entity& pse, const sched_entity& se,
                      wake_flags flags) const {
        const duration threshold =
            has(flags, wake_flags::rq_selected) ? p_.tun.migration_cost / 4 : p_.tun.migration_cost;
        const duration delta = std::max<duration>(rq_of(q).clock_task - se.exec_start, 0);
        return vtime_before(pse.deadline, se.deadline) && delta >= threshold;
    }

    // pick_next_entity(): buddies first, then the policy's pick. A delayed entity that
    // gets picked is dequeued for real and the pick starts over (nullptr).
    sched_entity* pick_next_entity(cfs_rq& q, sched_entity* curr) {
        if (!p_.eevdf()) {
            sched_entity* se = cfs::pick_next_entity(p_, q, curr);
            if (!p_.since(5, 14))
                cfs::clear_buddies(q, *se);
            return se;
        }
        // The buddy is honoured under buddy_. 6.19, 6.18.33 (e837456fdca8) moved the test into
        // pick_eevdf().
        sched_entity* se = nullptr;
        if (!p_.reworked_next_buddy() && p_.feat(buddy_) && q.next != nullptr &&
            entity_eligible(q, *q.next))
            se = q.next;
        else
            se = eevdf::pick_eevdf(p_, q);
        if (se->sched_delayed) {
            dequeue_entities(*se, dequeue_flags::sleep | dequeue_flags::delayed);
            return nullptr;
        }
        return se;
    }

    // requeue_delayed_entity() (6.12+): the task woke while still queued.
    void requeue_delayed_entity(sched_entity& se) {
        cfs_rq& q = cfs_rq_of(se);
        if (p_.feat(feature::delay_zero)) {
            eevdf::update_entity_lag(p_, q, se);
            if (se.vlag > 0) {
                --q.nr_queued;
                if (&se != q.curr)
                    timeline_erase(q, se);
                eevdf::set_vlag(p_, se, 0);
                eevdf::place_entity(p_, q, se, enqueue_flags::none);
                if (&se != q.curr)
                    timeline_insert(q, se);
                ++q.nr_queued;
            }
        }
        update_load_avg(p_, q, se, update_load_flags::none); // waited as delayed until now
        clear_delayed(se);
    }

    fair_params p_;
    // The flag under which the EEVDF pick honours the next buddy: NEXT_BUDDY (off) until
    // PICK_BUDDY (on) took over (2a77e4be12cb: 6.14, 6.12.13, 6.13.2). Fixed by the release.
    feature buddy_;
    select_task_rq_fair* placement_ = nullptr;
    dl_server_account* server_ = nullptr;
};

} // namespace libsched
