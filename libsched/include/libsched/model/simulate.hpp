#pragma once
// Run a scenario through the model: the entry point for the CLI, the bindings and users.
#include <atomic>
#include <cstdint>
#include <functional>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/trace.hpp>
#include <optional>

namespace libsched {

struct progress_info {
    int repetition = 0; // 0-based
    int repetitions = 1;
    sim_time now = 0; // simulated time reached in this repetition
    sim_time end = 0;
};

struct run_options {
    std::optional<int> repetitions;    // overrides scenario.repetitions
    std::optional<std::uint64_t> seed; // overrides scenario.seed
    // Called now and then (every ~100 ms of simulated time) for progress display.
    std::function<void(const progress_info&)> on_progress;
    // Receives every scheduling event of every repetition (sched/trace.hpp).
    trace_sink trace;
    // Check the model's invariants after every event (model/invariants.hpp); a violation
    // throws invariant_violation. Unset: the build's default (on where
    // LIBSCHED_CHECK_INVARIANTS is defined, as in the test builds).
    std::optional<bool> check_invariants;
    // Polled before every event: once it reads true the run stops, keeping the repetitions
    // that finished and saying where it stopped (run_result::interrupted). A signal handler
    // may set it.
    const std::atomic<bool>* interrupt = nullptr;
};

// Validates the scenario (throws scenario_error) and runs every repetition.
run_result simulate(const scenario& sc, const run_options& opt = {});

// The result of a simulation of sc whose first repetition runs with seed, before any
// repetition is added: its name, window and provenance.
run_result simulated_run(const scenario& sc, std::uint64_t seed);

} // namespace libsched

#include <libsched/model/detail/simulate_impl.hpp>
