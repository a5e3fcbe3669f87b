// The steps behaviour (rt-app's events): the file format, its errors, and what the programs
// do when they run, against hand-derived expectations.
#include "same_result.hpp"
#include <catch2/catch.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/io/rt_app.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/stats/theory.hpp>
#include <string>

using namespace libsched;

namespace test_steps {

namespace {

constexpr duration us = nsec_per_usec;
constexpr duration ms = nsec_per_msec;

// A scenario of `length` on `cpus` CPUs with the given [[tasks]] tables.
scenario parse(const std::string& tasks, const std::string& length = "1s", int cpus = 1) {
    return parse_scenario("name = \"steps\"\nlength = \"" + length +
                              "\"\n[machine]\ncpus = " + std::to_string(cpus) + "\n" + tasks,
                          "steps.toml");
}

repetition_result run_one(const scenario& sc) {
    return simulate(sc).repetitions.front();
}

const task_result& find(const repetition_result& r, const std::string& name) {
    for (const task_result& t : r.tasks)
        if (t.name == name)
            return t;
    FAIL("no task " << name);
    return r.tasks.front();
}

// The errors parse_scenario() gives for the tasks tables, as "field: reason" lines.
std::string errors_of(const std::string& tasks) {
    try {
        parse(tasks);
    } catch (const scenario_error& e) {
        std::string out;
        for (const auto& entry : e.errors())
            out += entry.field + ": " + entry.reason + "\n";
        return out;
    }
    FAIL("accepted:\n" << tasks);
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Task a runs a_run, posts to b and waits for b; b waits, runs b_run and posts back.
const std::string ping_pong = R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", steps = [{ run = "1ms" }, { sem_post = "to_b" }, { sem_wait = "to_a" }] }
[[tasks]]
name = "b"
behaviour = { type = "steps", steps = [{ sem_wait = "to_b" }, { run = "3ms" }, { sem_post = "to_a" }] }
)";

} // namespace

TEST_CASE("steps and phases arrive in the scenario as written") {
    const scenario sc = parse(R"(
[[tasks]]
name = "w"
count = 2
[tasks.behaviour]
type = "steps"
loop = 3
[[tasks.behaviour.phases]]
loop = 10
steps = [{ run = { dist = "uniform", low = "1ms", high = "2ms" } }, { timer = "10ms", ref = "t", mode = "relative" }]
[[tasks.behaviour.phases]]
steps = [{ runtime = "5ms" }, { sleep = "1ms" }, { suspend = true }, { resume = "w.1" }, { timer = "1ms" }]
)");
    const behaviour_spec& b = sc.tasks[0].behaviour;
    REQUIRE(b.type == behaviour_spec::kind::steps);
    CHECK(b.steps.loop == 3);
    CHECK(b.steps.written_as_phases);
    REQUIRE(b.steps.phases.size() == 2);
    CHECK(b.steps.phases[0].loop == 10);
    CHECK(b.steps.phases[1].loop == 1);
    const auto& p0 = b.steps.phases[0].steps;
    REQUIRE(p0.size() == 2);
    CHECK(p0[0].type == step_spec::kind::run);
    CHECK(p0[0].time.type == distribution::kind::uniform);
    CHECK(p0[0].time.b == 2 * ms);
    CHECK(p0[1].type == step_spec::kind::timer);
    CHECK(p0[1].name == "t");
    CHECK(p0[1].relative);
    const auto& p1 = b.steps.phases[1].steps;
    REQUIRE(p1.size() == 5);
    CHECK(p1[0].type == step_spec::kind::runtime);
    CHECK(p1[0].time.a == 5 * ms);
    CHECK(p1[2].type == step_spec::kind::suspend);
    CHECK(p1[3].name == "w.1");
    CHECK(p1[4].name == "unknown"); // rt-app's default ref: one timer shared by all
    CHECK(p1[4].relative);          // and its default mode
}

TEST_CASE("bad steps are errors naming the field") {
    const std::string head = "[[tasks]]\nname = \"a\"\n[tasks.behaviour]\ntype = \"steps\"\n";
    CHECK(contains(errors_of(head + "steps = [{ run = \"1ms\" }, { rnu = \"1ms\" }]"),
                   "tasks[0].behaviour.steps[1]: no step kind: a step is one of run, runtime"));
    CHECK(contains(errors_of(head + "steps = [{ rnu = \"1ms\" }]"),
                   "tasks[0].behaviour.steps[0].rnu: unknown key; did you mean \"run\"?"));
    CHECK(contains(errors_of(head + "steps = [{ run = \"1ms\", sleep = \"1ms\" }]"),
                   "tasks[0].behaviour.steps[0]: two step kinds, run and sleep: one per step"));
    CHECK(contains(errors_of(head + "steps = [{ run = \"1ms\", ref = \"x\" }]"),
                   "tasks[0].behaviour.steps[0].ref: unknown key"));
    CHECK(contains(errors_of(head + "steps = [{ resume = \"x\" }]"),
                   "tasks[0].behaviour.steps[0].resume: no task named \"x\""));
    CHECK(contains(errors_of("[[tasks]]\nname = \"alpha\"\nbehaviour = { type = \"steps\", "
                             "steps = [{ resume = \"alpah\" }] }"),
                   "no task named \"alpah\"; did you mean \"alpha\"?"));
    CHECK(contains(errors_of(head + "steps = [{ run = \"1ms\" }]\nphases = []"),
                   "tasks[0].behaviour.phases: a steps behaviour has steps or phases, not both"));
    CHECK(contains(errors_of(head), "tasks[0].behaviour.steps: missing"));
    CHECK(contains(errors_of(head + "loop = 0\nsteps = [{ run = \"1ms\" }]"),
                   "tasks[0].behaviour.loop: 0: a loop count is -1 (for ever) or at least 1"));
    CHECK(contains(errors_of(head + "loop = -2\nsteps = [{ run = \"1ms\" }]"),
                   "tasks[0].behaviour.loop: -2"));
    CHECK(contains(errors_of(head + "[[tasks.behaviour.phases]]\nloop = 0\nsteps = [{ run = "
                                    "\"1ms\" }]"),
                   "tasks[0].behaviour.phases[0].loop: 0"));
    CHECK(contains(errors_of(head + "steps = [{ yield = false }]"),
                   "tasks[0].behaviour.steps[0].yield: false"));
    CHECK(contains(errors_of(head + "steps = [{ suspend = false }]"),
                   "tasks[0].behaviour.steps[0].suspend: false"));
    CHECK(contains(errors_of(head + "steps = [{ run = \"0ms\" }]"),
                   "tasks[0].behaviour.steps[0].run: 0s: a task must run for some time"));
    CHECK(contains(errors_of(head + "steps = [{ timer = \"0ms\" }]"),
                   "tasks[0].behaviour.steps[0].timer: 0s is not positive"));
    CHECK(contains(errors_of(head + "steps = []"),
                   "tasks[0].behaviour.steps: no steps: a phase needs at least one"));
    CHECK(contains(errors_of(head + "steps = [{ timer = \"1ms\", mode = \"late\" }]"),
                   "tasks[0].behaviour.steps[0].mode: \"late\" is not one of"));
    CHECK(contains(errors_of("[[tasks]]\nname = \"a\"\nbehaviour = \"steps\""),
                   "tasks[0].behaviour: \"steps\" needs its steps"));
}

TEST_CASE("a resume names an instance or every instance of an entry") {
    const std::string tasks = R"(
[[tasks]]
name = "w"
count = 2
behaviour = { type = "steps", steps = [{ suspend = true }] }
[[tasks]]
name = "m"
behaviour = { type = "steps", loop = 1, steps = [{ run = "1ms" }, { resume = "TARGET" }] }
)";
    const auto passes = [&](const std::string& target) {
        std::string text = tasks;
        text.replace(text.find("TARGET"), 6, target);
        const repetition_result r = run_one(parse(text, "10ms"));
        return std::pair{*find(r, "w.0").loops, *find(r, "w.1").loops};
    };
    CHECK(passes("w") == std::pair<std::uint64_t, std::uint64_t>{1, 1});
    CHECK(passes("w.1") == std::pair<std::uint64_t, std::uint64_t>{0, 1});
    CHECK(contains(errors_of(tasks.substr(0, tasks.find("TARGET")) + "w.2\" }] }"),
                   "no task named \"w.2\""));
}

