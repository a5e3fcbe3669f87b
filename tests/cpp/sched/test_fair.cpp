// sched/fair.hpp: task-level sequences of the fair class on one rq. DELAY_DEQUEUE (6.12+)
// keeps an ineligible sleeper queued until a pick reaches it; reweighting keeps lag in
// service terms, on and off the queue, as each release does.
#include <array>
#include <catch2/catch.hpp>
#include <libsched/sched/fair.hpp>
#include <optional>

using namespace libsched;

namespace test_fair {

namespace {

constexpr duration ms = nsec_per_msec;

// One CPU's rq and its fair class, driven as the core scheduler drives them.
struct fair_cpu {
    explicit fair_cpu(const fair_params& p) : fc(p), r(0, fc.params()) {}
    // sched_fork() + wake_up_new_task()
    void fork(task& t, bool idle = false) {
        t.sched_class = &fc;
        t.se.cfs_rq = &r.cfs;
        t.se.idle = idle;
        t.se.load = task_load_weight(t.nice, idle);
        t.state = task_state::runnable;
        fc.task_fork(r, t);
        fc.enqueue_task(r, t,
                        fc.params().since(6, 12) ? enqueue_flags::initial : enqueue_flags::none);
    }
    // try_to_wake_up() of a task that has not run here yet, and its wakeup_preempt().
    void wake(task& t) {
        t.sched_class = &fc;
        t.se.cfs_rq = &r.cfs;
        t.se.load = task_load_weight(t.nice, false);
        t.state = task_state::runnable;
        fc.enqueue_task(r, t, enqueue_flags::wakeup);
        fc.wakeup_preempt(r, t, wake_flags::none);
    }
    // __schedule()'s pick and switch.
    task& switch_to_next() {
        task* next = fc.pick_next_task(r, *r.curr);
        r.curr = next != nullptr ? next : &r.idle;
        return *r.curr;
    }
    fair_sched_class fc;
    rq r;
};

// Three nice-0 tasks forked at time 0 on a 1-CPU machine at HZ 250.
struct three_tasks {
    explicit three_tasks(kernel_version v) : cpu(fair_params(v, default_tunables(v, 1, 250))) {
        a.pid = 1;
        b.pid = 2;
        c.pid = 3;
        cpu.fork(a);
        cpu.fork(b);
        cpu.fork(c);
    }
    fair_cpu cpu;
    task a, b, c;
};

// Two nice-0 tasks forked at time 0 on a 1-CPU machine at HZ 250 (slice 0.75 ms, so the
// lag limit is max(2 x 0.75 ms, TICK_NSEC 4 ms) = 4 ms). Both start at the same vruntime.
struct two_tasks {
    explicit two_tasks(kernel_version v, bool delay_zero = true)
        : cpu(make_params(v, delay_zero)), r(cpu.r), fc(cpu.fc) {
        a.pid = 1;
        b.pid = 2;
        cpu.fork(a);
        cpu.fork(b);
    }
    static fair_params make_params(kernel_version v, bool delay_zero) {
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::delay_zero, delay_zero && feature_exists(feature::delay_zero, v));
        return p;
    }
    // Picks the first task to run and lets it run for `ran`.
    task& run_first(duration ran) {
        task& t = cpu.switch_to_next();
        r.clock_task += ran;
        fc.update_curr(r);
        return t;
    }
    task& other(const task& t) { return &t == &a ? b : a; }
    // The pick after x, which must be the other task, and that task's run of `ran`.
    task& run_other(const task& x, duration ran) {
        task& y = other(x);
        REQUIRE(fc.pick_next_task(r, *r.curr) == &y);
        r.curr = &y;
        r.clock_task += ran;
        fc.update_curr(r);
        return y;
    }

    fair_cpu cpu;
    rq& r;
    fair_sched_class& fc;
    task a, b;
};

} // namespace

TEST_CASE("both new tasks start at the same vruntime") {
    two_tasks s({6, 12});
    CHECK(s.a.se.vruntime == s.b.se.vruntime);
    CHECK(s.r.cfs.nr_queued == 2);
}

TEST_CASE("6.12 DELAY_DEQUEUE: an ineligible sleeper stays queued until picked") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms); // 10 ms ahead of the other: ineligible
    task& y = s.other(x);
    REQUIRE_FALSE(entity_eligible(s.r.cfs, x.se));

    x.state = task_state::sleeping;
    CHECK_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    CHECK(x.se.on_rq);
    CHECK(x.se.sched_delayed);
    CHECK(s.r.cfs.h_nr_delayed == 1);
    CHECK(s.r.cfs.nr_queued == 2);
    CHECK(s.r.cfs.load.weight == 2 * nice_0_load); // still counts in the load

    // The next pick is the other task; x waits in the tree.
    CHECK(s.fc.pick_next_task(s.r, x) == &y);
    s.r.curr = &y;
    CHECK(x.se.sched_delayed);

    // y runs 30 ms: V = midpoint of 10 and 30 ms, so x is eligible with lag +10 ms. The
    // pick reaches x, finishes its dequeue and picks again: y, the only one left.
    s.r.clock_task += 30 * ms;
    CHECK(s.fc.pick_next_task(s.r, y) == &y);
    CHECK_FALSE(x.se.on_rq);
    CHECK_FALSE(x.se.sched_delayed);
    CHECK(s.r.cfs.h_nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 1);
    CHECK(s.r.cfs.load.weight == nice_0_load);
    CHECK(x.se.vlag == 0); // DELAY_ZERO: a positive lag is dropped
}

TEST_CASE("6.12 without DELAY_ZERO the finished dequeue keeps the clamped lag") {
    two_tasks s({6, 12}, false);
    task& x = s.run_first(10 * ms);
    task& y = s.other(x);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    REQUIRE(s.fc.pick_next_task(s.r, x) == &y);
    s.r.curr = &y;
    s.r.clock_task += 30 * ms;
    REQUIRE(s.fc.pick_next_task(s.r, y) == &y);
    CHECK(x.se.vlag == 4 * ms); // +10 ms clamped to 4 ms
}

