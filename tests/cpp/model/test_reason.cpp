// Why a task was preempted or moved, as the trace says it (sched/reason.hpp): every
// involuntary switch and every migration carries the kernel function behind it, and each
// rule's own situation gives its own reason.
#include "model_helpers.hpp"
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/model/simulate.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <map>
#include <string>
#include <vector>

using namespace libsched;

namespace test_reason {

namespace {

using namespace model_test;

constexpr duration ms = 1'000'000;

scenario one_cpu(kernel_version k, duration length = 1'000 * ms) {
    scenario sc;
    sc.name = "reason";
    sc.machine.kernel = k;
    sc.machine.hz = 250;
    sc.length = length;
    return sc;
}

// What the trace says of one run: per task, its preemptions by reason, and its migrations
// by reason; and whether each traced event has a reason exactly when it should.
struct reasons {
    std::map<std::string, std::map<std::string, std::uint64_t>> preempted, migrated;
    std::map<std::string, std::uint64_t> preempted_by; // next task of a wakeup_preempt
    bool consistent = true;
    repetition_result result;

    std::uint64_t preemptions(const std::string& task) const {
        std::uint64_t n = 0;
        if (const auto it = preempted.find(task); it != preempted.end())
            for (const auto& [why, count] : it->second)
                n += count;
        return n;
    }
};

reasons run_traced(const scenario& sc) {
    reasons out;
    run_options opt;
    opt.trace = [&out](const trace_event& e) {
        const std::string comm(e.comm);
        const std::string why(e.reason);
        if (e.kind == trace_kind::sched_migrate_task) {
            out.consistent = out.consistent && !why.empty();
            ++out.migrated[comm][why];
        } else if (e.kind == trace_kind::sched_switch && e.prev_state == 'R' && e.pid != 0) {
            out.consistent = out.consistent && !why.empty();
            ++out.preempted[comm][why];
            if (why == "wakeup_preempt")
                ++out.preempted_by[std::string(e.next_comm)];
        } else {
            out.consistent = out.consistent && why.empty();
        }
    };
    run_result r = simulate(sc, opt);
    REQUIRE(r.repetitions.size() == 1);
    out.result = r.repetitions.front();
    return out;
}

// A task's counts by reason in the result (the window's), by name, the zeros left out.
template <class Reason, std::size_t N>
std::map<std::string, std::uint64_t> by_name(const std::array<std::uint64_t, N>& counts) {
    std::map<std::string, std::uint64_t> out;
    for (std::size_t i = 0; i < N; ++i)
        if (counts[i] > 0)
            out[std::string{reason_name(static_cast<Reason>(i))}] = counts[i];
    return out;
}

// Every involuntary switch of every task is a traced preemption with a reason, and the
// result counts the same by reason (the window being the whole run).
void check_every_preemption_has_a_reason(const reasons& r) {
    CHECK(r.consistent);
    for (const task_result& t : r.result.tasks) {
        INFO(t.name);
        CHECK(r.preemptions(t.name) == t.nivcsw);
        CHECK(t.window_preempted_by[0] == 0); // resched_reason::none
        const auto preempted = r.preempted.find(t.name);
        CHECK(by_name<resched_reason>(t.window_preempted_by) ==
              (preempted == r.preempted.end() ? std::map<std::string, std::uint64_t>{}
                                              : preempted->second));
        const auto migrated = r.migrated.find(t.name);
        CHECK(by_name<migrate_reason>(t.window_migrated_by) ==
              (migrated == r.migrated.end() ? std::map<std::string, std::uint64_t>{}
                                            : migrated->second));
    }
}

} // namespace

TEST_CASE("two burners: EEVDF ends turns in update_deadline, old CFS in check_preempt_tick") {
    for (const kernel_version k : {kernel_version{5, 15}, kernel_version{6, 6}}) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        sc.tasks = {burner("a"), burner("b")};
        const reasons r = run_traced(sc);
        check_every_preemption_has_a_reason(r);
        const std::string expected = k.major == 5 ? "check_preempt_tick" : "update_deadline";
        for (const char* name : {"a", "b"}) {
            INFO(name);
            CHECK(r.preempted.at(name).size() == 1);
            CHECK(r.preempted.at(name).count(expected) == 1);
            CHECK(r.preemptions(name) > 50); // a turn of a few ticks in a second
        }
    }
}

