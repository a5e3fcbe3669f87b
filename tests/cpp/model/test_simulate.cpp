// model/simulate.hpp: whole scenarios against what the kernel rules imply: conservation of
// CPU time, weight-proportional shares, tick-quantised switch rates, counters, /proc and
// getrusage readings, determinism.
#include "model_helpers.hpp"
#include "same_result.hpp"
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <libsched/model/estimate.hpp>
#include <libsched/model/fair_params_of.hpp>
#include <libsched/model/simulate.hpp>
#include <string>
#include <vector>

using namespace libsched;

namespace test_simulate {

namespace {

using model_test::burner;
using model_test::find;
using model_test::periodic;
using model_test::run_one;

constexpr duration us = nsec_per_usec;
constexpr duration ms = nsec_per_msec;
constexpr duration sec = nsec_per_sec;

const kernel_version all_versions[] = {{5, 15}, {6, 6}, {6, 12}, {6, 18}};

// One CPU and no tasks yet, the given release and HZ; `online` sets the tunable scaling.
scenario one_cpu(kernel_version k, int hz = 250, int online = 1) {
    scenario sc;
    sc.name = "test";
    sc.machine.cpus = 1;
    sc.machine.online_cpus = online;
    sc.machine.hz = hz;
    sc.machine.kernel = k;
    return sc;
}

// Bursts and sleeps drawn from uniform and exponential distributions.
task_spec random_task(const std::string& name, int count) {
    task_spec t = burner(name, 0, count);
    t.behaviour.type = behaviour_spec::kind::random;
    t.behaviour.run_dist = {distribution::kind::exponential, 2 * ms, 0};
    t.behaviour.sleep_dist = {distribution::kind::uniform, 1 * ms, 15 * ms};
    return t;
}

duration window_of(const scenario& sc) {
    return sc.window_stop() - sc.window_start;
}

double busy_fraction(const repetition_result& r, const scenario& sc, int cpu = 0) {
    return static_cast<double>(r.cpus[static_cast<std::size_t>(cpu)].window_busy) /
           static_cast<double>(window_of(sc));
}

// Share of one task as a fraction of the CPU's busy time in the window.
double busy_share(const repetition_result& r, const scenario& sc, const std::string& name) {
    return find(r, name).share / busy_fraction(r, sc);
}

std::uint64_t window_switches(const repetition_result& r) {
    std::uint64_t n = 0;
    for (const task_result& t : r.tasks)
        n += t.window_nivcsw + t.window_nvcsw;
    return n;
}

// Scenarios that mix burners, nice levels, renice, exits, sleepers and random tasks on two
// CPUs.
std::vector<scenario> mixed_scenarios() {
    std::vector<scenario> out;
    for (const kernel_version k : all_versions) {
        for (const int hz : {250, 1000}) {
            scenario sc = one_cpu(k, hz, 8);
            sc.machine.cpus = 2;
            sc.length = 3 * sec;
            sc.window_start = 1 * sec;
            sc.window_end = 2'500 * ms;
            sc.tasks = {burner("hog", 0, 2), burner("light", 7), periodic("tick", 1 * ms, 9 * ms),
                        random_task("rnd", 3)};
            // The burners end inside the window, so the CPUs idle too.
            sc.tasks[0].exit_at = 2 * sec;
            sc.tasks[1].start = 100 * ms;
            sc.tasks[1].lifetime = 2 * sec;
            sc.tasks[1].renice = {{1'500 * ms, -3}};
            sc.tasks[3].lifetime = 1'700 * ms;
            out.push_back(sc);
        }
    }
    return out;
}

} // namespace

// Tasks migrate, so the CPU time handed out is conserved over the machine, not per CPU.
TEST_CASE("the CPUs' busy time is the tasks' runtime plus the IRQ time") {
    for (const scenario& sc : mixed_scenarios()) {
        const repetition_result r = run_one(sc);
        INFO(sc.machine.kernel.str() << " HZ " << sc.machine.hz);
        REQUIRE(r.cpus.size() == 2);
        duration runtime = 0, busy = 0, irq = 0;
        for (const task_result& t : r.tasks)
            runtime += t.sum_exec_runtime;
        for (const cpu_result& c : r.cpus) {
            INFO("CPU " << c.cpu);
            CHECK(c.busy + c.idle == sc.length);
            CHECK(c.irq > 0);
            busy += c.busy;
            irq += c.irq;
        }
        CHECK(runtime + irq == busy);
    }
}

TEST_CASE("without tick IRQ time runtime is busy time, in the window and overall") {
    for (scenario sc : mixed_scenarios()) {
        sc.machine.tick_irq_ns = 0;
        const repetition_result r = run_one(sc);
        INFO(sc.machine.kernel.str() << " HZ " << sc.machine.hz);
        duration window = 0, whole = 0, busy = 0, window_busy = 0;
        for (const task_result& t : r.tasks) {
            window += t.window_runtime;
            whole += t.sum_exec_runtime;
        }
        for (const cpu_result& c : r.cpus) {
            INFO("CPU " << c.cpu);
            CHECK(c.irq == 0);
            CHECK(c.busy + c.idle == sc.length);
            CHECK(c.window_busy + c.window_idle == window_of(sc));
            CHECK(c.window_idle > 0); // the burners exit: idle time is accounted too
            busy += c.busy;
            window_busy += c.window_busy;
        }
        CHECK(whole == busy);
        CHECK(window == window_busy);
    }
}

TEST_CASE("N equal burners on one CPU get 1/N each") {
    for (const kernel_version k : all_versions) {
        for (const int n : {1, 2, 3, 4, 8}) {
            scenario sc = one_cpu(k);
            sc.machine.tick_irq_ns = 0; // so that the shares add up to the busy time exactly
            sc.length = 21 * sec;
            sc.window_start = 1 * sec;
            sc.tasks = {burner("b", 0, n)};
            const repetition_result r = run_one(sc);
            INFO(k.str() << ", " << n << " burners");
            double total = 0;
            duration runtime = 0;
            for (const task_result& t : r.tasks) {
                CHECK(t.share == Approx(1.0 / n).margin(0.002));
                total += t.share;
                runtime += t.window_runtime;
            }
            CHECK(runtime == r.cpus[0].window_busy);
            CHECK(r.cpus[0].window_idle == 0);
            CHECK(total == Approx(busy_fraction(r, sc)).margin(1e-9));
        }
    }
}

TEST_CASE("a nice 19 burner alone gets the whole CPU") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k);
        sc.length = 5 * sec;
        sc.tasks = {burner("low", 19)};
        const repetition_result r = run_one(sc);
        INFO(k.str());
        CHECK(find(r, "low").share > 0.999); // all but the tick IRQ time and the fork
    }
}

