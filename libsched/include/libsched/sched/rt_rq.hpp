#pragma once
// struct rt_rq (kernel/sched/sched.h): a CPU's RT run queue: 100 FIFO lists, one per
// priority, with a bitmap of the non-empty ones (struct rt_prio_array), the counts the
// balancing and the RT bandwidth read, and the bandwidth state itself.
#include <array>
#include <bit>
#include <boost/intrusive/list.hpp>
#include <libsched/sched/task.hpp>
#include <libsched/sched/types.hpp>

namespace libsched {

struct rq;

using rt_run_list = boost::intrusive::list<
    sched_rt_entity,
    boost::intrusive::member_hook<sched_rt_entity, decltype(sched_rt_entity::run_list),
                                  &sched_rt_entity::run_list>>;

// struct rt_prio_array
struct rt_prio_array {
    std::array<u64, 2> bitmap{}; // bit MAX_RT_PRIO is the kernel's delimiter, implicit here
    std::array<rt_run_list, max_rt_prio> queue;

    void set_bit(int prio) { bitmap[static_cast<std::size_t>(prio / 64)] |= u64{1} << (prio % 64); }
    void clear_bit(int prio) {
        bitmap[static_cast<std::size_t>(prio / 64)] &= ~(u64{1} << (prio % 64));
    }
    // sched_find_first_bit(): the highest priority with a queued task, MAX_RT_PRIO if none.
    int find_first_bit() const {
        if (bitmap[0] != 0)
            return std::countr_zero(bitmap[0]);
        if (bitmap[1] != 0)
            return 64 + std::countr_zero(bitmap[1]);
        return max_rt_prio;
    }
};

struct rt_rq {
    rt_prio_array active;
    unsigned rt_nr_running = 0;
    unsigned rr_nr_running = 0;
    int highest_prio_curr = max_rt_prio; // highest_prio.curr: the best queued priority
    // The queue's tasks count in rq->nr_running (enqueue_top_rt_rq()); not while throttled.
    bool rt_queued = false;
    // RT bandwidth (sched_rt_runtime_exceeded()): runtime used in this period, the
    // runtime allowed per period (runtime_inf: none), throttled until the period timer.
    duration rt_time = 0;
    duration rt_runtime = 0;
    bool rt_throttled = false;
    // The balance callback queued for the end of __schedule() (rt_queue_push_tasks()).
    bool push_pending = false;

    rt_rq() = default;
    rt_rq(const rt_rq&) = delete;
    rt_rq& operator=(const rt_rq&) = delete;
};

} // namespace libsched
