#pragma once
// Nanoseconds written in a larger unit with a fixed number of decimals, from integers only,
// so nothing is lost to floating point: 1234567 ns in µs with 3 decimals is "1234.567".
// Further digits are cut, not rounded.
#include <libsched/sched/types.hpp>
#include <string>

namespace libsched::detail {

// ns (>= 0) in units of `unit` ns (a power of ten), `digits` decimals (at most its zeros).
inline std::string time_text(sim_time ns, sim_time unit, int digits) {
    const std::string frac = std::to_string(ns % unit);
    const std::size_t width = std::to_string(unit).size() - 1;
    return std::to_string(ns / unit) + "." +
           (std::string(width - frac.size(), '0') + frac)
               .substr(0, static_cast<std::size_t>(digits));
}

} // namespace libsched::detail
