#pragma once
// Summaries of a sample: mean, median, extremes and percentiles, over doubles or integer
// durations. The analysis side, so floating point is fine here (never in the core).
//
// median(): the middle value, or the mean of the middle two for an even count.
// percentile(): nearest rank, the smallest value with at least p% of the sample at or below
// it, i.e. the ceil(p/100 * n)-th smallest (the smallest one for p = 0); always an observed
// value, so percentile(v, 50) can differ from median(v) for an even count.
// Each throws std::invalid_argument for an empty sample.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <libsched/scenario/duration_samples.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace libsched::stats {

template <class T>
concept sample_value = std::integral<T> || std::floating_point<T>;

namespace detail {

template <sample_value T> std::vector<T> sorted_sample(const std::vector<T>& v, const char* what) {
    if (v.empty())
        throw std::invalid_argument(std::string{what} + " of an empty sample");
    std::vector<T> s = v;
    std::sort(s.begin(), s.end());
    return s;
}

template <sample_value T> double median_of_sorted(const std::vector<T>& s) {
    const std::size_t n = s.size();
    if (n % 2 == 1)
        return static_cast<double>(s[n / 2]);
    return (static_cast<double>(s[n / 2 - 1]) + static_cast<double>(s[n / 2])) / 2;
}

// The nearest rank (1-based) of percentile p among n values.
inline std::size_t rank_of(double p, std::size_t n) {
    if (!(p >= 0 && p <= 100))
        throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
    // p * n / 100 within rounding of a whole number is that number: p = 99.9 of n = 41000 is
    // rank 40959, though the product comes out a hair above it.
    const double exact = p * static_cast<double>(n) / 100;
    const double whole = std::round(exact);
    const double rank = std::abs(exact - whole) <= 1e-12 * whole ? whole : std::ceil(exact);
    return std::min(std::max<std::size_t>(1, static_cast<std::size_t>(rank)), n);
}

template <sample_value T> double nearest_rank(const std::vector<T>& s, double p) {
    return static_cast<double>(s[rank_of(p, s.size()) - 1]);
}

// The same over values with counts, ascending.
inline double nearest_rank(const std::vector<duration_samples::value_count>& s, std::size_t n,
                           double p) {
    const std::size_t r = rank_of(p, n);
    std::size_t seen = 0;
    for (const auto& vc : s) {
        seen += static_cast<std::size_t>(vc.count);
        if (seen >= r)
            return static_cast<double>(vc.value);
    }
    return static_cast<double>(s.back().value);
}

} // namespace detail

template <sample_value T> double mean(const std::vector<T>& v) {
    if (v.empty())
        throw std::invalid_argument("mean of an empty sample");
    double sum = 0;
    for (const T x : v)
        sum += static_cast<double>(x);
    return sum / static_cast<double>(v.size());
}

template <sample_value T> double median(const std::vector<T>& v) {
    return detail::median_of_sorted(detail::sorted_sample(v, "median"));
}

template <sample_value T> double percentile(const std::vector<T>& v, double p) {
    return detail::nearest_rank(detail::sorted_sample(v, "percentile"), p);
}

template <sample_value T> double min(const std::vector<T>& v) {
    if (v.empty())
        throw std::invalid_argument("min of an empty sample");
    return static_cast<double>(*std::min_element(v.begin(), v.end()));
}

template <sample_value T> double max(const std::vector<T>& v) {
    if (v.empty())
        throw std::invalid_argument("max of an empty sample");
    return static_cast<double>(*std::max_element(v.begin(), v.end()));
}

// Everything at once, sorting once. An empty sample gives count 0 and zeros elsewhere.
struct sample_summary {
    std::size_t count = 0;
    double mean = 0;
    double min = 0;
    double p50 = 0; // nearest rank, like the other percentiles
    double p90 = 0;
    double p99 = 0;
    double p99_9 = 0;
    double max = 0;
    // false: the values were not kept (duration_samples::statistics_only()), so the
    // percentiles are unknown (left 0); count, mean, min and max are exact.
    bool percentiles = true;
};

template <sample_value T> sample_summary summarize(const std::vector<T>& v) {
    if (v.empty())
        return {};
    const std::vector<T> s = detail::sorted_sample(v, "summary");
    return {s.size(),
            stats::mean(s),
            static_cast<double>(s.front()),
            detail::nearest_rank(s, 50),
            detail::nearest_rank(s, 90),
            detail::nearest_rank(s, 99),
            detail::nearest_rank(s, 99.9),
            static_cast<double>(s.back())};
}

// The summary of a duration_samples: count, mean, minimum and maximum exact; percentiles
// exact while the samples are (duration_samples::exact()), none without values.
inline sample_summary summarize(const duration_samples& v) {
    if (v.empty())
        return {};
    const std::size_t n = v.size();
    const double mean = static_cast<double>(v.sum()) / static_cast<double>(n);
    if (!v.values_kept()) {
        sample_summary s{n, mean, static_cast<double>(v.min())};
        s.max = static_cast<double>(v.max());
        s.percentiles = false;
        return s;
    }
    const auto counts = v.sorted_counts();
    return {n,
            mean,
            static_cast<double>(v.min()),
            detail::nearest_rank(counts, n, 50),
            detail::nearest_rank(counts, n, 90),
            detail::nearest_rank(counts, n, 99),
            detail::nearest_rank(counts, n, 99.9),
            static_cast<double>(v.max())};
}

} // namespace libsched::stats
