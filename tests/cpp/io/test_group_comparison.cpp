// stats/group_comparison.hpp: two-group figures (A over B by getrusage and by jiffies, perf
// stat's counters), their medians over repetitions, the weight-table theory; and the
// [measured] form that reads a two-group figure from a data file.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/stats/group_comparison.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace libsched;

namespace test_group_comparison {

namespace {

double table_weight(int nice) {
    return sched_prio_to_weight[static_cast<std::size_t>(nice + 20)];
}

task_result task_of(const std::string& entry, std::int64_t ru_us, std::int64_t j0,
                    std::int64_t j1) {
    task_result t;
    t.entry = entry;
    t.ru_utime_us = ru_us;
    t.stat_utime_start = j0;
    t.stat_utime_end = j1;
    return t;
}

group_ratio_spec groups_ab() {
    group_ratio_spec g;
    g.a = "a";
    g.b = "b";
    return g;
}

} // namespace

TEST_CASE("the weight-table theory is A's weight over B's, nice clamped to 19") {
    // The kernel's table: nice -10 at index 10, 0 at 20, 10 at 30, 19 at 39.
    CHECK(stats::weight_theory(0, 10) == Approx(table_weight(0) / table_weight(10)));
    CHECK(stats::weight_theory(0, 10) == Approx(9.309).epsilon(5e-4));  // 1024 / 110
    CHECK(stats::weight_theory(-10, 0) == Approx(9.324).epsilon(5e-4)); // 9548 / 1024
    CHECK(stats::weight_theory(0, 20) == Approx(table_weight(0) / table_weight(19)));
    CHECK(stats::weight_theory(0, 20) == Approx(68.27).epsilon(5e-4)); // 1024 / 15
    CHECK(stats::weight_theory(0, 0) == 1.0);
}

TEST_CASE("a repetition's ratio sums each group's getrusage, its jratio the window's jiffies") {
    repetition_result rep;
    rep.tasks = {task_of("a", 4'000'000, 10, 410), task_of("a", 5'000'000, 0, 500),
                 task_of("b", 600'000, 5, 65), task_of("b", 400'000, 0, 40),
                 task_of("other", 9'000'000, 0, 900)};
    const auto f = stats::figures_of(rep, groups_ab(), 10 * nsec_per_sec);
    CHECK(f.ratio == Approx(9.0 / 1.0));            // (4 + 5) s / (0.6 + 0.4) s
    CHECK(f.jratio == Approx((400.0 + 500) / 100)); // (400 + 500) / (60 + 40)

    rep.tasks[2].ru_utime_us = rep.tasks[3].ru_utime_us = 0;
    rep.tasks[2].stat_utime_end = rep.tasks[2].stat_utime_start;
    rep.tasks[3].stat_utime_end = rep.tasks[3].stat_utime_start;
    const auto none = stats::figures_of(rep, groups_ab(), 10 * nsec_per_sec);
    CHECK_FALSE(none.ratio); // B got nothing: no ratio rather than infinity
    CHECK_FALSE(none.jratio);
}

TEST_CASE("perf stat's counters are sums over the groups' tasks, CPUs utilized per wall time") {
    repetition_result rep;
    for (int i = 0; i < 2; ++i) {
        task_result t = task_of(i == 0 ? "a" : "b", 1, 0, 1);
        t.nvcsw = 3;
        t.nivcsw = 7;
        t.nr_migrations = 2;
        t.sum_exec_runtime = 4 * nsec_per_sec;
        t.started = i * nsec_per_sec; // 0 s and 1 s
        t.exited = (5 + i) * nsec_per_sec;
        rep.tasks.push_back(t);
    }
    const auto f = stats::figures_of(rep, groups_ab(), 10 * nsec_per_sec);
    CHECK(f.perf.context_switches == 20);
    CHECK(f.perf.cpu_migrations == 4);
    CHECK(f.perf.task_clock_ms == 8000);
    CHECK(f.perf.cpus_utilized == Approx(8.0 / 6)); // 8 s of CPU from 0 s to the last exit at 6 s

    rep.tasks[1].exited = -1; // still alive: counted to the end of the run
    CHECK(stats::figures_of(rep, groups_ab(), 8 * nsec_per_sec).perf.cpus_utilized == Approx(1.0));
}

TEST_CASE("the summary takes the median of the repetitions' ratios") {
    scenario sc;
    sc.tasks.resize(2);
    sc.tasks[0].name = "a";
    sc.tasks[1].name = "b";
    sc.tasks[1].nice = 10;
    run_result result;
    // Ratios 3, 9, 5, 1, 7 (jratio the same): median 5.
    for (const std::int64_t a : {3, 9, 5, 1, 7}) {
        repetition_result rep;
        rep.tasks = {task_of("a", a * 1000, 0, a), task_of("b", 1000, 0, 1)};
        result.repetitions.push_back(rep);
    }
    const auto s = stats::summarize_groups(result, sc, groups_ab());
    CHECK(s.ratio == Approx(5));
    CHECK(s.jratio == Approx(5));
    CHECK(s.nice_b == 10);
    CHECK(s.theory == Approx(table_weight(0) / table_weight(10)));

    measured_spec m;
    m.groups = groups_ab();
    m.groups->ratio = 4;  // 5 is 25 % above
    m.groups->jratio = 5; // exactly
    m.tolerance.ratio = 0.2;
    m.tolerance.jratio = 0.03;
    const auto c = stats::compare_groups(s, m);
    REQUIRE(c.size() == 2);
    CHECK(c[0].entry == "a/b");
    CHECK(c[0].quantity == stats::measured_quantity::ratio);
    CHECK(c[0].error == Approx(25));
    CHECK(c[0].within == false);
    CHECK(c[1].quantity == stats::measured_quantity::jratio);
    CHECK(c[1].error == Approx(0));
    CHECK(c[1].within == true);
}

namespace {

// A scenario beside a data file holding one two-group figure (an experiment "x").
struct group_files {
    std::filesystem::path dir;
    nlohmann::json figure = {{"name", "n10"},       {"nice_A", 0},
                             {"nice_B", 10},        {"ratio", {9.1, 9.3, 9.2}},
                             {"ratio_median", 9.2}, {"jratio", {9.5, 9.4, 9.6}},
                             {"jratio_median", 9.5}};
    nlohmann::json experiment = {{"id", "x"},
                                 {"weights", {{"0", 1024}, {"10", 262}}},
                                 {"perf",
                                  {{"context_switches", 4205},
                                   {"cpu_migrations", 79},
                                   {"task_clock_ms", 17990.09},
                                   {"cpus_utilized", 1.977}}}};

