#pragma once
// Node of the run-queue timeline: red-black links plus the augmented value the EEVDF
// pick prunes with (the smallest vruntime in the node's subtree, as the kernel's
// se->min_vruntime from 6.8).
#include <libsched/sched/types.hpp>

namespace libsched::detail {

struct rb_node {
    rb_node* parent = nullptr;
    rb_node* left = nullptr;
    rb_node* right = nullptr;
    int color = 0;
    bool is_header = false;
    u64 subtree_min_vruntime = 0;
};

} // namespace libsched::detail
