#pragma once
// What /proc/PID/sched and /sys/kernel/debug/sched/debug show of an entity and of a fair
// queue (kernel/sched/debug.c), read as they stand, without updating anything: a running
// entity's figures are as of its last update_curr(), as in the kernel.
#include <libsched/sched/cfs_rq.hpp>
#include <libsched/sched/rq.hpp>

namespace libsched {

struct entity_state {
    u64 vruntime = 0;
    u64 deadline = 0;
    s64 lag = 0;  // V - vruntime now, in virtual time (vlag is the saved one)
    s64 vlag = 0; // the saved lag (6.6-6.16: the run-to-parity marker while it runs)
    bool eligible = false;
    duration slice = 0;
    u64 weight = 0; // load.weight at 1024 resolution
    bool on_rq = false;
    bool sched_delayed = false;
    duration sum_exec_runtime = 0;
    u64 nr_migrations = 0;
};

inline entity_state read_entity(const sched_entity& se) {
    entity_state s;
    s.vruntime = se.vruntime;
    s.deadline = se.deadline;
    s.vlag = se.vlag;
    s.slice = se.slice;
    s.weight = scale_load_down(se.load.weight);
    s.on_rq = se.on_rq;
    s.sched_delayed = se.sched_delayed;
    s.sum_exec_runtime = se.sum_exec_runtime;
    s.nr_migrations = se.nr_migrations;
    if (se.cfs_rq != nullptr && se.on_rq) {
        s.lag = static_cast<s64>(avg_vruntime(*se.cfs_rq) - se.vruntime);
        s.eligible = entity_eligible(*se.cfs_rq, se);
    }
    return s;
}

struct cfs_rq_state {
    u64 min_vruntime = 0;
    u64 avg_vruntime = 0; // V
    unsigned nr_queued = 0;
    unsigned h_nr_queued = 0;
    unsigned h_nr_delayed = 0;
    u64 load = 0;     // at 1024 resolution
    int curr_pid = 0; // 0: nothing of the queue runs
};

inline cfs_rq_state read_cfs_rq(const cfs_rq& q) {
    cfs_rq_state s;
    s.min_vruntime = q.min_vruntime;
    s.avg_vruntime = avg_vruntime(q);
    s.nr_queued = q.nr_queued;
    s.h_nr_queued = q.h_nr_queued;
    s.h_nr_delayed = q.h_nr_delayed;
    s.load = scale_load_down(q.load.weight);
    if (q.curr != nullptr && task_of(*q.curr) != nullptr)
        s.curr_pid = task_of(*q.curr)->pid;
    return s;
}

} // namespace libsched
