// sched/weight.hpp against facts that do not come from the table itself: the 1.25 step
// between nice levels, 2^32 / weight for the inverses, nice 0 = 1024, SCHED_IDLE = 3.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <libsched/sched/weight.hpp>

using namespace libsched;

namespace test_weight {

namespace {
constexpr long long two_pow_32 = 1LL << 32;
// |wmult * weight - 2^32| < weight  <=>  wmult is 2^32 / weight rounded up or down.
bool is_inverse_of(u32 wmult, u32 weight) {
    const long long err = static_cast<long long>(wmult) * weight - two_pow_32;
    return std::llabs(err) < static_cast<long long>(weight);
}
} // namespace

TEST_CASE("nice 0 is 1024 and the table spans nice -20 to 19") {
    CHECK(sched_prio_to_weight.size() == 40);
    CHECK(sched_prio_to_weight[static_cast<std::size_t>(0 - min_nice)] == 1024);
    CHECK(nice_to_weight(0) == 1024);
    CHECK(min_nice == -20);
    CHECK(max_nice == 19);
    CHECK(nice_0_load == 1024u << 10);
    CHECK(task_load_weight(0, false).weight == nice_0_load);
}

TEST_CASE("each nice level is ~1.25 times the next one") {
    // 10% more CPU per level: weight ratio 1.25 within 3%, allowing one unit of integer
    // rounding where the weights are small (18 / 15 = 1.2 at the bottom of the table).
    for (std::size_t i = 0; i + 1 < sched_prio_to_weight.size(); ++i) {
        INFO("nice " << static_cast<int>(i) + min_nice);
        const double heavier = sched_prio_to_weight[i];
        const double lighter = sched_prio_to_weight[i + 1];
        CHECK(heavier > lighter);
        CHECK(std::abs(heavier - 1.25 * lighter) <= 0.03 * 1.25 * lighter + 1.0);
    }
}

TEST_CASE("every wmult is 2^32 / weight") {
    // The kernel's table is round(2^32 / w) except at nice 13, 14, 16 and 17, where it holds
    // the value rounded down; both are within one unit.
    for (std::size_t i = 0; i < sched_prio_to_weight.size(); ++i) {
        INFO("nice " << static_cast<int>(i) + min_nice);
        CHECK(is_inverse_of(sched_prio_to_wmult[i], sched_prio_to_weight[i]));
    }
    CHECK(sched_prio_to_wmult[static_cast<std::size_t>(0 - min_nice)] == 1u << 22);
    CHECK(is_inverse_of(wmult_idleprio, weight_idleprio));
}

TEST_CASE("clamp_nice clamps to [-20, 19] and says so") {
    CHECK(clamp_nice(20).nice == 19);
    CHECK(clamp_nice(20).clamped);
    CHECK(clamp_nice(-21).nice == -20);
    CHECK(clamp_nice(-21).clamped);
    CHECK(clamp_nice(19).nice == 19);
    CHECK_FALSE(clamp_nice(19).clamped);
    CHECK(clamp_nice(-20).nice == -20);
    CHECK_FALSE(clamp_nice(-20).clamped);
    CHECK(clamp_nice(5).nice == 5);
    CHECK_FALSE(clamp_nice(5).clamped);
    CHECK(nice_to_weight(25) == 15);
    CHECK(nice_to_weight(-99) == 88761);
}

TEST_CASE("SCHED_IDLE tasks weigh 3 whatever their nice") {
    CHECK(weight_idleprio == 3);
    for (int nice : {-20, 0, 19}) {
        const load_weight lw = task_load_weight(nice, true);
        CHECK(lw.weight == scale_load(3));
        CHECK(lw.inv_weight == wmult_idleprio);
    }
}

TEST_CASE("task weights carry the table's inverse and 10 bits of extra resolution") {
    for (int nice = min_nice; nice <= max_nice; ++nice) {
        const auto i = static_cast<std::size_t>(nice - min_nice);
        const load_weight lw = task_load_weight(nice, false);
        CHECK(lw.weight == u64{sched_prio_to_weight[i]} * 1024);
        CHECK(lw.inv_weight == sched_prio_to_wmult[i]);
        CHECK(scale_load_down(lw.weight) == sched_prio_to_weight[i]);
    }
    CHECK(scale_load_down(0) == 0);
    CHECK(scale_load_down(1) == 2); // never rounds a live weight down to nothing
}

} // namespace test_weight
