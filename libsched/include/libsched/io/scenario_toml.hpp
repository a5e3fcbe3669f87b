#pragma once
// Scenario files in TOML, as docs/scenario-format.md describes them. parse_scenario() reads
// text, load_scenario() a file; both validate() the result. Errors are scenario_error naming
// the file, the field as written ("tasks[1].nice") and, where known, its line. An unknown
// key is an error, so a typo is never silently ignored.
#include <array>
#include <filesystem>
#include <fstream>
#include <libsched/io/detail/measured_data.hpp>
#include <libsched/io/detail/toml_reader.hpp>
#include <libsched/io/host_topology.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <toml++/toml.h>
#include <utility>
#include <vector>

namespace libsched {
namespace detail {

inline distribution read_distribution(const toml::node& n, const std::string& field,
                                      read_log& log) {
    using kind = distribution::kind;
    if (!n.is_table())
        return {kind::constant, read_duration(n, field), 0};
    table_reader t(*n.as_table(), field, log);
    distribution d;
    if (!t.take_required_into("dist", d.type,
                              choice_reader<kind>({{"constant", kind::constant},
                                                   {"uniform", kind::uniform},
                                                   {"exponential", kind::exponential}})))
        return d; // which keys belong here depends on the kind
    switch (d.type) {
    case kind::constant:
        t.take_required_into("value", d.a, read_duration);
        break;
    case kind::uniform:
        t.take_required_into("low", d.a, read_duration);
        t.take_required_into("high", d.b, read_duration);
        break;
    case kind::exponential:
        t.take_required_into("mean", d.a, read_duration);
        break;
    }
    t.reject_unknown();
    return d;
}

// Each element of an array, with its field name ("tasks[0].renice[1]") and line noted; an
// error in one element is logged and the next is read.
template <class Read>
void for_each_element(const toml::node& n, const std::string& field, read_log& log, Read read) {
    const toml::array& a = read_array(n, field);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string element = field + "[" + std::to_string(i) + "]";
        log.note(element, a[i].source());
        log.attempt([&] { read(a[i], element); });
    }
}

// `key = true`, the only value a flag step (suspend, yield) takes.
inline bool read_true(const toml::node& n, const std::string& field) {
    if (!read_bool(n, field))
        throw scenario_error(field, "false: leave the step out instead");
    return true;
}

// One step: exactly one of the step kinds as its key, with the options of that kind.
inline step_spec read_step(const toml::node& n, const std::string& field, read_log& log) {
    using kind = step_spec::kind;
    static constexpr std::array<std::pair<std::string_view, kind>, 11> kinds{{
        {"run", kind::run},
        {"runtime", kind::runtime},
        {"sleep", kind::sleep},
        {"timer", kind::timer},
        {"suspend", kind::suspend},
        {"resume", kind::resume},
        {"sem_post", kind::sem_post},
        {"sem_wait", kind::sem_wait},
        {"yield", kind::yield},
        {"pipe_write", kind::pipe_write},
        {"pipe_read", kind::pipe_read},
    }};
    const toml::table& table = read_table(n, field);
    std::vector<std::string_view> present;
    std::string listed;
    for (const auto& [key, k] : kinds) {
        if (table.contains(key))
            present.push_back(key);
        listed += (listed.empty() ? "" : ", ") + std::string{key};
    }
    table_reader t(table, field, log);
    if (present.size() != 1) {
        for (const auto& [key, k] : kinds)
            t.take(key);
        if (present.empty())
            t.reject_unknown(); // a misspelt kind is named with its likely spelling
        throw scenario_error(field, present.empty()
                                        ? "no step kind: a step is one of " + listed
                                        : "two step kinds, " + std::string{present[0]} + " and " +
                                              std::string{present[1]} + ": one per step");
    }
    step_spec st;
    const std::string_view key = present.front();
    for (const auto& [name, k] : kinds)
        if (name == key)
            st.type = k;
    const auto read_dist = [&log](const toml::node& d, const std::string& f) {
        return read_distribution(d, f, log);
    };
    const auto read_constant = [](const toml::node& d, const std::string& f) {
        return distribution{distribution::kind::constant, read_duration(d, f), 0};
    };
    switch (st.type) {
    case kind::run:
    case kind::sleep:
        t.take_into(key, st.time, read_dist);
        break;
    case kind::runtime:
        t.take_into(key, st.time, read_constant);
        break;
    case kind::timer: // rt-app's defaults: the shared timer "unknown", relative mode
        t.take_into(key, st.time, read_constant);
        st.name = "unknown";
        st.relative = true;
        t.take_into("ref", st.name, read_string);
        t.take_into("mode", st.relative,
                    choice_reader<bool>({{"absolute", false}, {"relative", true}}));
        break;
    case kind::suspend:
    case kind::yield: {
        bool flag = true;
        t.take_into(key, flag, read_true);
        break;
    }
    case kind::resume:
    case kind::sem_post:
    case kind::sem_wait:
    case kind::pipe_write:
    case kind::pipe_read:
        t.take_into(key, st.name, read_string);
        break;
    }
    t.reject_unknown();
    return st;
}

// A list of steps ("tasks[0].behaviour.steps"), each element read on its own.
inline std::vector<step_spec> read_steps(const toml::node& n, const std::string& field,
                                         read_log& log) {
    std::vector<step_spec> steps;
    for_each_element(n, field, log, [&](const toml::node& e, const std::string& f) {
        steps.push_back(read_step(e, f, log));
    });
    return steps;
}

// A steps behaviour's program: `steps` (one phase, run once per pass) or `phases`, and
// the number of passes.
inline void read_program(table_reader& t, behaviour_spec& b, read_log& log) {
    t.take_into("loop", b.steps.loop, read_int);
    const toml::node* steps = t.take("steps");
    const toml::node* phases = t.take("phases");
    if ((steps == nullptr) == (phases == nullptr))
        throw scenario_error(t.field(steps != nullptr ? "phases" : "steps"),
                             steps != nullptr
                                 ? "a steps behaviour has steps or phases, not both"
                                 : "missing: a steps behaviour needs steps (or phases)");
    if (steps != nullptr) {
        log.attempt([&] {
            b.steps.phases.push_back({1, read_steps(*steps, t.field("steps"), log)});
        });
        return;
    }
    b.steps.written_as_phases = true;
    log.attempt([&] {
        for_each_element(
            *phases, t.field("phases"), log, [&](const toml::node& e, const std::string& f) {
                table_reader pt(read_table(e, f), f, log);
                phase_spec ph;
                pt.take_into("loop", ph.loop, read_int);
                pt.take_required_into("steps", ph.steps,
                                      [&log](const toml::node& s, const std::string& sf) {
                                          return read_steps(s, sf, log);
                                      });
                pt.reject_unknown();
                b.steps.phases.push_back(std::move(ph));
            });
    });
}

inline behaviour_spec read_behaviour(const toml::node& n, const std::string& field, read_log& log) {
    using kind = behaviour_spec::kind;
    const auto kinds = choice_reader<kind>({{"burner", kind::burner},
                                            {"periodic", kind::periodic},
                                            {"random", kind::random},
                                            {"steps", kind::steps}});
    behaviour_spec b;
    if (n.is_string()) {
        b.type = kinds(n, field);
        if (b.type == kind::steps)
            throw scenario_error(field, "\"steps\" needs its steps, as in { type = \"steps\", "
                                        "steps = [{ run = \"1ms\" }, { sleep = \"9ms\" }] }");
        if (b.type != kind::burner)
            throw scenario_error(field, "\"" + read_string(n, field) +
                                            "\" needs its run and sleep times, as in { type = "
                                            "\"periodic\", run = \"2ms\", sleep = \"8ms\" }");
        return b;
    }
    if (!n.is_table())
        wrong_type(field, n, "\"burner\" or a table such as { type = \"periodic\", ... }");
    table_reader t(*n.as_table(), field, log);
    if (!t.take_required_into("type", b.type, kinds))
        return b; // which keys belong here depends on the type
    const auto read_dist = [&log](const toml::node& d, const std::string& f) {
        return read_distribution(d, f, log);
    };
    switch (b.type) {
    case kind::burner:
        break;
    case kind::periodic: {
        t.take_required_into("run", b.run, read_duration);
        const bool sleep = t.take("sleep") != nullptr;
        const bool period = t.take("period") != nullptr;
        if (sleep == period)
            throw scenario_error(t.field(sleep ? "period" : "sleep"),
                                 sleep ? "a periodic task has a sleep or a period, not both"
                                       : "missing: a periodic task needs a sleep or a period");
        if (sleep)
            t.take_into("sleep", b.sleep, read_duration);
        else
            t.take_into("period", b.period, read_duration);
        break;
    }
    case kind::random:
        t.take_required_into("run", b.run_dist, read_dist);
        t.take_required_into("sleep", b.sleep_dist, read_dist);
        break;
    case kind::steps:
        read_program(t, b, log);
        break;
    }
    t.reject_unknown();
    return b;
}

inline task_spec read_task(const toml::node& n, const std::string& field, read_log& log) {
    table_reader t(read_table(n, field), field, log);
    task_spec task;
    t.take_into("name", task.name, read_string);
    t.take_into("count", task.count, read_int);
    t.take_into("nice", task.nice, read_int);
    t.take_into("policy", task.policy,
                choice_reader<sched_policy>({{"normal", sched_policy::normal},
                                             {"batch", sched_policy::batch},
                                             {"idle", sched_policy::idle},
                                             {"fifo", sched_policy::fifo},
                                             {"rr", sched_policy::rr}}));
    t.take_into("rt_priority", task.rt_priority, read_int);
    if (const toml::node* a = t.take("affinity"))
        log.attempt([&] {
            if (a->is_array() && a->as_array()->empty())
                throw scenario_error(t.field("affinity"),
                                     "an empty CPU list, which sched_setaffinity() rejects; leave "
                                     "the key out to allow every CPU");
            for_each_element(*a, t.field("affinity"), log,
                             [&](const toml::node& cpu, const std::string& f) {
                                 task.affinity.push_back(read_int(cpu, f));
                             });
        });
    t.take_into("behaviour", task.behaviour, [&log](const toml::node& b, const std::string& f) {
        return read_behaviour(b, f, log);
    });
    t.take_into("start", task.start_drawn, [&log](const toml::node& d, const std::string& f) {
        return read_distribution(d, f, log);
    });
    if (task.start_drawn) {
        // A constant (a duration, or a DIST that is one) draws nothing; a drawn start keeps
        // its least value in `start` (validate() checks the rest).
        task.start = task.start_drawn->a;
        if (task.start_drawn->type == distribution::kind::constant)
            task.start_drawn.reset();
    }
    t.take_into("stagger", task.stagger, [&log](const toml::node& d, const std::string& f) {
        return read_distribution(d, f, log);
    });
    t.take_into("after", task.after, read_string);
    t.take_into("lifetime", task.lifetime, read_duration);
    t.take_into("exit_at", task.exit_at, read_duration);
    t.take_into("system_share", task.system_share, read_number);
    t.take_into("slice", task.slice, read_duration);
    t.take_into("cpu_clock_reads", task.cpu_clock_reads, read_duration);
    t.take_into("timer_slack", task.timer_slack, read_duration);
    if (const toml::node* r = t.take("renice"))
        log.attempt([&] {
            for_each_element(*r, t.field("renice"), log,
                             [&](const toml::node& e, const std::string& f) {
                                 table_reader rt(read_table(e, f), f, log);
                                 renice_spec spec;
                                 rt.take_required_into("at", spec.at, read_duration);
                                 rt.take_required_into("nice", spec.nice, read_int);
                                 rt.reject_unknown();
                                 task.renice.push_back(spec);
                             });
        });
    if (const toml::node* r = t.take("set_affinity"))
        log.attempt([&] {
            for_each_element(
                *r, t.field("set_affinity"), log, [&](const toml::node& e, const std::string& f) {
                    table_reader rt(read_table(e, f), f, log);
                    affinity_change_spec spec;
                    rt.take_required_into("at", spec.at, read_duration);
                    rt.take_required_into(
                        "cpus", spec.cpus, [&log](const toml::node& c, const std::string& cf) {
                            std::vector<int> cpus;
                            for_each_element(c, cf, log,
                                             [&](const toml::node& cpu, const std::string& ef) {
                                                 cpus.push_back(read_int(cpu, ef));
                                             });
                            return cpus;
                        });
                    rt.reject_unknown();
                    task.set_affinity.push_back(std::move(spec));
                });
        });
    t.take_into("cpuset", task.cpuset, read_string);
    t.take_into("cgroup", task.cgroup, read_string);
    t.take_into("session", task.session, read_string);
    t.reject_unknown();
    return task;
}

// quota = "50ms", or "max" (cpu.max's word for no limit; cfs_quota_us -1).
inline std::optional<duration> read_quota(const toml::node& n, const std::string& field) {
    if (const auto* s = n.as_string(); s != nullptr && s->get() == "max")
        return std::nullopt;
    return read_duration(n, field);
}

// A Kubernetes CPU quantity, in millicores: "500m", "1.5", or a number of CPUs (2, 0.25).
inline long long read_cpu_quantity(const toml::node& n, const std::string& field) {
    std::string text;
    if (const auto* s = n.as_string())
        text = s->get();
    else if (const auto* i = n.as_integer())
        text = std::to_string(i->get());
    else if (const auto* d = n.as_floating_point()) {
        const double milli = d->get() * 1000;
        if (milli >= 0 && milli < 1e12 && milli == static_cast<double>(std::llround(milli)))
            return std::llround(milli);
        throw scenario_error(field, "a CPU quantity needs at most three decimals (1.5, \"250m\")");
    } else
        throw scenario_error(field, "expected a CPU quantity such as \"500m\", \"2\" or 0.5");
    if (const auto m = parse_cpu_quantity(text))
        return *m;
    throw scenario_error(field, "\"" + text +
                                    "\" is not a CPU quantity: millicores (\"500m\") or CPUs "
                                    "(\"2\", \"0.25\", at most three decimals)");
}

inline cgroup_spec read_cgroup(const toml::node& n, const std::string& field, read_log& log) {
    table_reader t(read_table(n, field), field, log);
    cgroup_spec g;
    t.take_required_into("name", g.name, read_string);
    t.take_into("shares", g.shares, read_int);
    t.take_into("weight", g.weight, read_int);
    t.take_into("weight_nice", g.weight_nice, read_int);
    t.take_into("quota", g.quota, read_quota);
    t.take_into("period", g.period, read_duration);
    t.take_into("burst", g.burst, read_duration);
    t.take_into("idle", g.idle, read_bool);
    t.take_into("cpu_request", g.cpu_request, read_cpu_quantity);
    // cpu_limit is written as the kubelet writes it: a quota over the 100 ms period
    // (MilliCPUToQuota), so it is the quota and period keys.
    std::optional<long long> limit;
    const bool has_limit = t.take_into("cpu_limit", limit, read_cpu_quantity);
    if (has_limit && limit && *limit != 0) {
        if (g.quota || g.period)
            log.attempt([&] {
                throw scenario_error(t.field("cpu_limit"),
                                     "cpu_limit gives the quota and period; not with quota or "
                                     "period");
            });
        g.quota = milli_cpu_to_quota_us(*limit) * nsec_per_usec;
        g.period = kubelet_quota_period_us * nsec_per_usec;
    }
    t.reject_unknown();
    return g;
}

inline session_spec read_session(const toml::node& n, const std::string& field, read_log& log) {
    table_reader t(read_table(n, field), field, log);
    session_spec s;
    t.take_required_into("name", s.name, read_string);
    t.take_into("nice", s.nice, read_int);
    t.reject_unknown();
    return s;
}

// [[key]] tables, each read by read into out.
template <class Spec, class Read>
void read_tables(table_reader& t, const char* key, std::vector<Spec>& out, read_log& log,
                 Read read) {
    if (const toml::node* n = t.take(key))
        log.attempt([&] {
            if (!n->is_array_of_tables())
                wrong_type(key, *n, std::string{"an array of tables ([["} + key + "]])");
            for_each_element(*n, key, log, [&](const toml::node& e, const std::string& f) {
                out.push_back(read(e, f, log));
            });
        });
}

inline kernel_version read_kernel(const toml::node& n, const std::string& field) {
    if (n.is_floating_point())
        wrong_type(field, n, "a string such as \"6.8\" (as a number, 6.10 would read as 6.1)");
    const std::string text = read_string(n, field);
    if (const auto v = kernel_version::parse(text))
        return *v;
    throw scenario_error(field, not_a_release(text));
}

// Why name is no topology preset, with the presets and the nearest of them.
inline std::string not_a_topology_preset(const std::string& name) {
    std::vector<std::string_view> names{"host"};
    std::string listed;
    for (const topology_preset& p : topology_presets) {
        names.push_back(p.name);
        listed += "\"" + std::string{p.name} + "\", ";
    }
    return "\"" + name + "\" is not a topology preset (" + listed +
           "or \"host\" for this machine)" + did_you_mean(name, names);
}

// topology = "1c2t" (a preset), "host" (this machine, read now) or { packages = 2,
// cores = 8, threads = 2, llcs = 1, nodes = 1 } (cores per package, threads per core, LLCs
// and nodes per package; each 1 when left out).
inline cpu_topology read_topology(const toml::node& n, const std::string& field, read_log& log) {
    if (n.is_string()) {
        const std::string name = read_string(n, field);
        if (name == "host") {
            try {
                return read_host_topology();
            } catch (const host_topology_error& e) {
                throw scenario_error(field, std::string{"cannot read this machine's topology: "} +
                                                e.what());
            }
        }
        if (auto t = preset_topology(name))
            return *std::move(t);
        throw scenario_error(field, not_a_topology_preset(name));
    }
    if (!n.is_table())
        wrong_type(field, n,
                   "a preset name such as \"1c2t\", \"host\", or a table such as { packages = 1, "
                   "cores = 4, threads = 2 }");
    table_reader t(*n.as_table(), field, log);
    topology_shape shape;
    t.take_into("packages", shape.packages, read_int);
    t.take_into("cores", shape.cores, read_int);
    t.take_into("threads", shape.threads, read_int);
    t.take_into("llcs", shape.llcs, read_int);
    t.take_into("nodes", shape.nodes, read_int);
    t.reject_unknown();
    const std::vector<shape_problem> problems = check_shape(shape, max_cpus);
    for (const shape_problem& p : problems)
        log.error(t.field(p.member), p.reason);
    return problems.empty() ? shaped_topology(shape) : cpu_topology{};
}

// sched_rt_runtime: a duration, or "unlimited" / "-1" / -1 (sched_rt_runtime_us = -1).
inline duration read_rt_runtime(const toml::node& n, const std::string& field) {
    if (const auto* s = n.as_string();
        s != nullptr && (s->get() == "unlimited" || s->get() == "-1"))
        return runtime_inf;
    return read_duration(n, field);
}

inline machine_spec read_machine(const toml::node& n, const std::string& field, read_log& log) {
    table_reader t(read_table(n, field), field, log);
    machine_spec m;
    const bool cpus = t.take_into("cpus", m.cpus, read_int);
    t.take_into("topology", m.topology, [&log](const toml::node& topology, const std::string& f) {
        return read_topology(topology, f, log);
    });
    if (m.topology && !cpus)
        m.cpus = m.topology->nr_cpus(); // validate() checks a cpus given against it
    t.take_into("online_cpus", m.online_cpus, read_int);
    t.take_into("hz", m.hz, read_int);
    t.take_into("kernel", m.kernel, read_kernel);
    t.take_into("scaling", m.scaling,
                choice_reader<tunable_scaling>({{"none", tunable_scaling::none},
                                                {"log", tunable_scaling::log},
                                                {"linear", tunable_scaling::linear}}));
    t.take_into("base_slice", m.base_slice_ns, read_duration);
    t.take_into("latency", m.latency_ns, read_duration);
    t.take_into("min_granularity", m.min_granularity_ns, read_duration);
    t.take_into("wakeup_granularity", m.wakeup_granularity_ns, read_duration);
    t.take_into("calc_delta", m.delta_mode,
                choice_reader<calc_delta_mode>({{"inverse", calc_delta_mode::inverse_multiply},
                                                {"exact", calc_delta_mode::exact_division}}));
    t.take_into("resched_latency", m.resched_latency_ns, read_duration);
    t.take_into("irq_time_accounting", m.irq_time_accounting, read_bool);
    t.take_into("nohz_idle", m.nohz_idle, read_bool);
    t.take_into("preempt", m.preempt, choice_reader<preempt_mode>(preempt_mode_names));
    t.take_into("smt_throughput", m.smt_throughput, read_number);
    t.take_into("tick_irq", m.tick_irq_ns, read_duration);
    t.take_into("timer_slack", m.timer_slack_ns, read_duration);
    t.take_into("idle_exit_latency", m.idle_exit_latency_ns, read_duration);
    t.take_into("ipi_latency", m.ipi_latency_ns, read_duration);
    for (const auto& [key, target] :
         {std::pair{"tick_latency", &m.tick_latency}, std::pair{"sleep_cost", &m.sleep_cost}})
        t.take_into(key, *target, [&log](const toml::node& d, const std::string& f) {
            return read_distribution(d, f, log);
        });
    t.take_into("cgroup_version", m.cgroup_version, read_int);
    t.take_into("autogroup", m.autogroup, read_bool);
    t.take_into("sched_rt_runtime", m.sched_rt_runtime, read_rt_runtime);
    t.take_into("sched_rt_period", m.sched_rt_period, read_duration);
    t.take_into("sched_rr_timeslice", m.sched_rr_timeslice, read_duration);
    t.take_into("rt_group_sched", m.rt_group_sched, read_bool);
    t.take_into("fair_server_runtime", m.fair_server_runtime, read_duration);
    t.take_into("fair_server_period", m.fair_server_period, read_duration);
    t.take_into("shares_to_weight", m.shares_to_weight,
                choice_reader<shares_to_weight_formula>(
                    {{"log-quadratic", shares_to_weight_formula::log_quadratic},
                     {"linear", shares_to_weight_formula::linear},
                     {"systemd", shares_to_weight_formula::systemd}}));
    t.take_into("cfs_bandwidth_slice", m.cfs_bandwidth_slice_ns, read_duration);
    if (const toml::node* r = t.take("newidle_ratio"))
        log.attempt([&] {
            const std::string path = t.field("newidle_ratio");
            if (!r->is_array())
                m.newidle_ratio.push_back(read_int(*r, path));
            else
                for_each_element(*r, path, log, [&](const toml::node& e, const std::string& f) {
                    m.newidle_ratio.push_back(read_int(e, f));
                });
        });
    if (const toml::node* f = t.take("features"))
        log.attempt([&] {
            const std::string path = t.field("features");
            for (const auto& entry : read_table(*f, path)) {
                const std::string name{entry.first.str()};
                log.note(path + "." + name, entry.first.source());
                log.attempt([&] { m.features[name] = read_bool(entry.second, path + "." + name); });
            }
        });
    if (const toml::node* c = t.take("cpusets"))
        log.attempt([&] {
            const std::string path = t.field("cpusets");
            for (const auto& entry : read_table(*c, path)) {
                const std::string name{entry.first.str()};
                const std::string f = path + "." + name;
                log.note(f, entry.first.source());
                log.attempt([&] {
                    std::vector<int>& set_cpus = m.cpusets[name];
                    for_each_element(entry.second, f, log,
                                     [&](const toml::node& cpu, const std::string& ef) {
                                         set_cpus.push_back(read_int(cpu, ef));
                                     });
                });
            }
        });
    t.reject_unknown();
    return m;
}

// window = ["2s", "20s"] or window = { start = "2s", end = "20s" } (either bound optional).
inline void read_window(const toml::node& n, scenario& sc, read_log& log) {
    if (const toml::array* a = n.as_array()) {
        if (a->size() != 2)
            throw scenario_error("window", "expected [start, end], got " +
                                               std::to_string(a->size()) + " elements");
        log.note("window.start", (*a)[0].source());
        log.note("window.end", (*a)[1].source());
        log.attempt([&] { sc.window_start = read_duration((*a)[0], "window.start"); });
        log.attempt([&] { sc.window_end = read_duration((*a)[1], "window.end"); });
        return;
    }
    if (!n.is_table())
        wrong_type("window", n, "[start, end] or a table { start = ..., end = ... }");
    table_reader t(*n.as_table(), "window", log);
    t.take_into("start", sc.window_start, read_duration);
    t.take_into("end", sc.window_end, read_duration);
    t.reject_unknown();
}

inline std::map<std::string, double> read_entry_values(const toml::node& n,
                                                       const std::string& field, read_log& log) {
    std::map<std::string, double> values;
    for (const auto& [key, value] : read_table(n, field)) {
        const std::string entry{key.str()};
        log.note(field + "." + entry, key.source());
        // A named node, not the binding: clang before 16 cannot capture a structured binding.
        const toml::node& node = value;
        log.attempt([&] { values[entry] = read_number(node, field + "." + entry); });
    }
    return values;
}

// sc is the scenario read so far (its entries and reference); base the scenario file's folder.
inline measured_spec read_measured(const toml::node& n, const std::string& field, read_log& log,
                                   const scenario& sc, const std::filesystem::path& base) {
    table_reader t(read_table(n, field), field, log);
    measured_spec m;
    t.take_into("source", m.source, read_string);
    const auto entry_values = [&log](const toml::node& v, const std::string& f) {
        return read_entry_values(v, f, log);
    };
    t.take_into("share", m.share, entry_values);
    t.take_into("ratio", m.ratio, entry_values);
    // A figure of a data file instead of share and ratio: all four keys or none.
    const toml::node* data = t.take("data");
    const std::array<std::pair<const char*, const toml::node*>, 3> of_data = {
        {{"experiment", t.take("experiment")},
         {"figure", t.take("figure")},
         {"entries", t.take("entries")}}};
    for (const auto& [key, node] : of_data) {
        if (data != nullptr && node == nullptr)
            throw scenario_error(t.field(key), "missing; measured.data needs it");
        if (data == nullptr && node != nullptr)
            throw scenario_error(t.field(key), "needs measured.data, the file it refers to");
    }
    if (data != nullptr) {
        if (!m.share.empty() || !m.ratio.empty())
            throw scenario_error(t.field("data"), "the figures come either from a data file or "
                                                  "from share and ratio, not both");
        measured_data_ref ref;
        ref.data = read_string(*data, t.field("data"));
        ref.experiment = read_string(*of_data[0].second, t.field("experiment"));
        ref.figure = read_string(*of_data[1].second, t.field("figure"));
        for_each_element(*of_data[2].second, t.field("entries"), log,
                         [&](const toml::node& e, const std::string& f) {
                             ref.entries.push_back(read_string(e, f));
                         });
        t.take_into("claimed_weights", ref.claimed_weights, read_string);
        t.take_into("perf_stat", ref.perf_stat, read_string);
        read_measured_data(m, ref, sc, base);
    }
    for (const char* key : {"claimed_weights", "perf_stat"})
        if (data == nullptr && t.take(key) != nullptr)
            throw scenario_error(t.field(key), "needs measured.data, the file it refers to");
    t.take_into("judged", m.judged, read_bool);
    if (const toml::node* gaps = t.take("known_gaps"))
        for_each_element(
            *gaps, t.field("known_gaps"), log, [&](const toml::node& e, const std::string& f) {
                const std::string q = read_string(e, f);
                if (q != "share" && q != "ratio" && q != "jratio")
                    throw scenario_error(f, "\"" + q + "\" is not share, ratio or jratio");
                m.known_gaps.push_back(q);
            });
    if (const toml::node* tol = t.take("tolerance")) {
        table_reader tt(read_table(*tol, t.field("tolerance")), t.field("tolerance"), log);
        tt.take_into("share", m.tolerance.share, read_number);
        tt.take_into("ratio", m.tolerance.ratio, read_number);
        tt.take_into("jratio", m.tolerance.jratio, read_number);
        tt.reject_unknown();
    }
    t.reject_unknown();
    return m;
}

inline std::uint64_t read_seed(const toml::node& n, const std::string& field) {
    const std::int64_t seed = read_integer(n, field);
    if (seed < 0)
        throw scenario_error(field, std::to_string(seed) + " is negative");
    return static_cast<std::uint64_t>(seed);
}

// base: the scenario file's folder, where [measured] data files are looked for.
inline scenario read_scenario(const toml::table& root, std::string default_name, read_log& log,
                              const std::filesystem::path& base) {
    table_reader t(root, "", log);
    // A sweep file is a scenario with a grid of values for its fields, which the Python
    // package runs (docs/python.md).
    if (t.take("sweep") != nullptr)
        log.attempt([] {
            throw scenario_error("sweep", "a sweep file's grid: run the file with `libsched "
                                          "sweep` (the Python package's command)");
        });
    scenario sc;
    sc.name = std::move(default_name);
    t.take_into("name", sc.name, read_string);
    t.take_into("description", sc.description, read_string);
    t.take_into("length", sc.length, read_duration);
    if (const toml::node* w = t.take("window"))
        log.attempt([&] { read_window(*w, sc, log); });
    t.take_into("repetitions", sc.repetitions, read_int);
    t.take_into("seed", sc.seed, read_seed);
    t.take_into("reference", sc.reference, read_string);
    t.take_into("latency_samples", sc.latency_samples,
                choice_reader<sample_scope>(
                    {{"task", sample_scope::task}, {"entry", sample_scope::entry}}));
    t.take_into("machine", sc.machine, [&log](const toml::node& m, const std::string& f) {
        return read_machine(m, f, log);
    });
    read_tables(t, "cgroups", sc.cgroups, log, read_cgroup);
    read_tables(t, "sessions", sc.sessions, log, read_session);
    read_tables(t, "tasks", sc.tasks, log, read_task);
    t.take_into("measured", sc.measured, [&](const toml::node& m, const std::string& f) {
        return read_measured(m, f, log, sc, base);
    });
    t.reject_unknown();
    return sc;
}

} // namespace detail