    group_files()
        : dir(std::filesystem::temp_directory_path() /
              ("libsched-groups-" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))) {
        std::filesystem::create_directories(dir);
    }
    ~group_files() { std::filesystem::remove_all(dir); }
    group_files(const group_files&) = delete;
    group_files& operator=(const group_files&) = delete;

    scenario load(const std::string& measured_extra = "", int nice_b = 10) const {
        nlohmann::json e = experiment;
        e["combos"] = {figure};
        std::ofstream(dir / "data.json") << nlohmann::json{{"experiments", {e}}}.dump();
        std::ofstream(dir / "s.toml") << "[[tasks]]\nname = \"a\"\ncount = 2\n"
                                      << "[[tasks]]\nname = \"b\"\ncount = 2\nnice = " << nice_b
                                      << "\n[measured]\ndata = \"data.json\"\nexperiment = \"x\"\n"
                                      << "figure = \"combos[0]\"\nentries = [\"a\", \"b\"]\n"
                                      << measured_extra;
        return load_scenario(dir / "s.toml");
    }
};

std::string error_field(const group_files& f, const std::string& extra = "", int nice_b = 10) {
    try {
        f.load(extra, nice_b);
    } catch (const scenario_error& e) {
        return e.field();
    }
    return "(no error)";
}

} // namespace

TEST_CASE("[measured] reads a two-group figure, the source's weights and perf stat") {
    group_files f;
    const scenario sc = f.load("claimed_weights = \"weights\"\nperf_stat = \"perf\"\n"
                               "tolerance = { ratio = 0.03, jratio = 0.04 }\n");
    REQUIRE(sc.measured.groups);
    const group_ratio_spec& g = *sc.measured.groups;
    CHECK(g.a == "a");
    CHECK(g.b == "b");
    CHECK(g.combo == "n10");
    CHECK(g.ratio == 9.2);
    CHECK(g.jratio_runs == std::vector<double>{9.5, 9.4, 9.6});
    CHECK(g.claimed_theory == Approx(1024.0 / 262));
    REQUIRE(sc.measured.perf_stat);
    CHECK(sc.measured.perf_stat->context_switches == 4205);
    CHECK(sc.measured.perf_stat->cpus_utilized == 1.977);
    CHECK(sc.measured.tolerance.jratio == 0.04);
    CHECK(sc.measured.judged);
    CHECK(sc.measured.share.empty());
    CHECK_FALSE(f.load("judged = false\n").measured.judged);
}

TEST_CASE("a bad two-group figure is an error naming the field") {
    group_files f;
    CHECK(error_field(f, "", 5) == "measured.entries[1]"); // nice 5 where 10 was measured
    CHECK(error_field(f, "claimed_weights = \"nope\"\n") == "measured.claimed_weights");
    CHECK(error_field(f, "perf_stat = \"weights\"\n") == "measured.figure"); // no counters
    f.experiment["weights"].erase("10");
    CHECK(error_field(f, "claimed_weights = \"weights\"\n") == "measured.claimed_weights");
    f.figure["ratio_median"] = 9.3; // not the median of 9.1, 9.3, 9.2
    CHECK(error_field(f) == "measured.figure");
    f.figure["ratio_median"] = 9.2;
    f.figure["jratio"] = {9.5, "x"};
    CHECK(error_field(f) == "measured.figure");
    f.figure["jratio"] = {9.5};
    f.figure.erase("nice_B");
    CHECK(error_field(f) == "measured.figure");
}

} // namespace test_group_comparison
