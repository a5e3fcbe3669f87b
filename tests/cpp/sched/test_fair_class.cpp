// sched/fair_class.hpp: task-level sequences on one rq. DELAY_DEQUEUE (6.12+) keeps an
// ineligible sleeper queued until a pick reaches it; reweighting keeps lag in service terms.
#include <catch2/catch.hpp>
#include <libsched/sched/fair_class.hpp>
#include <optional>

using namespace libsched;

namespace {

constexpr duration ms = nsec_per_msec;

// Two nice-0 tasks forked at time 0 on a 1-CPU machine at HZ 250 (slice 0.75 ms, so the
// lag limit is max(2 x 0.75 ms, TICK_NSEC 4 ms) = 4 ms). Both start at the same vruntime.
struct two_tasks {
    explicit two_tasks(kernel_version v, bool delay_zero = true)
        : r(0, true), fc(make_params(v, delay_zero)) {
        a.pid = 1;
        b.pid = 2;
        a.state = b.state = task_state::runnable;
        a.se.load = b.se.load = task_load_weight(0, false);
        fc.wake_up_new_task(r, a);
        fc.wake_up_new_task(r, b);
    }
    static fair_params make_params(kernel_version v, bool delay_zero) {
        fair_params p(v, default_tunables(v, 1, 250));
        p.feat.set(feature::delay_zero, delay_zero && feature_exists(feature::delay_zero, v));
        return p;
    }
    // Picks the first task to run and lets it run for `ran`.
    task& run_first(duration ran) {
        task* t = fc.pick_next_task(r, nullptr);
        r.curr = t;
        r.clock_task += ran;
        fc.update_curr(r);
        return *t;
    }
    task& other(const task& t) { return &t == &a ? b : a; }

    rq r;
    fair_class fc;
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
    CHECK_FALSE(s.fc.dequeue_task(s.r, x, dequeue::sleep));
    CHECK(x.se.on_rq);
    CHECK(x.se.sched_delayed);
    CHECK(s.r.cfs.nr_delayed == 1);
    CHECK(s.r.cfs.nr_queued == 2);
    CHECK(s.r.cfs.load.weight == 2 * nice_0_load); // still counts in the load

    // The next pick is the other task; x waits in the tree.
    CHECK(s.fc.pick_next_task(s.r, &x) == &y);
    s.r.curr = &y;
    CHECK(x.se.sched_delayed);

    // y runs 30 ms: V = midpoint of 10 and 30 ms, so x is eligible with lag +10 ms. The
    // pick reaches x, finishes its dequeue and picks again: y, the only one left.
    s.r.clock_task += 30 * ms;
    CHECK(s.fc.pick_next_task(s.r, &y) == &y);
    CHECK_FALSE(x.se.on_rq);
    CHECK_FALSE(x.se.sched_delayed);
    CHECK(s.r.cfs.nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 1);
    CHECK(s.r.cfs.load.weight == nice_0_load);
    CHECK(x.se.vlag == 0); // DELAY_ZERO: a positive lag is dropped
}

TEST_CASE("6.12 without DELAY_ZERO the finished dequeue keeps the clamped lag") {
    two_tasks s({6, 12}, false);
    task& x = s.run_first(10 * ms);
    task& y = s.other(x);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue::sleep));
    REQUIRE(s.fc.pick_next_task(s.r, &x) == &y);
    s.r.curr = &y;
    s.r.clock_task += 30 * ms;
    REQUIRE(s.fc.pick_next_task(s.r, &y) == &y);
    CHECK(x.se.vlag == 4 * ms); // +10 ms clamped to 4 ms
}

TEST_CASE("6.12: waking a delayed task requeues it where it was") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue::sleep));
    const u64 vruntime = x.se.vruntime;
    const u64 deadline = x.se.deadline;
    x.state = task_state::runnable;
    s.fc.enqueue_task(s.r, x, enqueue::delayed);
    CHECK_FALSE(x.se.sched_delayed);
    CHECK(x.se.on_rq);
    CHECK(s.r.cfs.nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 2);
    // Negative lag: DELAY_ZERO leaves it alone, so vruntime and deadline stay.
    CHECK(x.se.vruntime == vruntime);
    CHECK(x.se.deadline == deadline);
}

TEST_CASE("6.12: an eligible sleeper leaves the queue at once") {
    two_tasks s({6, 12});
    task& x = s.run_first(0); // no runtime: lag 0, eligible
    REQUIRE(entity_eligible(s.r.cfs, x.se));
    x.state = task_state::sleeping;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue::sleep));
    CHECK_FALSE(x.se.on_rq);
    CHECK(s.r.cfs.nr_delayed == 0);
    CHECK(s.r.cfs.nr_queued == 1);
}

TEST_CASE("6.6 has no DELAY_DEQUEUE: an ineligible sleeper leaves with its negative lag") {
    two_tasks s({6, 6});
    task& x = s.run_first(10 * ms);
    REQUIRE_FALSE(entity_eligible(s.r.cfs, x.se));
    x.state = task_state::sleeping;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue::sleep));
    CHECK_FALSE(x.se.on_rq);
    CHECK(s.r.cfs.nr_delayed == 0);
    CHECK(x.se.vlag == -4 * ms); // V - v = -5 ms, clamped to 4 ms
}

TEST_CASE("a dying task is dequeued at once even when ineligible (DEQUEUE_SPECIAL)") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::dead;
    CHECK(s.fc.dequeue_task(s.r, x, dequeue::sleep | dequeue::special));
    CHECK_FALSE(x.se.on_rq);
}

