// Group shares on several CPUs (calc_group_shares()): a group's entity on each CPU weighs
// the group's shares times that CPU's part of the group's load, so the entities of one
// group add up to about its shares; tg->load_avg is the sum of the queues' published
// parts; a group entity's load follows its queue's. And what the whole model then gives
// for a group of 1 burner beside a group of 3 on 2 CPUs.
#include "model_helpers.hpp"
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>

using namespace model_test;

namespace test_group_shares_smp {

namespace {

const std::vector<kernel_version> releases = {{5, 10}, {5, 15}, {6, 1},  {6, 6},
                                              {6, 8},  {6, 12}, {6, 15}, {6, 18}};

// A machine of `cpus` CPUs running release v for `seconds`, its groups and tasks to come.
scenario machine(kernel_version v, int cpus, int seconds, int window_start_s = 0) {
    scenario sc;
    sc.machine.cpus = cpus;
    sc.machine.kernel = v;
    sc.length = seconds * nsec_per_sec;
    sc.window_start = window_start_s * nsec_per_sec;
    return sc;
}

scenario one_and_three(kernel_version v, int cpus) {
    scenario sc = machine(v, cpus, 10, 2);
    sc.cgroups = {cgroup("a"), cgroup("b")};
    sc.tasks = {in_group(burner("x"), "a"), in_group(burner("y", 0, 3), "b")};
    return sc;
}

} // namespace

// Fluid theory gives each group one CPU. The model's balancer sees the groups' tasks by
// h_load: x carries its group's whole load, each y a third of its group's, so x alone on
// one CPU and the three y on the other are balanced, and each group gets one CPU.
TEST_CASE("2 CPUs, a group of 1 burner beside a group of 3 get one CPU each") {
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        const repetition_result r = run_one(one_and_three(v, 2));
        CHECK(group(r, "a").share == Approx(1.0).margin(0.01));
        CHECK(group(r, "b").share == Approx(1.0).margin(0.01));
        for (const char* y : {"y.0", "y.1", "y.2"})
            CHECK(find(r, y).share == Approx(1.0 / 3).margin(0.01));
        // Conservation: a group's time is its tasks' time.
        CHECK(group(r, "b").window_runtime == find(r, "y.0").window_runtime +
                                                  find(r, "y.1").window_runtime +
                                                  find(r, "y.2").window_runtime);
        CHECK(group(r, "a").window_runtime == find(r, "x").window_runtime);
    }
}

TEST_CASE("per-CPU group entity weights follow calc_group_shares()") {
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        libsched::system s(one_and_three(v, 2), 1);
        s.run(5 * nsec_per_sec);
        const task_group& a = *s.find_task("x")->sched_task_group;
        const task_group& b = *s.find_task("y.0")->sched_task_group;
        REQUIRE(&a != &b);
        for (const task_group* tg : {&a, &b}) {
            INFO("group " << tg->name);
            s64 published = 0;
            u64 weights = 0;
            for (int c = 0; c < s.nr_cpus(); ++c) {
                const auto i = static_cast<std::size_t>(c);
                const cfs_rq& gq = *tg->cfs_rq[i];
                const sched_entity& ge = *tg->se[i];
                published += static_cast<s64>(gq.tg_load_avg_contrib);
                if (ge.on_rq) // an entity off its queue keeps a weight nobody reads
                    weights += ge.load.weight;
                // The weight was computed at the last update (the last tick at most 1 ms
                // ago); the averages moved little since.
                if (gq.load.weight != 0)
                    CHECK(static_cast<double>(ge.load.weight) ==
                          Approx(static_cast<double>(fair_sched_class::calc_group_shares(gq)))
                              .epsilon(0.02));
                // The group entity's signals follow its queue's: it is runnable whenever
                // the queue has a task, so its load is its weight.
                if (gq.h_nr_queued != 0) {
                    CHECK(static_cast<double>(ge.avg.util_avg) ==
                          Approx(static_cast<double>(gq.avg.util_avg)).epsilon(0.02));
                    CHECK(
                        static_cast<double>(ge.avg.load_avg) ==
                        Approx(static_cast<double>(scale_load_down(ge.load.weight))).epsilon(0.02));
                    CHECK(ge.runnable_weight == gq.h_nr_queued);
                }
            }
            // tg->load_avg is the sum of what the queues published.
            CHECK(tg->load_avg == published);
            // The queued entities' weights add up to about the group's shares.
            CHECK(static_cast<double>(weights) ==
                  Approx(static_cast<double>(tg->shares)).epsilon(0.02));
        }
        // Balanced by h_load: x alone on its CPU, the three y on the other.
        const int xc = s.find_task("x")->cpu;
        for (const char* y : {"y.0", "y.1", "y.2"})
            CHECK(s.find_task(y)->cpu != xc);
        // The y's h_load is a third of their group entity's load on that CPU.
        const task& y0 = *s.find_task("y.0");
        const sched_entity& ge = *b.se[static_cast<std::size_t>(y0.cpu)];
        CHECK(static_cast<double>(task_h_load(y0)) ==
              Approx(static_cast<double>(ge.avg.load_avg) / 3).epsilon(0.05));
    }
}