TEST_CASE("6.12: waking a delayed task requeues it where it was") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    const u64 vruntime = x.se.vruntime;
    const u64 deadline = x.se.deadline;
    x.state = task_state::runnable;
    s.fc.enqueue_task(s.r, x, enqueue_flags::delayed);
    CHECK_FALSE(x.se.sched_delayed);
    CHECK(x.se.on_rq);
    CHECK(s.r.cfs.h_nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 2);
    // Negative lag: DELAY_ZERO leaves it alone, so vruntime and deadline stay.
    CHECK(x.se.vruntime == vruntime);
    CHECK(x.se.deadline == deadline);
}

// ac8e69e69363 with 9f6d929ee2c6 (7.1; 6.18.33, 7.0.10): the wakeup's pick dequeues a delayed
// entity it reaches and picks again, as pick_next_entity() does. x ran 10 ms and slept
// ineligible (delayed); y then ran 30 ms, so x is eligible with the earliest deadline when
// w wakes at V (20 ms). Before, the pick found x, not w, and w did not preempt y; with the
// fix x finishes its sleep there and the pick again finds w (V is now 25 ms, y at 30).
TEST_CASE("6.18.33: the wakeup's pick finishes a delayed sleeper's dequeue and picks again") {
    for (const auto& [v, fixed] :
         {std::pair{kernel_version{6, 18, 32}, false}, std::pair{kernel_version{6, 18, 33}, true},
          std::pair{kernel_version{6, 19}, false}, std::pair{kernel_version{6, 12}, false},
          std::pair{kernel_version{7, 0, 9}, false}, std::pair{kernel_version{7, 0, 10}, true}}) {
        INFO(v.str());
        two_tasks s(v);
        task& x = s.run_first(10 * ms);
        task& y = s.other(x);
        x.state = task_state::sleeping;
        REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
        REQUIRE(x.se.sched_delayed);
        REQUIRE(s.fc.pick_next_task(s.r, x) == &y);
        s.r.curr = &y;
        s.r.clock_task += 30 * ms;
        s.fc.update_curr(s.r);
        REQUIRE(entity_eligible(s.r.cfs, x.se));
        s.r.need_resched = false; // from update_curr(): only the wakeup decision is tested
        task w;
        w.pid = 3;
        s.cpu.wake(w);
        CHECK(s.r.need_resched == fixed);
        CHECK(x.se.sched_delayed != fixed);
        CHECK(x.se.on_rq != fixed);
        CHECK(s.r.cfs.nr_queued == (fixed ? 2u : 3u));
    }
}

TEST_CASE("6.12: an eligible sleeper leaves the queue at once") {
    two_tasks s({6, 12});
    task& x = s.run_first(0); // no runtime: lag 0, eligible
    REQUIRE(entity_eligible(s.r.cfs, x.se));
    x.state = task_state::sleeping;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    CHECK_FALSE(x.se.on_rq);
    CHECK(s.r.cfs.h_nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 1);
}

TEST_CASE("6.6 has no DELAY_DEQUEUE: an ineligible sleeper leaves with its negative lag") {
    two_tasks s({6, 6});
    task& x = s.run_first(10 * ms);
    REQUIRE_FALSE(entity_eligible(s.r.cfs, x.se));
    x.state = task_state::sleeping;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    CHECK_FALSE(x.se.on_rq);
    CHECK(s.r.cfs.h_nr_delayed == 0);
    CHECK(x.se.vlag == -4 * ms); // V - v = -5 ms, clamped to 4 ms
}

TEST_CASE("a dying task is dequeued at once even when ineligible (DEQUEUE_SPECIAL)") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::dead;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep | dequeue_flags::special));
    CHECK_FALSE(x.se.on_rq);
}

TEST_CASE("reweighting an off-queue entity scales its lag by old / new weight") {
    fair_cpu cpu(fair_params({6, 12}, default_tunables({6, 12}, 1, 250)));
    sched_entity se;
    se.load = task_load_weight(0, false);
    se.vlag = 1000;
    cpu.fc.reweight_entity(cpu.r.cfs, se, task_load_weight(5, false));
    CHECK(se.vlag == 3056); // 1000 * 1024 / 335 = 3056.7, truncated
    CHECK(se.load.weight == scale_load(335));
    cpu.fc.reweight_entity(cpu.r.cfs, se, task_load_weight(0, false));
    CHECK(se.vlag == 999); // 3056 * 335 / 1024 = 999.7
}

TEST_CASE("PREEMPT_SHORT: a wakee with a shorter slice cuts the running task's protection") {
    // 8 online CPUs at HZ 1000: base slice 3 ms (6.12) or 2.8 ms (6.18). The hog was forked
    // with half a slice (ENQUEUE_INITIAL) and has run 0.5 ms: it is protected (RUN_TO_PARITY)
    // and its deadline is 1.5 ms (1.4 ms) after its start. A fresh wakee is placed at V,
    // which is the hog's vruntime: both are eligible.
    for (const kernel_version v : {kernel_version{6, 12}, kernel_version{6, 18}}) {
        const auto preempts = [&](std::optional<duration> wakee_slice) {
            fair_cpu cpu(fair_params(v, default_tunables(v, 8, 1000)));
            rq& r = cpu.r;
            task hog, wakee;
            hog.pid = 1;
            wakee.pid = 2;
            cpu.fork(hog);
            REQUIRE(&cpu.switch_to_next() == &hog);
            r.clock_task += ms / 2;
            cpu.fc.update_curr(r);
            if (wakee_slice) {
                wakee.se.custom_slice = true;
                wakee.se.slice = *wakee_slice;
            }
            cpu.wake(wakee);
            return r.need_resched;
        };
        INFO(v.str());
        // Equal slices: the wakee's deadline (V + one slice) is after the hog's.
        CHECK_FALSE(preempts(std::nullopt));
        // A 0.4 ms slice: deadline V + 0.4 ms, before the hog's; PREEMPT_SHORT lets it in.
        CHECK(preempts(400'000));
    }
}

TEST_CASE("6.15 and the stable updates with f553741ac8c0: a preempted SCHED_IDLE task keeps no "
          "protection") {
    // f553741ac8c0: before it, the idle task was rescheduled but stayed protected
    // (RUN_TO_PARITY), so the pick returned it again and the wakee waited. Stable took it
    // in 6.12.23, 6.13.11 and 6.14.2.
    for (const auto& [v, wakee_runs] :
         {std::pair{kernel_version{6, 12}, false}, std::pair{kernel_version{6, 12, 22}, false},
          std::pair{kernel_version{6, 12, 23}, true}, std::pair{kernel_version{6, 13, 11}, true},
          std::pair{kernel_version{6, 14, 1}, false}, std::pair{kernel_version{6, 14, 2}, true},
          std::pair{kernel_version{6, 15}, true}, std::pair{kernel_version{6, 18}, true}}) {
        fair_cpu cpu(fair_params(v, default_tunables(v, 8, 1000)));
        rq& r = cpu.r;
        task idle, normal;
        idle.pid = 1;
        normal.pid = 2;
        idle.policy = sched_policy::idle;
        cpu.fork(idle, true);
        cpu.switch_to_next();
        r.clock_task += ms / 10;
        cpu.fc.update_curr(r);
        cpu.wake(normal);
        INFO(v.str());
        REQUIRE(r.need_resched); // a non-idle wakee always asks
        CHECK((cpu.fc.pick_next_task(r, idle) == &normal) == wakee_runs);
    }
}

TEST_CASE("6.12 renice of a delayed task: it stays queued and delayed") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep)); // delayed
    const u64 load_before = s.r.cfs.load.weight;
    // set_user_nice(): dequeue SAVE, reweight, enqueue RESTORE.
    s.fc.dequeue_task(s.r, x, dequeue_flags::save);
    s.fc.reweight_task(s.r, x, task_load_weight(5, false));
    s.fc.enqueue_task(s.r, x, enqueue_flags::restore);
    CHECK(x.se.on_rq);
    CHECK(x.se.sched_delayed);
    CHECK(s.r.cfs.h_nr_delayed == 1);
    CHECK(s.r.cfs.load.weight ==
          load_before - task_load_weight(0, false).weight + task_load_weight(5, false).weight);
}

