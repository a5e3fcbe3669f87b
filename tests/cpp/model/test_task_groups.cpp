// Task groups (cgroups) and autogroups on one CPU, against closed-form shares: a group's
// share of its parent is its weight over its siblings' weights, whatever the number of its
// tasks, and nesting multiplies the fractions.
#include "model_helpers.hpp"
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/validate.hpp>

using namespace model_test;

namespace test_task_groups {

namespace {

const std::vector<kernel_version> releases = {{5, 10}, {5, 15}, {6, 1},  {6, 6},
                                              {6, 8},  {6, 12}, {6, 15}, {6, 18}};

scenario one_cpu(kernel_version v, int cgroup_version = 2) {
    scenario sc;
    sc.machine.cpus = 1;
    sc.machine.kernel = v;
    sc.machine.cgroup_version = cgroup_version;
    sc.length = 10 * nsec_per_sec;
    sc.window_start = 1 * nsec_per_sec;
    return sc;
}

// Shares of the window's one CPU are known to a tick's worth of rounding over the window.
constexpr double share_margin = 0.005;

} // namespace

TEST_CASE("two equal groups of 1 and 3 burners share one CPU 50/50") {
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = one_cpu(v);
        sc.cgroups = {cgroup("a"), cgroup("b")};
        sc.tasks = {in_group(burner("x"), "a"), in_group(burner("y", 0, 3), "b")};
        const repetition_result r = run_one(sc);
        CHECK(group(r, "a").share == Approx(0.5).margin(share_margin));
        CHECK(group(r, "b").share == Approx(0.5).margin(share_margin));
        CHECK(group(r, "b").nr_tasks == 3);
        CHECK(find(r, "y.0").share == Approx(0.5 / 3).margin(share_margin));
        // A group's time is its tasks' time.
        CHECK(group(r, "b").window_runtime == find(r, "y.0").window_runtime +
                                                  find(r, "y.1").window_runtime +
                                                  find(r, "y.2").window_runtime);
    }
}

TEST_CASE("cpu.shares 2048 vs 512 split one CPU 80/20, as cpu.weight 200 vs 50") {
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario v1 = one_cpu(v, 1);
        v1.cgroups = {cgroup("heavy"), cgroup("light")};
        v1.cgroups[0].shares = 2048;
        v1.cgroups[1].shares = 512;
        v1.tasks = {in_group(burner("h"), "heavy"), in_group(burner("l", 0, 2), "light")};
        const repetition_result r1 = run_one(v1);
        CHECK(group(r1, "heavy").share == Approx(0.8).margin(share_margin));
        CHECK(group(r1, "light").share == Approx(0.2).margin(share_margin));
        CHECK(group(r1, "heavy").shares == 2048);

        scenario v2 = v1;
        v2.machine.cgroup_version = 2;
        v2.cgroups[0].shares.reset();
        v2.cgroups[1].shares.reset();
        v2.cgroups[0].weight = 200;
        v2.cgroups[1].weight = 50;
        const repetition_result r2 = run_one(v2);
        CHECK(group(r2, "heavy").share == Approx(0.8).margin(share_margin));
        CHECK(group(r2, "light").shares == 512);
    }
}

TEST_CASE("nested groups multiply their fractions") {
    // p (1024) holds p/x (1024) and p/y (3072); q (1024) beside p: q 1/2, x 1/8, y 3/8.
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = one_cpu(v, 1);
        sc.cgroups = {cgroup("p/x"), cgroup("p/y"), cgroup("q")};
        sc.cgroups[1].shares = 3072;
        sc.tasks = {in_group(burner("x"), "p/x"), in_group(burner("y"), "p/y"),
                    in_group(burner("z"), "q")};
        const repetition_result r = run_one(sc);
        CHECK(group(r, "p").share == Approx(0.5).margin(share_margin));
        CHECK(group(r, "q").share == Approx(0.5).margin(share_margin));
        CHECK(group(r, "p/x").share == Approx(0.125).margin(share_margin));
        CHECK(group(r, "p/y").share == Approx(0.375).margin(share_margin));
        CHECK(group(r, "p").window_runtime ==
              group(r, "p/x").window_runtime + group(r, "p/y").window_runtime);
    }
}

