#pragma once
// The fair-class policies (include/uapi/linux/sched.h SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE).
namespace libsched {

enum class sched_policy { normal, batch, idle };

} // namespace libsched