TEST_CASE("reweighting an off-queue entity scales its lag by old / new weight") {
    fair_class fc(fair_params({6, 12}, default_tunables({6, 12}, 1, 250)));
    sched_entity se;
    se.load = task_load_weight(0, false);
    se.vlag = 1000;
    fc.reweight_dequeued(se, task_load_weight(5, false));
    CHECK(se.vlag == 3056); // 1000 * 1024 / 335 = 3056.7, truncated
    CHECK(se.load.weight == scale_load(335));
    fc.reweight_dequeued(se, task_load_weight(0, false));
    CHECK(se.vlag == 999); // 3056 * 335 / 1024 = 999.7
}

TEST_CASE("PREEMPT_SHORT: a wakee with a shorter slice cuts the running task's protection") {
    // 8 online CPUs at HZ 1000: base slice 3 ms (6.12) or 2.8 ms (6.18). The hog was forked
    // with half a slice (ENQUEUE_INITIAL) and has run 0.5 ms: it is protected (RUN_TO_PARITY)
    // and its deadline is 1.5 ms (1.4 ms) after its start. A fresh wakee is placed at V,
    // which is the hog's vruntime: both are eligible.
    for (const kernel_version v : {kernel_version{6, 12}, kernel_version{6, 18}}) {
        const auto preempts = [&](std::optional<duration> wakee_slice) {
            rq r(0, true);
            fair_class fc(fair_params(v, default_tunables(v, 8, 1000)));
            task hog, wakee;
            hog.pid = 1;
            wakee.pid = 2;
            hog.state = wakee.state = task_state::runnable;
            hog.se.load = wakee.se.load = task_load_weight(0, false);
            fc.wake_up_new_task(r, hog);
            r.curr = fc.pick_next_task(r, nullptr);
            REQUIRE(r.curr == &hog);
            r.clock_task += ms / 2;
            fc.update_curr(r);
            if (wakee_slice) {
                wakee.se.custom_slice = true;
                wakee.se.slice = *wakee_slice;
            }
            fc.enqueue_task(r, wakee, enqueue::wakeup);
            fc.wakeup_preempt(r, wakee, 0);
            return r.need_resched;
        };
        INFO(v.str());
        // Equal slices: the wakee's deadline (V + one slice) is after the hog's.
        CHECK_FALSE(preempts(std::nullopt));
        // A 0.4 ms slice: deadline V + 0.4 ms, before the hog's; PREEMPT_SHORT lets it in.
        CHECK(preempts(400'000));
    }
}

TEST_CASE("6.15+: a SCHED_IDLE task preempted by a normal wakee keeps no protection") {
    // f553741ac8c0: before it, the idle task was rescheduled but stayed protected
    // (RUN_TO_PARITY), so the pick returned it again and the wakee waited.
    for (const auto& [v, wakee_runs] :
         {std::pair{kernel_version{6, 12}, false}, std::pair{kernel_version{6, 15}, true},
          std::pair{kernel_version{6, 18}, true}}) {
        rq r(0, true);
        fair_class fc(fair_params(v, default_tunables(v, 8, 1000)));
        task idle, normal;
        idle.pid = 1;
        normal.pid = 2;
        idle.policy = sched_policy::idle;
        idle.state = normal.state = task_state::runnable;
        idle.se.load = task_load_weight(0, true);
        normal.se.load = task_load_weight(0, false);
        fc.wake_up_new_task(r, idle);
        r.curr = fc.pick_next_task(r, nullptr);
        r.clock_task += ms / 10;
        fc.update_curr(r);
        fc.enqueue_task(r, normal, enqueue::wakeup);
        fc.wakeup_preempt(r, normal, 0);
        INFO(v.str());
        REQUIRE(r.need_resched); // a non-idle wakee always asks
        CHECK((fc.pick_next_task(r, &idle) == &normal) == wakee_runs);
    }
}

TEST_CASE("6.12 renice of a delayed task: it stays queued and delayed") {
    two_tasks s({6, 12});
    task& x = s.run_first(10 * ms);
    x.state = task_state::sleeping;
    REQUIRE_FALSE(s.fc.dequeue_task(s.r, x, dequeue::sleep)); // delayed
    const u64 load_before = s.r.cfs.load.weight;
    // set_user_nice(): dequeue SAVE, reweight, enqueue RESTORE.
    s.fc.dequeue_task(s.r, x, dequeue::save);
    s.fc.reweight_dequeued(x.se, task_load_weight(5, false));
    s.fc.enqueue_task(s.r, x, enqueue::restore);
    CHECK(x.se.on_rq);
    CHECK(x.se.sched_delayed);
    CHECK(s.r.cfs.nr_delayed == 1);
    CHECK(s.r.cfs.load.weight ==
          load_before - task_load_weight(0, false).weight + task_load_weight(5, false).weight);
}

TEST_CASE("renice before 5.6 reschedules even a lone task; prio_changed_fair does not") {
    for (const auto& [v, resched] :
         {std::pair{kernel_version{5, 4}, true}, std::pair{kernel_version{5, 15}, false}}) {
        rq r(0, false);
        fair_class fc(fair_params(v, default_tunables(v, 1, 250)));
        task t;
        t.pid = 1;
        t.state = task_state::runnable;
        t.se.load = task_load_weight(0, false);
        fc.wake_up_new_task(r, t);
        r.curr = fc.pick_next_task(r, nullptr);
        r.need_resched = false;
        t.nice = 5; // less important while running
        fc.prio_changed(r, t, 0, true);
        INFO(v.str());
        CHECK(r.need_resched == resched);
    }
}
