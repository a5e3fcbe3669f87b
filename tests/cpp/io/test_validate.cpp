// scenario/validate.hpp on scenarios built in code: each rule rejects what it should with
// the field spelled as in a scenario file, and warns where the kernel would clamp or ignore.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <libsched/scenario/validate.hpp>
#include <string>
#include <vector>

using namespace libsched;

namespace test_validate {

namespace {

// Two burners on one CPU, kernel 6.8: valid, no warnings.
scenario valid_scenario() {
    scenario sc;
    sc.name = "valid";
    sc.length = 2 * nsec_per_sec;
    sc.machine.cpus = 1;
    sc.machine.kernel = {6, 8};
    task_spec a;
    a.name = "a";
    task_spec b;
    b.name = "b";
    b.nice = 5;
    sc.tasks = {a, b};
    sc.reference = "b";
    return sc;
}

// The field and reason of the error validate() throws for the changed scenario.
struct rejection {
    std::string field;
    std::string reason;
};
rejection rejected(const std::function<void(scenario&)>& change) {
    scenario sc = valid_scenario();
    change(sc);
    try {
        validate(sc);
    } catch (const scenario_error& e) {
        return {e.field(), e.reason()};
    }
    FAIL("validate() accepted the scenario");
    return {};
}

// The fields of the errors check_scenario() finds in the changed scenario, in order.
std::vector<std::string> error_fields(const std::function<void(scenario&)>& change) {
    scenario sc = valid_scenario();
    change(sc);
    std::vector<std::string> fields;
    for (const auto& e : check_scenario(sc).errors)
        fields.push_back(e.field);
    return fields;
}

std::vector<std::string> warnings_of(const std::function<void(scenario&)>& change) {
    scenario sc = valid_scenario();
    change(sc);
    return validate(sc);
}

} // namespace

TEST_CASE("a valid scenario passes without warnings") {
    CHECK(validate(valid_scenario()).empty());
}

TEST_CASE("every error is found, in the order of the file's sections") {
    const auto change = [](scenario& s) {
        s.machine.hz = 123;
        s.repetitions = 0;
        s.tasks[0].nice = 42;
        s.tasks[1].behaviour = {behaviour_spec::kind::periodic, 0, -1, {}, {}, {}, {}};
        s.measured.share["x"] = 0.5;
        s.tasks[1].nice = 25; // a warning beside the errors
    };
    CHECK(error_fields(change) ==
          std::vector<std::string>{"machine.hz", "repetitions", "tasks[0].nice",
                                   "tasks[1].behaviour.run", "tasks[1].behaviour.sleep",
                                   "measured.share.x"});
    scenario sc = valid_scenario();
    change(sc);
    const validation v = check_scenario(sc);
    CHECK(v.warnings ==
          std::vector<std::string>{"tasks[1].nice: 25 clamped to 19 as setpriority() does"});

    // validate() throws them as one error: field() and reason() are the first's, what() has
    // one line each.
    try {
        validate(sc);
        FAIL("validate() accepted the scenario");
    } catch (const scenario_error& e) {
        CHECK(e.errors().size() == 6);
        CHECK(e.field() == "machine.hz");
        CHECK(e.reason() == v.errors[0].reason);
        const std::string what = e.what();
        CHECK(std::count(what.begin(), what.end(), '\n') == 5);
        CHECK(what.rfind("machine.hz: 123 is not a CONFIG_HZ choice", 0) == 0);
        CHECK(what.find("\nmeasured.share.x: \"x\" names no [[tasks]] entry") != std::string::npos);
    }
}

TEST_CASE("a wrong value is reported once, not again through the fields it bounds") {
    using fields = std::vector<std::string>;
    // No tick to measure the reschedule latency against (and no division by zero).
    CHECK(error_fields([](scenario& s) { s.machine.hz = 0; }) == fields{"machine.hz"});
    CHECK(error_fields([](scenario& s) {
              s.length = 0;
              s.window_end = nsec_per_sec;
              s.tasks[0].start = nsec_per_sec;
              s.tasks[0].stagger.a = nsec_per_msec;
              s.tasks[1].renice = {{nsec_per_sec, 3}};
          }) == fields{"length"});
    CHECK(error_fields([](scenario& s) {
              s.machine.cpus = 0;
              s.tasks[0].affinity = {1};
              s.measured.share["a"] = 1.5;
          }) == fields{"machine.cpus"});
    CHECK(error_fields([](scenario& s) {
              s.machine.kernel = {4, 19};
              s.machine.features["run_to_parity"] = true;
              s.tasks[0].slice = 1'000'000;
          }) == fields{"machine.kernel"});
    // Two mistakes in one field are both reported.
    CHECK(error_fields([](scenario& s) {
              s.machine.cpus = 2;
              s.tasks[0].affinity = {5, 1, 1};
          }) == fields{"tasks[0].affinity", "tasks[0].affinity"});
}

TEST_CASE("machine fields are checked") {
    CHECK(rejected([](scenario& s) { s.machine.cpus = 0; }).field == "machine.cpus");
    CHECK(rejected([](scenario& s) { s.machine.cpus = 4097; }).field == "machine.cpus");
    CHECK(rejected([](scenario& s) { s.machine.online_cpus = -1; }).field == "machine.online_cpus");
    const auto hz = rejected([](scenario& s) { s.machine.hz = 123; });
    CHECK(hz.field == "machine.hz");
    CHECK(hz.reason == "123 is not a CONFIG_HZ choice (100, 250, 300 or 1000)");
    for (const int ok : {100, 250, 300, 1000}) {
        scenario sc = valid_scenario();
        sc.machine.hz = ok;
        CHECK_NOTHROW(validate(sc));
    }
    const auto old = rejected([](scenario& s) { s.machine.kernel = {4, 19}; });
    CHECK(old.field == "machine.kernel");
    CHECK(old.reason == "4.19 is outside the modelled releases 5.0 to 7.0");
    CHECK(rejected([](scenario& s) { s.machine.kernel = {7, 1}; }).field == "machine.kernel");
}

// 7.0 (7dadeaa6e851): lazy preemption is Kconfig's default, and none and voluntary are gone
// where it exists: unset, the machine runs lazy from 7.0 and none before; none set on 7.0
// is a warning (an architecture without lazy preemption still has it); lazy before 6.13 an
// error.
TEST_CASE("the preemption model: the release's default, and what a release offers") {
    scenario sc = valid_scenario();
    CHECK(effective_preempt(sc.machine) == preempt_mode::none);
    sc.machine.kernel = {7, 0};
    CHECK(effective_preempt(sc.machine) == preempt_mode::lazy);
    CHECK(validate(sc).empty());
    for (const preempt_mode gone : {preempt_mode::none, preempt_mode::voluntary}) {
        sc.machine.preempt = gone;
        const auto w = validate(sc);
        REQUIRE(w.size() == 1);
        CHECK(w[0].rfind("machine.preempt: ", 0) == 0);
        CHECK(w[0].find("7dadeaa6e851") != std::string::npos);
    }
    sc.machine.preempt = preempt_mode::full;
    CHECK(validate(sc).empty());
    CHECK(rejected([](scenario& s) {
              s.machine.kernel = {6, 12};
              s.machine.preempt = preempt_mode::lazy;
          }).field == "machine.preempt");
}

TEST_CASE("tunable overrides must be positive and below a second") {
    CHECK(rejected([](scenario& s) { s.machine.base_slice_ns = 0; }).field == "machine.base_slice");
    CHECK(rejected([](scenario& s) { s.machine.base_slice_ns = 2 * nsec_per_sec; }).field ==
          "machine.base_slice");
    CHECK(rejected([](scenario& s) { s.machine.latency_ns = -1; }).field == "machine.latency");
    CHECK(rejected([](scenario& s) { s.machine.min_granularity_ns = 0; }).field ==
          "machine.min_granularity");
    CHECK(rejected([](scenario& s) { s.machine.wakeup_granularity_ns = 0; }).field ==
          "machine.wakeup_granularity");
    // An override the release's model does not read is a warning.
    const auto w = warnings_of([](scenario& s) { s.machine.latency_ns = 3 * nsec_per_msec; });
    REQUIRE(w.size() == 1);
    CHECK(w[0].rfind("machine.latency: ", 0) == 0);
    CHECK(warnings_of([](scenario& s) {
              s.machine.kernel = {5, 15};
              s.machine.latency_ns = 3 * nsec_per_msec;
          }).empty());
}

TEST_CASE("features: unknown names and absent features") {
    const auto unknown =
        rejected([](scenario& s) { s.machine.features["run_to_parrity"] = false; });
    CHECK(unknown.field == "machine.features.run_to_parrity");
    CHECK(unknown.reason.find("run_to_parity") != std::string::npos); // the suggestion

    // RUN_TO_PARITY came with EEVDF in 6.6: on in 5.15 is an error, off only a warning.
    const auto on = rejected([](scenario& s) {
        s.machine.kernel = {5, 15};
        s.machine.features["run_to_parity"] = true;
    });
    CHECK(on.field == "machine.features.run_to_parity");
    CHECK(on.reason == "RUN_TO_PARITY is not in kernel 5.15 (only in 6.6 and later)");
    const auto off = warnings_of([](scenario& s) {
        s.machine.kernel = {5, 15};
        s.machine.features["RUN_TO_PARITY"] = false;
    });
    REQUIRE(off.size() == 1);
    CHECK(off[0].rfind("machine.features.RUN_TO_PARITY: ", 0) == 0);

    CHECK(warnings_of([](scenario& s) { s.machine.features["run_to_parity"] = false; }).empty());
    CHECK(rejected([](scenario& s) {
              s.machine.features["run_to_parity"] = false;
              s.machine.features["RUN_TO_PARITY"] = true;
          }).reason.find("same feature") != std::string::npos);
}

TEST_CASE("newidle_ratio: rates out of 1024, one or one per CPU, warned where inert") {
    const auto on_two = [](std::vector<int> r, kernel_version k = {6, 19}) {
        return [r = std::move(r), k](scenario& s) {
            s.machine.cpus = 2;
            s.machine.kernel = k;
            s.machine.newidle_ratio = r;
        };
    };
    CHECK(warnings_of(on_two({100})).empty());
    CHECK(warnings_of(on_two({0, 1024})).empty());
    CHECK(warnings_of(on_two({66, 136}, {6, 18, 5})).empty());

    const auto high = rejected(on_two({1025}));
    CHECK(high.field == "machine.newidle_ratio");
    CHECK(high.reason == "1025 is outside [0, 1024] (a success rate out of 1024)");
    CHECK(rejected(on_two({10, -1})).field == "machine.newidle_ratio[1]");
    const auto count = rejected(on_two({1, 2, 3}));
    CHECK(count.field == "machine.newidle_ratio");
    CHECK(count.reason == "3 values for 2 CPUs (give one for every CPU, or one value)");

    // 6.18.4 is before the backport: nothing to start.
    const auto before = warnings_of(on_two({100}, {6, 18, 4}));
    REQUIRE(before.size() == 1);
    CHECK(before[0].rfind("machine.newidle_ratio: has no effect: NI_RANDOM is not in kernel "
                          "6.18.4",
                          0) == 0);
    const auto one_cpu = warnings_of([](scenario& s) {
        s.machine.kernel = {6, 19};
        s.machine.newidle_ratio = {100};
    });
    REQUIRE(one_cpu.size() == 1);
    CHECK(one_cpu[0] == "machine.newidle_ratio: has no effect: one CPU has no sched domains");
    const auto off = warnings_of([&](scenario& s) {
        on_two({100})(s);
        s.machine.features["NI_RANDOM"] = false;
    });
    REQUIRE(off.size() == 1);
    CHECK(off[0] == "machine.newidle_ratio: has no effect with machine.features.NI_RANDOM off");
}

TEST_CASE("reschedule latency and tick interrupt fit within one tick") {
    CHECK(rejected([](scenario& s) { s.machine.resched_latency_ns = -1; }).field ==
          "machine.resched_latency");
    // HZ 250: a tick is 4 ms.
    CHECK(rejected([](scenario& s) { s.machine.resched_latency_ns = 4 * nsec_per_msec; }).field ==
          "machine.resched_latency");
    scenario sc = valid_scenario();
    sc.machine.resched_latency_ns = 4 * nsec_per_msec - 1;
    CHECK_NOTHROW(validate(sc));
    CHECK(rejected([](scenario& s) { s.machine.tick_irq_ns = -5; }).field == "machine.tick_irq");
    CHECK(rejected([](scenario& s) {
              s.machine.sleep_cost = distribution{distribution::kind::constant, -1};
          }).field == "machine.sleep_cost");
    CHECK(rejected([](scenario& s) {
              s.machine.sleep_cost = distribution{distribution::kind::constant, 4 * nsec_per_msec};
          }).field == "machine.sleep_cost");
    CHECK(rejected([](scenario& s) {
              s.machine.sleep_cost = {distribution::kind::uniform, 0, 4 * nsec_per_msec};
          }).field == "machine.sleep_cost.high");
    CHECK(rejected([](scenario& s) {
              s.machine.sleep_cost = {distribution::kind::uniform, 20'000, 10'000};
          }).field == "machine.sleep_cost");
    CHECK(rejected([](scenario& s) {
              s.machine.sleep_cost = {distribution::kind::exponential, 10'000, 0};
          }).field == "machine.sleep_cost");
}

TEST_CASE("length, window and repetitions") {
    CHECK(rejected([](scenario& s) { s.length = 0; }).field == "length");
    CHECK(rejected([](scenario& s) { s.window_start = -1; }).field == "window.start");
    CHECK(rejected([](scenario& s) { s.window_end = 3 * nsec_per_sec; }).field == "window.end");
    CHECK(rejected([](scenario& s) {
              s.window_start = nsec_per_sec;
              s.window_end = nsec_per_sec;
          }).field == "window");
    CHECK(rejected([](scenario& s) { s.window_start = 2 * nsec_per_sec; }).field == "window");
    CHECK(rejected([](scenario& s) { s.repetitions = 0; }).field == "repetitions");
    CHECK(rejected([](scenario& s) { s.repetitions = 10'001; }).field == "repetitions");
}

TEST_CASE("task names: present, unique, without dots") {
    CHECK(rejected([](scenario& s) { s.tasks.clear(); }).field == "tasks");
    CHECK(rejected([](scenario& s) { s.tasks[1].name = ""; }).field == "tasks[1].name");
    CHECK(rejected([](scenario& s) { s.tasks[1].name = "a.b"; }).field == "tasks[1].name");
    const auto dup = rejected([](scenario& s) { s.tasks[1].name = "a"; });
    CHECK(dup.field == "tasks[1].name");
    CHECK(dup.reason.find("tasks[0]") != std::string::npos);
}

TEST_CASE("nice: clamped with a warning near the range, an error far outside it") {
    const auto w = warnings_of([](scenario& s) { s.tasks[1].nice = 25; });
    REQUIRE(w.size() == 1);
    CHECK(w[0] == "tasks[1].nice: 25 clamped to 19 as setpriority() does");
    const auto low = warnings_of([](scenario& s) { s.tasks[0].nice = -40; });
    REQUIRE(low.size() == 1);
    CHECK(low[0] == "tasks[0].nice: -40 clamped to -20 as setpriority() does");

    const auto far = rejected([](scenario& s) { s.tasks[1].nice = 42; });
    CHECK(far.field == "tasks[1].nice");
    CHECK(far.reason == "42 is outside [-20, 19]");
    CHECK(rejected([](scenario& s) { s.tasks[0].nice = -41; }).field == "tasks[0].nice");
}

TEST_CASE("count and affinity") {
    CHECK(rejected([](scenario& s) { s.tasks[0].count = 0; }).field == "tasks[0].count");
    CHECK(rejected([](scenario& s) { s.tasks[0].count = 100'001; }).field == "tasks[0].count");
    const auto cpu7 = rejected([](scenario& s) {
        s.machine.cpus = 2;
        s.tasks[0].affinity = {0, 7};
    });
    CHECK(cpu7.field == "tasks[0].affinity");
    CHECK(cpu7.reason == "affinity to CPU 7 but the machine has 2 CPUs");
    CHECK(rejected([](scenario& s) { s.tasks[0].affinity = {-1}; }).field == "tasks[0].affinity");
    CHECK(rejected([](scenario& s) {
              s.machine.cpus = 2;
              s.tasks[0].affinity = {1, 1};
          }).reason == "CPU 1 is listed twice");
}

TEST_CASE("set_affinity and cpusets") {
    const auto two = [](scenario& s) {
        s.machine.cpus = 2;
        s.length = 10 * nsec_per_sec;
    };
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.tasks[0].set_affinity = {{nsec_per_sec, {}}};
          }).field == "tasks[0].set_affinity[0].cpus");
    const auto cpu2 = rejected([&](scenario& s) {
        two(s);
        s.tasks[0].set_affinity = {{nsec_per_sec, {1}}, {2 * nsec_per_sec, {2}}};
    });
    CHECK(cpu2.field == "tasks[0].set_affinity[1].cpus");
    CHECK(cpu2.reason == "affinity to CPU 2 but the machine has 2 CPUs");
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.tasks[0].set_affinity = {{s.length, {1}}};
          }).field == "tasks[0].set_affinity[0].at");
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.tasks[0].cpuset = "nope";
          }).field == "tasks[0].cpuset");
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.machine.cpusets = {{"b", {}}};
          }).field == "machine.cpusets.b");
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.machine.cpusets = {{"b", {0, 3}}};
          }).field == "machine.cpusets.b");
    const auto outside = rejected([&](scenario& s) {
        two(s);
        s.machine.cpusets = {{"b", {1}}};
        s.tasks[0].cpuset = "b";
        s.tasks[0].affinity = {0};
    });
    CHECK(outside.field == "tasks[0].affinity");
    CHECK(outside.reason ==
          "no CPU of it is in cpuset \"b\"; sched_setaffinity() refuses an empty intersection");
    CHECK(rejected([&](scenario& s) {
              two(s);
              s.machine.cpusets = {{"b", {1}}};
              s.tasks[0].cpuset = "b";
              s.tasks[0].set_affinity = {{nsec_per_sec, {0}}};
          }).field == "tasks[0].set_affinity[0].cpus");
    CHECK(error_fields([&](scenario& s) {
              two(s);
              s.machine.cpusets = {{"b", {1}}};
              s.tasks[0].cpuset = "b";
              s.tasks[0].affinity = {0, 1};
              s.tasks[0].set_affinity = {{nsec_per_sec, {1}}};
          }).empty());
}

