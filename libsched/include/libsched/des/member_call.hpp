#pragma once
// Glue from the engine to a model object's member function: a callable for timers
// (des/timer.hpp) and a handler for plain events, each calling Method with an argument.
#include <libsched/des/simulator.hpp>

namespace libsched::des {

// Calls self->Method(arg): a timer's callback with a fixed argument (a CPU, a task index).
template <class Self, void (Self::*Method)(std::uint64_t)> struct member_call {
    Self* self = nullptr;
    std::uint64_t arg = 0;
    void operator()() const { (self->*Method)(arg); }
};

// A handler calling self->Method(payload) for every event it receives (events that are
// never taken back: forks, exits, scenario actions, observations).
template <class Self, void (Self::*Method)(std::uint64_t)>
class member_handler final : public handler {
public:
    explicit member_handler(Self* self) : self_(self) {}
    bool fire(simulator&, std::uint64_t payload, event_id) override {
        (self_->*Method)(payload);
        return true;
    }

private:
    Self* self_;
};

} // namespace libsched::des
