#pragma once
// The discrete-event engine: a clock, a pending-event set and a seeded random source. It
// knows nothing about scheduling; models register handlers and schedule events.
#include <cstdint>
#include <libsched/des/event_queue.hpp>
#include <libsched/des/random.hpp>
#include <limits>

namespace libsched::des {

class simulator;

// Receives events. The payload is the model's own (an index, a CPU number...).
class handler {
public:
    virtual void fire(simulator& sim, std::uint64_t payload) = 0;

protected:
    ~handler() = default;
};

class simulator {
public:
    explicit simulator(std::uint64_t seed = 1) : rng_(seed) {}

    time_point now() const { return now_; }

    // Schedules an event at absolute time t (t >= now()). Lower priority runs first among
    // events of equal time; equal (time, priority) run in scheduling order.
    event_id schedule_at(time_point t, int priority, handler& h, std::uint64_t payload = 0) {
        const event_id id = next_seq_++;
        queue_.push({{t < now_ ? now_ : t, priority, id}, &h, payload});
        return id;
    }
    event_id schedule_in(time_point delay, int priority, handler& h, std::uint64_t payload = 0) {
        return schedule_at(now_ + delay, priority, h, payload);
    }

    // Cancels a pending event (see event_queue::cancel).
    void cancel(event_id id) { queue_.cancel(id); }

    // Time of the next event, or max() if none.
    time_point peek() {
        return queue_.empty() ? std::numeric_limits<time_point>::max() : queue_.top().key.time;
    }

    // Runs the next event. Returns false if there was none.
    bool step() {
        if (queue_.empty())
            return false;
        const event e = queue_.pop();
        now_ = e.key.time;
        ++processed_;
        e.target->fire(*this, e.payload);
        return true;
    }

    // Runs events with time < until (or until stop()), then sets the clock to until.
    void run(time_point until) {
        stopped_ = false;
        while (!stopped_ && peek() < until)
            step();
        if (!stopped_ && now_ < until)
            now_ = until;
    }

    void stop() { stopped_ = true; }

    std::uint64_t events_processed() const { return processed_; }
    random_source& rng() { return rng_; }

private:
    time_point now_ = 0;
    event_id next_seq_ = 0;
    std::uint64_t processed_ = 0;
    bool stopped_ = false;
    event_queue queue_;
    random_source rng_;
};

} // namespace libsched::des
