// sched/sched_avg.hpp and sched/pelt.hpp: PELT's arithmetic against its closed forms
// (y^32 = 1/2, the geometric series and its saturation at LOAD_AVG_MAX), and the fair
// class's signals: a running task's utilization, a reniced task's load, a sleeper's decay,
// two tasks sharing a CPU, a migration's conservation of load.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <libsched/sched/fair.hpp>

using namespace libsched;

namespace test_pelt {

namespace {

constexpr u64 period_ns = u64{1024} * 1024; // one PELT period, 1024 units of 1024 ns
const double y = std::pow(0.5, 1.0 / 32);

// A fair class over two CPUs' rqs, driven as the core scheduler drives them, with the
// clock set by hand (no IRQ time: clock_task is the wall clock).
struct fair_cpus {
    explicit fair_cpus(kernel_version v)
        : fc(fair_params(v, default_tunables(v, 2, 1000))), r0(0, fc.params()), r1(1, fc.params()) {
    }
    const fair_params& fp() const { return fc.params(); }
    rq& cpu(int c) { return c == 0 ? r0 : r1; }
    // sched_fork() + wake_up_new_task() on `c`.
    void fork(task& t, int c, int nice = 0) {
        t.nice = nice;
        t.cpu = c;
        t.sched_class = &fc;
        t.se.cfs_rq = &cpu(c).cfs;
        t.se.load = task_load_weight(nice, false);
        t.state = task_state::runnable;
        fc.task_fork(cpu(c), t);
        post_init_entity_util_avg(t);
        fc.enqueue_task(cpu(c), t,
                        fp().since(6, 12) ? enqueue_flags::initial : enqueue_flags::none);
    }
    void switch_to_next(rq& r) {
        task* next = fc.pick_next_task(r, *r.curr);
        r.curr = next != nullptr ? next : &r.idle;
        r.need_resched = false;
    }
    // The clock reaches `now`; the running task's tick, and the switch it asks for.
    void tick(rq& r, u64 now) {
        r.clock_task = static_cast<sim_time>(now);
        r.clock = r.clock_task;
        if (is_idle_task(r, *r.curr))
            return;
        fc.task_tick(r, *r.curr, false);
        if (r.need_resched)
            switch_to_next(r);
    }
    // The running task blocks at `now`.
    void sleep(rq& r, u64 now) {
        r.clock_task = static_cast<sim_time>(now);
        task& t = *r.curr;
        t.state = task_state::sleeping;
        fc.dequeue_task(r, t, dequeue_flags::sleep);
        switch_to_next(r);
    }
    // try_to_wake_up() at `now`, moved to CPU c first if it was elsewhere.
    void wake(task& t, int c, u64 now) {
        enqueue_flags ef = enqueue_flags::wakeup;
        if (t.cpu != c) {
            fc.migrate_task_rq(t, c);
            t.cpu = c;
            t.se.cfs_rq = &cpu(c).cfs;
            ef = ef | enqueue_flags::migrated;
        }
        rq& r = cpu(c);
        r.clock_task = static_cast<sim_time>(now);
        t.state = task_state::runnable;
        fc.enqueue_task(r, t, ef);
    }
    fair_sched_class fc;
    rq r0, r1;
};

// An always-running entity's sums driven from zero in steps of `step` ns, the last update
// at `until`.
sched_avg run_from_zero(u64 step, u64 until, u64 load = 1) {
    sched_avg sa;
    for (u64 now = step;; now += step) {
        now = std::min(now, until);
        if (update_load_sum(now, sa, load, 1, true))
            update_load_avg_from_sums(sa, load);
        if (now == until)
            return sa;
    }
}

} // namespace

TEST_CASE("decay_load follows 2^(-n/32) within the table's 32-bit precision") {
    const u64 val = u64{1} << 40;
    for (u64 n = 0; n <= 32 * 63; ++n) {
        const double exact = static_cast<double>(val) * std::pow(2.0, -static_cast<double>(n) / 32);
        // The entries are y^n * (2^32 - 1) from a rounded y, truncated: relative error below
        // 2^-30; the shift by n/32 truncates less than one unit.
        CHECK(std::abs(static_cast<double>(decay_load(val, n)) - exact) <= exact * 0x1p-30 + 1);
    }
    CHECK(decay_load(val, 32 * 63 + 1) == 0); // past 63 half-lives nothing is left
    // y^32 = 1/2: 32 periods halve, 64 quarter.
    CHECK(decay_load(1'000'000, 32) >= 499'999);
    CHECK(decay_load(1'000'000, 32) <= 500'000);
    CHECK(decay_load(1'000'000, 64) >= 249'999);
    CHECK(decay_load(1'000'000, 64) <= 250'000);
}

TEST_CASE("an always-running sum saturates between LOAD_AVG_MAX - 1024 and LOAD_AVG_MAX") {
    // LOAD_AVG_MAX_N = 345 periods saturate the series; check well past it, at every kind
    // of position within a period.
    for (u64 step : {u64{1024}, u64{37'000}, u64{1'000'000}, u64{4'000'000}}) {
        sched_avg sa;
        for (u64 now = step; now <= 1000 * period_ns; now += step) {
            if (update_load_sum(now, sa, 1, 1, true))
                update_load_avg_from_sums(sa, 1);
            CHECK(sa.util_avg <= sched_capacity_scale);
            if (now < 400 * period_ns)
                continue;
            // Each decay truncates: up to one unit per period is lost, itself decayed
            // afterwards, so at most sum y^k = 1 / (1 - y) < 47 units in all.
            CHECK(sa.load_sum >= load_avg_max - 1024 - 47);
            CHECK(sa.load_sum <= load_avg_max);
            // util_sum carries 10 more bits, so it loses less to truncation and may pass the
            // truncated LOAD_AVG_MAX, never the exact series 1024 / (1 - y).
            CHECK(static_cast<double>(sa.util_sum) / 1024 <= 1024 / (1 - y));
            CHECK(sa.util_sum >> sched_capacity_shift >= load_avg_max - 1024 - 47);
            CHECK(sa.runnable_sum == u64{sa.util_sum});
        }
        // The divider follows the position in the period, so the average is full.
        CHECK(sa.util_avg >= sched_capacity_scale - 2);
    }
}

TEST_CASE("from zero, a running entity's util_avg after n periods is 1024 (1 - y^n)") {
    for (u64 n = 1; n <= 200; ++n) {
        const sched_avg sa = run_from_zero(250'000, n * period_ns);
        const double expected = 1024.0 * (1 - std::pow(y, static_cast<double>(n)));
        // LOAD_AVG_MAX and the table are truncated: a few units of 1024.
        CHECK(std::abs(static_cast<double>(sa.util_avg) - expected) <= 3);
    }
}

TEST_CASE("the signals depend on time only, not on how often they are updated") {
    for (u64 until : {3 * period_ns + 5'000, 50 * period_ns, 500 * period_ns + 777'000}) {
        const sched_avg fine = run_from_zero(1024, until);
        const sched_avg mid = run_from_zero(100'000, until);
        // Each update truncates its decayed sums: at most a unit or two of 1024.
        CHECK(std::abs(static_cast<double>(fine.util_avg) - static_cast<double>(mid.util_avg)) <=
              2);
    }
    // The same instant reached by different step sizes.
    const u64 t = 64 * period_ns;
    const sched_avg a = run_from_zero(period_ns / 8, t);
    const sched_avg b = run_from_zero(period_ns / 2, t);
    const sched_avg c = run_from_zero(4 * period_ns, t);
    CHECK(std::abs(static_cast<s64>(a.util_avg) - static_cast<s64>(b.util_avg)) <= 2);
    CHECK(std::abs(static_cast<s64>(a.util_avg) - static_cast<s64>(c.util_avg)) <= 2);
    CHECK(std::abs(static_cast<s64>(a.load_avg) - static_cast<s64>(c.load_avg)) <= 2);
}

TEST_CASE("an always-running nice-0 task approaches 1024, starting from half the capacity") {
    for (kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 14}}) {
        fair_cpus m(v);
        task t;
        m.fork(t, 0);
        m.switch_to_next(m.r0);
        // A new task on an empty CPU: util_avg = half the spare capacity, load_avg = weight.
        CHECK(t.se.avg.util_avg == 512);
        CHECK(cpu_load(m.r0) == 1024);
        for (u64 n = 1; n <= 400; ++n) {
            m.tick(m.r0, n * period_ns);
            const double expected = 1024 - 512 * std::pow(y, static_cast<double>(n));
            CHECK(std::abs(static_cast<double>(task_util(t)) - expected) <= 4);
            CHECK(task_util(t) <= 1024);
            CHECK(task_h_load(t) <= 1024);
            CHECK(task_h_load(t) >= 1020);
            CHECK(cpu_util_cfs(m.r0) <= 1024);
        }
        CHECK(task_util(t) >= 1020);
        CHECK(cpu_load(m.r0) >= 1020);
        CHECK(cpu_runnable(m.r0) >= 1020);
    }
}

TEST_CASE("a nice-10 always-runnable task's load_avg is its weight, 110") {
    fair_cpus m({6, 12});
    task t;
    m.fork(t, 0, 10);
    m.switch_to_next(m.r0);
    for (u64 n = 1; n <= 400; ++n)
        m.tick(m.r0, n * period_ns);
    CHECK(task_h_load(t) >= 108);
    CHECK(task_h_load(t) <= 110);
    CHECK(cpu_load(m.r0) == task_h_load(t));
    CHECK(task_util(t) >= 1020); // utilization does not depend on the weight
}

TEST_CASE("a task that stops halves its load and utilization every 32 periods (33.55 ms)") {
    fair_cpus m({6, 6});
    task t;
    m.fork(t, 0);
    m.switch_to_next(m.r0);
    for (u64 n = 1; n <= 400; ++n)
        m.tick(m.r0, n * period_ns);
    m.sleep(m.r0, 400 * period_ns);
    const u64 util0 = m.r0.cfs.avg.util_avg;
    const u64 load0 = cpu_load(m.r0);
    for (u64 half = 1; half <= 3; ++half) {
        m.r0.clock_task = static_cast<sim_time>((400 + 32 * half) * period_ns);
        update_blocked_averages(m.fp(), m.r0);
        const double f = std::pow(0.5, static_cast<double>(half));
        CHECK(std::abs(static_cast<double>(m.r0.cfs.avg.util_avg) -
                       f * static_cast<double>(util0)) <= 2);
        CHECK(std::abs(static_cast<double>(cpu_load(m.r0)) - f * static_cast<double>(load0)) <= 2);
    }
    CHECK(cfs_rq_has_blocked(m.r0.cfs));
}

TEST_CASE("two tasks sharing a CPU: each ~512, the CPU ~1024, the load the entities' sum") {
    for (kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 14}}) {
        fair_cpus m(v);
        task a, b;
        m.fork(a, 0);
        m.fork(b, 0);
        m.switch_to_next(m.r0);
        const u64 tick = 1'000'000;
        for (u64 now = tick; now <= 1000 * tick; now += tick) {
            m.tick(m.r0, now);
            if (now < 500 * tick)
                continue;
            // Turns of a few ticks move a task's utilization by at most ~1024 (1 - y^4).
            CHECK(std::abs(static_cast<s64>(task_util(a)) - 512) <= 48);
            CHECK(std::abs(static_cast<s64>(task_util(b)) - 512) <= 48);
            CHECK(m.r0.cfs.avg.util_avg >= 1020);
            CHECK(m.r0.cfs.avg.util_avg <= 1024);
            // Each entity is synced when it is ticked, picked or put back: the waiting one's
            // average may lag the queue's by one update.
            const s64 sum = static_cast<s64>(task_h_load(a) + task_h_load(b));
            CHECK(std::abs(static_cast<s64>(cpu_load(m.r0)) - sum) <= 16);
            CHECK(cpu_load(m.r0) <= 2048 + 2); // two weights, up to rounding
        }
        // Both always runnable: full load each, runnable 2 tasks' worth.
        CHECK(task_h_load(a) >= 1020);
        CHECK(cpu_runnable(m.r0) >= 2040);
    }
}

TEST_CASE("a task migrated at wakeup takes its load from the old CPU to the new one") {
    for (kernel_version v : {kernel_version{5, 15}, kernel_version{6, 12}}) {
        fair_cpus m(v);
        task t;
        m.fork(t, 0);
        m.switch_to_next(m.r0);
        for (u64 n = 1; n <= 100; ++n)
            m.tick(m.r0, n * period_ns);
        m.sleep(m.r0, 100 * period_ns);
        // Asleep: its blocked load stays in CPU 0's until it leaves.
        CHECK(cpu_load(m.r0) >= 1000);
        const u64 wake_at = 110 * period_ns;
        m.r1.clock_task = static_cast<sim_time>(wake_at);
        update_blocked_averages(m.fp(), m.r1);
        m.wake(t, 1, wake_at);
        CHECK(t.se.avg.last_update_time != 0);   // attached
        CHECK(cpu_load(m.r1) == task_h_load(t)); // all of it arrived
        CHECK(m.r1.cfs.avg.util_avg == task_util(t));
        CHECK(m.r0.cfs.removed.nr == 1);
        CHECK(m.r0.cfs.removed.load_avg == task_h_load(t)); // ... and leaves CPU 0
        m.r0.clock_task = static_cast<sim_time>(wake_at);
        update_blocked_averages(m.fp(), m.r0);
        CHECK(m.r0.cfs.removed.nr == 0);
        CHECK(cpu_load(m.r0) <= 1); // only rounding is left
        CHECK(m.r0.cfs.avg.util_avg <= 1);
    }
}

// ca125231dd29 (6.19; 6.12.63, 6.17.13, 6.18.2): a group queue left with nothing to decay
// within a millisecond of its last publication in tg->load_avg (update_tg_load_avg()'s rate
// limit, 6.7) stays on the leaf list until the next pass withdraws its contribution. Before,
// it left the list with the contribution still counted in the group's load for good, which
// shrinks the group's weight on its other CPUs (calc_group_shares()).
TEST_CASE("a group queue leaves the leaf list only once the group's load no longer counts it") {
    for (const kernel_version v : {kernel_version{6, 18, 1}, kernel_version{6, 18, 2},
                                   kernel_version{6, 12, 62}, kernel_version{6, 19}}) {
        INFO(v.str());
        const bool fixed = carries(v, stalled_tg_load_withdrawn);
        CHECK(fixed == (v.patch != 1 && v.patch != 62));
        fair_cpus m(v);
        task_group root({&m.r0, &m.r1});
        task_group a(root, "a", {&m.r0, &m.r1}, v.is_eevdf());
        cfs_rq& q = *a.cfs_rq[0];
        // Its last task left; the contribution was published half a millisecond ago and
        // its averages are 0, up to date within the current PELT period.
        const sim_time now = static_cast<sim_time>(10 * period_ns + period_ns / 4);
        m.r0.clock = m.r0.clock_task = now;
        q.on_list = true;
        q.tg_load_avg_contrib = 300;
        a.load_avg = 300;
        q.last_update_tg_load_avg = now - 500'000;
        q.avg.last_update_time = rq_clock_pelt(m.r0) - rq_clock_pelt(m.r0) % 1024;
        update_blocked_averages(m.fp(), m.r0);
        CHECK(q.on_list == fixed);
        CHECK(a.load_avg == 300);
        // The next pass, 2 ms later: a listed queue withdraws its load, then leaves.
        m.r0.clock = m.r0.clock_task = now + 2'000'000;
        update_blocked_averages(m.fp(), m.r0);
        CHECK_FALSE(q.on_list);
        CHECK(a.load_avg == (fixed ? 0 : 300));
        CHECK(q.tg_load_avg_contrib == (fixed ? 0u : 300u));
    }
}

TEST_CASE("a queued task moved by the balancer is detached and attached at once") {
    fair_cpus m({6, 14});
    task a, b;
    m.fork(a, 0);
    m.fork(b, 0);
    m.switch_to_next(m.r0);
    for (u64 n = 1; n <= 200; ++n)
        m.tick(m.r0, n * period_ns);
    task& moved = m.r0.curr == &a ? b : a; // the one waiting
    const u64 before = cpu_load(m.r0);
    const u64 now = 200 * period_ns;
    m.r1.clock_task = static_cast<sim_time>(now);
    update_blocked_averages(m.fp(), m.r1);
    moved.migrating = true; // detach_task(): dequeue, set_task_cpu(), enqueue
    m.fc.dequeue_task(m.r0, moved, dequeue_flags::none);
    const u64 moved_load = task_h_load(moved);
    m.fc.migrate_task_rq(moved, 1);
    moved.cpu = 1;
    moved.se.cfs_rq = &m.r1.cfs;
    m.fc.enqueue_task(m.r1, moved, enqueue_flags::migrated);
    moved.migrating = false;
    CHECK(m.r0.cfs.removed.nr == 0); // nothing deferred: it left at once
    CHECK(std::abs(static_cast<s64>(cpu_load(m.r0) + moved_load) - static_cast<s64>(before)) <= 2);
    CHECK(cpu_load(m.r1) == moved_load);
    CHECK(moved_load >= 1000);
}

TEST_CASE("util_est: a sleep samples util_avg, a rise is taken at once, a fall by a quarter") {
    for (kernel_version v : {kernel_version{6, 6}, kernel_version{6, 12}}) {
        fair_cpus m(v);
        task t;
        m.fork(t, 0);
        m.switch_to_next(m.r0);
        for (u64 n = 1; n <= 300; ++n)
            m.tick(m.r0, n * period_ns);
        m.sleep(m.r0, 300 * period_ns);
        const u64 sampled = task_util(t);
        CHECK(task_util_est_raw(t) == sampled);     // a rise: taken as it is
        CHECK(m.r0.cfs.avg.util_est.enqueued == 0); // it left the CPU's sum
        m.wake(t, 0, 364 * period_ns);              // two half-lives later
        CHECK(m.r0.cfs.avg.util_est.enqueued == sampled);
        CHECK(task_util_est(t) == sampled); // the estimate outlives the decayed util_avg
        m.switch_to_next(m.r0);
        m.tick(m.r0, 365 * period_ns);
        m.sleep(m.r0, 365 * period_ns);
        const u64 low = task_util(t);
        CHECK(low < sampled / 2);
        // ewma' = ewma + (sample - ewma) / 4, in integers
        const u64 ewma = (4 * sampled - (sampled - low)) / 4;
        CHECK((t.se.avg.util_est.ewma & ~util_avg_unchanged) == ewma);
    }
}

} // namespace test_pelt