TEST_CASE("autogroup: nice divides time within a session, not across sessions") {
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = one_cpu(v);
        task_spec a = burner("a", 0);
        task_spec b = burner("b", 10);
        a.session = "term1";
        b.session = "term2";
        sc.tasks = {a, b};
        SECTION("different sessions: 50/50") {
            const repetition_result r = run_one(sc);
            CHECK(find(r, "a").share == Approx(0.5).margin(share_margin));
            CHECK(r.task_groups.size() == 2);
            CHECK(r.task_groups[0].autogroup);
        }
        SECTION("the same session: the weights' 1024 : 110") {
            sc.tasks[1].session = "term1";
            const repetition_result r = run_one(sc);
            CHECK(find(r, "a").share == Approx(1024.0 / 1134).margin(share_margin));
            CHECK(r.task_groups.size() == 1);
        }
        SECTION("autogroup off: the weights again") {
            sc.machine.autogroup = false;
            const repetition_result r = run_one(sc);
            CHECK(find(r, "a").share == Approx(1024.0 / 1134).margin(share_margin));
            CHECK(r.task_groups.empty());
        }
        SECTION("a task in a cgroup ignores its session's autogroup") {
            sc.cgroups = {cgroup("svc")};
            sc.tasks[0].cgroup = "svc";
            sc.tasks[1].cgroup = "svc";
            const repetition_result r = run_one(sc);
            CHECK(find(r, "a").share == Approx(1024.0 / 1134).margin(share_margin));
            CHECK(r.task_groups.size() == 1);
        }
        SECTION("the autogroup's nice weighs the session") {
            sc.tasks[1].nice = 0;
            sc.sessions = {{"term2", 5}}; // nice 5: 335 against 1024
            const repetition_result r = run_one(sc);
            CHECK(find(r, "a").share == Approx(1024.0 / (1024 + 335)).margin(share_margin));
        }
    }
}

TEST_CASE("cpu.weight converts to shares as sched_weight_from_cgroup() rounds") {
    CHECK(sched_weight_from_cgroup(1) == 10);
    CHECK(sched_weight_from_cgroup(100) == 1024);
    CHECK(sched_weight_from_cgroup(10000) == 102400);
    CHECK(sched_weight_from_cgroup(3) == 31); // 30.72 rounds to 31
    cgroup_spec g;
    g.weight_nice = -20;
    CHECK(cgroup_shares(g) == scale_load(88761));
    g = {};
    g.shares = 1;
    CHECK(cgroup_shares(g) == scale_load(2)); // MIN_SHARES
    g.shares = 1 << 20;
    CHECK(cgroup_shares(g) == scale_load(262144)); // MAX_SHARES
}

TEST_CASE("implied parents are created with the defaults, parents first") {
    scenario sc = one_cpu({6, 6});
    sc.cgroups = {cgroup("a/b/c"), cgroup("a"), cgroup("d/e")};
    CHECK(cgroup_paths(sc) == std::vector<std::string>{"a", "a/b", "a/b/c", "d", "d/e"});
}

TEST_CASE("bad cgroup settings are errors naming the field") {
    scenario sc = one_cpu({6, 6});
    sc.cgroups = {cgroup("web"), cgroup("web/api"), cgroup("bad//name"), cgroup("web")};
    sc.cgroups[0].shares = 512; // a v1 file on v2
    sc.cgroups[1].weight = 0;   // below 1
    sc.tasks = {in_group(burner("a"), "web"), in_group(burner("b"), "nope")};
    sc.sessions = {{"s", 25}};
    const auto fields = error_fields(sc);
    CHECK(has_field(fields, "cgroups[0].shares"));
    CHECK(has_field(fields, "cgroups[1].weight"));
    CHECK(has_field(fields, "cgroups[2].name"));
    CHECK(has_field(fields, "cgroups[3].name"));  // a duplicate
    CHECK(has_field(fields, "tasks[0].cgroup"));  // v2: no tasks in a group with children
    CHECK(has_field(fields, "tasks[1].cgroup"));  // no such group
    CHECK(has_field(fields, "sessions[0].nice")); // outside [-20, 19]
    sc.machine.cgroup_version = 3;
    CHECK(has_field(error_fields(sc), "machine.cgroup_version"));

    scenario v1 = one_cpu({6, 6}, 1);
    v1.cgroups = {cgroup("g")};
    v1.cgroups[0].weight = 100; // a v2 file on v1
    v1.tasks = {in_group(burner("a"), "g")};
    CHECK(has_field(error_fields(v1), "cgroups[0].weight"));
    v1.cgroups[0].weight.reset();
    v1.cgroups[0].shares = 0; // clamped to 2, as the kernel does: a warning
    CHECK(error_fields(v1).empty());
    CHECK(check_scenario(v1).warnings.size() == 1);
}

} // namespace test_task_groups
