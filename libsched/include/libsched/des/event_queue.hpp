#pragma once
// Pending-event set: a binary heap keyed by event_key; push and pop are O(log n). There is
// no cancel: a source that must take an event back (des/timer.hpp) lets it come up and
// refuses it, so nothing is searched for and nothing is left behind.
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
    // Sift-up with the new event held in registers and written once, to its final slot:
    // std::push_heap copies it through a stack temporary, whose wide reload of narrower
    // stores stalls store forwarding on every push.
    void push(const event& e) {
        std::size_t hole = heap_.size();
        heap_.emplace_back();
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / 2;
            if (!(e.key < heap_[parent].key))
                break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = e;
    }

    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }

    // The earliest event; the queue must not be empty.
    const event& top() const { return heap_.front(); }

    // Removes the earliest event: the last one sifts down from the root (Floyd's
    // bottom-up variant is not worth it at the few events per CPU the model keeps).
    event pop() {
        const event first = heap_.front();
        const event last = heap_.back();
        heap_.pop_back();
        const std::size_t n = heap_.size();
        if (n == 0)
            return first;
        std::size_t hole = 0;
        for (;;) {
            std::size_t child = 2 * hole + 1;
            if (child >= n)
                break;
            if (child + 1 < n && heap_[child + 1].key < heap_[child].key)
                ++child;
            if (!(heap_[child].key < last.key))
                break;
            heap_[hole] = heap_[child];
            hole = child;
        }
        heap_[hole] = last;
        return first;
    }

private:
    std::vector<event> heap_;
};

} // namespace libsched::des