TEST_CASE("prio_changed_fair: a lone task's renice asks for nothing") {
    const kernel_version v{5, 15};
    fair_cpu cpu(fair_params(v, default_tunables(v, 1, 250)));
    task t;
    t.pid = 1;
    cpu.fork(t);
    cpu.switch_to_next();
    cpu.r.need_resched = false;
    t.nice = 5; // less important while running
    cpu.fc.prio_changed(cpu.r, t, 0);
    CHECK_FALSE(cpu.r.need_resched);
}

TEST_CASE("reweighting a queued entity keeps its lag in service terms (6.7+), 6.6 keeps vruntime") {
    // Three nice-0 tasks; the first runs 3 ms so the other two have positive lag. Then one
    // of the waiting ones goes from weight 1024 to 335 (nice 5) while queued, as a group
    // entity does when its share changes.
    for (const kernel_version v :
         {kernel_version{6, 6}, kernel_version{6, 8}, kernel_version{6, 12}, kernel_version{6, 15},
          kernel_version{6, 18}}) {
        INFO(v.str());
        three_tasks s(v);
        fair_cpu& cpu = s.cpu;
        task &a = s.a, &b = s.b;
        task& running = cpu.switch_to_next();
        cpu.r.clock_task += 3 * ms;
        cpu.fc.update_curr(cpu.r);
        task& w = &running == &a ? b : a;
        sched_entity& se = w.se;
        REQUIRE(se.on_rq);
        cfs_rq& q = cpu.r.cfs;
        const u64 v_before = avg_vruntime(q);
        const s64 lag_before = static_cast<s64>(v_before - se.vruntime);
        REQUIRE(lag_before > 0);
        const u64 vruntime_before = se.vruntime;
        const s64 rel_deadline_before = static_cast<s64>(se.deadline - se.vruntime);

        const load_weight lw = task_load_weight(5, false);
        cpu.fc.reweight_entity(q, se, lw);
        CHECK(se.load.weight == lw.weight);
        CHECK(q.tasks_timeline.verify());
        CHECK(q.load.weight == 2 * nice_0_load + lw.weight);
        CHECK(q.nr_queued == 3);
        const u64 v_after = avg_vruntime(q);
        const s64 lag_after = static_cast<s64>(v_after - se.vruntime);
        if (v == kernel_version{6, 6}) {
            CHECK(se.vruntime == vruntime_before);
            CHECK(static_cast<s64>(se.deadline - se.vruntime) == rel_deadline_before * 1024 / 335);
        } else {
            // w * lag is what the entity is owed in real time; it survives the change, up
            // to the integer rounding of V and of the division.
            const s64 service_before = lag_before * 1024;
            const s64 service_after = lag_after * 335;
            CHECK(std::abs(service_after - service_before) <= 4 * 1024);
            CHECK(std::abs(static_cast<s64>(v_after - v_before)) <= 2);
        }
    }
}

