// io/rt_app.hpp: rt-app workload files become the scenario a hand would write for them, and
// everything the model cannot honour is an error naming its JSON path.
#include <catch2/catch.hpp>
#include <libsched/io/rt_app.hpp>
#include <string>
#include <toml++/toml.h>
#include <vector>

using namespace libsched;

namespace test_rt_app {

namespace {

toml::table toml_of(const std::string& text) {
    return toml::parse(text);
}

// The conversion equals the expected document; both are shown when not.
void check_converts(const std::string& json, const std::string& expected,
                    const rt_app_options& options = {}, const std::string& origin = "w.json") {
    const toml::table got = rt_app_to_toml(json, origin, options);
    const toml::table want = toml_of(expected);
    INFO("converted:\n" << toml_text(got) << "expected:\n" << toml_text(want));
    CHECK(got == want);
}

// The first error of converting json, which must fail.
scenario_error error_of(const std::string& json, const rt_app_options& options = {}) {
    try {
        rt_app_to_toml(json, "w.json", options);
    } catch (const scenario_error& e) {
        return e;
    }
    FAIL("converted without an error: " << json);
    throw; // unreachable
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A file of one task with these keys, running 5 s.
std::string one_task(const std::string& keys) {
    return R"({ "global": { "duration": 5 }, "tasks": { "t": { )" + keys + " } } }";
}

} // namespace

TEST_CASE("a periodic task on rt-app's timer and a burner, in the file's order") {
    // The shape of rt-app's tutorial example 2, beside a task that never sleeps.
    check_converts(R"({
        "tasks": {
            "periodic": {
                "instance": 1, "loop": -1,
                "run": 2000,
                "timer": { "ref": "unique", "period": 10000 }
            },
            "burner": { "run": 1000000 }
        },
        "global": { "duration": 5, "default_policy": "SCHED_OTHER", "calibration": "CPU0",
                    "logdir": "./", "log_basename": "rt-app", "ftrace": false,
                    "gnuplot": false, "lock_pages": false, "pi_enabled": false }
    })",
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "5s"

[[tasks]]
name = "periodic"
[tasks.behaviour]
type = "steps"
loop = -1
steps = [ { run = "2ms" }, { timer = "10ms", ref = "unique", mode = "relative" } ]

[[tasks]]
name = "burner"
[tasks.behaviour]
type = "steps"
loop = -1
steps = [ { run = "1s" } ]
)");
}

TEST_CASE("phases, instances, policies, priorities, affinity, delay and taskgroups") {
    check_converts(R"({
        "global": { "duration": 2, "default_policy": "SCHED_FIFO" },
        "tasks": {
            "rt": {
                "instance": 3, "loop": 1, "priority": 50, "cpus": [0, 1], "delay": 1500,
                "phases": {
                    "light": { "loop": 10, "run": 3000,
                               "timer": { "ref": "unique", "period": 30000, "mode": "absolute" } },
                    "heavy": { "run": 27000, "timer": { "ref": "unique", "period": 30000 } }
                }
            },
            "fifo-default": { "sleep": 100 },
            "niced": { "policy": "SCHED_OTHER", "priority": 5, "taskgroup": "/web/api",
                       "runtime": 250, "sleep": 750 },
            "batch": { "policy": "SCHED_BATCH", "priority": 0, "taskgroup": "/", "run": 1 },
            "idle": { "policy": "SCHED_IDLE", "taskgroup": "/web/api", "run": 1 }
        }
    })",
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "2s"

[machine]
cgroup_version = 1

[[cgroups]]
name = "web/api"

[[tasks]]
name = "rt"
count = 3
policy = "fifo"
rt_priority = 50
affinity = [0, 1]
start = "1.5ms"
[tasks.behaviour]
type = "steps"
loop = 1
[[tasks.behaviour.phases]]
loop = 10
steps = [ { run = "3ms" }, { timer = "30ms", ref = "unique", mode = "absolute" } ]
[[tasks.behaviour.phases]]
loop = 1
steps = [ { run = "27ms" }, { timer = "30ms", ref = "unique", mode = "absolute" } ]

[[tasks]]
name = "fifo-default"
policy = "fifo"
rt_priority = 10
behaviour = { type = "steps", loop = -1, steps = [ { sleep = "100us" } ] }

