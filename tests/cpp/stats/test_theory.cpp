// stats/theory.hpp: the fluid (GPS) shares against values computed by hand, and against the
// model's simulated shares where the fluid theory holds.
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/stats/theory.hpp>
#include <string>

using namespace libsched;

namespace test_theory {

using stats::theory_result;

namespace {

theory_result theory_of(const std::string& toml) {
    return stats::theory_shares(parse_scenario(toml, "<test>"));
}

double task_share(const theory_result& r, const std::string& name) {
    for (const stats::theory_task& t : r.tasks)
        if (t.name == name)
            return t.share;
    FAIL("no task " << name);
    return 0;
}

double group_share(const theory_result& r, const std::string& name) {
    for (const stats::theory_group& g : r.groups)
        if (g.name == name)
            return g.share;
    FAIL("no group " << name);
    return 0;
}

Approx exactly(double v) {
    return Approx(v).margin(1e-9);
}

} // namespace

TEST_CASE("nice 0 against nice 5 on one CPU: the weight ratio") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
[[tasks]]
name = "a"
[[tasks]]
name = "b"
nice = 5
)");
    CHECK(task_share(r, "a") == exactly(1024.0 / (1024 + 335)));
    CHECK(task_share(r, "b") == exactly(335.0 / (1024 + 335)));
    CHECK(r.tasks[1].weight == 335);
}

TEST_CASE("instances are named as the model names them") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[tasks]]
name = "a"
count = 3
)");
    REQUIRE(r.tasks.size() == 3);
    for (const char* name : {"a.0", "a.1", "a.2"})
        CHECK(task_share(r, name) == exactly(2.0 / 3));
}

TEST_CASE("a task is capped at one CPU: nice -20 beside four nice 0 on two CPUs") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[tasks]]
name = "big"
nice = -20
[[tasks]]
name = "small"
count = 4
)");
    CHECK(task_share(r, "big") == exactly(1.0));
    for (int i = 0; i < 4; ++i)
        CHECK(task_share(r, "small." + std::to_string(i)) == exactly(0.25));
}

TEST_CASE("affinity: two tasks pinned to CPU 0, a third free on two CPUs") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[tasks]]
name = "a"
affinity = [0]
[[tasks]]
name = "b"
affinity = [0]
[[tasks]]
name = "c"
)");
    CHECK(task_share(r, "a") == exactly(0.5));
    CHECK(task_share(r, "b") == exactly(0.5));
    CHECK(task_share(r, "c") == exactly(1.0));
}

TEST_CASE("affinity: a heavy pinned task and free ones share by the flow") {
    // x (nice -5, weight 3121) may use CPU 0 only; y and z (1024 each) both CPUs. As the
    // level rises x reaches its one CPU first (y and z are at 1024/3121 of a CPU then);
    // y and z go on and fill CPU 1: 0.5 each.
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[tasks]]
name = "x"
nice = -5
affinity = [0]
[[tasks]]
name = "y"
[[tasks]]
name = "z"
)");
    CHECK(task_share(r, "x") == exactly(1.0));
    CHECK(task_share(r, "y") == exactly(0.5));
    CHECK(task_share(r, "z") == exactly(0.5));
}

TEST_CASE("affinity: three pinned to CPU 0 against one pinned to CPU 1 and one free") {
    // CPU 0 holds a, b, c; CPU 1 holds d; e may run anywhere. Raising the level: a..e all
    // at 2/5 would need 1.2 of CPU 0 for a, b, c; CPU 0 fills at 1/3 each; d and e go on
    // and share CPU 1 (e may use CPU 0, but it is full): 0.5 each.
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[tasks]]
name = "p"
count = 3
affinity = [0]
[[tasks]]
name = "d"
affinity = [1]
[[tasks]]
name = "e"
)");
    for (int i = 0; i < 3; ++i)
        CHECK(task_share(r, "p." + std::to_string(i)) == exactly(1.0 / 3));
    CHECK(task_share(r, "d") == exactly(0.5));
    CHECK(task_share(r, "e") == exactly(0.5));
}

TEST_CASE("a cpuset restricts a task as its affinity does") {
    const auto r = theory_of(R"(
[machine]
cpus = 4
cpusets = { small = [3] }
[[tasks]]
name = "a"
count = 3
cpuset = "small"
[[tasks]]
name = "b"
)");
    for (int i = 0; i < 3; ++i)
        CHECK(task_share(r, "a." + std::to_string(i)) == exactly(1.0 / 3));
    CHECK(task_share(r, "b") == exactly(1.0));
}

