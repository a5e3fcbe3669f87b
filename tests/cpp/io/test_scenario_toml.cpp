// io/scenario_toml.hpp: what a scenario file says arrives in the scenario, and every kind
// of mistake in a file is reported with the field as written (and its line).
#include "bundled_examples.hpp"
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <libsched/io/scenario_toml.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace libsched;

namespace test_scenario_toml {

namespace {

// A valid two-task scenario; mistakes are made by replacing one line of it.
const std::string base = R"(name = "pair"
length = "2s"
reference = "b"
[machine]
cpus = 2
hz = 250
kernel = "6.8"
[[tasks]]
name = "a"
affinity = [0]
[[tasks]]
name = "b"
nice = 5
)";

std::string replaced(const std::string& from, const std::string& to) {
    std::string text = base;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// The error parse_scenario() throws for text.
scenario_error error_of(const std::string& text) {
    try {
        parse_scenario(text, "bad.toml");
    } catch (const scenario_error& e) {
        return e;
    }
    FAIL("parse_scenario() accepted:\n" << text);
    return {"", ""};
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("a complete scenario file fills every field") {
    const scenario sc = parse_scenario(R"(
name = "everything"
description = "all of it"
length = "20s"
window = ["2s", "19.5s"]
repetitions = 5
seed = 7
reference = "b"
[machine]
cpus = 2
online_cpus = 8
hz = 1000
kernel = "5.15.3"
scaling = "linear"
latency = "12ms"
min_granularity = 1500000
wakeup_granularity = "2ms"
calc_delta = "exact"
resched_latency = "2us"
irq_time_accounting = false
preempt = "full"
tick_irq = "500ns"
sleep_cost = { dist = "uniform", low = "3us", high = "21us" }
tick_latency = { dist = "uniform", low = "12us", high = "40us" }
[machine.features]
GENTLE_FAIR_SLEEPERS = false
[[tasks]]
name = "a"
count = 3
nice = -5
policy = "batch"
affinity = [1, 0]
start = "1ms"
stagger = "250us"
lifetime = "10s"
[[tasks]]
name = "b"
policy = "idle"
exit_at = "15s"
behaviour = { type = "periodic", run = "2ms", sleep = "8ms" }
renice = [{ at = "5s", nice = 10 }, { at = "6s", nice = -3 }]
[[tasks]]
name = "c"
behaviour = { type = "random", run = { dist = "exponential", mean = "1ms" }, sleep = { dist = "uniform", low = "1ms", high = "5ms" } }
[[tasks]]
name = "d"
behaviour = { type = "random", run = "3ms", sleep = { dist = "constant", value = 100 } }
[measured]
source = "a note"
share = { a = 1.5, b = 0 }
ratio = { a = 3 }
tolerance = { share = 0.005, ratio = 0.03 }
)",
                                       "everything.toml");
    CHECK(sc.name == "everything");
    CHECK(sc.description == "all of it");
    CHECK(sc.length == 20 * nsec_per_sec);
    CHECK(sc.window_start == 2 * nsec_per_sec);
    CHECK(sc.window_end == 19'500'000'000);
    CHECK(sc.repetitions == 5);
    CHECK(sc.seed == 7);
    CHECK(sc.reference == "b");

    const machine_spec& m = sc.machine;
    CHECK(m.cpus == 2);
    CHECK(m.online_cpus == 8);
    CHECK(m.hz == 1000);
    CHECK(m.kernel == kernel_version{5, 15});
    CHECK(m.kernel.patch == 3);
    CHECK(m.scaling == tunable_scaling::linear);
    CHECK_FALSE(m.base_slice_ns);
    CHECK(m.latency_ns == 12 * nsec_per_msec);
    CHECK(m.min_granularity_ns == 1'500'000);
    CHECK(m.wakeup_granularity_ns == 2 * nsec_per_msec);
    CHECK(m.delta_mode == calc_delta_mode::exact_division);
    CHECK(m.resched_latency_ns == 2'000);
    CHECK_FALSE(m.irq_time_accounting);
    CHECK(m.preempt == preempt_mode::full);
    CHECK(m.tick_irq_ns == 500);
    CHECK(m.sleep_cost == distribution{distribution::kind::uniform, 3'000, 21'000});
    CHECK(m.tick_latency == distribution{distribution::kind::uniform, 12'000, 40'000});
    CHECK(m.features == std::map<std::string, bool>{{"GENTLE_FAIR_SLEEPERS", false}});

    REQUIRE(sc.tasks.size() == 4);
    const task_spec& a = sc.tasks[0];
    CHECK(a.count == 3);
    CHECK(a.nice == -5);
    CHECK(a.policy == sched_policy::batch);
    CHECK(a.affinity == std::vector<int>{1, 0});
    CHECK(a.start == nsec_per_msec);
    CHECK(a.stagger.a == 250'000);
    CHECK(a.lifetime == 10 * nsec_per_sec);
    CHECK_FALSE(a.exit_at);
    CHECK(a.behaviour.type == behaviour_spec::kind::burner);

    const task_spec& b = sc.tasks[1];
    CHECK(b.policy == sched_policy::idle);
    CHECK(b.exit_at == 15 * nsec_per_sec);
    CHECK(b.behaviour.type == behaviour_spec::kind::periodic);
    CHECK(b.behaviour.run == 2 * nsec_per_msec);
    CHECK(b.behaviour.sleep == 8 * nsec_per_msec);
    REQUIRE(b.renice.size() == 2);
    CHECK(b.renice[0].at == 5 * nsec_per_sec);
    CHECK(b.renice[0].nice == 10);
    CHECK(b.renice[1].nice == -3);

    const behaviour_spec& c = sc.tasks[2].behaviour;
    CHECK(c.type == behaviour_spec::kind::random);
    CHECK(c.run_dist.type == distribution::kind::exponential);
    CHECK(c.run_dist.a == nsec_per_msec);
    CHECK(c.sleep_dist.type == distribution::kind::uniform);
    CHECK(c.sleep_dist.a == nsec_per_msec);
    CHECK(c.sleep_dist.b == 5 * nsec_per_msec);

    const behaviour_spec& d = sc.tasks[3].behaviour;
    CHECK(d.run_dist.type == distribution::kind::constant);
    CHECK(d.run_dist.a == 3 * nsec_per_msec);
    CHECK(d.sleep_dist.type == distribution::kind::constant);
    CHECK(d.sleep_dist.a == 100);

    CHECK(sc.measured.source == "a note");
    CHECK(sc.measured.share == std::map<std::string, double>{{"a", 1.5}, {"b", 0.0}});
    CHECK(sc.measured.ratio == std::map<std::string, double>{{"a", 3.0}});
    CHECK(sc.measured.tolerance.share == 0.005);
    CHECK(sc.measured.tolerance.ratio == 0.03);
}

TEST_CASE("defaults: the name comes from the file, the window is the whole run") {
    const scenario sc = parse_scenario("[[tasks]]\nname = \"x\"\n", "dir/my-run.toml");
    CHECK(sc.name == "my-run");
    CHECK(sc.window_start == 0);
    CHECK(sc.window_stop() == sc.length);
    CHECK(sc.tasks[0].count == 1);
    CHECK(sc.tasks[0].behaviour.type == behaviour_spec::kind::burner);
    CHECK(sc.machine.delta_mode == calc_delta_mode::inverse_multiply);
}

TEST_CASE("start: a duration, or a uniform DIST drawn for each repetition") {
    const auto start = [](const std::string& value) {
        return parse_scenario("[[tasks]]\nname = \"x\"\nstart = " + value + "\n", "s.toml")
            .tasks[0];
    };
    const task_spec fixed = start("\"2ms\"");
    CHECK(fixed.start == 2 * nsec_per_msec);
    CHECK_FALSE(fixed.start_drawn);
    const task_spec constant = start("{ dist = \"constant\", value = \"3ms\" }");
    CHECK(constant.start == 3 * nsec_per_msec);
    CHECK_FALSE(constant.start_drawn); // a constant draws nothing
    const task_spec drawn = start("{ dist = \"uniform\", low = \"1ms\", high = \"5ms\" }");
    CHECK(drawn.start == nsec_per_msec); // the least it can be
    REQUIRE(drawn.start_drawn);
    CHECK(*drawn.start_drawn ==
          distribution{distribution::kind::uniform, nsec_per_msec, 5 * nsec_per_msec});
}

TEST_CASE("the window as a table, with either bound") {
    CHECK(parse_scenario(
              replaced("length = \"2s\"", "length = \"2s\"\nwindow = { start = \"1s\" }"), "w.toml")
              .window_start == nsec_per_sec);
    const scenario sc = parse_scenario(
        replaced("length = \"2s\"", "length = \"2s\"\nwindow = { end = \"1500ms\" }"), "w.toml");
    CHECK(sc.window_start == 0);
    CHECK(sc.window_end == 1'500'000'000);
    CHECK(error_of(replaced("length = \"2s\"", "length = \"2s\"\nwindow = [\"1s\"]")).field() ==
          "window");
    CHECK(error_of(replaced("length = \"2s\"", "length = \"2s\"\nwindow = { stop = \"1s\" }"))
              .field() == "window.stop");
}

TEST_CASE("mistakes name the field as written, the file and the line") {
    struct mistake {
        const char* from;
        const char* to;
        const char* field;
        const char* says;
    };
    const std::vector<mistake> mistakes = {
        {"nice = 5", "nice = 42", "tasks[1].nice", "42 is outside [-20, 19] (line 13)"},
        {"affinity = [0]", "affinity = [7]", "tasks[0].affinity",
         "affinity to CPU 7 but the machine has 2 CPUs"},
        {"nice = 5", "nicee = 5", "tasks[1].nicee", "unknown key; did you mean \"nice\"?"},
        {"hz = 250", "hz = 250\nhzz = 1", "machine.hzz", "unknown key"},
        {"reference = \"b\"", "reference = \"b\"\nlenght = \"1s\"", "lenght",
         "did you mean \"length\"?"},
        {"nice = 5", "nice = \"five\"", "tasks[1].nice", "expected an integer, got a string"},
        {"cpus = 2", "cpus = 2.0", "machine.cpus",
         "expected an integer, got a floating-point number"},
        {"affinity = [0]", "affinity = [0, \"1\"]", "tasks[0].affinity[1]",
         "expected an integer, got a string"},
        {"affinity = [0]", "affinity = 0", "tasks[0].affinity", "expected an array"},
        {"length = \"2s\"", "length = \"5 parsecs\"", "length", "\"5 parsecs\" is not a duration"},
        {"length = \"2s\"", "length = 2.5", "length", "got a floating-point number"},
        {"hz = 250", "hz = 123", "machine.hz", "123"},
        {"kernel = \"6.8\"", "kernel = \"4.19\"", "machine.kernel", "4.19 is outside"},
        {"kernel = \"6.8\"", "kernel = \"banana\"", "machine.kernel",
         "\"banana\" is not a kernel release"},
        {"kernel = \"6.8\"", "kernel = 6.10", "machine.kernel", "6.10 would read as 6.1"},
        {"name = \"b\"", "name = \"a\"", "tasks[1].name", "already the name of tasks[0]"},
        {"nice = 5", "nice = 5\npolicy = \"deadline\"", "tasks[1].policy",
         "\"deadline\" is not one of \"normal\", \"batch\", \"idle\", \"fifo\", \"rr\""},
        {"nice = 5", "nice = 5\npolicy = \"fifo\"", "tasks[1].rt_priority",
         "missing: must be 1-99 for policy \"fifo\""},
        {"nice = 5", "nice = 5\npolicy = \"rr\"\nrt_priority = 100", "tasks[1].rt_priority",
         "100: must be 1-99 for policy \"rr\""},
        {"nice = 5", "nice = 5\nrt_priority = 10", "tasks[1].rt_priority",
         "only policies \"fifo\" and \"rr\" have one, not policy \"normal\""},
        {"hz = 250", "hz = 250\nsched_rt_runtime = \"1.5s\"", "machine.sched_rt_runtime",
         "is above machine.sched_rt_period"},
        {"hz = 250", "hz = 250\nsched_rt_period = 0", "machine.sched_rt_period", "is not positive"},
        {"hz = 250", "hz = 250\nsched_rt_period = \"500ms\"", "machine.sched_rt_period",
         "500ms is below the default sched_rt_runtime (950ms)"},
        {"kernel = \"6.8\"", "kernel = \"6.12\"\nfair_server_period = \"10ms\"",
         "machine.fair_server_period", "10ms is below the default fair_server_runtime (50ms)"},
        {"hz = 250", "hz = 250\nsched_rr_timeslice = \"1.5ms\"", "machine.sched_rr_timeslice",
         "not a whole number of milliseconds"},
        {"hz = 250", "hz = 250\nfair_server_runtime = \"10ms\"", "machine.fair_server_runtime",
         "the fair server exists from 6.12"},
        {"hz = 250", "hz = 250\npreempt = \"rt\"", "machine.preempt",
         "\"rt\" is not one of \"none\", \"voluntary\", \"full\", \"lazy\""},
        {"kernel = \"6.8\"", "kernel = \"6.12\"\npreempt = \"lazy\"", "machine.preempt",
         "the lazy preemption model exists from 6.13"},
        {"nice = 5", "nice = 5\nbehaviour = \"periodic\"", "tasks[1].behaviour",
         "needs its run and sleep times"},
        {"nice = 5", "nice = 5\nbehaviour = { type = \"periodic\", run = \"1ms\" }",
         "tasks[1].behaviour.sleep", "missing"},
        {"nice = 5",
         "nice = 5\nbehaviour = { type = \"periodic\", run = \"1ms\", sleep = 0, "
         "jitter = 1 }",
         "tasks[1].behaviour.jitter", "unknown key"},
        {"nice = 5",
         "nice = 5\nbehaviour = { type = \"random\", run = { dist = \"uniform\", low = 1, "
         "mean = 2 }, sleep = 0 }",
         "tasks[1].behaviour.run.high", "missing"},
        {"nice = 5",
         "nice = 5\nbehaviour = { type = \"random\", run = { dist = \"normal\", mean = 2 }, "
         "sleep = 0 }",
         "tasks[1].behaviour.run.dist", "is not one of"},
        {"nice = 5", "nice = 5\nrenice = [{ at = \"1s\", nice = 3, why = \"\" }]",
         "tasks[1].renice[0].why", "unknown key"},
        {"nice = 5", "nice = 5\nrenice = [{ at = \"9s\", nice = 3 }]", "tasks[1].renice[0].at",
         "outside the run"},
        {"kernel = \"6.8\"", "kernel = \"6.8\"\n[machine.features]\nrun_to_parity = 1",
         "machine.features.run_to_parity", "expected a boolean"},
        {"kernel = \"6.8\"", "kernel = \"5.4\"\n[machine.features]\nrun_to_parity = true",
         "machine.features.run_to_parity", "RUN_TO_PARITY is not in kernel 5.4"},
        {"reference = \"b\"", "reference = \"z\"", "reference", "names no [[tasks]] entry"},
        {"reference = \"b\"", "reference = \"b\"\nseed = -1", "seed", "negative"},
        {"nice = 5", "nice = 5\n[measured]\nshare = { a = 0.5, q = 0.5 }", "measured.share.q",
         "names no [[tasks]] entry"},
        {"nice = 5", "nice = 5\n[measured]\nshare = { a = \"half\" }", "measured.share.a",
         "expected a number"},
        {"nice = 5", "nice = 5\n[measured]\ntolerance = { shares = 0.01 }",
         "measured.tolerance.shares", "did you mean \"share\""},
        {"nice = 5", "nice = 5\n[measured]\ntolerance = { ratio = -0.01 }",
         "measured.tolerance.ratio", "is not a tolerance"},
    };
    for (const mistake& m : mistakes) {
        const scenario_error e = error_of(replaced(m.from, m.to));
        INFO(e.what());
        CHECK(e.field() == m.field);
        CHECK(contains(e.reason(), m.says));
        CHECK(e.origin() == "bad.toml");
        CHECK(contains(e.what(), std::string{"bad.toml: "} + m.field + ": "));
    }
}

TEST_CASE("every mistake in reading a file is reported, each with its line") {
    const scenario_error e = error_of(R"(name = "many"
lenght = "2s"
window = ["1 parsec", 5]
repetitions = "three"
[machine]
cpus = 2.0
hz = 250
scaling = "lin"
[[tasks]]
name = "a"
affinity = [0, "1", true]
behaviour = { type = "periodic", run = "1.5ns" }
[[tasks]]
name = 7
nice = 42
renice = [{ at = "1s" }, 3]
[measured]
share = { a = "half" }
)");
    struct expected {
        const char* field;
        const char* says;
    };
    const std::vector<expected> all = {
        {"window.start", "\"1 parsec\" is not a duration"},
        {"repetitions", "expected an integer, got a string (line 4)"},
        {"machine.cpus", "expected an integer, got a floating-point number (line 6)"},
        {"machine.scaling", "\"lin\" is not one of \"none\", \"log\", \"linear\" (line 8)"},
        {"tasks[0].affinity[1]", "expected an integer, got a string (line 11)"},
        {"tasks[0].affinity[2]", "expected an integer, got a boolean (line 11)"},
        {"tasks[0].behaviour.run", "\"1.5ns\" is not a duration"},
        {"tasks[0].behaviour.sleep", "missing: a periodic task needs a sleep or a period"},
        {"tasks[1].name", "expected a string, got an integer (line 14)"},
        {"tasks[1].renice[0].nice", "missing (line 16)"},
        {"tasks[1].renice[1]", "expected a table, got an integer (line 16)"},
        {"measured.share.a", "expected a number, got a string (line 18)"},
        {"lenght", "unknown key; did you mean \"length\"? (line 2)"},
    };
    INFO(e.what());
    REQUIRE(e.errors().size() == all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        CHECK(e.errors()[i].field == all[i].field);
        CHECK(contains(e.errors()[i].reason, all[i].says));
    }
    // The values are checked only once the file reads: nice = 42 comes out then.
    CHECK_FALSE(contains(e.what(), "tasks[1].nice"));
    CHECK(e.field() == "window.start");
    CHECK(contains(e.what(), "bad.toml: window.start: "));
    CHECK(contains(e.what(), "\nbad.toml: lenght: unknown key"));
}

TEST_CASE("every value error in a file that reads is reported, each with its line") {
    const scenario_error e = error_of(replaced("hz = 250", "hz = 123")
                                          .replace(base.find("nice = 5"), 8, "nice = 42")
                                          .append("start = \"3s\"\n"));
    INFO(e.what());
    REQUIRE(e.errors().size() == 3);
    CHECK(e.errors()[0].field == "machine.hz");
    CHECK(contains(e.errors()[0].reason, "(line 6)"));
    CHECK(e.errors()[1].field == "tasks[1].nice");
    CHECK(contains(e.errors()[1].reason, "42 is outside [-20, 19] (line 13)"));
    CHECK(e.errors()[2].field == "tasks[1].start");
    CHECK(contains(e.errors()[2].reason, "outside the run [0s, 2s) (line 14)"));
}

TEST_CASE("errors found after parsing point at the line of the field") {
    const scenario_error e = error_of(replaced("nice = 5", "nice = 42"));
    CHECK(contains(e.reason(), "(line 13)"));
    const scenario_error cpu = error_of(replaced("affinity = [0]", "affinity = [7]"));
    CHECK(contains(cpu.reason(), "(line 10)"));
}

TEST_CASE("TOML syntax errors give the line and column") {
    const scenario_error e = error_of(replaced("cpus = 2", "cpus = = 2"));
    CHECK(e.field().empty());
    CHECK(contains(e.what(), "bad.toml: TOML syntax error at line 5, column "));
}

TEST_CASE("a file without tasks, or with tasks as a plain table, is rejected") {
    CHECK(error_of("").field() == "tasks");
    CHECK(error_of("[tasks]\nname = \"a\"\n").field() == "tasks");
}

TEST_CASE("load_scenario reports missing files and directories by name") {
    const auto missing = std::filesystem::temp_directory_path() / "libsched-no-such-file.toml";
    try {
        load_scenario(missing);
        FAIL("no error for a missing file");
    } catch (const scenario_error& e) {
        CHECK(e.origin() == missing.string());
        CHECK(contains(e.what(), "no such file"));
    }
    CHECK_THROWS_WITH(load_scenario(std::filesystem::temp_directory_path()),
                      Catch::Contains("is a directory"));
    CHECK_THROWS_WITH(load_scenario(""), "\"\" is an empty path, not a scenario file");

    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const auto file =
        std::filesystem::temp_directory_path() / (std::to_string(now) + "-libsched-load.toml");
    std::ofstream(file) << base;
    CHECK(load_scenario(file).name == "pair");
    std::filesystem::remove(file);
}

namespace {

// A folder with a data file of measurements, removed at the end of the test.
class data_folder {
public:
    data_folder() {
        const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        dir_ = std::filesystem::temp_directory_path() / (std::to_string(now) + "-libsched-data");
        std::filesystem::create_directories(dir_ / "data");
        std::ofstream(dir_ / "data" / "figures.json") << R"({"experiments": [{
            "id": "single-core",
            "pairs": [{"nice": [0, 5], "share_percent": [75, 25]}],
            "equal": {"n": 2, "per_process_approx": 480, "total": 1000},
            "alone": [{"nice": 0, "work": 118215}]}]})";
    }
    ~data_folder() { std::filesystem::remove_all(dir_); }
    data_folder(const data_folder&) = delete;
    data_folder& operator=(const data_folder&) = delete;

    // base with a [measured] table, parsed as a file of this folder.
    scenario parse(const std::string& measured) const {
        return parse_scenario(base + "[measured]\n" + measured, (dir_ / "replay.toml").string());
    }
    scenario_error error(const std::string& measured) const {
        try {
            parse(measured);
        } catch (const scenario_error& e) {
            return e;
        }
        FAIL("parse_scenario() accepted:\n" << measured);
        return {"", ""};
    }

private:
    std::filesystem::path dir_;
};

const std::string pair_figure = R"(data = "data/figures.json"
experiment = "single-core"
figure = "pairs[0]"
entries = ["a", "b"]
)";

} // namespace

TEST_CASE("measured figures can come from a data file, relative to the scenario") {
    const data_folder folder;
    const scenario pair = folder.parse(pair_figure);
    CHECK(pair.measured.share == std::map<std::string, double>{{"a", 0.75}, {"b", 0.25}});
    // ratio = share / the reference's share (b)
    REQUIRE(pair.measured.ratio.size() == 1);
    CHECK(pair.measured.ratio.at("a") == Approx(3.0));
    CHECK(pair.measured.source == "data/figures.json: single-core, pairs[0]");

    const scenario equal = folder.parse(R"(source = "notes"
data = "data/figures.json"
experiment = "single-core"
figure = "equal"
entries = ["a", "b"]
tolerance = { share = 0.001 }
)");
    CHECK(equal.measured.share == std::map<std::string, double>{{"a", 0.48}, {"b", 0.48}});
    CHECK(equal.measured.ratio.at("a") == 1.0);
    CHECK(equal.measured.source == "notes");
    CHECK(equal.measured.tolerance.share == 0.001);
}

TEST_CASE("a data reference's mistakes name the field") {
    const data_folder folder;
    struct mistake {
        std::string from, to, field, reason;
    };
    const std::vector<mistake> mistakes = {
        {"\"single-core\"", "\"single-cores\"", "measured.experiment",
         "no experiment \"single-cores\" in data/figures.json; did you mean \"single-core\"?"},
        {"data/figures.json", "data/none.json", "measured.data", "cannot read data/none.json"},
        {"pairs[0]", "pairs[1]", "measured.figure", "\"pairs\" has 1 elements"},
        {"pairs[0]", "pairs[x]", "measured.figure", "is not KEY or KEY[INDEX]"},
        {"pairs[0]", "trios[0]", "measured.figure", "no \"trios\" in experiment single-core"},
        {"pairs[0]", "alone[0]", "measured.figure", "has neither share_percent nor per_process"},
        {"[\"a\", \"b\"]", "[\"a\"]", "measured.entries", "1 names for the 2 processes"},
        {"[\"a\", \"b\"]", "[\"b\", \"a\"]", "measured.entries[0]",
         "entry b has nice 5 but pairs[0] measured nice 0"},
        {"[\"a\", \"b\"]", "[\"a\", \"bb\"]", "measured.entries[1]", "names no [[tasks]] entry"},
        {"figure = \"pairs[0]\"\n", "", "measured.figure", "missing; measured.data needs it"},
        {"data = \"data/figures.json\"\n", "", "measured.experiment", "needs measured.data"},
        {"experiment", "share = { a = 0.5 }\nexperiment", "measured.data", "not both"},
    };
    for (const mistake& m : mistakes) {
        std::string text = pair_figure;
        const auto at = text.find(m.from);
        REQUIRE(at != std::string::npos);
        const scenario_error e = folder.error(text.replace(at, m.from.size(), m.to));
        INFO(e.what());
        CHECK(e.field() == m.field);
        CHECK(contains(e.reason(), m.reason));
    }
}

TEST_CASE("every bundled scenario parses and validates") {
#ifdef LIBSCHED_SOURCE_DIR
    const std::filesystem::path examples = std::filesystem::path{LIBSCHED_SOURCE_DIR} / "examples";
    REQUIRE(std::filesystem::is_directory(examples));
    int files = 0;
    for (const std::filesystem::path& path : bundled_examples::scenario_files(examples)) {
        INFO(path.string());
        ++files;
        scenario sc;
        REQUIRE_NOTHROW(sc = load_scenario(path));
        // Two seed 000 replays ask for nice 20, as their source did.
        for (const std::string& w : validate(sc)) {
            INFO(w);
            CHECK(w == "tasks[1].nice: 20 clamped to 19 as setpriority() does");
        }
        if (path.parent_path().filename() != "replays")
            continue;
        const measured_spec& m = sc.measured;
        // A replay of an experiment nothing was measured of (seed003) has no [measured]
        // table and says so; it is shown, never judged.
        if (m.source.empty() && m.share.empty() && m.ratio.empty() && !m.groups) {
            CHECK(sc.description.find("No measurement") != std::string::npos);
            continue;
        }
        if (m.groups) { // a replay states its tolerances, unless it is only shown
            CHECK((!m.judged || (m.tolerance.ratio && m.tolerance.jratio)));
            continue;
        }
        if (!m.judged && m.share.empty() && m.ratio.empty())
            continue; // shown only: no measurement of it exists yet
        CHECK_FALSE(m.share.empty());
        CHECK(m.tolerance.share);
        CHECK((m.ratio.empty() || m.tolerance.ratio));
    }
    CHECK(files >= 7);
#else
    WARN("LIBSCHED_SOURCE_DIR is not defined: the bundled scenarios were not checked");
#endif
}

TEST_CASE("the documentation states the HZ choices and the releases the code accepts") {
#ifdef LIBSCHED_SOURCE_DIR
    const auto text_of = [](const char* doc) {
        std::ifstream in(std::filesystem::path{LIBSCHED_SOURCE_DIR} / "docs" / doc);
        REQUIRE(in);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    const std::string format = text_of("scenario-format.md");
    CHECK(contains(format, "`CONFIG_HZ`: " + supported_hz_text() + " |"));
    const std::string oldest = oldest_modelled_kernel.str(), newest = newest_modelled_kernel.str();
    CHECK(contains(format, "`\"" + oldest + "\"` to `\"" + newest + "\"`"));
    CHECK(contains(text_of("model.md"), "Releases accepted: " + oldest + " \u2013 " + newest));
#else
    WARN("LIBSCHED_SOURCE_DIR is not defined: the documentation was not checked");
#endif
}

TEST_CASE("the kernel may be given as uname -r prints it") {
    const auto kernel_of = [](const std::string& text) {
        return parse_scenario("[machine]\nkernel = \"" + text + "\"\n[[tasks]]\nname = \"x\"\n",
                              "k.toml")
            .machine.kernel;
    };
    CHECK(kernel_of("5.15.0-190-generic") == kernel_version{5, 15});
    CHECK(kernel_of("6.12.30").patch == 30);
    CHECK(kernel_of("6.8.0+").str() == "6.8");
}

TEST_CASE("a patch level is read and selects its rules, a bare series is its first release") {
    // The patch level selects the backported rules (sched/stable_fix.hpp): 6.12.30 is
    // modelled as such, a bare 6.12 as 6.12.0 (`libsched features` says which fixes each
    // has); neither is a warning.
    scenario sc =
        parse_scenario("[machine]\nkernel = \"6.12.30\"\n[[tasks]]\nname = \"x\"\n", "k.toml");
    CHECK(sc.machine.kernel.patch == 30);
    CHECK(validate(sc).empty());
    sc.machine.kernel = {6, 12};
    CHECK(validate(sc).empty());
}

TEST_CASE("an empty affinity list is an error, not every CPU") {
    try {
        parse_scenario("[[tasks]]\nname = \"x\"\naffinity = []\n", "a.toml");
        FAIL("accepted an empty affinity");
    } catch (const scenario_error& e) {
        CHECK(e.field() == "tasks[0].affinity");
    }
}

TEST_CASE("machine.topology: a preset or a shape gives the CPUs and their count") {
    const scenario vm = parse_scenario(replaced("cpus = 2", "topology = \"1c2t\""), "vm.toml");
    REQUIRE(vm.machine.topology);
    CHECK(vm.machine.cpus == 2);
    CHECK(vm.machine.topology->same_core(0, 1));

    const scenario box = parse_scenario(
        replaced("cpus = 2", "topology = { packages = 2, cores = 4, threads = 2 }"), "box.toml");
    REQUIRE(box.machine.topology);
    CHECK(box.machine.cpus == 16);
    CHECK(box.machine.topology->nr_nodes() == 2);
    CHECK(box.machine.topology->same_core(0, 8));
    CHECK_FALSE(box.machine.topology->same_package(0, 4));

    // A shape's left-out members are 1; LLCs and nodes split a package's cores.
    const scenario amd = parse_scenario(
        replaced("cpus = 2", "cpus = 8\ntopology = { cores = 8, llcs = 2, nodes = 2 }"), "a.toml");
    REQUIRE(amd.machine.topology);
    CHECK(amd.machine.cpus == 8);
    CHECK(amd.machine.topology->same_llc(0, 3));
    CHECK_FALSE(amd.machine.topology->same_node(3, 4));

    // Without a topology the machine has none, and cpus cores (topology_of).
    CHECK_FALSE(parse_scenario(base, "p.toml").machine.topology);
}

TEST_CASE("machine.topology mistakes name the field") {
    struct mistake {
        const char* to; // in place of "cpus = 2"
        const char* field;
        const char* says;
    };
    const std::vector<mistake> mistakes = {
        {"topology = \"1c2tt\"", "machine.topology", "did you mean \"1c2t\"?"},
        {"topology = \"1c2tt\"", "machine.topology", "\"2s32c2t\""},
        {"topology = \"hostt\"", "machine.topology", "did you mean \"host\"?"},
        {"topology = 4", "machine.topology", "expected a preset name such as \"1c2t\""},
        {"topology = { packages = 1, core = 4 }", "machine.topology.core",
         "unknown key; did you mean \"cores\"?"},
        {"topology = { cores = \"4\" }", "machine.topology.cores", "expected an integer"},
        {"topology = { cores = 0 }", "machine.topology.cores", "0 is outside [1, 4096]"},
        {"topology = { cores = 6, llcs = 4 }", "machine.topology.llcs",
         "4 LLCs cannot share 6 cores a package evenly"},
        {"topology = { cores = 4, nodes = 2 }", "machine.topology.nodes",
         "2 nodes cannot share 1 LLCs"},
        {"topology = { packages = 64, cores = 64, threads = 2 }", "machine.topology.cores",
         "8192 CPUs, more than 4096"},
        {"cpus = 4\ntopology = \"1c2t\"", "machine.cpus",
         "4 but machine.topology has 2 CPUs (leave cpus out to take the topology's)"},
    };
    for (const mistake& m : mistakes) {
        const scenario_error e = error_of(replaced("cpus = 2", m.to));
        INFO(e.what());
        CHECK(e.field() == m.field);
        CHECK(contains(e.reason(), m.says));
    }
    // Affinity is checked against the topology's CPUs.
    std::string one_cpu = replaced("cpus = 2", "topology = \"1c\"");
    one_cpu.replace(one_cpu.find("affinity = [0]"), 14, "affinity = [1]");
    const scenario_error e = error_of(one_cpu);
    CHECK(e.field() == "tasks[0].affinity");
    CHECK(contains(e.reason(), "affinity to CPU 1 but the machine has 1 CPU"));
}

TEST_CASE("topology = \"host\" reads this machine when the file is loaded") {
    std::error_code ec;
    if (!std::filesystem::exists("/sys/devices/system/cpu/online", ec))
        return; // not Linux, or no sysfs
    const scenario sc = parse_scenario(replaced("cpus = 2", "topology = \"host\""), "h.toml");
    REQUIRE(sc.machine.topology);
    CHECK(sc.machine.cpus == read_host_topology().nr_cpus());
    CHECK(sc.machine.cpus >= 1);
}

TEST_CASE("set_affinity and cpusets are read, their errors name the field") {
    const scenario sc = parse_scenario(R"(
[machine]
cpus = 4
[machine.cpusets]
pair = [2, 3]
[[tasks]]
name = "a"
cpuset = "pair"
set_affinity = [{ at = "1s", cpus = [3] }]
)",
                                       "a.toml");
    CHECK(sc.machine.cpusets.at("pair") == std::vector<int>{2, 3});
    REQUIRE(sc.tasks[0].set_affinity.size() == 1);
    CHECK(sc.tasks[0].set_affinity[0].at == nsec_per_sec);
    CHECK(sc.tasks[0].set_affinity[0].cpus == std::vector<int>{3});
    CHECK(sc.tasks[0].cpuset == "pair");
    const auto field_of = [](const std::string& text) {
        try {
            parse_scenario(text, "a.toml");
        } catch (const scenario_error& e) {
            return e.field();
        }
        return std::string{"accepted"};
    };
    CHECK(field_of("[machine]\ncpus = 2\n[[tasks]]\nname = \"a\"\nset_affinity = [{ at = "
                   "\"1s\", cpus = [\"1\"] }]\n") == "tasks[0].set_affinity[0].cpus[0]");
    CHECK(field_of("[machine]\ncpus = 2\n[[tasks]]\nname = \"a\"\nset_affinity = [{ at = "
                   "\"1s\" }]\n") == "tasks[0].set_affinity[0].cpus");
    CHECK(field_of("[machine]\ncpus = 2\n[machine.cpusets]\nx = [5]\n[[tasks]]\nname = "
                   "\"a\"\n") == "machine.cpusets.x");
    CHECK(field_of("[machine]\ncpus = 2\n[[tasks]]\nname = \"a\"\ncpuset = \"x\"\n") ==
          "tasks[0].cpuset");
}

TEST_CASE("machine.newidle_ratio: one rate or one per CPU, and errors that name the field") {
    const auto ratio_of = [](const std::string& value) {
        return parse_scenario("[machine]\ncpus = 2\nkernel = \"6.19\"\nnewidle_ratio = " + value +
                                  "\n[[tasks]]\nname = \"a\"\n",
                              "a.toml")
            .machine.newidle_ratio;
    };
    CHECK(ratio_of("100") == std::vector<int>{100});
    CHECK(ratio_of("[66, 136]") == std::vector<int>{66, 136});
    const auto field_of = [&](const std::string& value) {
        try {
            ratio_of(value);
        } catch (const scenario_error& e) {
            return e.field();
        }
        return std::string{"accepted"};
    };
    CHECK(field_of("\"half\"") == "machine.newidle_ratio");
    CHECK(field_of("[66, 0.5]") == "machine.newidle_ratio[1]");
    CHECK(field_of("[66, 2000]") == "machine.newidle_ratio[1]");
    CHECK(field_of("[66, 136, 1]") == "machine.newidle_ratio");
}

// Times a run's clock cannot reach without overflowing are errors naming the field, not
// wrapped or clamped results (a sleep, a lifetime, a launch gap of about 2^63 ns).
TEST_CASE("a time that would overflow the clock names its field") {
    const std::pair<const char*, const char*> cases[] = {
        {"behaviour = { type = \"periodic\", run = \"1ms\", sleep = \"9223372036.854s\" }\n",
         "tasks[0].behaviour.sleep"},
        {"start = \"1ms\"\nlifetime = \"9223372036.854s\"\n", "tasks[0].lifetime"},
        {"count = 3\nstagger = \"4611686018.427387904s\"\n", "tasks[0].stagger"},
    };
    for (const auto& [task, field] : cases) {
        const std::string text = std::string{"length = \"1s\"\n[[tasks]]\nname = \"a\"\n"} + task;
        INFO(text);
        try {
            parse_scenario(text, "o.toml");
            FAIL("accepted");
        } catch (const scenario_error& e) {
            CHECK(e.field() == field);
            CHECK_THAT(e.what(), Catch::Contains("representable time"));
        }
    }
}

TEST_CASE("a misspelt key inside a table is named beside the key it should be") {
    const scenario_error e = error_of(
        "[[tasks]]\nname = \"a\"\nbehaviour = { type = \"random\", sleep = \"1ms\", run = { dist "
        "= \"uniform\", low = \"1ms\", hihg = \"2ms\" } }\n");
    // A transposition is one edit: the typo is suggested both ways.
    CHECK_THAT(e.what(), Catch::Contains("tasks[0].behaviour.run.high: missing; \"hihg\" may be "
                                         "it, misspelt"));
    CHECK_THAT(e.what(),
               Catch::Contains("tasks[0].behaviour.run.hihg: unknown key; did you mean \"high\"?"));
}

TEST_CASE("names with control characters are rejected and never printed raw") {
    const scenario_error e = error_of("[[tasks]]\nname = \"a\\u001b[31mred\\nline\"\n");
    CHECK(e.field() == "tasks[0].name");
    CHECK_THAT(e.reason(), Catch::Contains("control character"));
    const scenario_error key = error_of("[[tasks]]\nname = \"a\"\n\"ni\\u001bce\" = 1\n");
    const std::string what = key.what();
    CHECK(what.find('\x1b') == std::string::npos);
    CHECK_THAT(what, Catch::Contains("tasks[0].ni\\x1bce: unknown key"));
    const scenario_error session = error_of("[[tasks]]\nname = \"a\"\nsession = \"s\\n\"\n");
    CHECK(session.field() == "tasks[0].session");
}

TEST_CASE("RT policies and the RT machine keys") {
    const scenario sc = parse_scenario(R"(
[machine]
kernel = "6.18"
sched_rt_runtime = "unlimited"
sched_rt_period = "500ms"
sched_rr_timeslice = "20ms"
rt_group_sched = true
fair_server_runtime = "40ms"
fair_server_period = "800ms"

[[tasks]]
name = "fwd"
policy = "fifo"
rt_priority = 80

[[tasks]]
name = "rr"
policy = "rr"
rt_priority = 1
)",
                                       "rt.toml");
    CHECK(sc.tasks[0].policy == sched_policy::fifo);
    CHECK(sc.tasks[0].rt_priority == 80);
    CHECK(sc.tasks[1].policy == sched_policy::rr);
    CHECK(sc.machine.sched_rt_runtime == runtime_inf);
    CHECK(sc.machine.sched_rt_period == 500 * nsec_per_msec);
    CHECK(sc.machine.sched_rr_timeslice == 20 * nsec_per_msec);
    CHECK(sc.machine.rt_group_sched);
    CHECK(sc.machine.fair_server_runtime == 40 * nsec_per_msec);
    CHECK(sc.machine.fair_server_period == 800 * nsec_per_msec);
    CHECK(parse_scenario("[machine]\nsched_rt_runtime = -1\n[[tasks]]\nname = \"x\"\n", "m.toml")
              .machine.sched_rt_runtime == runtime_inf);
}

TEST_CASE("a sweep file is not a scenario file: the error says what runs it") {
    try {
        (void)parse_scenario("length = \"1s\"\n[sweep.axes]\n\"tasks.a.nice\" = [0, 1]\n", "<t>");
        FAIL("a [sweep] table was accepted");
    } catch (const scenario_error& e) {
        CHECK(e.field() == "sweep");
        CHECK(contains(e.reason(), "libsched sweep"));
    }
}

} // namespace test_scenario_toml
