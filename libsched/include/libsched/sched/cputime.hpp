#pragma once
// CPU time as user space reads it (kernel/sched/cputime.c cputime_adjust,
// kernel/time/time.c nsec_to_clock_t): the precise runtime split in the ratio of the
// tick samples, never going backwards.
#include <libsched/sched/task.hpp>

namespace libsched {

// USER_HZ is 100 on x86 and arm64 whatever CONFIG_HZ is: /proc reports 10 ms units.
inline constexpr duration user_hz = 100;

// nsec_to_clock_t(): truncating.
inline constexpr std::int64_t nsec_to_clock_t(duration ns) {
    return ns / (nsec_per_sec / user_hz);
}

struct adjusted_cputime {
    duration utime = 0;
    duration stime = 0;
};

// cputime_adjust(): rtime = sum_exec_runtime; utime/stime = tick samples; prev is what was
// reported before and is updated by the read.
inline adjusted_cputime cputime_adjust(duration rtime, duration utime_ticks, duration stime_ticks,
                                       prev_cputime& prev) {
    if (prev.stime + prev.utime < rtime) {
        duration stime = stime_ticks;
        if (stime == 0) {
            stime = 0;
        } else if (utime_ticks == 0) {
            stime = rtime;
        } else {
            // mul_u64_u64_div_u64(): exact 128-bit intermediate, truncating
            stime = static_cast<duration>(static_cast<u128>(stime) * static_cast<u128>(rtime) /
                                          static_cast<u128>(stime + utime_ticks));
            if (stime > rtime)
                stime = rtime;
        }
        if (stime < prev.stime)
            stime = prev.stime;
        duration utime = rtime - stime;
        if (utime < prev.utime) {
            utime = prev.utime;
            stime = rtime - utime;
        }
        prev.stime = stime;
        prev.utime = utime;
    }
    return {prev.utime, prev.stime};
}

} // namespace libsched
