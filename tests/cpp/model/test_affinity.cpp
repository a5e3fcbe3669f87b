// Affinity changed mid-run (sched_setaffinity() -> __set_cpus_allowed_ptr()) and cpusets:
// after the change a task runs only on its new CPUs, moved once (one migration) whether it
// was running (pushed by the stopper), queued (moved at once) or asleep (placed at its
// wakeup); a cpuset bounds placement and balancing.
#include <catch2/catch.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <string>

using namespace libsched;

namespace test_affinity {

namespace {

constexpr duration ms = nsec_per_msec;
constexpr duration sec = nsec_per_sec;

scenario two_cpus(kernel_version k) {
    scenario sc;
    sc.name = "test";
    sc.machine.cpus = 2;
    sc.machine.kernel = k;
    sc.length = 2 * sec;
    return sc;
}

task_spec pinned(const std::string& name, int from, int to, sim_time at) {
    task_spec t;
    t.name = name;
    t.affinity = {from};
    t.set_affinity = {{at, {to}}};
    return t;
}

// Steps the system to its end; each time the named task is on a CPU after `after`, that
// CPU must be `cpu`. Returns how many events saw it running.
int runs_only_on(libsched::system& s, const std::string& name, sim_time after, int cpu) {
    const task* t = s.find_task(name);
    REQUIRE(t != nullptr);
    int seen = 0;
    while (s.step()) {
        if (s.now() <= after)
            continue;
        for (int c = 0; c < s.nr_cpus(); ++c)
            if (s.cpu_rq(c).curr == t) {
                CHECK(c == cpu);
                ++seen;
            }
    }
    return seen;
}

const kernel_version versions[] = {{5, 15}, {6, 6}, {6, 12}};

} // namespace

TEST_CASE("a running burner re-pinned from CPU 0 to CPU 1 is pushed there by the stopper") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        scenario sc = two_cpus(k);
        sc.tasks = {pinned("a", 0, 1, 1 * sec)};
        validate(sc);
        libsched::system s(sc, sc.seed);
        s.run(1 * sec);
        const task& a = *s.find_task("a");
        CHECK(a.cpu == 0);
        CHECK(s.cpu_rq(0).curr == &a);
        CHECK(a.se.nr_migrations == 0);
        // The stopper's preemption takes the reschedule latency; well within 1 ms.
        s.run(1 * sec + 1 * ms);
        CHECK(a.cpu == 1);
        CHECK(s.cpu_rq(1).curr == &a);
        CHECK(runs_only_on(s, "a", 1 * sec + 1 * ms, 1) > 0);
        CHECK(a.se.nr_migrations == 1);
        const repetition_result r = s.result();
        CHECK(r.tasks[0].nr_migrations == 1);
        // About 1 s on each CPU.
        CHECK(r.cpus[0].busy == Approx(1.0 * sec).epsilon(0.01));
        CHECK(r.cpus[1].busy == Approx(1.0 * sec).epsilon(0.01));
    }
}

TEST_CASE("two burners on CPU 0 both re-pinned to CPU 1: the queued one moves at once") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        scenario sc = two_cpus(k);
        sc.tasks = {pinned("a", 0, 1, 1 * sec), pinned("b", 0, 1, 1 * sec)};
        libsched::system s(sc, sc.seed);
        s.run(1 * sec);
        const task& a = *s.find_task("a");
        const task& b = *s.find_task("b");
        const task& queued = s.cpu_rq(0).curr == &a ? b : a;
        REQUIRE(queued.se.on_rq);
        REQUIRE(s.cpu_rq(0).curr != &queued);
        // The event at 1 s that moves the queued one runs first: it is on CPU 1 with no
        // stopper needed.
        while (queued.cpu == 0 && s.now() <= 1 * sec)
            REQUIRE(s.step());
        CHECK(s.now() == 1 * sec);
        s.run(1 * sec + 1 * ms);
        CHECK(a.cpu == 1);
        CHECK(b.cpu == 1);
        CHECK(runs_only_on(s, "a", 1 * sec + 1 * ms, 1) > 0);
        CHECK(a.se.nr_migrations == 1);
        CHECK(b.se.nr_migrations == 1);
        const repetition_result r = s.result();
        CHECK(r.cpus[0].busy == Approx(1.0 * sec).epsilon(0.01));
        CHECK(r.cpus[1].busy == Approx(1.0 * sec).epsilon(0.01));
    }
}

