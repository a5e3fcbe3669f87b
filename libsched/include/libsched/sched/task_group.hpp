#pragma once
// struct task_group (kernel/sched/sched.h) with CONFIG_FAIR_GROUP_SCHED: one per cpu cgroup
// and per autogroup. On each CPU a group has a queue of its own (cfs_rq[cpu]) and an entity
// (se[cpu]) queued on its parent's queue there. The root group uses each CPU's rq->cfs and
// has no entities. alloc_fair_sched_group() / init_tg_cfs_entry() build them.
#include <libsched/sched/rq.hpp>
#include <memory>
#include <string>
#include <vector>

namespace libsched {

struct cfs_bandwidth;

struct task_group {
    std::string name;                   // the cgroup's path below the root ("web/api"); "" = root
    task_group* parent = nullptr;       // nullptr for the root
    u64 shares = nice_0_load;           // tg->shares, scaled (cpu.shares 1024 = nice_0_load)
    bool idle = false;                  // cpu.idle (5.15+)
    bool autogroup = false;             // an autogroup (autogroup.c), not a cgroup
    s64 load_avg = 0;                   // Σ of the CPUs' tg_load_avg_contrib (atomic_long_t)
    std::vector<sched_entity*> se;      // per CPU; nullptr for the root
    std::vector<struct cfs_rq*> cfs_rq; // per CPU; the root's are the CPUs' rq->cfs
    std::vector<task_group*> children;  // walk_tg_tree_from()'s order: oldest first
    // CFS bandwidth control (sched/bandwidth.hpp; the core owns it): nullptr for a group
    // that never had a quota, which then costs nothing.
    cfs_bandwidth* cfs_b = nullptr;

    task_group() = default;
    task_group(const task_group&) = delete;
    task_group& operator=(const task_group&) = delete;

    bool is_root() const { return parent == nullptr; }

    // The root group over the CPUs' own queues.
    explicit task_group(const std::vector<rq*>& rqs) {
        for (rq* r : rqs) {
            r->cfs.tg = this;
            se.push_back(nullptr);
            cfs_rq.push_back(&r->cfs);
        }
    }

    // alloc_fair_sched_group() + init_tg_cfs_entry(): a child of parent with a queue and an
    // entity on every CPU. The entity starts at NICE_0_LOAD (update_load_set()); zeroed like
    // the kernel's kzalloc'ed entity otherwise (no PELT history, slice 0 until its first
    // deadline renewal sets it).
    task_group(task_group& parent_group, std::string path, const std::vector<rq*>& rqs,
               bool by_deadline)
        : name(std::move(path)), parent(&parent_group) {
        parent_group.children.push_back(this);
        for (std::size_t c = 0; c < rqs.size(); ++c) {
            auto q = std::make_unique<struct cfs_rq>(by_deadline);
            q->rq = rqs[c];
            q->tg = this;
            auto e = std::make_unique<sched_entity>();
            e->load = {nice_0_load, 0};
            e->my_q = q.get();
            e->parent = parent_group.se[c];
            e->cfs_rq = parent_group.cfs_rq[c];
            e->depth = e->parent != nullptr ? e->parent->depth + 1 : 0;
            se.push_back(e.get());
            cfs_rq.push_back(q.get());
            // Created after its parent: ahead of it on the leaf list.
            rqs[c]->leaf_cfs_rqs.insert(rqs[c]->leaf_cfs_rqs.begin(), q.get());
            owned_se_.push_back(std::move(e));
            owned_cfs_rq_.push_back(std::move(q));
        }
    }

private:
    std::vector<std::unique_ptr<sched_entity>> owned_se_;
    std::vector<std::unique_ptr<struct cfs_rq>> owned_cfs_rq_;
};

// group_cfs_rq(): the queue a group entity owns.
inline struct cfs_rq* group_cfs_rq(const sched_entity& se) {
    return se.my_q;
}

// is_same_group() / find_matching_se(): the two entities' ancestors on their first common
// queue, to compare a wakee with the running task (check_preempt_wakeup_fair()).
inline void find_matching_se(sched_entity*& se, sched_entity*& pse) {
    int se_depth = se->depth;
    int pse_depth = pse->depth;
    for (; se_depth > pse_depth; --se_depth)
        se = se->parent;
    for (; pse_depth > se_depth; --pse_depth)
        pse = pse->parent;
    while (se->cfs_rq != pse->cfs_rq) {
        se = se->parent;
        pse = pse->parent;
    }
}

} // namespace libsched