TEST_CASE("6.18.17+: vprot is set at a pick only, and a reweight scales what is left of it") {
    // Three nice-0 tasks on one CPU (slice 0.7 ms at HZ 250); the picked one runs 0.2 ms.
    for (const kernel_version v :
         {kernel_version{6, 18, 16}, kernel_version{6, 18, 17}, kernel_version{6, 18, 45}}) {
        INFO(v.str() << "." << v.patch);
        const bool fixed = v.patch >= 17;
        const bool one_union = v.patch < 45; // vlag and vprot, until 80390ead2080
        three_tasks s(v);
        fair_cpu& cpu = s.cpu;
        task& running = cpu.switch_to_next();
        sched_entity& se = running.se;
        const u64 vprot_at_pick = se.vprot;
        REQUIRE(eevdf::protect_slice(cpu.fc.params(), se));
        cpu.r.clock_task += ms / 5;
        cpu.fc.update_curr(cpu.r);
        REQUIRE(eevdf::protect_slice(cpu.fc.params(), se));
        // A task with a 0.1 ms slice joins, without preempting.
        task d;
        d.pid = 4;
        d.se.custom_slice = true;
        d.se.slice = 100'000;
        cpu.fork(d);

        // Set again after a change (put back, then set_next_task(first = false)): 6.18.16
        // protects a new slice from here, the shortest queued (RUN_TO_PARITY): 0.1 ms;
        // 6.18.17 (bcd74b2ffdd0) keeps the pick's.
        cpu.fc.put_prev_task(cpu.r, running);
        cpu.fc.set_next_task(cpu.r, running);
        if (fixed)
            CHECK(se.vprot == vprot_at_pick);
        else
            CHECK(se.vprot == se.vruntime + 100'000);

        // Reweighted while running, to nice 5 (as a group entity's share changes): with the
        // two fields apart (6.18.45) ff38424030f9 keeps the rest relative to the new
        // vruntime, scaled by 1024 / 335. In one union the lag that reweight_entity()
        // writes first takes vprot's place, with or without ff38424030f9 (6.18.16, 6.18.17).
        const s64 left = static_cast<s64>(se.vprot - se.vruntime);
        REQUIRE(left > 0);
        cpu.fc.reweight_entity(cpu.r.cfs, se, task_load_weight(5, false));
        if (one_union)
            CHECK(se.vprot == static_cast<u64>(se.vlag));
        else
            CHECK(static_cast<s64>(se.vprot - se.vruntime) == left * 1024 / 335);
        CHECK(cpu.r.cfs.tasks_timeline.verify());
    }
}

TEST_CASE("switched_to_fair: a queued task that joins the class may preempt") {
    fair_cpu cpu(fair_params({6, 12}, default_tunables({6, 12}, 1, 250)));
    task a, b;
    a.pid = 1;
    b.pid = 2;
    cpu.fork(a);
    cpu.fork(b);
    task& running = cpu.switch_to_next();
    cpu.r.clock_task += 10 * ms; // far past its deadline: the other one is owed time
    cpu.fc.update_curr(cpu.r);
    cpu.r.need_resched = false;
    cpu.fc.switched_to(cpu.r, &running == &a ? b : a);
    CHECK(cpu.r.need_resched);
    cpu.r.need_resched = false;
    cpu.fc.switched_to(cpu.r, running); // the running one is rescheduled
    CHECK(cpu.r.need_resched);
}

TEST_CASE("balance_fair: the class has work exactly when it has queued tasks") {
    fair_cpu cpu(fair_params({6, 12}, default_tunables({6, 12}, 1, 250)));
    CHECK_FALSE(cpu.fc.balance(cpu.r, cpu.r.idle));
    task t;
    t.pid = 1;
    cpu.fork(t);
    CHECK(cpu.fc.balance(cpu.r, cpu.r.idle));
}

TEST_CASE("the hierarchical counters follow enqueue, delayed dequeue and the final dequeue") {
    two_tasks s({6, 12});
    CHECK(s.r.cfs.h_nr_queued == 2);
    task& x = s.run_first(10 * ms);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue_flags::sleep));
    CHECK(s.r.cfs.h_nr_queued == 2); // a delayed task still counts
    CHECK(s.r.cfs.h_nr_delayed == 1);
    REQUIRE(s.fc.pick_next_task(s.r, x) == &s.other(x));
    s.r.curr = &s.other(x);
    s.r.clock_task += 30 * ms;
    s.fc.pick_next_task(s.r, s.other(x)); // reaches x and finishes its dequeue
    CHECK(s.r.cfs.h_nr_queued == 1);
    CHECK(s.r.cfs.h_nr_delayed == 0);
    CHECK(s.r.cfs.h_nr_queued == s.r.cfs.nr_queued);
}

TEST_CASE("an off-queue relative deadline is scaled by the reweight from 6.13, not in 6.12") {
    for (const auto& [v, scaled] :
         {std::pair{kernel_version{6, 12}, false}, std::pair{kernel_version{6, 15}, true}}) {
        INFO(v.str());
        fair_cpu cpu(fair_params(v, default_tunables(v, 1, 250)));
        sched_entity se;
        se.load = task_load_weight(0, false);
        se.rel_deadline = true;
        se.deadline = 3'000'000; // relative to vruntime, as DEQUEUE_SAVE leaves it
        cpu.fc.reweight_entity(cpu.r.cfs, se, task_load_weight(5, false));
        CHECK(se.deadline == (scaled ? 3'000'000u * 1024 / 335 : 3'000'000u));
    }
}

namespace {

// Three nice-0 tasks on one CPU at HZ 250 (slice 0.75 ms): a and b forked at time 0, a
// picked and run for `ran`, then c woken fresh (vlag 0, so placed at V and eligible).
struct buddy_case {
    buddy_case(kernel_version v, bool next_buddy) : cpu(params(v, next_buddy)) {
        a.pid = 1;
        b.pid = 2;
        c.pid = 3;
        cpu.fork(a);
        cpu.fork(b);
        REQUIRE(&cpu.switch_to_next() == &a);
    }
    static fair_params params(kernel_version v, bool next_buddy) {
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::next_buddy, next_buddy);
        return p;
    }
    void run(duration ran) {
        cpu.r.clock_task += ran;
        cpu.fc.update_curr(cpu.r);
    }
    fair_cpu cpu;
    task a, b, c;
};

} // namespace

TEST_CASE("NEXT_BUDDY under EEVDF: the wakee is marked and picked next while eligible") {
    // check_preempt_wakeup (6.6) / check_preempt_wakeup_fair (6.12-6.18) set the non-fork
    // wakee as cfs_rq->next; pick_next_entity() returns it if eligible (NEXT_BUDDY tests it
    // there in 6.6-6.11, PICK_BUDDY from 6.12). a has run 0 when c wakes: a is eligible and
    // protected (RUN_TO_PARITY), so pick_eevdf() keeps a and the wakeup does not preempt.
    // After a runs 0.5 ms, V = V0 + 0.5/3 ms: a is ineligible, b and c (at V0) eligible. b
    // and c have the same deadline or b the earlier one (6.12+: b forked with half a slice),
    // and b is to the left, so without the buddy the pick is b; with it, c.
    for (const kernel_version v : {kernel_version{6, 6}, kernel_version{6, 12},
                                   kernel_version{6, 18}, kernel_version{6, 18, 32}}) {
        for (const bool next_buddy : {false, true}) {
            INFO(v.str() << (next_buddy ? " NEXT_BUDDY" : ""));
            buddy_case s(v, next_buddy);
            s.cpu.wake(s.c);
            CHECK_FALSE(s.cpu.r.need_resched);
            CHECK((s.cpu.r.cfs.next == &s.c.se) == next_buddy);
            s.run(ms / 2);
            CHECK(&s.cpu.switch_to_next() == (next_buddy ? &s.c : &s.b));
            CHECK(s.cpu.r.cfs.next == nullptr); // set_next_entity() cleared the buddy
        }
    }
}