TEST_CASE("behaviours and distributions") {
    using kind = behaviour_spec::kind;
    using dist = distribution::kind;
    CHECK(rejected([](scenario& s) {
              s.tasks[0].behaviour = {kind::periodic, 0, 5, {}, {}, {}, {}};
          }).field == "tasks[0].behaviour.run");
    CHECK(rejected([](scenario& s) {
              s.tasks[0].behaviour = {kind::periodic, 5, -1, {}, {}, {}, {}};
          }).field == "tasks[0].behaviour.sleep");
    CHECK_NOTHROW(validate([] {
        scenario sc = valid_scenario();
        sc.tasks[0].behaviour = {kind::periodic, 1'000'000, 0, {}, {}, {}, {}};
        return sc;
    }()));

    const auto random = [](distribution run, distribution sleep) {
        return
            [=](scenario& s) { s.tasks[1].behaviour = {kind::random, 0, 0, run, sleep, {}, {}}; };
    };
    const distribution ok{dist::exponential, 1'000'000, 0};
    CHECK(rejected(random({dist::constant, -1, 0}, ok)).field == "tasks[1].behaviour.run");
    CHECK(rejected(random({dist::constant, 0, 0}, ok)).field == "tasks[1].behaviour.run");
    CHECK(rejected(random(ok, {dist::uniform, -5, 10})).field == "tasks[1].behaviour.sleep.low");
    CHECK(rejected(random(ok, {dist::uniform, 10, 5})).field == "tasks[1].behaviour.sleep");
    CHECK(rejected(random(ok, {dist::exponential, 0, 0})).field == "tasks[1].behaviour.sleep.mean");
    scenario sc = valid_scenario();
    random(ok, {dist::constant, 0, 0})(sc); // never sleeping is allowed
    CHECK_NOTHROW(validate(sc));
}