TEST_CASE("v1 shares 2048 against 512 on one CPU") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
cgroup_version = 1
[[cgroups]]
name = "hi"
shares = 2048
[[cgroups]]
name = "lo"
shares = 512
[[tasks]]
name = "a"
cgroup = "hi"
[[tasks]]
name = "b"
cgroup = "lo"
count = 2
)");
    CHECK(group_share(r, "hi") == exactly(0.8));
    CHECK(group_share(r, "lo") == exactly(0.2));
    CHECK(task_share(r, "a") == exactly(0.8));
    CHECK(task_share(r, "b.0") == exactly(0.1));
}

TEST_CASE("nested groups multiply their fractions") {
    // top: "web" (weight 300) against "batch" (100); inside web "api" (200) against
    // "static" (100): api gets 3/4 * 2/3 = 1/2, static 1/4, batch 1/4.
    const auto r = theory_of(R"(
[machine]
cpus = 1
[[cgroups]]
name = "web"
weight = 300
[[cgroups]]
name = "web/api"
weight = 200
[[cgroups]]
name = "web/static"
[[cgroups]]
name = "batch"
[[tasks]]
name = "api"
cgroup = "web/api"
[[tasks]]
name = "static"
cgroup = "web/static"
[[tasks]]
name = "batch"
cgroup = "batch"
)");
    CHECK(group_share(r, "web") == exactly(0.75));
    CHECK(task_share(r, "api") == exactly(0.5));
    CHECK(task_share(r, "static") == exactly(0.25));
    CHECK(task_share(r, "batch") == exactly(0.25));
}

TEST_CASE("a group's unused share goes to its siblings first, on several CPUs") {
    // Two CPUs; group a (1 burner) and group b (3 burners), equal weights: a can use only
    // one CPU, so b gets the other; within b each burner a third.
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[cgroups]]
name = "a"
[[cgroups]]
name = "b"
[[tasks]]
name = "x"
cgroup = "a"
[[tasks]]
name = "y"
count = 3
cgroup = "b"
)");
    CHECK(group_share(r, "a") == exactly(1.0));
    CHECK(group_share(r, "b") == exactly(1.0));
    CHECK(task_share(r, "y.1") == exactly(1.0 / 3));
}

TEST_CASE("a quota of 50 ms per 100 ms caps two burners on two CPUs at half a CPU") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[cgroups]]
name = "capped"
quota = "50ms"
period = "100ms"
[[tasks]]
name = "b"
count = 2
cgroup = "capped"
)");
    CHECK(group_share(r, "capped") == exactly(0.5));
    CHECK(task_share(r, "b.0") == exactly(0.25));
    CHECK(r.groups[0].quota == Approx(0.5));
}

TEST_CASE("a quota of 150 ms per 100 ms: three burners on two CPUs get 1.5 CPUs") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
[[cgroups]]
name = "batch"
quota = "150ms"
period = "100ms"
[[tasks]]
name = "b"
count = 3
cgroup = "batch"
)");
    CHECK(group_share(r, "batch") == exactly(1.5));
    for (int i = 0; i < 3; ++i)
        CHECK(task_share(r, "b." + std::to_string(i)) == exactly(0.5));
}

TEST_CASE("a capped group leaves the rest to the root's other tasks") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
[[cgroups]]
name = "capped"
quota = "20ms"
period = "100ms"
[[tasks]]
name = "in"
cgroup = "capped"
[[tasks]]
name = "out"
)");
    CHECK(task_share(r, "in") == exactly(0.2));
    CHECK(task_share(r, "out") == exactly(0.8));
}

TEST_CASE("an RT burner and a fair burner on one CPU") {
    const std::string tasks = R"(
[[tasks]]
name = "fifo"
policy = "fifo"
rt_priority = 50
[[tasks]]
name = "fair"
)";
    SECTION("before 6.12: RT throttling leaves 50 ms per second") {
        const auto r = theory_of("[machine]\ncpus = 1\nkernel = \"6.6\"\n" + tasks);
        CHECK(task_share(r, "fifo") == exactly(0.95));
        CHECK(task_share(r, "fair") == exactly(0.05));
    }
    SECTION("6.12+: the fair server's 50 ms per second") {
        const auto r = theory_of("[machine]\ncpus = 1\nkernel = \"6.18\"\n" + tasks);
        CHECK(task_share(r, "fifo") == exactly(0.95));
        CHECK(task_share(r, "fair") == exactly(0.05));
    }
    SECTION("RT throttling off before 6.12: nothing left") {
        const auto r = theory_of("[machine]\ncpus = 1\nkernel = \"6.6\"\n"
                                 "sched_rt_runtime = \"unlimited\"\n" +
                                 tasks);
        CHECK(task_share(r, "fifo") == exactly(1.0));
        CHECK(task_share(r, "fair") == exactly(0.0));
    }
    SECTION("alone, an RT burner on 6.12+ takes the whole CPU") {
        const auto r = theory_of("[machine]\ncpus = 1\nkernel = \"6.18\"\n"
                                 "[[tasks]]\nname = \"fifo\"\npolicy = \"fifo\"\n"
                                 "rt_priority = 50\n");
        CHECK(task_share(r, "fifo") == exactly(1.0));
    }
}

