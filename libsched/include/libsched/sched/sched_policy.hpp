#pragma once
// The scheduling policies (include/uapi/linux/sched.h): SCHED_NORMAL, SCHED_BATCH and
// SCHED_IDLE of the fair class, SCHED_FIFO and SCHED_RR of the RT class.
namespace libsched {

enum class sched_policy { normal, batch, idle, fifo, rr };

// rt_policy(): SCHED_FIFO or SCHED_RR.
inline constexpr bool rt_policy(sched_policy p) {
    return p == sched_policy::fifo || p == sched_policy::rr;
}

// fair_policy() (with SCHED_IDLE, which the fair class also serves).
inline constexpr bool fair_policy(sched_policy p) {
    return !rt_policy(p);
}

// The policy as sched_setscheduler() and chrt name it, lower case: "normal", "fifo".
inline constexpr const char* policy_name(sched_policy p) {
    switch (p) {
    case sched_policy::batch:
        return "batch";
    case sched_policy::idle:
        return "idle";
    case sched_policy::fifo:
        return "fifo";
    case sched_policy::rr:
        return "rr";
    case sched_policy::normal:
    default:
        return "normal";
    }
}

} // namespace libsched
