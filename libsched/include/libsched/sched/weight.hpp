#pragma once
// Nice -> load weight, as kernel/sched/core.c sched_prio_to_weight / sched_prio_to_wmult
// and kernel/sched/sched.h (64-bit load resolution).
#include <array>
#include <libsched/sched/types.hpp>

namespace libsched {

inline constexpr int min_nice = -20;
inline constexpr int max_nice = 19;

// clang-format off
// sched_prio_to_weight[]: index nice + 20. Adjacent entries differ by ~1.25x.
inline constexpr std::array<u32, 40> sched_prio_to_weight = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
    1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
    110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

// sched_prio_to_wmult[] = 2^32 / weight, as the kernel's table has it: mostly rounded to
// nearest, a few entries (nice 13, 14, 16, 17) rounded down.
inline constexpr std::array<u32, 40> sched_prio_to_wmult = {
    48388,     59856,     76040,     92818,     118348,    147320,    184698,    229616,
    287308,    360437,    449829,    563644,    704093,    875809,    1099582,   1376151,
    1717300,   2157191,   2708050,   3363326,   4194304,   5237765,   6557202,   8165337,
    10153587,  12820798,  15790321,  19976592,  24970740,  31350126,  39045157,  49367440,
    61356676,  76695844,  95443717,  119304647, 148102320, 186737708, 238609294, 286331153,
};

// clang-format on

// SCHED_IDLE tasks: WEIGHT_IDLEPRIO / WMULT_IDLEPRIO, whatever their nice.
inline constexpr u32 weight_idleprio = 3;
inline constexpr u32 wmult_idleprio = 1431655765;

// SCHED_FIXEDPOINT_SHIFT; 64-bit kernels carry 10 extra bits of load resolution.
inline constexpr unsigned sched_fixedpoint_shift = 10;
inline constexpr u64 nice_0_load_shift = u64{2} * sched_fixedpoint_shift;
inline constexpr u64 nice_0_load = u64{1} << nice_0_load_shift;

inline constexpr u64 scale_load(u64 w) {
    return w << sched_fixedpoint_shift;
}
// scale_load_down: never rounds a non-zero weight down to below 2.
inline constexpr u64 scale_load_down(u64 w) {
    if (w == 0)
        return 0;
    const u64 d = w >> sched_fixedpoint_shift;
    return d < 2 ? 2 : d;
}

// struct load_weight: weight in the scaled unit, inv_weight = 2^32 / unscaled weight
// (0 = not computed yet, see __update_inv_weight).
struct load_weight {
    u64 weight = 0;
    u32 inv_weight = 0;
};

// Result of clamping a requested nice value into [-20, 19], as setpriority() does.
struct nice_clamp {
    int nice;
    bool clamped;
};
inline constexpr nice_clamp clamp_nice(int requested) {
    if (requested < min_nice)
        return {min_nice, true};
    if (requested > max_nice)
        return {max_nice, true};
    return {requested, false};
}

// set_load_weight(): task weights take the table's inverse, not a computed one.
inline constexpr load_weight task_load_weight(int nice, bool sched_idle) {
    if (sched_idle)
        return {scale_load(weight_idleprio), wmult_idleprio};
    const auto i = static_cast<std::size_t>(clamp_nice(nice).nice - min_nice);
    return {scale_load(sched_prio_to_weight[i]), sched_prio_to_wmult[i]};
}

inline constexpr u32 nice_to_weight(int nice) {
    return sched_prio_to_weight[static_cast<std::size_t>(clamp_nice(nice).nice - min_nice)];
}

} // namespace libsched
