#pragma once
// Units of the scheduling core: integer nanoseconds only, no floating point.
#include <cstdint>

namespace libsched {

using u64 = std::uint64_t;
using s64 = std::int64_t;
using u32 = std::uint32_t;
// 128-bit intermediates (mul_u64_u32_shr, div64); __extension__ keeps -Wpedantic quiet.
__extension__ using u128 = unsigned __int128;
__extension__ using s128 = __int128;

// Absolute simulated time and durations, in real nanoseconds.
using sim_time = std::int64_t;
using duration = std::int64_t;

inline constexpr duration nsec_per_usec = 1'000;
inline constexpr duration nsec_per_msec = 1'000'000;
inline constexpr duration nsec_per_sec = 1'000'000'000;

// Virtual time wraps like the kernel's u64; compare through the signed difference.
inline constexpr bool vtime_before(u64 a, u64 b) {
    return static_cast<s64>(a - b) < 0;
}
inline constexpr u64 vtime_max(u64 a, u64 b) {
    return static_cast<s64>(b - a) > 0 ? b : a;
}
inline constexpr u64 vtime_min(u64 a, u64 b) {
    return static_cast<s64>(b - a) < 0 ? b : a;
}

} // namespace libsched
