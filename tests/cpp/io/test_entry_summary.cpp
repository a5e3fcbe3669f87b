// stats/entry_summary.hpp and stats/comparison.hpp on the hand-made run of sample_run.hpp,
// whose expected figures are worked out there.
#include "sample_run.hpp"
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/stats/comparison.hpp>
#include <libsched/stats/entry_summary.hpp>

using namespace libsched;

namespace test_entry_summary {

TEST_CASE("entry rows: medians of per-repetition sums, ratios per repetition first") {
    const auto rows = stats::summarize_entries(sample_run::result(), sample_run::scenario());
    REQUIRE(rows.size() == 2);
    const stats::row_summary& a = rows[0];
    const stats::row_summary& b = rows[1];
    CHECK(a.name == "a");
    CHECK(a.tasks == 2);
    CHECK(a.nice == 0);
    CHECK(b.nice == 5);
    CHECK(a.share == Approx(0.65));
    CHECK(b.share == Approx(0.30));
    REQUIRE(a.ratio);
    CHECK(*a.ratio == Approx(7.0 / 3)); // not 0.65 / 0.30
    CHECK(*b.ratio == Approx(1.0));
    CHECK(a.jiffies == 65);
    CHECK(*a.jratio == Approx(7.0 / 3));
    CHECK(a.ru_utime_ms == Approx(1500));
    CHECK(b.ru_utime_ms == Approx(250));
    CHECK(*a.ru_ratio == Approx(6));
    CHECK(a.nivcsw_per_s == Approx(10));
    CHECK(a.nvcsw_per_s == 0);
    CHECK(b.nvcsw_per_s == Approx(20));
    CHECK(a.migrations_per_s == Approx(2)); // a.0's 2 in the window, not its 3 in the run
    CHECK(b.migrations_per_s == 0);
    CHECK(b.run_delay_share == Approx(0.2));
    CHECK(a.run_delay_share == 0);
    CHECK(a.wakeup_latency.count == 0);
    CHECK(b.wakeup_latency.count == 3);
    CHECK(b.wakeup_latency.p50 == 2'000);
    CHECK(b.wakeup_latency.max == 3'000);
}

TEST_CASE("task rows: one per instance, ratios to the reference entry") {
    const auto rows = stats::summarize_tasks(sample_run::result(), sample_run::scenario());
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].name == "a.0");
    CHECK(rows[0].entry == "a");
    CHECK(rows[0].tasks == 1);
    CHECK(rows[0].share == Approx(0.32));
    // 0.30 / 0.40, 0.35 / 0.30, 0.32 / 0.10
    CHECK(*rows[0].ratio == Approx(0.35 / 0.30));
}

TEST_CASE("no reference, no ratios, a reference without time skips that repetition") {
    scenario sc = sample_run::scenario();
    sc.reference.clear();
    const auto plain = stats::summarize_entries(sample_run::result(), sc);
    CHECK_FALSE(plain[0].ratio);
    CHECK_FALSE(plain[0].jratio);

    run_result r = sample_run::result();
    r.repetitions[2].tasks[2].share = 0; // b got nothing in repetition 2
    const auto rows = stats::summarize_entries(r, sample_run::scenario());
    CHECK(*rows[0].ratio == Approx((1.5 + 7.0 / 3) / 2));
}

TEST_CASE("rows do not depend on the order the tasks are listed in") {
    run_result r = sample_run::result();
    for (repetition_result& rep : r.repetitions)
        std::reverse(rep.tasks.begin(), rep.tasks.end());
    const auto rows = stats::summarize_entries(r, sample_run::scenario());
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].name == "a");
    CHECK(rows[0].share == Approx(0.65));
    CHECK(*rows[0].ratio == Approx(7.0 / 3));
    CHECK(rows[1].wakeup_latency.count == 3);
    const auto tasks = stats::summarize_tasks(r, sample_run::scenario());
    REQUIRE(tasks.size() == 3);
    CHECK(tasks[0].name == "b"); // the first repetition's order
    CHECK(tasks[2].name == "a.0");
    CHECK(tasks[2].share == Approx(0.32));
}

