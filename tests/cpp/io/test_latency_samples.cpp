// latency_samples = "entry": the distributions kept per [[tasks]] entry. The entries' rows
// must be what pooling per-task samples gives, the tasks must keep their exact count, sum
// and extremes, and nothing else of the run may change.
#include <catch2/catch.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <string>

using namespace libsched;

namespace test_latency_samples {

namespace {

// Every kind of sample: lateness (absolute timer), wakeup latency and run delay of random
// sleepers (enough distinct values to fold), loop times of a ping-pong, beside burners.
const std::string toml = R"(
name = "pooled"
length = "3s"
window = ["500ms", "3s"]
repetitions = 2
[machine]
cpus = 2
[[tasks]]
name = "timer"
count = 3
behaviour = { type = "periodic", run = "300us", period = "4ms" }
[[tasks]]
name = "sleeper"
count = 4
behaviour = { type = "random", run = { dist = "uniform", low = "50us", high = "2ms" }, sleep = { dist = "exponential", mean = "3ms" } }
[[tasks]]
name = "burner"
count = 2
[[tasks]]
name = "ping"
behaviour = { type = "steps", steps = [{ run = "200us" }, { sem_post = "to_pong" }, { sem_wait = "to_ping" }] }
[[tasks]]
name = "pong"
behaviour = { type = "steps", steps = [{ sem_wait = "to_pong" }, { run = "300us" }, { sem_post = "to_ping" }] }
)";

void check_same_summary(const stats::sample_summary& a, const stats::sample_summary& b) {
    CHECK(a.count == b.count);
    CHECK(a.mean == b.mean);
    CHECK(a.min == b.min);
    CHECK(a.p50 == b.p50);
    CHECK(a.p90 == b.p90);
    CHECK(a.p99 == b.p99);
    CHECK(a.p99_9 == b.p99_9);
    CHECK(a.max == b.max);
    CHECK(a.percentiles == b.percentiles);
}

void check_statistics_of(const duration_samples& only, const duration_samples& full) {
    CHECK_FALSE(only.values_kept());
    CHECK(only.size() == full.size());
    CHECK(only.sum() == full.sum());
    CHECK(only.min() == full.min());
    CHECK(only.max() == full.max());
}

} // namespace

