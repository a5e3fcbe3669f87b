// sched/jiffies.hpp: jiffies as the CPUs read them while the timekeeping CPU's tick handler
// runs late (tick_sched_do_timer()), at HZ 250.
#include <catch2/catch.hpp>
#include <libsched/sched/jiffies.hpp>

using namespace libsched;

namespace test_jiffies {

namespace {
constexpr duration tick = 4'000'000;
} // namespace

TEST_CASE("without a pending timekeeper tick jiffies are the ticks since boot") {
    const jiffies_clock j(tick);
    CHECK(j.read(0) == 0);
    CHECK(j.read(tick - 1) == 0);
    CHECK(j.read(5 * tick) == 5);
    CHECK(j.read(5 * tick + 3'999'999) == 5);
}

TEST_CASE("between a grid point and the timekeeper's handler the previous jiffy is read") {
    jiffies_clock j(tick);
    j.timekeeper_armed(7 * tick, 7 * tick + 20'000);
    CHECK(j.read(7 * tick - 1) == 6);
    CHECK(j.read(7 * tick) == 6);
    CHECK(j.read(7 * tick + 19'999) == 6);
    CHECK(j.read(7 * tick + 20'000) == 7); // the handler has run
    CHECK(j.read(8 * tick) == 8);          // a later grid point: not this pending tick's

    SECTION("handled at the grid point itself: no lag (tick_latency 0)") {
        j.timekeeper_armed(9 * tick, 9 * tick);
        CHECK(j.read(9 * tick) == 9);
    }
    SECTION("an interrupt on a CPU whose tick was stopped updates them at once") {
        j.update(7 * tick + 5'000);
        CHECK(j.read(7 * tick + 5'000) == 7);
        CHECK(j.read(7 * tick + 4'999) == 6);
    }
    SECTION("an update at another grid point leaves the pending one alone") {
        j.update(6 * tick + 5'000);
        CHECK(j.read(7 * tick + 10'000) == 6);
    }
    SECTION("the timekeeper's tick stopped: nothing pending") {
        j.timekeeper_dropped();
        CHECK(j.read(7 * tick) == 7);
    }
}

} // namespace test_jiffies
