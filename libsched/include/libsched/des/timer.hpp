#pragma once
// An hrtimer-like handle over the engine (include/linux/hrtimer.h): at most one pending
// expiry, armed for an absolute or relative time, re-armed, cancelled, forwarded. A
// cancelled or re-armed expiry is refused when it comes up, so cancelling costs nothing
// and a timer that already expired cannot be cancelled into a leak.
#include <libsched/des/member_call.hpp>
#include <libsched/des/simulator.hpp>

namespace libsched::des {

template <class Callback> class timer final : public handler {
public:
    timer(simulator& sim, event_order order, Callback callback)
        : sim_(&sim), order_(order), callback_(callback) {}
    timer(const timer&) = delete;
    timer& operator=(const timer&) = delete;

    // hrtimer_start(HRTIMER_MODE_ABS): expire at t (>= now), replacing a pending expiry.
    void start(time_point t) {
        expires_ = t;
        id_ = sim_->schedule_at(t, order_, *this);
        active_ = true;
    }
    // HRTIMER_MODE_REL
    void start_in(time_point delta) { start(sim_->after(delta)); }

    // hrtimer_try_to_cancel(): true if an expiry was pending.
    bool cancel() {
        const bool was = active_;
        active_ = false;
        return was;
    }

    // hrtimer_set_expires(): the expiry forward() starts from, without arming.
    void set_expires(time_point t) { expires_ = t; }

    bool active() const { return active_; }
    time_point expires() const { return expires_; }

    // hrtimer_forward(): moves the expiry forward by whole intervals until it is after
    // now; returns how many intervals that took (the overruns). Does not arm the timer.
    std::uint64_t forward(time_point now, time_point interval) {
        if (expires_ > now)
            return 0;
        const auto n = static_cast<std::uint64_t>((now - expires_) / interval + 1);
        expires_ += static_cast<time_point>(n) * interval;
        return n;
    }

    bool fire(simulator&, std::uint64_t, event_id id) override {
        if (!active_ || id != id_)
            return false;
        active_ = false;
        callback_();
        return true;
    }

private:
    simulator* sim_;
    event_order order_;
    Callback callback_;
    event_id id_ = 0;
    time_point expires_ = 0;
    bool active_ = false;
};

} // namespace libsched::des