TEST_CASE("NEXT_BUDDY under EEVDF marks no forked task, and an ineligible buddy waits") {
    // The WF_FORK test of check_preempt_wakeup_fair(), all releases.
    buddy_case fork({6, 6}, true);
    fork.c.sched_class = &fork.cpu.fc;
    fork.c.se.cfs_rq = &fork.cpu.r.cfs;
    fork.c.se.load = task_load_weight(0, false);
    fork.c.state = task_state::runnable;
    fork.cpu.fc.task_fork(fork.cpu.r, fork.c);
    fork.cpu.fc.enqueue_task(fork.cpu.r, fork.c, enqueue_flags::none);
    fork.cpu.fc.wakeup_preempt(fork.cpu.r, fork.c, wake_flags::fork);
    CHECK(fork.cpu.r.cfs.next == nullptr);

    // A buddy that is not eligible is passed over (entity_eligible() in pick_next_entity()):
    // a, the buddy, has run 0.5 ms beyond b's vruntime when the pick comes.
    buddy_case late({6, 6}, true);
    late.run(ms / 2);
    late.cpu.r.cfs.next = &late.a.se;
    CHECK(&late.cpu.switch_to_next() == &late.b);
}

TEST_CASE("the pick honours a next buddy under PICK_BUDDY from 6.14, 6.12.13 and 6.13.2") {
    // 2a77e4be12cb: before it pick_next_entity() tested NEXT_BUDDY (off), so a buddy set
    // another way (a sleeping task's group, dequeue_entities()) was ignored by default. As
    // in the NEXT_BUDDY case above, b is the pick without the buddy and c with it.
    for (const auto& [v, honoured] :
         {std::pair{kernel_version{6, 12}, false}, std::pair{kernel_version{6, 12, 12}, false},
          std::pair{kernel_version{6, 12, 13}, true}, std::pair{kernel_version{6, 13, 1}, false},
          std::pair{kernel_version{6, 13, 2}, true}, std::pair{kernel_version{6, 14}, true},
          std::pair{kernel_version{6, 18}, true}, std::pair{kernel_version{6, 19}, true}}) {
        INFO(v.str());
        buddy_case s(v, false);
        s.cpu.wake(s.c);
        s.run(ms / 2);
        s.cpu.r.cfs.next = &s.c.se;
        CHECK(&s.cpu.switch_to_next() == (honoured ? &s.c : &s.b));
    }
}

TEST_CASE("6.19 and 6.18.33 NEXT_BUDDY: pick_eevdf() honours the buddy, so a wakee preempts") {
    // e837456fdca8: the buddy test moved into __pick_eevdf(), ahead of curr's protection,
    // and the wakee is marked before the wakeup's own pick: c is eligible, so the wakeup
    // preempts at once. Without NEXT_BUDDY a stays protected. Linux 6.18.33 took the
    // rework (6.18.32 is 6.18, above).
    for (const kernel_version v : {kernel_version{6, 19}, kernel_version{6, 18, 33}}) {
        for (const bool next_buddy : {false, true}) {
            INFO(v.str() << (next_buddy ? " NEXT_BUDDY" : " default"));
            buddy_case s(v, next_buddy);
            s.cpu.wake(s.c);
            CHECK(s.cpu.r.need_resched == next_buddy);
            if (next_buddy)
                CHECK(&s.cpu.switch_to_next() == &s.c);
        }
    }
}

TEST_CASE("6.19: PREEMPT_SHORT comes before the fork test, so a shorter-slice child preempts") {
    // check_preempt_wakeup_fair() in 6.19 (e837456fdca8) returns for WF_FORK only after
    // its PREEMPT_SHORT test has sent a shorter-slice wakee to the pick. As in the
    // PREEMPT_SHORT case above (8 online CPUs, HZ 1000: slice 2.8 ms), the hog has run
    // 0.5 ms of its half slice; a child with a 0.4 ms slice, placed at V, has the earlier
    // deadline and is picked ignoring the hog's protection. With the default slice the
    // fork test returns first.
    for (const kernel_version v : {kernel_version{6, 19}, kernel_version{6, 18, 33}}) {
        for (const bool shorter : {false, true}) {
            INFO(v.str() << (shorter ? " 0.4 ms slice" : " default slice"));
            fair_cpu cpu(fair_params(v, default_tunables(v, 8, 1000)));
            task hog, child;
            hog.pid = 1;
            child.pid = 2;
            cpu.fork(hog);
            REQUIRE(&cpu.switch_to_next() == &hog);
            cpu.r.clock_task += ms / 2;
            cpu.fc.update_curr(cpu.r);
            if (shorter) {
                child.se.custom_slice = true;
                child.se.slice = 400'000;
            }
            cpu.fork(child);
            cpu.fc.wakeup_preempt(cpu.r, child, wake_flags::fork);
            CHECK(cpu.r.need_resched == shorter);
        }
    }
}

TEST_CASE("old CFS with HRTICK: the periodic tick leaves preemption to a pending hrtick") {
    // entity_tick() (5.0-6.5) returns before check_preempt_tick() while the hrtick timer
    // is queued (DOUBLE_TICK off). Two nice-0 tasks on one CPU: sched_slice 3 ms; the
    // running one has run 5 ms, more than its slice, so the tick would reschedule it.
    for (const bool pending : {false, true}) {
        INFO((pending ? "hrtick pending" : "no hrtick"));
        const kernel_version v{5, 15};
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::hrtick, true);
        fair_cpu cpu(p);
        task a, b;
        cpu.fork(a);
        cpu.fork(b);
        task& curr = cpu.switch_to_next();
        cpu.r.clock_task += 5 * ms;
        cpu.r.hrtick_active = pending;
        cpu.fc.task_tick(cpu.r, curr, false);
        CHECK(cpu.r.need_resched == !pending);
    }
}

TEST_CASE("old CFS with HRTICK: an enqueue re-arms the timer only below sched_nr_latency") {
    // hrtick_update() (5.0-6.5): after an enqueue, hrtick_start_fair() only while
    // nr_running < sched_nr_latency (8); the pick always arms it. 6.6 dropped the test.
    for (const kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6}}) {
        INFO(v.str());
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::hrtick, true);
        fair_cpu cpu(p);
        std::array<task, 8> tasks;
        for (task& t : tasks)
            cpu.fork(t);
        cpu.switch_to_next();
        CHECK(cpu.fc.hrtick_delay(cpu.r, false));
        CHECK(cpu.fc.hrtick_delay(cpu.r, true).has_value() == v.is_eevdf());
    }
}

