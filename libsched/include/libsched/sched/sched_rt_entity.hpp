#pragma once
// struct sched_rt_entity (include/linux/sched.h): what the RT class keeps per task: its
// place in its priority's FIFO list and, for SCHED_RR, the jiffies left of its slice.
#include <boost/intrusive/list_hook.hpp>

namespace libsched {

struct task;

struct sched_rt_entity {
    // run_list: the place in rt_rq->active.queue[prio]. Normal links, as group_node: tasks
    // and queues may be destroyed in either order at the end of a run.
    boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>
        run_list;
    unsigned time_slice = 0; // jiffies; __sched_fork() sets sched_rr_timeslice
    bool on_rq = false;
    bool on_list = false;
    struct task* owner = nullptr; // rt_task_of()
};

} // namespace libsched
