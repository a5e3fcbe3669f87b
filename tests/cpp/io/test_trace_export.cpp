// The schedule written out: the Perfetto / Chrome trace (io/perfetto_trace.hpp) against the
// accounting of the same run, the run delays against the trace's own events, the latency
// table (io/latency_report.hpp) and the timehist lines (io/timehist.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <libsched/io/latency_report.hpp>
#include <libsched/io/perfetto_trace.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/io/timehist.hpp>
#include <libsched/model/simulate.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace libsched;

namespace test_trace_export {

namespace {

scenario bundled(const std::string& relative) {
    return load_scenario(std::string{LIBSCHED_SOURCE_DIR} + "/examples/" + relative);
}

// A trace's timestamp (µs with three decimals) back in ns.
sim_time ns_of(const nlohmann::json& us) {
    return std::llround(us.get<double>() * 1000);
}

struct traced_run {
    run_result result;
    nlohmann::json trace;
    std::vector<trace_event> events; // with their names copied (the views die with the call)
    std::vector<std::string> names;
};

traced_run run_traced(const scenario& sc, int repetitions) {
    traced_run out;
    std::ostringstream text;
    perfetto_trace perfetto(text, sc);
    run_options opt;
    opt.repetitions = repetitions;
    auto sink = perfetto.sink();
    std::vector<std::pair<std::string, std::string>> names;
    opt.trace = [&](const trace_event& e) {
        sink(e);
        out.events.push_back(e);
        names.emplace_back(e.comm, e.next_comm);
    };
    out.result = simulate(sc, opt);
    perfetto.finish(sc.length);
    for (std::size_t i = 0; i < out.events.size(); ++i) {
        out.names.push_back(names[i].first);
        out.events[i].comm = {};
        out.events[i].next_comm = {};
    }
    out.trace = nlohmann::json::parse(text.str());
    return out;
}

struct slice {
    sim_time start, end;
    int pid;
    std::string name, end_state;
};

// The X slices of one repetition, by CPU (from the thread names), in time order.
std::map<int, std::vector<slice>> slices_by_cpu(const nlohmann::json& trace, int repetition) {
    const int pid = perfetto_trace::process_id(repetition);
    std::map<int, int> cpu_of_tid;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "M" && e["pid"] == pid && e["name"] == "thread_name")
            cpu_of_tid[e["tid"].get<int>()] =
                std::stoi(e["args"]["name"].get<std::string>().substr(4)); // "CPU n"
    std::map<int, std::vector<slice>> out;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] != "X" || e["pid"] != pid)
            continue;
        const sim_time start = ns_of(e["ts"]);
        out[cpu_of_tid.at(e["tid"].get<int>())].push_back(
            {start, start + ns_of(e["dur"]), e["args"]["pid"].get<int>(),
             e["name"].get<std::string>(), e["args"]["end_state"].get<std::string>()});
    }
    for (auto& [cpu, v] : out)
        std::sort(v.begin(), v.end(),
                  [](const slice& a, const slice& b) { return a.start < b.start; });
    return out;
}

bool is_user(const slice& s) {
    return s.pid >= 1000;
} // the scenario's tasks

void check_trace_against_accounting(const scenario& sc, int repetitions, bool exact_runtime) {
    const traced_run run = run_traced(sc, repetitions);
    REQUIRE(run.result.repetitions.size() == static_cast<std::size_t>(repetitions));
    for (int r = 0; r < repetitions; ++r) {
        INFO("repetition " << r);
        const repetition_result& rep = run.result.repetitions[static_cast<std::size_t>(r)];
        const auto by_cpu = slices_by_cpu(run.trace, r);
        std::map<int, std::uint64_t> preempted, left;
        std::map<int, duration> ran;
        for (const cpu_result& c : rep.cpus) {
            INFO("cpu " << c.cpu);
            const auto it = by_cpu.find(c.cpu);
            const std::vector<slice> none;
            const std::vector<slice>& slices = it == by_cpu.end() ? none : it->second;
            // A CPU runs one task at a time; every switch ends a task's slice or the idle
            // task's (a slice that does not start where the previous one ended).
            std::uint64_t switches = 0;
            duration busy = 0;
            for (std::size_t i = 0; i < slices.size(); ++i) {
                const slice& s = slices[i];
                REQUIRE(s.start <= s.end); // a task may leave at once (an exit)
                if (i + 1 < slices.size())
                    REQUIRE(s.end <= slices[i + 1].start);
                if (i == 0 || slices[i - 1].end != s.start)
                    ++switches; // from idle
                if (s.end_state == "running")
                    REQUIRE(s.end == sc.length);
                else
                    ++switches;
                busy += s.end - s.start;
                if (!is_user(s))
                    continue;
                ran[s.pid] += s.end - s.start;
                if (s.end_state == "R")
                    ++preempted[s.pid];
                else if (s.end_state != "running")
                    ++left[s.pid];
            }
            CHECK(switches == c.nr_switches);
            CHECK(busy == c.busy);
        }
        for (const task_result& t : rep.tasks) {
            INFO(t.name);
            CHECK(preempted[t.pid] == t.nivcsw);
            CHECK(left[t.pid] == t.nvcsw);
            if (exact_runtime)
                CHECK(ran[t.pid] == t.sum_exec_runtime);
            else
                CHECK(ran[t.pid] >= t.sum_exec_runtime);
        }
    }
}

} // namespace

