#pragma once
// Checks a scenario before it runs. check_scenario() finds every error, each naming the
// field as a scenario file spells it ("machine.hz", "tasks[1].nice",
// "tasks[0].behaviour.run"), and every warning: what still runs but may surprise
// ("tasks[1].nice: 25 clamped to 19 as setpriority() does"). validate() throws the errors
// as one scenario_error.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/sched/bandwidth.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/topology_check.hpp>
#include <libsched/sched/tunables.hpp>
#include <libsched/sched/weight.hpp>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libsched {

// Bounds that catch typos; none of them is a limit of the model.
inline constexpr int max_cpus = 4096;
inline constexpr int max_repetitions = 10'000;
inline constexpr int max_task_count = 100'000;
inline constexpr duration max_tunable_override = nsec_per_sec;
// Far beyond any experiment, and keeps every sum of times clear of overflow.
inline constexpr duration max_length = 10'000'000 * nsec_per_sec;
// setpriority() clamps any nice into [-20, 19]; a value further out than these is taken
// for a typo rather than clamped.
inline constexpr int min_clampable_nice = 2 * min_nice;
inline constexpr int max_clampable_nice = 2 * max_nice + 1;

// What check_scenario() finds.
struct validation {
    std::vector<scenario_error::entry> errors; // in the order of the file's sections
    std::vector<std::string> warnings;         // each "field: what"
};

