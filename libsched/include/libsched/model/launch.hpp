#pragma once
// When each instance forks: an entry's first instance at its start (or one stagger gap after
// the last instance of the entry it comes `after`), each further one a gap later. Drawn
// starts and gaps come from the repetition's seeded source before anything else runs, entry
// by entry in the scenario's order, so a seed gives the same launch everywhere; a constant
// start or gap draws nothing.
#include <cstddef>
#include <libsched/des/random.hpp>
#include <libsched/model/workload.hpp>
#include <libsched/scenario/scenario.hpp>
#include <vector>

namespace libsched {

// forks[e][i]: the fork time of instance i of entry e. `after` names an earlier entry
// (validate() checks it).
inline std::vector<std::vector<sim_time>> fork_times(const scenario& sc, des::random_source& rng) {
    std::vector<std::vector<sim_time>> forks(sc.tasks.size());
    for (std::size_t e = 0; e < sc.tasks.size(); ++e) {
        const task_spec& spec = sc.tasks[e];
        sim_time at = spec.start_drawn ? rng.draw(*spec.start_drawn) : spec.start;
        if (!spec.after.empty())
            for (std::size_t p = 0; p < e; ++p)
                if (sc.tasks[p].name == spec.after && !forks[p].empty())
                    at = forks[p].back() + rng.draw(spec.stagger);
        for (int i = 0; i < spec.count; ++i) {
            // Past the end an instance never starts, nor do the later ones: the clock stops
            // growing there, so count x gap never overflows (each gap is at most a run).
            const duration gap = i > 0 ? rng.draw(spec.stagger) : 0;
            if (at <= sc.length)
                at += gap;
            forks[e].push_back(at);
        }
    }
    return forks;
}

} // namespace libsched
