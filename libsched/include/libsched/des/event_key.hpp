#pragma once
// Total order of events: time, then order (lower first), then insertion sequence, so
// simultaneous events run in a reproducible FIFO order. The order and the sequence share
// one word, so that a key is two words and compares as one 128-bit integer: the event
// queue's sift compares keys at every level.
#include <cstdint>
#include <limits>

namespace libsched::des {

using time_point = std::int64_t; // integer nanoseconds
using event_id = std::uint64_t;  // the insertion sequence number, unique per simulator

// Order among events of the same instant: lower runs first (event_order_min to
// event_order_max).
using event_order = int;
inline constexpr event_order event_order_min = std::numeric_limits<std::int16_t>::min();
inline constexpr event_order event_order_max = std::numeric_limits<std::int16_t>::max();
// Sequence numbers fit 48 bits: 2.8e14 events, years of simulation at tens of millions a
// second.
inline constexpr unsigned event_seq_bits = 48;
inline constexpr event_id event_seq_limit = event_id{1} << event_seq_bits;

class event_key {
    __extension__ using wide_key = unsigned __int128;

public:
    constexpr event_key() = default;
    // order in [event_order_min, event_order_max], seq below event_seq_limit (the
    // simulator checks both).
    constexpr event_key(time_point time, event_order order, event_id seq)
        : time_(time), rank_(static_cast<std::uint64_t>(order - event_order_min) << event_seq_bits |
                             seq) {}

    constexpr time_point time() const { return time_; }
    constexpr event_order order() const {
        return static_cast<event_order>(rank_ >> event_seq_bits) + event_order_min;
    }
    constexpr event_id seq() const { return rank_ & (event_seq_limit - 1); }

    friend constexpr bool operator<(const event_key& a, const event_key& b) {
        return a.wide() < b.wide();
    }
    friend constexpr bool operator==(const event_key&, const event_key&) = default;

private:
    // time with its sign bit flipped (unsigned order equals signed order), then rank
    constexpr wide_key wide() const {
        constexpr std::uint64_t sign = std::uint64_t{1} << 63;
        return static_cast<wide_key>(static_cast<std::uint64_t>(time_) ^ sign) << 64 |
               rank_;
    }

    time_point time_ = 0;
    std::uint64_t rank_ = 0; // (order - event_order_min) << event_seq_bits | seq
};

} // namespace libsched::des