TEST_CASE("RT priorities are strict, equal ones share") {
    const auto r = theory_of(R"(
[machine]
cpus = 2
kernel = "6.6"
sched_rt_runtime = "unlimited"
[[tasks]]
name = "high"
policy = "fifo"
rt_priority = 90
[[tasks]]
name = "low"
policy = "rr"
rt_priority = 10
count = 2
[[tasks]]
name = "fair"
)");
    CHECK(task_share(r, "high") == exactly(1.0));
    CHECK(task_share(r, "low.0") == exactly(0.5));
    CHECK(task_share(r, "fair") == exactly(0.0));
}

TEST_CASE("SCHED_IDLE against a normal task: weight 3 against 1024") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
[[tasks]]
name = "idle"
policy = "idle"
[[tasks]]
name = "normal"
policy = "batch"
)");
    CHECK(task_share(r, "idle") == exactly(3.0 / 1027));
    CHECK(task_share(r, "normal") == exactly(1024.0 / 1027));
}

TEST_CASE("autogroups split by session before nice") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
autogroup = true
[[tasks]]
name = "editor"
session = "term1"
[[tasks]]
name = "build"
nice = 10
count = 3
session = "term2"
)");
    CHECK(group_share(r, "autogroup-1") == exactly(0.5));
    CHECK(group_share(r, "autogroup-2") == exactly(0.5));
    CHECK(task_share(r, "build.2") == exactly(1.0 / 6));
}

TEST_CASE("a periodic task is capped at its duty cycle") {
    const auto r = theory_of(R"(
[machine]
cpus = 1
[[tasks]]
name = "p"
behaviour = { type = "periodic", run = "2ms", sleep = "8ms" }
[[tasks]]
name = "hog"
)");
    CHECK(task_share(r, "p") == exactly(0.2));
    CHECK(task_share(r, "hog") == exactly(0.8));
}

#ifdef LIBSCHED_SOURCE_DIR
TEST_CASE("the model's shares agree with the theory where it holds") {
    // cpu-max: the group's 1.5 CPUs hold, not the equal split among its tasks (one runs
    // alone on a CPU, two share the other, each queue throttled in turn), so only the
    // group's share is checked there.
    const auto [name, per_task] = GENERATE(table<std::string, bool>({{"two-burners", true},
                                                                     {"nice-ladder", true},
                                                                     {"autogroup", true},
                                                                     {"three-on-two", true},
                                                                     {"cgroup-shares", true},
                                                                     {"rt-fifo-vs-fair", true},
                                                                     {"cpu-max", false}}));
    CAPTURE(name);
    scenario sc =
        load_scenario(std::string{LIBSCHED_SOURCE_DIR} + "/examples/scenarios/" + name + ".toml");
    sc.repetitions = 1;
    sc.length = std::min(sc.length, 6 * nsec_per_sec); // long enough, and quick in Debug
    sc.window_end = sc.length;
    const theory_result theory = stats::theory_shares(sc);
    const run_result run = simulate(sc);
    const repetition_result& rep = run.repetitions.front();
    REQUIRE(rep.tasks.size() == theory.tasks.size());
    for (std::size_t i = 0; per_task && i < rep.tasks.size(); ++i) {
        CAPTURE(rep.tasks[i].name);
        CHECK(rep.tasks[i].name == theory.tasks[i].name);
        CHECK(rep.tasks[i].share == Approx(theory.tasks[i].share).margin(0.02));
    }
    for (const task_group_result& g : rep.task_groups) {
        CAPTURE(g.name);
        CHECK(g.share == Approx(group_share(theory, g.name)).margin(0.02));
    }
}
#endif