TEST_CASE("a sem_wait of a semaphore nobody posts is a warning") {
    const auto warnings = validate(parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", steps = [{ sem_wait = "never" }] }
)"));
    REQUIRE(warnings.size() == 1);
    CHECK(contains(warnings[0], "tasks[0].behaviour.steps[0].sem_wait: no step posts semaphore"));
}

TEST_CASE("a pipe_read of a pipe nobody writes is a warning, a pipe is not a semaphore") {
    const auto warnings = validate(parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", steps = [{ sem_post = "x" }, { pipe_read = "x" }] }
)"));
    REQUIRE(warnings.size() == 1);
    CHECK(
        contains(warnings[0], "tasks[0].behaviour.steps[1].pipe_read: no step writes pipe \"x\""));
    CHECK(contains(errors_of(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", steps = [{ pipe_write = "" }] }
)"),
                   "tasks[0].behaviour.steps[0].pipe_write: an empty name"));
    // The reader of pipe "x" waits for ever: the post went to semaphore "x".
    const repetition_result r = run_one(parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", loop = 1, steps = [{ sem_post = "x" }, { pipe_write = "y" }] }
[[tasks]]
name = "b"
behaviour = { type = "steps", steps = [{ pipe_read = "x" }, { run = "1ms" }] }
[[tasks]]
name = "c"
behaviour = { type = "steps", loop = 1, steps = [{ pipe_read = "y" }, { sem_wait = "x" }] }
)",
                                              "100ms"));
    CHECK(*find(r, "b").loops == 0);
    CHECK(find(r, "b").sum_exec_runtime == 0);
    CHECK(*find(r, "c").loops == 1);
}