TEST_CASE("the Perfetto trace is JSON naming its processes and CPU tracks") {
    const scenario sc = bundled("scenarios/three-on-two.toml");
    const traced_run run = run_traced(sc, 2);
    const nlohmann::json& events = run.trace["traceEvents"];
    std::map<std::string, int> names;
    for (const auto& e : events) {
        REQUIRE(e.contains("ph"));
        REQUIRE(e.contains("pid"));
        if (e["ph"] == "M")
            ++names[e["name"].get<std::string>() + " " + e["args"].dump()];
        else
            REQUIRE(ns_of(e["ts"]) < sc.length);
    }
    CHECK(names.at(R"(process_name {"name":"CPUs, repetition 0"})") == 1);
    CHECK(names.at(R"(process_name {"name":"CPUs, repetition 1"})") == 1);
    CHECK(names.at(R"(thread_name {"name":"CPU 1"})") == 2);
    CHECK(run.trace["otherData"]["scenario"] == "three-on-two");
    // Every wakeup and migration of the run is an instant on the CPU it happened on.
    std::size_t instants = 0, wakeups_and_moves = 0;
    for (const auto& e : events)
        instants += e["ph"] == "i" ? 1 : 0;
    for (const trace_event& e : run.events)
        wakeups_and_moves += e.kind != trace_kind::sched_switch ? 1 : 0;
    CHECK(instants == wakeups_and_moves);
}

TEST_CASE("the trace's slices never overlap and account for every switch and nanosecond") {
    SECTION("one CPU, a sleeper against a burner, irq time not accounted: runtime exact") {
        scenario sc = bundled("scenarios/sleeper-vs-hog.toml");
        sc.machine.irq_time_accounting = false;
        check_trace_against_accounting(sc, 1, true);
    }
    SECTION("affinity changes: the stoppers run") {
        scenario sc = bundled("scenarios/affinity-change.toml");
        sc.machine.irq_time_accounting = false;
        check_trace_against_accounting(sc, 1, true);
    }
    SECTION("cpu.max throttling, irq time accounted: a task's slices hold its runtime") {
        check_trace_against_accounting(bundled("scenarios/cpu-max.toml"), 1, false);
    }
    SECTION("the seed 000 replay, every repetition") {
        const scenario sc = bundled("replays/seed000-6.18-base.toml");
        check_trace_against_accounting(sc, sc.repetitions, false);
    }
}

TEST_CASE("run delay: N burners on one CPU wait (N - 1) x the window between them") {
    const int n = GENERATE(2, 3, 5);
    const kernel_version kernel = GENERATE((kernel_version{5, 15}), (kernel_version{6, 12}));
    scenario sc;
    sc.name = "burners";
    sc.length = 3 * nsec_per_sec;
    sc.window_start = nsec_per_sec / 2;
    sc.machine.kernel = kernel;
    sc.machine.irq_time_accounting = false;
    task_spec b;
    b.name = "b";
    b.count = n;
    sc.tasks = {b};
    const repetition_result rep = simulate(sc).repetitions.front();
    const duration window = sc.window_stop() - sc.window_start;
    duration delay = 0, runtime = 0, edges = 0;
    for (const task_result& t : rep.tasks) {
        REQUIRE(!t.run_delay.empty());
        delay += static_cast<duration>(t.run_delay.sum());
        runtime += t.window_runtime;
        // A wait that ends just inside the window counts whole, one going on at its end
        // not at all: each task is off by less than its longest wait.
        edges += t.run_delay.max();
    }
    // Conservation: the CPU ran the tasks or idled.
    CHECK(runtime + rep.cpus.front().window_idle == window);
    CHECK(std::abs(delay - (n - 1) * window) <= edges);
}

