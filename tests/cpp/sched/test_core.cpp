// sched/core.hpp: the core sequence over the classes: the idle task, set_task_cpu() and
// its migration hook, set_user_nice() before and after prio_changed_fair (5.6).
#include <catch2/catch.hpp>
#include <libsched/sched/core.hpp>
#include <limits>

using namespace libsched;

namespace test_core {

namespace {

constexpr duration ms = nsec_per_msec;

struct no_hooks final : task_hooks {
    int switched_in_count = 0;
    void switched_in(task&) override { ++switched_in_count; }
    void switched_out(task&, resched_reason) override {}
    void migrated(task&, migrate_reason) override {}
    bool tick_in_kernel_mode(task&) override { return false; }
    void hrtimer_interrupt(int, sim_time) override {}
    bool timer_due(int, sim_time) override { return false; }
    sim_time next_timer(int) override { return next; }
    sim_time next = std::numeric_limits<sim_time>::max(); // the tasks' first timer
};

struct machine {
    explicit machine(kernel_version v, int cpus = 2)
        : machine(fair_params(v, default_tunables(v, cpus, 250)), cpus) {}
    machine(const fair_params& params, int cpus) : c(sim, params, machine_costs{}, cpus, hooks) {
        c.start();
    }
    task& fork(task& t, int cpu) {
        t.pid = next_pid++;
        c.sched_fork(t, cpu);
        c.wake_up_new_task(t);
        return t;
    }
    des::simulator sim;
    no_hooks hooks;
    core c;
    int next_pid = 1;
};

} // namespace

TEST_CASE("the class order: stop > deadline > RT > fair > idle") {
    fair_sched_class fair(fair_params({6, 12}, default_tunables({6, 12}, 1, 250)));
    idle_sched_class idle;
    CHECK(sched_class_above(fair, idle));
    CHECK_FALSE(sched_class_above(idle, fair));
    CHECK(sched_class_rank::rt < sched_class_rank::fair);
    CHECK(sched_class_rank::stop < sched_class_rank::deadline);
}

TEST_CASE("an idle CPU runs its idle task, a forked task takes over at the reschedule") {
    machine m({6, 12});
    const rq& r = m.c.cpu_rq(0);
    CHECK(r.curr == &r.idle);
    CHECK(is_idle_task(r, *r.curr));
    task t;
    m.fork(t, 0);
    CHECK(r.need_resched); // a fair task always preempts the idle one
    m.sim.run(ms);
    CHECK(r.curr == &t);
    CHECK(m.hooks.switched_in_count == 1);
    CHECK(m.c.cpu_rq(1).curr == &m.c.cpu_rq(1).idle);
}

TEST_CASE("set_task_cpu counts a migration and moves the entity to the new CPU's queue") {
    for (const kernel_version v : {kernel_version{5, 15}, kernel_version{6, 12}}) {
        INFO(v.str());
        machine m(v);
        task sleeper, other;
        m.fork(sleeper, 0);
        m.fork(other, 1);
        m.sim.run(10 * ms);
        // The sleeper blocks on CPU 0, then moves to CPU 1 while asleep.
        REQUIRE(m.c.cpu_rq(0).curr == &sleeper);
        m.c.update_curr(m.c.cpu_rq(0));
        sleeper.state = task_state::sleeping;
        m.c.schedule(sleeper);
        REQUIRE_FALSE(sleeper.se.on_rq);
        const u64 old_min = m.c.cpu_rq(0).cfs.min_vruntime;
        const u64 vruntime = sleeper.se.vruntime;
        m.c.set_task_cpu(sleeper, 1, migrate_reason::select_task_rq);
        CHECK(sleeper.se.nr_migrations == 1);
        CHECK(sleeper.cpu == 1);
        CHECK(sleeper.se.cfs_rq == &m.c.cpu_rq(1).cfs);
        if (!v.is_eevdf()) // migrate_task_rq_fair: relative to the old queue
            CHECK(sleeper.se.vruntime == vruntime - old_min);
        else
            CHECK(sleeper.se.vruntime == vruntime);
        m.c.set_task_cpu(sleeper, 1, migrate_reason::select_task_rq); // no move, no migration
        CHECK(sleeper.se.nr_migrations == 1);
    }
}

// tick_nohz_idle_stop_tick() / tick_nohz_next_event(): going idle 1 ms after the tick at
// 8 ms (HZ 250), the CPU keeps its tick for a timer due by the next tick at 12 ms, and
// stops it at once (NOHZ idle balancing takes over) for a later one or none.
TEST_CASE("a CPU going idle stops its tick unless a timer of its own expires by the next tick") {
    constexpr sim_time none = std::numeric_limits<sim_time>::max();
    for (const sim_time next_timer : {11 * ms, 12 * ms, 12 * ms + 1, none}) {
        INFO("next timer " << next_timer);
        machine m({6, 18});
        task t;
        m.fork(t, 0);
        m.sim.run(9 * ms);
        const rq& r = m.c.cpu_rq(0);
        REQUIRE(r.curr == &t);
        CHECK(m.c.next_cpu_timer(0, m.sim.now()) == 12 * ms); // the busy CPU's tick
        m.hooks.next = next_timer;
        m.c.update_curr(m.c.cpu_rq(0));
        t.state = task_state::sleeping;
        m.c.schedule(t);
        REQUIRE(r.curr == &r.idle);
        const bool keep = next_timer <= 12 * ms;
        CHECK(m.c.next_cpu_timer(0, m.sim.now()) == (keep ? 12 * ms : none));
        CHECK(r.nohz_tick_stopped == !keep);
    }
}

// resched_curr_lazy() (6.13+): under the lazy model only TIF_NEED_RESCHED_LAZY, which waits
// for the CPU's next return to user mode: a busy CPU's tick (at 12 ms, HZ 250) promotes
// it. The idle task is asked outright (__resched_curr()), as is every CPU without the model.
TEST_CASE("a lazy reschedule waits for the CPU's tick, the idle task is rescheduled outright") {
    fair_params lazy({6, 18}, default_tunables({6, 18}, 2, 250));
    lazy.lazy_preemption = true;
    machine m(lazy, 2);
    task t;
    m.fork(t, 1);
    m.sim.run(10 * ms + 500'000);
    rq& busy = m.c.cpu_rq(1);
    REQUIRE(busy.curr == &t);
    resched_curr_lazy(busy, resched_reason::wakeup_preempt, true);
    CHECK(busy.need_resched_lazy);
    CHECK_FALSE(busy.need_resched);
    m.sim.run(12 * ms - 1);
    CHECK(busy.need_resched_lazy); // no IPI, no tick yet
    m.sim.run(12 * ms + 100'000);
    CHECK_FALSE(busy.need_resched_lazy); // the tick's return to user mode honoured it
    CHECK(busy.curr == &t);              // the only task, picked again

    rq& idle = m.c.cpu_rq(0);
    REQUIRE(idle.curr == &idle.idle);
    resched_curr_lazy(idle, resched_reason::wakeup_preempt, true);
    CHECK(idle.need_resched);
    CHECK_FALSE(idle.need_resched_lazy);

    resched_curr_lazy(busy, resched_reason::wakeup_preempt, false);
    CHECK(busy.need_resched);
    CHECK_FALSE(busy.need_resched_lazy);
}

TEST_CASE("try_to_wake_up moves a task whose CPU it may no longer use, as a migration") {
    machine m({5, 15});
    task t;
    m.fork(t, 0);
    m.sim.run(10 * ms);
    m.c.update_curr(m.c.cpu_rq(0));
    t.state = task_state::sleeping;
    m.c.schedule(t);
    t.cpus_allowed = {false, true};
    m.c.try_to_wake_up(t);
    CHECK(t.cpu == 1);
    CHECK(t.se.nr_migrations == 1);
    CHECK(t.se.on_rq);
    CHECK(m.c.cpu_rq(1).cfs.h_nr_queued == 1);
    CHECK(m.c.cpu_rq(0).cfs.h_nr_queued == 0);
    // ENQUEUE_MIGRATED re-based the relative vruntime on the new queue.
    CHECK_FALSE(
        vtime_before(t.se.vruntime, m.c.cpu_rq(1).cfs.min_vruntime - static_cast<u64>(12 * ms)));
}

TEST_CASE("renice before 5.6 reschedules even a lone task, prio_changed_fair does not") {
    for (const auto& [v, resched] :
         {std::pair{kernel_version{5, 4}, true}, std::pair{kernel_version{5, 15}, false}}) {
        INFO(v.str());
        machine m(v, 1);
        task t;
        m.fork(t, 0);
        m.sim.run(ms);
        rq& r = m.c.cpu_rq(0);
        REQUIRE(r.curr == &t);
        r.need_resched = false;
        m.c.set_user_nice(t, 5); // less important while running
        CHECK(r.need_resched == resched);
        CHECK(t.se.load.weight == task_load_weight(5, false).weight);
    }
}

// Found by fuzz_generator: prio_changed_fair() asked the fair class to judge a preemption of
// the idle task (whose entity has no fair queue) instead of going through core.c's
// wakeup_preempt(), where a fair task simply preempts the idle one.
TEST_CASE("renicing a queued task before the idle task is switched out reschedules it") {
    for (const kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6}}) {
        INFO(v.str());
        machine m(v, 1);
        task a, b;
        m.fork(a, 0);
        m.fork(b, 0);
        rq& r = m.c.cpu_rq(0);
        REQUIRE(r.curr == &r.idle); // the reschedule is still on its way
        r.need_resched = false;
        m.c.set_user_nice(a, -5);
        CHECK(r.need_resched);
        CHECK(a.se.load.weight == task_load_weight(-5, false).weight);
        m.sim.run(ms);
        CHECK(r.curr != &r.idle);
    }
}

namespace {

// Two CPUs sharing a cache, both busy: a waker alone on CPU 0, a burner on CPU 1, and a
// sleeper that ran beside the burner (pinned there) for 1.1 s and has just blocked. The
// sleeper may then run anywhere; its wakeup comes from CPU 0.
// With `delayed_neighbour` (6.12+), a fourth task that shared CPU 0 with the waker has
// blocked there while owed less than nothing: DELAY_DEQUEUE keeps it queued.
struct busy_pair {
    explicit busy_pair(kernel_version v, bool delayed_neighbour = false) : m(v) {
        waker.cpus_allowed = {true, false};
        burner.cpus_allowed = {false, true};
        sleeper.cpus_allowed = {false, true};
        neighbour.cpus_allowed = {true, false};
        m.fork(waker, 0);
        m.fork(burner, 1);
        m.fork(sleeper, 1);
        if (delayed_neighbour)
            m.fork(neighbour, 0);
        m.sim.run(1100 * ms);
        // Not past the average (6.6+): not owed less than nothing, so not delayed.
        block_when(sleeper, [this, v](const rq& r) {
            return !v.is_eevdf() || !vtime_before(avg_vruntime(r.cfs), sleeper.se.vruntime);
        });
        REQUIRE_FALSE(sleeper.se.on_rq);
        sleeper.cpus_allowed.clear();
        if (delayed_neighbour) {
            // Past the average vruntime it has negative lag.
            block_when(neighbour, [this](const rq& r) {
                return vtime_before(avg_vruntime(r.cfs), neighbour.se.vruntime);
            });
            REQUIRE(neighbour.se.sched_delayed);
            REQUIRE(m.c.cpu_rq(0).curr == &waker);
        }
    }
    // Blocks t the first time it runs with `ready` true, looked at every microsecond.
    template <class Ready> void block_when(task& t, Ready ready) {
        rq& r = m.c.cpu_rq(t.cpu);
        for (;;) {
            m.c.update_curr(r);
            if (r.curr == &t && ready(r))
                break;
            m.sim.run(m.sim.now() + nsec_per_usec);
        }
        t.state = task_state::sleeping;
        m.c.schedule(t);
    }
    machine m;
    task waker, burner, sleeper, neighbour;
};

} // namespace

TEST_CASE("a sync wakeup stacks the wakee on the waker's CPU when only the waker runs there") {
    // wake_affine_idle(): sync and one task on this_cpu → this_cpu, and select_idle_sibling()
    // finds no idle CPU. Without sync, wake_affine_weight() compares this CPU's load plus the
    // wakee's (about 2 x 1024) with prev's less the wakee's (about 1024, x 1.08): prev.
    for (const kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6}}) {
        INFO(v.str());
        for (const bool sync : {true, false}) {
            INFO("sync " << sync);
            busy_pair b(v);
            b.m.c.try_to_wake_up(b.sleeper, 0, sync ? wake_flags::sync : wake_flags::none);
            CHECK(b.sleeper.cpu == (sync ? 0 : 1));
        }
    }
}