TEST_CASE("two burners share in the ratio of their weights") {
    // share = w / (w + 1024): nice 5 weighs 335, nice 10 weighs 110.
    struct pair_case {
        int nice;
        double weight;
    };
    for (const kernel_version k : all_versions) {
        for (const pair_case pc : {pair_case{5, 335}, pair_case{10, 110}}) {
            scenario sc = one_cpu(k, 250, 8);
            sc.length = 21 * sec;
            sc.window_start = 1 * sec;
            sc.tasks = {burner("ref"), burner("other", pc.nice)};
            const repetition_result r = run_one(sc);
            INFO(k.str() << ", nice 0 vs " << pc.nice);
            const double ref = 1024.0 / (1024.0 + pc.weight);
            CHECK(busy_share(r, sc, "ref") == Approx(ref).margin(0.003));
            CHECK(busy_share(r, sc, "other") == Approx(1.0 - ref).margin(0.003));
        }
    }
}

TEST_CASE("SCHED_IDLE against nice 0 gets about 3/1027") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k, 250, 8);
        sc.length = 21 * sec;
        sc.window_start = 1 * sec;
        sc.tasks = {burner("normal"), burner("idle")};
        sc.tasks[1].policy = sched_policy::idle;
        const repetition_result r = run_one(sc);
        INFO(k.str());
        // One turn of the idle task is a tick (4 ms) of 20 s: 0.02 pp either way.
        CHECK(busy_share(r, sc, "idle") == Approx(3.0 / 1027.0).margin(0.0005));
    }
}

namespace {
struct switch_case {
    const char* what;
    kernel_version kernel;
    int hz;
    int online;
    double per_second; // expected switches per second
    bool irq_free = false;
};
} // namespace

TEST_CASE("two nice-0 burners switch at the tick-quantised slice") {
    const switch_case cases[] = {
        // EEVDF, 1 online CPU: slice 0.75 ms < one 4 ms tick, so every tick finds the
        // deadline passed and switches.
        {"6.6, 1 CPU, HZ 250", {6, 6}, 250, 1, 250.0},
        {"6.12, 1 CPU, HZ 250", {6, 12}, 250, 1, 250.0},
        {"6.18, 1 CPU, HZ 250", {6, 18}, 250, 1, 250.0},
        // 8 online CPUs, slice 3 ms: at HZ 250 the first tick after 3 ms is at 4 ms.
        {"6.6, 8 CPUs, HZ 250", {6, 6}, 250, 8, 250.0},
        {"6.12, 8 CPUs, HZ 250", {6, 12}, 250, 8, 250.0},
        // HZ 1000: a turn starts resched_latency after a tick and the ticks' IRQ time is
        // not charged, so after three ticks the task has run just short of 3 ms; the
        // fourth tick ends the turn: 4 ms turns.
        {"6.6, 8 CPUs, HZ 1000", {6, 6}, 1000, 8, 250.0},
        {"6.12, 8 CPUs, HZ 1000", {6, 12}, 1000, 8, 250.0},
        // Without IRQ time or reschedule latency three ticks are exactly 3 ms: 3 ms turns.
        {"6.6, 8 CPUs, HZ 1000, no IRQ time", {6, 6}, 1000, 8, 1000.0 / 3, true},
        {"6.12, 8 CPUs, HZ 1000, no IRQ time", {6, 12}, 1000, 8, 1000.0 / 3, true},
        // 6.15+: slice 2.8 ms, three ticks are enough: 3 ms turns.
        {"6.18, 8 CPUs, HZ 1000", {6, 18}, 1000, 8, 1000.0 / 3},
        // Old CFS, 8 CPUs: ideal slice 24 ms / 2 = 12 ms and check_preempt_tick wants
        // strictly more: at HZ 250 the 4th tick (16 ms), at HZ 1000 the 13th (13 ms).
        {"5.15, 8 CPUs, HZ 250", {5, 15}, 250, 8, 1000.0 / 16},
        {"5.15, 8 CPUs, HZ 1000", {5, 15}, 1000, 8, 1000.0 / 13},
        // Old CFS, 1 CPU: latency 6 ms, slice 3 ms, exceeded at the first tick.
        {"5.15, 1 CPU, HZ 250", {5, 15}, 250, 1, 250.0},
    };
    for (const switch_case& c : cases) {
        scenario sc = one_cpu(c.kernel, c.hz, c.online);
        if (c.irq_free) {
            sc.machine.tick_irq_ns = 0;
            sc.machine.resched_latency_ns = 0;
        }
        sc.length = 21 * sec;
        sc.window_start = 1 * sec;
        sc.tasks = {burner("a"), burner("b")};
        const repetition_result r = run_one(sc);
        INFO(c.what);
        const double expected = c.per_second * 20.0;
        const auto n = static_cast<double>(window_switches(r));
        CHECK(n >= expected - 1.0);
        CHECK(n <= expected + 1.0);
        // Burners never block: every switch preempts one of them. Over the whole run the
        // CPU switched once more, from idle to the first task.
        const task_result& a = find(r, "a");
        const task_result& b = find(r, "b");
        CHECK(a.nvcsw + b.nvcsw == 0);
        CHECK(a.nivcsw + b.nivcsw + 1 == r.cpus[0].nr_switches);
    }
}

