// Binds what libsched.measure needs from the C++ side: the parsed, validated scenario as
// plain JSON (so Python never reads TOML itself), the host's topology, and the JSON
// document of a measured run, built by the same writer and summary as a simulated one.
#include "register.hpp"
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <libsched/des/random.hpp>
#include <libsched/io/host_topology.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/launch.hpp>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <libsched/sched/weight.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <pybind11/stl.h>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace libsched::python {
namespace {

using nlohmann::json;

template <class T> json optional_value(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json distribution_json(const distribution& d) {
    const char* const kinds[] = {"constant", "uniform", "exponential"};
    return {{"kind", kinds[static_cast<int>(d.type)]}, {"a", d.a}, {"b", d.b}};
}

json behaviour_json(const behaviour_spec& b) {
    const char* const kinds[] = {"burner", "periodic", "random", "steps"};
    return {{"type", kinds[static_cast<int>(b.type)]},
            {"run", b.run},
            {"sleep", b.sleep},
            {"period", optional_value(b.period)},
            {"run_dist", distribution_json(b.run_dist)},
            {"sleep_dist", distribution_json(b.sleep_dist)}};
}

// CPU numbers of a mask from effective_cpus(); empty = every CPU.
std::vector<int> mask_cpus(const std::vector<bool>& mask) {
    std::vector<int> cpus;
    for (std::size_t c = 0; c < mask.size(); ++c)
        if (mask[c])
            cpus.push_back(static_cast<int>(c));
    return cpus;
}

json topology_json(const cpu_topology& t) {
    json cpus = json::array();
    for (const auto& p : t.cpus)
        cpus.push_back({{"package", p.package},
                        {"core", p.core},
                        {"thread", p.thread},
                        {"llc", p.llc},
                        {"node", p.node}});
    return {{"cpus", cpus}, {"distance", t.distance}};
}

// The machine's costs that differ from their defaults: a host has its own.
json costs_set(const machine_spec& m) {
    const machine_spec d{};
    const std::array<std::tuple<const char*, duration, duration>, 4> costs = {{
        {"resched_latency", m.resched_latency_ns, d.resched_latency_ns},
        {"tick_irq", m.tick_irq_ns, d.tick_irq_ns},
        {"idle_exit_latency", m.idle_exit_latency_ns, d.idle_exit_latency_ns},
        {"ipi_latency", m.ipi_latency_ns, d.ipi_latency_ns},
    }};
    json set = json::array();
    for (const auto& [name, value, default_value] : costs)
        if (value != default_value)
            set.push_back(name);
    if (m.tick_latency != d.tick_latency)
        set.push_back("tick_latency");
    if (m.sleep_cost != d.sleep_cost)
        set.push_back("sleep_cost");
    return set;
}

json task_json(const scenario& sc, const task_spec& t) {
    json changes = json::array();
    for (const affinity_change_spec& c : t.set_affinity)
        changes.push_back(
            {{"at", c.at}, {"cpus", mask_cpus(effective_cpus(sc.machine, t, c.cpus))}});
    json renice = json::array();
    for (const renice_spec& r : t.renice)
        renice.push_back({{"at", r.at}, {"nice", r.nice}});
    return {{"name", t.name},
            {"count", t.count},
            {"nice", t.nice},
            {"nice_clamped", clamp_nice(t.nice).nice},
            {"policy", policy_name(t.policy)},
            {"rt_priority", t.rt_priority},
            {"cpus", mask_cpus(effective_cpus(sc.machine, t, t.affinity))},
            {"set_affinity", changes},
            {"renice", renice},
            {"behaviour", behaviour_json(t.behaviour)},
            {"lifetime", optional_value(t.lifetime)},
            {"exit_at", optional_value(t.exit_at)},
            // The slice the kernel keeps: __setparam_fair() clamps as the model does.
            {"slice", t.slice ? json(eevdf::clamp_custom_slice(*t.slice)) : json()},
            {"cpu_clock_reads", optional_value(t.cpu_clock_reads)},
            {"timer_slack", t.timer_slack.value_or(sc.machine.timer_slack_ns)},
            {"system_share", t.system_share},
            {"cgroup", t.cgroup},
            {"session", t.session}};
}

// The scenario as measure.py runs it: every default applied, durations in ns, each task's
// effective CPUs, every cgroup of the hierarchy (parents first) with its tg->shares, and
// the fork time of every instance in each repetition (drawn staggers from the repetition's
// seed, as the simulator draws them).
json scenario_plan(const scenario& sc, int repetitions) {
    const machine_spec& m = sc.machine;
    json machine = {
        {"cpus", m.cpus},
        {"topology", m.topology ? topology_json(*m.topology) : json(nullptr)},
        {"default_topology", topology_json(topology_of(m))},
        {"online_cpus", m.online_cpus},
        {"hz", m.hz},
        {"kernel", m.kernel.str()},
        {"cgroup_version", m.cgroup_version},
        {"autogroup", m.autogroup},
        {"features", m.features},
        {"base_slice_ns", optional_value(m.base_slice_ns)},
        {"latency_ns", optional_value(m.latency_ns)},
        {"min_granularity_ns", optional_value(m.min_granularity_ns)},
        {"wakeup_granularity_ns", optional_value(m.wakeup_granularity_ns)},
        {"sched_rt_runtime", optional_value(m.sched_rt_runtime)},
        {"sched_rt_period", optional_value(m.sched_rt_period)},
        {"sched_rr_timeslice", optional_value(m.sched_rr_timeslice)},
        {"fair_server_runtime", optional_value(m.fair_server_runtime)},
        {"fair_server_period", optional_value(m.fair_server_period)},
        {"cfs_bandwidth_slice_ns", m.cfs_bandwidth_slice_ns},
        {"irq_time_accounting", m.irq_time_accounting},
        {"nohz_idle", m.nohz_idle},
        {"preempt", preempt_mode_name(effective_preempt(m))},
        {"costs_set", costs_set(m)},
        {"smt_throughput", optional_value(m.smt_throughput)},
        {"newidle_ratio", m.newidle_ratio.empty() ? json(nullptr) : json(m.newidle_ratio)},
    };
    json cgroups = json::array();
    for (const std::string& path : cgroup_paths(sc)) {
        const cgroup_spec* g = find_cgroup(sc, path);
        const cgroup_spec defaults;
        const cgroup_spec& spec = g != nullptr ? *g : defaults;
        cgroups.push_back({{"name", path},
                           {"shares", scale_load_down(cgroup_shares(spec, m))},
                           {"quota", optional_value(spec.quota)},
                           {"period", optional_value(spec.period)},
                           {"burst", optional_value(spec.burst)},
                           {"idle", spec.idle}});
    }
    json sessions = json::object();
    for (const session_spec& s : sc.sessions)
        sessions[s.name] = s.nice;
    json tasks = json::array();
    for (const task_spec& t : sc.tasks)
        tasks.push_back(task_json(sc, t));
    json forks = json::array();
    for (int r = 0; r < repetitions; ++r) {
        des::random_source rng(sc.seed + static_cast<std::uint64_t>(r));
        forks.push_back(fork_times(sc, rng));
    }
    return {{"name", sc.name},
            {"description", sc.description},
            {"length", sc.length},
            {"window_start", sc.window_start},
            {"window_end", sc.window_stop()},
            {"repetitions", repetitions},
            {"seed", sc.seed},
            {"reference", sc.reference},
            {"machine", machine},
            {"cgroups", cgroups},
            {"sessions", sessions},
            {"tasks", tasks},
            {"forks", forks}};
}

sched_policy policy_named(const std::string& name) {
    for (const sched_policy p : {sched_policy::normal, sched_policy::batch, sched_policy::idle,
                                 sched_policy::fifo, sched_policy::rr})
        if (name == policy_name(p))
            return p;
    throw std::invalid_argument("unknown policy " + name);
}

template <class T> T field_or(const json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

cfs_bandwidth_stat cpu_stat_of(const json& j) {
    return {field_or<std::uint64_t>(j, "nr_periods", 0),
            field_or<std::uint64_t>(j, "nr_throttled", 0),
            field_or<duration>(j, "throttled_time", 0), field_or<std::uint64_t>(j, "nr_bursts", 0),
            field_or<duration>(j, "burst_time", 0)};
}

// One measured repetition (the keys of the JSON document's repetition, as measure.py
// gathers them) as the simulator's repetition_result.
repetition_result repetition_of(const json& j, double window_ns) {
    repetition_result rep;
    for (const json& t : j.at("tasks")) {
        task_result r;
        r.name = t.at("name").get<std::string>();
        r.entry = t.at("entry").get<std::string>();
        r.pid = t.at("pid").get<int>();
        r.cpu = t.at("cpu").get<int>();
        r.nice = t.at("nice").get<int>();
        r.nice_clamped = t.at("nice_clamped").get<bool>();
        r.policy = policy_named(t.at("policy").get<std::string>());
        r.rt_priority = t.at("rt_priority").get<int>();
        r.sum_exec_runtime = t.at("sum_exec_runtime").get<duration>();
        r.window_runtime = t.at("window_runtime").get<duration>();
        r.share = window_ns > 0 ? static_cast<double>(r.window_runtime) / window_ns : 0.0;
        r.stat_utime_start = t.at("stat_utime_start").get<std::int64_t>();
        r.stat_utime_end = t.at("stat_utime_end").get<std::int64_t>();
        r.stat_stime_start = t.at("stat_stime_start").get<std::int64_t>();
        r.stat_stime_end = t.at("stat_stime_end").get<std::int64_t>();
        r.ru_utime_us = t.at("ru_utime_us").get<std::int64_t>();
        r.ru_stime_us = t.at("ru_stime_us").get<std::int64_t>();
        r.nvcsw = t.at("nvcsw").get<std::uint64_t>();
        r.nivcsw = t.at("nivcsw").get<std::uint64_t>();
        r.window_nvcsw = t.at("window_nvcsw").get<std::uint64_t>();
        r.window_nivcsw = t.at("window_nivcsw").get<std::uint64_t>();
        r.nr_migrations = t.at("nr_migrations").get<std::uint64_t>();
        r.window_nr_migrations = t.at("window_nr_migrations").get<std::uint64_t>();
        for (const json& v : t.at("lateness"))
            r.lateness.add(v.get<duration>());
        const json& delay = t.at("run_delay"); // /proc/PID/schedstat's growth
        r.window_run_delay = delay.at("sum").get<duration>();
        r.window_pcount = delay.at("count").get<std::uint64_t>();
        r.started = t.at("started").get<sim_time>();
        r.exited = field_or<sim_time>(t, "exited", -1);
        rep.tasks.push_back(std::move(r));
    }
    for (const json& c : j.at("cpus")) {
        cpu_result r;
        r.cpu = c.at("cpu").get<int>();
        r.busy = c.at("busy").get<duration>();
        r.idle = c.at("idle").get<duration>();
        r.window_busy = c.at("window_busy").get<duration>();
        r.window_idle = c.at("window_idle").get<duration>();
        rep.cpus.push_back(r);
    }
    for (const json& g : j.at("task_groups")) {
        task_group_result r;
        r.name = g.at("name").get<std::string>();
        r.autogroup = g.at("autogroup").get<bool>();
        r.session = g.at("session").get<std::string>();
        r.shares = g.at("shares").get<std::uint64_t>();
        r.nr_tasks = g.at("nr_tasks").get<int>();
        r.sum_exec_runtime = g.at("sum_exec_runtime").get<duration>();
        r.window_runtime = g.at("window_runtime").get<duration>();
        r.share = window_ns > 0 ? static_cast<double>(r.window_runtime) / window_ns : 0.0;
        if (const auto b = g.find("bandwidth"); b != g.end() && !b->is_null()) {
            r.bandwidth = true;
            r.quota = b->at("quota").get<duration>();
            r.period = b->at("period").get<duration>();
            r.burst = b->at("burst").get<duration>();
            r.cpu_stat = cpu_stat_of(b->at("cpu_stat"));
            r.window_cpu_stat = cpu_stat_of(b->at("window_cpu_stat"));
        }
        rep.task_groups.push_back(std::move(r));
    }
    return rep;
}

// The document of a measured run: `measured` holds "provenance" (the host's, written as
// given) and "repetitions"; shares, the summary and perf_stat come from the C++ writer.
std::string measured_document(const scenario& sc, const std::string& measured, int indent) {
    const json in = json::parse(measured);
    run_result result;
    result.scenario = sc.name;
    result.window_start = sc.window_start;
    result.window_end = sc.window_stop();
    result.provenance.source = result_source::measured;
    const auto window_ns = static_cast<double>(sc.window_stop() - sc.window_start);
    for (const json& rep : in.at("repetitions"))
        result.repetitions.push_back(repetition_of(rep, window_ns));
    json doc = to_json(result, sc);
    doc["provenance"] = in.at("provenance");
    if (const auto stop = in.find("interrupted"); stop != in.end() && !stop->is_null())
        doc["interrupted"] = *stop;
    return doc.dump(indent);
}

// A [machine] shape that gives exactly t, or nothing when no shape does.
json shape_json(const cpu_topology& t) {
    const auto distinct = [&](auto member) {
        std::vector<int> seen;
        for (const auto& p : t.cpus)
            if (std::find(seen.begin(), seen.end(), p.*member) == seen.end())
                seen.push_back(p.*member);
        return static_cast<int>(seen.size());
    };
    topology_shape s;
    s.packages = distinct(&cpu_topology::cpu_place::package);
    s.cores = distinct(&cpu_topology::cpu_place::core) / s.packages;
    s.threads = t.nr_cpus() / (s.cores * s.packages);
    s.llcs = distinct(&cpu_topology::cpu_place::llc) / s.packages;
    s.nodes = distinct(&cpu_topology::cpu_place::node) / s.packages;
    if (s.nr_cpus() != t.nr_cpus() || !check_shape(s, t.nr_cpus()).empty())
        return nullptr;
    const cpu_topology shaped = shaped_topology(s);
    for (int c = 0; c < t.nr_cpus(); ++c) {
        const auto &a = t.of(c), &b = shaped.of(c);
        if (a.package != b.package || a.core != b.core || a.thread != b.thread || a.llc != b.llc ||
            a.node != b.node)
            return nullptr;
    }
    if (shaped.distance != t.distance)
        return nullptr;
    return {{"packages", s.packages},
            {"cores", s.cores},
            {"threads", s.threads},
            {"llcs", s.llcs},
            {"nodes", s.nodes}};
}

} // namespace

void register_measure(py::module_& m) {
    m.def(
        "scenario_plan",
        [](const std::string& toml, const std::string& origin, std::optional<int> repetitions) {
            const scenario sc = parse_scenario(toml, origin);
            std::vector<std::string> warnings = validate(sc);
            const int reps = repetitions.value_or(sc.repetitions);
            if (reps < 1)
                throw scenario_error("repetitions", "must be >= 1, got " + std::to_string(reps));
            return std::pair{scenario_plan(sc, reps).dump(), std::move(warnings)};
        },
        py::arg("toml"), py::arg("origin"), py::arg("repetitions") = py::none(),
        "The parsed, validated scenario as JSON text (durations in ns, defaults applied, fork "
        "times per repetition) and its validation warnings.");

    m.def(
        "measured_document",
        [](const std::string& toml, const std::string& origin, const std::string& measured,
           int indent) {
            return measured_document(parse_scenario(toml, origin), measured, indent);
        },
        py::arg("toml"), py::arg("origin"), py::arg("measured"), py::arg("indent") = -1,
        "The JSON document (docs/output-format.md) of a measured run given as JSON text: its "
        "host provenance and repetitions; summary and perf_stat as for a simulated run.");

    m.def(
        "host_topology",
        [](const std::filesystem::path& sysfs) {
            const cpu_topology t = read_host_topology(sysfs);
            json j = topology_json(t);
            j["shape"] = shape_json(t);
            return j.dump();
        },
        py::arg("sysfs") = "/sys",
        "The host's CPU topology read from sysfs as JSON text: each CPU's place, the node "
        "distances and the [machine] topology shape that gives it (null when none does).");
}

} // namespace libsched::python