TEST_CASE("start, stagger, lifetime, exit and renice times") {
    CHECK(rejected([](scenario& s) { s.tasks[0].start = -1; }).field == "tasks[0].start");
    CHECK(rejected([](scenario& s) { s.tasks[0].start = s.length; }).field == "tasks[0].start");
    CHECK(rejected([](scenario& s) { s.tasks[0].stagger.a = -1; }).field == "tasks[0].stagger");
    // A drawn start: uniform, all of it inside the run, and before any exit time.
    const auto drawn = [](distribution d) {
        return [d](scenario& s) {
            s.tasks[0].start_drawn = d;
            s.tasks[0].start = d.a;
        };
    };
    using dist = distribution::kind;
    CHECK(rejected(drawn({dist::exponential, 5, 0})).field == "tasks[0].start");
    CHECK(rejected(drawn({dist::uniform, -1, 5})).field == "tasks[0].start.low");
    CHECK(rejected(drawn({dist::uniform, 0, 2 * nsec_per_sec})).field == "tasks[0].start.high");
    CHECK(rejected([&](scenario& s) {
              drawn({dist::uniform, 0, 200})(s);
              s.tasks[0].exit_at = 100;
          }).reason == "100ns is not after the task's start (200ns at the latest)");
    scenario sc = valid_scenario();
    drawn({dist::uniform, 0, 4 * nsec_per_msec})(sc);
    CHECK_NOTHROW(validate(sc));
    CHECK(rejected([](scenario& s) { s.tasks[0].lifetime = 0; }).field == "tasks[0].lifetime");
    CHECK(rejected([](scenario& s) {
              s.tasks[0].start = 100;
              s.tasks[0].exit_at = 100;
          }).field == "tasks[0].exit_at");
    CHECK(rejected([](scenario& s) {
              s.tasks[1].renice = {{s.length, 0}};
          }).field == "tasks[1].renice[0].at");
    CHECK(rejected([](scenario& s) {
              s.tasks[1].renice = {{0, 0}, {5, 50}};
          }).field == "tasks[1].renice[1].nice");
    const auto clamp = warnings_of([](scenario& s) { s.tasks[1].renice = {{5, 20}}; });
    REQUIRE(clamp.size() == 1);
    CHECK(clamp[0] == "tasks[1].renice[0].nice: 20 clamped to 19 as setpriority() does");

    // 2 s run, stagger 0.5 s: instances 4 and 5 of six would fork at 2 s and 2.5 s.
    const auto late = warnings_of([](scenario& s) {
        s.tasks[0].count = 6;
        s.tasks[0].stagger.a = nsec_per_sec / 2;
    });
    REQUIRE(late.size() == 1);
    CHECK(late[0].rfind("tasks[0].stagger: instances 4 to 5 ", 0) == 0);
    CHECK(warnings_of([](scenario& s) {
              s.tasks[0].count = 4;
              s.tasks[0].stagger.a = nsec_per_sec / 2;
          }).empty());
}

