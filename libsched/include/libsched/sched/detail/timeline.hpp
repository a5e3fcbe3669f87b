#pragma once
// tasks_timeline: an intrusive red-black tree of sched_entity (Boost.Intrusive
// rbtree_algorithms) with the kernel's augmentation: per subtree, the minimum vruntime
// and the minimum and maximum slice. Only EEVDF reads them (pick_eevdf, cfs_rq_min_slice,
// cfs_rq_max_slice); the old CFS tree, ordered by vruntime, has its minimum leftmost and
// is not augmented, as the kernel's plain rb_add_cached() before 6.6.
//
// Boost.Intrusive has no augmentation callbacks. The node traits record every node whose
// child links change during an insert or erase (rotations included); afterwards each
// recorded node is recomputed and the change is carried upwards while values change. A
// node's value is only stale if its children changed, or a child's value changed, and
// both cases are covered, whatever order the rebalancing wrote the links in.
#include <algorithm>
#include <array>
#include <boost/intrusive/rbtree_algorithms.hpp>
#include <libsched/sched/sched_entity.hpp>

namespace libsched::detail {

struct dirty_log {
    static constexpr std::size_t capacity = 96;
    std::array<rb_node*, capacity> nodes{};
    std::size_t count = 0;
    bool overflow = false;
    void mark(rb_node* n) {
        if (count < capacity)
            nodes[count++] = n;
        else
            overflow = true;
    }
};

inline thread_local dirty_log timeline_dirty;

// Links without augmentation (the old CFS tree).
struct plain_node_traits {
    using node = rb_node;
    using node_ptr = rb_node*;
    using const_node_ptr = const rb_node*;
    using color = int;
    static node_ptr get_parent(const_node_ptr n) { return n->rb_parent; }
    static void set_parent(node_ptr n, node_ptr p) { n->rb_parent = p; }
    static node_ptr get_left(const_node_ptr n) { return n->rb_left; }
    static void set_left(node_ptr n, node_ptr l) { n->rb_left = l; }
    static node_ptr get_right(const_node_ptr n) { return n->rb_right; }
    static void set_right(node_ptr n, node_ptr r) { n->rb_right = r; }
    static color get_color(const_node_ptr n) { return n->rb_color; }
    static void set_color(node_ptr n, color c) { n->rb_color = c; }
    static color black() { return 0; }
    static color red() { return 1; }
};

// Links that record the nodes whose children change, for the augmented values.
struct timeline_node_traits : plain_node_traits {
    // A link rewritten with the child it had leaves the node's value as it was: not recorded.
    static void set_left(node_ptr n, node_ptr l) {
        if (n->rb_left == l)
            return;
        n->rb_left = l;
        timeline_dirty.mark(n);
    }
    static void set_right(node_ptr n, node_ptr r) {
        if (n->rb_right == r)
            return;
        n->rb_right = r;
        timeline_dirty.mark(n);
    }
};

inline sched_entity* entity(rb_node* n) {
    return static_cast<sched_entity*>(n);
}
inline const sched_entity* entity(const rb_node* n) {
    return static_cast<const sched_entity*>(n);
}

class timeline {
    using algo = boost::intrusive::rbtree_algorithms<timeline_node_traits>;
    using plain_algo = boost::intrusive::rbtree_algorithms<plain_node_traits>;

public:
    // By deadline and augmented (EEVDF), or by vruntime and plain (the old CFS).
    explicit timeline(bool by_deadline = true) : by_deadline_(by_deadline) {
        header_.is_header = true;
        algo::init_header(&header_);
    }
    timeline(const timeline&) = delete;
    timeline& operator=(const timeline&) = delete;

    bool by_deadline() const { return by_deadline_; }

    bool empty() const { return header_.rb_parent == nullptr; }
    std::size_t size() const { return size_; }

    // rb_add_cached: an entity equal to others goes to their right (FIFO among equals).
    void insert(sched_entity& se) {
        ++size_;
        if (!augmented())
            return insert_plain(se);
        se.rb_left = se.rb_right = se.rb_parent = nullptr;
        se.subtree_min_vruntime = se.vruntime;
        se.subtree_min_slice = se.slice;
        se.subtree_max_slice = se.slice;
        timeline_dirty.count = 0;
        timeline_dirty.overflow = false;
        algo::insert_equal_upper_bound(&header_, &se, [](const rb_node* a, const rb_node* b) {
            return vtime_before(entity(a)->deadline, entity(b)->deadline);
        });
        fix_augmented();
    }

    void erase(sched_entity& se) {
        --size_;
        if (!augmented())
            return erase_plain(se);
        timeline_dirty.count = 0;
        timeline_dirty.overflow = false;
        algo::erase(&header_, &se);
        se.rb_left = se.rb_right = se.rb_parent = nullptr;
        fix_augmented();
    }

