// stats/summary.hpp against worked examples: the textbook nearest-rank percentiles of
// {15, 20, 35, 40, 50}, medians of odd and even counts, integer durations.
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/stats/summary.hpp>
#include <stdexcept>
#include <vector>

using namespace libsched;

namespace test_summary {

TEST_CASE("median: the middle value, or the mean of the middle two") {
    CHECK(stats::median(std::vector<double>{3, 1, 2}) == 2);
    CHECK(stats::median(std::vector<double>{4, 1, 3, 2}) == 2.5);
    CHECK(stats::median(std::vector<double>{7}) == 7);
    // Integer durations whose middle pair has an odd sum: the median is not truncated.
    CHECK(stats::median(std::vector<std::int64_t>{1'000, 2'001, 5, 9'000}) == 1500.5);
}

TEST_CASE("mean, min and max") {
    const std::vector<double> v = {2.5, -1, 4, 0.5};
    CHECK(stats::mean(v) == 1.5);
    CHECK(stats::min(v) == -1);
    CHECK(stats::max(v) == 4);
    const std::vector<std::int64_t> ns = {3'000'000'000, 1'000'000'000};
    CHECK(stats::mean(ns) == 2e9);
}

TEST_CASE("percentile is nearest-rank: an observed value at rank ceil(p/100 * n)") {
    const std::vector<double> v = {50, 15, 40, 20, 35};
    CHECK(stats::percentile(v, 5) == 15);
    CHECK(stats::percentile(v, 21) == 20); // rank ceil(1.05) = 2
    CHECK(stats::percentile(v, 45) == 35); // rank ceil(2.25) = 3
    CHECK(stats::percentile(v, 30) == 20);
    CHECK(stats::percentile(v, 40) == 20);
    CHECK(stats::percentile(v, 50) == 35);
    CHECK(stats::percentile(v, 100) == 50);
    CHECK(stats::percentile(v, 0) == 15);

    // p99 of 1..100 is 99, not 100: rank 99 exactly, no floating-point creep.
    std::vector<std::int64_t> hundred;
    for (std::int64_t i = 1; i <= 100; ++i)
        hundred.push_back(i);
    CHECK(stats::percentile(hundred, 99) == 99);
    CHECK(stats::percentile(hundred, 50) == 50);
    // For an even count the 50th percentile is an observed value, unlike the median.
    CHECK(stats::median(hundred) == 50.5);
}

TEST_CASE("p99.9 takes the exact rank though 99.9 has no exact binary form") {
    // 99.9 * 41000 / 100 comes out a hair above 40959 in floating point.
    std::vector<std::int64_t> v;
    for (std::int64_t i = 1; i <= 41'000; ++i)
        v.push_back(i);
    CHECK(stats::percentile(v, 99.9) == 40'959);
    v.push_back(41'001); // 41001 values: rank ceil(40959.999) = 40960
    CHECK(stats::percentile(v, 99.9) == 40'960);
}

TEST_CASE("empty samples and impossible percentiles are errors") {
    const std::vector<double> none;
    CHECK_THROWS_AS(stats::median(none), std::invalid_argument);
    CHECK_THROWS_AS(stats::mean(none), std::invalid_argument);
    CHECK_THROWS_AS(stats::min(none), std::invalid_argument);
    CHECK_THROWS_AS(stats::max(none), std::invalid_argument);
    CHECK_THROWS_AS(stats::percentile(none, 50), std::invalid_argument);
    CHECK_THROWS_AS(stats::percentile(std::vector<double>{1}, 101), std::invalid_argument);
    CHECK_THROWS_AS(stats::percentile(std::vector<double>{1}, -1), std::invalid_argument);
}

TEST_CASE("summarize gives every statistic at once") {
    std::vector<std::int64_t> latencies;
    for (std::int64_t i = 200; i >= 1; --i)
        latencies.push_back(i * 1'000);
    const stats::sample_summary s = stats::summarize(latencies);
    CHECK(s.count == 200);
    CHECK(s.min == 1'000);
    CHECK(s.max == 200'000);
    CHECK(s.mean == Approx(100'500));
    CHECK(s.p50 == 100'000);
    CHECK(s.p90 == 180'000);
    CHECK(s.p99 == 198'000);
    CHECK(s.p99_9 == 200'000); // rank ceil(199.8) = 200

    const stats::sample_summary empty = stats::summarize(std::vector<double>{});
    CHECK(empty.count == 0);
    CHECK(empty.max == 0);
}

} // namespace test_summary