TEST_CASE("a pipe's wakeup is WF_SYNC: the reader follows a writer running alone on its CPU") {
    // Two writers, each alone on its CPU, write every 1 ms of wall time; the reader runs
    // 50 us per message. wake_affine_idle(): with sync, the waker's CPU runs only the waker,
    // so the reader goes there (both CPUs busy, none idle to find instead), changing CPU
    // whenever the other writer wakes it. Through a semaphore (no sync) wake_affine_weight()
    // keeps it where it is: with the writer's load plus its own this CPU looks busier.
    const auto run = [](const std::string& write, const std::string& read) {
        return run_one(parse(R"(
[[tasks]]
name = "reader"
behaviour = { type = "steps", steps = [{ )" +
                                 read + R"( = "p" }, { runtime = "50us" }] }
[[tasks]]
name = "w0"
affinity = [0]
behaviour = { type = "steps", steps = [{ runtime = "1ms" }, { )" +
                                 write + R"( = "p" }] }
[[tasks]]
name = "w1"
affinity = [1]
behaviour = { type = "steps", steps = [{ runtime = "1ms" }, { )" +
                                 write + R"( = "p" }] }
)",
                             "2s", 2));
    };
    const repetition_result with_pipe = run("pipe_write", "pipe_read");
    const repetition_result with_sem = run("sem_post", "sem_wait");
    const task_result& piped = find(with_pipe, "reader");
    const task_result& posted = find(with_sem, "reader");
    REQUIRE(*piped.loops > 1000);
    CHECK(piped.nr_migrations > *piped.loops / 4);
    CHECK(posted.nr_migrations <= 2);
}

TEST_CASE("two tasks ping-ponging on one CPU make a pass per run_a + run_b") {
    // Old CFS, EEVDF, and EEVDF with delayed dequeue (a blocked task may stay queued until
    // its wakeup requeues it).
    for (const kernel_version k :
         {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 12}}) {
        INFO(k.str());
        scenario sc = parse(ping_pong);
        sc.machine.kernel = k;
        const repetition_result r = run_one(sc);
        // Each pass is 4 ms of CPU time. The blocking switches are immediate; the only other
        // wall time is the tick's own (tick_irq, taken out of the tasks' clock): HZ ticks of
        // 2 us per second stretch the window's work by at most HZ * tick_irq per second.
        const double window = 1.0 * nsec_per_sec;
        const double cycle = 4.0 * ms;
        const double irq_share = 250.0 * static_cast<double>(sc.machine.tick_irq_ns) / nsec_per_sec;
        for (const char* name : {"a", "b"}) {
            INFO(name);
            const task_result& t = find(r, name);
            REQUIRE(t.loops);
            CHECK(static_cast<double>(*t.loops) <= window / cycle);
            CHECK(static_cast<double>(*t.loops) >= window * (1 - irq_share) / cycle - 1);
            CHECK(t.loop_time.size() == *t.loops);
        }
        // b's pass counts from the post that released it: its 3 ms run, plus at most one tick
        // (4 ms apart) inside it.
        const task_result& b = find(r, "b");
        CHECK(b.loop_time.min() >= 3 * ms);
        CHECK(b.loop_time.max() <= 3 * ms + sc.machine.tick_irq_ns);
        // a's pass is the whole cycle.
        CHECK(find(r, "a").loop_time.min() >= 4 * ms);
    }
}

TEST_CASE("a task woken from another CPU pays the IPI, one woken by its own timer does not") {
    // b on CPU 1 is woken by a's sem_post on CPU 0: the IPI (ipi_latency), the exit from the
    // idle state CPU 1 waits in, then the reschedule.
    scenario sc = parse(R"(
[[tasks]]
name = "a"
affinity = [0]
behaviour = { type = "steps", steps = [{ run = "1ms" }, { sem_post = "to_b" }, { sleep = "1ms" }] }
[[tasks]]
name = "b"
affinity = [1]
behaviour = { type = "steps", steps = [{ sem_wait = "to_b" }, { run = "100us" }] }
)",
                        "100ms", 2);
    const repetition_result r = run_one(sc);
    const machine_spec& m = sc.machine;
    const duration remote = m.ipi_latency_ns + m.idle_exit_latency_ns + m.resched_latency_ns;
    const task_result& b = find(r, "b");
    REQUIRE(b.wakeup_latency.size() > 0);
    CHECK(b.wakeup_latency.min() == remote);
    CHECK(b.wakeup_latency.max() == remote);
    // a is woken by its own sleep timer, on its CPU once that has left its idle state: the
    // reschedule only.
    const task_result& a = find(r, "a");
    CHECK(a.wakeup_latency.min() == m.resched_latency_ns);
    CHECK(a.wakeup_latency.max() == m.resched_latency_ns);
}

TEST_CASE("a resume to a task not suspended is lost, one to a suspended task wakes it") {
    // a resumes b at `at` of CPU time on CPU 0; b on CPU 1 runs 5 ms, then suspends.
    const auto run = [](const std::string& at) {
        return run_one(parse(R"(
[[tasks]]
name = "a"
affinity = [0]
behaviour = { type = "steps", loop = 1, steps = [{ run = ")" +
                                 at +
                                 R"(" }, { resume = "b" }] }
[[tasks]]
name = "b"
affinity = [1]
behaviour = { type = "steps", loop = 1, steps = [{ run = "5ms" }, { suspend = true }, { run = "1ms" }] }
)",
                             "50ms", 2));
    };
    const repetition_result early = run("1ms");
    const task_result& lost = find(early, "b");
    CHECK(*lost.loops == 0);
    CHECK(lost.exited == -1);               // blocked for good
    CHECK(lost.sum_exec_runtime == 5 * ms); // never ran its last step
    CHECK(lost.nvcsw == 1);                 // the suspend
    const repetition_result late = run("8ms");
    const task_result& woken = find(late, "b");
    CHECK(*woken.loops == 1);
    CHECK(woken.sum_exec_runtime == 6 * ms);
    // The pass counts from its start (it began with a run), so it lasts past the resume.
    CHECK(woken.loop_time.min() >= 9 * ms);
}

TEST_CASE("a semaphore remembers posts made before anyone waits") {
    // a posts three times at once and exits; b starts at 10 ms and takes them one by one.
    const scenario sc = parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", loop = 3, steps = [{ sem_post = "s" }] }
[[tasks]]
name = "b"
start = "10ms"
behaviour = { type = "steps", steps = [{ sem_wait = "s" }, { run = "1ms" }] }
)",
                              "100ms");
    const repetition_result r = run_one(sc);
    CHECK(*find(r, "a").loops == 3);
    // Forked at 0, it first runs after the reschedule that wake_up_new_task() asked for.
    CHECK(find(r, "a").exited == sc.machine.resched_latency_ns);
    const task_result& b = find(r, "b");
    CHECK(*b.loops == 3); // then it waits for ever
    CHECK(b.sum_exec_runtime == 3 * ms);
    // Each pass counts from the post that released it, made at 1 us; b first runs 1 us
    // after its start: the passes last 11, 12 and 13 ms, each stretched by at most the
    // ticks (of 2 us) within it.
    CHECK(b.loop_time.min() >= 11 * ms);
    CHECK(b.loop_time.max() <= 13 * ms + 4 * 2 * us);
}