TEST_CASE("burners that read their CPU clock switch at the slice's end, not the tick (6.6+)") {
    // Each read runs update_curr(), which ends the turn once the slice is used up, so
    // turns last one slice (1 online CPU: 0.75 ms to 6.14, 0.70 ms from 6.15), against a
    // 4 ms tick. Old CFS's update_curr() never reschedules: nothing changes there.
    struct reads_case {
        kernel_version kernel;
        double slice_ms; // 0: old CFS, turns stay at the tick
    };
    for (const reads_case c : {reads_case{{6, 6}, 0.75}, reads_case{{6, 12}, 0.75},
                               reads_case{{6, 18}, 0.70}, reads_case{{5, 15}, 0.0}}) {
        INFO("kernel " << c.kernel.str());
        scenario sc = one_cpu(c.kernel);
        sc.length = 11 * sec;
        sc.window_start = 1 * sec;
        sc.tasks = {burner("a"), burner("b")};
        const repetition_result plain = run_one(sc);
        for (task_spec& t : sc.tasks)
            t.cpu_clock_reads = 10'000;
        const repetition_result reading = run_one(sc);
        const double per_second = static_cast<double>(window_switches(reading)) / 10.0;
        if (c.slice_ms == 0.0) {
            testing::check_same(plain, reading, false);
            continue;
        }
        const double expected = 1000.0 / c.slice_ms;
        CHECK(per_second > 0.98 * expected);
        CHECK(per_second <= expected);
        CHECK(std::abs(find(reading, "a").share - 0.5) < 0.005);
        CHECK(std::abs(find(reading, "b").share - 0.5) < 0.005);
        CHECK(static_cast<double>(window_switches(plain)) / 10.0 == Approx(250.0).margin(0.2));
    }
}

TEST_CASE("a task's CPU clock reads are not switches, wakeups or CPU time") {
    // One reader alone on its CPU: the reads change nothing a user could see.
    scenario sc = one_cpu({6, 18});
    sc.length = 3 * sec;
    sc.tasks = {periodic("p", 2 * ms, 3 * ms)};
    const repetition_result plain = run_one(sc);
    sc.tasks[0].cpu_clock_reads = 5'000;
    testing::check_same(plain, run_one(sc), false);
}

TEST_CASE("the same scenario and seed give identical results") {
    for (const scenario& sc : mixed_scenarios()) {
        INFO(sc.machine.kernel.str() << " HZ " << sc.machine.hz);
        testing::check_same(run_one(sc), run_one(sc));
    }
}

TEST_CASE("different seeds give different results when behaviour is random") {
    scenario sc = mixed_scenarios().front();
    const repetition_result a = run_one(sc);
    sc.seed = 2;
    const repetition_result b = run_one(sc);
    std::vector<duration> ra, rb;
    for (const task_result& t : a.tasks)
        ra.push_back(t.sum_exec_runtime);
    for (const task_result& t : b.tasks)
        rb.push_back(t.sum_exec_runtime);
    CHECK(ra != rb);
    // Repetitions of one run use seed + r: they differ from each other too.
    sc.repetitions = 2;
    const run_result both = simulate(sc);
    REQUIRE(both.repetitions.size() == 2);
    CHECK(both.repetitions[0].seed == 2);
    CHECK(both.repetitions[1].seed == 3);
    CHECK(find(both.repetitions[0], "rnd.1").sum_exec_runtime !=
          find(both.repetitions[1], "rnd.1").sum_exec_runtime);
}

