#pragma once
// Everything the fair class reads besides its queues: release, features, tunables.
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/sched_entity.hpp>
#include <libsched/sched/tunables.hpp>

namespace libsched {

struct fair_params {
    kernel_version version;
    sched_features feat;
    sched_tunables tun;
    calc_delta_mode delta_mode = calc_delta_mode::inverse_multiply;

    fair_params() = default;
    fair_params(kernel_version v, sched_tunables t,
                calc_delta_mode m = calc_delta_mode::inverse_multiply)
        : version(v), feat(v), tun(t), delta_mode(m) {}

    bool since(int major, int minor) const { return version >= kernel_version{major, minor}; }
    bool eevdf() const { return version.is_eevdf(); }

    u64 delta_fair(u64 delta, sched_entity& se) const {
        return calc_delta_fair(delta, se.load, delta_mode);
    }
};

// ENQUEUE_* / DEQUEUE_* flags (kernel/sched/sched.h); only those the model uses.
namespace enqueue {
inline constexpr unsigned wakeup = 0x01;
inline constexpr unsigned restore = 0x02;
inline constexpr unsigned migrated = 0x40;
inline constexpr unsigned initial = 0x80;
inline constexpr unsigned delayed = 0x200;
} // namespace enqueue
namespace dequeue {
inline constexpr unsigned sleep = 0x01;
inline constexpr unsigned save = 0x02;
inline constexpr unsigned move = 0x04;
inline constexpr unsigned special = 0x10;
inline constexpr unsigned delayed = 0x200;
} // namespace dequeue

} // namespace libsched
