// CFS bandwidth control (sched/bandwidth.hpp) against expectations that follow from the
// kernel's rules, not from the model's output: a quota per period caps a group's CPU time
// at quota / period CPUs over many periods (the overrun of one period is repaid in the
// next), a CPU's queue never holds more than a slice, nor runs more than a tick past its
// runtime; burst lets a group use up to quota + burst in a period after idle ones; an idle
// group's timer stops; throttled time is the time each CPU's queue spent throttled. 6.18's
// task-based throttling: tasks parked one by one as picked and enqueued again at the
// unthrottle, wakeups queued below a throttled queue, the balancer's rules, and throttled
// time from the first parked task. 6.12-6.17: an unthrottle below an ancestor queued as
// delayed finishes that dequeue first.
#include "model_helpers.hpp"
#include <algorithm>
#include <libsched/io/result_json.hpp>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>
#include <limits>

using namespace model_test;

namespace test_bandwidth {

namespace {

// Releases with the whole-queue throttling model: 5.15 and 6.1 (period timers at multiples
// of the period), 6.6 (EEVDF; empty queues' throttled time not counted), 6.12 (delayed
// dequeue), 6.17 (the last before task-based throttling).
const std::vector<kernel_version> releases = {{5, 15}, {6, 1}, {6, 6}, {6, 12}, {6, 17}};
// And 6.18, which throttles task by task: what a quota gives a group is the same.
const std::vector<kernel_version> all_releases = {{5, 15}, {6, 1},  {6, 6},
                                                  {6, 12}, {6, 17}, {6, 18}};

constexpr duration ms = 1'000'000;

scenario machine(kernel_version v, int cpus) {
    scenario sc;
    sc.machine.cpus = cpus;
    sc.machine.kernel = v;
    sc.machine.autogroup = false;
    sc.length = 10 * nsec_per_sec;
    sc.window_start = 1 * nsec_per_sec;
    return sc;
}

cgroup_spec limited(const std::string& name, duration quota, duration period = 100 * ms,
                    std::optional<duration> burst = std::nullopt) {
    cgroup_spec g;
    g.name = name;
    g.quota = quota;
    g.period = period;
    g.burst = burst;
    return g;
}

double window_seconds(const scenario& sc) {
    return static_cast<double>(sc.window_stop() - sc.window_start) / 1e9;
}

// n burners in a group "g" with quota per 100 ms on cpus CPUs.
scenario burners_under(kernel_version v, int cpus, int n, duration quota) {
    scenario sc = machine(v, cpus);
    sc.cgroups = {limited("g", quota)};
    sc.tasks = {in_group(burner("b", 0, n), "g")};
    return sc;
}

// Every queue of the group's tasks' CPUs, followed through a run event by event: the least
// and the most runtime any of them held.
struct runtime_extremes {
    s64 least = std::numeric_limits<s64>::max();
    s64 most = std::numeric_limits<s64>::min();
};

runtime_extremes follow_runtime(const scenario& sc) {
    libsched::system s(sc, sc.seed);
    runtime_extremes e;
    while (s.step())
        for (const auto& t : s.tasks()) {
            const cfs_rq& q = *t->se.cfs_rq;
            if (!q.runtime_enabled)
                continue;
            e.least = std::min(e.least, q.runtime_remaining);
            e.most = std::max(e.most, q.runtime_remaining);
        }
    return e;
}

} // namespace

TEST_CASE("50ms/100ms caps two burners on two CPUs at half a CPU, throttled every period") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        scenario sc = burners_under(v, 2, 2, 50 * ms);
        const repetition_result r = run_one(sc);
        const task_group_result& g = group(r, "g");
        CHECK(g.bandwidth);
        CHECK(g.share == Approx(0.5).margin(0.005));
        // 9 s of window: 90 periods, in each of which the group ran out (two burners want
        // 200 ms per period).
        const cfs_bandwidth_stat& w = g.window_cpu_stat;
        CHECK(w.nr_periods >= 89);
        CHECK(w.nr_periods <= 91);
        CHECK(w.nr_throttled >= w.nr_periods - 1);
        CHECK(w.nr_throttled <= w.nr_periods);
        CHECK(w.nr_bursts == 0);
    }
}

TEST_CASE("150ms/100ms lets three burners on two CPUs use 1.5 CPUs") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        scenario sc = burners_under(v, 2, 3, 150 * ms);
        const repetition_result r = run_one(sc);
        CHECK(group(r, "g").share == Approx(1.5).margin(0.01));
        CHECK(group(r, "g").window_cpu_stat.nr_throttled >= 89);
    }
}

TEST_CASE("on one CPU a 20ms/100ms group gets 20 %, an unlimited burner beside it the rest") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1);
        sc.cgroups = {limited("g", 20 * ms)};
        sc.tasks = {in_group(burner("limited"), "g"), burner("free")};
        const repetition_result r = run_one(sc);
        CHECK(group(r, "g").share == Approx(0.2).margin(0.005));
        CHECK(find(r, "free").share == Approx(0.8).margin(0.005));
    }
}

TEST_CASE("a queue runs at most a tick past its runtime, and the debt is repaid") {
    for (const kernel_version v : {kernel_version{6, 1}, kernel_version{6, 12}}) {
        for (const int hz : {250, 1000}) {
            INFO("kernel " << v.str() << " HZ " << hz);
            scenario sc = burners_under(v, 2, 2, 50 * ms);
            sc.length = 3 * nsec_per_sec;
            sc.machine.hz = hz;
            const duration tick = nsec_per_sec / hz;
            const runtime_extremes e = follow_runtime(sc);
            // Runtime is charged at the tick (and at switches): a queue's debt stays within
            // one tick, and it does go into debt.
            CHECK(e.least >= -tick);
            CHECK(e.least < 0);
            // Repaid: over the window the group got its quota, not quota plus the overruns.
            const repetition_result r = run_one(sc);
            CHECK(group(r, "g").share == Approx(0.5).margin(0.01));
        }
    }
}