namespace {

// One CPU with two cpu cgroups, a and b, under the root, each holding its tasks' entities
// (as the core's set_task_rq() attaches them).
struct two_groups {
    explicit two_groups(kernel_version v)
        : fc(fair_params(v, default_tunables(v, 1, 250))), r(0, fc.params()),
          root(std::vector<rq*>{&r}), a(root, "a", {&r}, v.is_eevdf()),
          b(root, "b", {&r}, v.is_eevdf()) {}
    void attach(task& t, task_group& g) {
        t.sched_class = &fc;
        t.se.cfs_rq = g.cfs_rq[0];
        t.se.parent = g.se[0];
        t.se.depth = 1;
        t.se.idle = t.policy == sched_policy::idle;
        t.se.load = task_load_weight(t.nice, t.se.idle);
        t.state = task_state::runnable;
    }
    // curr forks in a and runs; the wakee then wakes in b, whose entity comes back far
    // right of a's (old CFS: 50 ms of vruntime ahead, beyond the sleeper credit; EEVDF: a
    // lag of -4 ms, so it is not eligible): on their common queue b's entity never wins.
    bool wakeup_preempts(task& curr, task& wakee) {
        attach(curr, a);
        fc.task_fork(r, curr);
        fc.enqueue_task(r, curr,
                        fc.params().since(6, 12) ? enqueue_flags::initial : enqueue_flags::none);
        r.curr = fc.pick_next_task(r, *r.curr);
        REQUIRE(r.curr == &curr);
        attach(wakee, b);
        if (fc.params().eevdf())
            b.se[0]->vlag = -4 * static_cast<s64>(ms);
        else
            b.se[0]->vruntime = r.cfs.min_vruntime + 50 * ms;
        fc.enqueue_task(r, wakee, enqueue_flags::wakeup);
        fc.wakeup_preempt(r, wakee, wake_flags::none);
        return r.need_resched;
    }
    fair_sched_class fc;
    rq r;
    task_group root, a, b;
};

constexpr std::array<kernel_version, 9> wakeup_releases = {
    {{5, 15}, {6, 1}, {6, 6}, {6, 8}, {6, 11}, {6, 12}, {6, 14}, {6, 18}, {6, 19}}};

} // namespace

TEST_CASE("a switch between two tasks of one group leaves the group's entity running") {
    // pick_next_task_fair() puts prev and sets next only on the levels below the queue the
    // two share: a's entity, running on the root queue before and after, keeps its buddy
    // mark (from 5.14, 21f56ffe4482, set_next_entity() clears it; before, the pick did,
    // curr picked again or not) and, under EEVDF, its protected slice.
    for (const kernel_version v :
         {kernel_version{5, 10}, kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 12},
          kernel_version{6, 18}}) {
        INFO(v.str());
        two_groups g(v);
        task t1, t2;
        for (task* t : {&t1, &t2}) {
            g.attach(*t, g.a);
            g.fc.task_fork(g.r, *t);
            g.fc.enqueue_task(
                g.r, *t, v >= kernel_version{6, 12} ? enqueue_flags::initial : enqueue_flags::none);
        }
        task* first = g.fc.pick_next_task(g.r, *g.r.curr);
        REQUIRE(first != nullptr);
        g.r.curr = first;
        sched_entity& group = *g.a.se[0];
        g.r.cfs.next = &group; // as a sleeping task's dequeue marks its group
        const sched_entity before = group;
        g.r.clock_task += 4 * ms; // past the other task (old CFS forked it 3 ms further right)
        g.fc.update_curr(g.r);
        task* second = g.fc.pick_next_task(g.r, *first);
        REQUIRE(second != nullptr);
        REQUIRE(second != first);
        CHECK((g.r.cfs.next == &group) == (v >= kernel_version{5, 14}));
        CHECK(g.r.cfs.curr == &group);
        if (v.is_eevdf()) {
            CHECK(group.vprot == before.vprot);
            CHECK(group.vlag == before.vlag); // 6.6-6.16: the RUN_TO_PARITY marker
        }
    }
}

TEST_CASE("before 6.12 a SCHED_IDLE curr yields to any other wakee, whatever their groups") {
    // check_preempt_wakeup() up to 6.11 tests task_has_idle_policy(curr) before
    // find_matching_se(); 6.12 (faa42d29419d) compares the matched entities instead, and
    // group a's (normal) entity is not preempted by group b's. A SCHED_NORMAL curr in the
    // same place is never preempted.
    for (const kernel_version v : wakeup_releases) {
        INFO(v.str());
        two_groups idle_curr(v);
        task i, w;
        i.policy = sched_policy::idle;
        CHECK(idle_curr.wakeup_preempts(i, w) == (v < kernel_version{6, 12}));
        two_groups normal_curr(v);
        task n, w2;
        CHECK_FALSE(normal_curr.wakeup_preempts(n, w2));
    }
}

TEST_CASE("before 6.12 a SCHED_BATCH wakee does not preempt even an idle group (cpu.idle)") {
    // Up to 6.11 the wakee's policy is tested before the entities: BATCH returns first. 6.12
    // (faa42d29419d) tests the idle entity first, and a's idle entity yields to b's. A
    // SCHED_NORMAL wakee preempts the idle group in every release.
    for (const kernel_version v : wakeup_releases) {
        for (const sched_policy policy : {sched_policy::batch, sched_policy::normal}) {
            INFO(v.str() << (policy == sched_policy::batch ? " SCHED_BATCH" : " SCHED_NORMAL"));
            two_groups s(v);
            s.fc.group_set_idle(s.a, true);
            task c, w;
            w.policy = policy;
            CHECK(s.wakeup_preempts(c, w) ==
                  (policy == sched_policy::normal || v >= kernel_version{6, 12}));
        }
    }
}

TEST_CASE("WAKEUP_PREEMPTION off: a SCHED_IDLE curr is still preempted before 6.12") {
    // Up to 6.11 the idle-policy test comes before the feature test; 6.12 (faa42d29419d)
    // tests the feature first. Both tasks in the root group.
    for (const kernel_version v : wakeup_releases) {
        INFO(v.str());
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::wakeup_preemption, false);
        fair_cpu cpu(p);
        task i, w;
        i.policy = sched_policy::idle;
        cpu.fork(i, true);
        REQUIRE(&cpu.switch_to_next() == &i);
        cpu.wake(w);
        CHECK(cpu.r.need_resched == (v < kernel_version{6, 12}));
    }
}

