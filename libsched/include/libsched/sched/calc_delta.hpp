#pragma once
// Weighted time deltas: __calc_delta / calc_delta_fair (kernel/sched/fair.c).
#include <bit>
#include <libsched/sched/weight.hpp>

namespace libsched {

enum class calc_delta_mode {
    // Kernels up to 6.19 (and 32-bit always): multiply by the 32-bit inverse weight, shift.
    inverse_multiply,
    // tip sched/core 2026 (db4551e2ba34, 64-bit): exact division on the full weights.
    exact_division,
};

inline constexpr u32 wmult_const = ~u32{0};
inline constexpr unsigned wmult_shift = 32;

// __update_inv_weight(): computed inverses are floor((2^32 - 1) / w), not rounded.
inline constexpr void update_inv_weight(load_weight& lw) {
    if (lw.inv_weight != 0)
        return;
    const u64 w = scale_load_down(lw.weight);
    if (w >= wmult_const)
        lw.inv_weight = 1;
    else if (w == 0)
        lw.inv_weight = wmult_const;
    else
        lw.inv_weight = static_cast<u32>(wmult_const / w);
}

// mul_u64_u32_shr(): 64x32 -> 96-bit product, shifted, truncated.
inline constexpr u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned shift) {
    return static_cast<u64>((static_cast<u128>(a) * mul) >> shift);
}

// __calc_delta(): delta * weight / lw->weight.
inline constexpr u64 calc_delta(u64 delta, u64 weight, load_weight& lw,
                                calc_delta_mode mode = calc_delta_mode::inverse_multiply) {
    if (mode == calc_delta_mode::exact_division) {
        return static_cast<u64>(static_cast<u128>(delta) * weight / lw.weight);
    }
    u64 fact = scale_load_down(weight);
    int shift = wmult_shift;
    update_inv_weight(lw);
    if (u32 hi = static_cast<u32>(fact >> 32); hi != 0) {
        const int fs = static_cast<int>(std::bit_width(hi));
        shift -= fs;
        fact >>= fs;
    }
    fact = static_cast<u64>(static_cast<u32>(fact)) * lw.inv_weight;
    if (u32 hi = static_cast<u32>(fact >> 32); hi != 0) {
        const int fs = static_cast<int>(std::bit_width(hi));
        shift -= fs;
        fact >>= fs;
    }
    return mul_u64_u32_shr(delta, static_cast<u32>(fact), static_cast<unsigned>(shift));
}

// calc_delta_fair(): real time -> the entity's virtual time (delta * 1024 / w).
inline constexpr u64 calc_delta_fair(u64 delta, load_weight& lw,
                                     calc_delta_mode mode = calc_delta_mode::inverse_multiply) {
    if (lw.weight == nice_0_load)
        return delta;
    return calc_delta(delta, nice_0_load, lw, mode);
}

} // namespace libsched