TEST_CASE("each name is its own: semaphores, a task's unique timers, a later entry resumed") {
    // a posts x three times and y once, then exits: b takes the x posts, c the y one.
    const repetition_result sems = run_one(parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", loop = 1, steps = [{ sem_post = "x" }, { sem_post = "x" }, { sem_post = "x" }, { sem_post = "y" }] }
[[tasks]]
name = "b"
behaviour = { type = "steps", steps = [{ sem_wait = "x" }, { run = "1ms" }] }
[[tasks]]
name = "c"
behaviour = { type = "steps", steps = [{ sem_wait = "y" }, { run = "1ms" }] }
)",
                                                 "100ms"));
    CHECK(*find(sems, "b").loops == 3);
    CHECK(*find(sems, "c").loops == 1);

    // Two absolute timers of one task, 10 ms and 30 ms: pass k waits for 10k ms (passed
    // from the second pass on) and then 30k ms, so a pass ends every 30 ms, 33 in 1 s
    // (one shared timer would move 40 ms a pass).
    const repetition_result timers = run_one(parse(R"(
[[tasks]]
name = "t"
behaviour = { type = "steps", steps = [{ timer = "10ms", ref = "unique_a", mode = "absolute" }, { timer = "30ms", ref = "unique_b", mode = "absolute" }] }
)"));
    CHECK(*find(timers, "t").loops == 33);

    // m, listed before w, resumes every instance of w once w has suspended.
    const repetition_result resumed = run_one(parse(R"(
[[tasks]]
name = "m"
behaviour = { type = "steps", loop = 1, steps = [{ run = "20ms" }, { resume = "w" }] }
[[tasks]]
name = "w"
count = 2
behaviour = { type = "steps", steps = [{ suspend = true }] }
)",
                                                    "100ms"));
    CHECK(*find(resumed, "w.0").loops == 1);
    CHECK(*find(resumed, "w.1").loops == 1);
}

