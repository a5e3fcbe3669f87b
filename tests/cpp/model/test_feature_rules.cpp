// Whole scenarios for the rules behind switchable features, read from the trace: HRTICK
// under old CFS ends a turn at the running task's slice, not on the tick grid.
#include "model_helpers.hpp"
#include <catch2/catch.hpp>
#include <libsched/model/simulate.hpp>
#include <string>
#include <vector>

using namespace libsched;

namespace test_feature_rules {

namespace {

constexpr duration us = nsec_per_usec;
constexpr duration ms = nsec_per_msec;
constexpr duration sec = nsec_per_sec;

// Time from each sched_wakeup of `comm` to the switch that runs it, from the trace.
std::vector<duration> wakeup_delays(const scenario& sc, const std::string& comm) {
    std::vector<duration> delays;
    sim_time woke = -1;
    run_options opt;
    opt.trace = [&](const trace_event& e) {
        if (e.kind == trace_kind::sched_wakeup && e.comm == comm)
            woke = e.time;
        if (e.kind == trace_kind::sched_switch && e.next_comm == comm && woke >= 0) {
            delays.push_back(e.time - woke);
            woke = -1;
        }
    };
    simulate(sc, opt);
    return delays;
}

} // namespace

TEST_CASE("5.15 HRTICK: a SCHED_BATCH wakee beside a burner waits for the burner's slice end") {
    // 1 CPU: latency 6 ms, sched_nr_latency 8; HZ 250. The batch task runs 0.7 ms, sleeps
    // 1 ms. When it blocks the burner is picked alone (no hrtick: h_nr_running 1). The
    // wakeup does not preempt (a SCHED_BATCH wakee never does); hrtick_update() (2 < 8
    // queued) arms the timer for sched_slice - ran, where sched_slice = __calc_delta(6 ms,
    // 1024, queue weight 2048) = 6 ms x 1024 x floor((2^32 - 1) / 2048) >> 32 = 2 999 998 ns
    // and ran = the sleep in clock_task: 1 ms plus the part of the 50 us timer slack before a tick
    // ended it, all of it without one (a tick during the sleep takes its 2 us IRQ time out).
    // Meanwhile the periodic tick returns before check_preempt_tick(); the expiry reschedules and
    // the wakee, placed latency/2 behind min_vruntime, is leftmost. Delay: 1 999 998 ns less up to
    // the slack (+ 2 us if a tick fell in the sleep) + the 1 us reschedule latency. The 3.75 ms
    // cycle drifts against the 4 ms tick, so ticks land in every part of the wait. Without HRTICK
    // the first tick after the wakeup preempts (the burner is more than a slice of vruntime
    // ahead), and the cycle locks to the tick grid: the wakee runs from a tick + 3 us (the tick's
    // handler and the reschedule latency) for 0.7 ms, sleeps 1 ms + 50 us (no tick in its slack
    // range) and waits for the next tick: 4 ms - 1.75 ms = 2.25 ms.
    scenario sc;
    sc.name = "hrtick-batch";
    sc.machine.cpus = 1;
    sc.machine.online_cpus = 1;
    sc.machine.hz = 250;
    sc.machine.kernel = {5, 15};
    sc.machine.features["hrtick"] = true;
    sc.length = 2 * sec;
    sc.tasks = {model_test::periodic("loop", 700 * us, 1 * ms), model_test::burner("hog")};
    sc.tasks[0].policy = sched_policy::batch;
    const std::vector<duration> delays = wakeup_delays(sc, "loop");
    REQUIRE(delays.size() > 400);
    const duration base = 1'999'998 + sc.machine.resched_latency_ns;
    // The first few cycles start from the fork's placement, not the steady state.
    for (std::size_t i = 10; i < delays.size(); ++i) {
        INFO("wakeup " << i);
        CHECK(delays[i] >= base - sc.machine.timer_slack_ns);
        CHECK(delays[i] <= base + sc.machine.tick_irq_ns);
    }

    sc.machine.features["hrtick"] = false;
    const std::vector<duration> tick = wakeup_delays(sc, "loop");
    REQUIRE(tick.size() > 400);
    for (std::size_t i = 10; i < tick.size(); ++i) {
        INFO("wakeup " << i << " without HRTICK");
        CHECK(tick[i] == 2'300'000 - sc.machine.timer_slack_ns);
    }
}

} // namespace test_feature_rules
