#pragma once
// struct sched_avg and the arithmetic of per-entity load tracking (kernel/sched/pelt.c,
// sched-pelt.h): geometric sums of 1024-ns units over ~1 ms periods, decayed by y per
// period with y^32 = 1/2. Integer arithmetic exactly as the kernel's.
#include <array>
#include <libsched/sched/types.hpp>

namespace libsched {

// SCHED_CAPACITY_SCALE: the capacity of the biggest CPU at its highest frequency. Every
// CPU has it here (symmetric capacity, no frequency invariance).
inline constexpr unsigned sched_capacity_shift = 10;
inline constexpr u64 sched_capacity_scale = u64{1} << sched_capacity_shift;

// sched-pelt.h: y^32 = 1/2; LOAD_AVG_MAX is the saturated sum of 1024 * y^n in this
// integer arithmetic; PELT_MIN_DIVIDER the sum's maximum at the start of a period.
inline constexpr u32 load_avg_period = 32;
inline constexpr u32 load_avg_max = 47742;
inline constexpr u32 pelt_min_divider = load_avg_max - 1024;

// runnable_avg_yN_inv[n] = floor(y^n * 2^32), n < 32.
// clang-format off
inline constexpr std::array<u32, load_avg_period> runnable_avg_yN_inv = {
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
    0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
    0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
    0x85aac367, 0x82cd8698,
};
// clang-format on

// util_est: a task's estimated utilization and, summed, a cfs_rq's. The shape follows the
// release: before 6.9 a task keeps `enqueued` (its util_avg at its last dequeue) and `ewma`;
// 6.9+ (11137d384996) keep one value, held here in `ewma`. A cfs_rq's sum of its queued
// tasks' estimates is `enqueued` in every release (6.9+: cfs_rq->avg.util_est).
struct util_est {
    u32 enqueued = 0;
    u32 ewma = 0;
};
// UTIL_AVG_UNCHANGED (5.13+, the top bit): util_avg has not changed since the estimate
// was last taken, so the next dequeue takes no new sample. Set in the field the release
// keeps the task's sample in: `enqueued` before 6.9, `ewma` from 6.9.
inline constexpr u32 util_avg_unchanged = 0x80000000u;

struct sched_avg {
    u64 last_update_time = 0; // PELT clock, ns, at the last unit boundary; 0 = not attached
    u64 load_sum = 0;
    u64 runnable_sum = 0;
    u32 util_sum = 0;
    u32 period_contrib = 0; // units of the current period already accounted
    u64 load_avg = 0;
    u64 runnable_avg = 0;
    u64 util_avg = 0;
    struct util_est util_est;
};

// mul_u64_u32_shr(a, mul, 32)
inline constexpr u64 mul_u64_u32_shr32(u64 a, u32 mul) {
    return static_cast<u64>((static_cast<u128>(a) * mul) >> 32);
}

// decay_load(): val * y^n, through y^n = 2^-(n/32) * y^(n%32); zero past 63 half-lives.
inline constexpr u64 decay_load(u64 val, u64 n) {
    if (n > u64{load_avg_period} * 63)
        return 0;
    auto local_n = static_cast<u32>(n);
    if (local_n >= load_avg_period) {
        val >>= local_n / load_avg_period;
        local_n %= load_avg_period;
    }
    return mul_u64_u32_shr32(val, runnable_avg_yN_inv[local_n]);
}

// __accumulate_pelt_segments(): d1 y^p + 1024 * sum_{n=1}^{p-1} y^n + d3.
inline constexpr u32 accumulate_pelt_segments(u64 periods, u32 d1, u32 d3) {
    const auto c1 = static_cast<u32>(decay_load(d1, periods));
    const auto c2 = static_cast<u32>(load_avg_max - decay_load(load_avg_max, periods) - 1024);
    return c1 + c2 + d3;
}

// accumulate_sum(): decay the sums across the period boundaries crossed in `delta` units,
// then add this update's contribution; returns the number of boundaries crossed.
inline constexpr u64 accumulate_sum(u64 delta, sched_avg& sa, u64 load, u64 runnable,
                                    bool running) {
    auto contrib = static_cast<u32>(delta); // no boundary crossed: delta < 1024
    delta += sa.period_contrib;
    const u64 periods = delta / 1024;
    if (periods != 0) {
        sa.load_sum = decay_load(sa.load_sum, periods);
        sa.runnable_sum = decay_load(sa.runnable_sum, periods);
        sa.util_sum = static_cast<u32>(decay_load(sa.util_sum, periods));
        delta %= 1024;
        // Without load nothing is added below, so the segments need not be computed.
        if (load != 0)
            contrib = accumulate_pelt_segments(periods, 1024 - sa.period_contrib,
                                               static_cast<u32>(delta));
    }
    sa.period_contrib = static_cast<u32>(delta);
    if (load != 0)
        sa.load_sum += load * contrib;
    if (runnable != 0)
        sa.runnable_sum += (runnable * contrib) << sched_capacity_shift;
    if (running)
        sa.util_sum += contrib << sched_capacity_shift;
    return periods;
}

// ___update_load_sum(): advance the sums to `now` (ns) in whole 1024-ns units; true if a
// period boundary was crossed, i.e. the averages must be recomputed. Running and runnable
// count only with load (a queue whose curr was just dequeued has none).
inline constexpr bool update_load_sum(u64 now, sched_avg& sa, u64 load, u64 runnable,
                                      bool running) {
    u64 delta = now - sa.last_update_time;
    if (static_cast<s64>(delta) < 0) { // time went backwards
        sa.last_update_time = now;
        return false;
    }
    delta >>= 10;
    if (delta == 0)
        return false;
    sa.last_update_time += delta << 10;
    if (load == 0) {
        runnable = 0;
        running = false;
    }
    return accumulate_sum(delta, sa, load, runnable, running) != 0;
}

// get_pelt_divider(): the sums' maximum at this point of the current period.
inline constexpr u32 get_pelt_divider(const sched_avg& sa) {
    return pelt_min_divider + sa.period_contrib;
}

// ___update_load_avg(): the averages from the sums; load_avg weighted by `load`.
inline constexpr void update_load_avg_from_sums(sched_avg& sa, u64 load) {
    const u32 divider = get_pelt_divider(sa);
    sa.load_avg = load * sa.load_sum / divider;
    sa.runnable_avg = sa.runnable_sum / divider;
    sa.util_avg = sa.util_sum / divider;
}

} // namespace libsched
