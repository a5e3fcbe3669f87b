// Random valid scenarios (tests/common/random_scenario.hpp: machine, tasks, behaviours,
// renices, affinity changes, cgroups, sessions, RT tasks) run in the invariant-checking
// mode: no exception, no invariant violation, and every run deterministic. The generator is
// seeded, so a failure is reproduced by its index.
#include "model_helpers.hpp"
#include <algorithm>
#include <random_scenario.hpp>

using namespace model_test;

namespace test_random_scenarios {

using random_scenario::describe;

namespace {

// A quota on a release that throttles task by task (6.18+).
bool task_based_quota(const scenario& sc) {
    return sc.machine.kernel >= kernel_version{6, 18} &&
           std::any_of(sc.cgroups.begin(), sc.cgroups.end(),
                       [](const cgroup_spec& g) { return g.quota.has_value(); });
}

// An entry with a step of kind k (a yield of make_yielder(), a pipe of add_pipe_pair()).
bool has_step(const scenario& sc, step_spec::kind k) {
    return std::any_of(sc.tasks.begin(), sc.tasks.end(), [k](const task_spec& t) {
        return std::any_of(t.behaviour.steps.phases.begin(), t.behaviour.steps.phases.end(),
                           [k](const phase_spec& ph) {
                               return std::any_of(
                                   ph.steps.begin(), ph.steps.end(),
                                   [k](const step_spec& st) { return st.type == k; });
                           });
    });
}

} // namespace

TEST_CASE("random valid scenarios keep every invariant and are deterministic") {
    random_scenario::seeded_choices choices(20261201);
    random_scenario::scenario_generator gen(choices);
    constexpr int scenarios = 150;
    int task_based = 0, yielding = 0, piping = 0;
    for (int i = 0; i < scenarios; ++i) {
        const scenario sc = gen.next();
        task_based += task_based_quota(sc) ? 1 : 0;
        yielding += has_step(sc, step_spec::kind::yield) ? 1 : 0;
        piping += has_step(sc, step_spec::kind::pipe_write) ? 1 : 0;
        INFO("scenario " << i << ": " << describe(sc));
        const validation v = check_scenario(sc);
        for (const auto& e : v.errors)
            INFO(e.field << ": " << e.reason);
        REQUIRE(v.errors.empty());
        run_options opt;
        opt.check_invariants = true;
        run_result a;
        REQUIRE_NOTHROW(a = simulate(sc, opt));
        const run_result b = simulate(sc, opt);
        REQUIRE(a.repetitions[0].events == b.repetitions[0].events);
        for (std::size_t t = 0; t < a.repetitions[0].tasks.size(); ++t)
            CHECK(a.repetitions[0].tasks[t].sum_exec_runtime ==
                  b.repetitions[0].tasks[t].sum_exec_runtime);
    }
    // The generator reaches 6.18's task-based throttling, not only whole-queue throttling.
    CHECK(task_based >= 5);
    // And tasks calling sched_yield(), and tasks talking through pipes.
    CHECK(yielding >= 10);
    CHECK(piping >= 10);
}

} // namespace test_random_scenarios
