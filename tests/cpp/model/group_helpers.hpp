#pragma once
// Scenario pieces and result look-ups for the task-group tests.
#include "model_helpers.hpp"
#include <string>

namespace model_test {

inline cgroup_spec cgroup(const std::string& name) {
    cgroup_spec g;
    g.name = name;
    return g;
}

inline task_spec in_group(task_spec t, const std::string& group) {
    t.cgroup = group;
    return t;
}

inline const task_group_result& group(const repetition_result& r, const std::string& name) {
    for (const task_group_result& g : r.task_groups)
        if (g.name == name)
            return g;
    FAIL("no group " << name);
    return r.task_groups.front();
}

} // namespace model_test
