#pragma once
// ENQUEUE_*, DEQUEUE_* and WF_* (kernel/sched/sched.h) as typed bit masks, with the
// kernel's values; only the flags the model uses.
#include <type_traits>

namespace libsched {

enum class enqueue_flags : unsigned {
    none = 0,
    wakeup = 0x01,
    restore = 0x02,
    head = 0x10, // ENQUEUE_HEAD: the RT class queues at the head of the list
    migrated = 0x40,
    initial = 0x80,
    delayed = 0x200,
};

enum class dequeue_flags : unsigned {
    none = 0,
    sleep = 0x01,
    save = 0x02,
    move = 0x04,
    special = 0x10,
    delayed = 0x200,
    throttle = 0x800, // 6.18+: throttle_cfs_rq_work() parks a task (DEQUEUE_THROTTLE)
};

enum class wake_flags : unsigned {
    none = 0,
    fork = 0x04,
    sync = 0x10, // the waker expects to sleep soon (a pipe's or a socket's wakeup)
    migrated = 0x20,
    rq_selected = 0x80, // select_task_rq() asked the class (6.12+; read by 6.19's preempt_sync)
};

template <class E> inline constexpr bool is_flag_mask = false;
template <> inline constexpr bool is_flag_mask<enqueue_flags> = true;
template <> inline constexpr bool is_flag_mask<dequeue_flags> = true;
template <> inline constexpr bool is_flag_mask<wake_flags> = true;

template <class E>
requires is_flag_mask<E>
constexpr E operator|(E a, E b) {
    using u = std::underlying_type_t<E>;
    return static_cast<E>(static_cast<u>(a) | static_cast<u>(b));
}
template <class E>
requires is_flag_mask<E>
constexpr E operator~(E a) {
    using u = std::underlying_type_t<E>;
    return static_cast<E>(~static_cast<u>(a));
}
template <class E>
requires is_flag_mask<E>
constexpr E operator&(E a, E b) {
    using u = std::underlying_type_t<E>;
    return static_cast<E>(static_cast<u>(a) & static_cast<u>(b));
}
// Whether any flag of `f` is set in `mask`.
template <class E>
requires is_flag_mask<E>
constexpr bool has(E mask, E f) {
    return (mask & f) != E::none;
}

} // namespace libsched