TEST_CASE("reference and measured values name entries") {
    const auto ref = rejected([](scenario& s) { s.reference = "c"; });
    CHECK(ref.field == "reference");
    CHECK(ref.reason.find("entries: a, b") != std::string::npos);
    CHECK(rejected([](scenario& s) { s.measured.share["x"] = 0.5; }).field == "measured.share.x");
    CHECK(rejected([](scenario& s) { s.measured.ratio["x"] = 2; }).field == "measured.ratio.x");
    CHECK(rejected([](scenario& s) { s.measured.share["a"] = -0.1; }).field == "measured.share.a");
    CHECK(rejected([](scenario& s) { s.measured.ratio["a"] = 0; }).field == "measured.ratio.a");
    CHECK(rejected([](scenario& s) {
              s.reference.clear();
              s.measured.ratio["a"] = 3;
          }).field == "measured.ratio");
    CHECK(rejected([](scenario& s) { s.measured.tolerance.share = -0.01; }).field ==
          "measured.tolerance.share");
    CHECK(rejected([](scenario& s) { s.measured.tolerance.ratio = std::nan(""); }).field ==
          "measured.tolerance.ratio");
    scenario sc = valid_scenario();
    sc.measured.share = {{"a", 0.75}, {"b", 0.25}};
    sc.measured.ratio = {{"a", 3.0}};
    sc.measured.tolerance = {0.0, 0.03, {}};
    CHECK(validate(sc).empty());
}

