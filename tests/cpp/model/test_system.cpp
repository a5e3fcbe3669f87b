// model/system.hpp: a system steps and runs to any time, can be read mid-run, and gives
// the same figures however it was driven.
#include <catch2/catch.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>

using namespace libsched;

namespace test_system {

namespace {

constexpr duration ms = nsec_per_msec;

scenario two_burners(kernel_version k) {
    scenario sc;
    sc.name = "test";
    sc.machine.kernel = k;
    sc.length = 200 * ms;
    for (const char* name : {"a", "b"}) {
        task_spec t;
        t.name = name;
        sc.tasks.push_back(t);
    }
    sc.tasks[1].nice = 5;
    return sc;
}

} // namespace

TEST_CASE("a system run in steps gives what simulate() gives") {
    for (const kernel_version k : {kernel_version{5, 15}, kernel_version{6, 12}}) {
        INFO(k.str());
        const scenario sc = two_burners(k);
        const repetition_result whole = simulate(sc).repetitions.front();
        libsched::system s(sc, sc.seed);
        std::uint64_t steps = 0;
        while (s.step())
            ++steps;
        CHECK(s.done());
        CHECK(s.now() == sc.length);
        CHECK(steps == s.events());
        const repetition_result stepped = s.result();
        REQUIRE(stepped.tasks.size() == whole.tasks.size());
        CHECK(stepped.events == whole.events);
        for (std::size_t i = 0; i < whole.tasks.size(); ++i) {
            CHECK(stepped.tasks[i].sum_exec_runtime == whole.tasks[i].sum_exec_runtime);
            CHECK(stepped.tasks[i].nivcsw == whole.tasks[i].nivcsw);
            CHECK(stepped.tasks[i].stat_utime_end == whole.tasks[i].stat_utime_end);
        }
        CHECK(stepped.cpus[0].busy == whole.cpus[0].busy);
    }
}

TEST_CASE("mid-run, entities read as the kernel's debug files show them") {
    const scenario sc = two_burners({6, 12});
    libsched::system s(sc, sc.seed);
    s.run(100 * ms);
    CHECK(s.now() == 100 * ms);
    CHECK_FALSE(s.done());
    const task* a = s.find_task("a");
    const task* b = s.find_task("b");
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(s.find_task("c") == nullptr);
    const entity_state ea = read_entity(a->se);
    const entity_state eb = read_entity(b->se);
    CHECK(ea.on_rq);
    CHECK(eb.on_rq);
    CHECK(ea.weight == 1024);
    CHECK(eb.weight == 335);
    // The weighted lags of the queue sum to about zero (V is their weighted mean).
    const s64 weighted = ea.lag * 1024 + eb.lag * 335;
    CHECK(std::abs(weighted) <= 1024 + 335);
    // Exactly one of them runs, and only an eligible entity's deadline can be the pick.
    const cfs_rq_state q = read_cfs_rq(s.cpu_rq(0).cfs);
    CHECK(q.nr_queued == 2);
    CHECK(q.h_nr_queued == 2);
    CHECK(q.load == 1024 + 335);
    CHECK((q.curr_pid == a->pid || q.curr_pid == b->pid));
    CHECK((ea.eligible || eb.eligible));
    // Reading changes nothing: the rest of the run is as if it was never read.
    const repetition_result read_mid_run = s.result();
    const repetition_result plain = simulate(sc).repetitions.front();
    CHECK(read_mid_run.tasks[0].sum_exec_runtime == plain.tasks[0].sum_exec_runtime);
    CHECK(read_mid_run.tasks[1].sum_exec_runtime == plain.tasks[1].sum_exec_runtime);
}

TEST_CASE("run(until) past the end stops at the end, and a finished system does nothing more") {
    const scenario sc = two_burners({6, 6});
    libsched::system s(sc, sc.seed);
    s.run(10 * sc.length);
    CHECK(s.done());
    CHECK(s.now() == sc.length);
    const std::uint64_t events = s.events();
    CHECK_FALSE(s.step());
    s.run(20 * sc.length);
    CHECK(s.events() == events);
}

} // namespace test_system
