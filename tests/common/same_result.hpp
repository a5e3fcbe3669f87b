#pragma once
// Two runs' results are the same, field by field: what "bit for bit" means in the tests.
#include <catch2/catch.hpp>
#include <libsched/scenario/result.hpp>

namespace libsched::testing {

// events: the engine's event counts too (two workloads may reach one schedule by other events).
inline void check_same(const repetition_result& x, const repetition_result& y, bool events = true) {
    REQUIRE(x.tasks.size() == y.tasks.size());
    if (events)
        CHECK(x.events == y.events);
    for (std::size_t i = 0; i < x.tasks.size(); ++i) {
        const task_result& a = x.tasks[i];
        const task_result& b = y.tasks[i];
        INFO(a.name);
        CHECK(a.name == b.name);
        CHECK(a.entry == b.entry);
        CHECK(a.pid == b.pid);
        CHECK(a.cpu == b.cpu);
        CHECK(a.nice == b.nice);
        CHECK(a.nice_clamped == b.nice_clamped);
        CHECK(a.sum_exec_runtime == b.sum_exec_runtime);
        CHECK(a.window_runtime == b.window_runtime);
        CHECK(a.share == b.share);
        CHECK(a.stat_utime_start == b.stat_utime_start);
        CHECK(a.stat_utime_end == b.stat_utime_end);
        CHECK(a.stat_stime_start == b.stat_stime_start);
        CHECK(a.stat_stime_end == b.stat_stime_end);
        CHECK(a.ru_utime_us == b.ru_utime_us);
        CHECK(a.ru_stime_us == b.ru_stime_us);
        CHECK(a.utime_ticks == b.utime_ticks);
        CHECK(a.stime_ticks == b.stime_ticks);
        CHECK(a.nvcsw == b.nvcsw);
        CHECK(a.nivcsw == b.nivcsw);
        CHECK(a.window_nvcsw == b.window_nvcsw);
        CHECK(a.window_nivcsw == b.window_nivcsw);
        CHECK(a.wakeup_latency == b.wakeup_latency);
        CHECK(a.run_delay == b.run_delay);
        CHECK(a.started == b.started);
        CHECK(a.exited == b.exited);
    }
    REQUIRE(x.cpus.size() == y.cpus.size());
    for (std::size_t c = 0; c < x.cpus.size(); ++c) {
        CHECK(x.cpus[c].busy == y.cpus[c].busy);
        CHECK(x.cpus[c].window_busy == y.cpus[c].window_busy);
        CHECK(x.cpus[c].irq == y.cpus[c].irq);
        CHECK(x.cpus[c].nr_switches == y.cpus[c].nr_switches);
    }
}

} // namespace libsched::testing
