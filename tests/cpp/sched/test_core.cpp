// sched/core.hpp: the core sequence over the classes: the idle task, set_task_cpu() and
// its migration hook, set_user_nice() before and after prio_changed_fair (5.6).
#include <catch2/catch.hpp>
#include <libsched/sched/core.hpp>

using namespace libsched;

namespace test_core {

namespace {

constexpr duration ms = nsec_per_msec;

struct no_hooks final : task_hooks {
    int switched_in_count = 0;
    void switched_in(task&) override { ++switched_in_count; }
    void switched_out(task&) override {}
    bool tick_in_kernel_mode(task&) override { return false; }
    void hrtimer_interrupt(int) override {}
    bool timer_due(int) override { return false; }
};

struct machine {
    explicit machine(kernel_version v, int cpus = 2)
        : c(sim, fair_params(v, default_tunables(v, cpus, 250)), machine_costs{}, cpus, hooks) {
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

TEST_CASE("an idle CPU runs its idle task; a forked task takes over at the reschedule") {
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
        m.c.set_task_cpu(sleeper, 1);
        CHECK(sleeper.se.nr_migrations == 1);
        CHECK(sleeper.cpu == 1);
        CHECK(sleeper.se.cfs_rq == &m.c.cpu_rq(1).cfs);
        if (!v.is_eevdf()) // migrate_task_rq_fair: relative to the old queue
            CHECK(sleeper.se.vruntime == vruntime - old_min);
        else
            CHECK(sleeper.se.vruntime == vruntime);
        m.c.set_task_cpu(sleeper, 1); // no move, no migration
        CHECK(sleeper.se.nr_migrations == 1);
    }
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

TEST_CASE("renice before 5.6 reschedules even a lone task; prio_changed_fair does not") {
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

} // namespace test_core
