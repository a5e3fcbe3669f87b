#pragma once
// The simulator's seeded random source. Distributions are written out here rather than
// taken from <random>, whose distributions differ between standard libraries, and the
// logarithm too rather than taken from <cmath>, whose results differ between libm builds in
// the last bit: the same seed must give the same draws everywhere.
//
// Assumed: IEEE 754 doubles evaluated at double precision (FLT_EVAL_METHOD 0, as on x86-64
// and AArch64) and no -ffast-math. Contraction of a * b + c into one FMA, which rounds once
// instead of twice, is on by default in GCC wherever the target has FMA, even with -std=c++20;
// the logarithm rounds each product on its own (detail::product) so that it cannot change.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

namespace libsched::des {
namespace detail {

// x * y rounded to a double by itself: a volatile store cannot be fused with what follows.
inline double product(double x, double y) {
    volatile double p = x * y;
    return p;
}

// 2 / (2k + 1) for k = 1 .. 10: the series 2 atanh(s) = 2s + s * sum(c_k s^2k). With
// |s| <= 3 - 2 sqrt(2) the first term left out is below 2^-60 of the result.
inline constexpr std::array<double, 10> atanh_series = [] {
    std::array<double, 10> c{};
    for (std::size_t k = 1; k <= c.size(); ++k)
        c[k - 1] = 2.0 / static_cast<double>(2 * k + 1);
    return c;
}();

} // namespace detail

// ln(x) for a normal positive x with +, -, * and / only, which IEEE 754 rounds the same on
// every machine; within about an ulp of the exact value. x = 2^k (1 + f) with 1 + f in
// [sqrt(1/2), sqrt(2)]; ln(1 + f) = 2 atanh(s), s = f / (2 + f), arranged as in fdlibm's
// log() so that the rounding error stays below an ulp: f - (f^2/2 - s (f^2/2 + R)).
inline double deterministic_log(double x) {
    using detail::product;
    constexpr double ln2_hi = 0x1.62e42fee00000p-1; // k * ln2_hi is exact for |k| < 2^21
    constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
    constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
    const auto bits = std::bit_cast<std::uint64_t>(x);
    int k = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    double m = std::bit_cast<double>((bits & 0x000f'ffff'ffff'ffffULL) | 0x3ff0'0000'0000'0000ULL);
    if (m > sqrt2) {
        m *= 0.5;
        ++k;
    }
    const double f = m - 1.0; // exact: m is within a factor of 2 of 1
    const double s = f / (2.0 + f);
    const double z = product(s, s);
    double r = 0.0;
    for (std::size_t i = detail::atanh_series.size(); i-- > 0;)
        r = product(z, detail::atanh_series[i] + r);
    const double half_f2 = product(0.5 * f, f);
    const double dk = static_cast<double>(k);
    return dk * ln2_hi - ((half_f2 - (product(s, half_f2 + r) + product(dk, ln2_lo))) - f);
}

// A random (or constant) time in integer nanoseconds.
struct distribution {
    enum class kind { constant, uniform, exponential };
    kind type = kind::constant;
    std::int64_t a = 0; // constant: the value; uniform: low bound; exponential: the mean
    std::int64_t b = 0; // uniform: high bound (inclusive)

    bool operator==(const distribution&) const = default;
};

// The least a draw of d can be (an exponential's is 0).
inline std::int64_t least_draw(const distribution& d) {
    return d.type == distribution::kind::exponential ? 0 : d.a;
}

// Uniform integer in [lo, hi] (inclusive) from a generator of 64-bit words, by rejection:
// no modulo bias.
template <class Generator>
std::int64_t uniform_int(Generator& g, std::int64_t lo, std::int64_t hi) {
    if (hi <= lo)
        return lo;
    const std::uint64_t span =
        static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1; // no overflow
    if (span == 0) // the whole 64-bit range
        return static_cast<std::int64_t>(g.next_u64());
    // 2^64 mod span values at the bottom would bias the result; reject them.
    const std::uint64_t threshold = (std::uint64_t(0) - span) % span;
    std::uint64_t x;
    do
        x = g.next_u64();
    while (x < threshold);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % span);
}

// Uniform double in [0, 1) with 53 random bits.
template <class Generator> double uniform01(Generator& g) {
    return static_cast<double>(g.next_u64() >> 11) * 0x1.0p-53;
}

// Exponential with the given mean, rounded to the nearest integer. 1 - u is exact and in
// [2^-53, 1], so the logarithm's argument is normal. std::llround is exact.
template <class Generator> std::int64_t exponential(Generator& g, double mean) {
    return std::llround(-mean * deterministic_log(1.0 - uniform01(g)));
}

// A draw from d; a constant takes nothing from the generator.
template <class Generator> std::int64_t draw(Generator& g, const distribution& d) {
    switch (d.type) {
    case distribution::kind::uniform:
        return uniform_int(g, d.a, d.b);
    case distribution::kind::exponential:
        return exponential(g, static_cast<double>(d.a));
    case distribution::kind::constant:
    default:
        return d.a;
    }
}

class random_source {
public:
    explicit random_source(std::uint64_t seed) : engine_(seed) {}

    std::uint64_t next_u64() { return engine_(); }
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
        return des::uniform_int(*this, lo, hi);
    }
    double uniform01() { return des::uniform01(*this); }
    std::int64_t exponential(double mean) { return des::exponential(*this, mean); }
    std::int64_t draw(const distribution& d) { return des::draw(*this, d); }

private:
    std::mt19937_64 engine_; // fully specified by the standard: reproducible
};

// Words that are a function of a seed and a key alone (splitmix64 over their mix): a draw
// keyed by what it is for takes nothing from the seeded stream, and two draws for the same
// key agree.
class keyed_source {
public:
    keyed_source(std::uint64_t seed, std::uint64_t key0, std::uint64_t key1)
        : state_(mix(seed ^ mix(key0 ^ mix(key1)))) {}

    std::uint64_t next_u64() { return mix(state_ += increment); }

private:
    static constexpr std::uint64_t increment = 0x9e3779b97f4a7c15ULL;
    static std::uint64_t mix(std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t state_;
};

} // namespace libsched::des