TEST_CASE("old CFS: a sleeper preempts only past the wakeup granularity in its own virtual time") {
    // 5.15 on one CPU (factor 1): latency 6 ms, so a sleeper is placed at most 3 ms
    // (GENTLE_FAIR_SLEEPERS) left of min_vruntime, which is curr's vruntime here;
    // wakeup_granularity 1 ms. check_preempt_wakeup() preempts iff curr - wakee > the
    // granularity converted to the wakee's virtual time: 1 ms for nice 0, 1 ms * 1024 / 335
    // = 3.06 ms for nice 5, which is more than the whole sleeper credit.
    const kernel_version v{5, 15};
    const auto preempts = [&](int nice, s64 left_of_curr) {
        fair_cpu cpu(fair_params(v, default_tunables(v, 1, 250)));
        task c, w;
        cpu.fork(c);
        REQUIRE(&cpu.switch_to_next() == &c);
        cpu.r.clock_task += 10 * ms;
        cpu.fc.update_curr(cpu.r);
        w.nice = nice;
        w.se.vruntime = c.se.vruntime - static_cast<u64>(left_of_curr);
        cpu.wake(w);
        return cpu.r.need_resched;
    };
    CHECK_FALSE(preempts(0, 1'000'000)); // exactly the granularity: not more
    CHECK(preempts(0, 1'000'001));
    CHECK(preempts(0, 100 * ms)); // long sleep: clamped to 3 ms, still past 1 ms
    CHECK_FALSE(preempts(5, 100 * ms));
    CHECK_FALSE(preempts(0, -1)); // right of curr
}