TEST_CASE("the run delays and the latency table agree with the trace's events") {
    const scenario sc =
        GENERATE(bundled("scenarios/sleeper-vs-hog.toml"), bundled("scenarios/three-on-two.toml"),
                 bundled("scenarios/affinity-change.toml"));
    INFO(sc.name);
    const traced_run run = run_traced(sc, 1);
    // perf sched latency's rule from the events alone: a task waits from its wakeup, its
    // fork or its preemption to the switch to it.
    struct expected {
        std::vector<duration> delays;
        sim_time max_end = -1;
        std::uint64_t switches = 0;
    };
    std::map<int, sim_time> queued;
    std::map<int, expected> want;
    const auto in_window = [&](sim_time t) { return t > sc.window_start && t <= sc.window_stop(); };
    for (const trace_event& e : run.events) {
        if (e.kind == trace_kind::sched_wakeup || e.kind == trace_kind::sched_wakeup_new)
            queued[e.pid] = e.time;
        if (e.kind != trace_kind::sched_switch)
            continue;
        if (e.pid >= 1000 && in_window(e.time))
            ++want[e.pid].switches;
        if (e.pid >= 1000 && e.prev_state == 'R')
            queued[e.pid] = e.time;
        if (e.next_pid < 1000 || !in_window(e.time))
            continue;
        expected& x = want[e.next_pid];
        const duration d = e.time - queued.at(e.next_pid);
        if (x.delays.empty() || d > *std::max_element(x.delays.begin(), x.delays.end()))
            x.max_end = e.time;
        x.delays.push_back(d);
    }
    const std::vector<latency_row> rows = latency_rows(run.result.repetitions.front());
    REQUIRE(rows.size() == run.result.repetitions.front().tasks.size());
    for (const task_result& t : run.result.repetitions.front().tasks) {
        INFO(t.name);
        const expected& x = want[t.pid];
        std::vector<duration> got(t.run_delay.begin(), t.run_delay.end());
        std::vector<duration> delays = x.delays;
        std::sort(delays.begin(), delays.end());
        if (t.run_delay.exact())
            CHECK(got == delays);
        const auto row = std::find_if(rows.begin(), rows.end(),
                                      [&](const latency_row& r) { return r.pid == t.pid; });
        REQUIRE(row != rows.end());
        duration total = 0;
        for (const duration d : delays)
            total += d;
        CHECK(row->delays == delays.size());
        CHECK(row->total_delay == total);
        CHECK(row->max_delay == (delays.empty() ? 0 : delays.back()));
        CHECK(row->max_delay_end == x.max_end);
        CHECK(row->switches == x.switches);
        CHECK(row->runtime == t.window_runtime);
    }
    // perf's default order: average delay, then max delay, switches, runtime, largest first.
    for (std::size_t i = 1; i < rows.size(); ++i)
        CHECK(rows[i - 1].avg_delay() >= rows[i].avg_delay());
}

TEST_CASE("the latency table prints perf's columns, delays in ms, and a total") {
    repetition_result rep;
    task_result a, b;
    a.name = "a";
    a.pid = 1000;
    a.window_runtime = 2'500'000;
    a.window_nivcsw = 3;
    a.run_delay = {1'000'000, 3'000'000};
    a.run_delay_max_at = 1'503'000'000;
    b.name = "b";
    b.pid = 1001;
    b.window_runtime = 500'000;
    b.window_nvcsw = 1;
    rep.tasks = {b, a};
    std::ostringstream out;
    print_latency_table(out, rep);
    INFO(out.str());
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(out.str());
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        rows.emplace_back();
        for (std::string w; words >> w;)
            rows.back().push_back(w);
    }
    REQUIRE(rows.size() == 5); // header, rule, a, b, TOTAL
    // a: average 2 ms, max 3 ms from 1.500 s to 1.503 s, listed first; b never waited.
    CHECK(rows[2] == std::vector<std::string>{"a:1000", "2.500", "3", "2.000", "3.000", "1.500000",
                                              "1.503000"});
    CHECK(rows[3] == std::vector<std::string>{"b:1001", "0.500", "1", "-", "-", "-", "-"});
    CHECK(rows[4] == std::vector<std::string>{"TOTAL", "3.000", "4"});
}

TEST_CASE("timehist prints a line per switch-out with wait, scheduling delay and run time") {
    // Two burners: a runs from 1 us, b takes over at 4.003 ms, and so on (kernel 6.12,
    // HZ 250: a 4 ms tick, the 3 ms slice ends at a tick).
    const scenario sc = bundled("scenarios/two-burners.toml");
    std::ostringstream out;
    timehist_trace timehist(out, sc.machine.cpus);
    run_options opt;
    opt.trace = timehist.sink();
    simulate(sc, opt);
    std::istringstream lines(out.str());
    std::vector<std::string> v;
    for (std::string l; std::getline(lines, l) && v.size() < 6;)
        v.push_back(l);
    REQUIRE(v.size() == 6);
    CHECK(v[0] == "repetition 0");
    CHECK(v[1].find("wait time") != std::string::npos);
    // a forked at 0 and ran from 1 us to 4.003 ms; b waited from 0 to then.
    CHECK(v[3] == "       0.004003    [0]  a[1000]                       0.001      0.001      "
                  "4.002");
    CHECK(v[4] == "       0.012003    [0]  b[1001]                       4.003      4.003      "
                  "8.000");
    CHECK(v[5] == "       0.016003    [0]  a[1000]                       8.000      8.000      "
                  "4.000");
}

} // namespace test_trace_export
