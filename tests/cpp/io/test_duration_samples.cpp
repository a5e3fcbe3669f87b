// scenario/duration_samples.hpp: a multiset of durations in bounded memory. Checked against
// a plain vector of the same values and the vector summary of stats/summary.hpp.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/scenario/duration_samples.hpp>
#include <libsched/stats/summary.hpp>
#include <random>
#include <vector>

using namespace libsched;

namespace test_duration_samples {

namespace {

// Latency-like values: many repeats of a few, and a spread of others.
std::vector<duration> values(std::size_t n, std::uint64_t distinct, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<duration> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(i % 3 == 0 ? 1'000 : static_cast<duration>(rng() % distinct) * 37 + 1);
    return v;
}

duration_samples of(const std::vector<duration>& v) {
    duration_samples s;
    for (const duration x : v)
        s.add(x);
    return s;
}

} // namespace

TEST_CASE("while exact, the summary is the vector's, and iteration gives the sorted values") {
    const std::vector<duration> v = values(20'000, duration_samples::max_distinct - 1, 1);
    const duration_samples s = of(v);
    REQUIRE(s.exact());
    const stats::sample_summary a = stats::summarize(s);
    const stats::sample_summary b = stats::summarize(v);
    CHECK(a.count == b.count);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);
    CHECK(a.p50 == b.p50);
    CHECK(a.p90 == b.p90);
    CHECK(a.p99 == b.p99);
    CHECK(a.p99_9 == b.p99_9);
    CHECK(a.mean == Approx(b.mean).epsilon(1e-12));
    std::vector<duration> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::vector<duration>(s.begin(), s.end()) == sorted);
    CHECK(s.size() == v.size());
}

TEST_CASE("merging is adding the other's values") {
    const std::vector<duration> x = values(5'000, 2'000, 2), y = values(7'000, 2'500, 3);
    duration_samples merged = of(x);
    merged.merge(of(y));
    std::vector<duration> both = x;
    both.insert(both.end(), y.begin(), y.end());
    CHECK(merged == of(both));
    CHECK(merged.sum() == of(both).sum());
}

TEST_CASE("past max_distinct values the samples fold: bounded, within 0.4 % below") {
    const std::vector<duration> v = values(300'000, 4'000'000, 4);
    const duration_samples s = of(v);
    REQUIRE_FALSE(s.exact());
    // Count, extremes and the sum stay exact.
    CHECK(s.size() == v.size());
    CHECK(s.min() == *std::min_element(v.begin(), v.end()));
    CHECK(s.max() == *std::max_element(v.begin(), v.end()));
    s128 sum = 0;
    for (const duration x : v)
        sum += x;
    CHECK(s.sum() == sum);
    // At most 2^(kept_bits - 1) values per power of two below the maximum.
    const auto octaves =
        static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(s.max())));
    CHECK(s.sorted_counts().size() <= octaves << (duration_samples::kept_bits - 1));
    const stats::sample_summary a = stats::summarize(s);
    const stats::sample_summary b = stats::summarize(v);
    for (const auto& [folded, exact] : {std::pair{a.p50, b.p50}, std::pair{a.p90, b.p90},
                                        std::pair{a.p99, b.p99}, std::pair{a.p99_9, b.p99_9}}) {
        CHECK(folded <= exact);
        CHECK(folded >= exact * (1 - 1.0 / 128));
    }
}

TEST_CASE("statistics only: exact count, sum and extremes, no values, and merging drops them") {
    const std::vector<duration> v = values(3'000, 500, 5);
    duration_samples s = duration_samples::statistics_only();
    for (const duration x : v)
        s.add(x);
    const duration_samples full = of(v);
    CHECK_FALSE(s.values_kept());
    CHECK_FALSE(s.exact());
    CHECK(s.size() == full.size());
    CHECK(s.sum() == full.sum());
    CHECK(s.min() == full.min());
    CHECK(s.max() == full.max());
    CHECK(s.sorted_counts().empty());
    CHECK(s.begin() == s.end());
    const stats::sample_summary a = stats::summarize(s);
    const stats::sample_summary b = stats::summarize(full);
    CHECK_FALSE(a.percentiles);
    CHECK(b.percentiles);
    CHECK(a.count == b.count);
    CHECK(a.mean == b.mean);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);

    // A pool that takes statistics-only samples keeps only the statistics of the union.
    duration_samples pool = of(values(1'000, 50, 6));
    const duration_samples before = pool;
    pool.merge(s);
    CHECK_FALSE(pool.values_kept());
    CHECK(pool.size() == before.size() + s.size());
    CHECK(pool.sum() == before.sum() + s.sum());
    CHECK(pool.max() == std::max(before.max(), s.max()));
    pool.add(7);
    CHECK(pool.sorted_counts().empty());
    CHECK(pool.size() == before.size() + s.size() + 1);
    CHECK(pool.min() == std::min<duration>({before.min(), s.min(), 7}));
    // Merged into statistics-only samples, values are dropped as well.
    duration_samples stats_only = duration_samples::statistics_only();
    stats_only.merge(full);
    CHECK_FALSE(stats_only.values_kept());
    CHECK(stats_only.size() == full.size());
    CHECK_FALSE(stats_only == full);
}

TEST_CASE("fold keeps the 8 most significant bits") {
    CHECK(duration_samples::fold(0) == 0);
    CHECK(duration_samples::fold(255) == 255);
    CHECK(duration_samples::fold(256) == 256);
    CHECK(duration_samples::fold(257) == 256);
    CHECK(duration_samples::fold(511) == 510);
    CHECK(duration_samples::fold(1'000'003) == 999'424); // 20 bits, the low 12 dropped
}

} // namespace test_duration_samples
