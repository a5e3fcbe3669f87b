// Counters of a simulated run: the load balancer's per-CPU counters and perf stat's totals
// over the tasks (stats/perf_stat.hpp), against the per-task figures they sum and the
// balancer's own invariants.
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/model/simulate.hpp>
#include <libsched/stats/perf_stat.hpp>
#include <string>

using namespace libsched;

namespace test_counters {

namespace {

constexpr duration ms = nsec_per_msec;
constexpr duration sec = nsec_per_sec;

const kernel_version all_versions[] = {{5, 15}, {6, 6}, {6, 12}, {6, 18}};

// `n` nice-0 burners on `cpus` CPUs, 2 s with the window from 0.5 s to 1.5 s.
scenario burners(kernel_version k, int cpus, int n) {
    scenario sc;
    sc.name = "counters";
    sc.machine.cpus = cpus;
    sc.machine.online_cpus = cpus;
    sc.machine.kernel = k;
    sc.length = 2 * sec;
    sc.window_start = 500 * ms;
    sc.window_end = 1'500 * ms;
    task_spec t;
    t.name = "burn";
    t.count = n;
    sc.tasks = {t};
    return sc;
}

// A mix with sleepers, so that switches are voluntary too and CPUs go idle.
scenario mixed(kernel_version k) {
    scenario sc = burners(k, 2, 2);
    task_spec p;
    p.name = "tick";
    p.behaviour.type = behaviour_spec::kind::periodic;
    p.behaviour.run = 1 * ms;
    p.behaviour.sleep = 9 * ms;
    p.count = 2;
    sc.tasks.push_back(p);
    sc.tasks[0].exit_at = 1'200 * ms; // the burners exit inside the window
    return sc;
}

repetition_result run_one(const scenario& sc) {
    run_result r = simulate(sc);
    REQUIRE(r.repetitions.size() == 1);
    return r.repetitions.front();
}

std::uint64_t balance_total(const repetition_result& r, std::uint64_t balance_counters::*f,
                            bool window) {
    std::uint64_t n = 0;
    for (const cpu_result& c : r.cpus)
        n += (window ? c.window_balance : c.balance).*f;
    return n;
}

} // namespace

TEST_CASE("perf stat's totals are the sums of the per-task counters") {
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        const scenario sc = mixed(k);
        const repetition_result r = run_one(sc);
        double cs = 0, mig = 0, clock_ms = 0, wcs = 0, wmig = 0, wclock_ms = 0;
        for (const task_result& t : r.tasks) {
            cs += static_cast<double>(t.nvcsw + t.nivcsw);
            mig += static_cast<double>(t.nr_migrations);
            clock_ms += static_cast<double>(t.sum_exec_runtime) / nsec_per_msec;
            wcs += static_cast<double>(t.window_nvcsw + t.window_nivcsw);
            wmig += static_cast<double>(t.window_nr_migrations);
            wclock_ms += static_cast<double>(t.window_runtime) / nsec_per_msec;
        }
        const duration window = sc.window_stop() - sc.window_start;
        const stats::perf_counters w = stats::perf_stat_window(r, window);
        CHECK(w.context_switches == wcs);
        CHECK(w.cpu_migrations == wmig);
        CHECK(w.task_clock_ms == Approx(wclock_ms));
        CHECK(w.cpus_utilized == Approx(wclock_ms / (static_cast<double>(window) / nsec_per_msec)));
        const stats::perf_counters whole = stats::perf_stat_run(r, sc.length);
        CHECK(whole.context_switches == cs);
        CHECK(whole.cpu_migrations == mig);
        CHECK(whole.task_clock_ms == Approx(clock_ms));
        // Every task forks at 0 and the periodic ones live to the end.
        CHECK(whole.cpus_utilized ==
              Approx(clock_ms / (static_cast<double>(sc.length) / nsec_per_msec)));
        // The tasks' CPU time in the window is the CPUs' busy time there but the tick
        // interrupts' time, which the tasks' runtime leaves out (conservation).
        duration busy = 0;
        for (const cpu_result& c : r.cpus)
            busy += c.window_busy;
        const double busy_ms = static_cast<double>(busy) / nsec_per_msec;
        CHECK(w.task_clock_ms <= busy_ms);
        CHECK(w.task_clock_ms >= 0.99 * busy_ms);
        CHECK(w.cpus_utilized <= 2.0 + 1e-9);
        // Window counts are within the whole run's.
        CHECK(w.context_switches <= whole.context_switches);
        CHECK(w.cpu_migrations <= whole.cpu_migrations);
    }
}

TEST_CASE("3 burners on 2 CPUs keep the load balancer busy, 1 CPU has no balancer") {
    for (const kernel_version k : all_versions) {
        INFO(k.str());
        const repetition_result two = run_one(burners(k, 2, 3));
        REQUIRE(two.cpus.size() == 2);
        CHECK(balance_total(two, &balance_counters::lb_count, false) > 0);
        CHECK(balance_total(two, &balance_counters::lb_count, true) > 0);
        for (const cpu_result& c : two.cpus) {
            INFO("cpu " << c.cpu);
            // A failed pass is a pass; the window's counts are part of the run's.
            CHECK(c.balance.lb_failed <= c.balance.lb_count);
            CHECK(c.window_balance.lb_count <= c.balance.lb_count);
            CHECK(c.window_balance.lb_failed <= c.balance.lb_failed);
            CHECK(c.window_balance.lb_gained <= c.balance.lb_gained);
            CHECK(c.window_balance.alb_pushed <= c.balance.alb_pushed);
            CHECK(c.window_balance.newidle <= c.balance.newidle);
            CHECK(c.window_balance.nohz_kicks <= c.balance.nohz_kicks);
        }
        // Each migration the balancer makes moves a task: pulls and pushes are migrations.
        std::uint64_t migrations = 0;
        for (const task_result& t : two.tasks)
            migrations += t.nr_migrations;
        CHECK(balance_total(two, &balance_counters::lb_gained, false) +
                  balance_total(two, &balance_counters::alb_pushed, false) <=
              migrations);

        const repetition_result one = run_one(burners(k, 1, 3));
        REQUIRE(one.cpus.size() == 1);
        const cpu_result& c = one.cpus.front();
        for (const auto f : {&balance_counters::lb_count, &balance_counters::lb_failed,
                             &balance_counters::lb_gained, &balance_counters::alb_pushed,
                             &balance_counters::newidle, &balance_counters::nohz_kicks}) {
            CHECK(c.balance.*f == 0);
            CHECK(c.window_balance.*f == 0);
        }
        CHECK(stats::perf_stat_run(one, 2 * sec).cpu_migrations == 0);
    }
}

} // namespace test_counters