TEST_CASE("a task's system share is a fraction") {
    CHECK(rejected([](scenario& sc) { sc.tasks[1].system_share = 1.5; }).field ==
          "tasks[1].system_share");
    CHECK(rejected([](scenario& sc) { sc.tasks[0].system_share = -0.1; }).field ==
          "tasks[0].system_share");
    CHECK(warnings_of([](scenario& sc) { sc.tasks[0].system_share = 0.3; }).empty());
}

TEST_CASE("a run is at most 10^7 s long") {
    CHECK(rejected([](scenario& sc) { sc.length = 10'000'001 * nsec_per_sec; }).field == "length");
    CHECK(warnings_of([](scenario& sc) { sc.length = 10'000'000 * nsec_per_sec; }).empty());
}

TEST_CASE("a custom slice needs 6.12 and is clamped like __setparam_fair") {
    const auto old = rejected([](scenario& sc) {
        sc.machine.kernel = {6, 11};
        sc.tasks[0].slice = 1'000'000;
    });
    CHECK(old.field == "tasks[0].slice");
    CHECK(rejected([](scenario& sc) {
              sc.machine.kernel = {6, 12};
              sc.tasks[0].slice = 0;
          }).field == "tasks[0].slice");
    const auto w = warnings_of([](scenario& sc) {
        sc.machine.kernel = {6, 12, 31};
        sc.tasks[1].slice = 10'000; // 10 us -> 0.1 ms
    });
    REQUIRE(w.size() == 1);
    CHECK(w[0].find("tasks[1].slice") != std::string::npos);
    CHECK(warnings_of([](scenario& sc) {
              sc.machine.kernel = {6, 12, 31};
              sc.tasks[1].slice = 2'000'000;
          }).empty());
}

