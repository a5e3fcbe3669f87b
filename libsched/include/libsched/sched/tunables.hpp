#pragma once
// Scheduler tunables with their CPU-count scaling (fair.c get_update_sysctl_factor,
// update_sysctl, sched_update_scaling). Every value is in nanoseconds unless named.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/stable_fix.hpp>
#include <libsched/sched/types.hpp>
#include <optional>
#include <string>

namespace libsched {

enum class tunable_scaling { none = 0, log = 1, linear = 2 };

// The CONFIG_HZ choices (kernel/Kconfig.hz).
inline constexpr std::array<int, 4> supported_hz = {100, 250, 300, 1000};

// "100, 250, 300 or 1000"
inline std::string supported_hz_text() {
    std::string text;
    for (std::size_t i = 0; i < supported_hz.size(); ++i)
        text += (i == 0                         ? ""
                 : i + 1 == supported_hz.size() ? " or "
                                                : ", ") +
                std::to_string(supported_hz[i]);
    return text;
}

// Why hz is not a CONFIG_HZ choice ("123 is not a CONFIG_HZ choice (100, 250, 300 or
// 1000)"), or nullopt.
inline std::optional<std::string> unsupported_hz(int hz) {
    if (std::find(supported_hz.begin(), supported_hz.end(), hz) != supported_hz.end())
        return std::nullopt;
    return std::to_string(hz) + " is not a CONFIG_HZ choice (" + supported_hz_text() + ")";
}

// RUNTIME_INF: sched_rt_runtime_us = -1, no RT bandwidth limit.
inline constexpr duration runtime_inf = -1;

struct sched_tunables {
    int hz = 250;                            // CONFIG_HZ
    duration tick_nsec = nsec_per_sec / 250; // TICK_NSEC
    tunable_scaling scaling = tunable_scaling::log;
    unsigned factor = 1; // 1 + ilog2(min(cpus, 8)) for log scaling
    // EEVDF (6.6+): base slice, already multiplied by factor (debugfs base_slice_ns).
    duration base_slice = 750'000;
    // Old CFS (< 6.6), scaled values as in debugfs.
    duration latency = 6'000'000;
    duration min_granularity = 750'000;
    duration wakeup_granularity = 1'000'000;
    duration idle_min_granularity = 750'000; // 5.16+, not scaled
    unsigned nr_latency = 8;                 // sched_nr_latency
    // Load balancing: a task that ran this recently is cache hot (-1: always, 0: never);
    // at most this many tasks examined per pass (sysctl_sched_nr_migrate).
    duration migration_cost = 500'000;
    unsigned nr_migrate = 32;
    // RT (kernel/sched/rt.c): sched_rt_period_us and sched_rt_runtime_us as ns (-1,
    // RUNTIME_INF: no limit), and sched_rr_timeslice in jiffies (RR_TIMESLICE, 100 ms).
    duration rt_period = 1'000'000'000;
    duration rt_runtime = 950'000'000;
    unsigned rr_timeslice = 25;
    // 6.12+: the fair server's reservation (fair_server_init() / dl_server_apply_params()).
    duration fair_server_runtime = 50'000'000;
    duration fair_server_period = 1'000'000'000;
    // CONFIG_RT_GROUP_SCHED, a kernel configuration the RT class reads with its tunables:
    // from 6.12 (5f6bd380c7bd) RT bandwidth throttles only with it.
    bool rt_group_sched = false;
    // CFS bandwidth control: the runtime a CPU's queue takes from its group's pool at a
    // time (sysctl_sched_cfs_bandwidth_slice, 5000 us).
    duration cfs_bandwidth_slice = 5'000'000;
};

// RR_TIMESLICE (include/linux/sched/rt.h): 100 ms in jiffies.
inline constexpr unsigned rr_timeslice_jiffies(int hz) {
    return static_cast<unsigned>(100 * hz / 1000);
}

// msecs_to_jiffies(), rounding up (sched_rr_handler() takes sched_rr_timeslice_ms so).
inline constexpr unsigned msecs_to_jiffies(u64 ms, int hz) {
    return static_cast<unsigned>((ms * static_cast<u64>(hz) + 999) / 1000);
}

// get_update_sysctl_factor(): cpus = min(online, 8).
inline constexpr unsigned sysctl_factor(tunable_scaling s, int online_cpus) {
    const unsigned cpus = static_cast<unsigned>(std::clamp(online_cpus, 1, 8));
    switch (s) {
    case tunable_scaling::none:
        return 1;
    case tunable_scaling::linear:
        return cpus;
    case tunable_scaling::log:
    default:
        return 1 + static_cast<unsigned>(std::bit_width(cpus) - 1);
    }
}

// normalized_sysctl_sched_base_slice: 0.75 ms, 0.70 ms from 6.15 and the stable updates
// that took 2ae891b82695.
inline constexpr duration normalized_base_slice(kernel_version v) {
    return carries(v, reduced_base_slice) ? 700'000 : 750'000;
}

inline constexpr sched_tunables default_tunables(kernel_version v, int online_cpus, int hz,
                                                 tunable_scaling s = tunable_scaling::log) {
    sched_tunables t;
    t.hz = hz;
    t.tick_nsec = (nsec_per_sec + hz / 2) / hz; // TICK_NSEC rounds to nearest
    t.scaling = s;
    t.factor = sysctl_factor(s, online_cpus);
    t.base_slice = normalized_base_slice(v) * t.factor;
    t.latency = 6'000'000 * static_cast<duration>(t.factor);
    t.min_granularity = 750'000 * static_cast<duration>(t.factor);
    t.wakeup_granularity = 1'000'000 * static_cast<duration>(t.factor);
    t.idle_min_granularity = 750'000;
    t.nr_latency = static_cast<unsigned>((t.latency + t.min_granularity - 1) / t.min_granularity);
    t.rr_timeslice = rr_timeslice_jiffies(hz);
    return t;
}

} // namespace libsched
