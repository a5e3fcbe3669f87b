// sched/kernel_version.hpp and fair_params' release tests: releases order by major.minor,
// the patch level left out, whatever the two numbers are.
#include <catch2/catch.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/tunables.hpp>
#include <limits>
#include <utility>
#include <vector>

using namespace libsched;

namespace test_kernel_version {

namespace {

constexpr int int_min = std::numeric_limits<int>::min();
constexpr int int_max = std::numeric_limits<int>::max();

// Lexicographic order of (major, minor) as std::pair has it: the expectation.
std::pair<int, int> key(const kernel_version& v) {
    return {v.major, v.minor};
}

} // namespace

TEST_CASE("releases order as (major, minor) pairs do, the patch level left out") {
    const std::vector<kernel_version> vs = {
        {5, 0},
        {5, 15, 190},
        {5, 16},
        {6, 5},
        {6, 6},
        {6, 6, 93},
        {6, 12, 31},
        {6, 19},
        {7, 0},
        {0, 0},
        {6, int_max},
        {6, int_min},
        {7, int_min},
        {5, int_max},
        {int_max, 0},
        {int_min, 0},
        {int_min, int_min},
        {int_max, int_max},
        {-1, 3},
        {0, -1},
    };
    for (const kernel_version& a : vs)
        for (const kernel_version& b : vs) {
            INFO(a.major << "." << a.minor << " vs " << b.major << "." << b.minor);
            CHECK((a < b) == (key(a) < key(b)));
            CHECK((a == b) == (key(a) == key(b)));
            CHECK((a >= b) == (key(a) >= key(b)));
        }
    CHECK(kernel_version{6, 12, 1} == kernel_version{6, 12, 40});
}

TEST_CASE("fair_params answers since() and eevdf() as the release compares") {
    for (const kernel_version v :
         {kernel_version{5, 0}, kernel_version{5, 15, 190}, kernel_version{6, 5},
          kernel_version{6, 6}, kernel_version{6, 12, 31}, kernel_version{6, 19}}) {
        INFO(v.str());
        const fair_params p(v, default_tunables(v, 1, 250));
        CHECK(p.eevdf() == (key(v) >= std::pair{6, 6}));
        for (const auto& [major, minor] : {std::pair{5, 17}, std::pair{6, 6}, std::pair{6, 12},
                                           std::pair{6, 13}, std::pair{6, 19}, std::pair{7, 0}})
            CHECK(p.since(major, minor) == (key(v) >= std::pair{major, minor}));
    }
}

} // namespace test_kernel_version
