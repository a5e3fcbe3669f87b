#pragma once
// struct sched_entity (include/linux/sched.h): what the fair class keeps per schedulable
// entity. A task's entity today; group entities (parent, my_q) come with task groups.
#include <libsched/sched/detail/rb_node.hpp>
#include <libsched/sched/weight.hpp>

namespace libsched {

struct task;

struct sched_entity : detail::rb_node {
    load_weight load;
    u64 vruntime = 0;
    u64 deadline = 0;   // EEVDF virtual deadline
    s64 vlag = 0;       // saved lag V - vruntime; 6.6-6.16 also the RUN_TO_PARITY marker
    u64 vprot = 0;      // 6.17+: end of the protected slice (virtual time)
    duration slice = 0; // requested slice, ns
    bool on_rq = false;
    bool sched_delayed = false; // 6.12+ DELAY_DEQUEUE
    bool rel_deadline = false;  // 6.12+ PLACE_REL_DEADLINE: deadline held relative
    bool custom_slice = false;

    sim_time exec_start = 0;
    duration sum_exec_runtime = 0;
    duration prev_sum_exec_runtime = 0; // sum_exec_runtime when last picked
    u64 nr_migrations = 0;

    struct task* task_of = nullptr; // nullptr for a group entity
};

} // namespace libsched
