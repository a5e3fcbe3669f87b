#pragma once
// The load balancer's per-CPU counters, apart from the balancer so that results can hold
// them without the scheduler's headers.
#include <cstdint>

namespace libsched {

// Per-CPU balancing counters (the kernel's schedstats, /proc/schedstat).
struct balance_counters {
    std::uint64_t lb_count = 0;   // load_balance() passes
    std::uint64_t lb_failed = 0;  // passes that found an imbalance but moved nothing
    std::uint64_t lb_gained = 0;  // tasks pulled to this CPU by its passes
    std::uint64_t alb_pushed = 0; // tasks pushed away from this CPU by its stopper
    std::uint64_t newidle = 0;    // newidle_balance() runs that balanced
    std::uint64_t nohz_kicks = 0; // NOHZ idle balances this CPU ran for others
};

// The counts between two readings of the same CPU's counters: b - a.
inline balance_counters counters_between(const balance_counters& a, const balance_counters& b) {
    return {b.lb_count - a.lb_count,     b.lb_failed - a.lb_failed, b.lb_gained - a.lb_gained,
            b.alb_pushed - a.alb_pushed, b.newidle - a.newidle,     b.nohz_kicks - a.nohz_kicks};
}

} // namespace libsched
