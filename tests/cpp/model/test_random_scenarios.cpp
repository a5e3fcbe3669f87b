// Random valid scenarios (machine, tasks, behaviours, renices, affinity changes, cgroups,
// sessions, RT tasks) run in the invariant-checking mode: no exception, no invariant
// violation, and every run deterministic. The generator is seeded, so a failure is
// reproduced by its index.
#include "model_helpers.hpp"
#include <algorithm>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <random>
#include <sstream>

using namespace model_test;

namespace {

class scenario_generator {
public:
    explicit scenario_generator(std::uint64_t seed) : rng_(seed) {}

    scenario next() {
        scenario sc;
        static const char* const presets[] = {"1c", "1c2t", "2c", "4c", "4c8t"};
        const std::string preset = presets[pick(0, 4)];
        sc.machine.topology = preset_topology(preset);
        sc.machine.cpus = sc.machine.topology->nr_cpus();
        static const kernel_version releases[] = {{5, 4},  {5, 10}, {5, 15}, {6, 1},
                                                  {6, 6},  {6, 8},  {6, 12}, {6, 14},
                                                  {6, 17}, {6, 18}, {6, 19}};
        sc.machine.kernel = releases[pick(0, 10)];
        static const int hz[] = {100, 250, 300, 1000};
        sc.machine.hz = hz[pick(0, 3)];
        sc.machine.cgroup_version = pick(1, 2);
        sc.machine.autogroup = pick(0, 1) == 1;
        sc.machine.rt_group_sched = pick(0, 1) == 1;
        sc.length = pick(200, 800) * nsec_per_msec;
        sc.seed = static_cast<std::uint64_t>(pick(1, 1000));
        add_cgroups(sc);
        const int entries = pick(1, 5);
        for (int e = 0; e < entries; ++e)
            sc.tasks.push_back(random_task(sc, e));
        return sc;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    duration ms(int lo, int hi) { return pick(lo, hi) * nsec_per_msec / 10; } // in 0.1 ms

    void add_cgroups(scenario& sc) {
        const int n = pick(0, 3);
        for (int i = 0; i < n; ++i) {
            cgroup_spec g;
            // A child of an earlier group now and then: "g0/g1".
            g.name = (i > 0 && pick(0, 2) == 0 ? sc.cgroups[0].name + "/" : std::string{}) + "g" +
                     std::to_string(i);
            if (sc.machine.cgroup_version == 1) {
                if (pick(0, 1) == 1)
                    g.shares = pick(2, 4096);
            } else if (pick(0, 1) == 1) {
                g.weight = pick(1, 1000);
            }
            if (sc.machine.kernel >= kernel_version{5, 15} && !g.shares && !g.weight &&
                pick(0, 4) == 0)
                g.idle = true;
            // CFS bandwidth: on every release here (from 5.4; 6.18+ task-based), bursts from
            // 5.14. A child of a limited parent stays unlimited (v1 refuses a child more
            // runtime than its parent).
            const bool parent_limited =
                g.name.find('/') != std::string::npos && sc.cgroups[0].quota.has_value();
            if (!parent_limited && pick(0, 2) == 0) {
                g.period = pick(1, 200) * nsec_per_msec;
                g.quota = pick(1, 400) * nsec_per_msec;
                if (sc.machine.kernel >= kernel_version{5, 14} && pick(0, 2) == 0)
                    g.burst = pick(0, static_cast<int>(*g.quota / nsec_per_msec)) * nsec_per_msec;
            }
            sc.cgroups.push_back(g);
        }
    }

    // A group a task may join: on cgroup v2 only a leaf.
    std::string random_group(const scenario& sc) {
        std::vector<std::string> leaves;
        for (const std::string& path : cgroup_paths(sc)) {
            bool parent = false;
            for (const std::string& other : cgroup_paths(sc))
                parent = parent || cgroup_parent(other) == path;
            if (!parent || sc.machine.cgroup_version == 1)
                leaves.push_back(path);
        }
        if (leaves.empty() || pick(0, 2) == 0)
            return {};
        return leaves[static_cast<std::size_t>(pick(0, static_cast<int>(leaves.size()) - 1))];
    }

    task_spec random_task(const scenario& sc, int e) {
        task_spec t = burner("t" + std::to_string(e), pick(-20, 19), pick(1, 3));
        const int policy = pick(0, 9);
        if (policy == 7)
            t.policy = sched_policy::batch;
        else if (policy == 8)
            t.policy = sched_policy::idle;
        else if (policy == 9) {
            t.policy = pick(0, 1) == 0 ? sched_policy::fifo : sched_policy::rr;
            t.rt_priority = pick(1, 99);
            // RT bandwidth before 5.10 on several CPUs is refused (RT_RUNTIME_SHARE).
            if (sc.machine.kernel < kernel_version{5, 10} && sc.machine.cpus > 1) {
                t.policy = sched_policy::normal;
                t.rt_priority = 0;
            }
        }
        switch (pick(0, 2)) {
        case 0:
            break;
        case 1:
            t.behaviour.type = behaviour_spec::kind::periodic;
            t.behaviour.run = ms(1, 100);
            if (pick(0, 1) == 0)
                t.behaviour.sleep = ms(0, 200);
            else
                t.behaviour.period = ms(1, 300);
            break;
        default:
            t.behaviour.type = behaviour_spec::kind::random;
            t.behaviour.run_dist = {distribution::kind::exponential, ms(1, 50), 0};
            t.behaviour.sleep_dist = {distribution::kind::uniform, 0, ms(1, 100)};
            break;
        }
        t.start = ms(0, 1000);
        if (pick(0, 1) == 1)
            t.stagger = {distribution::kind::uniform, 0, ms(0, 50)};
        if (pick(0, 3) == 0)
            t.lifetime = ms(1, 3000);
        if (sc.machine.cpus > 1 && pick(0, 2) == 0)
            t.affinity = {pick(0, sc.machine.cpus - 1)};
        if (sc.machine.cpus > 1 && pick(0, 3) == 0)
            t.set_affinity.push_back({ms(0, 1999), {pick(0, sc.machine.cpus - 1)}});
        if (pick(0, 3) == 0)
            t.renice.push_back({ms(0, 1999), pick(-20, 19)});
        t.cgroup = random_group(sc);
        if (pick(0, 1) == 1)
            t.session = "s" + std::to_string(pick(0, 2));
        if (!rt_policy(t.policy) && sc.machine.kernel >= kernel_version{6, 12} && pick(0, 4) == 0)
            t.slice = ms(1, 1000);
        return t;
    }

    std::mt19937_64 rng_;
};

std::string describe(const scenario& sc) {
    std::ostringstream s;
    s << sc.machine.kernel.str() << ", " << sc.machine.cpus << " CPUs, HZ " << sc.machine.hz << ", "
      << sc.cgroups.size() << " cgroups, " << sc.tasks.size() << " entries";
    return s.str();
}

// A quota on a release that throttles task by task (6.18+).
bool task_based_quota(const scenario& sc) {
    return sc.machine.kernel >= kernel_version{6, 18} &&
           std::any_of(sc.cgroups.begin(), sc.cgroups.end(),
                       [](const cgroup_spec& g) { return g.quota.has_value(); });
}

} // namespace

TEST_CASE("random valid scenarios keep every invariant and are deterministic") {
    scenario_generator gen(20261201);
    constexpr int scenarios = 150;
    int task_based = 0;
    for (int i = 0; i < scenarios; ++i) {
        const scenario sc = gen.next();
        task_based += task_based_quota(sc) ? 1 : 0;
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
}