TEST_CASE("theory figures: entries sum their tasks, ratios are to the reference entry") {
    // Weights 1024 (a, two tasks) and 335 (b) on one CPU: a gets 2048/2383, b 335/2383.
    const stats::theory_figures f = stats::theory_figures_of(parse_scenario(R"(
        length = "1s"
        reference = "b"
        [[tasks]]
        name = "a"
        count = 2
        [[tasks]]
        name = "b"
        nice = 5
    )",
                                                                            "<test>"));
    CHECK(f.entry_share.at("a") == exactly(2048.0 / 2383));
    CHECK(f.task_share.at("a.1") == exactly(1024.0 / 2383));
    CHECK(f.entry_share.at("b") == exactly(335.0 / 2383));
    REQUIRE(f.ratio(f.entry_share.at("a")));
    CHECK(*f.ratio(f.entry_share.at("a")) == exactly(2048.0 / 335));
    CHECK(*f.ratio(f.task_share.at("a.0")) == exactly(1024.0 / 335));

    stats::theory_figures no_reference = f;
    no_reference.reference.clear();
    CHECK_FALSE(no_reference.ratio(0.5));
}

TEST_CASE("theory figures: none when a task may exit before the window ends") {
    // A program of one pass: 1 ms of run, then a sleep of at least 3 ms, beside a burner.
    const auto figures = [](const std::string& length, const std::string& program) {
        return stats::theory_figures_of(parse_scenario(R"(length = ")" + length + R"("
            [[tasks]]
            name = "b"
            [[tasks]]
            name = "t"
            behaviour = { type = "steps", )" + program + R"( }
            )",
                                                       "<test>"));
    };
    const std::string once = R"(loop = 1, steps = [{ run = "1ms" }, { sleep = "3ms" }])";
    CHECK(figures("1s", once).entry_share.empty());
    // Through its pass only when the run ends: it lives through the window at the least.
    CHECK(figures("4ms", once).entry_share.size() == 2);
    CHECK(figures("4001us", once).entry_share.empty());
    // Repeated for ever, the program or one of its phases.
    CHECK(figures("1s", R"(steps = [{ run = "1ms" }, { sleep = "3ms" }])").entry_share.size() == 2);
    CHECK(figures("1s", R"(loop = 2, phases = [{ steps = [{ run = "1ms" }] },
                                                { loop = -1, steps = [{ sleep = "3ms" }] }])")
              .entry_share.size() == 2);
    // A drawn sleep may be as short as its distribution allows (an exponential one: 0), a
    // timer's expiry may have passed: neither is counted.
    CHECK(figures("2ms", R"(loop = 1, steps = [{ run = "1ms" },
                                               { sleep = { dist = "uniform", low = "1ms", high = "5ms" } }])")
              .entry_share.size() == 2);
    CHECK(figures("2ms", R"(loop = 1, steps = [{ run = "1ms" },
                                               { sleep = { dist = "exponential", mean = "5ms" } }])")
              .entry_share.empty());
    CHECK(figures("2ms", R"(loop = 1, steps = [{ run = "1ms" }, { timer = "5ms" }])")
              .entry_share.empty());

    // Any task's lifetime or exit time before the window's end.
    const auto exiting = [](const std::string& exit) {
        return stats::theory_figures_of(parse_scenario(R"(length = "1s"
            [[tasks]]
            name = "b"
            start = "100ms"
            )" + exit + R"(
            )",
                                                       "<test>"));
    };
    CHECK(exiting(R"(lifetime = "899ms")").entry_share.empty());
    CHECK(exiting(R"(lifetime = "900ms")").entry_share.size() == 1);
    CHECK(exiting(R"(exit_at = "999ms")").entry_share.empty());
    CHECK(exiting(R"(exit_at = "1s")").entry_share.size() == 1);
}

TEST_CASE("theory figures: a reference entry that gets nothing gives no ratio") {
    // FIFO takes the CPU (5.15, RT throttling off): the fair reference entry gets 0.
    const stats::theory_figures f = stats::theory_figures_of(parse_scenario(R"(
        length = "1s"
        reference = "b"
        [machine]
        kernel = "5.15"
        sched_rt_runtime = -1
        [[tasks]]
        name = "a"
        policy = "fifo"
        rt_priority = 10
        [[tasks]]
        name = "b"
    )",
                                                                            "<test>"));
    CHECK(f.entry_share.at("a") == exactly(1.0));
    CHECK(f.entry_share.at("b") == exactly(0.0));
    CHECK_FALSE(f.ratio(1.0));
}

} // namespace test_theory