TEST_CASE("a woken task's preemption is wakeup_preempt, and names the wakee as next") {
    scenario sc = one_cpu({6, 6});
    sc.tasks = {burner("hog"), periodic("sleeper", 1 * ms, 9 * ms)};
    const reasons r = run_traced(sc);
    check_every_preemption_has_a_reason(r);
    // The sleeper (1 ms bursts, shorter than its slice) never loses the CPU.
    CHECK(r.preemptions("sleeper") == 0);
    const std::uint64_t by_wakeup = r.preempted.at("hog").count("wakeup_preempt")
                                        ? r.preempted.at("hog").at("wakeup_preempt")
                                        : 0;
    CHECK(by_wakeup > 0);
    CHECK(r.preempted_by.size() == 1);
    CHECK(r.preempted_by.count("sleeper") == 1);
    for (const auto& [why, count] : r.preempted.at("hog"))
        CHECK((why == "wakeup_preempt" || why == "update_deadline"));
}

TEST_CASE("RT: SCHED_RR turns end in task_tick_rt, throttling in sched_rt_runtime_exceeded") {
    scenario rr = one_cpu({6, 6});
    rr.machine.sched_rt_runtime = runtime_inf;
    rr.tasks = {rt_burner("rr1", sched_policy::rr, 10), rt_burner("rr2", sched_policy::rr, 10)};
    const reasons turns = run_traced(rr);
    check_every_preemption_has_a_reason(turns);
    for (const char* name : {"rr1", "rr2"}) {
        INFO(name);
        CHECK(turns.preempted.at(name).size() == 1);
        CHECK(turns.preempted.at(name).count("task_tick_rt") == 1);
        CHECK(turns.preemptions(name) >= 4); // 100 ms turns in a second
    }

    // Before the fair server (6.12), RT throttling stops the FIFO task for the last 50 ms of
    // each second, and the fair task loses the CPU when the period timer lets it run again.
    scenario throttled = one_cpu({6, 6}, 3'000 * ms);
    throttled.tasks = {rt_burner("fifo", sched_policy::fifo, 50), burner("fair")};
    const reasons r = run_traced(throttled);
    check_every_preemption_has_a_reason(r);
    CHECK(r.preempted.at("fifo").size() == 1);
    CHECK(r.preempted.at("fifo").at("sched_rt_runtime_exceeded") == 3);
    CHECK(r.preempted.at("fair").size() == 1);
    CHECK(r.preempted.at("fair").count("sched_rt_period_timer") == 1);
}

TEST_CASE("CFS bandwidth: a group's task stops in account_cfs_rq_runtime at each throttle") {
    for (const kernel_version k : {kernel_version{6, 6}, kernel_version{6, 18}}) {
        INFO(k.str());
        scenario sc = one_cpu(k);
        cgroup_spec g = cgroup("g");
        g.quota = 20 * ms; // of each 100 ms period
        sc.cgroups = {g};
        sc.tasks = {in_group(burner("limited"), "g"), burner("free")};
        const reasons r = run_traced(sc);
        check_every_preemption_has_a_reason(r);
        // cpu.stat counts a throttled period when its timer ends it: the last one ends with
        // the run, uncounted.
        const std::uint64_t throttles = group(r.result, "g").cpu_stat.nr_throttled;
        CHECK(throttles >= 9);
        CHECK(r.preempted.at("limited").at("account_cfs_rq_runtime") == throttles + 1);
        // The refill reschedules only an idle CPU (unthrottle_cfs_rq()): the free burner
        // loses the CPU at its slice's end or to the unthrottled task's wakeup only.
        for (const auto& [why, count] : r.preempted.at("free"))
            CHECK((why == "update_deadline" || why == "wakeup_preempt"));
    }
}

scenario two_cpus() {
    scenario sc = one_cpu({6, 12}, 3'000 * ms);
    const auto two = preset_topology("2c");
    REQUIRE(two.has_value());
    sc.machine.cpus = two->nr_cpus();
    sc.machine.topology = *two;
    return sc;
}

// Each task's migrations by reason, all tasks' together, checked against nr_migrations.
std::map<std::string, std::uint64_t> migrations(const reasons& r) {
    std::map<std::string, std::uint64_t> all;
    for (const task_result& t : r.result.tasks) {
        std::uint64_t traced = 0;
        if (const auto it = r.migrated.find(t.name); it != r.migrated.end())
            for (const auto& [why, count] : it->second) {
                traced += count;
                all[why] += count;
            }
        INFO(t.name);
        CHECK(traced == t.nr_migrations);
    }
    return all;
}

TEST_CASE("migrations: balancing, and an affinity change moving a running task") {
    scenario sc = two_cpus();
    task_spec moved = burner("moved");
    moved.affinity = {0};
    moved.set_affinity = {{1'500 * ms, {1}}}; // running on CPU 0: the stopper moves it
    sc.tasks = {burner("b", 0, 3), moved};
    const reasons r = run_traced(sc);
    check_every_preemption_has_a_reason(r);
    const std::map<std::string, std::uint64_t> all = migrations(r);
    CHECK(r.migrated.at("moved").size() == 1); // pinned before and after
    CHECK(r.migrated.at("moved").at("set_cpus_allowed") == 1);
    // Four burners on two CPUs, one pinned: only the balancer moves the other three.
    CHECK((all.count("load_balance") + all.count("newidle_balance") +
           all.count("active_load_balance")) > 0);
    CHECK(all.count("select_task_rq") == 0);
    CHECK(all.at("set_cpus_allowed") == 1);
}

TEST_CASE("migrations: a waking task placed on the idle CPU is moved by select_task_rq") {
    scenario sc = two_cpus();
    task_spec busy = burner("busy");
    busy.affinity = {0};
    task_spec p = periodic("p", 1 * ms, 3 * ms);
    p.affinity = {0};
    p.set_affinity = {{1'500 * ms, {0, 1}}}; // asleep or beside the burner: it moves at a wakeup
    sc.tasks = {busy, p};
    const reasons r = run_traced(sc);
    check_every_preemption_has_a_reason(r);
    const std::map<std::string, std::uint64_t> all = migrations(r);
    // CPU 1 stays idle, so p moves there once and wakes there from then on.
    CHECK(r.migrated.at("p").size() == 1);
    CHECK(r.migrated.at("p").at("select_task_rq") == 1);
    CHECK(all.size() == 1);
}

TEST_CASE("the result's counts by reason are the window's: they add up to its switches") {
    scenario sc = two_cpus();
    sc.window_start = 1'000 * ms;
    sc.window_end = 2'500 * ms;
    sc.tasks = {burner("b", 0, 3), periodic("p", 1 * ms, 3 * ms)};
    const reasons r = run_traced(sc);
    std::uint64_t preempted = 0, moved = 0;
    for (const task_result& t : r.result.tasks) {
        INFO(t.name);
        std::uint64_t by_reason = 0;
        for (const std::uint64_t n : t.window_preempted_by)
            by_reason += n;
        CHECK(by_reason == t.window_nivcsw);
        by_reason = 0;
        for (const std::uint64_t n : t.window_migrated_by)
            by_reason += n;
        CHECK(by_reason == t.window_nr_migrations);
        preempted += t.window_nivcsw;
        moved += t.window_nr_migrations;
    }
    // The window is a part of the run: fewer than the whole run's, but some.
    std::uint64_t traced = 0;
    for (const auto& [name, counts] : r.preempted)
        for (const auto& [why, n] : counts)
            traced += n;
    CHECK(preempted > 0);
    CHECK(preempted < traced);
    CHECK(moved > 0);
}

} // namespace test_reason
