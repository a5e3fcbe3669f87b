#pragma once
// The discrete-event engine: a clock, a pending-event set and a seeded random source. It
// knows nothing about scheduling; models register handlers and schedule events.
#include <atomic>
#include <cstdint>
#include <libsched/des/event_queue.hpp>
#include <libsched/des/random.hpp>
#include <limits>
#include <stdexcept>
#include <string>

namespace libsched::des {

class simulator;

// Receives events. The payload is the model's own (an index, a CPU number...).
class handler {
public:
    // Runs the event `id` (what schedule_at() returned). A source that re-arms or cancels
    // (des/timer.hpp) returns false for an id it no longer expects: the event is then
    // dropped as if it had never been scheduled, and counts for nothing.
    virtual bool fire(simulator& sim, std::uint64_t payload, event_id id) = 0;

protected:
    ~handler() = default;
};

class simulator {
public:
    explicit simulator(std::uint64_t seed = 1) : seed_(seed), rng_(seed) {}

    time_point now() const { return now_; }

    // Schedules an event at absolute time t. An event in the past is refused
    // (std::logic_error): running it now instead would hide the error that computed it.
    // Among events of the same instant, a lower order runs first, equal ones in the order
    // they were scheduled. Each event source declares its own order beside its code; the
    // engine keeps no list of them.
    event_id schedule_at(time_point t, event_order order, handler& h, std::uint64_t payload = 0) {
        if (t < now_)
            throw std::logic_error("des::simulator: an event scheduled in the past");
        if (order < event_order_min || order > event_order_max || next_seq_ == event_seq_limit)
            [[unlikely]] refuse_key(order);
        const event_id id = next_seq_++;
        queue_.push({{t, order, id}, &h, payload});
        return id;
    }
    event_id schedule_in(time_point delay, event_order order, handler& h,
                         std::uint64_t payload = 0) {
        return schedule_at(after(delay), order, h, payload);
    }

    // now + delay, refused (std::overflow_error) where it cannot be represented or the
    // delay is negative.
    time_point after(time_point delay) const {
        if (delay < 0 || delay > std::numeric_limits<time_point>::max() - now_) [[unlikely]]
            refuse_delay(delay);
        return now_ + delay;
    }

    // Time of the next scheduled event (possibly one its source will refuse), or max() if
    // none.
    time_point peek() const {
        return queue_.empty() ? std::numeric_limits<time_point>::max() : queue_.top().key.time();
    }

    // Runs the next event that its source accepts, if its time is before `until`.
    // Returns false if there was none.
    bool step(time_point until = std::numeric_limits<time_point>::max()) {
        while (!queue_.empty() && queue_.top().key.time() < until)
            if (dispatch())
                return true;
        return false;
    }

    // Runs events with time < until (or until stop() or an interrupt), then sets the clock
    // to until.
    void run(time_point until) {
        stopped_ = false;
        while (!stopped_ && !interrupted() && !queue_.empty() && queue_.top().key.time() < until)
            dispatch();
        if (!stopped_ && !interrupted() && now_ < until) // else the clock stays at the last event
            now_ = until;
    }

    void stop() { stopped_ = true; }

    // A flag polled before every event of run(), which returns early once it reads true; a
    // signal handler may set it (std::atomic<bool> is lock-free). nullptr: none.
    void interrupt_on(const std::atomic<bool>* flag) { interrupt_ = flag; }
    bool interrupted() const {
        return interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed);
    }

    // Events run so far (refused ones not counted).
    std::uint64_t events_processed() const { return processed_; }
    // Events scheduled and not yet come up, refused ones included.
    std::size_t pending() const { return queue_.size(); }
    // Events scheduled so far: run, refused and pending ones (each one push and one pop).
    std::uint64_t events_scheduled() const { return next_seq_; }
    random_source& rng() { return rng_; }
    // A draw from d that is a function of the seed and the key (key0, key1) alone: it takes
    // nothing from rng(), and the same key gives the same draw.
    std::int64_t keyed_draw(const distribution& d, std::uint64_t key0, std::uint64_t key1) const {
        keyed_source g(seed_, key0, key1);
        return draw(g, d);
    }

private:
    // Apart, so that after() stays small enough to be inlined at every timer.
    [[noreturn]] static void refuse_delay(time_point delay) {
        throw std::overflow_error("des::simulator: now + " + std::to_string(delay) +
                                  " ns cannot be represented");
    }
    [[noreturn]] static void refuse_key(event_order order) {
        if (order < event_order_min || order > event_order_max)
            throw std::out_of_range("des::simulator: event order " + std::to_string(order) +
                                    " outside [" + std::to_string(event_order_min) + ", " +
                                    std::to_string(event_order_max) + "]");
        throw std::overflow_error("des::simulator: more events than sequence numbers");
    }

    bool dispatch() {
        const event e = queue_.pop();
        const time_point before = now_;
        now_ = e.key.time();
        if (e.target->fire(*this, e.payload, e.key.seq())) {
            ++processed_;
            return true;
        }
        now_ = before;
        return false;
    }

    time_point now_ = 0;
    event_id next_seq_ = 0;
    std::uint64_t processed_ = 0;
    bool stopped_ = false;
    const std::atomic<bool>* interrupt_ = nullptr;
    event_queue queue_;
    std::uint64_t seed_;
    random_source rng_;
};

} // namespace libsched::des