TEST_CASE("a group's load spread over 2 CPUs splits its shares by load") {
    // One group of 2 burners on 2 CPUs: one on each, each CPU's entity half the shares.
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 2, 6);
        sc.cgroups = {cgroup("g")};
        sc.cgroups[0].weight = 400; // 4096 shares
        sc.tasks = {in_group(burner("t", 0, 2), "g")};
        libsched::system s(sc, 1);
        s.run(4 * nsec_per_sec);
        const task_group& g = *s.find_task("t.0")->sched_task_group;
        REQUIRE(s.find_task("t.0")->cpu != s.find_task("t.1")->cpu);
        for (int c = 0; c < 2; ++c)
            CHECK(static_cast<double>(g.se[static_cast<std::size_t>(c)]->load.weight) ==
                  Approx(static_cast<double>(scale_load(2048))).epsilon(0.03));
    }
}

TEST_CASE("cpu.idle: an idle group beside a normal one gets the idle weight's share") {
    for (const kernel_version v : {kernel_version{5, 15}, kernel_version{6, 6},
                                   kernel_version{6, 12}, kernel_version{6, 18}}) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 1, 10, 1);
        sc.cgroups = {cgroup("batch"), cgroup("web")};
        sc.cgroups[0].idle = true;
        sc.tasks = {in_group(burner("b", 0, 2), "batch"), in_group(burner("w"), "web")};
        REQUIRE(check_scenario(sc).errors.empty());
        const repetition_result r = run_one(sc);
        CHECK(group(r, "batch").share == Approx(3.0 / 1027).margin(0.003));
        CHECK(group(r, "web").share == Approx(1024.0 / 1027).margin(0.003));
        CHECK(group(r, "batch").shares == 3);
    }
}

TEST_CASE("cpu.idle: the idle group's tasks count as idle, its entity is idle") {
    scenario sc = machine({6, 6}, 1, 2);
    sc.cgroups = {cgroup("batch")};
    sc.cgroups[0].idle = true;
    sc.tasks = {in_group(burner("b", 0, 2), "batch")};
    libsched::system s(sc, 1);
    s.run(1 * nsec_per_sec);
    const rq& r = s.cpu_rq(0);
    const task_group& tg = *s.find_task("b.0")->sched_task_group;
    CHECK(r.cfs.h_nr_queued == 2);
    CHECK(r.cfs.h_nr_idle == 2);         // counted idle above the idle group's queue
    CHECK(tg.cfs_rq[0]->h_nr_idle == 0); // not SCHED_IDLE tasks themselves
    CHECK(sched_idle_cpu(r));
    CHECK(se_is_idle(*tg.se[0]));
    CHECK(tg.shares == scale_load(weight_idleprio));
}

TEST_CASE("cpu.idle is valid from 5.15 and takes no weight") {
    scenario sc;
    sc.machine.kernel = {5, 10};
    sc.cgroups = {cgroup("batch")};
    sc.cgroups[0].idle = true;
    sc.tasks = {in_group(burner("b"), "batch")};
    const auto fields = [](const scenario& s) {
        std::vector<std::string> out;
        for (const auto& e : check_scenario(s).errors)
            out.push_back(e.field);
        return out;
    };
    CHECK(fields(sc) == std::vector<std::string>{"cgroups[0].idle"});
    sc.machine.kernel = {5, 15};
    CHECK(fields(sc).empty());
    sc.cgroups[0].weight = 50;
    CHECK(fields(sc) == std::vector<std::string>{"cgroups[0].idle"});
}

TEST_CASE("a group's blocked load decays and its queue leaves the leaf list") {
    // g's burner runs on CPU 1 for 1 s and exits; CPU 1 then idles while CPU 0 stays busy.
    // Its queue's load leaves through removed load and decays in the blocked-load updates
    // of CPU 1's idle balancing: by 4 s nothing is left, tg->load_avg is back to 0 and the
    // queue is off the list. CPU 1 keeps its tick: the NOHZ kick that updates a tickless
    // CPU's blocked load alone (NOHZ_STATS_KICK) is not modelled.
    for (const kernel_version v : releases) {
        INFO("kernel " << v.str());
        scenario sc = machine(v, 2, 5);
        sc.machine.nohz_idle = false;
        sc.cgroups = {cgroup("g")};
        task_spec a = in_group(burner("a"), "g");
        a.affinity = {1};
        a.lifetime = 1 * nsec_per_sec;
        task_spec b = burner("b");
        b.affinity = {0};
        sc.tasks = {a, b};
        libsched::system s(sc, 1);
        s.run(nsec_per_sec / 2);
        const task_group& g = *s.find_task("a")->sched_task_group;
        const cfs_rq& q = *g.cfs_rq[1];
        CHECK(q.on_list);
        CHECK(g.load_avg > 900);
        s.run(4 * nsec_per_sec);
        CHECK(q.avg.load_avg == 0);
        CHECK(q.tg_load_avg_contrib == 0);
        CHECK(g.load_avg == 0);
        CHECK_FALSE(q.on_list);
        CHECK(g.se[1]->avg.load_avg == 0);
    }
}

} // namespace test_group_shares_smp