TEST_CASE("a periodic task alone: 10 %, one voluntary switch per period, prompt wakeups") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k);
        sc.machine.resched_latency_ns = 3'000; // distinct from every other delay here
        sc.length = 11 * sec;
        sc.window_start = 1 * sec;
        sc.tasks = {periodic("p", 1 * ms, 9 * ms)};
        const repetition_result r = run_one(sc);
        const task_result& p = find(r, "p");
        INFO(k.str());
        // A period is 1 ms of CPU, 9 ms of sleep, its timer slack, the idle CPU's exit from
        // its idle state and the wakeup latency: 10.054 ms.
        const duration period = 10 * ms + sc.machine.timer_slack_ns +
                                sc.machine.idle_exit_latency_ns + sc.machine.resched_latency_ns;
        CHECK(p.share == Approx(1.0 * ms / static_cast<double>(period)).margin(0.0005));
        CHECK(static_cast<double>(p.window_nvcsw) ==
              Approx(10.0 * sec / static_cast<double>(period)).margin(1.0));
        CHECK(p.nivcsw == 0);
        // Woken on an idle CPU, it runs as soon as the reschedule takes effect; only the
        // window's wakeups are measured.
        REQUIRE(p.wakeup_latency.size() + 1 >= p.window_nvcsw);
        REQUIRE(p.wakeup_latency.size() <= p.window_nvcsw + 1);
        for (const duration l : p.wakeup_latency)
            REQUIRE(l == sc.machine.resched_latency_ns);
    }
}

TEST_CASE("a periodic sleeper against a burner: 10 % on CFS, 1/11 to 1/10 on EEVDF") {
    // CFS: the waking sleeper is placed latency/2 behind min_vruntime, far left of the
    // hog, so it preempts at once and gets its 1 ms every 10 ms: 10 %.
    // EEVDF keeps lag across sleep (PLACE_LAG). While both are runnable V moves at half
    // the speed of the one running, so each 1 ms burst costs the sleeper 0.5 ms of lag and
    // a wait of W for the CPU gains it W / 2. Its lag stays bounded, so W averages 1 ms:
    // periods of 11 ms, 1/11 = 9.09 % (6.6-6.11: a fair share of the time it is runnable).
    // 6.12+ DELAY_DEQUEUE lets it pay off a debt while blocked, and DELAY_ZERO drops only
    // lag gained while delayed, so W averages between 0 and 1 ms: 1/11 to 1/10.
    for (const kernel_version k : all_versions) {
        for (const int online : {1, 8}) {
            scenario sc = one_cpu(k, 250, online);
            sc.length = 21 * sec;
            sc.window_start = 1 * sec;
            sc.tasks = {periodic("sleeper", 1 * ms, 9 * ms), burner("hog")};
            const repetition_result r = run_one(sc);
            INFO(k.str() << ", " << online << " online CPUs");
            const double sleeper = find(r, "sleeper").share;
            if (!k.is_eevdf()) {
                CHECK(sleeper == Approx(0.10).margin(0.002));
            } else if (k < kernel_version{6, 12}) {
                CHECK(sleeper == Approx(1.0 / 11).margin(0.002));
            } else {
                CHECK(sleeper >= 1.0 / 11 - 0.002);
                CHECK(sleeper <= 1.0 / 10 + 0.002);
            }
            // The hog takes the rest of the busy time, and the CPU never idles.
            CHECK(find(r, "hog").share == Approx(busy_fraction(r, sc) - sleeper).margin(0.001));
            CHECK(r.cpus[0].window_idle == 0);
        }
    }
}

TEST_CASE("/proc utime of a burner follows its runtime in 10 ms units") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k, 250, 8);
        sc.length = 12 * sec;
        sc.window_start = 1'003 * ms; // not on a 10 ms boundary
        sc.window_end = 11'007 * ms;
        sc.tasks = {burner("a"), burner("b", 3)};
        const repetition_result r = run_one(sc);
        for (const task_result& t : r.tasks) {
            INFO(k.str() << " " << t.name);
            // No system ticks, so utime is the whole runtime as of the last update,
            // truncated to 10 ms units: the difference of two truncations is within one
            // unit of the difference of the lagging runtimes, which are at most a tick
            // (0.4 units) behind the precise ones at either end.
            const std::int64_t jiffies = t.stat_utime_end - t.stat_utime_start;
            const double precise = static_cast<double>(t.window_runtime) / (10.0 * ms);
            CHECK(std::abs(static_cast<double>(jiffies) - precise) < 1.4);
            CHECK(t.stat_stime_end == 0);
            CHECK(t.stime_ticks == 0);
        }
    }
}

TEST_CASE("getrusage of an exited burner is its runtime in microseconds") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k);
        sc.length = 3 * sec;
        sc.tasks = {burner("short"), burner("long")};
        sc.tasks[0].lifetime = 1'234'567'891;
        const repetition_result r = run_one(sc);
        const task_result& t = find(r, "short");
        INFO(k.str());
        CHECK(t.exited >= 0);
        CHECK(t.ru_utime_us == t.sum_exec_runtime / 1000);
        CHECK(t.ru_stime_us == 0);
    }
}