TEST_CASE("from aa3ee4f0b754 (6.16, 6.12.37, 6.15.6) the sync test does not count delayed tasks") {
    // The waker's CPU also queues a delayed task: nr_running 2. Without the fix the sync
    // test fails and wake_affine_weight() (this CPU's load less the waker's still holds the
    // delayed task's) keeps prev.
    for (const auto& [v, stacked] :
         {std::pair{kernel_version{6, 12, 36}, false}, std::pair{kernel_version{6, 12, 37}, true},
          std::pair{kernel_version{6, 16}, true}}) {
        INFO(v.str());
        busy_pair b(v, true);
        REQUIRE(nr_running(b.m.c.cpu_rq(0)) == 2);
        b.m.c.try_to_wake_up(b.sleeper, 0, wake_flags::sync);
        CHECK(b.sleeper.cpu == (stacked ? 0 : 1));
    }
}

TEST_CASE("6.19 with NEXT_BUDDY: a sync wakee it marks does not preempt (preempt_sync)") {
    // The waker's exec_start is read just after update_curr() set it to the clock, so the
    // waker has never run migration_cost: no preemption. A plain wakeup marked as the buddy
    // is the pick (PICK_BUDDY) and preempts.
    for (const bool sync : {false, true}) {
        INFO("sync " << sync);
        fair_params params({6, 19}, default_tunables({6, 19}, 1, 250));
        params.feat.set(feature::next_buddy, true);
        machine m(params, 1);
        task waker, sleeper;
        m.fork(waker, 0);
        m.fork(sleeper, 0);
        rq& r = m.c.cpu_rq(0);
        for (;;) { // block the sleeper while it is owed time, so it leaves the queue
            m.sim.run(m.sim.now() + nsec_per_usec);
            m.c.update_curr(r);
            if (r.curr == &sleeper && !vtime_before(avg_vruntime(r.cfs), sleeper.se.vruntime))
                break;
        }
        sleeper.state = task_state::sleeping;
        m.c.schedule(sleeper);
        REQUIRE_FALSE(sleeper.se.on_rq);
        m.sim.run(m.sim.now() + 2 * ms);
        REQUIRE(r.curr == &waker);
        REQUIRE_FALSE(r.need_resched);
        m.c.try_to_wake_up(sleeper, 0, sync ? wake_flags::sync : wake_flags::none);
        CHECK(r.cfs.next == &sleeper.se);
        CHECK(r.need_resched == !sync);
    }
}

