#pragma once
// Scenario pieces and run helpers shared by the whole-simulation tests.
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/scenario/validate.hpp>
#include <string>
#include <vector>

namespace model_test {

using namespace libsched;

inline task_spec burner(const std::string& name, int nice = 0, int count = 1) {
    task_spec t;
    t.name = name;
    t.nice = nice;
    t.count = count;
    return t;
}

// A SCHED_FIFO or SCHED_RR burner of RT priority prio.
inline task_spec rt_burner(const std::string& name, sched_policy policy, int prio) {
    task_spec t = burner(name);
    t.policy = policy;
    t.rt_priority = prio;
    return t;
}

inline task_spec periodic(const std::string& name, duration run, duration sleep, int count = 1) {
    task_spec t = burner(name, 0, count);
    t.behaviour.type = behaviour_spec::kind::periodic;
    t.behaviour.run = run;
    t.behaviour.sleep = sleep;
    return t;
}

// A step of a program of steps that takes a constant time (run, sleep, ...).
inline step_spec timed_step(step_spec::kind kind, duration d) {
    step_spec st;
    st.type = kind;
    st.time = {distribution::kind::constant, d, 0};
    return st;
}

inline repetition_result run_one(const scenario& sc) {
    run_result r = simulate(sc);
    REQUIRE(r.repetitions.size() == 1);
    return r.repetitions.front();
}

inline const task_result& find(const repetition_result& r, const std::string& name) {
    for (const task_result& t : r.tasks)
        if (t.name == name)
            return t;
    FAIL("no task " << name);
    return r.tasks.front();
}

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

// The fields check_scenario() names in its errors, and whether one is among them.
inline std::vector<std::string> error_fields(const scenario& sc) {
    std::vector<std::string> fields;
    for (const auto& e : check_scenario(sc).errors)
        fields.push_back(e.field);
    return fields;
}
inline bool has_field(const std::vector<std::string>& fields, const std::string& f) {
    return std::find(fields.begin(), fields.end(), f) != fields.end();
}

} // namespace model_test