    // min_vruntime_cb_propagate(): after a queued entity's slice changed, its augmented
    // values and those above it (nothing for an entity outside the tree).
    void update_augmented(sched_entity& se) {
        if (augmented())
            propagate(&se);
    }

    // Whether the subtree_* values are kept (EEVDF's tree).
    bool augmented() const { return by_deadline_; }

    // __pick_first_entity: the leftmost node, nullptr if empty.
    sched_entity* first() const {
        return empty() ? nullptr : const_cast<sched_entity*>(entity(header_.rb_left));
    }
    // __pick_root_entity
    sched_entity* root() const {
        return empty() ? nullptr : const_cast<sched_entity*>(entity(header_.rb_parent));
    }
    // The smallest vruntime queued (the tree not empty): the root's augmented value
    // (__pick_root_entity, 6.8+), or the leftmost's in a tree by vruntime.
    u64 min_vruntime() const {
        return augmented() ? root()->subtree_min_vruntime : first()->vruntime;
    }
    // __pick_next_entity: in-order successor, nullptr at the end.
    sched_entity* next(const sched_entity& se) const {
        rb_node* n = algo::next_node(const_cast<sched_entity*>(&se));
        return n == &header_ ? nullptr : entity(n);
    }

    bool before(const sched_entity& a, const sched_entity& b) const {
        return by_deadline_ ? vtime_before(a.deadline, b.deadline)
                            : vtime_before(a.vruntime, b.vruntime);
    }

    // Checks links, order and the augmented values (for tests): O(n).
    bool verify() const {
        std::size_t n = 0;
        return verify_subtree(header_.rb_parent, n) && n == size_ &&
               (empty() || header_.rb_parent->rb_parent == &header_);
    }

private:
    void insert_plain(sched_entity& se) {
        se.rb_left = se.rb_right = se.rb_parent = nullptr;
        plain_algo::insert_equal_upper_bound(&header_, &se, [](const rb_node* a, const rb_node* b) {
            return vtime_before(entity(a)->vruntime, entity(b)->vruntime);
        });
    }
    void erase_plain(sched_entity& se) {
        plain_algo::erase(&header_, &se);
        se.rb_left = se.rb_right = se.rb_parent = nullptr;
    }

    // A node's augmented values as its entity and its children's stored values give them.
    struct augment {
        u64 min_vruntime;
        s64 min_slice;
        s64 max_slice;
        bool stored_in(const rb_node* n) const {
            return min_vruntime == n->subtree_min_vruntime && min_slice == n->subtree_min_slice &&
                   max_slice == n->subtree_max_slice;
        }
    };
    static augment computed(const rb_node* n) {
        const sched_entity* se = entity(n);
        augment a{se->vruntime, se->slice, se->slice};
        for (const rb_node* c : {n->rb_left, n->rb_right}) {
            if (c == nullptr)
                continue;
            a.min_vruntime = vtime_min(a.min_vruntime, c->subtree_min_vruntime);
            a.min_slice = std::min(a.min_slice, c->subtree_min_slice);
            a.max_slice = std::max(a.max_slice, c->subtree_max_slice);
        }
        return a;
    }

    static bool recompute(rb_node* n) {
        const augment a = computed(n);
        if (a.stored_in(n))
            return false;
        n->subtree_min_vruntime = a.min_vruntime;
        n->subtree_min_slice = a.min_slice;
        n->subtree_max_slice = a.max_slice;
        return true;
    }

    static void propagate(rb_node* n) {
        if (n == nullptr || n->is_header || n->rb_parent == nullptr)
            return; // header, or a node that has just left the tree
        bool changed = recompute(n);
        while (changed && !n->rb_parent->is_header) {
            n = n->rb_parent;
            changed = recompute(n);
        }
    }

    void fix_augmented() {
        if (timeline_dirty.overflow) {
            recompute_all(header_.rb_parent);
            return;
        }
        for (std::size_t i = 0; i < timeline_dirty.count; ++i)
            propagate(timeline_dirty.nodes[i]);
    }

    static void recompute_all(rb_node* n) {
        if (n == nullptr)
            return;
        recompute_all(n->rb_left);
        recompute_all(n->rb_right);
        recompute(n);
    }

    bool verify_subtree(const rb_node* n, std::size_t& count) const {
        if (n == nullptr)
            return true;
        ++count;
        for (const rb_node* c : {n->rb_left, n->rb_right})
            if (c != nullptr && (c->rb_parent != n || !verify_subtree(c, count)))
                return false;
        if (n->rb_left && before(*entity(n), *entity(n->rb_left)))
            return false;
        if (n->rb_right && before(*entity(n->rb_right), *entity(n)))
            return false;
        return !augmented() || computed(n).stored_in(n);
    }

    rb_node header_;
    std::size_t size_ = 0;
    bool by_deadline_;
};

} // namespace libsched::detail
