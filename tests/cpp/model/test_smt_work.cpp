// model/smt_work.hpp: the optional SMT throughput model. CPU time stays the kernel's; work
// is the time run, weighed by the thread's throughput (1 alone on its core, the factor while
// a sibling runs too).
#include "model_helpers.hpp"
#include <catch2/catch.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/scenario/validate.hpp>

using namespace libsched;

namespace test_smt_work {

namespace {

using model_test::burner;
using model_test::run_one;

scenario on(cpu_topology topo, std::vector<int> pins) {
    scenario sc;
    sc.name = "smt";
    sc.machine.cpus = topo.nr_cpus();
    sc.machine.topology = std::move(topo);
    sc.machine.kernel = {6, 12};
    sc.machine.tick_irq_ns = 0; // so that time run is runtime exactly
    sc.machine.smt_throughput = 0.6;
    sc.length = 3 * nsec_per_sec;
    for (std::size_t i = 0; i < pins.size(); ++i) {
        sc.tasks.push_back(burner("b" + std::to_string(i)));
        sc.tasks.back().affinity = {pins[i]};
    }
    return sc;
}

double ratio(const task_result& t) {
    REQUIRE(t.work_ns.has_value());
    return *t.work_ns / static_cast<double>(t.sum_exec_runtime);
}

} // namespace

TEST_CASE("two siblings both busy do the factor's work, a thread alone does full work") {
    const repetition_result both = run_one(on(symmetric_topology(1, 1, 2), {0, 1}));
    for (const task_result& t : both.tasks) {
        CHECK(t.sum_exec_runtime > 2 * nsec_per_sec); // the CPU time is the kernel's, in full
        CHECK(ratio(t) == Approx(0.6).epsilon(1e-9));
    }
    const repetition_result alone = run_one(on(symmetric_topology(1, 1, 2), {0}));
    CHECK(ratio(alone.tasks[0]) == Approx(1.0).epsilon(1e-9));
    // CPUs 0 and 1 are different cores of 2 cores x 2 threads: no sharing.
    const repetition_result apart = run_one(on(symmetric_topology(1, 2, 2), {0, 1}));
    for (const task_result& t : apart.tasks)
        CHECK(ratio(t) == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a sibling that runs part of the time lowers work only while it runs") {
    scenario sc = on(symmetric_topology(1, 1, 2), {0, 1});
    sc.tasks[1].exit_at = 1 * nsec_per_sec; // b1 runs the first second only
    const repetition_result r = run_one(sc);
    const task_result& b0 = r.tasks[0];
    const task_result& b1 = r.tasks[1];
    // b1's whole life was shared; b0 shared its first second with it, then ran alone.
    CHECK(ratio(b1) == Approx(0.6).epsilon(1e-9));
    const double shared = static_cast<double>(b1.sum_exec_runtime);
    const double expected = 0.6 * shared + (static_cast<double>(b0.sum_exec_runtime) - shared);
    CHECK(*b0.work_ns == Approx(expected).epsilon(1e-6));
}

TEST_CASE("without the model there is no work figure, a bad factor is an error") {
    scenario sc = on(symmetric_topology(1, 1, 2), {0, 1});
    sc.machine.smt_throughput.reset();
    CHECK_FALSE(run_one(sc).tasks[0].work_ns.has_value());

    for (const double bad : {0.0, -0.5, 1.5}) {
        scenario s = on(symmetric_topology(1, 1, 2), {0});
        s.machine.smt_throughput = bad;
        CHECK_THROWS_WITH(validate(s), Catch::Contains("machine.smt_throughput"));
    }
    scenario flat = on(symmetric_topology(1, 2, 1), {0});
    const auto warnings = validate(flat);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("machine.smt_throughput: has no effect"));
}

} // namespace test_smt_work