[[tasks]]
name = "niced"
nice = 5
cgroup = "web/api"
behaviour = { type = "steps", loop = -1, steps = [ { runtime = "250us" }, { sleep = "750us" } ] }

[[tasks]]
name = "batch"
policy = "batch"
behaviour = { type = "steps", loop = -1, steps = [ { run = "1us" } ] }

[[tasks]]
name = "idle"
policy = "idle"
cgroup = "web/api"
behaviour = { type = "steps", loop = -1, steps = [ { run = "1us" } ] }
)");
}

TEST_CASE("a shared timer is absolute for every user once one use says so") {
    // rt-app keeps the mode on the timer: a use that says "absolute" makes it so for all.
    check_converts(R"({ "global": { "duration": 1 }, "tasks": {
        "a": { "run": 10, "timer": { "ref": "tick", "period": 1000 } },
        "b": { "run": 10, "timer": { "ref": "tick", "period": 1000, "mode": "absolute" } },
        "c": { "run": 10, "timer": { "period": 500 } },
        "d": { "run": 10, "timer": { "ref": "unique", "period": 500, "mode": "absolute" } },
        "e": { "run": 10, "timer": { "ref": "unique", "period": 500 } }
    } })",
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "1s"
[[tasks]]
name = "a"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { timer = "1ms", ref = "tick", mode = "absolute" } ] }
[[tasks]]
name = "b"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { timer = "1ms", ref = "tick", mode = "absolute" } ] }
[[tasks]]
name = "c"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { timer = "500us", ref = "unknown", mode = "relative" } ] }
[[tasks]]
name = "d"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { timer = "500us", ref = "unique", mode = "absolute" } ] }
[[tasks]]
name = "e"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { timer = "500us", ref = "unique", mode = "relative" } ] }
)");
}

TEST_CASE("suffixed events keep the order they are written in") {
    // Neither sorted by key nor grouped by kind: rt-app runs them as written.
    check_converts(one_task(R"("sleep9": 1, "run2": 2, "runtime0": 3, "run": 4, "sleep_a": 5,
                               "sem_post1": "s", "sem_wait0": "s", "resume_x": "t",
                               "suspend0": "t")"),
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "5s"
[[tasks]]
name = "t"
[tasks.behaviour]
type = "steps"
loop = -1
steps = [ { sleep = "1us" }, { run = "2us" }, { runtime = "3us" }, { run = "4us" },
          { sleep = "5us" }, { sem_post = "s" }, { sem_wait = "s" }, { resume = "t" },
          { suspend = true } ]
)");
}

TEST_CASE("a yield event is a yield step, whatever its value") {
    // rt-app calls sched_yield() and ignores the value.
    check_converts(one_task(R"("run": 100, "yield": "", "run1": 50, "yield1": 7)"), R"(
name = "w"
description = "The rt-app workload w.json"
length = "5s"
[[tasks]]
name = "t"
behaviour = { type = "steps", loop = -1, steps = [ { run = "100us" }, { yield = true }, { run = "50us" }, { yield = true } ] }
)");
}

TEST_CASE("two tasks waking each other with suspend and resume, as rt-app's example 4") {
    check_converts(R"({ "global": { "duration": 3 }, "tasks": {
        "thread0": { "loop": -1, "run": 10000, "resume": "thread1", "suspend": "thread0" },
        "thread1": { "loop": -1, "run": 10000, "resume": "thread0", "suspend": "thread1" }
    } })",
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "3s"
[[tasks]]
name = "thread0"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10ms" }, { resume = "thread1" }, { suspend = true } ] }
[[tasks]]
name = "thread1"
behaviour = { type = "steps", loop = -1, steps = [ { run = "10ms" }, { resume = "thread0" }, { suspend = true } ] }
)");
}

TEST_CASE("comments and trailing commas read as rt-app's json-c reads them") {
    check_converts(R"({
        /* a block comment, with a comma before a brace: , } */
        "tasks": { "t": { "run": 10, "sleep": 20, // a line comment, }
                          "cpus": [0, 1, ], }, },
        "global": { "duration": 1, "logdir": "a,}", "log_basename": "b\",]", },
    })",
                   R"(
