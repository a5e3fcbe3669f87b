#pragma once
// jiffies as a CPU reads them. The CPU that keeps time (tick_do_timer_cpu, the boot CPU until
// its tick stops) advances them in its own tick handler (tick_sched_do_timer() ->
// tick_do_update_jiffies64()), so between a tick's grid point and that handler every CPU
// reads the previous jiffy; an interrupt on a CPU whose tick was stopped brings them up to
// date at once (tick_nohz_irq_enter() -> tick_nohz_update_jiffies()). With every tick
// handled at its grid point (machine tick_latency 0) jiffies are the ticks since boot.
#include <algorithm>
#include <libsched/sched/types.hpp>
#include <limits>

namespace libsched {

class jiffies_clock {
public:
    explicit jiffies_clock(duration tick_nsec) : tick_(tick_nsec) {}

    u64 read(sim_time now) const {
        const auto j = static_cast<u64>(now / tick_);
        return j == pending_ && now < handled_at_ ? j - 1 : j;
    }

    // The timekeeper's tick of grid point `expiry` is handled at `at`.
    void timekeeper_armed(sim_time expiry, sim_time at) {
        pending_ = static_cast<u64>(expiry / tick_);
        handled_at_ = at;
    }
    // tick_do_update_jiffies64() at now from another path.
    void update(sim_time now) {
        if (static_cast<u64>(now / tick_) == pending_)
            handled_at_ = std::min(handled_at_, now);
    }
    // The timekeeper's tick stopped: no tick of its is pending.
    void timekeeper_dropped() { pending_ = std::numeric_limits<u64>::max(); }

private:
    duration tick_;
    u64 pending_ = std::numeric_limits<u64>::max(); // grid point of the timekeeper's next tick
    sim_time handled_at_ = 0;                       // when its handler runs
};

} // namespace libsched
