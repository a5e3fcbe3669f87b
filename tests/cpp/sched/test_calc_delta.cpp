// sched/calc_delta.hpp: calc_delta_fair against exact integer division.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <libsched/sched/calc_delta.hpp>
#include <random>
#include <utility>

using namespace libsched;

namespace test_calc_delta {

namespace {
u64 fair(u64 delta, int nice, calc_delta_mode mode = calc_delta_mode::inverse_multiply) {
    load_weight lw = task_load_weight(nice, false);
    return calc_delta_fair(delta, lw, mode);
}
} // namespace

TEST_CASE("calc_delta_fair of 1 ms across the nice range (worked example)") {
    // floor(1e6 * 1024 / weight); both modes agree at this size.
    const std::pair<int, u64> expected[] = {
        {-20, 11536}, {-10, 107247}, {-5, 328099},  {-1, 801879},   {0, 1000000},
        {1, 1248780}, {5, 3056716},  {10, 9309090}, {19, 68266666},
    };
    for (const auto& [nice, vdelta] : expected) {
        INFO("nice " << nice);
        CHECK(fair(nsec_per_msec, nice) == vdelta);
        CHECK(fair(nsec_per_msec, nice, calc_delta_mode::exact_division) == vdelta);
    }
}

TEST_CASE("nice 0 passes time through unchanged") {
    for (u64 delta : {u64{0}, u64{1}, u64{999'999'937}, ~u64{0}})
        CHECK(fair(delta, 0) == delta);
}

TEST_CASE("the inverse multiply can round up past the exact quotient") {
    // nice 1 (wmult 5237765 > 2^32 / 820): 17398977 * 1024 / 820 = 21727502.4...
    CHECK(fair(17'398'977, 1, calc_delta_mode::exact_division) == 21'727'502);
    CHECK(fair(17'398'977, 1) == 21'727'503);
}

TEST_CASE("inverse multiply stays within the table's rounding of the exact quotient") {
    // Error sources: wmult differs from 2^32 / w by |wmult * w - 2^32| / 2^32 relative,
    // normalising fact to 32 bits drops < 2^-31 relative, and the final shift truncates (< 1).
    std::mt19937_64 rng(20240601);
    std::uniform_int_distribution<int> magnitude(1, 40);
    std::uniform_int_distribution<int> nice_dist(min_nice, max_nice);
    for (int n = 0; n < 200'000; ++n) {
        const int nice = nice_dist(rng);
        const u64 delta = rng() >> (64 - magnitude(rng)); // log-uniform below 2^40
        const auto i = static_cast<std::size_t>(nice - min_nice);
        const u64 w = sched_prio_to_weight[i];
        const long double table_err =
            std::llabs(static_cast<long long>(sched_prio_to_wmult[i]) * static_cast<long long>(w) -
                       (1LL << 32)) /
            4294967296.0L;
        const long double real = static_cast<long double>(delta) * 1024.0L / w;
        const long double bound = real * (table_err + 1.0L / 2147483648.0L) + 1.0L;

        const u64 exact = delta * 1024 / w;
        const u64 got = fair(delta, nice);
        INFO("nice " << nice << ", delta " << delta);
        CHECK(std::abs(static_cast<long double>(got) - real) <= bound);
        CHECK(fair(delta, nice, calc_delta_mode::exact_division) == exact);
    }
}

TEST_CASE("calc_delta on computed weights uses floor((2^32 - 1) / w)") {
    // A group entity's weight has no table inverse: __update_inv_weight computes it.
    load_weight lw{scale_load(3000), 0};
    CHECK(calc_delta(3'000'000, scale_load(1000), lw) == 999'999); // 1/3 of 3 ms, truncated
    CHECK(lw.inv_weight == 0xFFFF'FFFFu / 3000);
}

} // namespace test_calc_delta