TEST_CASE("a topology must be consistent and agree with machine.cpus") {
    const auto with = [](cpu_topology t) {
        return [t](scenario& sc) {
            sc.machine.cpus = t.nr_cpus();
            sc.machine.topology = t;
        };
    };
    CHECK(warnings_of(with(symmetric_topology(1, 1, 1))).empty());
    CHECK(validate(valid_scenario()).empty()); // no topology: cpus cores

    const auto mismatch = rejected([](scenario& sc) {
        sc.machine.cpus = 3;
        sc.machine.topology = symmetric_topology(1, 2, 2);
    });
    CHECK(mismatch.field == "machine.cpus");
    CHECK(mismatch.reason == "3 but machine.topology has 4 CPUs (leave cpus out to take the "
                             "topology's)");

    cpu_topology split = symmetric_topology(1, 2, 2);
    split.cpus[2].llc = 1; // cpu 0's SMT sibling in another LLC
    const auto inconsistent = rejected(with(split));
    CHECK(inconsistent.field == "machine.topology");
    CHECK(inconsistent.reason == "cpu 2 shares a core with cpu 0 but is in llc 1, not 0");

    CHECK(rejected(with(symmetric_topology(1, 4097, 1))).field == "machine.topology");
    // An affinity beyond a mismatched topology is not reported again.
    CHECK(error_fields([](scenario& sc) {
              sc.machine.cpus = 8;
              sc.machine.topology = symmetric_topology(1, 2, 1);
              sc.tasks[0].affinity = {5};
          }) == std::vector<std::string>{"machine.cpus"});
}