TEST_CASE("a task with a lifetime exits no earlier than start + lifetime") {
    for (const kernel_version k : all_versions) {
        // Alone it is running at its end of life and exits right then.
        scenario alone = one_cpu(k);
        alone.length = 2 * sec;
        alone.tasks = {burner("t")};
        alone.tasks[0].start = 100 * ms;
        alone.tasks[0].lifetime = 777 * ms;
        const repetition_result ra = run_one(alone);
        INFO(k.str());
        CHECK(find(ra, "t").exited == 877 * ms);
        CHECK(find(ra, "t").started == 100 * ms);

        // Against another burner it may be waiting, and exits when it next runs: within a
        // turn (at most 16 ms here).
        scenario shared = alone;
        shared.machine.online_cpus = 8;
        shared.tasks.push_back(burner("other"));
        const repetition_result rs = run_one(shared);
        const task_result& t = find(rs, "t");
        const task_result& other = find(rs, "other");
        CHECK(t.exited >= 877 * ms);
        CHECK(t.exited <= 877 * ms + 17 * ms);
        CHECK(other.exited == -1);
        // Until its exit it had about half of the CPU (within a turn); after it the other
        // burner has the CPU to itself (less the ticks' IRQ time).
        const duration half = (t.exited - 100 * ms) / 2;
        CHECK(std::abs(t.sum_exec_runtime - half) <= 20 * ms);
        CHECK(other.sum_exec_runtime >=
              100 * ms + half - 20 * ms + (2 * sec - t.exited) * 999 / 1000);
    }
}

TEST_CASE("renice at mid-run moves the share to the new weight ratio") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k, 250, 8);
        sc.length = 20 * sec;
        sc.window_start = 10'500 * ms; // the second half, after the change settled
        sc.tasks = {burner("ref"), burner("changed")};
        sc.tasks[1].renice = {{10 * sec, 5}};
        const repetition_result r = run_one(sc);
        INFO(k.str());
        CHECK(find(r, "changed").nice == 5);
        CHECK(busy_share(r, sc, "ref") == Approx(1024.0 / 1359.0).margin(0.005));
        CHECK(busy_share(r, sc, "changed") == Approx(335.0 / 1359.0).margin(0.005));
    }
}

TEST_CASE("nice 20 is clamped to 19") {
    scenario sc = one_cpu({6, 6});
    sc.length = 11 * sec;
    sc.window_start = 1 * sec;
    sc.tasks = {burner("ref"), burner("too_nice", 20)};
    const repetition_result r = run_one(sc);
    const task_result& t = find(r, "too_nice");
    CHECK(t.nice == 19);
    CHECK(t.nice_clamped);
    CHECK_FALSE(find(r, "ref").nice_clamped);
    CHECK(busy_share(r, sc, "too_nice") == Approx(15.0 / 1039.0).margin(0.003));
}

TEST_CASE("a task's system share splits its time between utime and stime") {
    // Each tick lands in kernel mode with probability system_share; cputime_adjust then
    // splits the precise runtime in the ratio of the samples, and utime + stime is the
    // runtime (each truncated to microseconds on the way out).
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k, 1000);
        sc.length = 20 * sec;
        sc.tasks = {burner("sys"), burner("user")};
        sc.tasks[0].system_share = 0.25;
        const repetition_result r = run_one(sc);
        const task_result& s = find(r, "sys");
        const task_result& u = find(r, "user");
        INFO(k.str());
        const double ticks = static_cast<double>(s.utime_ticks + s.stime_ticks);
        CHECK(static_cast<double>(s.stime_ticks) / ticks == Approx(0.25).margin(0.02));
        const double rusage_share =
            static_cast<double>(s.ru_stime_us) / static_cast<double>(s.ru_utime_us + s.ru_stime_us);
        CHECK(rusage_share == Approx(static_cast<double>(s.stime_ticks) / ticks).margin(1e-3));
        CHECK(std::llabs(s.ru_utime_us + s.ru_stime_us - s.sum_exec_runtime / 1000) <= 1);
        CHECK(u.stime_ticks == 0);
        CHECK(u.ru_stime_us == 0);
    }
}

TEST_CASE("the trace sink sees every switch, wakeup, fork and exit of every repetition") {
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k);
        sc.length = 2 * sec;
        sc.repetitions = 2;
        sc.tasks = {periodic("p", 1 * ms, 4 * ms), burner("b"), burner("short")};
        sc.tasks[2].lifetime = 500 * ms;
        std::vector<trace_event> events;
        run_options opt;
        opt.trace = [&](const trace_event& e) { events.push_back(e); };
        const run_result rr = simulate(sc, opt);
        for (int rep = 0; rep < sc.repetitions; ++rep) {
            const repetition_result& r = rr.repetitions[static_cast<std::size_t>(rep)];
            INFO(k.str() << " repetition " << rep);

            std::uint64_t switches = 0, wakeups = 0, forks = 0, exits = 0;
            int running = 0; // pid on the CPU according to the trace
            sim_time last = 0;
            for (const trace_event& e : events) {
                if (e.repetition != rep)
                    continue;
                CHECK(e.time >= last);
                last = e.time;
                switch (e.kind) {
                case trace_kind::sched_switch:
                    ++switches;
                    CHECK(e.pid == running); // the switch leaves whoever the last one started
                    CHECK(e.next_pid != e.pid);
                    running = e.next_pid;
                    break;
                case trace_kind::sched_wakeup:
                    ++wakeups;
                    break;
                case trace_kind::sched_wakeup_new:
                    ++forks;
                    break;
                case trace_kind::sched_process_exit:
                    ++exits;
                    CHECK(e.pid == running); // a process exits on the CPU
                    break;
                case trace_kind::sched_migrate_task:
                    FAIL_CHECK("a task migrated on a machine of one CPU");
                    break;
                }
            }
            CHECK(switches == r.cpus[0].nr_switches);
            // Every wakeup gets a latency once the task runs; the last may still be waiting.
            const std::uint64_t measured = find(r, "p").wakeup_latency.size();
            CHECK((wakeups == measured || wakeups == measured + 1));
            CHECK(forks == 3);
            CHECK(exits == 1);
        }
    }
}

