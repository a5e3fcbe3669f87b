#pragma once
// Random valid scenarios (machine, tasks, behaviours, renices, affinity changes, cgroups,
// sessions, RT tasks), for test_random_scenarios and the fuzz_generator target. Every
// choice comes from a source of integers: a seeded engine (seeded_choices) for the test
// suite, the fuzzer's bytes (byte_choices) for the fuzz target, so a fuzzer's input is a
// scenario as much as a seed is.
#include <cstddef>
#include <cstdint>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace random_scenario {

using namespace libsched;

// pick(lo, hi): uniform in [lo, hi] from a seeded engine.
class seeded_choices {
public:
    explicit seeded_choices(std::uint64_t seed) : rng_(seed) {}
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

private:
    std::mt19937_64 rng_;
};

// pick(lo, hi) from the bytes of an input, as few as the range needs, little end first; lo
// once the bytes run out (so every input, however short, is a scenario).
class byte_choices {
public:
    byte_choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    int pick(int lo, int hi) {
        const auto range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo);
        std::uint64_t value = 0;
        for (std::uint64_t covered = 0; covered < range && size_ > 0;
             covered = covered << 8 | 0xff) {
            value = value << 8 | *data_++;
            --size_;
        }
        return static_cast<int>(lo + static_cast<std::int64_t>(value % (range + 1)));
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
};

struct generator_options {
    // Now and then a duration at its limit instead of a few milliseconds: 1 ns, or near the
    // longest run (max_length) for a lifetime, a burst, a sleep, a period, a stagger, a
    // slice and the run's length itself; a renice or affinity change at the run's first,
    // second or last nanosecond. Such a run is long, so only
    // a caller that stops it early (the fuzz target's event budget) asks for them.
    bool extreme_durations = false;
};