TEST_CASE("EEVDF: a wakee with the earlier deadline but not eligible does not preempt") {
    // One CPU at HZ 250, RUN_TO_PARITY off so that curr is not protected. Nice-0 curr c
    // has run 0.1 ms of its request (deadline 0.75 ms after its start, 0.375 ms from 6.12,
    // which forks with half a slice): 0.275 ms or more of its deadline is ahead. The
    // nice -10 wakee w (weight 9548) has a virtual slice of 0.75 ms * 1024 / 9548 = 80 us
    // and wakes with a saved lag of -10 us: place_entity() inflates it by (1024 + 9548) /
    // 1024 to 103 us right of c (V before it), and V then moves 9548 / 10572 of that, so
    // w stays 10 us right of V: not eligible, with its deadline 183 us after c's vruntime,
    // before c's. pick_eevdf() keeps c. With no lag w is at V, eligible, and preempts;
    // with RUN_TO_PARITY on c's protection keeps it.
    for (const kernel_version v : {kernel_version{6, 6}, kernel_version{6, 8},
                                   kernel_version{6, 12}, kernel_version{6, 14}}) {
        const auto preempts = [&](s64 lag, bool run_to_parity) {
            fair_params p(v, default_tunables(v, 1, 250));
            p.feat.set(feature::run_to_parity, run_to_parity);
            fair_cpu cpu(p);
            task c, w;
            cpu.fork(c);
            REQUIRE(&cpu.switch_to_next() == &c);
            cpu.r.clock_task += ms / 10;
            cpu.fc.update_curr(cpu.r);
            w.nice = -10;
            w.se.vlag = lag;
            cpu.wake(w);
            if (lag != 0) {
                REQUIRE_FALSE(entity_eligible(cpu.r.cfs, w.se));
                REQUIRE(static_cast<s64>(w.se.deadline - c.se.deadline) < 0);
            }
            return cpu.r.need_resched;
        };
        INFO(v.str());
        CHECK_FALSE(preempts(-10'000, false));
        CHECK(preempts(0, false));
        CHECK_FALSE(preempts(0, true));
    }
}

TEST_CASE("sched_yield() of a task alone on its CPU changes nothing") {
    // yield_task_fair() returns at once when rq->nr_running is 1, in every release.
    for (const kernel_version v :
         {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 19}}) {
        INFO(v.str());
        fair_cpu cpu(fair_params(v, default_tunables(v, 1, 250)));
        task a;
        cpu.fork(a);
        REQUIRE(&cpu.switch_to_next() == &a);
        cpu.r.clock_task += ms;
        const sched_entity before = a.se;
        cpu.fc.yield_task(cpu.r);
        CHECK(a.se.sum_exec_runtime == before.sum_exec_runtime); // not even charged
        CHECK(a.se.vruntime == before.vruntime);
        CHECK(a.se.deadline == before.deadline);
        CHECK(cpu.r.cfs.skip == nullptr);
    }
}

TEST_CASE("EEVDF sched_yield(): the deadline moves a slice on, from 79104becf42b an eligible "
          "task forfeits the rest of its slice instead, an ineligible one keeps everything") {
    // yield_task_fair() after update_curr(): 6.6-6.18 deadline += calc_delta_fair(slice);
    // 6.19 and the stable updates 6.12.63, 6.17.13 and 6.18.2, only if entity_eligible(),
    // vruntime = deadline and then the same. x runs 2 ms, then y 0.2 ms: V is 1.1 ms past
    // the start, x is ineligible and y the only eligible task.
    for (const auto& [v, forfeit] :
         {std::pair{kernel_version{6, 6}, false}, std::pair{kernel_version{6, 12, 62}, false},
          std::pair{kernel_version{6, 17, 12}, false}, std::pair{kernel_version{6, 18, 1}, false},
          std::pair{kernel_version{6, 19}, true}, std::pair{kernel_version{6, 12, 63}, true},
          std::pair{kernel_version{6, 17, 13}, true}, std::pair{kernel_version{6, 18, 2}, true}}) {
        INFO(v.str());
        two_tasks s(v);
        task& x = s.run_first(2 * ms);
        const u64 slice = static_cast<u64>(x.se.slice); // nice 0: a virtual slice is a slice
        REQUIRE_FALSE(entity_eligible(s.r.cfs, x.se));
        const u64 xv = x.se.vruntime, xd = x.se.deadline;
        s.fc.yield_task(s.r);
        CHECK(x.se.vruntime == xv);
        CHECK(x.se.deadline == (forfeit ? xd : xd + slice));
        task& y = s.run_other(x, ms / 5);
        REQUIRE(entity_eligible(s.r.cfs, y.se));
        const u64 yv = y.se.vruntime, yd = y.se.deadline;
        REQUIRE(vtime_before(yv, yd));
        s.fc.yield_task(s.r);
        if (forfeit) {
            // y gives up what is left of its request.
            CHECK(y.se.vruntime == yd);
            CHECK(y.se.deadline == yd + slice);
            continue;
        }
        // y stays the only eligible task: the pick takes it again, its deadline a slice
        // further on at each yield (the run-away the commit fixed).
        for (u64 k = 1; k <= 3; ++k) {
            CHECK(y.se.vruntime == yv);
            CHECK(y.se.deadline == yd + k * slice);
            CHECK(&s.cpu.switch_to_next() == &y);
            s.fc.yield_task(s.r);
        }
    }
}

TEST_CASE("old CFS sched_yield(): the task is charged and becomes the skip buddy, a "
          "SCHED_BATCH task is not charged first") {
    // yield_task_fair() before 6.6: update_curr() unless SCHED_BATCH, then set_skip_buddy().
    // START_DEBIT forks b 3 ms and a 6 ms of vruntime past min_vruntime: b runs first.
    // After 2.5 ms b is still the leftmost, 0.5 ms left of a: within the wakeup
    // granularity (1 ms on 1 CPU), so the pick passes over b for a only if b yielded.
    for (const bool yield : {false, true}) {
        for (const sched_policy policy : {sched_policy::normal, sched_policy::batch}) {
            INFO(policy_name(policy) << (yield ? ", yields" : ""));
            two_tasks s({5, 15});
            task& t = s.cpu.switch_to_next();
            REQUIRE(&t == &s.b);
            t.policy = policy;
            s.r.clock_task += 5 * ms / 2;
            if (!yield) {
                CHECK(&s.cpu.switch_to_next() == &t);
                continue;
            }
            s.fc.yield_task(s.r);
            CHECK(s.r.cfs.skip == &t.se);
            CHECK(t.se.sum_exec_runtime == (policy == sched_policy::batch ? 0 : 5 * ms / 2));
            CHECK(&s.cpu.switch_to_next() == &s.a);
            // The mark stays until t is picked: a, running, is the second while b, the
            // leftmost, is within the granularity of it ...
            CHECK(&s.cpu.switch_to_next() == &s.a);
            CHECK(s.r.cfs.skip == &t.se);
            // ... and no longer once a is more than 1 ms right of b.
            s.r.clock_task += ms;
            CHECK(&s.cpu.switch_to_next() == &s.b);
            CHECK(s.r.cfs.skip == nullptr);
        }
    }
}

TEST_CASE("6.12+: a group entity takes the shortest slice queued below it") {
    // aef6987d8954: enqueue_task_fair() and dequeue_entities() give each group entity the
    // shortest slice of its own queue, and the tree it sits in follows (563bc2161b94).
    // Group a holds a task with the base slice; a 0.2 ms task wakes beside it and sleeps
    // again. Nothing runs, so a's entity stays in the root tree.
    for (const kernel_version v : {kernel_version{6, 11}, kernel_version{6, 12},
                                   kernel_version{6, 14, 2}, kernel_version{6, 18}}) {
        INFO(v.str());
        two_groups g(v);
        const duration base = g.fc.params().tun.base_slice;
        task plain, short_slice;
        g.attach(plain, g.a);
        g.fc.task_fork(g.r, plain);
        g.fc.enqueue_task(g.r, plain, enqueue_flags::wakeup);
        sched_entity& group = *g.a.se[0];
        CHECK(group.slice == base);
        g.attach(short_slice, g.a);
        short_slice.se.custom_slice = true;
        short_slice.se.slice = 200'000;
        g.fc.enqueue_task(g.r, short_slice, enqueue_flags::wakeup);
        const bool propagates = v >= kernel_version{6, 12};
        CHECK(group.slice == (propagates ? 200'000 : base));
        CHECK(eevdf::cfs_rq_min_slice(g.r.cfs) == group.slice);
        CHECK(g.r.cfs.tasks_timeline.verify());
        // Placed at V with no lag, it is eligible and leaves at once (no DELAY_DEQUEUE).
        REQUIRE(g.fc.dequeue_task(g.r, short_slice, dequeue_flags::sleep));
        CHECK(group.slice == base);
        CHECK(eevdf::cfs_rq_min_slice(g.r.cfs) == base);
        CHECK(g.r.cfs.tasks_timeline.verify());
    }
}

TEST_CASE("6.12+: PREEMPT_SHORT across groups: the wakee's group entity carries its slice") {
    // A hog in group b has run 0.1 ms of its slice (1 CPU at HZ 250: 0.75 ms, 0.70 ms on
    // 6.18) and is protected. A task with a 0.2 ms slice wakes in group a. Its group entity,
    // placed at V with that slice, has the earlier deadline and PREEMPT_SHORT cuts b's
    // protection; with the base slice (as every group entity had before the slices were
    // propagated) a's deadline is after b's and the hog runs on.
    for (const kernel_version v : {kernel_version{6, 12}, kernel_version{6, 18}}) {
        for (const bool custom : {false, true}) {
            INFO(v.str() << (custom ? " 0.2 ms slice" : " base slice"));
            two_groups g(v);
            task hog, wakee;
            g.attach(hog, g.b);
            g.fc.task_fork(g.r, hog);
            g.fc.enqueue_task(g.r, hog, enqueue_flags::initial);
            g.r.curr = g.fc.pick_next_task(g.r, *g.r.curr);
            REQUIRE(g.r.curr == &hog);
            g.r.clock_task += ms / 10;
            g.fc.update_curr(g.r);
            g.attach(wakee, g.a);
            if (custom) {
                wakee.se.custom_slice = true;
                wakee.se.slice = 200'000;
            }
            g.fc.enqueue_task(g.r, wakee, enqueue_flags::wakeup);
            g.fc.wakeup_preempt(g.r, wakee, wake_flags::none);
            CHECK(g.a.se[0]->slice == wakee.se.slice);
            CHECK(g.r.need_resched == custom);
        }
    }
}

} // namespace test_fair
