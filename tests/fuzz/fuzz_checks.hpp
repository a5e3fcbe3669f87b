#pragma once
// What the fuzz targets do with one input, shared with test_fuzz_regressions (which replays
// tests/fuzz/regressions/ in every build, with or without clang). A finding is anything
// that escapes these functions: an exception (invariant_violation, a scenario_error where
// the input was already accepted, any other), a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>
#include <random_scenario.hpp>
#include <string_view>

namespace fuzz_checks {

using namespace libsched;

// The bounds of a run, so that one input takes well under 10 ms in the fuzz build (-O1 with
// ASan and UBSan; about 5 ms for the generator's larger scenarios, 8 CPUs and several
// groups, whose invariant checks visit every group's queue on every CPU after each event):
// at most max_run_cpus CPUs and max_run_tasks task instances, only the first repetition,
// and at most max_run_events engine events, whatever the scenario's length. They limit
// only the run: the reading and the validation always see the whole input.
inline constexpr int max_run_cpus = 16;
inline constexpr long long max_run_tasks = 32;
inline constexpr std::uint64_t max_run_events = 1000;

inline bool small_enough_to_run(const scenario& sc) {
    if (sc.machine.cpus > max_run_cpus)
        return false;
    long long instances = 0;
    for (const task_spec& t : sc.tasks)
        instances += t.count;
    return instances <= max_run_tasks;
}

// Runs a valid scenario, within the bounds, in the invariant-checking mode, and takes the
// repetition's figures if the run got to its end.
inline void run_bounded(const scenario& sc) {
    validate(sc);
    if (!small_enough_to_run(sc))
        return;
    libsched::system s(sc, sc.seed);
    s.check_invariants(true);
    for (std::uint64_t n = 0; n < max_run_events && s.step(); ++n) {
    }
    if (s.done())
        static_cast<void>(s.result());
}

// fuzz_scenario: the bytes as a scenario file. Refusing it (scenario_error) is the expected
// outcome for bad input; a scenario the reader accepts must validate and run.
inline void check_scenario_text(std::string_view text) {
    scenario sc;
    try {
        sc = parse_scenario(text, "fuzz.toml");
    } catch (const scenario_error&) {
        return;
    }
    run_bounded(sc);
}

// fuzz_generator: the bytes as the choices of the random valid scenario generator, limits
// of durations included; its scenario must validate and run.
inline void check_generated_scenario(const std::uint8_t* data, std::size_t size) {
    random_scenario::byte_choices choices(data, size);
    random_scenario::scenario_generator gen(choices, {.extreme_durations = true});
    run_bounded(gen.next());
}

} // namespace fuzz_checks
