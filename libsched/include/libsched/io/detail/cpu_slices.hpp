#pragma once
// What runs on each CPU, followed through a stream of trace events (sched/trace.hpp): each
// sched_switch ends the slice of the task that leaves (unless it is the idle task) and starts
// that of the task that comes. The trace writers build on it; memory grows with the CPUs only.
#include <cstddef>
#include <libsched/sched/trace.hpp>
#include <libsched/sched/types.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libsched::detail {

// A task's stretch on one CPU, from the switch that put it there.
struct cpu_slice {
    int cpu = 0;
    sim_time start = 0;
    int pid = 0;
    std::string comm;
};

class cpu_slices {
public:
    explicit cpu_slices(int nr_cpus) : running_(static_cast<std::size_t>(nr_cpus)) {}

    // A sched_switch: the slice it ends, if prev was not the idle task.
    std::optional<cpu_slice> on_switch(const trace_event& e) {
        std::optional<cpu_slice>& at = running_.at(static_cast<std::size_t>(e.cpu));
        std::optional<cpu_slice> ended = std::move(at);
        at.reset();
        if (!is_idle_in_trace(e.next_pid, e.next_comm))
            at = cpu_slice{e.cpu, e.time, e.next_pid, std::string{e.next_comm}};
        return ended;
    }

    // The slices still running, by CPU; they are forgotten (every CPU idle again).
    std::vector<cpu_slice> take_running() {
        std::vector<cpu_slice> out;
        for (std::optional<cpu_slice>& s : running_) {
            if (s)
                out.push_back(std::move(*s));
            s.reset();
        }
        return out;
    }

private:
    std::vector<std::optional<cpu_slice>> running_; // by CPU; empty: idle
};

} // namespace libsched::detail