TEST_CASE("renicing to the nice a task already has changes nothing") {
    // set_user_nice() returns early; it does not reset the running task's slice.
    for (const kernel_version k : all_versions) {
        scenario sc = one_cpu(k, 250, 8);
        sc.length = 2 * sec;
        sc.tasks = {burner("a"), burner("b")};
        const repetition_result plain = run_one(sc);
        for (int i = 1; i < 400; ++i)
            sc.tasks[0].renice.push_back({i * 5 * ms, 0});
        const repetition_result reniced = run_one(sc);
        INFO(k.str());
        CHECK(reniced.cpus[0].nr_switches == plain.cpus[0].nr_switches);
        CHECK(find(reniced, "a").sum_exec_runtime == find(plain, "a").sum_exec_runtime);
    }
}

TEST_CASE("sched_nr_latency follows written tunables only before 5.13") {
    // 5.13 moved the tunables to plain debugfs files; sched_proc_update_handler, which
    // re-derived sched_nr_latency = ceil(latency / min_granularity), went with the sysctls.
    machine_spec m;
    m.latency_ns = 48 * ms;
    m.min_granularity_ns = 3 * ms;
    m.kernel = {5, 10};
    CHECK(make_fair_params(m).tun.nr_latency == 16);
    m.kernel = {5, 15};
    CHECK(make_fair_params(m).tun.nr_latency == 8);
}

TEST_CASE(
    "stopping the tick of an idle CPU changes no result of pinned tasks, only the event count") {
    // With nothing to balance an idle tick changes nothing; the restarted tick keeps the
    // grid. (Unpinned, the idle CPU's own balancing and NOHZ idle balancing differ.) Without
    // timer slack: an idle CPU's tick is an hrtimer interrupt, which would end a sleep
    // inside its slack range early (the timer_slack conformance test).
    for (const kernel_version k : all_versions) {
        for (const int hz : {250, 1000}) {
            scenario sc = one_cpu(k, hz);
            sc.machine.cpus = 2;
            sc.length = 3 * sec;
            sc.window_start = 500 * ms;
            sc.tasks = {periodic("p", 2 * ms, 7 * ms), random_task("rnd", 3), burner("b")};
            sc.tasks[2].exit_at = 1 * sec;
            sc.tasks[0].affinity = {0};
            sc.tasks[1].affinity = {1};
            sc.tasks[2].affinity = {0};
            sc.machine.timer_slack_ns = 0;
            sc.machine.nohz_idle = false;
            const repetition_result every_tick = run_one(sc);
            sc.machine.nohz_idle = true;
            const repetition_result nohz = run_one(sc);
            INFO(k.str() << " HZ " << hz);
            CHECK(nohz.events < every_tick.events);
            REQUIRE(nohz.tasks.size() == every_tick.tasks.size());
            for (std::size_t i = 0; i < nohz.tasks.size(); ++i) {
                const task_result& a = nohz.tasks[i];
                const task_result& b = every_tick.tasks[i];
                CHECK(a.sum_exec_runtime == b.sum_exec_runtime);
                CHECK(a.window_runtime == b.window_runtime);
                CHECK(a.nvcsw == b.nvcsw);
                CHECK(a.nivcsw == b.nivcsw);
                CHECK(a.utime_ticks == b.utime_ticks);
                CHECK(a.wakeup_latency == b.wakeup_latency);
                CHECK(a.stat_utime_end == b.stat_utime_end);
            }
            for (std::size_t c = 0; c < nohz.cpus.size(); ++c) {
                CHECK(nohz.cpus[c].busy == every_tick.cpus[c].busy);
                CHECK(nohz.cpus[c].irq == every_tick.cpus[c].irq);
                CHECK(nohz.cpus[c].nr_switches == every_tick.cpus[c].nr_switches);
            }
        }
    }
}

namespace {

task_spec on_timer(const std::string& name, duration run, duration period) {
    task_spec t = periodic(name, run, 0);
    t.behaviour.period = period;
    return t;
}

} // namespace

// An idle CPU stops its tick as it goes idle, unless its next timer comes no later than the
// tick (tick_nohz_idle_stop_tick()). At HZ 250 a task on an absolute 2 ms timer from 0.5 ms,
// pinned to CPU 1, runs 500 us at a time, so CPU 1 is idle at each of its ticks: it keeps
// its tick after the bursts that end 1 ms past a tick (the next wakeup comes first) and
// stops it after those that end 3 ms past one, before the tick comes. It never takes one,
// so it never balances on its own (sched_balance_trigger() runs from the tick).
TEST_CASE("a CPU idle between bursts inside each tick period takes no tick and no balance") {
    for (const kernel_version k : {kernel_version{5, 15}, kernel_version{6, 18}}) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.machine.cpus = 2;
        sc.length = 1 * sec;
        sc.machine.timer_slack_ns = 0;
        sc.tasks = {burner("b"), on_timer("t", 500 * us, 2 * ms)};
        sc.tasks[0].affinity = {0};
        sc.tasks[1].affinity = {1};
        sc.tasks[1].start = 500 * us;
        const repetition_result r = run_one(sc);
        CHECK(find(r, "t").sum_exec_runtime == 500 * 500 * us);
        CHECK(r.cpus[1].irq == 0); // no busy tick
        CHECK(r.cpus[1].balance.lb_count == 0);
    }
}