template <class Choices> class scenario_generator {
public:
    explicit scenario_generator(Choices& choices, generator_options opt = {})
        : choices_(choices), opt_(opt) {}

    scenario next() {
        scenario sc;
        static const char* const presets[] = {"1c", "1c2t", "2c", "4c", "4c8t"};
        const std::string preset = presets[pick(0, 4)];
        sc.machine.topology = preset_topology(preset);
        sc.machine.cpus = sc.machine.topology->nr_cpus();
        static const kernel_version releases[] = {{5, 4},  {5, 10}, {5, 15}, {6, 1},
                                                  {6, 6},  {6, 8},  {6, 12}, {6, 14},
                                                  {6, 17}, {6, 18}, {6, 19}, {7, 0}};
        sc.machine.kernel = releases[pick(0, 11)];
        static const int hz[] = {100, 250, 300, 1000};
        sc.machine.hz = hz[pick(0, 3)];
        sc.machine.cgroup_version = pick(1, 2);
        sc.machine.autogroup = pick(0, 1) == 1;
        sc.machine.rt_group_sched = pick(0, 1) == 1;
        sc.length = pick(200, 800) * nsec_per_msec;
        if (opt_.extreme_durations && pick(0, 7) == 0)
            sc.length = max_length - pick(0, 1000);
        sc.seed = static_cast<std::uint64_t>(pick(1, 1000));
        add_cgroups(sc);
        const int entries = pick(1, 5);
        for (int e = 0; e < entries; ++e)
            sc.tasks.push_back(random_task(sc, e));
        add_wakeup_costs(sc);
        // Drawn last as well: now and then the samples kept per entry, and a 6.18 stable
        // release with 6.19's wakeup test (stable_fix.hpp), alone (6.18.33) or with the fair
        // server's later fixes and RT_PUSH_IPI off (6.18.44); both have 6.18.17's lag clamp
        // and protected slice, which 6.19.14 has too, with the revised wakeup rule.
        if (pick(0, 3) == 1)
            sc.latency_samples = sample_scope::entry;
        if (sc.machine.kernel == kernel_version{6, 18} && pick(0, 1) == 1)
            sc.machine.kernel =
                pick(0, 1) == 1 ? kernel_version{6, 18, 33} : kernel_version{6, 18, 44};
        if (sc.machine.kernel == kernel_version{6, 19} && pick(0, 1) == 1)
            sc.machine.kernel = kernel_version{6, 19, 14};
        // 7.0 runs lazy preemption by default; 6.13-6.19 now and then too.
        if (sc.machine.kernel >= kernel_version{6, 13} && pick(0, 3) == 1)
            sc.machine.preempt = preempt_mode::lazy;
        // And 6.12 stable releases with the fair server's revised wakeup rule (6.12.83) and
        // with 6.17's rework of it under 6.12's throttling (6.12.92).
        if (sc.machine.kernel == kernel_version{6, 12} && pick(0, 1) == 1)
            sc.machine.kernel =
                pick(0, 1) == 1 ? kernel_version{6, 12, 83} : kernel_version{6, 12, 92};
        // And now and then an entry that runs and calls sched_yield(), for ever.
        if (pick(0, 3) == 1)
            make_yielder(sc.tasks[static_cast<std::size_t>(pick(0, entries - 1))]);
        // And an entry that reads its CPU clock while it runs, every 5 to 50 us.
        if (pick(0, 3) == 1)
            sc.tasks[static_cast<std::size_t>(pick(0, entries - 1))].cpu_clock_reads =
                pick(5, 50) * nsec_per_usec;
        // And two more that pass a message back and forth through pipes (sync wakeups).
        if (pick(0, 3) == 1)
            add_pipe_pair(sc);
        return sc;
    }

private:
    int pick(int lo, int hi) { return choices_.pick(lo, hi); }
    duration ms(int lo, int hi) { return pick(lo, hi) * nsec_per_msec / 10; } // in 0.1 ms

    // rt-app's run + yield: runs drawn around 0.1 to 2 ms (never the extreme durations:
    // a yield after every nanosecond would make a second of events without end).
    void make_yielder(task_spec& t) {
        step_spec run;
        run.time = {distribution::kind::exponential, ms(1, 20), 0};
        step_spec yield;
        yield.type = step_spec::kind::yield;
        t.behaviour = behaviour_spec{};
        t.behaviour.type = behaviour_spec::kind::steps;
        t.behaviour.steps.phases = {phase_spec{1, {run, yield}}};
    }
    // Entries "pipe_a" and "pipe_b": each runs around 0.1 to 2 ms between messages.
    void add_pipe_pair(scenario& sc) {
        const auto step = [](step_spec::kind k, const char* name) {
            step_spec st;
            st.type = k;
            st.name = name;
            return st;
        };
        step_spec run;
        run.time = {distribution::kind::exponential, ms(1, 20), 0};
        using kind = step_spec::kind;
        for (const bool first : {true, false}) {
            task_spec t;
            t.name = first ? "pipe_a" : "pipe_b";
            t.behaviour.type = behaviour_spec::kind::steps;
            const step_spec write = step(kind::pipe_write, first ? "a_to_b" : "b_to_a");
            const step_spec read = step(kind::pipe_read, first ? "b_to_a" : "a_to_b");
            t.behaviour.steps.phases = {phase_spec{1, first ? std::vector{run, write, read}
                                                            : std::vector{read, run, write}}};
            sc.tasks.push_back(t);
        }
    }
    // A duration a task adds to the clock: ms(lo, hi), or at a limit when asked for.
    duration span(int lo, int hi) {
        if (opt_.extreme_durations && pick(0, 7) == 0)
            return pick(0, 1) == 0 ? 1 : max_length - pick(0, 1000);
        return ms(lo, hi);
    }
    // A time of the run (a renice, an affinity change): ms(lo, hi), or when asked for
    // durations at their limits its first, second or last nanosecond (1 ns: while the
    // tasks forked at 0 still wait for their CPU's reschedule).
    sim_time moment(const scenario& sc, int lo, int hi) {
        if (opt_.extreme_durations && pick(0, 7) == 0) {
            const int which = pick(0, 2);
            return which == 2 ? sc.length - 1 : which;
        }
        return ms(lo, hi);
    }

    // The wakeup costs, drawn last so that an input's earlier draws stay what they were (the
    // first choice of each, where the bytes run out, is the default): a slack of 0, 1 ns or
    // beyond a tick (a sleep queued behind the re-armed tick), idle exit, IPI and tick latencies,
    // and now and then a task's own slack.
    void add_wakeup_costs(scenario& sc) {
        static const duration slacks[] = {50'000, 0, 1, 3'000'000};
        sc.machine.timer_slack_ns = slacks[pick(0, 3)];
        static const duration exits[] = {1'000, 0, 100'000};
        sc.machine.idle_exit_latency_ns = exits[pick(0, 2)];
        static const duration ipis[] = {1'000, 0, 50'000};
        sc.machine.ipi_latency_ns = ipis[pick(0, 2)];
        static const distribution tick_latencies[] = {{},
                                                      {distribution::kind::uniform, 10'000, 45'000},
                                                      {distribution::kind::constant, 500'000, 0}};
        sc.machine.tick_latency = tick_latencies[pick(0, 2)];
        static const duration own[] = {0, 7'000, 20'000'000};
        for (task_spec& t : sc.tasks)
            if (!rt_policy(t.policy) && pick(0, 3) == 1)
                t.timer_slack = own[pick(0, 2)];
    }

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
        task_spec t;
        t.name = "t" + std::to_string(e);
        // The count before the nice: the order GCC gave the two picks as arguments of one
        // call, which the seeded scenarios of the test suite were first drawn in.
        t.count = pick(1, 3);
        t.nice = pick(-20, 19);
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
            t.behaviour.run = span(1, 100);
            if (pick(0, 1) == 0)
                t.behaviour.sleep = span(0, 200);
            else
                t.behaviour.period = span(1, 300);
            break;
        default:
            t.behaviour.type = behaviour_spec::kind::random;
            t.behaviour.run_dist = {distribution::kind::exponential, span(1, 50), 0};
            t.behaviour.sleep_dist = {distribution::kind::uniform, 0, span(1, 100)};
            break;
        }
        t.start = ms(0, 1000);
        if (pick(0, 1) == 1)
            t.stagger = {distribution::kind::uniform, 0, span(0, 50)};
        if (pick(0, 3) == 0)
            t.lifetime = span(1, 3000);
        if (sc.machine.cpus > 1 && pick(0, 2) == 0)
            t.affinity = {pick(0, sc.machine.cpus - 1)};
        if (sc.machine.cpus > 1 && pick(0, 3) == 0)
            t.set_affinity.push_back({moment(sc, 0, 1999), {pick(0, sc.machine.cpus - 1)}});
        if (pick(0, 3) == 0)
            t.renice.push_back({moment(sc, 0, 1999), pick(-20, 19)});
        t.cgroup = random_group(sc);
        if (pick(0, 1) == 1)
            t.session = "s" + std::to_string(pick(0, 2));
        if (!rt_policy(t.policy) && sc.machine.kernel >= kernel_version{6, 12} && pick(0, 4) == 0)
            t.slice = span(1, 1000);
        return t;
    }

    Choices& choices_;
    generator_options opt_;
};

// "6.6, 4 CPUs, HZ 250, 1 cgroups, 3 entries": enough to tell one scenario from another.
inline std::string describe(const scenario& sc) {
    std::ostringstream s;
    s << sc.machine.kernel.str() << ", " << sc.machine.cpus << " CPUs, HZ " << sc.machine.hz << ", "
      << sc.cgroups.size() << " cgroups, " << sc.tasks.size() << " entries";
    return s.str();
}

} // namespace random_scenario
