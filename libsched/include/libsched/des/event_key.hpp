#pragma once
// Total order of events: time, then priority (lower first), then insertion sequence, so
// simultaneous events run in a reproducible FIFO order.
#include <compare>
#include <cstdint>

namespace libsched::des {

using time_point = std::int64_t; // integer nanoseconds
using event_id = std::uint64_t;  // the insertion sequence number, unique per simulator

struct event_key {
    time_point time = 0;
    int priority = 0;
    event_id seq = 0;

    constexpr auto operator<=>(const event_key&) const = default;
};

} // namespace libsched::des
