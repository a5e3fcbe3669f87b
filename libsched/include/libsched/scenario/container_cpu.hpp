#pragma once
// The conversions between a container's CPU request and limit (a Kubernetes pod spec's
// resources.requests.cpu / limits.cpu, in millicores) and the cgroup files, as the kubelet
// and the OCI runtimes compute them:
//
//  - kubelet (pkg/kubelet/cm/helpers_linux.go) MilliCPUToShares(): a request becomes
//    cpu.shares = milliCPU * 1024 / 1000, at least MinShares (2), at most MaxShares
//    (262144); a request of 0 gives 2. MilliCPUToQuota(): a limit becomes a CFS quota of
//    milliCPU * period / 1000 over the 100 ms period, at least 1 ms; a limit of 0 none.
//  - On cgroup v2 the OCI runtime writes those shares as cpu.weight:
//      linear         1 + ((shares - 2) * 9999) / 262142, runc up to 1.3.1 (since the v2
//                     support, runc PR 2213) and crun before the change;
//      log-quadratic  ceil(10^((L^2 + 125 L) / 612 - 7/34)), L = log2(shares), which maps
//                     2 -> 1, 1024 -> 100 and 262144 -> 10000; runc 1.3.2 and 1.4.0-rc.1
//                     on (runc PR 4785, its 1.3.2 changelog), crun from 1.23 (crun PR 1767;
//                     the version is as third parties report it, not read in crun's own
//                     changelog);
//      systemd        shares * 100 / 1024 within [1, 10000] (systemd's
//                     cgroup_cpu_shares_to_weight(), a unit's CPUShares= on v2).
// The log-quadratic formula is computed in double as the runtimes do (Go's math.Log2 and
// math.Pow); exact powers of two give exact logarithms, and the other worked values the
// runtimes publish (2000 -> 170, 22000 -> 1204) are reproduced.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace libsched {

enum class shares_to_weight_formula {
    log_quadratic, // runc >= 1.3.2, crun >= 1.23
    linear,        // runc <= 1.3.1, older crun
    systemd,       // systemd CPUShares= on cgroup v2
};

inline constexpr long long kubelet_min_shares = 2;
inline constexpr long long kubelet_max_shares = 262'144;
inline constexpr long long kubelet_shares_per_cpu = 1024;
inline constexpr long long kubelet_quota_period_us = 100'000; // QuotaPeriod, 100 ms
inline constexpr long long kubelet_min_quota_us = 1000;       // MinQuotaPeriod, 1 ms

// MilliCPUToShares()
inline constexpr long long milli_cpu_to_shares(long long milli_cpu) {
    if (milli_cpu == 0)
        return kubelet_min_shares;
    const long long shares = milli_cpu * kubelet_shares_per_cpu / 1000;
    return std::clamp(shares, kubelet_min_shares, kubelet_max_shares);
}

// MilliCPUToQuota(): the quota in microseconds over `period_us`; 0 = no quota.
inline constexpr long long milli_cpu_to_quota_us(long long milli_cpu,
                                                 long long period_us = kubelet_quota_period_us) {
    if (milli_cpu == 0)
        return 0;
    return std::max(milli_cpu * period_us / 1000, kubelet_min_quota_us);
}

// ConvertCPUSharesToCgroupV2Value() of the runtime: cpu.shares to cpu.weight; 0 = unset.
inline std::uint64_t cpu_shares_to_weight(std::uint64_t shares, shares_to_weight_formula f) {
    if (shares == 0)
        return 0;
    switch (f) {
    case shares_to_weight_formula::linear:
        return 1 + ((shares - 2) * 9999) / 262'142;
    case shares_to_weight_formula::systemd:
        return std::clamp<std::uint64_t>(shares * 100 / 1024, 1, 10'000);
    case shares_to_weight_formula::log_quadratic:
        break;
    }
    if (shares <= 2)
        return 1;
    if (shares >= 262'144)
        return 10'000;
    const double l = std::log2(static_cast<double>(shares));
    const double exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
    return static_cast<std::uint64_t>(std::ceil(std::pow(10.0, exponent)));
}

namespace detail {

// The decimal digits of text appended to v; false if any is not a digit.
inline constexpr bool append_digits(std::string_view text, long long& v) {
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    return true;
}

} // namespace detail

// A Kubernetes CPU quantity in millicores: "500m", "2", "0.5", "1.25"; nullopt if it is
// not one (negative, more than three decimals, or not a number).
inline std::optional<long long> parse_cpu_quantity(std::string_view text) {
    long long milli = 0;
    if (!text.empty() && text.back() == 'm') {
        text.remove_suffix(1);
        if (text.empty() || text.size() > 12 || !detail::append_digits(text, milli))
            return std::nullopt;
        return milli;
    }
    const auto dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if ((whole.empty() && frac.empty()) || whole.size() > 9 || frac.size() > 3 ||
        (dot != std::string_view::npos && frac.empty()))
        return std::nullopt;
    long long cpus = 0;
    if (!detail::append_digits(whole, cpus) || !detail::append_digits(frac, milli))
        return std::nullopt;
    for (std::size_t d = frac.size(); d < 3; ++d)
        milli *= 10;
    return cpus * 1000 + milli;
}

} // namespace libsched
