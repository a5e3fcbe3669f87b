#pragma once
// What a run will cost, before running it (libsched check): the scenario's first simulated
// second or first million events (whichever comes first) are run, and the event rate is
// extrapolated over its length and repetitions. The model's memory is measured as the bytes
// the allocator has handed out for it after the pilot; it grows with tasks, CPUs and groups,
// not with the length (latency samples are kept in bounded memory, duration_samples.hpp).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>
#include <optional>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace libsched {

struct run_estimate {
    sim_time pilot_length = 0;        // simulated by the pilot
    std::uint64_t pilot_events = 0;   // events in it
    bool whole = false;               // the pilot ran the whole repetition
    double events_per_repetition = 0; // extrapolated to the scenario's length
    int repetitions = 1;
    double wall_seconds = 0; // at the pilot's speed on this machine
    // Bytes in use by one repetition's model after the pilot; unset where the C library
    // does not say (glibc's mallinfo2() does).
    std::optional<std::size_t> model_bytes;
    std::size_t result_bytes = 0; // one repetition's results, without latency samples

    double events() const { return events_per_repetition * repetitions; }
};

namespace detail {
inline std::optional<std::size_t> heap_in_use() {
#if defined(__GLIBC__)
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#else
    return std::nullopt;
#endif
}
} // namespace detail

// Validates the scenario (throws scenario_error) and runs the pilot with the first
// repetition's seed: at least the first simulated second and 100,000 events, at most a
// million events, never past the end.
inline run_estimate estimate_run(const scenario& sc) {
    validate(sc);
    constexpr sim_time pilot_time = nsec_per_sec;
    constexpr std::uint64_t pilot_min_events = 100'000, pilot_max_events = 1'000'000;
    run_estimate e;
    e.repetitions = sc.repetitions;
    const auto heap_before = detail::heap_in_use();
    system s(sc, sc.seed);
    const auto start = std::chrono::steady_clock::now();
    while (s.events() < pilot_max_events &&
           (s.now() < pilot_time || s.events() < pilot_min_events) && s.step()) {
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    e.pilot_length = std::min(s.now(), sc.length);
    e.pilot_events = s.events();
    if (const auto after = detail::heap_in_use(); heap_before && after)
        e.model_bytes = *after > *heap_before ? *after - *heap_before : 0;
    e.result_bytes = s.tasks().size() * sizeof(task_result) +
                     static_cast<std::size_t>(s.nr_cpus()) * sizeof(cpu_result) +
                     sc.cgroups.size() * sizeof(task_group_result);
    // A pilot that reached the end is the whole repetition; else the rate over the pilot.
    e.whole = s.done();
    const double scale = e.whole || e.pilot_length == 0
                             ? 1.0
                             : static_cast<double>(sc.length) / static_cast<double>(e.pilot_length);
    e.events_per_repetition = static_cast<double>(e.pilot_events) * scale;
    e.wall_seconds = wall * scale * e.repetitions;
    return e;
}

} // namespace libsched
