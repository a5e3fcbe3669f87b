#pragma once
// Pending-event set: a binary heap keyed by event_key; push and pop are O(log n). There is
// no cancel: a source that must take an event back (des/timer.hpp) lets it come up and
// refuses it, so nothing is searched for and nothing is left behind.
#include <algorithm>
#include <cstdint>
#include <libsched/des/event_key.hpp>
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

    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }

    // The earliest event; the queue must not be empty.
    const event& top() const { return heap_.front(); }

    event pop() {
        std::pop_heap(heap_.begin(), heap_.end(), later);
        event e = heap_.back();
        heap_.pop_back();
        return e;
    }

private:
    static bool later(const event& a, const event& b) { return b.key < a.key; }

    std::vector<event> heap_;
};

} // namespace libsched::des
