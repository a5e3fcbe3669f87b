// sched/cputime.hpp: cputime_adjust and the /proc unit, against the kernel reference's
// worked example and its invariants (sum = runtime, both parts monotonic).
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/sched/cputime.hpp>
#include <random>

using namespace libsched;

namespace test_cputime {

namespace {
constexpr duration tick_250 = nsec_per_sec / 250;
} // namespace

TEST_CASE("worked example: HZ 250, 290 user and 18 system ticks") {
    // stime = 72 ms * 1,234,567,890 / 1232 ms = 72,150,071.49 -> 72,150,071.
    prev_cputime prev;
    const adjusted_cputime a = cputime_adjust(1'234'567'890, 290 * tick_250, 18 * tick_250, prev);
    CHECK(a.stime == 72'150'071);
    CHECK(a.utime == 1'162'417'819);
    CHECK(nsec_to_clock_t(a.utime) == 116);
    CHECK(nsec_to_clock_t(a.stime) == 7);
    CHECK(a.utime / nsec_per_usec == 1'162'417); // getrusage: 1.162417 s
    CHECK(a.stime / nsec_per_usec == 72'150);
    CHECK(prev.utime == a.utime);
    CHECK(prev.stime == a.stime);
}

TEST_CASE("no ticks at all: everything is user time") {
    prev_cputime prev;
    const adjusted_cputime a = cputime_adjust(3'700'000, 0, 0, prev);
    CHECK(a.utime == 3'700'000);
    CHECK(a.stime == 0);
    CHECK(nsec_to_clock_t(a.utime) == 0); // 3.7 ms truncates to 0 clock ticks
}

TEST_CASE("only system ticks: everything is system time") {
    prev_cputime prev;
    const adjusted_cputime a = cputime_adjust(25'000'000, 0, tick_250, prev);
    CHECK(a.stime == 25'000'000);
    CHECK(a.utime == 0);
}

TEST_CASE("the two fields truncate separately") {
    // HZ 1000, 25 ms with 16 user and 9 system ticks: 16 ms + 9 ms -> 1 and 0 clock ticks,
    // one less than floor(25 ms / 10 ms).
    prev_cputime prev;
    const adjusted_cputime a = cputime_adjust(25'000'000, 16'000'000, 9'000'000, prev);
    CHECK(a.utime == 16'000'000);
    CHECK(a.stime == 9'000'000);
    CHECK(nsec_to_clock_t(a.utime) + nsec_to_clock_t(a.stime) == 1);
}

TEST_CASE("repeated reads never go backwards and always sum to the runtime") {
    std::mt19937_64 rng(2024);
    for (int run = 0; run < 50; ++run) {
        prev_cputime prev;
        duration rtime = 0, user = 0, sys = 0;
        adjusted_cputime last;
        for (int read = 0; read < 200; ++read) {
            // The runtime grows (or, for a reader behind the last update, stays); the
            // ticks drift between user and system.
            rtime += static_cast<duration>(rng() % 10'000'000);
            if (rng() % 3 == 0)
                user += tick_250;
            if (rng() % 5 == 0)
                sys += tick_250;
            const adjusted_cputime a = cputime_adjust(rtime, user, sys, prev);
            INFO("run " << run << ", read " << read);
            REQUIRE(a.utime >= last.utime);
            REQUIRE(a.stime >= last.stime);
            REQUIRE(a.utime + a.stime == std::max(rtime, last.utime + last.stime));
            last = a;
        }
        // A read with an older, smaller runtime reports the previous values.
        const adjusted_cputime stale = cputime_adjust(rtime / 2, user, sys, prev);
        CHECK(stale.utime == last.utime);
        CHECK(stale.stime == last.stime);
    }
}

TEST_CASE("reported system time sticks once reported") {
    prev_cputime prev;
    // 1 system tick of 2: half of 8 ms is system time.
    cputime_adjust(8'000'000, tick_250, tick_250, prev);
    CHECK(prev.stime == 4'000'000);
    // Then six user ticks: the ratio 1 / 8 would give 2 ms, but 4 ms were reported.
    const adjusted_cputime a = cputime_adjust(16'000'000, 7 * tick_250, tick_250, prev);
    CHECK(a.stime == 4'000'000);
    CHECK(a.utime == 12'000'000);
}

} // namespace test_cputime