TEST_CASE("runtime lasts wall time, run CPU time, beside an equal burner") {
    // One CPU shared with a burner of the same weight: a run of X takes about 2X of wall
    // time, a runtime of X about X, during which the task gets about X / 2 of CPU. The
    // margin: a slice (0.75 ms base slice on one CPU) and a tick of 4 ms, at either end.
    const auto with = [](const std::string& step) {
        return find(run_one(parse(R"(
[[tasks]]
name = "t"
behaviour = { type = "steps", loop = 1, steps = [{ )" +
                                      step +
                                      R"( = "100ms" }] }
[[tasks]]
name = "burner"
)",
                                  "1s")),
                    "t");
    };
    constexpr duration margin = 5 * ms;
    const task_result run = with("run");
    CHECK(run.sum_exec_runtime == 100 * ms);
    CHECK(run.exited >= 200 * ms - margin);
    CHECK(run.exited <= 200 * ms + margin);
    const task_result runtime = with("runtime");
    CHECK(runtime.exited >= 100 * ms);
    CHECK(runtime.exited <= 100 * ms + margin);
    CHECK(runtime.sum_exec_runtime >= 50 * ms - margin);
    CHECK(runtime.sum_exec_runtime <= 50 * ms + margin);
}

TEST_CASE("an absolute timer keeps its grid, a relative one restarts from a late use") {
    // A first pass of 10 ms of CPU, then passes of 1 ms, each on a 2 ms timer. Absolute:
    // expiries 2, 4, 6, ... ms, all passed until the task has caught up, so it never sleeps
    // before its 5 short passes end at 15 ms. Relative: the late first use restarts the
    // timer at 10 ms, so each short pass sleeps until 12, 14, ... and the last ends at 20 ms.
    const auto run = [](const std::string& mode) {
        return find(run_one(parse(R"(
[[tasks]]
name = "t"
timer_slack = "0ns"
[tasks.behaviour]
type = "steps"
loop = 1
[[tasks.behaviour.phases]]
steps = [{ run = "10ms" }, { timer = "2ms", mode = ")" +
                                      mode +
                                      R"(" }]
[[tasks.behaviour.phases]]
loop = 5
steps = [{ run = "1ms" }, { timer = "2ms", mode = ")" +
                                      mode +
                                      R"(" }]
)",
                                  "100ms")),
                    "t");
    };
    // Costs besides the runs: the ticks' 2 us, and per sleep the wakeup (idle exit and
    // reschedule, 1 us each).
    const task_result absolute = run("absolute");
    CHECK(absolute.nvcsw == 1); // the exit only
    CHECK(absolute.exited >= 15 * ms);
    CHECK(absolute.exited <= 15 * ms + 4 * 2 * us);
    const task_result relative = run("relative");
    CHECK(relative.nvcsw == 1 + 5); // five sleeps, then the exit
    CHECK(relative.exited >= 20 * ms);
    CHECK(relative.exited <= 20 * ms + 5 * (2 + 2) * us);
}