name = "w"
description = "The rt-app workload w.json"
length = "1s"
[[tasks]]
name = "t"
affinity = [0, 1]
behaviour = { type = "steps", loop = -1, steps = [ { run = "10us" }, { sleep = "20us" } ] }
)");
    // A comma inside a string stays: the string is read as written.
    CHECK(detail::rt_app::without_trailing_commas(R"({"a": "x,}", "b": [1,],})") ==
          R"({"a": "x,}", "b": [1 ] })");
}

TEST_CASE("the machine comes from the options, the kernel may replace its release") {
    const std::string json = one_task(R"("run": 1000, "sleep": 9000)");
    rt_app_options options;
    options.machine = toml_of("cpus = 2\nkernel = \"5.15\"\nhz = 1000\n");
    options.kernel = "6.12";
    check_converts(json, R"(
name = "w"
description = "The rt-app workload w.json"
length = "5s"
[machine]
cpus = 2
kernel = "6.12"
hz = 1000
[[tasks]]
name = "t"
behaviour = { type = "steps", loop = -1, steps = [ { run = "1ms" }, { sleep = "9ms" } ] }
)",
                   options);

    // The [machine] of a scenario's text; none when it has none.
    const auto machine = machine_of("length = \"1s\"\n[machine]\ncpus = 4\n", "base.toml");
    REQUIRE(machine);
    CHECK(*machine == toml_of("cpus = 4"));
    CHECK_FALSE(machine_of("length = \"1s\"\n", "base.toml"));
    CHECK_THROWS_AS(machine_of("machine = 3\n", "base.toml"), scenario_error);
}

TEST_CASE("a malformed file gives the line and column") {
    const scenario_error e = error_of("{\n  \"tasks\": {\n    \"t\": { \"run\" 10 }\n  }\n}\n");
    INFO(e.what());
    CHECK(e.field().empty());
    CHECK(e.origin() == "w.json");
    // Where a colon should be, the parser reads the number 10: it stops at its end, the 0 in
    // column 19 of line 3.
    CHECK(contains(e.reason(), "JSON syntax error at line 3, column 19: "));
    CHECK(contains(e.reason(), "expected ':'"));

    const scenario_error unterminated = error_of("{ \"tasks\": \n");
    INFO(unterminated.what());
    CHECK(contains(unterminated.reason(), "JSON syntax error at line 2, column 1"));
}