TEST_CASE("an empty run has no rows") {
    CHECK(stats::summarize_entries(run_result{}, sample_run::scenario()).empty());
    CHECK(stats::summarize_tasks(run_result{}, sample_run::scenario()).empty());
}

TEST_CASE("comparison: percentage points for shares, percent for ratios") {
    measured_spec m;
    m.share = {{"b", 0.30}, {"a", 0.60}};
    m.ratio = {{"a", 2.0}};
    const auto rows = stats::summarize_entries(sample_run::result(), sample_run::scenario());
    const auto c = stats::compare_measured(rows, m);
    REQUIRE(c.size() == 3);
    CHECK(c[0].entry == "a"); // the scenario's order, not the map's
    CHECK(c[0].quantity == stats::measured_quantity::share);
    CHECK(*c[0].predicted == Approx(0.65));
    CHECK(*c[0].error == Approx(5.0));
    CHECK(c[1].entry == "b");
    CHECK(*c[1].error == Approx(0).margin(1e-9));
    CHECK(c[2].quantity == stats::measured_quantity::ratio);
    CHECK(c[2].measured == 2.0);
    CHECK(*c[2].error == Approx(100.0 / 6)); // 7/3 against 2

    CHECK_FALSE(c[0].within); // no tolerance stated

    m.tolerance = {0.04, 0.2, {}}; // +-4 points of share, +-20% of a ratio
    const auto judged = stats::compare_measured(rows, m);
    CHECK(judged[0].tolerance == 0.04);
    CHECK(judged[0].within == false); // +5 points
    CHECK(judged[1].within == true);  // 0 points
    CHECK(judged[2].within == true);  // +16.7%

    // With the theory, each comparison carries its value: a share as is, a ratio to the
    // reference entry's share.
    stats::theory_figures theory;
    theory.entry_share = {{"a", 0.6}, {"b", 0.4}};
    theory.reference = "b";
    const auto with_theory = stats::compare_measured(rows, m, &theory);
    CHECK(*with_theory[0].theory == 0.6);
    CHECK(*with_theory[1].theory == 0.4);
    CHECK(*with_theory[2].theory == Approx(1.5));
    CHECK_FALSE(judged[0].theory); // none asked for

    const auto none = stats::compare_measured({}, m);
    REQUIRE(none.size() == 3);
    CHECK_FALSE(none[0].predicted);
    CHECK_FALSE(none[0].error);
    CHECK_FALSE(none[0].within);
}

TEST_CASE("summaries take one pass over the tasks: 100 000 entries of one task each") {
    // Rows that each scanned every task would take 10^10 steps here; one pass takes 10^5.
    constexpr int n = 100'000;
    scenario sc;
    sc.length = nsec_per_sec;
    sc.reference = "t0";
    repetition_result rep;
    sc.tasks.reserve(n);
    rep.tasks.reserve(n);
    for (int i = 0; i < n; ++i) {
        task_spec spec;
        spec.name = "t" + std::to_string(i);
        sc.tasks.push_back(spec);
        rep.tasks.push_back(sample_run::task(spec.name, spec.name, 0, (i + 1) * 1e-6));
    }
    run_result r;
    r.window_end = nsec_per_sec;
    r.repetitions.push_back(std::move(rep));

    const auto entries = stats::summarize_entries(r, sc);
    REQUIRE(entries.size() == n);
    CHECK(entries[41'999].name == "t41999");
    CHECK(entries[41'999].tasks == 1);
    CHECK(entries[41'999].share == Approx(0.042));
    CHECK(*entries[41'999].ratio == Approx(42'000));

    const auto tasks = stats::summarize_tasks(r, sc);
    REQUIRE(tasks.size() == n);
    CHECK(tasks.back().entry == "t99999");
    CHECK(tasks.back().share == Approx(0.1));
}

} // namespace test_entry_summary