TEST_CASE("a timer is the task's own under a unique ref, shared under another") {
    // Two tasks on two CPUs, each using the timer once per pass. Sharing one 10 ms timer
    // they advance it in turn, so together they make a pass per 10 ms; each with its own,
    // each does.
    const auto passes = [](const std::string& ref) {
        const std::string task = "behaviour = { type = \"steps\", steps = [{ run = \"1ms\" }, "
                                 "{ timer = \"10ms\", ref = \"" +
                                 ref + "\" }] }\n";
        const repetition_result r = run_one(parse(
            "[[tasks]]\nname = \"a\"\n" + task + "[[tasks]]\nname = \"b\"\n" + task, "1s", 2));
        return *find(r, "a").loops + *find(r, "b").loops;
    };
    CHECK(passes("unique") >= 2 * 99);
    CHECK(passes("unique") <= 2 * 100);
    CHECK(passes("shared") >= 99);
    CHECK(passes("shared") <= 100);
}

TEST_CASE("loop = N: the task exits after its Nth pass") {
    const repetition_result r = run_one(parse(R"(
[[tasks]]
name = "t"
timer_slack = "0ns"
behaviour = { type = "steps", loop = 5, steps = [{ run = "1ms" }, { sleep = "1ms" }] }
)",
                                              "100ms"));
    const task_result& t = find(r, "t");
    CHECK(*t.loops == 5);
    CHECK(t.sum_exec_runtime == 5 * ms);
    // Five passes of 2 ms, each sleep's wakeup costing idle exit and reschedule (1 us each).
    CHECK(t.exited >= 10 * ms);
    CHECK(t.exited <= 10 * ms + 5 * 2 * us + 3 * 2 * us);
}

TEST_CASE("everyone suspended is a deadlock the run goes through idle") {
    const repetition_result r = run_one(parse(R"(
[[tasks]]
name = "a"
behaviour = { type = "steps", steps = [{ run = "1ms" }, { suspend = true }, { resume = "b" }] }
[[tasks]]
name = "b"
behaviour = { type = "steps", steps = [{ run = "1ms" }, { suspend = true }, { resume = "a" }] }
)",
                                              "100ms"));
    CHECK(find(r, "a").sum_exec_runtime == 1 * ms);
    CHECK(find(r, "b").sum_exec_runtime == 1 * ms);
    CHECK(r.cpus[0].busy == 2 * ms);
}

TEST_CASE("a program that never takes time is refused while it runs") {
    const scenario sc = parse(R"(
[[tasks]]
name = "spin"
behaviour = { type = "steps", steps = [{ sem_post = "s" }, { sem_wait = "s" }] }
)",
                              "10ms");
    CHECK_THROWS_WITH(simulate(sc), Catch::Contains("spin: 1000000 passes through its steps at "
                                                    "one instant"));
}

TEST_CASE("a steps run is the same for the same seed and differs for another") {
    scenario sc = parse(R"(
[[tasks]]
name = "m"
behaviour = { type = "steps", steps = [{ sem_post = "req" }, { sem_post = "req" }, { sleep = { dist = "exponential", mean = "2ms" } }] }
[[tasks]]
name = "w"
count = 2
behaviour = { type = "steps", steps = [{ sem_wait = "req" }, { run = { dist = "exponential", mean = "300us" } }] }
)",
                        "200ms", 2);
    const auto json = [&] { return to_json(simulate(sc), sc).dump(); };
    const std::string first = json();
    CHECK(json() == first);
    sc.seed = 2;
    CHECK(json() != first);
}