// The TOML document of the text; a syntax error is a scenario_error naming origin, the line
// and the column.
inline toml::table parse_toml(std::string_view toml_text, const std::string& origin) {
    try {
        return toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
        const toml::source_position& at = e.source().begin;
        throw scenario_error({},
                             "TOML syntax error at line " + std::to_string(at.line) + ", column " +
                                 std::to_string(at.column) + ": " + std::string{e.description()},
                             origin);
    }
}

// The document as scenario files spell it: basic strings on one line (escapes rather than
// literal or multi-line strings), no indentation, floats with 17 significant digits so that
// they read back bit for bit. Keys come out sorted, values before tables.
inline std::string toml_text(const toml::table& root) {
    constexpr toml::format_flags flags =
        toml::toml_formatter::default_flags & ~toml::format_flags::allow_literal_strings &
        ~toml::format_flags::allow_multi_line_strings & ~toml::format_flags::indentation;
    std::ostringstream text;
    text << toml::toml_formatter{root, flags} << '\n';
    return text.str();
}

// origin names the text in errors (a file name); its stem is the scenario's name unless the
// text sets one, and its folder is where [measured] data files are looked for. Every error
// in the text comes out in one scenario_error (a syntax error stops the reading, so it
// comes alone).
inline scenario parse_scenario(std::string_view toml_text, const std::string& origin) {
    const toml::table root = parse_toml(toml_text, origin);
    std::string name = std::filesystem::path(origin).stem().string();
    detail::read_log log;
    scenario sc = detail::read_scenario(root, name.empty() ? "scenario" : name, log,
                                        std::filesystem::path(origin).parent_path());
    // Values are checked once all of them could be read: one that could not stands at its
    // default, and checks against it would report mistakes the file does not make.
    std::vector<scenario_error::entry> errors = log.errors();
    if (errors.empty())
        errors = check_scenario(sc).errors; // warnings are for the caller to fetch with validate()
    if (!errors.empty())
        throw scenario_error(origin, log.located(std::move(errors)));
    return sc;
}

// The text of the file at path, what it should be named in errors ("a scenario file"); a
// scenario_error naming the path when there is none.
inline std::string read_input_file(const std::filesystem::path& path, std::string_view what) {
    const std::string origin = path.string();
    if (path.empty())
        throw scenario_error({}, "\"\" is an empty path, not " + std::string{what});
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw scenario_error({}, "is a directory, not " + std::string{what}, origin);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw scenario_error(
            {}, std::filesystem::exists(path, ec) ? "cannot be opened" : "no such file", origin);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw scenario_error({}, "cannot be read", origin);
    return text.str();
}

inline std::string read_scenario_file(const std::filesystem::path& path) {
    return read_input_file(path, "a scenario file");
}

inline scenario load_scenario(const std::filesystem::path& path) {
    return parse_scenario(read_scenario_file(path), path.string());
}

} // namespace libsched