TEST_CASE("a CPU's queue takes runtime from the pool a slice at a time") {
    for (const duration slice : {5 * ms, 1 * ms}) {
        INFO("slice " << slice);
        scenario sc = burners_under({6, 12}, 2, 2, 50 * ms);
        sc.length = 2 * nsec_per_sec;
        sc.machine.cfs_bandwidth_slice_ns = slice;
        const runtime_extremes e = follow_runtime(sc);
        CHECK(e.most == slice);
        const repetition_result r = run_one(sc);
        CHECK(group(r, "g").share == Approx(0.5).margin(0.01));
    }
}

TEST_CASE("burst: a bursty group uses up to quota + burst in a period after idle ones") {
    // 35 ms of work every 300 ms under 20 ms / 100 ms: two idle periods fill the pool to
    // quota + burst = 40 ms, so with a 20 ms burst each activation runs unthrottled and uses
    // 15 ms beyond the quota. 6.1: periods start at multiples of 100 ms, as do the
    // activations (an absolute 300 ms timer from the start).
    scenario sc = machine({6, 1}, 1);
    sc.cgroups = {limited("g", 20 * ms, 100 * ms, 20 * ms)};
    task_spec p = periodic("p", 35 * ms, 0);
    p.behaviour.period = 300 * ms;
    sc.tasks = {in_group(p, "g")};
    const repetition_result r = run_one(sc);
    const cfs_bandwidth_stat& w = group(r, "g").window_cpu_stat;
    CHECK(w.nr_throttled == 0);
    const double activations = window_seconds(sc) / 0.3;
    CHECK(static_cast<double>(w.nr_bursts) == Approx(activations).margin(1.5));
    // 15 ms over the quota per activation, to a tick's charging either way.
    const double per_burst = static_cast<double>(w.burst_time) / static_cast<double>(w.nr_bursts);
    CHECK(per_burst == Approx(15.0 * ms).margin(4.0 * ms));
    // Without the burst the same work is throttled.
    sc.cgroups[0].burst.reset();
    const repetition_result plain = run_one(sc);
    CHECK(group(plain, "g").window_cpu_stat.nr_throttled > 0);
    CHECK(group(plain, "g").window_cpu_stat.nr_bursts == 0);
}

TEST_CASE("an idle group's period timer stops: nr_periods stops growing") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        // 10 ms of work every 4 s: each activation starts the timer, which expires once in
        // use and once idle, then stops (up to a third expiry where the work straddles one).
        scenario sc = machine(v, 1);
        sc.cgroups = {limited("g", 50 * ms)};
        sc.tasks = {in_group(periodic("p", 10 * ms, 4 * nsec_per_sec), "g")};
        const repetition_result r = run_one(sc);
        const cfs_bandwidth_stat& s = group(r, "g").cpu_stat;
        CHECK(s.nr_periods >= 3 * 2);
        CHECK(s.nr_periods <= 3 * 3);
        CHECK(s.nr_throttled == 0);
    }
}

TEST_CASE("throttled_time is the time each CPU's queue spent throttled") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        // Nothing else runs: each CPU idles exactly while its queue of the group is
        // throttled (6.18: while its task is parked, from the pick right after the
        // throttle), up to the throttles in progress at the window's ends, which count
        // when they end (cpu.stat adds them at the unthrottle).
        scenario sc = burners_under(v, 2, 2, 50 * ms);
        const repetition_result r = run_one(sc);
        duration idle = 0;
        for (const cpu_result& c : r.cpus)
            idle += c.window_idle;
        const duration throttled = group(r, "g").window_cpu_stat.throttled_time;
        CHECK(static_cast<double>(throttled) ==
              Approx(static_cast<double>(idle)).margin(2.0 * 100.0 * ms));
        CHECK(throttled > 8 * nsec_per_sec); // about 50 ms per period on each CPU
    }
}

TEST_CASE("with bandwidth control each CPU's time is its tasks' time plus idle") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 2);
        sc.cgroups = {limited("g", 70 * ms), limited("h", 3 * ms, 10 * ms)};
        sc.tasks = {in_group(burner("b", 0, 3), "g"), in_group(periodic("p", 3 * ms, 2 * ms), "h"),
                    burner("free")};
        const repetition_result r = run_one(sc);
        duration tasks = 0;
        for (const task_result& t : r.tasks)
            tasks += t.sum_exec_runtime;
        duration busy = 0, irq = 0;
        for (const cpu_result& c : r.cpus) {
            CHECK(c.busy + c.idle == sc.length);
            busy += c.busy;
            irq += c.irq;
        }
        CHECK(tasks + irq == busy);
        CHECK(group(r, "g").share == Approx(0.7).margin(0.01));
        CHECK(group(r, "h").window_cpu_stat.nr_throttled > 0);
    }
}

TEST_CASE("the tasks of an unthrottled group run again in every period") {
    // 6.1: periods end at multiples of 100 ms.
    scenario sc = machine({6, 1}, 1);
    sc.length = 2 * nsec_per_sec;
    sc.cgroups = {limited("g", 20 * ms)};
    sc.tasks = {in_group(burner("limited"), "g"), burner("free")};
    libsched::system s(sc, sc.seed);
    const task& t = *s.find_task("limited");
    s.run(100 * ms);
    duration last = t.se.sum_exec_runtime;
    for (sim_time at = 200 * ms; at <= sc.length; at += 100 * ms) {
        s.run(at);
        const duration ran = t.se.sum_exec_runtime - last;
        INFO("period ending " << at);
        CHECK(ran > 10 * ms);
        CHECK(ran < 30 * ms);
        last = t.se.sum_exec_runtime;
    }
}