TEST_CASE("every feature the model lacks is an error naming its JSON path") {
    struct bad {
        std::string json, field, reason;
    };
    const std::vector<bad> cases = {
        {R"({ "global": { "duration": 1 }, "tasks": { "thread0": { "phases": { "p1": {
             "run": 10, "lock": "m" } } } } })",
         "tasks.thread0.phases.p1.lock",
         "rt-app event \"lock\" is not supported (libsched models no mutexes)"},
        {one_task(R"("run": 1, "unlock1": "m")"), "tasks.t.unlock1",
         "rt-app event \"unlock\" is not supported"},
        {one_task(R"("run": 1, "wait": { "ref": "c", "mutex": "m" })"), "tasks.t.wait",
         "rt-app event \"wait\" is not supported"},
        {one_task(R"("run": 1, "signal": "c")"), "tasks.t.signal", "event \"signal\""},
        {one_task(R"("run": 1, "broad": "c")"), "tasks.t.broad", "event \"broad\""},
        {one_task(R"("run": 1, "sync": { "ref": "c", "mutex": "m" })"), "tasks.t.sync",
         "event \"sync\""},
        {one_task(R"("run": 1, "barrier": "b")"), "tasks.t.barrier", "event \"barrier\""},
        {one_task(R"("run": 1, "mem": 4096)"), "tasks.t.mem", "event \"mem\""},
        {one_task(R"("run": 1, "memrun": { "type": "read", "size": 1, "count": 1 })"),
         "tasks.t.memrun", "event \"memrun\""},
        {one_task(R"("run": 1, "iorun": 4096)"), "tasks.t.iorun", "event \"iorun\""},
        {one_task(R"("run": 1, "fork": "t")"), "tasks.t.fork", "event \"fork\""},
        {one_task(R"("policy": "SCHED_DEADLINE", "run": 1)"), "tasks.t.policy", "SCHED_DEADLINE"},
        {one_task(R"("dl-runtime": 1000, "run": 1)"), "tasks.t.dl-runtime", "SCHED_DEADLINE"},
        {one_task(R"("dl-period": 1000, "run": 1)"), "tasks.t.dl-period", "SCHED_DEADLINE"},
        {one_task(R"("dl-deadline": 1000, "run": 1)"), "tasks.t.dl-deadline", "SCHED_DEADLINE"},
        {one_task(R"("util_min": 100, "run": 1)"), "tasks.t.util_min", "uclamp"},
        {one_task(R"("nodes_membind": [0], "run": 1)"), "tasks.t.nodes_membind", "NUMA"},
        {R"({ "global": { "duration": 1, "default_policy": "SCHED_DEADLINE" },
              "tasks": { "t": { "run": 1 } } })",
         "global.default_policy", "SCHED_DEADLINE"},
        {one_task(R"("phases": { "p": { "cpus": [1], "run": 1 } })"), "tasks.t.phases.p.cpus",
         "a per-phase \"cpus\" is not supported"},
        {one_task(R"("phases": { "p": { "policy": "SCHED_FIFO", "run": 1 } })"),
         "tasks.t.phases.p.policy", "a per-phase \"policy\""},
        {one_task(R"("phases": { "p": { "priority": 3, "run": 1 } })"), "tasks.t.phases.p.priority",
         "a per-phase \"priority\""},
        {one_task(R"("phases": { "p": { "taskgroup": "/a", "run": 1 } })"),
         "tasks.t.phases.p.taskgroup", "a per-phase \"taskgroup\""},
        {one_task(R"("phases": { "p": { "dl-runtime": 5, "run": 1 } })"),
         "tasks.t.phases.p.dl-runtime", "SCHED_DEADLINE"},
        {one_task(R"("nice": 5, "run": 1)"), "tasks.t.nice",
         "rt-app has no \"nice\": a SCHED_OTHER task's \"priority\" is its nice value"},
        {one_task(R"("run": 1, "phases": { "p": { "run": 1 } })"), "tasks.t.run",
         "an event beside \"phases\""},
        {one_task(R"("loop": 10, "run": 1)"), "tasks.t.loop", "Put the events in a \"phases\""},
        {one_task(R"("loop": 0, "phases": { "p": { "run": 1 } })"), "tasks.t.loop",
         "0 is not a count of passes"},
        {one_task(R"("phases": { "p": { "loop": -2, "run": 1 } })"), "tasks.t.phases.p.loop",
         "-2 is not a count of passes"},
        {one_task(R"("phases": { "p": { "loop": 2 } })"), "tasks.t.phases.p",
         "a phase without events"},
        {one_task(R"("phases": {})"), "tasks.t.phases", "no phases"},
        {one_task(R"("priority": 3)"), "tasks.t", "a task without events"},
        {one_task(R"("run": 1.5)"), "tasks.t.run", "expected an integer, got a number with"},
        {one_task(R"("sleep": -1)"), "tasks.t.sleep", "-1 is negative"},
        {one_task(R"("run": 4294967296)"), "tasks.t.run", "beyond rt-app's 32-bit integers"},
        {one_task(R"("run": 1, "timer": { "period": 10, "mode": "abs" })"), "tasks.t.timer.mode",
         "\"abs\" is not \"absolute\" or \"relative\""},
        {one_task(R"("run": 1, "timer": { "perod": 10 })"), "tasks.t.timer.perod",
         "did you mean \"period\"?"},
        {one_task(R"("run": 1, "suspend": "other")"), "tasks.t.suspend",
         "a task suspends on its own name, \"t\""},
        {one_task(R"("run": 1, "resume": "nobody")"), "tasks.t.resume", "no task named \"nobody\""},
        {one_task(R"("instnce": 2, "run": 1)"), "tasks.t.instnce",
         "not an rt-app key here; did you mean \"instance\"?"},
        {one_task(R"("instance": 0, "run": 1)"), "tasks.t.instance", "0 threads"},
        {one_task(R"("cpus": [], "run": 1)"), "tasks.t.cpus", "an empty CPU list"},
        {one_task(R"("cpus": [0, -1], "run": 1)"), "tasks.t.cpus[1]", "-1 is negative"},
        {one_task(R"("taskgroup": "a", "run": 1)"), "tasks.t.taskgroup", "\"/a\""},
        {one_task(R"("policy": "SCHED_RR", "taskgroup": "/a", "run": 1)"), "tasks.t.taskgroup",
         "rt-app puts no SCHED_RR task in a taskgroup"},
        {one_task(R"("policy": "SCHED_FIFO", "priority": 0, "run": 1)"), "tasks.t.priority",
         "0 is outside SCHED_FIFO's priorities, 1 to 99"},
        {one_task(R"("priority": -21, "run": 1)"), "tasks.t.priority",
         "-21 is outside the nice values"},
        {one_task(R"("policy": "SCHED_NORMAL", "run": 1)"), "tasks.t.policy",
         "\"SCHED_NORMAL\" is not a policy rt-app knows"},
        {R"({ "tasks": { "t": { "run": 1 } } })", "global.duration",
         "missing: rt-app then runs until every task ends"},
        {R"({ "global": { "duration": -1 }, "tasks": { "t": { "run": 1 } } })", "global.duration",
         "-1: rt-app then runs until every task ends"},
        {R"({ "global": { "duration": 1, "calibration": "fast" }, "tasks": { "t": { "run": 1 } } })",
         "global.calibration", "\"fast\" is not a CPU such as \"CPU0\""},
        {R"({ "global": { "duration": 1, "gnuplot": "yes" }, "tasks": { "t": { "run": 1 } } })",
         "global.gnuplot", "expected true or false, got a string"},
        {R"({ "global": { "duraton": 1 }, "tasks": { "t": { "run": 1 } } })", "global.duraton",
         "did you mean \"duration\"?"},
        {R"({ "global": { "duration": 1 }, "tasks": {} })", "tasks", "no tasks"},
        {R"({ "global": { "duration": 1 } })", "tasks", "missing"},
        {R"({ "global": { "duration": 1 }, "task": { "t": { "run": 1 } } })", "task",
         "did you mean \"tasks\"?"},
        {R"({ "global": { "duration": 1 }, "tasks": { "a": { "run": 1 }, "a": { "run": 2 } } })",
         "tasks.a", "written twice in one object"},
        {"[1, 2]", "", "expected a JSON object with \"tasks\", got an array"},
    };
    for (const bad& b : cases) {
        const scenario_error e = error_of(b.json);
        INFO(b.json << "\n" << e.what());
        CHECK(e.field() == b.field);
        CHECK(contains(e.reason(), b.reason));
    }
}