TEST_CASE("a sleeping periodic task re-pinned to CPU 1 moves at its next wakeup") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        scenario sc = two_cpus(k);
        task_spec p = pinned("p", 0, 1, 1 * sec + 5 * ms);
        p.behaviour.type = behaviour_spec::kind::periodic;
        p.behaviour.run = 1 * ms;
        p.behaviour.period = 10 * ms;
        sc.tasks = {p};
        libsched::system s(sc, sc.seed);
        s.run(1 * sec + 5 * ms);
        const task& t = *s.find_task("p");
        REQUIRE(t.state == task_state::sleeping);
        CHECK(t.cpu == 0);
        s.run(1 * sec + 6 * ms);
        CHECK(t.cpu == 0); // still asleep where it slept
        CHECK(t.se.nr_migrations == 0);
        s.run(1 * sec + 10 * ms + 500'000);
        CHECK(t.cpu == 1);
        CHECK(runs_only_on(s, "p", 1 * sec + 6 * ms, 1) > 0);
        CHECK(t.se.nr_migrations == 1);
    }
}

TEST_CASE("a change that keeps the task's CPU allowed moves nothing") {
    scenario sc = two_cpus({6, 6});
    sc.tasks = {pinned("a", 0, 0, 1 * sec)};
    sc.tasks[0].set_affinity[0].cpus = {0, 1};
    const repetition_result r = simulate(sc).repetitions.front();
    CHECK(r.tasks[0].nr_migrations == 0);
    CHECK(r.cpus[1].busy == 0);
}

TEST_CASE("a cpuset bounds wakeup placement and balancing, affinity is cut to it") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        scenario sc;
        sc.name = "test";
        sc.machine.cpus = 4;
        sc.machine.kernel = k;
        sc.machine.cpusets = {{"pair", {2, 3}}};
        sc.length = 1 * sec;
        task_spec t;
        t.name = "w";
        t.count = 4;
        t.cpuset = "pair";
        task_spec one;
        one.name = "one";
        one.cpuset = "pair";
        one.affinity = {0, 2}; // effective {2}
        sc.tasks = {t, one};
        validate(sc);
        libsched::system s(sc, sc.seed);
        while (s.step())
            for (const auto& task : s.tasks()) {
                if (task->state == task_state::not_started)
                    continue;
                CHECK(task->cpu >= 2);
                if (task->comm == "one")
                    CHECK(task->cpu == 2);
            }
        const repetition_result r = s.result();
        CHECK(r.cpus[0].busy == 0);
        CHECK(r.cpus[1].busy == 0);
        CHECK(r.cpus[2].busy == Approx(1.0 * sec).epsilon(0.01));
        CHECK(r.cpus[3].busy == Approx(1.0 * sec).epsilon(0.01));
    }
}

TEST_CASE("set_affinity with a cpuset: the change is cut to the cpuset") {
    scenario sc = two_cpus({6, 6});
    sc.machine.cpusets = {{"one", {1}}};
    sc.tasks = {pinned("a", 1, 0, 1 * sec)};
    sc.tasks[0].affinity = {}; // every CPU, cut to {1}
    sc.tasks[0].set_affinity[0].cpus = {0, 1};
    sc.tasks[0].cpuset = "one";
    const repetition_result r = simulate(sc).repetitions.front();
    CHECK(r.tasks[0].nr_migrations == 0);
    CHECK(r.cpus[0].busy == 0);
}

TEST_CASE("6.19 and 6.18.39+: fork placement counts only the CPUs the new task may use") {
    // 4 cores x 2 SMT threads (core c is CPUs c and c + 4). Burners on every CPU but 4 and
    // 5, one each; so cores 0 and 1 each have one idle thread. At 100 ms a task allowed on
    // CPUs 0, 1 and 5 forks, from CPU 0 (its first). Counting whole cores, cores 0 and 1
    // both have an idle CPU and the local one stays: the task goes to CPU 0, beside a
    // burner. 82d6e01a0699 counts only CPU 0 of core 0, busy, so core 1 wins: CPU 5, idle.
    struct release_case {
        kernel_version k;
        int cpu;
    };
    const release_case cases[] = {
        {{6, 18}, 0}, {{6, 18, 38}, 0}, {{6, 18, 39}, 5}, {{6, 19}, 5}, {{6, 12}, 0}};
    for (const release_case& c : cases) {
        INFO(c.k.str() << "." << c.k.patch);
        scenario sc;
        sc.name = "test";
        sc.machine.topology = preset_topology("4c8t");
        sc.machine.cpus = 8;
        sc.machine.kernel = c.k;
        sc.length = 1 * sec;
        for (const int cpu : {0, 1, 2, 3, 6, 7}) {
            task_spec b;
            b.name = "b" + std::to_string(cpu);
            b.affinity = {cpu};
            sc.tasks.push_back(b);
        }
        task_spec n;
        n.name = "n";
        n.affinity = {0, 1, 5};
        n.start = 100 * ms;
        sc.tasks.push_back(n);
        REQUIRE(validate(sc).empty());
        libsched::system s(sc, sc.seed);
        s.run(100 * ms + 1);
        const task* t = s.find_task("n");
        REQUIRE(t != nullptr);
        CHECK(t->cpu == c.cpu);
    }
}

} // namespace test_affinity