TEST_CASE("a task on an absolute 10 ms timer alone gets 10 % and wakes on time") {
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.length = 2 * sec;
        sc.tasks = {on_timer("loop", 1 * ms, 10 * ms)};
        const repetition_result r = run_one(sc);
        const task_result& t = r.tasks.front();
        // 200 bursts of exactly 1 ms of CPU time, the last one done at 1.991 ms.
        CHECK(t.sum_exec_runtime == 200 * ms);
        CHECK(t.nvcsw == 200);
        REQUIRE(t.lateness.size() == 199); // every wakeup but the fork's
        // Woken at the timer's hard expiry (the idle CPU's tick is stopped) once the CPU has
        // left its idle state, then run after the reschedule latency.
        for (duration l : t.lateness)
            CHECK(l == sc.machine.timer_slack_ns + sc.machine.idle_exit_latency_ns +
                           sc.machine.resched_latency_ns);
        for (duration l : t.wakeup_latency)
            CHECK(l == sc.machine.resched_latency_ns);
    }
}

TEST_CASE("an absolute-timer burst that overruns its period skips to the next grid point") {
    scenario sc = one_cpu({6, 12});
    sc.length = 2 * sec;
    sc.tasks = {on_timer("loop", 15 * ms, 10 * ms)};
    const repetition_result r = run_one(sc);
    const task_result& t = r.tasks.front();
    // Bursts start at 0, 20, 40 ms...: 15 ms in every 20.
    CHECK(t.sum_exec_runtime == 100 * 15 * ms);
    CHECK(t.nvcsw == 100);
}

TEST_CASE("a SCHED_BATCH timer task beside a burner runs at the next tick after its release") {
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.length = 2 * sec;
        sc.tasks = {on_timer("loop", 1 * ms, 10 * ms), burner("hog")};
        sc.tasks[0].policy = sched_policy::batch;
        const repetition_result r = run_one(sc);
        const task_result& t = find(r, "loop");
        const duration tick = nsec_per_sec / 250;
        REQUIRE_FALSE(t.lateness.empty());
        for (duration l : t.lateness) {
            // Releases at k * 10 ms, runs on the 4 ms tick grid, after the tick's handler
            // and the reschedule latency.
            const duration to_tick = l - sc.machine.tick_irq_ns - sc.machine.resched_latency_ns;
            CHECK(to_tick >= 0); // a release on a tick is seen by that tick
            CHECK(to_tick % (2 * ms) == 0);
            CHECK(to_tick <= 2 * tick);
        }
        CHECK(std::abs(t.share - 0.1) < 0.002);
    }
}

TEST_CASE("a normal timer task beside a burner: old CFS preempts it at once and EEVDF does "
          "unless the wakee's lag is spent") {
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.length = 2 * sec;
        sc.tasks = {on_timer("loop", 1 * ms, 10 * ms), burner("hog")};
        const repetition_result r = run_one(sc);
        const task_result& t = find(r, "loop");
        REQUIRE(t.lateness.size() == 199);
        // Releases at k x 10 ms: on the 4 ms tick grid for even k, expired by the tick's
        // interrupt once its handler is done (tick_irq); for odd k the next tick is 2 ms
        // later, beyond the slack, so the timer's hard expiry wakes it.
        const duration on_tick = sc.machine.tick_irq_ns + sc.machine.resched_latency_ns;
        const duration off_tick = sc.machine.timer_slack_ns + sc.machine.resched_latency_ns;
        int waited = 0;
        for (duration l : t.lateness) {
            if (l == on_tick || l == off_tick)
                continue; // wakeup preemption
            // EEVDF: a wakee with no lag left ties the burner's deadline at best, and on the
            // tick grid loses: the tick renewed the burner's deadline tick_irq earlier. It
            // waits for a tick, which gives it lag again.
            ++waited;
            CHECK(k.is_eevdf());
            CHECK((l - on_tick) % (2 * ms) == 0);
        }
        if (k.is_eevdf())
            CHECK(waited > 0);
    }
}

namespace {

// When each sched_wakeup of `comm` came, after the last release before it on the grid
// start + k x period.
std::vector<duration> wakeups_after_release(const scenario& sc, const std::string& comm,
                                            sim_time start, duration period) {
    std::vector<duration> after;
    run_options opt;
    opt.trace = [&](const trace_event& e) {
        if (e.kind == trace_kind::sched_wakeup && e.comm == comm)
            after.push_back((e.time - start) % period);
    };
    simulate(sc, opt);
    return after;
}

} // namespace