TEST_CASE("every error of a file comes out, each with its path") {
    const scenario_error e = error_of(R"({ "global": { "duration": 1 }, "tasks": {
        "a": { "run": 1, "lock": "m", "barrier": "b" },
        "b": { "phases": { "p": { "cpus": [0], "run": 1, "resume": "c" } } }
    } })");
    std::vector<std::string> fields;
    for (const scenario_error::entry& entry : e.errors())
        fields.push_back(entry.field);
    CHECK(fields == std::vector<std::string>{"tasks.a.lock", "tasks.a.barrier",
                                             "tasks.b.phases.p.cpus", "tasks.b.phases.p.resume"});
}

TEST_CASE("a key written twice is an error at each repetition, in nested objects too") {
    const scenario_error e = error_of(R"({ "global": { "duration": 1 }, "tasks": {
        "t": { "phases": { "heavy1": { "run": 1 }, "light": { "run": 1, "run": 2 },
                           "heavy1": { "run": 3 } } } } })");
    std::vector<std::string> fields;
    for (const scenario_error::entry& entry : e.errors())
        fields.push_back(entry.field);
    CHECK(fields == std::vector<std::string>{"tasks.t.phases.light.run", "tasks.t.phases.heavy1"});
}

TEST_CASE("taskgroups need the cgroup v1 hierarchy rt-app uses") {
    rt_app_options v2;
    v2.machine = toml_of("cgroup_version = 2");
    const scenario_error e = error_of(one_task(R"("taskgroup": "/g", "run": 1)"), v2);
    CHECK(e.field() == "tasks.t.taskgroup");
    CHECK(contains(e.reason(), "cgroup v1"));

    rt_app_options bad_kernel;
    bad_kernel.kernel = "six";
    CHECK(error_of(one_task(R"("run": 1)"), bad_kernel).field() == "kernel");
}

} // namespace test_rt_app
