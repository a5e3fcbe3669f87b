#pragma once
// What a simulated process does: burn CPU, or alternate CPU bursts and sleeps. Bursts and
// sleeps are drawn from the simulator's seeded random source.
#include <libsched/des/random.hpp>
#include <libsched/scenario/scenario.hpp>
#include <limits>

namespace libsched {

inline constexpr duration unlimited = std::numeric_limits<duration>::max();

inline duration draw(const distribution& d, des::random_source& rng) {
    switch (d.type) {
    case distribution::kind::uniform:
        return rng.uniform_int(d.a, d.b);
    case distribution::kind::exponential:
        return rng.exponential(static_cast<double>(d.a));
    case distribution::kind::constant:
    default:
        return d.a;
    }
}

class workload {
public:
    explicit workload(const behaviour_spec& b) : spec_(b) {}

    bool sleeps() const { return spec_.type != behaviour_spec::kind::burner; }

    // CPU time of the next burst; unlimited for a burner. A burst is at least 1 ns.
    duration next_burst(des::random_source& rng) const {
        switch (spec_.type) {
        case behaviour_spec::kind::periodic:
            return std::max<duration>(spec_.run, 1);
        case behaviour_spec::kind::random:
            return std::max<duration>(draw(spec_.run_dist, rng), 1);
        case behaviour_spec::kind::burner:
        default:
            return unlimited;
        }
    }

    duration next_sleep(des::random_source& rng) const {
        switch (spec_.type) {
        case behaviour_spec::kind::periodic:
            return spec_.sleep;
        case behaviour_spec::kind::random:
            return std::max<duration>(draw(spec_.sleep_dist, rng), 0);
        case behaviour_spec::kind::burner:
        default:
            return 0;
        }
    }

private:
    behaviour_spec spec_;
};

} // namespace libsched
