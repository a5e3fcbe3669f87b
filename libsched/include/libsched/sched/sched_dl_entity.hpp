#pragma once
// struct sched_dl_entity (include/linux/sched.h), the part a deadline server uses: its
// reservation (dl_runtime every dl_period, relative deadline dl_deadline), the budget and
// absolute deadline of its current period, and its state bits.
#include <libsched/sched/types.hpp>

namespace libsched {

struct sched_dl_entity {
    duration dl_runtime = 0;  // ns per period
    duration dl_deadline = 0; // relative deadline, ns
    duration dl_period = 0;   // ns
    s64 runtime = 0;          // budget left in this period
    sim_time deadline = 0;    // absolute deadline (rq_clock)
    bool dl_throttled = false;
    bool dl_server = false;
    bool dl_defer = false;
    bool dl_defer_armed = false;   // waiting for the timer at its zero-laxity point
    bool dl_defer_running = false; // handling a starvation: no more deferring
    bool dl_defer_idle = false;    // 6.19+: idle time started this period; its timer stops it
    bool dl_server_active = false;
    bool on_dl_rq = false; // queued on the CPU's dl_rq (runnable as a DL entity)
};

} // namespace libsched