TEST_CASE("per-entry samples give the entries' rows of per-task samples and change nothing else") {
    const scenario per_task = parse_scenario(toml, "pooled.toml");
    scenario per_entry = per_task;
    per_entry.latency_samples = sample_scope::entry;
    const run_result a = simulate(per_task);
    const run_result b = simulate(per_entry);
    REQUIRE(a.repetitions.size() == 2);
    REQUIRE(b.repetitions.size() == 2);

    for (std::size_t r = 0; r < 2; ++r) {
        const repetition_result& x = a.repetitions[r];
        const repetition_result& y = b.repetitions[r];
        CHECK(x.entries.empty());
        REQUIRE(y.entries.size() == per_task.tasks.size());
        for (std::size_t e = 0; e < y.entries.size(); ++e)
            CHECK(y.entries[e].entry == per_task.tasks[e].name);
        for (std::size_t i = 0; i < x.tasks.size(); ++i) {
            INFO(x.tasks[i].name);
            check_statistics_of(y.tasks[i].wakeup_latency, x.tasks[i].wakeup_latency);
            check_statistics_of(y.tasks[i].lateness, x.tasks[i].lateness);
            check_statistics_of(y.tasks[i].run_delay, x.tasks[i].run_delay);
            check_statistics_of(y.tasks[i].loop_time, x.tasks[i].loop_time);
            CHECK(y.tasks[i].run_delay_max_at == x.tasks[i].run_delay_max_at);
            CHECK(y.tasks[i].loops == x.tasks[i].loops);
        }
        // The schedule itself: the samples are only kept elsewhere.
        CHECK(x.events == y.events);
        for (std::size_t i = 0; i < x.tasks.size(); ++i) {
            CHECK(x.tasks[i].window_runtime == y.tasks[i].window_runtime);
            CHECK(x.tasks[i].nvcsw == y.tasks[i].nvcsw);
            CHECK(x.tasks[i].nivcsw == y.tasks[i].nivcsw);
            CHECK(x.tasks[i].nr_migrations == y.tasks[i].nr_migrations);
        }
    }

    const auto rows_a = stats::summarize_entries(a, per_task);
    const auto rows_b = stats::summarize_entries(b, per_entry);
    REQUIRE(rows_a.size() == rows_b.size());
    for (std::size_t e = 0; e < rows_a.size(); ++e) {
        INFO(rows_a[e].entry);
        check_same_summary(rows_a[e].wakeup_latency, rows_b[e].wakeup_latency);
        check_same_summary(rows_a[e].lateness, rows_b[e].lateness);
        check_same_summary(rows_a[e].run_delay, rows_b[e].run_delay);
        check_same_summary(rows_a[e].loop_time, rows_b[e].loop_time);
        CHECK(rows_a[e].share == rows_b[e].share);
        CHECK(rows_a[e].loops == rows_b[e].loops);
    }
    // The comparison covers every kind, and pools past the exact range.
    const auto entry = [&](const char* name) {
        for (const auto& row : rows_a)
            if (row.entry == name)
                return row;
        FAIL(name);
        return rows_a.front();
    };
    CHECK(entry("timer").lateness.count > 100);
    CHECK(entry("sleeper").wakeup_latency.count > 1000);
    CHECK(entry("ping").loop_time.count > 100);
    bool folded = false;
    for (const repetition_result& rep : b.repetitions)
        for (const entry_samples& pool : rep.entries)
            folded = folded || (pool.run_delay.size() > 0 && !pool.run_delay.exact());
    CHECK(folded);
    // Per task, only what was kept: no percentiles, the rest as before.
    const auto tasks_b = stats::summarize_tasks(b, per_entry);
    for (const auto& row : tasks_b)
        if (row.wakeup_latency.count > 0)
            CHECK_FALSE(row.wakeup_latency.percentiles);
}

TEST_CASE("per-entry samples in JSON: task percentiles null, the entries' in the summary") {
    const scenario sc = parse_scenario("latency_samples = \"entry\"\n" + toml, "pooled.toml");
    REQUIRE(sc.latency_samples == sample_scope::entry);
    const nlohmann::json j = to_json(simulate(sc), sc);
    const nlohmann::json& timer = j["repetitions"][0]["tasks"][0];
    REQUIRE(timer["name"] == "timer.0");
    CHECK(timer["lateness"]["count"].get<int>() > 0);
    CHECK(timer["lateness"]["mean"].is_number());
    CHECK(timer["lateness"]["max"].is_number());
    for (const char* p : {"p50", "p90", "p99", "p99_9"}) {
        CHECK(timer["lateness"][p].is_null());
        CHECK(timer["wakeup_latency"][p].is_null());
        CHECK(timer["run_delay"][p].is_null());
    }
    const nlohmann::json& row = j["summary"][0];
    REQUIRE(row["entry"] == "timer");
    CHECK(row["lateness"]["p99"].is_number());
    CHECK(row["wakeup_latency"]["p50"].is_number());
}

TEST_CASE("latency_samples takes task or entry, and names itself otherwise") {
    CHECK(parse_scenario("latency_samples = \"task\"\n[[tasks]]\nname = \"a\"\n", "t.toml")
              .latency_samples == sample_scope::task);
    try {
        parse_scenario("latency_samples = \"entries\"\n[[tasks]]\nname = \"a\"\n", "t.toml");
        FAIL("accepted");
    } catch (const scenario_error& e) {
        CHECK(e.field() == "latency_samples");
        CHECK_THAT(e.what(), Catch::Contains("entry"));
    }
}

} // namespace test_latency_samples
