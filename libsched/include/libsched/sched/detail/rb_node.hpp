#pragma once
// Node of the run-queue timeline: red-black links plus the augmented values of the
// node's subtree, as the kernel keeps them from 6.8 / 6.12: the smallest vruntime (the
// EEVDF pick prunes with it, se->min_vruntime), the shortest slice (se->min_slice) and,
// from 6.18.17 / 6.19.7, the longest (se->max_slice).
#include <libsched/sched/types.hpp>

namespace libsched::detail {

struct rb_node {
    // rb_parent, not parent: sched_entity has a parent of its own (the group entity above).
    rb_node* rb_parent = nullptr;
    rb_node* rb_left = nullptr;
    rb_node* rb_right = nullptr;
    int rb_color = 0;
    bool is_header = false;
    u64 subtree_min_vruntime = 0;
    s64 subtree_min_slice = 0;
    s64 subtree_max_slice = 0;
};

} // namespace libsched::detail
