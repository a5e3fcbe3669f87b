#pragma once
#include <libsched/model/machine.hpp>
#include <libsched/scenario/validate.hpp>

namespace libsched {

inline run_result simulate(const scenario& sc, const run_options& opt) {
    validate(sc);
    run_result r;
    r.scenario = sc.name;
    r.window_start = sc.window_start;
    r.window_end = sc.window_stop();
    const int reps = opt.repetitions.value_or(sc.repetitions);
    const std::uint64_t seed = opt.seed.value_or(sc.seed);
    r.provenance = simulated_provenance(sc, make_fair_params(sc.machine), seed);
    for (int i = 0; i < reps; ++i) {
        machine m(sc, seed + static_cast<std::uint64_t>(i), i == 0 ? opt.trace : trace_sink{});
        machine::progress_fn progress;
        if (opt.on_progress)
            progress = [&](sim_time t) { opt.on_progress({i, reps, t, sc.length}); };
        repetition_result rep = m.run(progress);
        rep.seed = seed + static_cast<std::uint64_t>(i);
        r.repetitions.push_back(std::move(rep));
    }
    return r;
}

} // namespace libsched