TEST_CASE("after names an earlier entry, and such an entry has no start of its own") {
    // The valid scenario's entries: a, then b.
    CHECK(rejected([](scenario& s) { s.tasks[1].after = "zz"; }).field == "tasks[1].after");
    CHECK(rejected([](scenario& s) { s.tasks[0].after = "b"; }).field == "tasks[0].after");
    CHECK(rejected([](scenario& s) {
              s.tasks[1].after = "a";
              s.tasks[1].start = nsec_per_msec;
          }).field == "tasks[1].start");
    CHECK(error_fields([](scenario& s) { s.tasks[1].after = "a"; }).empty());
}

TEST_CASE("RT tasks and the RT machine settings: the kernel's limits, each naming its field") {
    const auto fifo = [](scenario& s) {
        s.tasks[0].policy = sched_policy::fifo;
        s.tasks[0].rt_priority = 50;
    };
    CHECK(warnings_of(fifo).empty());
    // An RT task's nice changes nothing but is valid (set_user_nice() keeps it).
    CHECK(warnings_of([&](scenario& s) {
              fifo(s);
              s.tasks[0].renice = {{nsec_per_sec, 10}};
          }).empty());
    const auto r = rejected([&](scenario& s) {
        fifo(s);
        s.tasks[0].rt_priority = 0;
    });
    CHECK(r.field == "tasks[0].rt_priority");
    CHECK(r.reason == "missing: must be 1-99 for policy \"fifo\"");
    CHECK(rejected([&](scenario& s) {
              fifo(s);
              s.tasks[0].slice = nsec_per_msec;
          }).field == "tasks[0].slice");
    // Before 5.10 RT_RUNTIME_SHARE would share runtime between CPUs: refused on several
    // CPUs under RT bandwidth, accepted on one CPU or with the limit off.
    const auto before_5_10 = [&](scenario& s) {
        fifo(s);
        s.machine.kernel = {5, 9};
        s.machine.cpus = 2;
    };
    CHECK(rejected(before_5_10).field == "tasks[0].policy");
    CHECK(warnings_of([&](scenario& s) {
              before_5_10(s);
              s.machine.sched_rt_runtime = runtime_inf;
          }).empty());
    CHECK(warnings_of([&](scenario& s) {
              before_5_10(s);
              s.machine.cpus = 1;
          }).empty());
    CHECK(warnings_of([&](scenario& s) {
              before_5_10(s);
              s.machine.kernel = {5, 10};
          }).empty());
    CHECK(rejected([](scenario& s) { s.machine.sched_rt_runtime = -5; }).field ==
          "machine.sched_rt_runtime");
    CHECK(rejected([](scenario& s) { s.machine.sched_rt_runtime = 1'500; }).reason ==
          "1.5us is not a whole number of microseconds (sched_rt_runtime_us)");
    CHECK(rejected([](scenario& s) {
              s.machine.rt_group_sched = true;
              s.machine.sched_rt_runtime = 0;
          }).field == "machine.sched_rt_runtime");
    CHECK(rejected([](scenario& s) {
              s.machine.kernel = {6, 12};
              s.machine.fair_server_runtime = 2 * nsec_per_sec;
          }).field == "machine.fair_server_runtime");
    CHECK(rejected([](scenario& s) {
              s.machine.kernel = {6, 12};
              s.machine.fair_server_period = 10 * nsec_per_usec;
          }).field == "machine.fair_server_period");
    CHECK(rejected([](scenario& s) { s.machine.fair_server_period = nsec_per_sec; }).reason ==
          "the fair server exists from 6.12; the machine runs 6.8");
}

} // namespace test_validate