TEST_CASE("record_wakee() counts the waker's changes of wakee, and wake_wide() then spreads") {
    busy_pair b({6, 6});
    // 1.1 s is 275 jiffies at HZ 250, more than HZ after the flips' last decay (at 0): halved.
    b.waker.wakee_flips = 100;
    b.sleeper.wakee_flips = 4; // at least the LLC's 2 CPUs; 100 / 2 at least 2 x 4: wide
    b.m.c.try_to_wake_up(b.sleeper, 0, wake_flags::sync);
    CHECK(b.waker.wakee_flips == 51);
    CHECK(b.waker.wakee_flip_decay_ts == static_cast<u64>(b.m.sim.now() / (4 * ms)));
    CHECK(b.waker.last_wakee == &b.sleeper);
    CHECK(b.sleeper.wakee_flips == 4); // only the waker's count moves
    // Not affine: the sync hint is never asked, and the busy CPUs leave the wakee on prev.
    CHECK(b.sleeper.cpu == 1);
}

TEST_CASE("wake_wide() needs both sides to switch partners: a one-to-many waker stays affine") {
    busy_pair b({6, 6});
    b.waker.wakee_flips = 1000;
    b.sleeper.wakee_flips = 1; // fewer than the LLC's 2 CPUs
    b.m.c.try_to_wake_up(b.sleeper, 0, wake_flags::sync);
    CHECK(b.sleeper.cpu == 0);
}

} // namespace test_core
