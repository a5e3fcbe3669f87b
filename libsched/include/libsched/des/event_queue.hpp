#pragma once
// Pending-event set: a binary heap keyed by event_key. push and pop are O(log n);
// cancel is O(1) and lazy (the entry is skipped when it reaches the top).
#include <algorithm>
#include <cstdint>
#include <libsched/des/event_key.hpp>
#include <unordered_set>
#include <vector>

namespace libsched::des {

class handler;

struct event {
    event_key key;
    handler* target = nullptr;
    std::uint64_t payload = 0;
};

class event_queue {
public:
    void push(const event& e) {
        heap_.push_back(e);
        std::push_heap(heap_.begin(), heap_.end(), later);
    }

    // Marks a pending event as cancelled. Only pending ids may be cancelled: an id that
    // already ran would stay in the set.
    void cancel(event_id id) { cancelled_.insert(id); }

    bool empty() {
        drop_cancelled();
        return heap_.empty();
    }

    // The earliest live event; the queue must not be empty.
    const event& top() {
        drop_cancelled();
        return heap_.front();
    }

    event pop() {
        drop_cancelled();
        std::pop_heap(heap_.begin(), heap_.end(), later);
        event e = heap_.back();
        heap_.pop_back();
        return e;
    }

private:
    static bool later(const event& a, const event& b) { return b.key < a.key; }

    void drop_cancelled() {
        while (!cancelled_.empty() && !heap_.empty()) {
            const auto it = cancelled_.find(heap_.front().key.seq);
            if (it == cancelled_.end())
                return;
            cancelled_.erase(it);
            std::pop_heap(heap_.begin(), heap_.end(), later);
            heap_.pop_back();
        }
    }

    std::vector<event> heap_;
    std::unordered_set<event_id> cancelled_; // ids of pending events that must not run
};

} // namespace libsched::des