TEST_CASE("6.12+: an unthrottle that gives a CPU fair tasks again starts its fair server") {
    // A SCHED_FIFO burner starves a fair burner whose group has 30 ms per 100 ms. The fair
    // server (50 ms per 1 s) runs the fair task until the quota throttles the group, which
    // empties the CPU's fair queue and stops the server; the period timer's unthrottle must
    // start it again (unthrottle_cfs_rq(); 6.18 through the parked tasks' enqueue), or the
    // fair task never runs again behind the FIFO burner.
    for (const kernel_version v :
         {kernel_version{6, 12}, kernel_version{6, 17}, kernel_version{6, 18}}) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1);
        sc.length = 6 * nsec_per_sec;
        sc.cgroups = {limited("g", 30 * ms)};
        sc.tasks = {rt_burner("fifo", sched_policy::fifo, 50), in_group(burner("fair"), "g")};
        libsched::system s(sc, sc.seed);
        s.check_invariants(true); // the server is active exactly while fair tasks are queued
        const task& t = *s.find_task("fair");
        // The server's first budget comes 950 ms after the start and is split by the
        // throttle across the first second's end; from then on each second holds a budget.
        s.run(2 * nsec_per_sec);
        duration last = t.se.sum_exec_runtime;
        for (sim_time at = 3 * nsec_per_sec; at <= sc.length; at += nsec_per_sec) {
            s.run(at);
            const duration ran = t.se.sum_exec_runtime - last;
            INFO("second ending " << at);
            // More than one period's quota, split or not by the throttles; at most the
            // server's budget and a tick by which each of two bursts' last charges comes
            // late.
            CHECK(ran >= 30 * ms);
            CHECK(ran <= 50 * ms + 2 * 4 * ms);
            last = t.se.sum_exec_runtime;
        }
    }
}

TEST_CASE("6.12+: a renice whose requeue throttles the group stops the fair server") {
    // One CPU at HZ 300 (ticks 3.33 ms apart); an RT task that exits at once brings the
    // fair server. A burner of a group with 3 ms per 100 ms starts between two ticks and is
    // reniced after it spent the quota but before the tick that would see it: the renice's
    // requeue throttles the group, emptying the fair queue, and throttle_cfs_rq() stops the
    // server (found by fuzzing; the invariant checker requires it).
    scenario sc = machine({6, 14}, 1);
    sc.machine.hz = 300;
    sc.length = 200 * ms;
    sc.cgroups = {limited("g", 3 * ms)};
    task_spec rt = rt_burner("rt", sched_policy::fifo, 1);
    rt.lifetime = 1;
    task_spec b = in_group(burner("b", -19), "g");
    b.start = 62'400'000;
    b.renice = {{66'400'000, 0}};
    sc.tasks = {rt, b};
    libsched::system s(sc, sc.seed);
    s.check_invariants(true);
    s.run(66'400'001);
    CHECK(s.find_task("b")->se.cfs_rq->throttled);
    CHECK(s.cpu_rq(0).cfs.h_nr_queued == 0);
    CHECK_NOTHROW(s.run(sc.length));
}

TEST_CASE("the load balancer moves no task of a group throttled on either CPU") {
    // Three limited burners and one free one on two CPUs: the group is throttled part of
    // every period, and the free burner and the idle time make the balancer move tasks
    // (some releases move none of the group's in this run; over all of them, some).
    int all_moves = 0;
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = burners_under(v, 2, 3, 60 * ms);
        sc.length = 4 * nsec_per_sec;
        sc.tasks.push_back(burner("free"));
        const libsched::system* view = nullptr;
        int moves = 0, throttled_moves = 0;
        libsched::system s(sc, sc.seed, [&](const trace_event& e) {
            if (e.kind != trace_kind::sched_migrate_task || view == nullptr)
                return;
            for (const auto& t : view->tasks())
                if (t->pid == e.pid && !t->sched_task_group->is_root()) {
                    ++moves;
                    if (throttled_lb_pair(*t->sched_task_group, e.cpu, e.dest_cpu))
                        ++throttled_moves;
                }
        });
        view = &s;
        s.run(sc.length);
        all_moves += moves;
        CHECK(throttled_moves == 0);
    }
    CHECK(all_moves > 0);
}

TEST_CASE("two runs with the same seed are identical, random timer phases included") {
    scenario sc = machine({6, 12}, 2);
    sc.cgroups = {limited("g", 50 * ms), limited("h", 30 * ms)};
    sc.tasks = {in_group(burner("b", 0, 2), "g"), in_group(burner("c"), "h")};
    const run_result a = simulate(sc);
    const run_result b = simulate(sc);
    CHECK(to_json(a, sc).dump() == to_json(b, sc).dump());
}

