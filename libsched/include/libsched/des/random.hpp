#pragma once
// The simulator's seeded random source. Distributions are written out here rather than
// taken from <random>, whose distributions differ between standard libraries: the same
// seed must give the same draws everywhere.
#include <cmath>
#include <cstdint>
#include <random>

namespace libsched::des {

class random_source {
public:
    explicit random_source(std::uint64_t seed) : engine_(seed) {}

    std::uint64_t next_u64() { return engine_(); }

    // Uniform integer in [lo, hi] (inclusive), by rejection: no modulo bias.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
        if (hi <= lo)
            return lo;
        const std::uint64_t span =
            static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1; // no overflow
        if (span == 0) // the whole 64-bit range
            return static_cast<std::int64_t>(next_u64());
        // 2^64 mod span values at the bottom would bias the result; reject them.
        const std::uint64_t threshold = (std::uint64_t(0) - span) % span;
        std::uint64_t x;
        do
            x = next_u64();
        while (x < threshold);
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % span);
    }

    // Uniform double in [0, 1) with 53 random bits.
    double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

    // Exponential with the given mean, rounded to the nearest integer.
    std::int64_t exponential(double mean) { return std::llround(-mean * std::log1p(-uniform01())); }

private:
    std::mt19937_64 engine_; // fully specified by the standard: reproducible
};

} // namespace libsched::des
