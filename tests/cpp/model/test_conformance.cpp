// Conformance: every feature in features.def and every tunable / machine setting a scenario can
// override, switched (or changed) in a small scenario, must move a named figure in the
// direction and by the amount the kernel's rule gives; where the rule says it changes
// nothing, nothing may change. The expected figures are derived in each test's comment from
// the rule (docs/kernel-reference.md sections 2 and 3, the kernel function named), never from
// running the model. Each test declares what it covers; the meta-test at the end fails when a
// feature or an override field has no test, for some release that has it.
#include "model_helpers.hpp"
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/stats/summary.hpp>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace libsched;

namespace test_conformance {

namespace {

using model_test::burner;
using model_test::find;
using model_test::periodic;
using model_test::run_one;
using model_test::timed_step;

constexpr duration us = nsec_per_usec;
constexpr duration ms = nsec_per_msec;

// ---------------------------------------------------------------------------------------
// Coverage registry: each test names the features / override fields it covers and the
// releases it runs them on.

struct coverage {
    std::string test;
    std::vector<std::string> names;
    std::vector<kernel_version> releases;
};

std::vector<coverage>& registry() {
    static std::vector<coverage> r;
    return r;
}

bool covers(std::string test, std::vector<std::string> names, std::vector<kernel_version> rel) {
    registry().push_back({std::move(test), std::move(names), std::move(rel)});
    return true;
}

// The releases the conformance tests sample: one of each stretch where a rule changes
// (5.13: ALT_PERIOD, BASE_SLICE, debugfs tunables; 6.6 EEVDF; 6.8 deadline-ordered tree;
// 6.12 PREEMPT_SHORT, DELAY_DEQUEUE, custom slices; 6.15 0.70 ms base slice; 6.17 vprot;
// 6.19 fork wakeups never preempt; 7.0 vlag and vprot apart, lazy preemption by default).
const std::vector<kernel_version> sampled = {{5, 10}, {5, 15}, {6, 1},  {6, 6},  {6, 8},
                                             {6, 12}, {6, 15}, {6, 17}, {6, 19}, {7, 0}};

std::vector<kernel_version> having(feature f) {
    std::vector<kernel_version> out;
    for (const kernel_version v : sampled)
        if (feature_exists(f, v))
            out.push_back(v);
    return out;
}
std::vector<kernel_version> cfs_releases() {
    std::vector<kernel_version> out;
    for (const kernel_version v : sampled)
        if (v < kernel_version{6, 6})
            out.push_back(v);
    return out;
}
std::vector<kernel_version> eevdf_releases() {
    std::vector<kernel_version> out;
    for (const kernel_version v : sampled)
        if (v >= kernel_version{6, 6})
            out.push_back(v);
    return out;
}

std::vector<kernel_version> from(kernel_version first) {
    std::vector<kernel_version> out;
    for (const kernel_version v : sampled)
        if (v >= first)
            out.push_back(v);
    return out;
}

std::vector<kernel_version> bandwidth_releases() { // CFS bandwidth: modelled from 5.4
    std::vector<kernel_version> out;
    for (const kernel_version v : sampled)
        if (v >= kernel_version{5, 4})
            out.push_back(v);
    return out;
}

// ---------------------------------------------------------------------------------------
// Scenario pieces and figures.

// One CPU, tunable factor 1 (online 1) unless asked, HZ 1000, no tick IRQ time: ticks at
// whole milliseconds, a resched takes effect resched_latency (1 us) after its cause. No
// timer slack: a sleep ends at its due time (an idle CPU's exit latency follows it), as
// the rules below are stated from the wakeup; the slack's own tests set it.
scenario machine(kernel_version k, int hz = 1000, int online = 1) {
    scenario sc;
    sc.name = "conformance";
    sc.machine.cpus = 1;
    sc.machine.online_cpus = online;
    sc.machine.hz = hz;
    sc.machine.kernel = k;
    sc.machine.tick_irq_ns = 0;
    sc.machine.timer_slack_ns = 0;
    sc.length = 1'000 * ms;
    sc.window_start = 200 * ms;
    return sc;
}

// A periodic task on an absolute timer: `run` of CPU each `period`, first due at `start`.
task_spec timer_task(const std::string& name, duration run, duration period, sim_time start) {
    task_spec t = periodic(name, run, 0);
    t.behaviour.period = period;
    t.start = start;
    return t;
}

struct turn {
    sim_time in = 0, out = 0;
    bool after_wakeup = false; // the first turn after a sched_wakeup
    std::string before;        // the task switched out for it
    std::string after;         // the task switched in after it
};

struct traced {
    repetition_result result;
    std::map<std::string, std::vector<turn>> turns;    // by comm, in the window only
    std::map<std::string, std::vector<sim_time>> woke; // sched_wakeup times, window only
    std::map<std::string, sim_time> forked;            // sched_wakeup_new
};

traced run_traced(const scenario& sc) {
    traced out;
    std::map<std::string, turn> open;
    std::set<std::string> waking;
    run_options opt;
    opt.trace = [&](const trace_event& e) {
        const bool in_window = e.time >= sc.window_start && e.time < sc.window_stop();
        if (e.kind == trace_kind::sched_wakeup_new)
            out.forked[std::string(e.comm)] = e.time;
        if (e.kind == trace_kind::sched_wakeup) {
            waking.insert(std::string(e.comm));
            if (in_window)
                out.woke[std::string(e.comm)].push_back(e.time);
        }
        if (e.kind != trace_kind::sched_switch)
            return;
        const std::string prev(e.comm), next(e.next_comm);
        if (auto it = open.find(prev); it != open.end()) {
            it->second.out = e.time;
            it->second.after = next;
            if (it->second.in >= sc.window_start && e.time < sc.window_stop())
                out.turns[prev].push_back(it->second);
            open.erase(it);
        }
        if (e.next_pid != 0) {
            turn t;
            t.in = e.time;
            t.before = prev;
            t.after_wakeup = waking.erase(next) > 0;
            open[next] = t;
        }
    };
    run_result r = simulate(sc, opt);
    REQUIRE(r.repetitions.size() == 1);
    out.result = r.repetitions.front();
    return out;
}

// The start of comm's first turn after `after` (0 if none), and the length of its turn that
// began at `start` (0 if none): a reference run finds a turn, a changed run measures it.
sim_time turn_after(const traced& t, const std::string& comm, sim_time after) {
    for (const turn& x : t.turns.at(comm))
        if (x.in > after)
            return x.in;
    return 0;
}
duration turn_from(const traced& t, const std::string& comm, sim_time start) {
    for (const turn& x : t.turns.at(comm))
        if (x.in == start)
            return x.out - x.in;
    return 0;
}

// For each of the task's first turns after a wakeup (in the window), the wakeup before it
// and the start of the turn: how many there are, and how many `hit(woke, in)` says yes to.
struct wakeup_count {
    std::size_t n = 0, hits = 0;
};
template <class Hit>
wakeup_count count_wakeup_turns(const traced& t, const std::string& comm, Hit hit) {
    wakeup_count c;
    const std::vector<sim_time>& woke = t.woke.at(comm);
    for (const turn& x : t.turns.at(comm)) {
        if (!x.after_wakeup)
            continue;
        const auto it = std::upper_bound(woke.begin(), woke.end(), x.in);
        if (it == woke.begin())
            continue;
        ++c.n;
        c.hits += hit(*(it - 1), x.in) ? 1 : 0;
    }
    return c;
}

std::vector<duration> lengths(const std::vector<turn>& ts) {
    std::vector<duration> out;
    for (const turn& t : ts)
        out.push_back(t.out - t.in);
    return out;
}

duration median(std::vector<duration> v) {
    REQUIRE(!v.empty());
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

duration median_turn(const traced& t, const std::string& name) {
    REQUIRE(t.turns.count(name) == 1);
    return median(lengths(t.turns.at(name)));
}

// Wakeup latency figures through the allowed interface (size, range-for, summarize).
struct latency_figures {
    std::size_t n = 0;
    duration min = 0, max = 0;
    double mean = 0;
    std::size_t immediate = 0; // served within 10 us: preempted at the wakeup
};
template <class Samples> latency_figures latencies(const Samples& s) {
    latency_figures f;
    f.n = s.size();
    bool first = true;
    double sum = 0;
    for (const auto x : s) {
        const auto d = static_cast<duration>(x);
        f.min = first ? d : std::min(f.min, d);
        f.max = first ? d : std::max(f.max, d);
        first = false;
        sum += static_cast<double>(d);
        if (d <= 10 * us)
            ++f.immediate;
    }
    f.mean = f.n > 0 ? sum / static_cast<double>(f.n) : 0.0;
    return f;
}

// Everything user space and the model report for the tasks and CPUs, for "nothing changes".
void require_same(const repetition_result& a, const repetition_result& b) {
    REQUIRE(a.tasks.size() == b.tasks.size());
    for (std::size_t i = 0; i < a.tasks.size(); ++i) {
        const task_result &x = a.tasks[i], &y = b.tasks[i];
        INFO("task " << x.name);
        CHECK(x.name == y.name);
        CHECK(x.sum_exec_runtime == y.sum_exec_runtime);
        CHECK(x.window_runtime == y.window_runtime);
        CHECK(x.nvcsw == y.nvcsw);
        CHECK(x.nivcsw == y.nivcsw);
        CHECK(x.nr_migrations == y.nr_migrations);
        CHECK(x.cpu == y.cpu);
        CHECK(x.ru_utime_us == y.ru_utime_us);
        CHECK(x.stat_utime_end == y.stat_utime_end);
        CHECK(x.wakeup_latency.size() == y.wakeup_latency.size());
        const latency_figures lx = latencies(x.wakeup_latency), ly = latencies(y.wakeup_latency);
        CHECK(lx.min == ly.min);
        CHECK(lx.max == ly.max);
        CHECK(lx.mean == ly.mean);
        CHECK(x.lateness.size() == y.lateness.size());
    }
    REQUIRE(a.cpus.size() == b.cpus.size());
    for (std::size_t i = 0; i < a.cpus.size(); ++i) {
        CHECK(a.cpus[i].busy == b.cpus[i].busy);
        CHECK(a.cpus[i].nr_switches == b.cpus[i].nr_switches);
        CHECK(a.cpus[i].irq == b.cpus[i].irq);
    }
}

scenario with_feature(scenario sc, const std::string& f, bool on) {
    sc.machine.features[f] = on;
    return sc;
}

// Switching the feature changes no figure of the scenario.
void require_no_change(const scenario& sc, const std::string& feature) {
    require_same(run_one(with_feature(sc, feature, true)),
                 run_one(with_feature(sc, feature, false)));
}

// A mixed single-CPU load for "nothing changes": two burners, a nice 5 burner, a periodic
// task on a relative sleep and one on an absolute timer.
scenario mixed(kernel_version k) {
    scenario sc = machine(k, 250);
    sc.tasks = {burner("b", 0, 2), burner("n5", 5), periodic("p", 300 * us, 5 * ms),
                timer_task("t", 200 * us, 7 * ms, 1'500 * us)};
    return sc;
}

} // namespace

// ================================================================================// Tunables and
// machine settings

// EEVDF, two equal burners (update_deadline, update_curr): a turn starts 1 us after a tick
// (resched_latency) and the request was renewed at that tick, so the running task reaches
// its deadline at the first tick k with k ms - 1 us >= slice - 1 us: a turn lasts
// ceil(slice / 1 ms) ticks. 1.5 ms -> 2 ms, 3.5 ms -> 4 ms, 5.2 ms -> 6 ms.
const bool cov_base_slice = covers("base_slice", {"base_slice_ns"}, eevdf_releases());
TEST_CASE("base_slice: EEVDF burners' turns are the base slice rounded up to the tick") {
    for (const kernel_version k : eevdf_releases()) {
        for (const auto& [slice, turn_len] :
             {std::pair{1'500 * us, 2 * ms}, std::pair{3'500 * us, 4 * ms},
              std::pair{5'200 * us, 6 * ms}}) {
            INFO(k.str() << " base_slice " << slice);
            scenario sc = machine(k);
            sc.machine.base_slice_ns = slice;
            sc.tasks = {burner("a"), burner("b")};
            const traced t = run_traced(sc);
            CHECK(median_turn(t, "a") == turn_len);
            CHECK(median_turn(t, "b") == turn_len);
        }
    }
}

// Old CFS, two equal burners (__sched_period, sched_slice, check_preempt_tick): ideal
// slice = latency / 2; a turn ends at the first tick where ran = k ms - 1 us > ideal.
// latency 6 ms -> 4 ms turns, 10 ms -> 6 ms, 3 ms -> 2 ms.
const bool cov_latency = covers("latency", {"latency_ns"}, cfs_releases());
TEST_CASE("latency: CFS burners' turns are latency / 2 rounded past the tick") {
    for (const kernel_version k : cfs_releases()) {
        for (const auto& [lat, turn_len] :
             {std::pair{6 * ms, 4 * ms}, std::pair{10 * ms, 6 * ms}, std::pair{3 * ms, 2 * ms}}) {
            INFO(k.str() << " latency " << lat);
            scenario sc = machine(k);
            sc.machine.latency_ns = lat;
            sc.tasks = {burner("a"), burner("b")};
            const traced t = run_traced(sc);
            CHECK(median_turn(t, "a") == turn_len);
        }
    }
}

// Old CFS, ten burners: more than sched_nr_latency (8; before 5.13 re-derived as
// ceil(6 ms / min_granularity), smaller still), so period = 10 x min_granularity and each
// slice is min_granularity; a turn ends at the first tick with k ms - 1 us > min_gran.
// 0.75 ms -> 1 ms, 1.5 ms -> 2 ms, 2.5 ms -> 3 ms.
const bool cov_min_gran = covers("min_granularity", {"min_granularity_ns"}, cfs_releases());
TEST_CASE("min_granularity: past sched_nr_latency turns are min_granularity past the tick") {
    for (const kernel_version k : cfs_releases()) {
        for (const auto& [mg, turn_len] :
             {std::pair{750 * us, 1 * ms}, std::pair{1'500 * us, 2 * ms},
              std::pair{2'500 * us, 3 * ms}}) {
            INFO(k.str() << " min_granularity " << mg);
            scenario sc = machine(k);
            sc.machine.min_granularity_ns = mg;
            sc.tasks = {burner("b", 0, 10)};
            const traced t = run_traced(sc);
            CHECK(median_turn(t, "b.0") == turn_len);
            CHECK(median_turn(t, "b.7") == turn_len);
        }
    }
}

// Old CFS (place_entity, check_preempt_wakeup, wakeup_preempt_entity): a sleeper waking
// after 20 ms is placed at min_vruntime - latency/2 = hog's vruntime - 3 ms, so d = 3 ms.
// It preempts at once iff d > wakeup_granularity: 2 ms -> latency = resched_latency
// (1 us); 4 ms -> it waits for the hog's next tick (the hog has overrun its 3 ms slice),
// 0.5 ms away because the wakeups come at x.5 ms.
const bool cov_wakeup_gran =
    covers("wakeup_granularity", {"wakeup_granularity_ns"}, cfs_releases());
TEST_CASE("wakeup_granularity: decides whether a waking sleeper preempts (old CFS)") {
    for (const kernel_version k : cfs_releases()) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.tasks = {burner("hog"), timer_task("p", 200 * us, 20 * ms, 500 * us)};
        sc.machine.wakeup_granularity_ns = 2 * ms;
        const latency_figures small = latencies(find(run_one(sc), "p").wakeup_latency);
        sc.machine.wakeup_granularity_ns = 4 * ms;
        const latency_figures large = latencies(find(run_one(sc), "p").wakeup_latency);
        REQUIRE(small.n > 30);
        CHECK(small.max == 1 * us);
        CHECK(large.min == 501 * us);
        CHECK(large.max == 501 * us);
    }
}

// TICK_NSEC = (1e9 + HZ/2) / HZ. EEVDF two burners, 0.75/0.70 ms slice: every tick finds
// the request used up, so a turn is one tick. Old CFS: ideal 3 ms, a turn is the first
// tick count with k x TICK_NSEC - 1 us > 3 ms: HZ 100 -> 10 ms, 250 -> 4 ms,
// 300 -> 3.333333 ms (one tick), 1000 -> 4 ms.
const bool cov_hz = covers("hz", {"hz"}, sampled);
TEST_CASE("hz: the tick length sets the turn length") {
    for (const kernel_version k : sampled) {
        for (const int hz : supported_hz) {
            INFO(k.str() << " HZ " << hz);
            scenario sc = machine(k, hz);
            sc.tasks = {burner("a"), burner("b")};
            const duration tick = (nsec_per_sec + hz / 2) / hz;
            duration expected = tick;
            if (k < kernel_version{6, 6}) {
                duration n = 1;
                while (n * tick - 1 * us <= 3 * ms)
                    ++n;
                expected = n * tick;
            }
            CHECK(median_turn(run_traced(sc), "a") == expected);
        }
    }
}

// get_update_sysctl_factor: 8 online CPUs give factor 4 (log), 1 (none), 8 (linear).
// EEVDF base slice 0.75 ms x factor (0.70 from 6.15): log 3 / 2.8 ms -> 3 ticks at HZ
// 1000; none -> 1 tick; linear 6 / 5.6 ms -> 6 ticks. Old CFS ideal = 6 ms x factor / 2:
// log 12 ms -> 13 ticks; none 3 ms -> 4; linear 24 ms -> 25.
const bool cov_scaling = covers("scaling", {"scaling"}, sampled);
TEST_CASE("scaling: the tunable factor multiplies the slice") {
    for (const kernel_version k : sampled) {
        const bool cfs = k < kernel_version{6, 6};
        for (const auto& [s, eevdf_turn, cfs_turn] :
             {std::tuple{tunable_scaling::log, 3 * ms, 13 * ms},
              std::tuple{tunable_scaling::none, 1 * ms, 4 * ms},
              std::tuple{tunable_scaling::linear, 6 * ms, 25 * ms}}) {
            INFO(k.str() << " scaling " << static_cast<int>(s));
            scenario sc = machine(k, 1000, 8);
            sc.machine.scaling = s;
            sc.tasks = {burner("a"), burner("b")};
            CHECK(median_turn(run_traced(sc), "a") == (cfs ? cfs_turn : eevdf_turn));
        }
    }
}

// The factor counts the online CPUs (min(online, 8), log): 1 -> x1, 2 -> x2, 4 -> x3,
// whatever the simulated CPU count. EEVDF slices 0.75 / 1.5 / 2.25 ms (0.7 / 1.4 / 2.1 from
// 6.15) -> 1, 2, 3 ticks; old CFS ideal 3 / 6 / 9 ms -> 4, 7, 10 ticks.
const bool cov_online = covers("online_cpus", {"online_cpus"}, sampled);
TEST_CASE("online_cpus: the online CPU count sets the tunable factor") {
    for (const kernel_version k : sampled) {
        const bool cfs = k < kernel_version{6, 6};
        for (const auto& [online, eevdf_turn, cfs_turn] :
             {std::tuple{1, 1 * ms, 4 * ms}, std::tuple{2, 2 * ms, 7 * ms},
              std::tuple{4, 3 * ms, 10 * ms}}) {
            INFO(k.str() << " online " << online);
            scenario sc = machine(k, 1000, online);
            sc.tasks = {burner("a"), burner("b")};
            CHECK(median_turn(run_traced(sc), "a") == (cfs ? cfs_turn : eevdf_turn));
        }
    }
}

// A task waking on an idle CPU: the idle task is preempted (resched_curr) and the pick runs
// resched_latency later; nothing else stands in between, so every wakeup latency equals it.
const bool cov_resched = covers("resched_latency", {"resched_latency_ns"}, sampled);
TEST_CASE("resched_latency: a wakeup on an idle CPU waits exactly resched_latency") {
    for (const kernel_version k : sampled) {
        for (const duration rl : {duration{1'000}, duration{37'000}}) {
            INFO(k.str() << " resched_latency " << rl);
            scenario sc = machine(k);
            sc.machine.resched_latency_ns = rl;
            sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
            const latency_figures f = latencies(find(run_one(sc), "p").wakeup_latency);
            REQUIRE(f.n > 100);
            CHECK(f.min == rl);
            CHECK(f.max == rl);
        }
    }
}

// Timer slack and the idle exit latency (hrtimer_nanosleep(), hrtimer_set_expires_range_ns(),
// cpuidle): a task alone on its CPU sleeps on a range timer [due, due + slack]; the CPU's tick
// is stopped (NOHZ, its last tick came within a millisecond of the sleep, the next due is 5 ms
// later), so nothing expires the timer before its hard expiry; the interrupt finds the CPU
// idle and is handled idle_exit_latency later; the wakeup then waits resched_latency. So every
// lateness is slack + idle_exit_latency + resched_latency exactly, and every wakeup latency
// (from the wakeup) resched_latency. A SCHED_FIFO task sleeps without slack; a task's own
// timer_slack (prctl) replaces the machine's.
const bool cov_slack = covers("timer_slack", {"timer_slack_ns", "idle_exit_latency_ns"}, sampled);
TEST_CASE("timer_slack and idle_exit_latency: a lone periodic task is late by slack + exit") {
    for (const kernel_version k : sampled) {
        for (const auto& [slack, exit] :
             {std::pair<duration, duration>{0, 0}, {50 * us, 1 * us}, {333 * us, 20 * us}}) {
            INFO(k.str() << " timer_slack " << slack << " idle_exit_latency " << exit);
            scenario sc = machine(k);
            sc.machine.timer_slack_ns = slack;
            sc.machine.idle_exit_latency_ns = exit;
            const duration rl = sc.machine.resched_latency_ns;
            sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
            const repetition_result r = run_one(sc);
            const task_result& p = find(r, "p");
            const latency_figures late = latencies(p.lateness);
            const latency_figures lat = latencies(p.wakeup_latency);
            REQUIRE(late.n > 100);
            CHECK(late.min == slack + exit + rl);
            CHECK(late.max == slack + exit + rl);
            CHECK(lat.min == rl);
            CHECK(lat.max == rl);

            sc.tasks[0].timer_slack = 7 * us;
            const latency_figures own = latencies(find(run_one(sc), "p").lateness);
            CHECK(own.min == 7 * us + exit + rl);
            CHECK(own.max == 7 * us + exit + rl);

            sc.tasks[0].policy = sched_policy::fifo;
            sc.tasks[0].rt_priority = 10;
            const latency_figures rt = latencies(find(run_one(sc), "p").lateness);
            CHECK(rt.min == exit + rl);
            CHECK(rt.max == rt.min);
        }
    }
}

// sleep_cost: the CPU time of a sleep's system call and of the wakeup's way back to user
// space runs in the sleeper's context, so update_curr() charges it to the sleeper; the model
// adds it to the run after each sleep. A lone periodic task (300 us every 5.3 ms from
// 0.7 ms; its last burst ends at 997.5 ms, before the end) runs one burst per sleep, and
// every burst but the first (at its fork) follows a sleep: runtime = n x 300 us + (n - 1) x
// cost with n its sleeps. Its lateness, which ends at its first run, does not change. A
// program of steps pays it at each blocking step: run 200 us, sleep 1.8 ms, repeated, ends
// each of its n sleeps and is cut by the end during a run of at most 200 us + cost.
const bool cov_sleep_cost = covers("sleep_cost", {"sleep_cost"}, sampled);
TEST_CASE("sleep_cost: each sleep charges the sleeper that much CPU time when it next runs") {
    for (const kernel_version k : sampled) {
        for (const duration cost : {duration{0}, 40 * us}) {
            INFO(k.str() << " sleep_cost " << cost);
            scenario sc = machine(k);
            sc.machine.sleep_cost = distribution{distribution::kind::constant, cost};
            sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
            const repetition_result r = run_one(sc);
            const task_result& p = find(r, "p");
            const auto n = static_cast<duration>(p.nvcsw);
            REQUIRE(n > 150);
            CHECK(p.sum_exec_runtime == n * 300 * us + (n - 1) * cost);
            const latency_figures late = latencies(p.lateness);
            CHECK(late.min == sc.machine.idle_exit_latency_ns + sc.machine.resched_latency_ns);
            CHECK(late.max == late.min);

            task_spec steps = periodic("s", 0, 0);
            steps.behaviour.type = behaviour_spec::kind::steps;
            steps.behaviour.steps.phases = {{-1,
                                             {timed_step(step_spec::kind::run, 200 * us),
                                              timed_step(step_spec::kind::sleep, 1800 * us)}}};
            sc.tasks = {steps};
            const repetition_result stepped = run_one(sc);
            const task_result& s = find(stepped, "s");
            const auto sleeps = static_cast<duration>(s.nvcsw);
            REQUIRE(sleeps > 400);
            const duration paid = sleeps * 200 * us + (sleeps - 1) * cost;
            CHECK(s.sum_exec_runtime >= paid);
            CHECK(s.sum_exec_runtime <= paid + 200 * us + cost);
        }
    }
}

// A uniform sleep_cost is drawn for each sleep (keyed by the task and the instant, apart
// from the seeded stream): the lone periodic task's runtime lies strictly between what the
// bounds would charge, and a second run gives the same.
TEST_CASE("sleep_cost: a uniform one is drawn for each sleep within its bounds") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.sleep_cost = {distribution::kind::uniform, 10 * us, 50 * us};
        sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
        const repetition_result r = run_one(sc);
        const task_result& p = find(r, "p");
        const auto n = static_cast<duration>(p.nvcsw);
        REQUIRE(n > 150);
        CHECK(p.sum_exec_runtime > n * 300 * us + (n - 1) * 10 * us);
        CHECK(p.sum_exec_runtime < n * 300 * us + (n - 1) * 50 * us);
        CHECK(find(run_one(sc), "p").sum_exec_runtime == p.sum_exec_runtime);
    }
}

// The sleep_cost is kernel mode (the way back from the sleep to user space): a tick that
// finds the task in it counts as system time. A task woken every 5.25 ms from 0.7 ms at
// HZ 1000 runs 1 ms each time, and its wakeups fall 0.7, 0.95, 0.2 and 0.45 ms after a
// tick, so the one tick of each run comes 0.05 to 0.8 ms into it: in the first 900 us of
// kernel time when the cost is 900 us and the work 100 us, after the first 20 us when the
// cost is 20 us and the work 980 us.
TEST_CASE("sleep_cost: a tick during it finds the task in kernel mode") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        const auto run = [&](duration cost, duration work) {
            scenario sc = machine(k);
            sc.machine.sleep_cost = distribution{distribution::kind::constant, cost};
            sc.tasks = {timer_task("p", work, 5'250 * us, 700 * us)};
            const repetition_result r = run_one(sc);
            const task_result& p = find(r, "p");
            REQUIRE(p.nvcsw > 150);
            return std::pair{p.ru_utime_us, p.ru_stime_us}; // getrusage() at the end
        };
        const auto [kernel_utime, kernel_stime] = run(900 * us, 100 * us);
        CHECK(kernel_utime == 0);
        CHECK(kernel_stime > 150'000);
        const auto [user_utime, user_stime] = run(20 * us, 980 * us);
        CHECK(user_utime > 150'000);
        CHECK(user_stime == 0);
    }
}

// A busy CPU's tick expires a range timer early (__hrtimer_run_queues(): at the CPU's
// hrtimer interrupt every timer whose soft expiry has passed runs): beside a burner the
// CPU's tick runs at every whole millisecond (HZ 1000), so p, due at 0.7 ms + k x 5.3 ms with
// a 300 us slack, wakes at the first tick at or after its due time when that comes within
// the slack, else at its hard expiry: min(ceil_ms(due), due + slack). A busy CPU has no idle
// state to leave. Same on an idle CPU for two sleepers: the hard expiry of the one without
// slack expires the other (due 100 us earlier, slack 300 us) with it.
TEST_CASE("timer_slack: a busy CPU's tick and another timer's hard expiry expire it early") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.timer_slack_ns = 300 * us;
        sc.tasks = {timer_task("p", 50 * us, 5'300 * us, 700 * us), burner("b")};
        const traced t = run_traced(sc);
        REQUIRE(t.woke.at("p").size() > 100);
        std::size_t early = 0;
        for (const sim_time w : t.woke.at("p")) {
            const sim_time due = 700 * us + (w - 700 * us) / (5'300 * us) * 5'300 * us;
            const sim_time tick = (due + ms - 1) / ms * ms;
            INFO("due " << due << " woke " << w);
            CHECK(w == std::min(tick, due + 300 * us));
            early += tick < due + 300 * us ? 1 : 0;
        }
        CHECK(early > 0);
        CHECK(early < t.woke.at("p").size());

        scenario two = machine(k);
        two.machine.timer_slack_ns = 300 * us;
        two.tasks = {timer_task("slack", 50 * us, 5'300 * us, 600 * us),
                     timer_task("exact", 50 * us, 5'300 * us, 700 * us)};
        two.tasks[1].timer_slack = 0;
        const traced u = run_traced(two);
        REQUIRE(u.woke.at("slack").size() > 100);
        REQUIRE(u.woke.at("slack").size() == u.woke.at("exact").size());
        for (std::size_t i = 0; i < u.woke.at("slack").size(); ++i) {
            const sim_time exact_due =
                700 * us + (u.woke.at("exact")[i] - 700 * us) / (5'300 * us) * 5'300 * us;
            CHECK(u.woke.at("exact")[i] == exact_due + two.machine.idle_exit_latency_ns);
            CHECK(u.woke.at("slack")[i] == u.woke.at("exact")[i]);
        }
    }
}

// IPI latency (ttwu_queue_wakelist(), resched_curr() of another CPU): p sleeps on CPU 0 and
// is then allowed only CPU 1 (sched_setaffinity() of a sleeper: it moves at its wakeup), so
// that one wakeup is placed on the idle CPU 1 and costs an IPI there: ipi_latency, CPU 1's
// idle exit, then resched_latency. Its lateness also holds CPU 0's own idle exit for the
// timer. Every other wakeup is local: resched_latency.
const bool cov_ipi = covers("ipi_latency", {"ipi_latency_ns"}, sampled);
TEST_CASE("ipi_latency: a wakeup onto another idle CPU waits for the IPI and its idle exit") {
    for (const kernel_version k : sampled) {
        for (const duration ipi : {duration{1'000}, duration{9'000}}) {
            INFO(k.str() << " ipi_latency " << ipi);
            scenario sc = machine(k);
            sc.machine.cpus = 2;
            sc.machine.online_cpus = 2;
            sc.machine.ipi_latency_ns = ipi;
            sc.machine.idle_exit_latency_ns = 4 * us;
            sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
            sc.tasks[0].affinity = {0};
            sc.tasks[0].set_affinity = {{500 * ms + 2 * ms, {1}}}; // asleep: 0.7 + 5.3 k ms
            const repetition_result r = run_one(sc);
            const task_result& p = find(r, "p");
            const duration rl = sc.machine.resched_latency_ns;
            const duration exit = sc.machine.idle_exit_latency_ns;
            const latency_figures lat = latencies(p.wakeup_latency);
            const latency_figures late = latencies(p.lateness);
            REQUIRE(lat.n > 100);
            CHECK(lat.min == rl);
            CHECK(lat.max == ipi + exit + rl);
            CHECK(late.min == exit + rl);
            CHECK(late.max == exit + ipi + exit + rl);
            CHECK(p.window_nr_migrations == 1);
        }
    }
}

// PREEMPT_LAZY (6.13+): the fair class's wakeup preemption sets TIF_NEED_RESCHED_LAZY, for
// which __resched_curr() sends another CPU no IPI. b, woken on CPU 1 by a's sem_post on
// CPU 0, preempts the SCHED_IDLE burner there at once after the IPI with preempt = "none",
// and only at CPU 1's next tick under "lazy" (sched_tick() promotes the request). On CPUs
// that share no cache the wakeup itself goes by IPI (ttwu_queue_wakelist()), whose return
// to user mode honours the lazy request: as with "none". So does HRTICK's re-arm of CPU 1's
// timer at the enqueue (hrtick_start() of another CPU sends an IPI). 7.0 runs lazy unless
// told otherwise (7dadeaa6e851).
const bool cov_preempt = covers("preempt", {"preempt"}, from({6, 13}));
TEST_CASE("preempt: under the lazy model a wakee preempts another CPU at its next tick") {
    std::vector<kernel_version> releases = from({6, 13});
    releases.push_back({7, 0});
    for (const kernel_version k : releases) {
        scenario sc = machine(k);
        sc.machine.cpus = 2;
        sc.machine.online_cpus = 2;
        step_spec post, wait;
        post.type = step_spec::kind::sem_post;
        wait.type = step_spec::kind::sem_wait;
        post.name = wait.name = "to_b";
        task_spec a = periodic("a", 0, 0), b = periodic("b", 0, 0);
        a.behaviour.type = b.behaviour.type = behaviour_spec::kind::steps;
        a.behaviour.steps.phases = {{-1,
                                     {timed_step(step_spec::kind::run, 300 * us), post,
                                      timed_step(step_spec::kind::sleep, 2'300 * us)}}};
        b.behaviour.steps.phases = {{-1, {wait, timed_step(step_spec::kind::run, 100 * us)}}};
        task_spec c = burner("c");
        c.policy = sched_policy::idle;
        a.affinity = {0};
        b.affinity = c.affinity = {1};
        sc.tasks = {a, b, c};
        const duration ipi = sc.machine.ipi_latency_ns, rl = sc.machine.resched_latency_ns;
        const auto check = [&](std::optional<preempt_mode> set, bool shared_cache,
                               bool hrtick = false) {
            sc.machine.preempt = set;
            const preempt_mode mode = effective_preempt(sc.machine);
            INFO(sc.machine.kernel.str()
                 << " preempt " << preempt_mode_name(mode) << ", shared cache " << shared_cache
                 << ", HRTICK " << hrtick);
            sc.machine.features["hrtick"] = hrtick;
            sc.machine.topology.reset();
            if (!shared_cache)
                sc.machine.topology = symmetric_topology(2, 1, 1);
            const traced t = run_traced(sc);
            const std::vector<sim_time>& woke = t.woke.at("b");
            std::size_t n = 0;
            for (const turn& x : t.turns.at("b")) {
                if (!x.after_wakeup || x.in < woke.front())
                    continue;
                const sim_time w = *std::prev(std::upper_bound(woke.begin(), woke.end(), x.in));
                REQUIRE(w % ms != 0);
                const bool waits = mode == preempt_mode::lazy && shared_cache && !hrtick;
                CHECK(x.in - w == (waits ? (w / ms + 1) * ms - w + rl : ipi + rl));
                ++n;
            }
            CHECK(n > 300);
            CHECK(find(t.result, "b").nr_migrations == 0);
        };
        if (k >= kernel_version{7, 0}) {
            check(std::nullopt, true);
            check(preempt_mode::full, true);
            continue;
        }
        check(preempt_mode::none, true);
        check(preempt_mode::lazy, true);
        check(preempt_mode::lazy, false);
        check(preempt_mode::lazy, true, true);
    }
}

// The tick device delivers every hrtimer interrupt of its CPU (tick_program_event() sets it
// to the first timer), so a sleep's hard expiry is handled tick_latency late, as the tick is:
// the lone periodic task of the test above is late by slack + tick_latency + idle exit +
// resched exactly; with a uniform latency by a draw within its bounds, anew each wakeup, the
// same again for the same seed.
TEST_CASE("tick_latency: a sleep's timer interrupt comes that much after its hard expiry") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.timer_slack_ns = 50 * us;
        sc.machine.idle_exit_latency_ns = 20 * us;
        const duration base = 50 * us + 20 * us + sc.machine.resched_latency_ns;
        sc.tasks = {timer_task("p", 300 * us, 5'300 * us, 700 * us)};
        sc.machine.tick_latency = {distribution::kind::constant, 13 * us, 0};
        const latency_figures fixed = latencies(find(run_one(sc), "p").lateness);
        REQUIRE(fixed.n > 100);
        CHECK(fixed.min == base + 13 * us);
        CHECK(fixed.max == base + 13 * us);

        sc.machine.tick_latency = {distribution::kind::uniform, 10 * us, 30 * us};
        const repetition_result r = run_one(sc);
        std::set<duration> drawn;
        for (const auto x : find(r, "p").lateness)
            drawn.insert(static_cast<duration>(x));
        CHECK(drawn.size() > 10);
        CHECK(*drawn.begin() >= base + 10 * us);
        CHECK(*drawn.rbegin() <= base + 30 * us);
        require_same(r, run_one(sc));
    }
}

// The tick and a sleep of one CPU that expire at one instant are handled by one interrupt
// (__hrtimer_run_queues() runs both), so they share its latency: an RT task woken at every
// fourth tick (no slack) is woken after that tick's handler and runs 200 us, before the
// next tick. No such tick finds it running, whatever the draws; were the two interrupts
// drawn apart, the wakeup would come first in about half of them and the tick charge it.
TEST_CASE("tick_latency: a tick and a sleep expiring at one instant share one interrupt") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.tick_latency = {distribution::kind::uniform, 10 * us, 30 * us};
        sc.tasks = {burner("hog"), timer_task("rt", 200 * us, 4 * ms, 1 * ms)};
        sc.tasks[1].policy = sched_policy::fifo;
        sc.tasks[1].rt_priority = 50;
        const repetition_result r = run_one(sc);
        const task_result& rt = find(r, "rt");
        REQUIRE(rt.window_nvcsw > 150);
        // Its one tick is its fork's run: forked at a grid point, it runs before that
        // tick's handler. The run has ticks at 1 .. 999 ms.
        CHECK(rt.utime_ticks + rt.stime_ticks == 1);
        CHECK(find(r, "hog").utime_ticks + find(r, "hog").stime_ticks == 998);
    }
}

// Tick latency (a VM's timer injection): the tick hrtimer still expires on the grid
// (hrtimer_forward()), its handler runs tick_latency later. Two burners share one CPU, so
// every switch is the tick's: it comes tick_latency + resched_latency after a grid point.
// A constant latency delays each switch by exactly that; a uniform one by a draw within its
// bounds, a different one each tick and on each CPU, the same again for the same seed.
const bool cov_tick_latency = covers("tick_latency", {"tick_latency"}, sampled);
TEST_CASE("tick_latency: each tick's switch comes that much after its grid point") {
    const auto switch_offsets = [](const scenario& sc, const std::string& comm) {
        std::set<duration> offsets;
        const traced run = run_traced(sc);
        for (const turn& t : run.turns.at(comm))
            if (t.after == "b") // not the run's end
                offsets.insert(t.out % (1 * ms));
        return offsets;
    };
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.tasks = {burner("a"), burner("b")};
        const duration rl = sc.machine.resched_latency_ns;
        CHECK(switch_offsets(sc, "a") == std::set<duration>{rl});
        sc.machine.tick_latency = {distribution::kind::constant, 37 * us, 0};
        CHECK(switch_offsets(sc, "a") == std::set<duration>{37 * us + rl});

        sc.machine.tick_latency = {distribution::kind::uniform, 10 * us, 30 * us};
        const std::set<duration> drawn = switch_offsets(sc, "a");
        CHECK(drawn.size() > 10);
        CHECK(*drawn.begin() >= 10 * us + rl);
        CHECK(*drawn.rbegin() <= 30 * us + rl);
        const repetition_result r = run_one(sc);
        CHECK(find(r, "a").sum_exec_runtime + find(r, "b").sum_exec_runtime == r.cpus.at(0).busy);
        require_same(r, run_one(sc));

        // Two CPUs, a pair of burners on each: the CPUs' ticks come at different instants.
        sc.machine.cpus = 2;
        sc.tasks = {burner("a"), burner("b"), burner("c"), burner("d")};
        for (std::size_t i = 0; i < 4; ++i)
            sc.tasks[i].affinity = {static_cast<int>(i / 2)};
        const traced two = run_traced(sc);
        std::size_t apart = 0, together = 0;
        for (const turn& a : two.turns.at("a"))
            for (const turn& c : two.turns.at("c"))
                if (a.after == "b" && c.after == "d" && a.out / ms == c.out / ms)
                    ++(a.out == c.out ? together : apart);
        CHECK(apart > 10 * together);
    }
}

// IRQ time accounting (update_rq_clock_task): each tick's handler time is left out of
// rq_clock_task, so a lone burner's runtime is its CPU's busy time less ticks x tick_irq,
// exactly; without CONFIG_IRQ_TIME_ACCOUNTING it is charged to the task: runtime = busy.
const bool cov_irq = covers("tick_irq", {"tick_irq_ns", "irq_time_accounting"}, sampled);
TEST_CASE("tick_irq and irq_time_accounting: runtime below busy time by ticks x tick_irq") {
    for (const kernel_version k : sampled) {
        for (const duration irq : {duration{2'000}, duration{15'000}}) {
            INFO(k.str() << " tick_irq " << irq);
            scenario sc = machine(k, 250);
            sc.machine.tick_irq_ns = irq;
            sc.tasks = {burner("a")};
            const repetition_result r = run_one(sc);
            const duration runtime = find(r, "a").sum_exec_runtime;
            const cpu_result& c = r.cpus.at(0);
            CHECK(runtime + c.irq == c.busy);
            CHECK(c.irq % irq == 0);
            const duration ticks = c.irq / irq; // one per 4 ms tick of the 1 s run
            CHECK(ticks >= 249);
            CHECK(ticks <= 251);
            sc.machine.irq_time_accounting = false;
            const repetition_result plain = run_one(sc);
            CHECK(find(plain, "a").sum_exec_runtime == plain.cpus.at(0).busy);
            CHECK(plain.cpus.at(0).irq == 0);
        }
    }
}

// cfs_bandwidth_slice: a queue of a group with a quota takes its runtime from the pool a
// slice at a time, so the most it ever holds is the slice.
const bool cov_bw_slice =
    covers("cfs_bandwidth_slice", {"cfs_bandwidth_slice_ns"}, bandwidth_releases());
TEST_CASE("cfs_bandwidth_slice: the runtime a CPU's queue holds is at most the slice") {
    for (const kernel_version k : bandwidth_releases()) {
        for (const duration slice : {duration{1'000'000}, duration{3'000'000}}) {
            INFO(k.str() << " slice " << slice);
            scenario sc = machine(k, 250);
            sc.length = nsec_per_sec / 2;
            sc.machine.cfs_bandwidth_slice_ns = slice;
            cgroup_spec g;
            g.name = "g";
            g.quota = 20'000'000;
            sc.cgroups = {g};
            task_spec t = burner("a");
            t.cgroup = "g";
            sc.tasks = {t};
            libsched::system s(sc, sc.seed);
            s64 most = 0;
            while (s.step())
                most = std::max(most, s.find_task("a")->se.cfs_rq->runtime_remaining);
            CHECK(most == slice);
        }
    }
}

// NOHZ idle: an idle CPU's tick changes nothing in the fair class (task_tick is not called
// for the idle task); with every task pinned no idle balancing depends on it either, so
// only the engine's event count may change (fewer events with nohz_idle).
const bool cov_nohz = covers("nohz_idle", {"nohz_idle"}, sampled);
TEST_CASE("nohz_idle: only the event count changes for pinned tasks") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k, 250, 2);
        sc.machine.cpus = 2;
        sc.tasks = {burner("a"), timer_task("p", 1 * ms, 10 * ms, 500 * us),
                    periodic("q", 300 * us, 3 * ms)};
        sc.tasks[0].affinity = {0};
        sc.tasks[1].affinity = {1};
        sc.tasks[2].affinity = {1};
        sc.machine.nohz_idle = true;
        const repetition_result on = run_one(sc);
        sc.machine.nohz_idle = false;
        const repetition_result off = run_one(sc);
        require_same(on, off);
        CHECK(on.events <= off.events);
    }
}

// Autogroup (sched_autogroup_enabled): tasks of the root cgroup that started a session
// run in its autogroup, which weighs as one nice-0 task whatever its tasks' nice. A nice 0
// and a nice 10 burner in two sessions share one CPU 50/50 with it on, by their weights
// (1024 : 110) with it off; without sessions the switch changes nothing.
const bool cov_autogroup = covers("autogroup", {"autogroup"}, sampled);
TEST_CASE("autogroup: sessions weigh alike when on, the tasks' nice decides when off") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.length = 5 * nsec_per_sec;
        sc.window_start = 1 * nsec_per_sec;
        sc.tasks = {burner("a"), burner("b", 10)};
        sc.machine.autogroup = true;
        const repetition_result boot_on = run_one(sc);
        sc.machine.autogroup = false;
        require_same(boot_on, run_one(sc));
        sc.tasks[0].session = "s1";
        sc.tasks[1].session = "s2";
        const repetition_result off = run_one(sc);
        CHECK(find(off, "a").share == Approx(1024.0 / 1134).margin(0.005));
        sc.machine.autogroup = true;
        const repetition_result on = run_one(sc);
        CHECK(find(on, "a").share == Approx(0.5).margin(0.005));
        CHECK(find(on, "b").share == Approx(0.5).margin(0.005));
    }
}

// SMT throughput (model/smt_work.hpp): CPU time is unaffected; work = runtime x f while the
// sibling thread also runs. Two burners pinned to the two threads of one core run together
// the whole time: window work = f x window runtime; unset, there is no work figure.
const bool cov_smt = covers("smt_throughput", {"smt_throughput"}, sampled);
TEST_CASE("smt_throughput: the work figure is the factor times the co-running time") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k, 250, 2);
        sc.machine.cpus = 2;
        sc.machine.topology = symmetric_topology(1, 1, 2);
        sc.tasks = {burner("a"), burner("b")};
        sc.tasks[0].affinity = {0};
        sc.tasks[1].affinity = {1};
        const repetition_result none = run_one(sc);
        CHECK(!find(none, "a").work_ns.has_value());
        sc.machine.smt_throughput = 0.6;
        const repetition_result r = run_one(sc);
        for (const char* name : {"a", "b"}) {
            const task_result& t = find(r, name);
            REQUIRE(t.window_work_ns.has_value());
            CHECK(*t.window_work_ns == Approx(0.6 * static_cast<double>(t.window_runtime)));
            CHECK(t.window_runtime == find(none, name).window_runtime);
        }
    }
}

// calc_delta (__calc_delta): for nice 0 calc_delta_fair returns delta unchanged in both
// modes, so a nice-0 load is identical; for other weights exact division and the inverse
// multiply differ only by the inverse's truncation (< 1 ns per ms of runtime, a relative
// 1e-6), far below what moves a share by 0.1 point.
const bool cov_delta = covers("delta_mode", {"delta_mode"}, sampled);
TEST_CASE("delta_mode: exact division and the inverse multiply differ only in rounding") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.tasks = {burner("a"), burner("b"), periodic("p", 300 * us, 5 * ms)};
        sc.machine.delta_mode = calc_delta_mode::inverse_multiply;
        const repetition_result inv = run_one(sc);
        sc.machine.delta_mode = calc_delta_mode::exact_division;
        require_same(inv, run_one(sc));

        sc.tasks = {burner("ref"), burner("n5", 5), burner("m3", -3)};
        sc.machine.delta_mode = calc_delta_mode::inverse_multiply;
        const repetition_result a = run_one(sc);
        sc.machine.delta_mode = calc_delta_mode::exact_division;
        const repetition_result b = run_one(sc);
        for (const char* name : {"ref", "n5", "m3"})
            CHECK(find(a, name).share == Approx(find(b, name).share).margin(0.001));
    }
}

// =======================================================================================
// Old CFS features

// place_entity: a sleeper's credit is latency/2 = 3 ms with GENTLE_FAIR_SLEEPERS, the whole
// latency 6 ms without. With wakeup_granularity 4 ms (check_preempt_wakeup) the woken task
// preempts the hog iff the credit exceeds 4 ms: on -> never, it waits for the hog's next
// tick, 0.5 ms away (wakeups at x.5 ms); off -> at once (resched_latency, 1 us).
const bool cov_gentle =
    covers("gentle_fair_sleepers", {"gentle_fair_sleepers"}, having(feature::gentle_fair_sleepers));
TEST_CASE("GENTLE_FAIR_SLEEPERS: halves the sleeper credit") {
    for (const kernel_version k : having(feature::gentle_fair_sleepers)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.wakeup_granularity_ns = 4 * ms;
        sc.tasks = {burner("hog"), timer_task("p", 200 * us, 20 * ms, 500 * us)};
        const latency_figures on = latencies(
            find(run_one(with_feature(sc, "gentle_fair_sleepers", true)), "p").wakeup_latency);
        const latency_figures off = latencies(
            find(run_one(with_feature(sc, "gentle_fair_sleepers", false)), "p").wakeup_latency);
        REQUIRE(on.n > 30);
        CHECK(on.min == 501 * us);
        CHECK(on.max == 501 * us);
        CHECK(off.max == 1 * us);
    }
}

// task_fork_fair + place_entity(initial): with START_DEBIT the child starts one vslice
// (3 ms: sched_slice of two tasks at 6 ms latency) after min_vruntime = the hog's vruntime;
// without, at the hog's vruntime. Forked at 50.5 ms: the tick at 51 ms finds the hog over
// its slice (it ran alone); without START_DEBIT the child is leftmost and runs at 51 ms +
// 1 us (0.501 ms after the fork). With it the hog (0.5 ms ahead of its fork-time vruntime,
// still left of the child) is re-picked, runs until ran > 3 ms (the tick at 55 ms, vruntime
// now 4.5 ms past) and the child runs at 55 ms + 1 us: 4 ms later.
const bool cov_start_debit = covers("start_debit", {"start_debit"}, having(feature::start_debit));
TEST_CASE("START_DEBIT: a forked task's first run comes one slice later") {
    for (const kernel_version k : having(feature::start_debit)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.window_start = 0;
        sc.length = 200 * ms;
        sc.tasks = {burner("hog"), burner("child")};
        sc.tasks[1].start = 50'500 * us;
        for (const bool on : {true, false}) {
            INFO("START_DEBIT " << on);
            const traced t = run_traced(with_feature(sc, "start_debit", on));
            REQUIRE(t.turns.count("child") == 1);
            const sim_time first = t.turns.at("child").front().in;
            CHECK(first - 50'500 * us == (on ? 3'501 * us : 501 * us));
        }
    }
}

// LAST_BUDDY (check_preempt_wakeup, pick_next_entity): with nr_running >= sched_nr_latency
// (8 burners + the waker = 9), the burner P preempted by a waking sleeper becomes the last
// buddy. The amount: every such wakeup, on and off. Period 6.75 ms > latency, so each
// burner's ideal slice is 0.75 ms and a turn ends at a tick (check_preempt_tick, ran >
// 0.75 ms). The sleeper w (slept ~10 ms) is placed at min_vruntime - 3 ms, more than
// wakeup_gran (1 ms) left of P: it preempts at every wakeup (x.5 ms), 0.5 ms into P's turn.
// When w blocks 100 us later, the next buddy (w) is gone; P was the leftmost when it was
// picked, so now it is at most 0.5 ms + 1 us right of every burner: wakeup_preempt_entity(
// last, left) < 1 (diff <= wakeup_gran), the pick returns P: on, P resumes after every
// wakeup (all n). Off the pick takes the leftmost, which is not P: P sits 0.5 ms right of
// the vruntime where it was leftmost, and the burner next in line is within those 0.5 ms
// (the burners run in turn, leftmost first, in whole 1 ms turns except, per 10 ms, P's cut
// to 0.5 ms and the next one's 1.4 ms, so their vruntimes stay bunched): none of the n.
const bool cov_last_buddy = covers("last_buddy", {"last_buddy"}, having(feature::last_buddy));
TEST_CASE("LAST_BUDDY: the preempted task resumes after a short wakee") {
    for (const kernel_version k : having(feature::last_buddy)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.tasks = {burner("b", 0, 8), timer_task("w", 100 * us, 10 * ms, 500 * us)};
        for (const bool on : {true, false}) {
            INFO("LAST_BUDDY " << on);
            const traced t = run_traced(with_feature(sc, "last_buddy", on));
            REQUIRE(t.turns.count("w") == 1);
            std::size_t resumed = 0, n = 0;
            for (const turn& x : t.turns.at("w")) {
                if (x.before == "w" || x.before.empty())
                    continue;
                ++n;
                resumed += x.after == x.before;
            }
            REQUIRE(n > 30);
            CHECK(resumed == (on ? n : 0));
        }
    }
}

// ALT_PERIOD (sched_slice): counts rq->cfs.h_nr_running instead of cfs_rq->nr_running.
// Without task groups (not modelled) the two are the same number, so nothing changes.
const bool cov_alt_period = covers("alt_period", {"alt_period"}, having(feature::alt_period));
TEST_CASE("ALT_PERIOD: without task groups nothing changes") {
    for (const kernel_version k : having(feature::alt_period)) {
        INFO(k.str());
        const scenario sc = mixed(k);
        require_no_change(sc, "alt_period");
    }
}

// BASE_SLICE (sched_slice): slice = max(slice, min_granularity). nice 0 (1024) against
// nice 5 (335), latency 6 ms, min_granularity 3 ms (sched_nr_latency stays 8 from 5.13):
// the nice 5 task's slice 6 x 335 / 1359 = 1.48 ms becomes 3 ms. Its turn ends at the first
// tick with k ms - 1 us > slice: 2 ms without, 4 ms with. The nice 5 task gains 3.06 ms of
// vruntime per ms, so it is never re-picked (no merged turns).
const bool cov_base_slice_feat =
    covers("base_slice feature", {"base_slice"}, having(feature::base_slice));
TEST_CASE("BASE_SLICE: a light task's slice is at least min_granularity") {
    for (const kernel_version k : having(feature::base_slice)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.min_granularity_ns = 3 * ms;
        sc.tasks = {burner("ref"), burner("light", 5)};
        CHECK(median_turn(run_traced(with_feature(sc, "base_slice", true)), "light") == 4 * ms);
        CHECK(median_turn(run_traced(with_feature(sc, "base_slice", false)), "light") == 2 * ms);
    }
}

// =======================================================================================
// EEVDF features

// PLACE_LAG (place_entity): a woken task is placed at V - lag x (W + w) / W instead of V, so
// that its lag after insertion is the saved one. The amount, with one hog (base slice 3 ms,
// factor 1, HZ 1000) and p running 100 us on an absolute 10 ms timer, waking at x.5 ms,
// DELAY_DEQUEUE off (6.12+). X: the hog's vruntime at the wakeup (update_curr first); the
// hog, alone in between, has 0.5, 1.5 or 2.5 ms of its request left (its requests start at
// ticks) and is unprotected (renewed since its pick 9.9 ms earlier).
// 6.12+: p has a 0.2 ms slice. Off, p is placed at V = X: eligible, deadline X + 0.2 ms,
//   the earliest: it preempts at once (PREEMPT_SHORT / pick_eevdf), every latency exactly
//   1 us. On, the lag walk of the DELAY_DEQUEUE test without it: saved lag l -> l - 0.0495
//   ms after each 1 us wakeup; from l < 0 p is placed behind V, ineligible, and waits for
//   the tick at x+1, where the hog, now ineligible and unprotected, is rescheduled: exactly
//   501 us, after which l jumps by 0.2005 ms. Every 5th or 6th wakeup waits 501 us, the
//   others 1 us.
// 6.6-6.11 (no custom slice): p is nice -10 (9548) and runs 1 ms; its virtual slice
//   3 ms x 1024 / 9548 = 0.322 ms is less than the hog's 0.5 ms left, and lasts p's run.
//   Off: placed at X, eligible, earliest deadline: every latency exactly 1 us. On: each
//   1 us cycle p runs 1 ms (107.2 us virtual) while the hog runs the 1 us resched latency,
//   so its lag falls by (1024 / 10572) x 106.2 us = 10.3 us; from l < 0 it is placed behind
//   V, ineligible, and (6.6-6.11 reschedule only at the deadline) waits until the hog's
//   request ends on a tick: 0.501, 1.501 or 2.501 ms; it then blocks with a lag of
//   (1024 / 10572) x (wait - 0.106 ms), 38 to 232 us: 3 to 23 cycles of 1 us follow. So
//   latencies are 1 us or one of those three, and the waits number between n / 25 and
//   n / 4 (+- one at the window's edges).
const bool cov_place_lag = covers("place_lag", {"place_lag"}, having(feature::place_lag));
TEST_CASE("PLACE_LAG: a woken task keeps its lag") {
    for (const kernel_version k : having(feature::place_lag)) {
        INFO(k.str());
        const bool short_slice = k >= kernel_version{6, 12};
        scenario sc = machine(k);
        sc.machine.base_slice_ns = 3 * ms;
        sc.machine.features["delay_dequeue"] = false;
        sc.tasks = {burner("hog"), timer_task("p", 100 * us, 10 * ms, 500 * us)};
        if (short_slice) {
            sc.tasks[1].slice = 200 * us;
        } else {
            sc.tasks[1] = timer_task("p", 1 * ms, 10 * ms, 500 * us);
            sc.tasks[1].nice = -10;
        }
        const repetition_result ron = run_one(with_feature(sc, "place_lag", true));
        const repetition_result roff = run_one(with_feature(sc, "place_lag", false));
        const latency_figures on = latencies(find(ron, "p").wakeup_latency);
        const latency_figures off = latencies(find(roff, "p").wakeup_latency);
        REQUIRE(off.n > 30);
        CHECK(off.min == 1 * us);
        CHECK(off.max == 1 * us);
        std::size_t waited = 0, other = 0;
        for (const auto x : find(ron, "p").wakeup_latency) {
            const auto d = static_cast<duration>(x);
            if (d == 1 * us)
                continue;
            ++waited;
            const bool on_grid =
                short_slice ? d == 501 * us : (d == 501 * us || d == 1'501 * us || d == 2'501 * us);
            other += on_grid ? 0 : 1;
        }
        CHECK(other == 0);
        if (short_slice) {
            CHECK(6 * waited + 6 >= on.n);
            CHECK(5 * waited <= on.n + 5);
        } else {
            CHECK(25 * waited + 25 >= on.n);
            CHECK(4 * waited <= on.n + 4);
        }
    }
}

// PLACE_DEADLINE_INITIAL (place_entity with ENQUEUE_INITIAL): a new task's deadline is
// V + vslice / 2. From 6.12 wake_up_new_task enqueues with ENQUEUE_INITIAL: the child's
// first turn (slice 3.5 ms, HZ 1000) lasts until ran >= 1.75 ms - 1 us: 2 ticks, 4 without.
// 6.6-6.11 re-place the child at enqueue without ENQUEUE_INITIAL (full slice): no change,
// 4 ticks either way.
const bool cov_pdi = covers("place_deadline_initial", {"place_deadline_initial"},
                            having(feature::place_deadline_initial));
TEST_CASE("PLACE_DEADLINE_INITIAL: a new task's first request is half a slice (6.12+)") {
    // Linux 6.18.33 took 6.19's wakeup test (e837456fdca8): its fork preempts no more.
    std::vector<kernel_version> releases = having(feature::place_deadline_initial);
    releases.insert(releases.end(), {{6, 18, 32}, {6, 18, 33}});
    for (const kernel_version k : releases) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.window_start = 0;
        sc.length = 200 * ms;
        sc.machine.base_slice_ns = 3'500 * us;
        sc.tasks = {burner("hog"), burner("child")};
        sc.tasks[1].start = 50'500 * us;
        const bool halves = k >= kernel_version{6, 12};
        for (const bool on : {true, false}) {
            INFO("PLACE_DEADLINE_INITIAL " << on);
            const traced t = run_traced(with_feature(sc, "place_deadline_initial", on));
            REQUIRE(t.turns.count("child") == 1);
            const turn& first = t.turns.at("child").front();
            const bool fork_preempts = !carries(k, next_buddy_rework);
            CHECK(first.out - first.in ==
                  (on && halves ? (fork_preempts ? 2'500 * us : 2 * ms) : 4 * ms));
        }
    }
}

// PLACE_REL_DEADLINE (dequeue_entity / place_entity): across a non-sleep dequeue (renice's
// DEQUEUE_SAVE) the deadline is kept relative to vruntime; off, the task is re-placed with a
// fresh request (deadline = vruntime + vslice). Renice the running burner to -1 (no resched:
// prio_changed_fair only reschedules a running task that lost priority) 2.3 ms into its
// 4-tick turn (slice 3.5 ms): kept, the turn ends at its 4th tick; fresh, the new 3.5 ms
// request from 2.3 ms runs to 5.8 ms: the 6th tick. Where the protected slice is set at a
// pick only (bcd74b2ffdd0) and vlag and vprot are one union (6.18.17+, 6.19.7+, until
// 80390ead2080), the lag the renice writes takes the protection's place, and the first tick
// after it (3 ms) reschedules either way. With the two apart (7.0) the pick's protection
// stays where it was in vruntime while the re-placement moves the task back by its lag:
// kept, the turn still ends at the 4th tick; fresh, after it and before the request's end.
const bool cov_prd =
    covers("place_rel_deadline", {"place_rel_deadline"}, having(feature::place_rel_deadline));
TEST_CASE("PLACE_REL_DEADLINE: a renice keeps the running task's deadline") {
    std::vector<kernel_version> releases = having(feature::place_rel_deadline);
    releases.insert(releases.end(), {{6, 18, 17}, {6, 19, 7}});
    for (const kernel_version k : releases) {
        INFO(k.str() << "." << k.patch);
        scenario sc = machine(k);
        sc.window_start = 0;
        sc.length = 300 * ms;
        sc.machine.base_slice_ns = 3'500 * us;
        sc.tasks = {burner("a"), burner("b")};
        // find a turn start of "a" after 100 ms from a reference run, renice 2.3 ms into it
        const traced ref = run_traced(sc);
        REQUIRE(ref.turns.count("a") == 1);
        const sim_time start = turn_after(ref, "a", 100 * ms);
        REQUIRE(start > 0);
        sc.tasks[0].renice = {{start + 2'300 * us, -1}};
        for (const bool on : {true, false}) {
            INFO("PLACE_REL_DEADLINE " << on);
            const traced t = run_traced(with_feature(sc, "place_rel_deadline", on));
            const duration len = turn_from(t, "a", start);
            const fair_params params = make_fair_params(sc.machine);
            if (!params.carries(protect_slice_at_pick))
                CHECK(len == (on ? 4 * ms : 6 * ms));
            else if (params.vprot_shares_vlag())
                CHECK(len == 3 * ms);
            else if (on)
                CHECK(len == 4 * ms);
            else
                CHECK((len > 4 * ms && len < 6 * ms));
        }
    }
}

// prio_changed_fair() (5.6+): a renice of a queued task asks wakeup_preempt() whether it
// should run now, and pick_eevdf() keeps no protected slice for an ineligible curr. Beside a
// at nice -10, b (nice 0; both with 20 ms slices) is past its share within a tick of its
// pick and runs on by its deadline alone: a renice of the waiting a 5.5 ms into b's turn ends
// it then, after the resched latency. Under lazy preemption the request waits for b's next
// tick when the renice comes from another CPU (no IPI), as on two CPUs it is taken to. But
// prio_changed_fair() returns at once when the CPU's root queue holds one entity: with both
// tasks in one session's autogroup it asks nothing, and b's turn lasts its 20 ms. (Measured
// on a 6.18.44 host: docs/validation.md, "A renice of a queued task on the 6.18 host".)
TEST_CASE("prio_changed_fair: a renice of a waiting task preempts, unless the root queue holds "
          "one entity") {
    for (const kernel_version k : from({6, 12}))
        for (const int cpus : {1, 2})
            for (const bool grouped : {false, true}) {
                INFO(k.str() << ", " << cpus << " CPUs" << (grouped ? ", one autogroup" : ""));
                scenario sc = machine(k);
                sc.machine.cpus = cpus;
                sc.length = 400 * ms;
                task_spec a = burner("a", -10);
                task_spec b = burner("b");
                a.slice = b.slice = 20 * ms;
                a.affinity = b.affinity = {cpus - 1};
                if (grouped)
                    a.session = b.session = "s";
                sc.tasks = {a, b};
                const traced ref = run_traced(sc);
                const sim_time start = turn_after(ref, "b", 250 * ms);
                REQUIRE(start > 0);
                sc.tasks[0].renice = {{start + 5'500 * us, -11}};
                const traced t = run_traced(sc);
                const duration len = turn_from(t, "b", start);
                if (grouped)
                    CHECK(len == 20 * ms);
                else if (effective_preempt(sc.machine) == preempt_mode::lazy && cpus == 2)
                    CHECK(len == 6 * ms);
                else
                    CHECK(len == 5'501 * us);
            }
}

// RUN_TO_PARITY. 6.17+ (set_protect_slice): on, the protected slice is the whole request
// (all slices equal): two burners at factor 4 (2.8 ms) run 3 ticks; off, protection is the
// normalized base slice 0.70 ms: the first tick ends it (update_curr: !protect_slice), and
// the pick drops the now ineligible curr: 1-tick turns. 6.6-6.16: a resched comes only at
// the deadline, where protection is over anyway, so burners alone see no change. The
// wakeup part, by its amount (6.6-6.16): one hog (base slice 3 ms, factor 1, HZ 1000) and
// p, nice -10 (virtual slice 3 ms x 1024 / 9548 = 0.322 ms), running 100 us and sleeping
// 1.3 ms (relative); PLACE_LAG and DELAY_DEQUEUE off: p is placed at V = the hog's vruntime
// X, both eligible, p's deadline X + 0.322 ms. On (pick_eevdf: curr->vlag == deadline,
// set at the pick): once p has had to wait, it runs at the tick E where the hog's request
// ends (1 us later) and blocks 100 us on; the hog, picked then with the request renewed at
// E (1 us used), is protected and eligible when p wakes at E + 1.401 ms; the request ends
// at E + 3.1 ms, renewed at the tick E + 4 ms (update_deadline / update_curr), where p runs:
// every latency exactly 4.001 - 1.401 = 2.600 ms (an absorbing chain, entered before the
// window). Off: p preempts at once (1 us) unless the hog has 0.322 ms or less of its
// request left, when it runs at the tick after that request's end: at most 1.323 ms.
const bool cov_rtp = covers("run_to_parity", {"run_to_parity"}, having(feature::run_to_parity));
TEST_CASE("RUN_TO_PARITY: the running task keeps the CPU for its protected slice") {
    for (const kernel_version k : having(feature::run_to_parity)) {
        INFO(k.str());
        scenario sc = machine(k, 1000, 8);
        sc.tasks = {burner("a"), burner("b")};
        const traced on = run_traced(with_feature(sc, "run_to_parity", true));
        const traced off = run_traced(with_feature(sc, "run_to_parity", false));
        CHECK(median_turn(on, "a") == 3 * ms);
        if (k >= kernel_version{6, 17}) {
            CHECK(median_turn(off, "a") == 1 * ms);
        } else {
            require_same(on.result, off.result);
            sc = machine(k);
            sc.machine.base_slice_ns = 3 * ms;
            sc.machine.features["place_lag"] = false;
            sc.machine.features["delay_dequeue"] = false;
            sc.tasks = {burner("hog"), periodic("p", 100 * us, 1'300 * us)};
            sc.tasks[1].nice = -10;
            const latency_figures lon = latencies(
                find(run_one(with_feature(sc, "run_to_parity", true)), "p").wakeup_latency);
            const latency_figures loff = latencies(
                find(run_one(with_feature(sc, "run_to_parity", false)), "p").wakeup_latency);
            REQUIRE(lon.n > 100);
            REQUIRE(loff.n > 100);
            CHECK(lon.min == 2'600 * us);
            CHECK(lon.max == 2'600 * us);
            CHECK(loff.min == 1 * us);
            CHECK(loff.max <= 1'323 * us);
            CHECK(static_cast<double>(loff.immediate) > 0.5 * static_cast<double>(loff.n));
        }
    }
}

// PREEMPT_SHORT (6.12+, check_preempt_wakeup_fair, do_preempt_short; 6.17+ the
// protect = false re-pick): a wakee with a shorter slice, eligible, whose deadline is
// earlier, preempts even a protected curr. One hog (base slice 3 ms, factor 1, HZ 1000)
// and a task p running 100 us with a 0.2 ms slice; PLACE_LAG and DELAY_DEQUEUE off, so p
// is placed at V = the hog's vruntime (update_curr runs first): both eligible, p's deadline
// V + 0.2 ms. The hog's requests start at ticks (renewed in update_curr at a tick, or at
// tick + 0.1 ms when p ran inside it: the next tick).
// (a) p on an absolute 10 ms timer, waking at x.5 ms: the hog has 0.5, 1.5 or 2.5 ms of its
//     request left, more than 0.2, so on, p preempts: exactly resched_latency, 1 us. Off,
//     the hog last picked 9.9 ms earlier has renewed its 3 ms request since, so it is
//     unprotected (6.12-6.16: vlag != deadline; 6.17+: vruntime past vprot = deadline) and
//     pick_eevdf takes p's earlier deadline: also exactly 1 us. Nothing to cancel.
// (b) p sleeping 1.3 ms after each run (relative): off, 6.12-6.18, once p has had to wait,
//     it runs at the tick E where the hog's request ends (1 us later) and blocks 100 us on;
//     the hog, picked then with its request renewed at E (deadline 3 ms after E, 1 us used),
//     is protected; p wakes at E + 1.401 ms: protected and eligible, the hog keeps the CPU
//     until its request ends at E + 3.1 ms, renewed at the tick E + 4 ms (update_curr:
//     used up), where p runs: every latency is exactly 4.001 - 1.401 = 2.600 ms. (That
//     chain is absorbing, and entered within the 200 ms before the window.) 6.19 shrinks
//     the protection to p's 0.2 ms at every wakeup (update_protect_slice), so off p runs at
//     the first tick at least 0.2 ms after its wakeup (update_curr: !protect_slice), or at
//     once when the hog was unprotected: at most 1.2 ms + 1 us. On, p preempts at once unless the
//     hog is within 0.2 ms of its deadline, when it runs at the tick after that deadline: at most
//     1 ms + 1 us, and mostly 1 us.
const bool cov_ps = covers("preempt_short", {"preempt_short"}, having(feature::preempt_short));
TEST_CASE("PREEMPT_SHORT: a shorter-slice wakee preempts a protected task") {
    for (const kernel_version k : having(feature::preempt_short)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.base_slice_ns = 3 * ms;
        sc.machine.features["place_lag"] = false;
        sc.machine.features["delay_dequeue"] = false;
        sc.tasks = {burner("hog"), timer_task("p", 100 * us, 10 * ms, 500 * us)};
        sc.tasks[1].slice = 200 * us;
        const latency_figures on =
            latencies(find(run_one(with_feature(sc, "preempt_short", true)), "p").wakeup_latency);
        const latency_figures off =
            latencies(find(run_one(with_feature(sc, "preempt_short", false)), "p").wakeup_latency);
        REQUIRE(on.n > 30);
        CHECK(off.n == on.n);
        CHECK(on.min == 1 * us);
        CHECK(on.max == 1 * us);
        CHECK(off.min == 1 * us);
        CHECK(off.max == 1 * us);

        sc.tasks[1] = periodic("p", 100 * us, 1'300 * us);
        sc.tasks[1].slice = 200 * us;
        const latency_figures ron =
            latencies(find(run_one(with_feature(sc, "preempt_short", true)), "p").wakeup_latency);
        const latency_figures roff =
            latencies(find(run_one(with_feature(sc, "preempt_short", false)), "p").wakeup_latency);
        REQUIRE(ron.n > 100);
        REQUIRE(roff.n > 100);
        CHECK(ron.min == 1 * us);
        CHECK(ron.max <= 1'201 * us);
        CHECK(static_cast<double>(ron.immediate) > 0.5 * static_cast<double>(ron.n));
        if (k < kernel_version{6, 19}) {
            CHECK(roff.min == 2'600 * us);
            CHECK(roff.max == 2'600 * us);
        } else {
            CHECK(roff.max <= 1'201 * us);
        }
    }
}

// PICK_BUDDY (6.12+, pick_next_entity): honours cfs_rq->next. Only NEXT_BUDDY (off) and
// yield_to (not modelled) set a next buddy, so with NEXT_BUDDY off nothing changes, even
// with wakeups.
const bool cov_pick_buddy = covers("pick_buddy", {"pick_buddy"}, having(feature::pick_buddy));
TEST_CASE("PICK_BUDDY: without a next buddy nothing changes") {
    for (const kernel_version k : having(feature::pick_buddy)) {
        INFO(k.str());
        const scenario sc = mixed(k);
        require_no_change(sc, "pick_buddy");
    }
}

// DELAY_DEQUEUE (6.12+, dequeue_entity): a task blocking while ineligible stays queued (its
// weight in the queue and in V) until picked, and that pick dequeues it with its lag, then
// >= 0, clipped to 0 (DELAY_ZERO): it sheds its debt while it sleeps. With burners only
// (nobody blocks) nothing changes.
// The amount: one hog (base slice 3 ms, factor 1, HZ 1000) and p running 100 us with a
// 0.2 ms slice on an absolute 10 ms timer, waking at x.5 ms. Let X be the hog's vruntime at
// the wakeup (update_curr first), l p's saved lag. p is placed at X - 2l (place_entity:
// l x (W + w) / W, equal weights), V = X - l, deadline X - 2l + 0.2 ms, earlier than the
// hog's (0.5 ms or more of its request left: the requests start at ticks). If eligible
// (l >= 0) it preempts at once (PREEMPT_SHORT): 1 us; the hog runs those 1 us, p 100 us:
// p blocks at X - 2l + 0.1 with V = X - l + 0.0505, lag l - 0.0495 ms.
// On: p blocks ineligible (lag -0.0495 from l = 0), stays queued, is eligible once the hog
//   ran 0.1 ms and picked at the next pick (the hog's request end, within 3 ms; its
//   deadline X + 0.2 is the earliest): dequeued with lag 0. Every wakeup finds l = 0:
//   every latency is exactly 1 us.
// Off: p keeps its lag. l < 0: ineligible, no preemption; the hog (unprotected: renewed
//   since its pick 9.9 ms earlier) turns ineligible after 0.1 ms and the tick at x+1
//   reschedules it (6.12-6.16 did_preempt_short, 6.17+ !protect_slice); p, now eligible
//   with the earliest deadline, runs: exactly 501 us. It then blocks with lag l + 0.2005
//   > 0. So the lag walks l -> l - 0.0495 through 1 us wakeups and jumps up by 0.2005
//   after each 501 us one: every 5th wakeup waits (every 6th when the drift of 2.5 us per
//   cycle lets a fifth step land on l >= 0): 1 us or 501 us, a fraction of the 501 us ones
//   between 1/6 and 1/5 (+- one cycle at the window's edges).
const bool cov_dd = covers("delay_dequeue", {"delay_dequeue"}, having(feature::delay_dequeue));
TEST_CASE("DELAY_DEQUEUE: an ineligible sleeper stays queued and sheds its debt") {
    for (const kernel_version k : having(feature::delay_dequeue)) {
        INFO(k.str());
        scenario sc = machine(k, 1000, 8);
        sc.tasks = {burner("a"), burner("b")};
        require_no_change(sc, "delay_dequeue");
        sc = machine(k);
        sc.machine.base_slice_ns = 3 * ms;
        sc.tasks = {burner("hog"), timer_task("p", 100 * us, 10 * ms, 500 * us)};
        sc.tasks[1].slice = 200 * us;
        const repetition_result ron = run_one(with_feature(sc, "delay_dequeue", true));
        const repetition_result roff = run_one(with_feature(sc, "delay_dequeue", false));
        const latency_figures on = latencies(find(ron, "p").wakeup_latency);
        const latency_figures off = latencies(find(roff, "p").wakeup_latency);
        REQUIRE(on.n > 30);
        CHECK(on.min == 1 * us);
        CHECK(on.max == 1 * us);
        std::size_t waited = 0, other = 0;
        for (const auto x : find(roff, "p").wakeup_latency) {
            const auto d = static_cast<duration>(x);
            waited += d == 501 * us;
            other += d != 501 * us && d != 1 * us;
        }
        CHECK(other == 0);
        CHECK(off.max == 501 * us);
        CHECK(6 * waited + 6 >= off.n);
        CHECK(5 * waited <= off.n + 5);
    }
}

// DELAY_ZERO (6.12+, finish_delayed_dequeue_entity / requeue_delayed_entity): a delayed
// task dequeued at its pick is eligible there, lag >= 0; DELAY_ZERO clips it to 0, without
// it keeps that positive lag and its next wakeup places it before V (PLACE_LAG).
// The amount: one hog and p (both slice 3 ms, factor 1, HZ 1000), p running 2.6 ms on an
// absolute 10 ms timer, waking at x.5 ms; X the hog's vruntime at the wakeup.
// On: p wakes with lag 0 (dequeued before: see below), placed at V = X, deadline X + 3 ms,
//   later than the hog's (less than 3 ms left): no preemption at the wakeup. The hog,
//   ahead of V as soon as it runs on, is ineligible and unprotected (it renewed its request
//   since its pick, 6.9 ms earlier), so the tick at x+1 reschedules it (6.12-6.16
//   did_preempt_short, 6.17+ !protect_slice) and p, eligible with the earliest deadline,
//   runs: every latency exactly 501 us. It runs its 2.6 ms uninterrupted (its own request,
//   protected) and blocks at X + 2.6 with the hog at X + 0.501: lag -1.05 ms, ineligible:
//   delayed. It is eligible once the hog has run 2.1 ms more, and the next pick (at most a
//   tick after the hog turns ineligible again, < 4 ms) dequeues it with lag >= 0, clipped
//   to 0, well before its next wakeup.
// Off: the lag l kept at that pick is > 0 (p is picked at a tick after it became eligible,
//   while the hog, which alone ran since, is past it: l = (v_hog - v_p) / 2; 0 only on an
//   exact tie). Placed at X - 2l, V = X - l: the hog at X is now ineligible, so pick_eevdf
//   drops it and returns p, whatever the deadlines: every latency exactly 1 us. p then
//   runs its 2.6 ms and blocks with lag l - 1.2995 ms; if negative it is delayed and
//   eligible again after the hog has run 2.6 ms, picked at the hog's next resched (its
//   request renewed, then ineligible: before the next wakeup), again with a lag > 0.
// Without DELAY_DEQUEUE (nothing is delayed) DELAY_ZERO changes nothing.
const bool cov_dz = covers("delay_zero", {"delay_zero"}, having(feature::delay_zero));
TEST_CASE("DELAY_ZERO: a delayed task's positive lag is clipped to 0") {
    for (const kernel_version k : having(feature::delay_zero)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.base_slice_ns = 3 * ms;
        sc.tasks = {burner("hog"), timer_task("p", 2'600 * us, 10 * ms, 500 * us)};
        const repetition_result ron = run_one(with_feature(sc, "delay_zero", true));
        const repetition_result roff = run_one(with_feature(sc, "delay_zero", false));
        const latency_figures on = latencies(find(ron, "p").wakeup_latency);
        const latency_figures off = latencies(find(roff, "p").wakeup_latency);
        REQUIRE(on.n > 30);
        CHECK(on.min == 501 * us);
        CHECK(on.max == 501 * us);
        CHECK(off.n == on.n);
        CHECK(off.min == 1 * us);
        CHECK(off.max == 1 * us);

        sc = machine(k, 1000, 8);
        sc.tasks = {burner("a"), burner("b"), timer_task("p", 2 * ms, 9'700 * us, 500 * us)};
        sc.machine.features["delay_dequeue"] = false;
        require_no_change(sc, "delay_zero");
    }
}

// =======================================================================================
// Both schedulers

// NEXT_BUDDY, no change (all releases): the buddy is set only at a wakeup, so burners alone
// see nothing. Old CFS also sets it only when nr_running >= sched_nr_latency (8), and a
// preempting wakee becomes next buddy with or without it: two burners and a sleeper see no
// change either.
const bool cov_nb_same =
    covers("next_buddy, no change", {"next_buddy"}, having(feature::next_buddy));
TEST_CASE("NEXT_BUDDY: nothing changes on a queue that never wakes anything") {
    for (const kernel_version k : having(feature::next_buddy)) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.tasks = {burner("b", 0, 3), burner("n5", 5)};
        require_no_change(sc, "next_buddy");
        if (k < kernel_version{6, 6}) {
            sc.tasks = {burner("b", 0, 2), periodic("p", 300 * us, 5 * ms)};
            require_no_change(sc, "next_buddy");
        }
    }
}

// NEXT_BUDDY under EEVDF (check_preempt_wakeup(_fair) marks a non-fork wakee as next;
// pick_next_entity returns it when eligible -- NEXT_BUDDY in 6.6/6.7, PICK_BUDDY from 6.12):
// issue 13's example, HZ 250, two burners and a periodic task (300 us run, here a 7 ms
// sleep), with PLACE_LAG off so that the wakee is placed at V: eligible then and at any
// later pick (only the burners run meanwhile, V does not fall below it). The next pick
// after the wakeup is 1 us (resched_latency) after it, when the update_curr of the wakeup
// finds the running burner's 0.75 / 0.70 ms request used up, else at the next tick, which
// always finds it used up (4 ms tick): with NEXT_BUDDY the wakee runs there, after every
// one of its wakeups, exactly. Without, the pick takes the earliest eligible deadline, and
// the wakee settles in a 12 ms cycle: it runs 1 us after a tick T, blocks at T + 0.301;
// burner A (the one behind) runs to the tick T + 4 (3.7 ms), B from there; the wakee wakes
// at W = T + 7.301, where update_curr finds B's request used up (resched). Per cycle the
// first burner gets 3.7 + 4.7 ms, the other 3.3, so the roles swap each cycle and at T A is
// behind B by 2.55 ms (-(e + 5.1) = e), at W by 2.55 - 0.4 = 2.15 ms: A's deadline
// (v_A + slice) is before the wakee's (V + slice, V halfway between them): A runs from
// W + 1 us; at T + 8 it has used 1 + 698 us of its request (< 0.70 / 0.75), at T + 12 all of
// it, and the wakee (eligible, deadline before B's and A's renewed one) runs:
// every latency exactly T + 12.001 - W = 4.700 ms, none at the next pick. 6.19 reworked
// NEXT_BUDDY (e837456fdca8: the buddy marked only for a wakee that passes the preemption
// tests, tested inside __pick_eevdf): its rule is checked in test_fair.cpp, not here.
std::vector<kernel_version> eevdf_until_6_18() {
    std::vector<kernel_version> out;
    for (const kernel_version k : eevdf_releases())
        if (k < kernel_version{6, 19})
            out.push_back(k);
    return out;
}
const bool cov_nb_eevdf = covers("next_buddy, EEVDF", {"next_buddy"}, eevdf_until_6_18());
TEST_CASE("NEXT_BUDDY: an EEVDF wakee is picked at the next pick") {
    for (const kernel_version k : eevdf_until_6_18()) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.machine.features["place_lag"] = false;
        sc.tasks = {burner("b", 0, 2), periodic("p", 300 * us, 7 * ms)};
        for (const bool on : {true, false}) {
            INFO("NEXT_BUDDY " << on);
            const traced t = run_traced(with_feature(sc, "next_buddy", on));
            REQUIRE(t.turns.count("p") == 1);
            const auto [n, at_next_pick] = count_wakeup_turns(t, "p", [](sim_time w, sim_time in) {
                const sim_time next_tick = (w / (4 * ms) + 1) * (4 * ms);
                return in == w + 1 * us || in == next_tick + 1 * us;
            });
            REQUIRE(n > 30);
            CHECK(at_next_pick == (on ? n : 0));
            if (!on) {
                const latency_figures f = latencies(find(t.result, "p").wakeup_latency);
                CHECK(f.min == 4'700 * us);
                CHECK(f.max == 4'700 * us);
            }
        }
    }
}

// Issue 13's own example (kernel 6.6 on, HZ 250, PLACE_LAG on): with NEXT_BUDDY the wakee
// is the next buddy after every wakeup and is picked at the next pick whenever it is
// eligible then, which its small lag makes it after most wakeups (> 90 %); off and on
// differ (before the fix they were identical).
TEST_CASE("NEXT_BUDDY: issue 13's example, two burners and a 300 us / 5 ms task") {
    for (const kernel_version k : eevdf_until_6_18()) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.tasks = {burner("b", 0, 2), periodic("p", 300 * us, 5 * ms)};
        const traced t = run_traced(with_feature(sc, "next_buddy", true));
        CHECK_FALSE(find(run_one(with_feature(sc, "next_buddy", true)), "p").wakeup_latency ==
                    find(run_one(with_feature(sc, "next_buddy", false)), "p").wakeup_latency);
        REQUIRE(t.turns.count("p") == 1);
        const auto [n, at_next_pick] = count_wakeup_turns(t, "p", [](sim_time w, sim_time in) {
            return in <= (w / (4 * ms) + 1) * (4 * ms) + 10 * us;
        });
        REQUIRE(n > 30);
        CHECK(static_cast<double>(at_next_pick) > 0.9 * static_cast<double>(n));
    }
}

// WAKEUP_PREEMPTION (check_preempt_wakeup(_fair)): off, a wakee never preempts at its
// wakeup, except that an idle-policy curr is preempted before that gate. (a) Burners only:
// no wakeups, no change. (b) The change, by its amount: one hog and a task waking every
// 20 ms at x.5 ms (HZ 1000, factor 1, resched_latency 1 us, no tick IRQ time).
//   Old CFS: the sleeper is placed at min_vruntime - latency/2 = hog - 3 ms (place_entity,
//   GENTLE_FAIR_SLEEPERS); d = 3 ms > wakeup_gran 1 ms (wakeup_preempt_entity), so on it
//   runs resched_latency after its wakeup: exactly 1 us. Off it waits for the tick at
//   x+1 ms, where check_preempt_tick finds the hog past its ideal 3 ms (it ran alone for
//   ~19.8 ms since it was last picked) and the pick takes the leftmost, the sleeper:
//   exactly 0.5 ms + 1 us = 501 us.
//   EEVDF: the wakee is nice -10 (9548), PLACE_LAG off (placed at V = the hog's vruntime:
//   eligible), RUN_TO_PARITY off (the hog, renewed many times since its pick, is
//   unprotected in every release anyway). The hog alone renews its request at every tick
//   (slice 0.75 / 0.70 ms < 1 ms: update_deadline), so at x.5 its deadline is
//   V + 0.25 / 0.20 ms, later than the wakee's V + slice x 1024 / 9548 = V + 0.080 /
//   0.075 ms: pick_eevdf returns the wakee, on: exactly 1 us. Off: at the tick x+1 the hog
//   has used its request up (update_curr -> resched, nr_queued 2); the hog is now ahead of
//   V and ineligible, the wakee behind it: picked, exactly 501 us.
// No tolerance: the wakeups, the ticks and the resched latency are exact.
const bool cov_wp = covers("wakeup_preemption", {"wakeup_preemption"}, sampled);
TEST_CASE("WAKEUP_PREEMPTION: switches wakeup preemption, nothing else") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.tasks = {burner("b", 0, 3), burner("n5", 5)};
        require_no_change(sc, "wakeup_preemption");

        sc = machine(k);
        sc.tasks = {burner("hog"), timer_task("p", 200 * us, 20 * ms, 500 * us)};
        if (k >= kernel_version{6, 6}) {
            sc.tasks[1].nice = -10;
            sc.machine.features["place_lag"] = false;
            sc.machine.features["run_to_parity"] = false;
        }
        const latency_figures on = latencies(
            find(run_one(with_feature(sc, "wakeup_preemption", true)), "p").wakeup_latency);
        const latency_figures off = latencies(
            find(run_one(with_feature(sc, "wakeup_preemption", false)), "p").wakeup_latency);
        REQUIRE(on.n > 30);
        CHECK(off.n == on.n);
        CHECK(on.min == 1 * us);
        CHECK(on.max == 1 * us);
        CHECK(off.min == 501 * us);
        CHECK(off.max == 501 * us);
    }
}

// WAKEUP_PREEMPTION and an idle-policy curr. Before 6.12 (5.15 check_preempt_wakeup):
// "idle tasks are by definition preempted by non-idle tasks" is tested before the
// WAKEUP_PREEMPTION gate, so a normal wakee preempts a SCHED_IDLE burner at once either way.
// From 6.12 (faa42d29419d, "Make SCHED_IDLE entity be preempted in strict hierarchy") the
// WAKEUP_PREEMPTION gate comes first, before find_matching_se and the idle-entity rule, and
// stays there in later releases (a proposed fix moving it back after the idle rule is not
// in them): off, the wakee waits for the tick.
const bool cov_wp_idle = covers("wakeup_preemption, idle curr", {"wakeup_preemption"}, sampled);
TEST_CASE("WAKEUP_PREEMPTION: an idle-policy curr is preempted either way before 6.12") {
    for (const kernel_version k : sampled) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.tasks = {burner("idle"), timer_task("p", 200 * us, 20 * ms, 500 * us)};
        sc.tasks[0].policy = sched_policy::idle;
        const repetition_result on = run_one(with_feature(sc, "wakeup_preemption", true));
        const repetition_result off = run_one(with_feature(sc, "wakeup_preemption", false));
        if (k < kernel_version{6, 12}) {
            require_same(on, off);
        } else {
            CHECK(stats::summarize(find(on, "p").wakeup_latency).max < 100 * us);
            CHECK(stats::summarize(find(off, "p").wakeup_latency).min >= 500 * us);
        }
    }
}

// HRTICK under EEVDF (hrtick_start_fair, entity_tick queued): the timer fires at the end of
// se->slice, so two burners' turns at HZ 250 last the 3 ms slice (factor 4, 2.8 ms from
// 6.15), not the 4 ms tick; a few us over for the resched latency.
const bool cov_hrtick_eevdf = covers("hrtick, EEVDF", {"hrtick"}, eevdf_releases());
TEST_CASE("HRTICK: EEVDF turns end at the slice, not the tick") {
    for (const kernel_version k : eevdf_releases()) {
        INFO(k.str());
        scenario sc = machine(k, 250, 8);
        sc.tasks = {burner("a"), burner("b")};
        const duration slice = normalized_base_slice(k) * 4;
        CHECK(median_turn(run_traced(with_feature(sc, "hrtick", false)), "a") == 4 * ms);
        const duration t = median_turn(run_traced(with_feature(sc, "hrtick", true)), "a");
        CHECK(t >= slice);
        CHECK(t <= slice + 20 * us);
    }
}

// HRTICK under old CFS (5.15 entity_tick returns before check_preempt_tick while the hrtick
// is queued; hrtick_update re-arms while nr_running < sched_nr_latency): two burners' turns
// end at the 3 ms ideal slice, not the 4 ms tick (HZ 250). A SCHED_BATCH wakee (which never
// preempts at wakeup) is served when the running burner's slice ends -- sched_slice with
// three tasks, 2 ms after that turn began, or at once if it already ran longer -- not on
// the tick grid.
const bool cov_hrtick_cfs = covers("hrtick, CFS", {"hrtick"}, cfs_releases());
TEST_CASE("HRTICK: old CFS serves a batch wakee at the slice end") {
    for (const kernel_version k : cfs_releases()) {
        INFO(k.str());
        scenario sc = machine(k, 250);
        sc.tasks = {burner("a"), burner("b")};
        const duration t = median_turn(run_traced(with_feature(sc, "hrtick", true)), "a");
        CHECK(t >= 3 * ms);
        CHECK(t <= 3 * ms + 20 * us);

        sc.tasks = {burner("hog"), timer_task("p", 200 * us, 20 * ms, 700 * us)};
        sc.tasks[1].policy = sched_policy::batch;
        const traced tr = run_traced(with_feature(sc, "hrtick", true));
        REQUIRE(tr.turns.count("p") == 1);
        std::map<sim_time, sim_time> hog_turn_by_end; // end -> start
        for (const turn& x : tr.turns.at("hog"))
            hog_turn_by_end[x.out] = x.in;
        std::size_t n = 0, at_slice_end = 0;
        const std::vector<sim_time>& woke = tr.woke.at("p");
        for (const turn& x : tr.turns.at("p")) {
            if (!x.after_wakeup || !hog_turn_by_end.count(x.in))
                continue;
            const auto it = std::upper_bound(woke.begin(), woke.end(), x.in);
            if (it == woke.begin())
                continue;
            const sim_time w = *(it - 1);
            const sim_time s = hog_turn_by_end.at(x.in);
            ++n;
            const sim_time due = std::max(w, s + 2 * ms);
            at_slice_end += x.in >= due && x.in <= due + 20 * us;
        }
        REQUIRE(n > 30);
        CHECK(at_slice_end == n);
    }
}

// =======================================================================================
// RT bandwidth, the SCHED_RR slice and the fair server (sched/rt.hpp, sched/deadline.hpp):
// a SCHED_FIFO burner beside a fair burner on one CPU, the fair task's CPU time against
// what the setting leaves it, and against the default.

scenario fifo_vs_fair(kernel_version v, duration length) {
    scenario sc;
    sc.name = "rt";
    sc.machine.kernel = v;
    sc.length = length;
    task_spec f = burner("fifo");
    f.policy = sched_policy::fifo;
    f.rt_priority = 50;
    sc.tasks = {f, burner("fair")};
    return sc;
}

// Before 6.12, and with rt_group_sched from 6.12: RT runs sched_rt_runtime of each
// sched_rt_period; the fair task the rest, within a tick per period.
const bool cov_rt_bw = covers("rt_bandwidth", {"sched_rt_runtime", "sched_rt_period"}, sampled);
TEST_CASE("sched_rt_runtime / sched_rt_period: the fair task gets the period less the runtime") {
    for (const kernel_version v : sampled) {
        INFO(v.str());
        scenario sc = fifo_vs_fair(v, 4 * 1000 * ms);
        sc.machine.rt_group_sched = v >= kernel_version{6, 12};
        sc.machine.sched_rt_period = 500 * ms;
        sc.machine.sched_rt_runtime = 400 * ms;
        const duration fair = find(run_one(sc), "fair").sum_exec_runtime;
        CHECK(std::abs(fair - 8 * 100 * ms) <= 8 * 4 * ms);
        sc.machine.sched_rt_runtime = runtime_inf;
        const duration starved = find(run_one(sc), "fair").sum_exec_runtime;
        if (v < kernel_version{6, 12})
            CHECK(starved < 1 * ms);
        else // the fair server still gives 50 ms per 1 s
            CHECK(std::abs(starved - 4 * 50 * ms) <= 4 * 4 * ms);
    }
}

const bool cov_rr = covers("sched_rr_timeslice", {"sched_rr_timeslice"}, sampled);
TEST_CASE("sched_rr_timeslice: equal SCHED_RR tasks take turns of that many jiffies") {
    for (const kernel_version v : sampled) {
        INFO(v.str());
        scenario sc = fifo_vs_fair(v, 1000 * ms);
        sc.machine.sched_rt_runtime = runtime_inf;
        sc.machine.sched_rr_timeslice = 20 * ms;
        sc.tasks[0].policy = sched_policy::rr;
        sc.tasks[1] = sc.tasks[0];
        sc.tasks[1].name = "rr2";
        const repetition_result r = run_one(sc);
        // 20 ms turns: about 50 switches a second, half of them away from each task.
        CHECK(find(r, "fifo").nivcsw >= 24);
        CHECK(find(r, "fifo").nivcsw <= 26);
        sc.machine.sched_rr_timeslice.reset(); // 100 ms
        CHECK(find(run_one(sc), "fifo").nivcsw <= 6);
    }
}

const bool cov_rt_group = covers("rt_group_sched", {"rt_group_sched"}, from({6, 12}));
TEST_CASE("rt_group_sched: from 6.12 RT bandwidth throttles only with it") {
    for (const kernel_version v : from({6, 12})) {
        INFO(v.str());
        scenario sc = fifo_vs_fair(v, 4 * 1000 * ms);
        sc.machine.sched_rt_runtime = 700 * ms;
        const duration without = find(run_one(sc), "fair").sum_exec_runtime;
        sc.machine.rt_group_sched = true;
        const duration with = find(run_one(sc), "fair").sum_exec_runtime;
        CHECK(std::abs(without - 4 * 50 * ms) <= 4 * 4 * ms);
        CHECK(std::abs(with - 4 * 300 * ms) <= 4 * 4 * ms);
    }
}

const bool cov_server =
    covers("fair_server", {"fair_server_runtime", "fair_server_period"}, from({6, 12}));
TEST_CASE("fair_server_runtime / fair_server_period: a starved fair task gets that budget") {
    for (const kernel_version v : from({6, 12})) {
        INFO(v.str());
        scenario sc = fifo_vs_fair(v, 4 * 1000 * ms);
        sc.machine.fair_server_runtime = 50 * ms;
        sc.machine.fair_server_period = 250 * ms;
        const duration fair = find(run_one(sc), "fair").sum_exec_runtime;
        CHECK(std::abs(fair - 16 * 50 * ms) <= 16 * 4 * ms);
        sc.machine.fair_server_runtime = 0; // disabled
        sc.machine.fair_server_period.reset();
        CHECK(find(run_one(sc), "fair").sum_exec_runtime < 1 * ms);
    }
}

// RT_PUSH_IPI. Three CPUs, each held by an RT task pinned there: a (prio 90) on CPU 0, c
// (95) on CPU 1 until it sleeps at 100 ms, d (85) on CPU 2. Behind a on CPU 0 wait b (80,
// CPUs 0 and 2) and e (70, CPUs 0 and 1), both pushable, neither with a CPU to go to. When
// c sleeps, CPU 1 pulls. With RT_PUSH_IPI, CPU 0 pushes its first pushable task, b, which
// has still nowhere to go, and stops there: e waits behind a for good. Without it, CPU 1
// looks through CPU 0's pushable tasks for one allowed on it and takes e at once.
const bool cov_rt_push_ipi = covers("rt_push_ipi", {"rt_push_ipi"}, having(feature::rt_push_ipi));
TEST_CASE("RT_PUSH_IPI: a pull that takes the waiting task allowed here, or a push that stops") {
    for (const kernel_version k : having(feature::rt_push_ipi)) {
        INFO(k.str());
        scenario sc = machine(k);
        sc.machine.cpus = 3;
        sc.machine.sched_rt_runtime = runtime_inf;
        sc.window_start = 0;
        const auto rt = [](const char* name, int prio, std::vector<int> cpus, sim_time start) {
            task_spec t = burner(name);
            t.policy = sched_policy::fifo;
            t.rt_priority = prio;
            t.affinity = std::move(cpus);
            t.start = start;
            return t;
        };
        task_spec c = rt("c", 95, {1}, 0);
        c.behaviour = {behaviour_spec::kind::periodic, 100 * ms, 10'000 * ms, {}, {}, {}, {}};
        sc.tasks = {rt("a", 90, {0}, 0), c, rt("d", 85, {2}, 0), rt("b", 80, {0, 2}, 1 * ms),
                    rt("e", 70, {0, 1}, 2 * ms)};
        const repetition_result on = run_one(with_feature(sc, "rt_push_ipi", true));
        CHECK(find(on, "e").sum_exec_runtime == 0);
        CHECK(find(on, "b").sum_exec_runtime == 0);
        const repetition_result off = run_one(with_feature(sc, "rt_push_ipi", false));
        // e runs on CPU 1 from c's sleep to the end, less the switch's resched latency.
        CHECK(find(off, "e").sum_exec_runtime <= 900 * ms);
        CHECK(find(off, "e").sum_exec_runtime >= 900 * ms - 10 * us);
        CHECK(find(off, "e").nr_migrations == 1);
        CHECK(find(off, "b").sum_exec_runtime == 0);
    }
}

// NI_RANDOM (6.19, 33cf66d88306; 6.18.5, 6.12.65, 6.6.120, 6.1.160): a CPU about to go
// idle throws a 1024-sided die and balances only if it shows at most 1 + the level's
// success ratio. Two burners pinned to CPU 0 keep the machine overloaded, and a task pinned
// to CPU 1 sleeps every millisecond, so CPU 1 tries to pull at each sleep and never can.
// Every try counts as a failure: the ratio starts at 512 (or machine.newidle_ratio, with
// half as many successes as sd_init()'s 512 calls) and halves every 512 tries
// (update_newidle_stats(): at 1024 calls ratio = successes, both counts halve) down to 0,
// so try i balances with probability (ratio + 2) / 1024. The passes skipped are CPU 1's
// load_balance() passes without the feature less those with it: its ticks' own passes are
// the same in both runs, as every pass fails alike.
const bool cov_ni_random =
    covers("ni_random", {"ni_random", "newidle_ratio"}, having(feature::ni_random));
TEST_CASE("NI_RANDOM: newidle balance runs in proportion to its success") {
    for (const kernel_version k : having(feature::ni_random)) {
        for (const std::vector<int>& start : {std::vector<int>{}, std::vector<int>{1024, 40}}) {
            INFO(k.str() << ", CPU 1 starting at " << (start.empty() ? 512 : start[1]));
            scenario sc = machine(k, 250);
            sc.machine.cpus = 2;
            sc.machine.nohz_idle = false;
            sc.machine.newidle_ratio = start;
            sc.length = 8'000 * ms;
            task_spec b = burner("b", 0, 2);
            b.affinity = {0};
            task_spec p = periodic("p", 100 * us, 900 * us);
            p.affinity = {1};
            sc.tasks = {b, p};
            const repetition_result on = run_one(with_feature(sc, "ni_random", true));
            const repetition_result off = run_one(with_feature(sc, "ni_random", false));
            const std::uint64_t tries = find(on, "p").nvcsw;
            REQUIRE(find(off, "p").nvcsw == tries);
            REQUIRE(tries > 6'000);
            const std::uint64_t skipped =
                off.cpus[1].balance.lb_count - on.cpus[1].balance.lb_count;
            const double balanced = static_cast<double>(tries - skipped);
            double mean = 0, variance = 0;
            unsigned ratio = start.empty() ? 512 : static_cast<unsigned>(start[1]);
            for (std::uint64_t i = 0; i < tries; ++i) {
                if (i > 0 && i % 512 == 0)
                    ratio /= 2;
                const double q = std::min(1.0, (ratio + 2) / 1024.0);
                mean += q;
                variance += q * (1 - q);
            }
            INFO("balanced " << balanced << ", expected " << mean << " +- " << std::sqrt(variance));
            CHECK(std::abs(balanced - mean) < 5 * std::sqrt(variance));
            CHECK(find(on, "b.0").nr_migrations == 0);
        }
    }
}

// =======================================================================================
// The meta-test: every feature of features.def, at every sampled release that has it, and
// every machine override field has a test above.

TEST_CASE("every feature and every machine override has a conformance test") {
    std::map<std::string, std::set<kernel_version>> covered;
    for (const coverage& c : registry())
        for (const std::string& name : c.names)
            covered[name].insert(c.releases.begin(), c.releases.end());

    for (std::size_t i = 0; i < feature_count; ++i) {
        const feature_info& fi = feature_table[i];
        for (const kernel_version v : sampled) {
            if (!feature_exists(static_cast<feature>(i), v))
                continue;
            INFO("feature " << fi.kernel_name << " at " << v.str());
            CHECK(covered[std::string(fi.name)].count(v) == 1);
        }
    }

    // Every field of machine_spec, bound by name: a new field fails to compile here until
    // it is named, and a named override needs a test. Not overrides of the scheduler: the
    // machine's shape (cpus, topology, cpusets, the cgroup interface) and the release itself.
    [[maybe_unused]] const auto& [cpus, topology, online_cpus, hz, kernel, scaling, base_slice_ns,
                                  latency_ns, min_granularity_ns, wakeup_granularity_ns, features,
                                  cpusets, delta_mode, resched_latency_ns, irq_time_accounting,
                                  tick_irq_ns, nohz_idle, preempt, timer_slack_ns,
                                  idle_exit_latency_ns, ipi_latency_ns, tick_latency, sleep_cost,
                                  cgroup_version, autogroup, shares_to_weight,
                                  cfs_bandwidth_slice_ns, smt_throughput, sched_rt_runtime,
                                  sched_rt_period, sched_rr_timeslice, rt_group_sched,
                                  fair_server_runtime, fair_server_period, newidle_ratio] =
        machine_spec{};
    struct override_field {
        const char* name;
        std::vector<kernel_version> releases; // where it applies
    };
    const std::vector<override_field> overrides = {
        {"online_cpus", sampled},
        {"hz", sampled},
        {"scaling", sampled},
        {"base_slice_ns", eevdf_releases()},
        {"latency_ns", cfs_releases()},
        {"min_granularity_ns", cfs_releases()},
        {"wakeup_granularity_ns", cfs_releases()},
        {"delta_mode", sampled},
        {"resched_latency_ns", sampled},
        {"irq_time_accounting", sampled},
        {"tick_irq_ns", sampled},
        {"nohz_idle", sampled},
        {"preempt", from({6, 13})},
        {"timer_slack_ns", sampled},
        {"idle_exit_latency_ns", sampled},
        {"ipi_latency_ns", sampled},
        {"tick_latency", sampled},
        {"sleep_cost", sampled},
        {"smt_throughput", sampled},
        {"sched_rt_runtime", sampled},
        {"sched_rt_period", sampled},
        {"sched_rr_timeslice", sampled},
        {"rt_group_sched", from({6, 12})},
        {"fair_server_runtime", from({6, 12})},
        {"fair_server_period", from({6, 12})},
        {"autogroup", sampled},
        {"cfs_bandwidth_slice_ns", bandwidth_releases()},
        {"newidle_ratio", having(feature::ni_random)},
    };
    for (const override_field& o : overrides)
        for (const kernel_version v : o.releases) {
            INFO("machine." << o.name << " at " << v.str());
            CHECK(covered[o.name].count(v) == 1);
        }
    // `features` is covered through the feature loop above.
    CHECK(registry().size() >= feature_count);
}

} // namespace test_conformance