TEST_CASE("bad bandwidth settings are errors naming the field") {
    for (const int version : {1, 2}) {
        INFO("cgroup v" << version);
        scenario sc = machine({6, 12}, 1);
        sc.machine.cgroup_version = version;
        sc.tasks = {burner("t")};
        sc.cgroups = {limited("a", 999'000),
                      limited("b", 50 * ms, 999'000),
                      limited("c", 50 * ms, 1'001 * ms),
                      limited("d", 20 * ms, 100 * ms, 21 * ms),
                      limited("e", 20 * ms, 100 * ms, -1),
                      limited("f", 20'000'500)};
        const auto fields = error_fields(sc);
        CHECK(has_field(fields, "cgroups[0].quota"));  // below 1 ms
        CHECK(has_field(fields, "cgroups[1].period")); // below 1 ms
        CHECK(has_field(fields, "cgroups[2].period")); // above 1 s
        CHECK(has_field(fields, "cgroups[3].burst"));  // above the quota
        CHECK(has_field(fields, "cgroups[4].burst"));  // negative
        CHECK(has_field(fields, "cgroups[5].quota"));  // not whole microseconds
        CHECK(fields.size() == 6);
    }
    scenario ok = machine({6, 12}, 1);
    ok.tasks = {burner("t")};
    ok.cgroups = {limited("a", 1 * ms, 1 * ms), limited("b", 1'000 * ms, 1'000 * ms, 1'000 * ms)};
    CHECK(error_fields(ok).empty());
    // cpu.max.burst / cfs_burst_us from 5.14; the model's releases for a quota.
    scenario old = machine({5, 10}, 1);
    old.tasks = {burner("t")};
    old.cgroups = {limited("a", 20 * ms, 100 * ms, 10 * ms)};
    CHECK(has_field(error_fields(old), "cgroups[0].burst"));
    old.machine.kernel = {5, 3};
    CHECK(has_field(error_fields(old), "cgroups[0].quota"));
    // 6.18's task-based throttling is modelled: its quotas are accepted.
    scenario task_based = machine({6, 18}, 1);
    task_based.tasks = {burner("t")};
    task_based.cgroups = {limited("a", 20 * ms, 100 * ms, 10 * ms)};
    CHECK(error_fields(task_based).empty());
    // v1 refuses a child with more runtime per period than its parent; v2 accepts it.
    scenario nested = machine({6, 12}, 1);
    nested.machine.cgroup_version = 1;
    nested.tasks = {in_group(burner("t"), "p/c")};
    nested.cgroups = {limited("p", 20 * ms), limited("p/c", 30 * ms)};
    CHECK(has_field(error_fields(nested), "cgroups[1].quota"));
    nested.machine.cgroup_version = 2;
    CHECK(error_fields(nested).empty());
    scenario slice = machine({6, 12}, 1);
    slice.tasks = {burner("t")};
    slice.machine.cfs_bandwidth_slice_ns = 500;
    CHECK(has_field(error_fields(slice), "machine.cfs_bandwidth_slice"));
}

// ---------------------------------------------------------------------------------------
// 6.18's task-based throttling (e1fad12dcb66 and its series): a throttle marks the
// hierarchy and leaves everything queued; a task picked below a throttled queue is parked
// on the queue's limbo list (at its return to user mode, which the model takes to be the
// pick); the unthrottle enqueues the parked tasks again. 6.17 dequeues the group's entity
// with all its tasks at the throttle.

namespace {

// One CPU: group g (20 ms / 100 ms) with three burners, and a free burner beside it, so
// that the CPU does not go idle when g is throttled.
scenario three_limited_and_a_free_one(kernel_version v) {
    scenario sc = machine(v, 1);
    sc.length = 1 * nsec_per_sec;
    sc.cgroups = {limited("g", 20 * ms)};
    sc.tasks = {in_group(burner("a", 0, 3), "g"), burner("free")};
    return sc;
}

// What a run shows of g's queue on CPU 0, event by event.
struct throttle_walk {
    int throttles = 0, unthrottles = 0;
    int throttled_with_all_queued = 0; // at the throttle: nothing parked, the entity queued
    int throttled_and_dequeued = 0;    // at the throttle: the entity left the root queue
    int all_parked = 0;                // events after which every task of g was parked
    int unthrottled_all_back = 0;      // at the unthrottle: every task queued again
    std::size_t most_parked = 0;
};

throttle_walk walk_throttles(const scenario& sc) {
    libsched::system s(sc, sc.seed);
    s.check_invariants(true);
    const task& first = *s.find_task("a.0");
    const task_group& g = *first.sched_task_group;
    const cfs_rq& q = *g.cfs_rq[0];
    throttle_walk w;
    bool was_throttled = false;
    while (s.step()) {
        std::size_t parked = 0, queued = 0, started = 0;
        for (const auto& t : s.tasks())
            if (t->sched_task_group == &g) {
                started += t->state != task_state::not_started ? 1 : 0;
                parked += t->throttled ? 1 : 0;
                queued += t->se.on_rq ? 1 : 0;
                // A parked task is still runnable, on no queue, not running (and in the
                // invariant checker's view, on its queue's limbo list once).
                if (t->throttled)
                    CHECK((t->state == task_state::runnable && !t->se.on_rq &&
                           s.cpu_rq(0).curr != t.get()));
            }
        if (started < 3) // the burners start one by one
            continue;
        CHECK(parked + queued == 3);
        CHECK(parked == q.throttled_limbo_list.size());
        w.most_parked = std::max(w.most_parked, parked);
        if (q.throttled && !was_throttled) {
            ++w.throttles;
            if (q.throttled_limbo_list.empty() && q.h_nr_queued == 3 && g.se[0]->on_rq)
                ++w.throttled_with_all_queued;
            if (!g.se[0]->on_rq)
                ++w.throttled_and_dequeued;
        }
        if (!q.throttled && was_throttled) {
            ++w.unthrottles;
            if (parked == 0 && q.h_nr_queued == 3)
                ++w.unthrottled_all_back;
        }
        if (parked == 3 && !g.se[0]->on_rq)
            ++w.all_parked;
        was_throttled = q.throttled;
    }
    return w;
}

} // namespace

// tg_throttle_down() / tg_unthrottle_up(): a throttled queue's PELT clock stands still (6.18:
// from when its last task is parked to when one is enqueued again), so the clock of a
// burner alone under a 20 ms / 100 ms quota on one CPU runs only while it runs. Over 5 s
// it has stood still for the 80 ms of each period the group is throttled, about 4 s, and
// the burner's utilization, which only grows while its clock runs, is that of a task that
// always runs: within a few units of 1024 (it decays by half in each 80 ms throttled
// stretch when the clock does not stop).
TEST_CASE("a throttled queue's PELT clock stands still: a capped burner's util nears 1024") {
    for (const kernel_version v : all_releases) {
        INFO(v.str());
        scenario sc = burners_under(v, 1, 1, 20 * ms);
        libsched::system s(sc, sc.seed);
        s.run(5 * nsec_per_sec);
        const task& b = *s.find_task("b");
        const cfs_rq& q = *b.se.cfs_rq;
        REQUIRE(q.runtime_enabled);
        const u64 stood_still = rq_clock_pelt(s.cpu_rq(0)) - cfs_rq_clock_pelt(q);
        CHECK(stood_still > 3'800 * ms);
        CHECK(stood_still < 4'050 * ms);
        CHECK(b.se.avg.util_avg > 1000);
        CHECK(cfs_rq_clock_pelt(s.cpu_rq(0).cfs) == rq_clock_pelt(s.cpu_rq(0)));
    }
}

TEST_CASE("6.18: a throttle parks no task, each is parked when picked, all come back after") {
    const throttle_walk w = walk_throttles(three_limited_and_a_free_one({6, 18}));
    // 1 s of 100 ms periods, throttled in each after 20 ms of g's time.
    CHECK(w.throttles >= 8);
    CHECK(w.unthrottles >= w.throttles - 1);
    // At the throttle the tasks and the group's entity stay queued...
    CHECK(w.throttled_with_all_queued == w.throttles);
    CHECK(w.throttled_and_dequeued == 0);
    // ...until the group is picked, which parks its tasks; its entity then leaves the root
    // queue, its queue being empty.
    CHECK(w.most_parked == 3);
    CHECK(w.all_parked > 0);
    // The unthrottle enqueues every parked task again.
    CHECK(w.unthrottled_all_back == w.unthrottles);
}

TEST_CASE("6.17 still dequeues the throttled queue's entity with all its tasks at once") {
    const throttle_walk w = walk_throttles(three_limited_and_a_free_one({6, 17}));
    CHECK(w.throttles >= 8);
    CHECK(w.throttled_and_dequeued == w.throttles);
    CHECK(w.throttled_with_all_queued == 0);
    CHECK(w.most_parked == 0); // no limbo list before 6.18
}

TEST_CASE("6.12-6.17: an unthrottle below a group queued as delayed finishes its dequeue first") {
    // g0 has a task that runs 1 ms and sleeps 2 ms, and a child g0/g1 (5 ms / 100 ms) with a
    // burner, beside a free burner on one CPU. While g0/g1 is throttled, g0's task sleeps;
    // with DELAY_DEQUEUE g0's entity may stay queued as delayed. unthrottle_cfs_rq() must then
    // finish that dequeue and enqueue g0's entity again with the burner below it; stopping at
    // it as at any queued ancestor leaves the next pick to dequeue it with the burner, and
    // the CPU's h_nr_queued short (found by fuzz_generator).
    for (const kernel_version v : {kernel_version{6, 12}, kernel_version{6, 17}}) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1);
        sc.length = 2 * nsec_per_sec;
        sc.cgroups = {cgroup("g0"), limited("g0/g1", 5 * ms)};
        sc.tasks = {burner("free"), in_group(periodic("p", 1 * ms, 2 * ms), "g0"),
                    in_group(burner("b"), "g0/g1")};
        libsched::system s(sc, sc.seed);
        s.check_invariants(true);
        const task& b = *s.find_task("b");
        const cfs_rq& q1 = *b.se.cfs_rq;
        const sched_entity& g0 = *q1.tg->parent->se[0];
        const rq& cpu = s.cpu_rq(0);
        int unthrottles = 0, below_delayed = 0;
        bool was_throttled = false, was_delayed = false;
        while (s.step()) {
            if (was_throttled && !q1.throttled) {
                ++unthrottles;
                if (was_delayed) {
                    ++below_delayed;
                    // g0 is queued for the burner alone (its own task sleeps), and the
                    // CPU's queue counts the burner and the free one.
                    CHECK(g0.on_rq);
                    CHECK_FALSE(g0.sched_delayed);
                    CHECK(g0.my_q->h_nr_queued == 1);
                    CHECK(cpu.cfs.h_nr_queued == 2);
                }
            }
            was_throttled = q1.throttled;
            was_delayed = g0.sched_delayed;
        }
        CHECK(unthrottles >= 19);
        CHECK(below_delayed > 0);
    }
}

TEST_CASE("6.18: a task waking below a throttled queue is queued up to the root, then parked") {
    // g (5 ms / 100 ms) has a task that runs 1 ms and sleeps 2 ms, beside a free burner on
    // one CPU: most of its wakeups come while g is throttled.
    for (const kernel_version v : {kernel_version{6, 17}, kernel_version{6, 18}}) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1);
        sc.length = 1 * nsec_per_sec;
        sc.cgroups = {limited("g", 5 * ms)};
        sc.tasks = {in_group(periodic("p", 1 * ms, 2 * ms), "g"), burner("free")};
        libsched::system s(sc, sc.seed);
        s.check_invariants(true);
        const task& p = *s.find_task("p");
        const cfs_rq& q = *p.sched_task_group->cfs_rq[0];
        const rq& cpu = s.cpu_rq(0);
        int seen_from_root = 0, parked = 0;
        bool was_parked = false;
        while (s.step()) {
            // Queued below the throttled queue: does the CPU's queue count it?
            if (q.throttled && p.se.on_rq && cpu.cfs.h_nr_queued == 2)
                ++seen_from_root;
            if (p.throttled && !was_parked)
                ++parked;
            was_parked = p.throttled;
        }
        if (v >= kernel_version{6, 18}) {
            CHECK(seen_from_root > 0);
            CHECK(parked >= 5);
        } else {
            CHECK(seen_from_root == 0);
            CHECK(parked == 0);
        }
    }
}

namespace {

// Two CPUs. g (20 ms / 100 ms) has two burners pinned to CPU 0 beside a free burner pinned
// there; CPU 1 runs a short periodic task, so it goes newly idle every 0.7 ms. At `widen`
// (if > 0) the burners may run on both CPUs.
scenario pinned_group_then_free(kernel_version v, sim_time widen) {
    scenario sc = machine(v, 2);
    sc.length = 1 * nsec_per_sec;
    sc.cgroups = {limited("g", 20 * ms)};
    task_spec a = in_group(burner("a", 0, 2), "g");
    a.affinity = {0};
    if (widen > 0)
        a.set_affinity.push_back({widen, {0, 1}});
    task_spec f = burner("f");
    f.affinity = {0};
    task_spec p = periodic("p", 200'000, 500'000);
    p.affinity = {1};
    sc.tasks = {a, f, p};
    return sc;
}

struct group_moves {
    int moves = 0, from_throttled = 0, to_throttled = 0;
};

group_moves count_group_moves(const scenario& sc) {
    const libsched::system* view = nullptr;
    group_moves m;
    libsched::system s(sc, sc.seed, [&](const trace_event& e) {
        if (e.kind != trace_kind::sched_migrate_task || view == nullptr)
            return;
        for (const auto& t : view->tasks())
            if (t->pid == e.pid && !t->sched_task_group->is_root()) {
                const task_group& tg = *t->sched_task_group;
                ++m.moves;
                m.from_throttled += throttled_hierarchy(*tg.cfs_rq[e.cpu]) ? 1 : 0;
                m.to_throttled += throttled_hierarchy(*tg.cfs_rq[e.dest_cpu]) ? 1 : 0;
            }
    });
    view = &s;
    s.check_invariants(true);
    s.run(sc.length);
    return m;
}

} // namespace

TEST_CASE("6.18: the balancer may move a task from where its group is throttled, not to it") {
    // Find an instant at which g is throttled on CPU 0 while its tasks wait there unparked
    // (the free burner runs), and let the burners move just after it.
    sim_time widen = 0;
    {
        const scenario sc = pinned_group_then_free({6, 18}, 0);
        libsched::system s(sc, sc.seed);
        const cfs_rq& q = *s.find_task("a.0")->sched_task_group->cfs_rq[0];
        while (s.step() && widen == 0)
            if (s.now() > 200 * ms && q.throttled && q.h_nr_queued > 0)
                widen = s.now() + 100'000;
    }
    REQUIRE(widen > 0);
    // CPU 1, newly idle, pulls a waiting burner at once on 6.18 (throttled_lb_pair() is
    // gone, and g is not throttled on CPU 1); 6.17 waits for the unthrottle.
    const group_moves task_based = count_group_moves(pinned_group_then_free({6, 18}, widen));
    CHECK(task_based.from_throttled > 0);
    CHECK(task_based.to_throttled == 0); // lb_throttled_hierarchy()
    const group_moves whole_queue = count_group_moves(pinned_group_then_free({6, 17}, widen));
    CHECK(whole_queue.moves > 0);
    CHECK(whole_queue.from_throttled == 0);
    CHECK(whole_queue.to_throttled == 0);
}

TEST_CASE("6.18: throttled_time counts from the first parked task to the unthrottle") {
    // One CPU, a limited burner beside a free one: after the throttle the free burner may
    // run a while before g is picked and its task parked. 6.6-6.17 count the throttled
    // time from the throttle (the queue has a task), 6.18 from the parking (eb962f251fbb).
    for (const kernel_version v :
         {kernel_version{6, 12}, kernel_version{6, 17}, kernel_version{6, 18}}) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1);
        sc.length = 2 * nsec_per_sec;
        sc.cgroups = {limited("g", 10 * ms)};
        sc.tasks = {in_group(burner("b"), "g"), burner("free", -3)};
        libsched::system s(sc, sc.seed);
        const task& b = *s.find_task("b");
        const cfs_rq& q = *b.sched_task_group->cfs_rq[0];
        // The time the queue was throttled and the time b was parked, closed intervals
        // only (cpu.stat adds a throttle at its end).
        duration throttled = 0, parked = 0;
        sim_time throttled_since = -1, parked_since = -1;
        sim_time before = 0;
        while (s.step()) {
            if (q.throttled && throttled_since < 0)
                throttled_since = before;
            if (!q.throttled && throttled_since >= 0) {
                throttled += s.now() - throttled_since;
                throttled_since = -1;
            }
            if (b.throttled && parked_since < 0)
                parked_since = before;
            if (!b.throttled && parked_since >= 0) {
                parked += s.now() - parked_since;
                parked_since = -1;
            }
            before = s.now();
        }
        const duration counted = b.sched_task_group->cfs_b->throttled_time;
        CHECK(counted > 0);
        // Each interval is known to within the events around its ends.
        if (v >= kernel_version{6, 18}) {
            CHECK(parked > 0);
            CHECK(parked < throttled);
            CHECK(static_cast<double>(counted) ==
                  Approx(static_cast<double>(parked)).margin(20.0 * 10'000));
        } else {
            CHECK(parked == 0);
            CHECK(static_cast<double>(counted) ==
                  Approx(static_cast<double>(throttled)).margin(20.0 * 10'000));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The slack timer (__return_cfs_rq_runtime(), start_cfs_slack_bandwidth(),
// do_sched_cfs_slack_timer()): a queue that empties gives back what it holds beyond
// min_cfs_rq_runtime (1 ms); if that leaves more than a slice in the pool while a queue of
// the group is throttled, the pool is handed to the throttled queues 5 ms later, unless the
// period refresh is less than 7 ms away. A throttle leaves the pool empty (it took the last
// of it), and a queue holds at most a slice, so one queue's return (at most 4 ms) never
// starts the timer: it takes two.

namespace {

constexpr duration sleeper_run = 2'200'000; // CPU time of each sleeper's activation
constexpr duration held_until = 1'500'000;  // of which it runs this much before the hold

// What a sleeper's queue gives back: at the preemption it has run 1.5 ms of the 1 ms its
// queue kept, so the queue takes the pool's runtime back up to a slice; it then runs the
// rest of its activation and gives back what it holds beyond min_cfs_rq_runtime.
constexpr duration returned_by_each =
    default_cfs_bandwidth_slice - (sleeper_run - held_until) - min_cfs_rq_runtime; // 3.3 ms

// 4 CPUs at HZ 1000. g (50 ms / 100 ms) has a burner pinned to each of CPUs 0 and 1, which
// use up the pool about 20 ms into each period and are throttled, each less than a tick in
// debt; on CPUs 2 and 3 a task (of g, or of an unlimited group h) wakes once per period,
// a millisecond or two after `period_start`, and runs 2.2 ms, preempted after 1.5 ms by a
// SCHED_FIFO task pinned beside it that runs `hold`. The sleepers' queues thus take a slice
// while the pool is still full and empty after the burners' throttle. Ticks fall on
// multiples of the tick period: the wakeup comes an eighth of a tick after one, so that no
// tick charges a sleeper between its first millisecond and the preemption. The timings
// below are those of the wakeups themselves: no timer slack and no idle exit latency.
scenario slack_scenario(kernel_version v, duration hold, bool sleepers_in_g = true,
                        sim_time period_start = 0) {
    scenario sc = machine(v, 4);
    sc.machine.hz = 1000;
    sc.machine.timer_slack_ns = 0;
    sc.machine.idle_exit_latency_ns = 0;
    sc.cgroups = {limited("g", 50 * ms), cgroup("h")};
    task_spec b0 = in_group(burner("b0"), "g");
    b0.affinity = {0};
    task_spec b1 = in_group(burner("b1"), "g");
    b1.affinity = {1};
    sc.tasks = {b0, b1};
    const duration tick = nsec_per_sec / sc.machine.hz;
    const sim_time wake = (period_start + 1 * ms + tick - 1) / tick * tick + tick / 8;
    for (const int cpu : {2, 3}) {
        task_spec s = in_group(periodic("s" + std::to_string(cpu), sleeper_run, 0),
                               sleepers_in_g ? "g" : "h");
        s.behaviour.period = 100 * ms;
        s.start = wake;
        s.affinity = {cpu};
        task_spec rt = periodic("rt" + std::to_string(cpu), hold, 0);
        rt.policy = sched_policy::fifo;
        rt.rt_priority = 50;
        rt.behaviour.period = 100 * ms;
        rt.start = wake + held_until;
        rt.affinity = {cpu};
        sc.tasks.push_back(s);
        sc.tasks.push_back(rt);
    }
    return sc;
}

// The instant g's period timer first expires (drawn at random from 6.4 on): the periods
// start there, every 100 ms.
sim_time first_refresh(const scenario& sc) {
    const libsched::system s(sc, sc.seed);
    return s.find_task("b0")->sched_task_group->cfs_b->period_timer.expires();
}

// slack_scenario() with the sleepers woken in step with g's periods; the sleepers' second
// return comes `returned_at` after a period's start when the hold is returned_at - (the
// wakeup's offset + the sleepers' run).
scenario slack_scenario_returning_at(kernel_version v, duration returned_at,
                                     bool sleepers_in_g = true) {
    const sim_time refresh = first_refresh(slack_scenario(v, 10 * ms));
    const sim_time period_start = refresh % (100 * ms);
    scenario sc = slack_scenario(v, 10 * ms, sleepers_in_g, period_start);
    const duration hold = period_start + returned_at - sc.tasks[2].start - sleeper_run;
    sc = slack_scenario(v, hold, sleepers_in_g, period_start);
    REQUIRE(first_refresh(sc) == refresh); // drawn before the tasks exist
    return sc;
}

// g's queues and pool followed event by event over the window: the returns of the sleepers'
// queues (CPUs 2, 3), the slack timer's starts, the unthrottles of the burners' queues (CPUs
// 0, 1) other than at a refresh, and per period the pool left at its end and g's CPU time
// (read at the refresh: exact when g's tasks were not running just before it).
struct slack_walk {
    std::vector<s64> returned;             // pool increase at each sleeper queue's emptying
    std::vector<s64> pool_at_return;       // the pool after it
    std::vector<bool> throttled_at_return; // both burners' queues throttled then
    std::vector<sim_time> slack_started;   // when start_cfs_slack_bandwidth() armed it
    std::vector<sim_time> unthrottled;     // burner queues unthrottled off the refresh
    std::vector<sim_time> refresh_after;   // the refresh following each such unthrottle
    std::vector<s64> pool_at_refresh;      // what the pool held when each period ended
    std::vector<duration> group_ran;       // g's CPU time in each whole period
};

slack_walk walk_slack(const scenario& sc) {
    libsched::system s(sc, sc.seed);
    s.check_invariants(true);
    const task_group& g = *s.find_task("b0")->sched_task_group;
    const cfs_bandwidth& b = *g.cfs_b;
    const auto group_time = [&] {
        duration sum = 0;
        for (const auto& t : s.tasks())
            if (t->sched_task_group == &g)
                sum += t->se.sum_exec_runtime;
        return sum;
    };
    s.run(sc.window_start);
    slack_walk w;
    sim_time refresh = b.period_timer.expires();
    std::vector<unsigned> queued;
    std::vector<bool> throttled;
    for (const cfs_rq* q : g.cfs_rq) {
        queued.push_back(q->nr_queued);
        throttled.push_back(q->throttled);
    }
    bool started = b.slack_started;
    s64 pool = b.runtime;
    std::optional<duration> ran_at_refresh;
    while (s.step()) {
        const bool refreshed = b.period_timer.expires() != refresh;
        if (refreshed) {
            w.pool_at_refresh.push_back(pool);
            const duration ran = group_time();
            if (ran_at_refresh)
                w.group_ran.push_back(ran - *ran_at_refresh);
            ran_at_refresh = ran;
            refresh = b.period_timer.expires();
        }
        for (std::size_t c = 2; c < 4; ++c) {
            if (queued[c] > 0 && g.cfs_rq[c]->nr_queued == 0) {
                w.returned.push_back(b.runtime - pool);
                w.pool_at_return.push_back(b.runtime);
                w.throttled_at_return.push_back(g.cfs_rq[0]->throttled && g.cfs_rq[1]->throttled);
            }
            queued[c] = g.cfs_rq[c]->nr_queued;
        }
        if (b.slack_started && !started)
            w.slack_started.push_back(s.now());
        started = b.slack_started;
        for (std::size_t c = 0; c < 2; ++c) {
            if (throttled[c] && !g.cfs_rq[c]->throttled && !refreshed) {
                w.unthrottled.push_back(s.now());
                w.refresh_after.push_back(refresh);
            }
            throttled[c] = g.cfs_rq[c]->throttled;
        }
        pool = b.runtime;
    }
    return w;
}

} // namespace

TEST_CASE("slack: two emptied queues' returns are handed to the throttled queues 5 ms later") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        // The second return 45 ms into each period: the burners are throttled by then.
        const scenario sc = slack_scenario_returning_at(v, 45 * ms);
        const slack_walk w = walk_slack(sc);
        // 90 periods in the window, two returns in each.
        REQUIRE(w.returned.size() >= 2 * 89);
        for (std::size_t i = 0; i < w.returned.size(); ++i) {
            INFO("return " << i);
            CHECK(static_cast<double>(w.returned[i]) ==
                  Approx(static_cast<double>(returned_by_each)).margin(50'000));
            CHECK(w.throttled_at_return[i]);
        }
        // The first return of a period leaves 3.3 ms in the pool (not above a slice), the
        // second 6.6 ms, which starts the slack timer.
        std::size_t second_returns = 0;
        for (std::size_t i = 0; i < w.pool_at_return.size(); ++i)
            second_returns += w.pool_at_return[i] > default_cfs_bandwidth_slice ? 1 : 0;
        CHECK(second_returns >= 89);
        CHECK(w.slack_started.size() == second_returns);
        // It fires 5 ms later and unthrottles both burners' queues (each needs its debt and
        // 1 ns), before the period's end; nothing else unthrottles them between refreshes.
        REQUIRE(w.unthrottled.size() == 2 * w.slack_started.size());
        for (std::size_t i = 0; i < w.unthrottled.size(); ++i) {
            INFO("unthrottle " << i);
            CHECK(w.unthrottled[i] == w.slack_started[i / 2] + cfs_bandwidth_slack_period);
            CHECK(w.refresh_after[i] - w.unthrottled[i] >= min_bandwidth_expiration);
        }
        // The burners use up what was handed out before the period ends (they are throttled
        // again well before): nothing is left to be lost at the refresh.
        for (const s64 left : w.pool_at_refresh)
            CHECK(left == 0);
        // Per period g runs its quota, and no more than a tick per burner beyond it (the
        // overrun charged at the tick, repaid from the next period).
        const duration tick = nsec_per_sec / sc.machine.hz;
        REQUIRE(w.group_ran.size() >= 89);
        for (const duration ran : w.group_ran) {
            CHECK(ran <= 50 * ms + 2 * tick);
            CHECK(ran >= 50 * ms - 2 * tick);
        }
    }
}

TEST_CASE("slack: what the slack timer hands out is CPU time the burners would lose") {
    // Per 100 ms period g has its 50 ms quota. Sleepers outside g leave it all to the
    // burners. Sleepers in g use 2 x 2.2 ms of it; with the slack timer the 2 x 3.3 ms their
    // queues give back reach the burners, so that g still uses its whole quota. Given back
    // less than 7 ms before the refresh, the slack timer is not started and the returned
    // runtime is lost (the refill caps the pool at the quota).
    const double period = 100.0 * ms;
    const double quota = 50.0 * ms;
    const double sleepers = 2.0 * sleeper_run;
    const double returned = 2.0 * returned_by_each;
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        const auto burners = [](const repetition_result& r) {
            return find(r, "b0").share + find(r, "b1").share;
        };
        const repetition_result apart = run_one(slack_scenario_returning_at(v, 45 * ms, false));
        const repetition_result slack = run_one(slack_scenario_returning_at(v, 45 * ms));
        const repetition_result late = run_one(slack_scenario_returning_at(v, 93'500'000));
        CHECK(burners(apart) == Approx(quota / period).margin(0.003));
        CHECK(burners(slack) == Approx((quota - sleepers) / period).margin(0.003));
        CHECK(group(slack, "g").share == Approx(quota / period).margin(0.003));
        CHECK(burners(late) == Approx((quota - sleepers - returned) / period).margin(0.003));
        CHECK(group(late, "g").share == Approx((quota - returned) / period).margin(0.003));
        // The extra the slack path gives the burners is what the sleepers' queues returned.
        CHECK(burners(slack) - burners(late) == Approx(returned / period).margin(0.003));
    }
}

TEST_CASE("slack: no slack timer when the period refresh is less than 7 ms away") {
    for (const kernel_version v : all_releases) {
        INFO("kernel " << v.str());
        // Returned 7.5 ms before the refresh (less by the interrupt time of the ticks during
        // the hold, about 0.2 ms): the timer starts and fires 2.5 ms before it, not within
        // min_bandwidth_expiration, so it hands the pool out.
        const slack_walk in_time = walk_slack(slack_scenario_returning_at(v, 92'500'000));
        CHECK(in_time.slack_started.size() >= 89);
        REQUIRE(in_time.unthrottled.size() == 2 * in_time.slack_started.size());
        for (std::size_t i = 0; i < in_time.unthrottled.size(); ++i) {
            INFO("unthrottle " << i);
            CHECK(in_time.unthrottled[i] ==
                  in_time.slack_started[i / 2] + cfs_bandwidth_slack_period);
            const duration before_refresh = in_time.refresh_after[i] - in_time.unthrottled[i];
            CHECK(before_refresh >= min_bandwidth_expiration);
            CHECK(before_refresh <= 2'500'000);
        }
        // Returned 6.5 ms before it (runtime_refresh_within()): no timer; the burners stay
        // throttled until the refresh, and the pool holds the returned runtime at its end.
        const slack_walk late = walk_slack(slack_scenario_returning_at(v, 93'500'000));
        CHECK(late.returned.size() >= 2 * 89);
        CHECK(late.slack_started.empty());
        CHECK(late.unthrottled.empty());
        REQUIRE(late.pool_at_refresh.size() >= 89);
        for (const s64 left : late.pool_at_refresh)
            CHECK(static_cast<double>(left) == Approx(2.0 * returned_by_each).margin(2.0 * 50'000));
    }
}

} // namespace test_bandwidth