TEST_CASE("a tick's interrupt expires the sleeps due when it began, and later ones only if "
          "their hard expiry passed during its handler") {
    // Beside a burner, "a" is released on the tick grid (every 20 ms) and "b" 1 us after
    // it, inside the tick's 2 us handler. __hrtimer_run_queues() walks with the time the
    // interrupt read on entry, so "a" expires at the handler's end and "b", not yet due
    // then, waits for its hard expiry, 50 us of slack later; unless that hard expiry falls
    // inside the handler (slack 0): then hrtimer_interrupt() walks again at the end.
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.length = 1 * sec;
        REQUIRE(sc.machine.tick_irq_ns == 2 * us);
        sc.tasks = {on_timer("a", 100 * us, 20 * ms), on_timer("b", 100 * us, 20 * ms),
                    burner("hog")};
        sc.tasks[1].start = 1 * us;
        const std::vector<duration> a = wakeups_after_release(sc, "a", 0, 20 * ms);
        REQUIRE(a.size() == 49);
        for (duration d : a)
            CHECK(d == sc.machine.tick_irq_ns);
        const std::vector<duration> b = wakeups_after_release(sc, "b", 1 * us, 20 * ms);
        REQUIRE(b.size() == 49);
        for (duration d : b)
            CHECK(d == sc.machine.timer_slack_ns);

        sc.tasks[1].timer_slack = 0;
        const std::vector<duration> b0 = wakeups_after_release(sc, "b", 1 * us, 20 * ms);
        REQUIRE(b0.size() == 49);
        for (duration d : b0)
            CHECK(d == sc.machine.tick_irq_ns - 1 * us);
    }
}

TEST_CASE("a burst gets its CPU time in full although ticks take IRQ time from its clock") {
    scenario sc = one_cpu({6, 12});
    sc.length = 1 * sec;
    REQUIRE(sc.machine.tick_irq_ns > 0);
    sc.tasks = {on_timer("loop", 3 * ms, 10 * ms)};
    const repetition_result r = run_one(sc);
    const task_result& t = r.tasks.front();
    CHECK(t.sum_exec_runtime == 100 * 3 * ms); // not 100 x 2.994 ms
}

TEST_CASE("wakeup latency counts only wakeups inside the window") {
    scenario sc = one_cpu({6, 12});
    sc.length = 2 * sec;
    sc.window_start = 1 * sec;
    sc.tasks = {on_timer("loop", 1 * ms, 10 * ms)};
    const repetition_result r = run_one(sc);
    const task_result& t = r.tasks.front();
    CHECK(t.wakeup_latency.size() == 100); // releases at 1.00 s ... 1.99 s
    CHECK(t.lateness.size() == 100);
}

TEST_CASE("an interrupted run keeps the repetitions that finished and says where it stopped") {
    scenario sc = one_cpu({6, 6});
    sc.length = 1 * sec;
    sc.repetitions = 3;
    sc.tasks = {burner("b", 0, 2)};
    std::atomic<bool> flag{false};
    run_options opt;
    opt.interrupt = &flag;
    opt.on_progress = [&flag](const progress_info& p) {
        if (p.repetition == 1 && p.now == 300 * ms)
            flag = true; // as if Ctrl-C came while the second repetition ran
    };
    const run_result r = simulate(sc, opt);
    REQUIRE(r.interrupted);
    CHECK(r.interrupted->repetition == 1);
    CHECK(r.interrupted->repetitions == 3);
    CHECK(r.interrupted->at == 300 * ms);
    REQUIRE(r.repetitions.size() == 1);
    // The finished repetition is the one an uninterrupted run gives.
    sc.repetitions = 1;
    const run_result whole = simulate(sc);
    CHECK_FALSE(whole.interrupted);
    CHECK(r.repetitions[0].events == whole.repetitions[0].events);
    CHECK(r.repetitions[0].tasks[0].sum_exec_runtime ==
          whole.repetitions[0].tasks[0].sum_exec_runtime);

    // Raised before the start: nothing runs.
    flag = true;
    run_options raised;
    raised.interrupt = &flag;
    const run_result none = simulate(sc, raised);
    REQUIRE(none.interrupted);
    CHECK(none.interrupted->at == 0);
    CHECK(none.repetitions.empty());
}

TEST_CASE("estimate_run extrapolates the pilot's event rate to the whole run") {
    scenario sc = one_cpu({6, 6});
    sc.tasks = {burner("b", 0, 2), periodic("p", 1 * ms, 9 * ms)};
    // Short: the pilot is the whole run, event for event.
    sc.length = 2 * sec;
    run_estimate e = estimate_run(sc);
    CHECK(e.whole);
    CHECK(e.pilot_length == sc.length);
    CHECK(e.events_per_repetition == static_cast<double>(run_one(sc).events));
    // Long: a steady state, so the pilot's rate holds for the rest within a few percent.
    sc.length = 400 * sec;
    sc.repetitions = 2;
    e = estimate_run(sc);
    CHECK_FALSE(e.whole);
    CHECK(e.pilot_length < sc.length);
    CHECK(e.pilot_events >= 100'000);
    sc.repetitions = 1;
    const double events = static_cast<double>(run_one(sc).events);
    CHECK(e.events_per_repetition == Approx(events).epsilon(0.03));
    CHECK(e.events() == 2 * e.events_per_repetition);
    CHECK(e.result_bytes == 3 * sizeof(task_result) + sizeof(cpu_result));
}

} // namespace test_simulate
