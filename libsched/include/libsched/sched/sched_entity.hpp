#pragma once
// struct sched_entity (include/linux/sched.h): what the fair class keeps per schedulable
// entity, a task's or (with task groups) a group's. A group entity has its own queue
// (my_q) and is queued on its parent's; a task's entity has no my_q.
#include <boost/intrusive/list_hook.hpp>
#include <iterator>
#include <libsched/sched/detail/rb_node.hpp>
#include <libsched/sched/sched_avg.hpp>
#include <libsched/sched/weight.hpp>

namespace libsched {

struct task;
struct cfs_rq;

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
    bool idle = false; // se_is_idle(): a SCHED_IDLE task's entity, or an idle group's (cpu.idle)
    // A group entity's runnable count for PELT (se->runnable_weight, se_update_runnable()):
    // the runnable tasks of its queue, as of the last update.
    u64 runnable_weight = 0;

    sim_time exec_start = 0;
    duration sum_exec_runtime = 0;
    duration prev_sum_exec_runtime = 0; // sum_exec_runtime when last picked
    u64 nr_migrations = 0;
    sched_avg avg; // PELT (sched/pelt.hpp)

    // The hierarchy (CONFIG_FAIR_GROUP_SCHED): the group entity above, nullptr at the top;
    // the queue this entity is queued on; a group entity's own queue.
    sched_entity* parent = nullptr;
    struct cfs_rq* cfs_rq = nullptr;
    struct cfs_rq* my_q = nullptr;
    int depth = 0;
    struct task* owner = nullptr; // the task of a task's entity
    // A queued task's place in its rq's cfs_tasks list (most recently run first). Normal
    // links: tasks and queues may be destroyed in either order at the end of a run.
    boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>
        group_node;
};

inline bool entity_is_task(const sched_entity& se) {
    return se.my_q == nullptr;
}
inline struct task* task_of(const sched_entity& se) {
    return se.owner;
}
inline bool se_is_idle(const sched_entity& se) {
    return se.idle;
}
inline struct cfs_rq& cfs_rq_of(const sched_entity& se) {
    return *se.cfs_rq;
}

// for_each_sched_entity(se): an entity and its ancestors, bottom up.
class sched_entity_path {
public:
    class iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = sched_entity;
        using difference_type = std::ptrdiff_t;
        using pointer = sched_entity*;
        using reference = sched_entity&;
        iterator() = default;
        explicit iterator(sched_entity* se) : se_(se) {}
        sched_entity& operator*() const { return *se_; }
        sched_entity* operator->() const { return se_; }
        iterator& operator++() {
            se_ = se_->parent;
            return *this;
        }
        iterator operator++(int) {
            iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const iterator&) const = default;

    private:
        sched_entity* se_ = nullptr;
    };
    explicit sched_entity_path(sched_entity* se) : first_(se) {}
    iterator begin() const { return iterator(first_); }
    iterator end() const { return iterator(); }

private:
    sched_entity* first_;
};

inline sched_entity_path for_each_sched_entity(sched_entity* se) {
    return sched_entity_path(se);
}

} // namespace libsched
