#pragma once
#include <algorithm>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>

namespace libsched {

inline run_result simulated_run(const scenario& sc, std::uint64_t seed) {
    run_result r;
    r.scenario = sc.name;
    r.window_start = sc.window_start;
    r.window_end = sc.window_stop();
    r.provenance = simulated_provenance(sc, make_fair_params(sc.machine), seed);
    return r;
}

inline run_result simulate(const scenario& sc, const run_options& opt) {
    validate(sc);
    const int reps = opt.repetitions.value_or(sc.repetitions);
    const std::uint64_t seed = opt.seed.value_or(sc.seed);
    run_result r = simulated_run(sc, seed);
    for (int i = 0; i < reps; ++i) {
        trace_sink trace;
        if (opt.trace)
            trace = [&opt, i](const trace_event& e) {
                trace_event tagged = e;
                tagged.repetition = i;
                opt.trace(tagged);
            };
        system s(sc, seed + static_cast<std::uint64_t>(i), std::move(trace));
        if (opt.check_invariants)
            s.check_invariants(*opt.check_invariants);
        s.interrupt_on(opt.interrupt);
        constexpr duration progress_step = 100 * nsec_per_msec;
        for (sim_time t = 0; t < sc.length && !s.interrupted();) {
            t = std::min(t + progress_step, sc.length);
            s.run(t);
            if (opt.on_progress && !s.interrupted())
                opt.on_progress({i, reps, t, sc.length});
        }
        if (!s.done()) {
            r.interrupted = interruption{i, reps, s.now()};
            break;
        }
        repetition_result rep = s.result();
        rep.seed = seed + static_cast<std::uint64_t>(i);
        r.repetitions.push_back(std::move(rep));
    }
    return r;
}

} // namespace libsched
