// io/report.hpp on the hand-made run of sample_run.hpp.
#include "sample_run.hpp"
#include <catch2/catch.hpp>
#include <libsched/io/report.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace libsched;

namespace test_report {

namespace {

std::vector<std::string> report_lines(const run_result& r, const scenario& sc) {
    std::ostringstream out;
    print_report(out, r, sc);
    std::istringstream in(out.str());
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("the report: header, entry rows and task rows under an entry of several") {
    const auto lines = report_lines(sample_run::result(), sample_run::scenario());
    REQUIRE(lines.size() > 7);
    // header, column names, rule, a, a.0, a.1, b; then the per-CPU and perf stat blocks
    CHECK(lines[7].empty());
    CHECK(lines[0] ==
          "sample: kernel 6.8 (EEVDF), 1 CPU, HZ 250, window 0s to 1s, 3 repetitions (medians)");
    CHECK(contains(lines[1], "ratio to b"));
    CHECK(contains(lines[1], "wake p50 us"));
    CHECK_FALSE(contains(lines[1], "measured"));
    CHECK(lines[3].rfind("a  ", 0) == 0);
    CHECK(contains(lines[3], "65.00"));
    CHECK(contains(lines[3], "2.333"));
    CHECK(lines[4].rfind("  a.0", 0) == 0);
    CHECK(lines[5].rfind("  a.1", 0) == 0);
    CHECK(lines[6].rfind("b  ", 0) == 0);
    CHECK(contains(lines[6], "30.00"));
    CHECK(contains(lines[6], " 2.0  ")); // wakeup p50, us
}

TEST_CASE("measured values add measured and error columns to entry rows") {
    scenario sc = sample_run::scenario();
    sc.measured.share = {{"a", 0.60}};
    const auto lines = report_lines(sample_run::result(), sc);
    CHECK(contains(lines[1], "measured %"));
    CHECK(contains(lines[1], "error pp"));
    CHECK(contains(lines[3], "60.00"));
    CHECK(contains(lines[3], "+5.00"));
    CHECK_FALSE(contains(lines[4], "60.00")); // task rows have no measurement
}

TEST_CASE("large entries are not listed task by task, an empty run says so") {
    scenario sc = sample_run::scenario();
    run_result r = sample_run::result();
    for (auto& rep : r.repetitions)
        for (int i = 2; i < 20; ++i)
            rep.tasks.push_back(sample_run::task("a." + std::to_string(i), "a", 0, 0.01));
    const auto lines = report_lines(r, sc);
    REQUIRE(lines.size() > 5);
    CHECK(lines[5].empty()); // header, column names, rule, a, b, then the per-CPU block

    const auto empty = report_lines(run_result{}, sc);
    REQUIRE(empty.size() == 2);
    CHECK(empty[1] == "(no repetition ran)");
}

TEST_CASE("system-time columns appear only when some task has system time") {
    run_result r = sample_run::result();
    CHECK_FALSE(contains(report_lines(r, sample_run::scenario())[1], "stime"));
    for (repetition_result& rep : r.repetitions) {
        rep.tasks.front().stat_stime_end = rep.tasks.front().stat_stime_start + 12;
        rep.tasks.front().ru_stime_us = 120'000;
    }
    const auto lines = report_lines(r, sample_run::scenario());
    CHECK(contains(lines[1], "stime jiffies"));
    CHECK(contains(lines[1], "stime ms (rusage)"));
    CHECK(contains(lines[3], "12.0"));
    CHECK(contains(lines[3], "120.0"));
}

TEST_CASE("every report has a per-CPU table and a perf stat block over all tasks") {
    const auto lines = report_lines(sample_run::result(), sample_run::scenario());
    std::size_t cpu = 0, perf = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (contains(lines[i], "lb passes"))
            cpu = i;
        if (contains(lines[i], "perf stat") && contains(lines[i], "whole run"))
            perf = i;
    }
    REQUIRE(cpu > 0);
    CHECK(contains(lines[cpu], "busy %"));
    CHECK(lines[cpu + 2].rfind("  0", 0) == 0); // one row per CPU, right-aligned
    REQUIRE(perf > 0);
    REQUIRE(lines.size() > perf + 5);
    CHECK(contains(lines[perf + 2], "context-switches"));
    CHECK(contains(lines[perf + 5], "CPUs utilized"));
}

TEST_CASE("a policy column when an entry is RT, none otherwise") {
    scenario sc = sample_run::scenario();
    CHECK_FALSE(contains(report_lines(sample_run::result(), sc)[1], "policy"));
    sc.tasks[0].policy = sched_policy::fifo;
    sc.tasks[0].rt_priority = 80;
    const auto lines = report_lines(sample_run::result(), sc);
    CHECK(contains(lines[1], "policy"));
    CHECK(contains(lines[3], "fifo 80"));
    CHECK(contains(lines[6], "normal"));
    CHECK_FALSE(contains(lines[4], "fifo")); // the task rows under an entry leave it blank
}

} // namespace test_report