TEST_CASE("the JSON document carries loops, loop_time and the last exit") {
    const scenario sc = parse(R"(
[[tasks]]
name = "t"
timer_slack = "0ns"
behaviour = { type = "steps", loop = 4, steps = [{ run = "1ms" }, { sleep = "1ms" }] }
[[tasks]]
name = "burner"
affinity = [1]
)",
                              "100ms", 2);
    const nlohmann::json doc = to_json(simulate(sc), sc);
    const nlohmann::json& t = doc["repetitions"][0]["tasks"][0];
    CHECK(t["loops"] == 4);
    CHECK(t["loop_time"]["count"] == 4);
    CHECK(t["loop_time"]["p50"].get<double>() >= 2.0 * ms);
    const nlohmann::json& burner = doc["repetitions"][0]["tasks"][1];
    CHECK(burner["loops"].is_null());
    CHECK(burner["loop_time"].is_null());
    const nlohmann::json& entry = doc["summary"][0];
    CHECK(entry["loops"] == 4.0);
    CHECK(entry["loops_per_s"] == 40.0); // over the 100 ms window
    CHECK(entry["last_exit"] == t["exited"].get<double>());
    CHECK(doc["summary"][1]["last_exit"].is_null()); // the burner never exits
}

TEST_CASE("the theory takes a program's runs over its runs and sleeps, and none with waits") {
    // Phase 0 once: 1 ms run, 3 ms sleep; phase 1 three times: 2 ms run, 2 ms timer. Per
    // pass: 7 ms of run over 7 + 9 ms, alone on one CPU.
    scenario sc = parse(R"(
[[tasks]]
name = "t"
[tasks.behaviour]
type = "steps"
[[tasks.behaviour.phases]]
steps = [{ run = "1ms" }, { sleep = "3ms" }]
[[tasks.behaviour.phases]]
loop = 3
steps = [{ run = "2ms" }, { timer = "2ms" }]
)");
    const stats::theory_figures theory = stats::theory_figures_of(sc);
    REQUIRE(theory.entry_share.count("t") == 1);
    CHECK(theory.entry_share.at("t") == Approx(7.0 / 16.0));
    sc.tasks[0].behaviour.steps.phases[1].steps.push_back(
        {step_spec::kind::sem_wait, {}, "s", false});
    CHECK(stats::theory_figures_of(sc).entry_share.empty());
}

// Issue 9's check of the importer: an rt-app file runs exactly as the scenario a hand would
// write for it, the periodic task and the burner with the older behaviours, not steps.
TEST_CASE("an rt-app file runs bit for bit as the hand-built scenario of its tasks") {
    const std::string json = R"({
        "tasks" : {
            "periodic" : { "cpus" : [0], "run" : 2000,
                           "timer" : { "ref" : "unique", "period" : 10000, "mode" : "absolute" } },
            "burner" : { "cpus" : [0], "priority" : 5, "run" : 1000000 },
            "pong" : { "cpus" : [1], "suspend" : "pong", "run" : 700, "resume" : "ping" },
            "ping" : { "cpus" : [1], "delay" : 1000, "run" : 1300, "resume" : "pong",
                       "suspend" : "ping" }
        },
        "global" : { "duration" : 2, "calibration" : "CPU0" }
    })";
    rt_app_options options;
    options.machine = toml::table{{"cpus", 2}};
    const scenario imported =
        parse_scenario(toml_text(rt_app_to_toml(json, "w.json", options)), "w.json");
    const scenario hand = parse_scenario(R"(
name = "hand"
length = "2s"
[machine]
cpus = 2
[[tasks]]
name = "periodic"
affinity = [0]
behaviour = { type = "periodic", run = "2ms", period = "10ms" }
[[tasks]]
name = "burner"
affinity = [0]
nice = 5
[[tasks]]
name = "pong"
affinity = [1]
behaviour = { type = "steps", steps = [{ suspend = true }, { run = "700us" }, { resume = "ping" }] }
[[tasks]]
name = "ping"
affinity = [1]
start = "1ms"
behaviour = { type = "steps", steps = [{ run = "1300us" }, { resume = "pong" }, { suspend = true }] }
)",
                                         "hand.toml");
    const repetition_result a = run_one(imported);
    const repetition_result b = run_one(hand);
    REQUIRE(a.tasks.size() == 4);
    // The programs of steps take events of their own (the burner's pass ends, the periodic
    // task's two steps), not a different schedule.
    testing::check_same(a, b, false);
    // The ping-pong alternates 1.3 ms and 0.7 ms on CPU 1, so it is not idle.
    CHECK(find(a, "ping").window_runtime + find(a, "pong").window_runtime > 1'900 * ms);
}