namespace detail {

inline void reject(validation& v, std::string field, std::string reason) {
    v.errors.push_back({std::move(field), std::move(reason)});
}

inline void warn(validation& v, const std::string& field, const std::string& what) {
    v.warnings.push_back(field + ": " + what);
}

// Whether the values that other fields are checked against are valid. A check that needs
// an invalid one is skipped, so a wrong value is reported once and not again through every
// field it bounds (a wrong length is not also every start time outside the run).
struct valid_bases {
    bool cpus, hz, kernel, length;
    explicit valid_bases(const scenario& sc)
        : cpus(sc.machine.cpus >= 1 && sc.machine.cpus <= max_cpus &&
               (!sc.machine.topology || sc.machine.topology->nr_cpus() == sc.machine.cpus)),
          hz(!unsupported_hz(sc.machine.hz)), kernel(!unmodelled_release(sc.machine.kernel)),
          length(sc.length > 0 && sc.length <= max_length) {}
};

inline std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

inline std::string count_text(long long n, std::string_view noun) {
    return std::to_string(n) + " " + std::string{noun} + (n == 1 ? "" : "s");
}

inline std::string run_interval(duration length) {
    return "the run [0s, " + format_duration(length) + ")";
}

// Whether t lies in the run [0, length); with an invalid length, only whether t >= 0.
inline bool within_run(sim_time t, const scenario& sc, const valid_bases& b) {
    return t >= 0 && (!b.length || t < sc.length);
}

inline void check_tunable_overrides(const machine_spec& m, validation& v) {
    struct tunable_override {
        const char* field;
        const std::optional<duration>& value;
        bool eevdf; // read by the EEVDF model (6.6+) or by old CFS
    };
    const std::array<tunable_override, 4> overrides = {{
        {"machine.base_slice", m.base_slice_ns, true},
        {"machine.latency", m.latency_ns, false},
        {"machine.min_granularity", m.min_granularity_ns, false},
        {"machine.wakeup_granularity", m.wakeup_granularity_ns, false},
    }};
    for (const auto& o : overrides) {
        if (!o.value)
            continue;
        if (*o.value <= 0)
            reject(v, o.field, format_duration(*o.value) + " is not positive");
        else if (*o.value > max_tunable_override)
            reject(v, o.field,
                   format_duration(*o.value) + " is absurdly long (at most " +
                       format_duration(max_tunable_override) + ")");
        if (o.eevdf != m.kernel.is_eevdf())
            warn(v, o.field,
                 o.eevdf ? "has no effect before 6.6 (old CFS reads latency and the granularities)"
                         : "has no effect from 6.6 on (EEVDF reads base_slice)");
    }
}

inline void check_features(const machine_spec& m, const valid_bases& b, validation& v) {
    std::vector<std::string_view> names;
    for (const auto& fi : feature_table)
        names.push_back(fi.name);
    std::map<feature, std::string> seen;
    for (const auto& [name, on] : m.features) {
        const std::string field = "machine.features." + name;
        const auto f = feature_by_name(name);
        if (!f) {
            reject(v, field, "unknown feature" + did_you_mean(name, names));
            continue;
        }
        if (const auto [it, fresh] = seen.emplace(*f, name); !fresh) {
            reject(v, field, "names the same feature as machine.features." + it->second);
            continue;
        }
        const feature_info& fi = info(*f);
        if (!b.kernel || feature_exists(*f, m.kernel))
            continue;
        const std::string absent = std::string{fi.kernel_name} + " is not in kernel " +
                                   m.kernel.str() + " (only in " + feature_releases(fi) + ")";
        if (on)
            reject(v, field, absent);
        else
            warn(v, field, absent + "; switching it off changes nothing");
    }
}

// machine.newidle_ratio: rates out of 1024, one or one per CPU; without NI_RANDOM (or
// domains) it has nothing to set.
inline void check_newidle_ratio(const machine_spec& m, const valid_bases& b, validation& v) {
    const std::vector<int>& r = m.newidle_ratio;
    if (r.empty())
        return;
    const std::string field = "machine.newidle_ratio";
    if (r.size() != 1 && b.cpus && r.size() != static_cast<std::size_t>(m.cpus))
        reject(v, field,
               std::to_string(r.size()) + " values for " + count_text(m.cpus, "CPU") +
                   " (give one for every CPU, or one value)");
    for (std::size_t i = 0; i < r.size(); ++i)
        if (r[i] < 0 || r[i] > 1024)
            reject(v, r.size() == 1 ? field : field + "[" + std::to_string(i) + "]",
                   std::to_string(r[i]) + " is outside [0, 1024] (a success rate out of 1024)");
    if (!b.kernel)
        return;
    const feature_info& fi = info(feature::ni_random);
    if (!feature_exists(feature::ni_random, m.kernel))
        warn(v, field,
             "has no effect: " + std::string{fi.kernel_name} + " is not in kernel " +
                 m.kernel.str() + " (only in " + feature_releases(fi) + ")");
    else if (b.cpus && m.cpus == 1)
        warn(v, field, "has no effect: one CPU has no sched domains");
    else
        for (const auto& [name, on] : m.features)
            if (!on && feature_by_name(name) == feature::ni_random)
                warn(v, field, "has no effect with machine.features." + name + " off");
}

// A topology gives the CPU count; cpus, if set apart from it, must agree.
inline void check_topology_of(const machine_spec& m, validation& v) {
    const std::vector<std::string> problems = check_topology(*m.topology);
    for (const std::string& p : problems)
        reject(v, "machine.topology", p);
    if (!problems.empty())
        return;
    const int n = m.topology->nr_cpus();
    if (n > max_cpus)
        reject(v, "machine.topology",
               count_text(n, "CPU") + ", more than " + std::to_string(max_cpus));
    else if (m.cpus != n)
        reject(v, "machine.cpus",
               std::to_string(m.cpus) + " but machine.topology has " + count_text(n, "CPU") +
                   " (leave cpus out to take the topology's)");
}

inline void check_span(const std::string& field, duration d, validation& v) {
    if (d > max_length)
        reject(v, field,
               format_duration(d) + " is longer than the longest run (" +
                   format_duration(max_length) +
                   ", about 116 days): the clock plus it would "
                   "exceed the representable time");
}

inline void check_machine(const machine_spec& m, const valid_bases& b, validation& v) {
    if (m.topology)
        check_topology_of(m, v);
    else if (!b.cpus)
        reject(v, "machine.cpus",
               std::to_string(m.cpus) + " is outside [1, " + std::to_string(max_cpus) + "]");
    if (m.online_cpus < 0)
        reject(v, "machine.online_cpus",
               std::to_string(m.online_cpus) + " is negative (0 means as many as machine.cpus)");
    if (m.online_cpus > 0 && m.online_cpus < m.cpus)
        warn(v, "machine.online_cpus",
             std::to_string(m.online_cpus) + " is fewer than the " + count_text(m.cpus, "CPU") +
                 " simulated");
    if (const auto e = unsupported_hz(m.hz))
        reject(v, "machine.hz", *e);
    if (const auto e = unmodelled_release(m.kernel))
        reject(v, "machine.kernel", *e);
    check_tunable_overrides(m, v);
    check_features(m, b, v);
    check_newidle_ratio(m, b, v);
    if (m.preempt == preempt_mode::lazy && b.kernel && m.kernel < kernel_version{6, 13})
        reject(v, "machine.preempt",
               "the lazy preemption model exists from 6.13 (7c70cb94d29c); the machine runs " +
                   m.kernel.str());
    if ((m.preempt == preempt_mode::none || m.preempt == preempt_mode::voluntary) && b.kernel &&
        m.kernel >= kernel_version{7, 0})
        warn(v, "machine.preempt",
             std::string{preempt_mode_name(*m.preempt)} +
                 ": from 7.0 x86, arm64 and the other architectures with lazy preemption offer "
                 "only full and lazy (7dadeaa6e851)");
    if (const auto f = m.smt_throughput) {
        if (!(*f > 0.0 && *f <= 1.0))
            reject(v, "machine.smt_throughput",
                   std::to_string(*f) + " is not a throughput in (0, 1] of running alone");
        else if (m.topology) {
            bool smt = false;
            for (const auto& c : m.topology->cpus)
                smt = smt || c.thread > 0;
            if (!smt)
                warn(v, "machine.smt_throughput",
                     "has no effect: no core of machine.topology has two threads");
        } else {
            warn(v, "machine.smt_throughput",
                 "has no effect: without machine.topology no core has two threads");
        }
    }
    if (m.timer_slack_ns < 0)
        reject(v, "machine.timer_slack", format_duration(m.timer_slack_ns) + " is negative");
    else
        check_span("machine.timer_slack", m.timer_slack_ns, v);
    // sched_cfs_bandwidth_slice_us: at least 1 us, in microseconds, an int.
    if (m.cfs_bandwidth_slice_ns < 1'000 || m.cfs_bandwidth_slice_ns % 1'000 != 0 ||
        m.cfs_bandwidth_slice_ns / 1'000 > std::numeric_limits<int>::max())
        reject(
            v, "machine.cfs_bandwidth_slice",
            format_duration(m.cfs_bandwidth_slice_ns) +
                " is not a whole number of microseconds from 1us (sched_cfs_bandwidth_slice_us)");
    // Each happens within one tick period, or the tick would never leave time to run; a
    // tick's handler comes before the next tick's expiry.
    std::vector<std::pair<std::string, duration>> within_tick = {
        {"machine.resched_latency", m.resched_latency_ns},
        {"machine.tick_irq", m.tick_irq_ns},
        {"machine.idle_exit_latency", m.idle_exit_latency_ns},
        {"machine.ipi_latency", m.ipi_latency_ns},
    };
    // Drawn for each expiry or sleep, each draw below one tick: bounded distributions only.
    for (const auto& [field, d] : {std::pair{std::string{"machine.tick_latency"}, &m.tick_latency},
                                   std::pair{std::string{"machine.sleep_cost"}, &m.sleep_cost}}) {
        switch (d->type) {
        case distribution::kind::constant:
            within_tick.emplace_back(field, d->a);
            break;
        case distribution::kind::uniform:
            within_tick.emplace_back(field + ".low", d->a);
            within_tick.emplace_back(field + ".high", d->b);
            if (d->a > d->b)
                reject(v, field,
                       "low " + format_duration(d->a) + " is above high " + format_duration(d->b));
            break;
        case distribution::kind::exponential:
            reject(v, field,
                   "an exponential has no bound, and each draw must stay below one tick: use a "
                   "constant or a uniform");
            break;
        }
    }
    for (const auto& [field, value] : within_tick) {
        if (value < 0) {
            reject(v, field, format_duration(value) + " is negative");
            continue;
        }
        if (!b.hz)
            continue;
        const duration tick = default_tunables(m.kernel, m.cpus, m.hz).tick_nsec;
        if (value >= tick)
            reject(v, field,
                   format_duration(value) + " is not below the tick (" + format_duration(tick) +
                       " at HZ " + std::to_string(m.hz) + ")");
    }
}

// The RT and fair-server settings, with the limits the kernel's handlers enforce
// (sched_rt_global_validate(), sched_rr_handler(), sched_fair_server_write()).
inline void check_rt_machine(const machine_spec& m, const valid_bases& b, validation& v) {
    constexpr duration max_rt_runtime = duration{4} * 3600 * nsec_per_sec; // MAX_BW, ~4 h
    const duration period = m.sched_rt_period.value_or(nsec_per_sec);
    bool period_ok = true;
    if (m.sched_rt_period) {
        period_ok = false;
        if (period <= 0)
            reject(v, "machine.sched_rt_period", format_duration(period) + " is not positive");
        else if (period % nsec_per_usec != 0)
            reject(v, "machine.sched_rt_period",
                   format_duration(period) + " is not a whole number of microseconds "
                                             "(sched_rt_period_us)");
        else if (period / nsec_per_usec > 2'147'483'647)
            reject(v, "machine.sched_rt_period",
                   format_duration(period) + " is beyond sched_rt_period_us (an int)");
        else if (const duration runtime = sched_tunables{}.rt_runtime;
                 !m.sched_rt_runtime && runtime > period)
            // sched_rt_global_validate() refuses a period below the runtime in force.
            reject(v, "machine.sched_rt_period",
                   format_duration(period) + " is below the default sched_rt_runtime (" +
                       format_duration(runtime) +
                       "), which the kernel refuses; set machine.sched_rt_runtime too");
        else
            period_ok = true;
    }
    if (const auto r = m.sched_rt_runtime; r && *r != runtime_inf) {
        if (*r < 0)
            reject(v, "machine.sched_rt_runtime",
                   format_duration(*r) + " is negative; \"unlimited\" (or -1) disables the limit");
        else if (*r % nsec_per_usec != 0)
            reject(v, "machine.sched_rt_runtime",
                   format_duration(*r) + " is not a whole number of microseconds "
                                         "(sched_rt_runtime_us)");
        else if (period_ok && *r > period)
            reject(v, "machine.sched_rt_runtime",
                   format_duration(*r) + " is above machine.sched_rt_period (" +
                       format_duration(period) + ")");
        else if (*r > max_rt_runtime)
            reject(v, "machine.sched_rt_runtime", format_duration(*r) + " is above MAX_BW (4 h)");
        else if (*r == 0 && m.rt_group_sched)
            reject(v, "machine.sched_rt_runtime",
                   "0s with rt_group_sched: the root group may not run RT tasks without runtime "
                   "(tg_rt_schedulable() refuses it)");
    }
    if (const auto s = m.sched_rr_timeslice) {
        if (*s <= 0)
            reject(v, "machine.sched_rr_timeslice", format_duration(*s) + " is not positive");
        else if (*s % nsec_per_msec != 0)
            reject(v, "machine.sched_rr_timeslice",
                   format_duration(*s) + " is not a whole number of milliseconds "
                                         "(sched_rr_timeslice_ms)");
    }
    const bool fair_server = b.kernel && m.kernel >= kernel_version{6, 12};
    const std::array<std::pair<const char*, const std::optional<duration>&>, 2> server = {{
        {"machine.fair_server_runtime", m.fair_server_runtime},
        {"machine.fair_server_period", m.fair_server_period},
    }};
    for (const auto& [field, value] : server)
        if (value && b.kernel && !fair_server)
            reject(v, field,
                   "the fair server exists from 6.12; the machine runs " + m.kernel.str());
    if (fair_server) {
        const sched_tunables defaults{};
        const duration sp = m.fair_server_period.value_or(defaults.fair_server_period);
        const duration sr = m.fair_server_runtime.value_or(defaults.fair_server_runtime);
        constexpr duration dl_period_min = 100 * nsec_per_usec; // sched_deadline_period_min_us
        constexpr duration dl_period_max =
            (duration{1} << 22) * 1000; // sched_deadline_period_max_us
        if (m.fair_server_period && (sp < dl_period_min || sp > dl_period_max))
            reject(v, "machine.fair_server_period",
                   format_duration(sp) + " is outside [" + format_duration(dl_period_min) + ", " +
                       format_duration(dl_period_max) + "]");
        else if (m.fair_server_runtime && (sr < 0 || sr > sp))
            reject(v, "machine.fair_server_runtime",
                   format_duration(sr) + " is outside [0s, the period " + format_duration(sp) +
                       "] (0s disables the server)");
        else if (sr > sp) // sched_fair_server_write() refuses a period below the runtime
            reject(v, "machine.fair_server_period",
                   format_duration(sp) + " is below the default fair_server_runtime (" +
                       format_duration(sr) +
                       "), which the kernel refuses; set machine.fair_server_runtime too");
    }
}

inline void check_run(const scenario& sc, const valid_bases& b, validation& v) {
    if (sc.length <= 0)
        reject(v, "length", format_duration(sc.length) + " is not positive");
    else if (!b.length)
        reject(v, "length",
               format_duration(sc.length) + " is longer than " + format_duration(max_length) +
                   " (about 116 days)");
    if (sc.window_start < 0)
        reject(v, "window.start", format_duration(sc.window_start) + " is negative");
    if (b.length && sc.window_end && *sc.window_end > sc.length)
        reject(v, "window.end",
               format_duration(*sc.window_end) + " is after the end of " + run_interval(sc.length));
    if (b.length && sc.window_start >= sc.window_stop())
        reject(v, "window",
               "[" + format_duration(sc.window_start) + ", " + format_duration(sc.window_stop()) +
                   ") is empty");
    if (sc.repetitions < 1 || sc.repetitions > max_repetitions)
        reject(v, "repetitions",
               std::to_string(sc.repetitions) + " is outside [1, " +
                   std::to_string(max_repetitions) + "]");
}

inline void check_nice(const std::string& field, int nice, validation& v) {
    if (nice < min_clampable_nice || nice > max_clampable_nice)
        reject(v, field,
               std::to_string(nice) + " is outside [" + std::to_string(min_nice) + ", " +
                   std::to_string(max_nice) + "]");
    else if (const nice_clamp c = clamp_nice(nice); c.clamped)
        warn(v, field,
             std::to_string(nice) + " clamped to " + std::to_string(c.nice) +
                 " as setpriority() does");
}

// run: whether the distribution is a run length, which must leave the task some CPU time.
// A duration a task adds to the clock (a lifetime, a burst, a sleep, a launch gap) may not
// exceed the longest run: nothing that long can happen within one, and the clock plus it
// stays representable.
inline void check_distribution(const std::string& field, const distribution& d, bool run,
                               validation& v) {
    using kind = distribution::kind;
    check_span(field + (d.type == kind::uniform       ? ".high"
                        : d.type == kind::exponential ? ".mean"
                                                      : ""),
               d.type == kind::uniform ? d.b : d.a, v);
    switch (d.type) {
    case kind::constant:
        if (d.a < 0)
            reject(v, field, format_duration(d.a) + " is negative");
        if (run && d.a == 0)
            reject(v, field, "0s: a task must run for some time");
        break;
    case kind::uniform:
        if (d.a < 0)
            reject(v, field + ".low", format_duration(d.a) + " is negative");
        if (d.a > d.b)
            reject(v, field,
                   "low " + format_duration(d.a) + " is above high " + format_duration(d.b));
        if (run && d.b == 0)
            reject(v, field + ".high", "0s: a task must run for some time");
        break;
    case kind::exponential:
        if (d.a <= 0)
            reject(v, field + ".mean", format_duration(d.a) + " is not positive");
        break;
    }
}

// A steps loop count: -1 (for ever) or a positive number of passes.
inline void check_loop(const std::string& field, int loop, validation& v) {
    if (loop == 0 || loop < -1)
        reject(v, field, std::to_string(loop) + ": a loop count is -1 (for ever) or at least 1");
}

// Whether a resume may name `name`: an entry ("b": each of its instances) or one instance
// ("a" for count 1, "b.0", "b.1"). Entry names hold no '.', so "b.K" is only b's.
inline bool resume_target(const scenario& sc, const std::string& name) {
    for (const task_spec& t : sc.tasks) {
        if (name == t.name)
            return true;
        if (t.count < 2 || name.size() <= t.name.size() + 1 || name.rfind(t.name + ".", 0) != 0)
            continue;
        // K as instance_name() writes it: decimal, no leading zero, below count.
        const std::string k = name.substr(t.name.size() + 1);
        if (k.size() > 9 || (k.size() > 1 && k[0] == '0') ||
            k.find_first_not_of("0123456789") != std::string::npos)
            continue;
        if (std::stoi(k) < t.count)
            return true;
    }
    return false;
}

// The semaphores some step posts and the pipes some step writes, collected once for every
// sem_wait and pipe_read to look up.
struct step_writers {
    std::set<std::string> semaphores, pipes;
};
inline step_writers written_names(const scenario& sc) {
    step_writers w;
    for (const task_spec& t : sc.tasks)
        for (const phase_spec& ph : t.behaviour.steps.phases)
            for (const step_spec& st : ph.steps)
                if (st.type == step_spec::kind::sem_post)
                    w.semaphores.insert(st.name);
                else if (st.type == step_spec::kind::pipe_write)
                    w.pipes.insert(st.name);
    return w;
}

// written: written_names(sc).
inline void check_step(const std::string& at, const step_spec& st, const scenario& sc,
                       const step_writers& written, validation& v) {
    using kind = step_spec::kind;
    const auto named = [&](const char* key) {
        if (st.name.empty())
            reject(v, at + "." + key, "an empty name");
        return !st.name.empty();
    };
    // A wait on something no step gives: legal (the task waits for ever), but likely a slip.
    const auto awaited = [&](const char* key, const std::set<std::string>& given,
                             const std::string& no_giver) {
        if (named(key) && given.count(st.name) == 0)
            warn(v, at + "." + key, no_giver + " \"" + st.name + "\": the task waits for ever");
    };
    const auto positive = [&](const std::string& field) {
        if (st.time.a <= 0)
            reject(v, field, format_duration(st.time.a) + " is not positive");
        check_span(field, st.time.a, v);
    };
    switch (st.type) {
    case kind::run:
        check_distribution(at + ".run", st.time, true, v);
        break;
    case kind::sleep:
        check_distribution(at + ".sleep", st.time, false, v);
        break;
    case kind::runtime:
        positive(at + ".runtime");
        break;
    case kind::timer:
        positive(at + ".timer");
        if (st.name.empty())
            reject(v, at + ".ref", "an empty name");
        break;
    case kind::suspend:
    case kind::yield:
        break;
    case kind::resume:
        if (named("resume") && !resume_target(sc, st.name)) {
            std::vector<std::string> names;
            for (const task_spec& t : sc.tasks)
                names.push_back(t.name);
            reject(v, at + ".resume",
                   "no task named \"" + st.name + "\"" + did_you_mean(st.name, names));
        }
        break;
    case kind::sem_post:
        named("sem_post");
        break;
    case kind::sem_wait:
        awaited("sem_wait", written.semaphores, "no step posts semaphore");
        break;
    case kind::pipe_write:
        named("pipe_write");
        break;
    case kind::pipe_read:
        awaited("pipe_read", written.pipes, "no step writes pipe");
        break;
    }
}

inline void check_steps(const std::string& field, const behaviour_spec& b, const scenario& sc,
                        const step_writers& written, validation& v) {
    check_loop(field + ".loop", b.steps.loop, v);
    if (b.steps.phases.empty())
        reject(v, field + ".phases", "no phases: a steps behaviour needs at least one");
    for (std::size_t p = 0; p < b.steps.phases.size(); ++p) {
        const phase_spec& ph = b.steps.phases[p];
        const std::string at =
            b.steps.written_as_phases ? field + ".phases[" + std::to_string(p) + "]" : field;
        if (b.steps.written_as_phases)
            check_loop(at + ".loop", ph.loop, v);
        if (ph.steps.empty())
            reject(v, at + ".steps", "no steps: a phase needs at least one");
        for (std::size_t i = 0; i < ph.steps.size(); ++i)
            check_step(at + ".steps[" + std::to_string(i) + "]", ph.steps[i], sc, written, v);
    }
}

inline void check_behaviour(const std::string& field, const behaviour_spec& b, const scenario& sc,
                            const step_writers& written, validation& v) {
    using kind = behaviour_spec::kind;
    switch (b.type) {
    case kind::burner:
        break;
    case kind::periodic:
        if (b.run <= 0)
            reject(v, field + ".run", format_duration(b.run) + " is not positive");
        if (b.sleep < 0)
            reject(v, field + ".sleep", format_duration(b.sleep) + " is negative");
        if (b.period && *b.period <= 0)
            reject(v, field + ".period", format_duration(*b.period) + " is not positive");
        check_span(field + ".run", b.run, v);
        check_span(field + ".sleep", b.sleep, v);
        if (b.period)
            check_span(field + ".period", *b.period, v);
        break;
    case kind::random:
        check_distribution(field + ".run", b.run_dist, true, v);
        check_distribution(field + ".sleep", b.sleep_dist, false, v);
        break;
    case kind::steps:
        check_steps(field, b, sc, written, v);
        break;
    }
}

// A list of CPUs (an affinity, a cpuset's CPUs): each on the machine, none twice. True if
// it passed.
inline bool check_cpu_list(const std::string& field, const std::vector<int>& cpus,
                           const scenario& sc, const valid_bases& b, validation& v) {
    bool ok = true;
    std::set<int> seen;
    for (const int cpu : cpus) {
        if (cpu < 0 || (b.cpus && cpu >= sc.machine.cpus)) {
            reject(v, field,
                   "affinity to CPU " + std::to_string(cpu) + " but the machine has " +
                       count_text(sc.machine.cpus, "CPU"));
            ok = false;
        } else if (!seen.insert(cpu).second) {
            reject(v, field, "CPU " + std::to_string(cpu) + " is listed twice");
            ok = false;
        }
    }
    return ok;
}

// machine.cpusets: each a non-empty list of the machine's CPUs.
inline void check_cpusets(const scenario& sc, const valid_bases& b, validation& v) {
    for (const auto& [name, cpus] : sc.machine.cpusets) {
        const std::string field = "machine.cpusets." + name;
        if (cpus.empty())
            reject(v, field, "an empty cpuset.cpus; a cpuset for tasks needs at least one CPU");
        else
            check_cpu_list(field, cpus, sc, b, v);
    }
}

// A name that would print as something else (an escape sequence, a line break).
inline bool has_control_character(std::string_view name) {
    return std::any_of(name.begin(), name.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// A cgroup path: names separated by '/', none empty, "." or "..", nor with control
// characters (a directory name under the cgroup mount).
inline std::optional<std::string> bad_cgroup_path(const std::string& path) {
    if (path.empty())
        return "missing or empty; every [[cgroups]] entry needs a name such as \"web\" or "
               "\"web/api\"";
    std::string_view rest = path;
    while (true) {
        const auto slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        if (part.empty() || part == "." || part == "..")
            return "\"" + path +
                   "\" is not a cgroup path: names separated by '/', none empty, "
                   "\".\" or \"..\"";
        if (has_control_character(part))
            return std::string{"contains a control character"};
        if (slash == std::string_view::npos)
            return std::nullopt;
        rest = rest.substr(slash + 1);
    }
}

// to_ratio(period, quota) (core.c normalize_cfs_quota()): runtime per period at 2^20.
inline u64 cfs_ratio(duration period, duration quota) {
    return static_cast<u64>((static_cast<s128>(quota) << 20) / period);
}

// The nearest ancestor's quota ratio on cgroup v1 (hierarchical_quota), or none.
inline std::optional<u64> v1_parent_ratio(const scenario& sc, const std::string& path) {
    for (std::string p = cgroup_parent(path); !p.empty(); p = cgroup_parent(p))
        if (const cgroup_spec* g = find_cgroup(sc, p); g != nullptr && g->quota)
            return cfs_ratio(g->period.value_or(default_cfs_period), *g->quota);
    return std::nullopt;
}

// CFS bandwidth control: the values tg_set_cfs_bandwidth() and the cgroup files accept
// (cpu.max "quota period" and cpu.max.burst on v2; cpu.cfs_quota_us, cpu.cfs_period_us,
// cpu.cfs_burst_us on v1, the same values), and the releases the model covers.
inline void check_cgroup_bandwidth(const scenario& sc, const cgroup_spec& g, const std::string& at,
                                   const valid_bases& b, validation& v) {
    const bool v1 = sc.machine.cgroup_version == 1;
    const char* quota_file = v1 ? "cpu.cfs_quota_us" : "cpu.max";
    const char* period_file = v1 ? "cpu.cfs_period_us" : "cpu.max";
    const char* burst_file = v1 ? "cpu.cfs_burst_us" : "cpu.max.burst";
    // The files take microseconds.
    const auto whole_us = [&](const char* key, const char* file, duration d) {
        if (d >= 0 && d % 1'000 != 0)
            reject(v, at + key,
                   format_duration(d) + " is not a whole number of microseconds (" + file +
                       " takes microseconds)");
    };
    if (g.period) {
        if (*g.period < min_cfs_quota_period || *g.period > max_cfs_quota_period)
            reject(v, at + ".period",
                   format_duration(*g.period) + " is outside 1ms..1s, the periods " + period_file +
                       " accepts");
        whole_us(".period", period_file, *g.period);
    }
    if (g.quota) {
        if (*g.quota < min_cfs_quota_period)
            reject(v, at + ".quota",
                   format_duration(*g.quota) + " is below 1ms, the least " + quota_file +
                       " accepts (or \"max\" for no limit)");
        else if (*g.quota > max_cfs_runtime)
            reject(v, at + ".quota", format_duration(*g.quota) + " is above max_cfs_runtime");
        whole_us(".quota", quota_file, *g.quota);
    }
    if (g.burst) {
        if (b.kernel && sc.machine.kernel < kernel_version{5, 14})
            reject(v, at + ".burst",
                   std::string(burst_file) + " exists from 5.14; the machine runs " +
                       sc.machine.kernel.str());
        if (*g.burst < 0)
            reject(v, at + ".burst", format_duration(*g.burst) + " is negative");
        else if (g.quota && *g.burst > *g.quota)
            reject(v, at + ".burst",
                   format_duration(*g.burst) + " is above the quota (" + format_duration(*g.quota) +
                       "); the kernel refuses a burst above it");
        else if (g.quota && *g.burst + *g.quota > max_cfs_runtime)
            reject(v, at + ".burst", "quota + burst is above max_cfs_runtime");
        else if (!g.quota && *g.burst > 0)
            warn(v, at + ".burst", "has no effect without a quota");
        whole_us(".burst", burst_file, *g.burst);
    }
    if (!g.quota)
        return;
    if (b.kernel && sc.machine.kernel < kernel_version{5, 4})
        reject(v, at + ".quota",
               "CFS bandwidth control is modelled from 5.4 (de53fd7aedb1 ended the expiry of "
               "the runtime a CPU holds); the machine runs " +
                   sc.machine.kernel.str());
    // __cfs_schedulable() on v1: a group may not have more runtime per period than its
    // nearest limited ancestor.
    if (v1 && g.period.value_or(default_cfs_period) > 0 && *g.quota > 0) {
        const auto parent = v1_parent_ratio(sc, g.name);
        if (parent && cfs_ratio(g.period.value_or(default_cfs_period), *g.quota) > *parent)
            reject(v, at + ".quota",
                   "more runtime per period than a parent group's quota allows; cgroup v1 "
                   "refuses it (v2 caps the group at the parent's instead)");
    }
}

// One [[cgroups]] entry: the files of the machine's cgroup version only, with the ranges
// their writes accept.
inline void check_cgroup(const scenario& sc, std::size_t i, const valid_bases& b, validation& v) {
    const cgroup_spec& g = sc.cgroups[i];
    const std::string at = "cgroups[" + std::to_string(i) + "]";
    if (const auto e = bad_cgroup_path(g.name))
        reject(v, at + ".name", *e);
    const int version = sc.machine.cgroup_version;
    if (version == 2 && g.shares)
        reject(v, at + ".shares",
               "cpu.shares is a cgroup v1 file; with machine.cgroup_version = 2 write weight "
               "(cpu.weight, 1-10000) or weight_nice");
    if (version == 1 && (g.weight || g.weight_nice))
        reject(v, at + (g.weight ? ".weight" : ".weight_nice"),
               "cpu.weight is a cgroup v2 file; with machine.cgroup_version = 1 write shares "
               "(cpu.shares)");
    if (g.weight && g.weight_nice)
        reject(v, at + ".weight_nice",
               "cpu.weight and cpu.weight.nice set the same weight; give one of them");
    if (g.shares) {
        if (*g.shares < 0)
            reject(v, at + ".shares", std::to_string(*g.shares) + " is negative");
        else if (*g.shares < min_shares || *g.shares > max_shares)
            warn(v, at + ".shares",
                 std::to_string(*g.shares) + " clamped to " +
                     std::to_string(std::clamp<long long>(*g.shares, min_shares, max_shares)) +
                     " as the kernel does (MIN_SHARES 2, MAX_SHARES 262144)");
    }
    if (g.weight && (*g.weight < cgroup_weight_min || *g.weight > cgroup_weight_max))
        reject(v, at + ".weight", std::to_string(*g.weight) + " is outside [1, 10000]");
    if (g.weight_nice && (*g.weight_nice < min_nice || *g.weight_nice > max_nice))
        reject(v, at + ".weight_nice", std::to_string(*g.weight_nice) + " is outside [-20, 19]");
    if (g.cpu_request) {
        if (*g.cpu_request < 0)
            reject(v, at + ".cpu_request", std::to_string(*g.cpu_request) + "m is negative");
        if (g.shares || g.weight || g.weight_nice)
            reject(v, at + ".cpu_request",
                   "cpu_request gives the group's cpu.shares or cpu.weight; not with shares, "
                   "weight or weight_nice");
        if (g.idle)
            reject(v, at + ".cpu_request",
                   "an idle group takes the idle weight; not with cpu_request");
    }
    if (g.idle) {
        if (b.kernel && sc.machine.kernel < kernel_version{5, 15})
            reject(v, at + ".idle",
                   "cpu.idle exists from 5.15; the machine runs " + sc.machine.kernel.str());
        if (g.shares || g.weight || g.weight_nice)
            reject(v, at + ".idle",
                   "an idle group takes the idle weight; the kernel refuses a weight for it");
    }
    check_cgroup_bandwidth(sc, g, at, b, v);
    for (std::size_t j = 0; j < i; ++j)
        if (sc.cgroups[j].name == g.name && !g.name.empty())
            reject(v, at + ".name",
                   "\"" + g.name + "\" is already the name of cgroups[" + std::to_string(j) + "]");
}

inline void check_cgroups(const scenario& sc, const valid_bases& b, validation& v) {
    if (sc.machine.cgroup_version != 1 && sc.machine.cgroup_version != 2)
        reject(v, "machine.cgroup_version",
               std::to_string(sc.machine.cgroup_version) + " is not a cgroup version (1 or 2)");
    for (std::size_t i = 0; i < sc.cgroups.size(); ++i)
        check_cgroup(sc, i, b, v);
    for (std::size_t i = 0; i < sc.sessions.size(); ++i) {
        const session_spec& s = sc.sessions[i];
        const std::string at = "sessions[" + std::to_string(i) + "]";
        if (s.name.empty())
            reject(v, at + ".name", "missing or empty; every [[sessions]] entry needs a name");
        else if (has_control_character(s.name))
            reject(v, at + ".name", "contains a control character");
        for (std::size_t j = 0; j < i; ++j)
            if (sc.sessions[j].name == s.name && !s.name.empty())
                reject(v, at + ".name",
                       "\"" + s.name + "\" is already the name of sessions[" + std::to_string(j) +
                           "]");
        // proc_sched_autogroup_set_nice(): -EINVAL outside the nice range.
        if (s.nice < min_nice || s.nice > max_nice)
            reject(v, at + ".nice", std::to_string(s.nice) + " is outside [-20, 19]");
        if (std::none_of(sc.tasks.begin(), sc.tasks.end(),
                         [&](const task_spec& t) { return t.session == s.name; }))
            warn(v, at, "no task starts in session \"" + s.name + "\"");
    }
}

// A task's cgroup exists, and on cgroup v2 has no child groups
// (the "no internal processes" rule: a task cannot join a group whose children have the cpu
// controller).
inline void check_task_groups(const scenario& sc, const task_spec& t, const std::string& at,
                              validation& v) {
    if (has_control_character(t.session))
        reject(v, at + ".session", "contains a control character");
    if (!t.cgroup.empty()) {
        const std::vector<std::string> paths = cgroup_paths(sc);
        if (std::find(paths.begin(), paths.end(), t.cgroup) == paths.end()) {
            std::vector<std::string_view> names(paths.begin(), paths.end());
            reject(v, at + ".cgroup",
                   "\"" + t.cgroup + "\" names no [[cgroups]] entry" +
                       did_you_mean(t.cgroup, names) +
                       (paths.empty() ? std::string{" (there are none)"} : std::string{}));
        } else if (sc.machine.cgroup_version == 2 &&
                   std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
                       return cgroup_parent(p) == t.cgroup;
                   })) {
            reject(v, at + ".cgroup",
                   "\"" + t.cgroup +
                       "\" has child groups; on cgroup v2 tasks live only in leaf groups (no "
                       "internal processes)");
        }
    }
}

// rt_priority goes with SCHED_FIFO / SCHED_RR only (sched_setscheduler()'s EINVAL). Before
// 5.10 RT_RUNTIME_SHARE was on by default (2586af1ac187 turned it off): a throttled CPU
// borrowed runtime from the others, which the model does not do, so RT tasks under RT
// bandwidth on more than one CPU are refused there.
inline void check_rt_task(const scenario& sc, const task_spec& t, const std::string& at,
                          const valid_bases& b, validation& v) {
    const std::string policy = std::string{"policy \""} + policy_name(t.policy) + "\"";
    if (rt_policy(t.policy)) {
        if (t.rt_priority < 1 || t.rt_priority > 99)
            reject(v, at + ".rt_priority",
                   (t.rt_priority == 0 ? std::string{"missing"} : std::to_string(t.rt_priority)) +
                       ": must be 1-99 for " + policy);
        if (t.slice)
            reject(v, at + ".slice", "is a fair-class setting; " + policy + " has none");
        const machine_spec& m = sc.machine;
        if (b.kernel && b.cpus && m.kernel < kernel_version{5, 10} && m.cpus > 1 &&
            m.sched_rt_runtime.value_or(0) != runtime_inf)
            reject(v, at + ".policy",
                   "RT bandwidth before 5.10 shares runtime between CPUs (RT_RUNTIME_SHARE, "
                   "on "
                   "by default then), which is not modelled; use one CPU, 5.10 or later, or "
                   "machine.sched_rt_runtime = \"unlimited\"");
    } else if (t.rt_priority != 0) {
        reject(v, at + ".rt_priority",
               std::to_string(t.rt_priority) +
                   ": only policies \"fifo\" and \"rr\" have one, not " + policy);
    }
}

inline void check_task(const scenario& sc, std::size_t i, const valid_bases& b,
                       const step_writers& written, validation& v) {
    const task_spec& t = sc.tasks[i];
    const std::string at = "tasks[" + std::to_string(i) + "]";
    if (t.count < 1 || t.count > max_task_count)
        reject(v, at + ".count",
               std::to_string(t.count) + " is outside [1, " + std::to_string(max_task_count) + "]");
    check_nice(at + ".nice", t.nice, v);
    check_task_groups(sc, t, at, v);
    check_rt_task(sc, t, at, b, v);

    const bool affinity_ok = check_cpu_list(at + ".affinity", t.affinity, sc, b, v);
    const bool cpuset_ok = t.cpuset.empty() || sc.machine.cpusets.count(t.cpuset) != 0;
    if (!cpuset_ok) {
        std::vector<std::string_view> names;
        std::string listed;
        for (const auto& [name, cpus] : sc.machine.cpusets) {
            names.push_back(name);
            listed += (listed.empty() ? "" : ", ") + name;
        }
        reject(
            v, at + ".cpuset",
            "\"" + t.cpuset + "\" names no machine.cpusets entry" + did_you_mean(t.cpuset, names) +
                (listed.empty() ? std::string{" (there are none)"} : " (cpusets: " + listed + ")"));
    }
    // __sched_setaffinity(): the mask within the cpuset; none left is -EINVAL.
    const auto outside_cpuset = [&](const std::vector<int>& cpus) {
        if (!b.cpus || t.cpuset.empty() || !cpuset_ok)
            return false;
        const std::vector<bool> mask = effective_cpus(sc.machine, t, cpus);
        return !mask.empty() && std::find(mask.begin(), mask.end(), true) == mask.end();
    };
    if (affinity_ok && outside_cpuset(t.affinity))
        reject(v, at + ".affinity",
               "no CPU of it is in cpuset \"" + t.cpuset +
                   "\"; sched_setaffinity() refuses an empty intersection");
    for (std::size_t j = 0; j < t.set_affinity.size(); ++j) {
        const std::string af = at + ".set_affinity[" + std::to_string(j) + "]";
        const affinity_change_spec& a = t.set_affinity[j];
        if (!within_run(a.at, sc, b))
            reject(v, af + ".at", format_duration(a.at) + " is outside " + run_interval(sc.length));
        if (a.cpus.empty())
            reject(v, af + ".cpus", "an empty CPU list, which sched_setaffinity() rejects");
        else if (check_cpu_list(af + ".cpus", a.cpus, sc, b, v) && outside_cpuset(a.cpus))
            reject(v, af + ".cpus",
                   "no CPU of it is in cpuset \"" + t.cpuset +
                       "\"; sched_setaffinity() refuses an empty intersection");
    }
    check_behaviour(at + ".behaviour", t.behaviour, sc, written, v);

    bool start_ok = within_run(t.start, sc, b);
    if (t.start_drawn) {
        // A drawn start: a range to draw from, all of it inside the run.
        const distribution& d = *t.start_drawn;
        if (d.type != distribution::kind::uniform)
            reject(v, at + ".start", "a drawn start is uniform (an exponential has no bound)");
        check_distribution(at + ".start", d, false, v);
        if (d.type == distribution::kind::uniform && !within_run(d.b, sc, b)) {
            reject(v, at + ".start.high",
                   format_duration(d.b) + " is outside " + run_interval(sc.length));
            start_ok = false;
        }
    } else if (!start_ok) {
        reject(v, at + ".start",
               format_duration(t.start) + " is outside " + run_interval(sc.length));
    }
    check_distribution(at + ".stagger", t.stagger, false, v);
    // The shortest gap a draw can give; an instance late even by it certainly never starts.
    const duration gap = des::least_draw(t.stagger);
    if (gap > 0 && start_ok && b.length && t.after.empty()) {
        // Instance k forks at start + k * gap at the earliest; one at or past the end never
        // runs.
        const duration late = (sc.length - t.start - 1) / gap + 1;
        if (late < t.count)
            warn(v, at + ".stagger",
                 "instances " + std::to_string(late) + " to " + std::to_string(t.count - 1) +
                     " would fork after the end of the run and never start");
    }
    if (!t.after.empty()) {
        bool earlier = false;
        for (std::size_t p = 0; p < i; ++p)
            earlier = earlier || sc.tasks[p].name == t.after;
        if (!earlier)
            reject(v, at + ".after", "\"" + t.after + "\" names no earlier [[tasks]] entry");
        if (t.start != 0 || t.start_drawn)
            reject(v, at + ".start",
                   "an entry that starts after another one has no start of its own");
    }
    if (t.slice) {
        if (b.kernel && sc.machine.kernel < kernel_version{6, 12})
            reject(v, at + ".slice",
                   "custom slices (sched_setattr() sched_runtime) exist from 6.12; the "
                   "machine "
                   "runs " +
                       sc.machine.kernel.str());
        if (*t.slice <= 0)
            reject(v, at + ".slice", format_duration(*t.slice) + " is not positive");
        else if (eevdf::clamp_custom_slice(*t.slice) != *t.slice)
            warn(v, at + ".slice",
                 format_duration(*t.slice) + " clamped to " +
                     format_duration(eevdf::clamp_custom_slice(*t.slice)) +
                     " as __setparam_fair() does");
    }
    if (const auto& every = t.cpu_clock_reads) {
        if (*every < nsec_per_usec)
            reject(v, at + ".cpu_clock_reads",
                   format_duration(*every) +
                       " is under 1us: a read (a system call) takes about that long itself");
        else
            check_span(at + ".cpu_clock_reads", *every, v);
    }
    if (const auto& slack = t.timer_slack) {
        if (*slack < 0)
            reject(v, at + ".timer_slack", format_duration(*slack) + " is negative");
        else
            check_span(at + ".timer_slack", *slack, v);
        if (rt_policy(t.policy))
            warn(v, at + ".timer_slack",
                 "has no effect: SCHED_FIFO and SCHED_RR tasks sleep without slack");
    }
    if (!(t.system_share >= 0.0 && t.system_share <= 1.0))
        reject(v, at + ".system_share", number_text(t.system_share) + " is outside [0, 1]");
    if (t.lifetime && *t.lifetime <= 0)
        reject(v, at + ".lifetime", format_duration(*t.lifetime) + " is not positive");
    if (t.lifetime)
        check_span(at + ".lifetime", *t.lifetime, v);
    const sim_time latest_start = t.start_drawn ? t.start_drawn->b : t.start;
    if (t.exit_at && *t.exit_at <= latest_start)
        reject(v, at + ".exit_at",
               format_duration(*t.exit_at) + " is not after the task's start (" +
                   format_duration(latest_start) + (t.start_drawn ? " at the latest" : "") + ")");
    for (std::size_t j = 0; j < t.renice.size(); ++j) {
        const std::string rf = at + ".renice[" + std::to_string(j) + "]";
        const renice_spec& r = t.renice[j];
        if (!within_run(r.at, sc, b))
            reject(v, rf + ".at", format_duration(r.at) + " is outside " + run_interval(sc.length));
        check_nice(rf + ".nice", r.nice, v);
    }
}

inline void check_tasks(const scenario& sc, const valid_bases& b, validation& v) {
    if (sc.tasks.empty())
        reject(v, "tasks", "no tasks; a scenario needs at least one [[tasks]] table");
    std::map<std::string, std::size_t> names;
    const step_writers written = written_names(sc);
    for (std::size_t i = 0; i < sc.tasks.size(); ++i) {
        const std::string& name = sc.tasks[i].name;
        const std::string field = "tasks[" + std::to_string(i) + "].name";
        if (name.empty())
            reject(v, field, "missing or empty; every [[tasks]] entry needs a name");
        else if (has_control_character(name))
            reject(v, field,
                   "contains a control character (a line break, an escape sequence), which "
                   "would print as something else");
        else if (name.find('.') != std::string::npos)
            reject(v, field,
                   "\"" + name + "\" contains '.', which instance names use (" + name + ".0, " +
                       name + ".1, ...)");
        else if (const auto [it, fresh] = names.emplace(name, i); !fresh)
            reject(v, field,
                   "\"" + name + "\" is already the name of tasks[" + std::to_string(it->second) +
                       "]");
        check_task(sc, i, b, written, v);
    }
}

inline void check_measured(const scenario& sc, const valid_bases& b, validation& v) {
    std::vector<std::string_view> entries;
    std::string listed;
    for (const auto& t : sc.tasks) {
        entries.push_back(t.name);
        listed += (listed.empty() ? "" : ", ") + t.name;
    }
    const auto check_entry = [&](const std::string& field, const std::string& entry) {
        if (std::find(entries.begin(), entries.end(), entry) == entries.end())
            reject(v, field,
                   "\"" + entry + "\" names no [[tasks]] entry" + did_you_mean(entry, entries) +
                       " (entries: " + listed + ")");
    };
    if (!sc.reference.empty())
        check_entry("reference", sc.reference);
    for (const auto& [entry, share] : sc.measured.share) {
        const std::string field = "measured.share." + entry;
        check_entry(field, entry);
        if (!std::isfinite(share) || share < 0 || (b.cpus && share > sc.machine.cpus))
            reject(v, field,
                   number_text(share) + " is not a share of the CPU time (0 to " +
                       std::to_string(sc.machine.cpus) + ")");
    }
    if (!sc.measured.ratio.empty() && sc.reference.empty())
        reject(v, "measured.ratio", "ratios need a reference entry; set reference");
    for (const auto& [entry, ratio] : sc.measured.ratio) {
        const std::string field = "measured.ratio." + entry;
        check_entry(field, entry);
        if (!std::isfinite(ratio) || ratio <= 0)
            reject(v, field, number_text(ratio) + " is not a positive ratio");
    }
    const tolerance_spec& tol = sc.measured.tolerance;
    for (const auto& [field, value] : {std::pair{"measured.tolerance.share", tol.share},
                                       std::pair{"measured.tolerance.ratio", tol.ratio},
                                       std::pair{"measured.tolerance.jratio", tol.jratio}})
        if (value && !(std::isfinite(*value) && *value >= 0))
            reject(v, field, number_text(*value) + " is not a tolerance (a number from 0 up)");
}

} // namespace detail

// Every error and every warning in the scenario.
inline validation check_scenario(const scenario& sc) {
    validation v;
    const detail::valid_bases b(sc);
    detail::check_machine(sc.machine, b, v);
    detail::check_rt_machine(sc.machine, b, v);
    detail::check_cpusets(sc, b, v);
    detail::check_cgroups(sc, b, v);
    detail::check_run(sc, b, v);
    detail::check_tasks(sc, b, v);
    detail::check_measured(sc, b, v);
    return v;
}

// Throws one scenario_error carrying every error (its field() and reason() are the first
// error's); returns the warnings, each "field: what". simulate() calls it first.
inline std::vector<std::string> validate(const scenario& sc) {
    validation v = check_scenario(sc);
    if (!v.errors.empty())
        throw scenario_error({}, std::move(v.errors));
    return std::move(v.warnings);
}

} // namespace libsched
