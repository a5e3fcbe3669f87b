#pragma once
// The scenario's task instances get pids from first_pid on, in the order of their
// [[tasks]] entries; a pid is also the instance's index in the model's per-task tables.
#include <cstddef>
#include <libsched/sched/task.hpp>

namespace libsched {

inline constexpr int first_pid = 1000;

inline std::size_t task_index(const task& t) {
    return static_cast<std::size_t>(t.pid - first_pid);
}

} // namespace libsched