TEST_CASE("a task alone on its CPU yields and goes straight on") {
    // yield_task_fair() returns at once with one task queued, and schedule() picks it
    // again: no switch, and each pass is its 1 ms run.
    for (const kernel_version k :
         {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 19}}) {
        INFO(k.str());
        scenario sc = parse(R"(
[[tasks]]
name = "y"
behaviour = { type = "steps", steps = [{ run = "1ms" }, { yield = true }] }
)");
        sc.machine.kernel = k;
        const repetition_result r = run_one(sc);
        const task_result& y = find(r, "y");
        CHECK(y.nvcsw + y.nivcsw == 0);
        REQUIRE(y.loops);
        CHECK(*y.loops >= 990); // 1 s of 1 ms runs, stretched only by the ticks' IRQ time
        CHECK(y.loop_time.max() <= ms + 2 * sc.machine.tick_irq_ns);
    }
}

TEST_CASE("two tasks yielding to each other alternate at every yield, each switch involuntary") {
    // Each yield hands the CPU to the other: SCHED_FIFO tasks of one priority through
    // yield_task_rt() (to the tail of their list), fair ones as the skip buddy (old CFS,
    // the other being within the wakeup granularity) or by the deadline pushed on (EEVDF).
    // A switch by sched_yield() is involuntary: the task is still runnable.
    for (const std::string policy : {"normal", "fifo"}) {
        for (const kernel_version k :
             {kernel_version{5, 15}, kernel_version{6, 6}, kernel_version{6, 19}}) {
            INFO(policy << " " << k.str());
            const std::string rt = policy == "fifo" ? "policy = \"fifo\"\nrt_priority = 10\n" : "";
            scenario sc = parse(R"(
[[tasks]]
name = "y"
count = 2
)" + rt + R"(behaviour = { type = "steps", steps = [{ run = "100us" }, { yield = true }] }
)");
            sc.machine.kernel = k;
            const repetition_result r = run_one(sc);
            std::uint64_t loops = 0;
            for (const char* name : {"y.0", "y.1"}) {
                INFO(name);
                const task_result& y = find(r, name);
                CHECK(y.nvcsw == 0);
                REQUIRE(y.loops);
                loops += *y.loops;
                // The CPU's time in 100 us passes, about half each, one switch per pass; on old
                // CFS the second task, forked 3 ms of vruntime left of the first
                // (START_DEBIT), runs passes on its own until it is within the
                // granularity (1 ms).
                CHECK(*y.loops >= 4700);
                CHECK(y.nivcsw + 30 >= *y.loops);
                CHECK(y.nivcsw <= *y.loops + 1);
            }
            // Before 6.12 RT throttling leaves RT tasks 950 ms of each second.
            const std::uint64_t all =
                policy == "fifo" && k < kernel_version{6, 12} ? 9'500 : 10'000;
            CHECK(loops <= all);
            CHECK(loops + 50 >= all);
        }
    }
}

TEST_CASE("a yielding task beside a burner: no effect on old CFS shares, EEVDF's forfeit "
          "leaves it little") {
    // Old CFS passes over the skip buddy only within the wakeup granularity: the yielder,
    // behind the burner after each of the burner's slices, runs on until it catches up,
    // and the two share the CPU evenly. EEVDF before 79104becf42b: the yielder is the only
    // eligible task when it yields, so it is picked again and the shares stay even. From
    // it the yielder's vruntime jumps to its deadline at each yield: it gets about one run
    // per slice the burner runs, well under half.
    const auto share = [](kernel_version k) {
        scenario sc = parse(R"(
[[tasks]]
name = "burner"
[[tasks]]
name = "y"
behaviour = { type = "steps", steps = [{ run = "100us" }, { yield = true }] }
)",
                            "10s");
        sc.machine.kernel = k;
        const repetition_result r = run_one(sc);
        const double y = static_cast<double>(find(r, "y").window_runtime);
        return y / (y + static_cast<double>(find(r, "burner").window_runtime));
    };
    CHECK(share({5, 15}) == Approx(0.5).margin(0.01));
    CHECK(share({6, 18}) == Approx(0.5).margin(0.01));
    CHECK(share({6, 19}) < 0.2);
    CHECK(share({6, 18, 2}) == share({6, 19}));
}

} // namespace test_steps
