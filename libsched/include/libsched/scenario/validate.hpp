#pragma once
// Checks a scenario before it runs. An error throws scenario_error naming the field as a
// scenario file spells it ("machine.hz", "tasks[1].nice", "tasks[0].behaviour.run"); what
// still runs but may surprise comes back as a warning ("tasks[1].nice: 25 clamped to 19 as
// setpriority() does").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/sched/eevdf.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/tunables.hpp>
#include <libsched/sched/weight.hpp>
#include <map>
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
// setpriority() clamps any nice into [-20, 19]; a value further out than these is taken
// for a typo rather than clamped.
inline constexpr int min_clampable_nice = 2 * min_nice;
inline constexpr int max_clampable_nice = 2 * max_nice + 1;
inline constexpr std::array<int, 4> supported_hz = {100, 250, 300, 1000}; // CONFIG_HZ choices

namespace detail {

using warnings = std::vector<std::string>;

[[noreturn]] inline void fail(std::string field, std::string reason) {
    throw scenario_error(std::move(field), std::move(reason));
}

inline void warn(warnings& w, const std::string& field, const std::string& what) {
    w.push_back(field + ": " + what);
}

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

inline std::string feature_releases(const feature_info& fi) {
    if (fi.last == kernel_version{0, 0})
        return "it exists from " + fi.first.str();
    return "it exists from " + fi.first.str() + " to " + fi.last.str();
}

inline void check_tunable_overrides(const machine_spec& m, warnings& w) {
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
            fail(o.field, format_duration(*o.value) + " is not positive");
        if (*o.value > max_tunable_override)
            fail(o.field, format_duration(*o.value) + " is absurdly long (at most " +
                              format_duration(max_tunable_override) + ")");
        if (o.eevdf != m.kernel.is_eevdf())
            warn(w, o.field,
                 o.eevdf ? "has no effect before 6.6 (old CFS reads latency and the granularities)"
                         : "has no effect from 6.6 on (EEVDF reads base_slice)");
    }
}

inline void check_features(const machine_spec& m, warnings& w) {
    std::vector<std::string_view> names;
    for (const auto& fi : feature_table)
        names.push_back(fi.name);
    std::map<feature, std::string> seen;
    for (const auto& [name, on] : m.features) {
        const std::string field = "machine.features." + name;
        const auto f = feature_by_name(name);
        if (!f)
            fail(field, "unknown feature" + did_you_mean(name, names));
        if (const auto [it, fresh] = seen.emplace(*f, name); !fresh)
            fail(field, "names the same feature as machine.features." + it->second);
        const feature_info& fi = info(*f);
        if (feature_exists(*f, m.kernel))
            continue;
        const std::string absent = std::string{fi.kernel_name} + " is not in kernel " +
                                   m.kernel.str() + " (" + feature_releases(fi) + ")";
        if (on)
            fail(field, absent);
        warn(w, field, absent + "; switching it off changes nothing");
    }
}

inline void check_machine(const machine_spec& m, warnings& w) {
    if (m.cpus < 1 || m.cpus > max_cpus)
        fail("machine.cpus",
             std::to_string(m.cpus) + " is outside [1, " + std::to_string(max_cpus) + "]");
    if (m.online_cpus < 0)
        fail("machine.online_cpus",
             std::to_string(m.online_cpus) + " is negative (0 means as many as machine.cpus)");
    if (m.cpus > 1)
        warn(w, "machine.cpus",
             "each task stays on the CPU it is given at fork (the allowed CPU with the fewest "
             "tasks); wakeup placement and load balancing are not modelled yet");
    if (m.online_cpus > 0 && m.online_cpus < m.cpus)
        warn(w, "machine.online_cpus",
             std::to_string(m.online_cpus) + " is fewer than the " + count_text(m.cpus, "CPU") +
                 " simulated");
    if (std::find(supported_hz.begin(), supported_hz.end(), m.hz) == supported_hz.end())
        fail("machine.hz",
             std::to_string(m.hz) + " is not a CONFIG_HZ choice (100, 250, 300 or 1000)");
    if (m.kernel < oldest_modelled_kernel || m.kernel > newest_modelled_kernel)
        fail("machine.kernel", m.kernel.str() + " is outside the modelled releases " +
                                   oldest_modelled_kernel.str() + " to " +
                                   newest_modelled_kernel.str());
    // Stable updates pick up later fixes (e.g. 2ae891b82695's 0.70 ms base slice reached
    // 6.6.y and 6.14.y); the model follows the release as first published.
    if (m.kernel.patch > 0 && m.kernel.is_eevdf() && m.kernel < kernel_version{6, 15} &&
        !m.base_slice_ns)
        warn(w, "machine.kernel",
             m.kernel.str() + " is modelled as " + std::to_string(m.kernel.major) + "." +
                 std::to_string(m.kernel.minor) +
                 "; stable updates may carry later scheduler fixes such as the 0.70 ms base "
                 "slice of 6.15: read /sys/kernel/debug/sched/base_slice_ns and set "
                 "machine.base_slice");
    check_tunable_overrides(m, w);
    check_features(m, w);
    // Both happen within one tick period, or the tick would never leave time to run.
    const duration tick = default_tunables(m.kernel, m.cpus, m.hz).tick_nsec;
    const std::array<std::pair<const char*, duration>, 2> within_tick = {{
        {"machine.resched_latency", m.resched_latency_ns},
        {"machine.tick_irq", m.tick_irq_ns},
    }};
    for (const auto& [field, value] : within_tick) {
        if (value < 0)
            fail(field, format_duration(value) + " is negative");
        if (value >= tick)
            fail(field, format_duration(value) + " is not below the tick (" +
                            format_duration(tick) + " at HZ " + std::to_string(m.hz) + ")");
    }
}

inline void check_run(const scenario& sc) {
    if (sc.length <= 0)
        fail("length", format_duration(sc.length) + " is not positive");
    // Far beyond any experiment, and keeps every sum of times clear of overflow.
    constexpr duration max_length = 10'000'000 * nsec_per_sec;
    if (sc.length > max_length)
        fail("length", format_duration(sc.length) + " is longer than " +
                           format_duration(max_length) + " (about 116 days)");
    if (sc.window_start < 0)
        fail("window.start", format_duration(sc.window_start) + " is negative");
    if (sc.window_end && *sc.window_end > sc.length)
        fail("window.end",
             format_duration(*sc.window_end) + " is after the end of " + run_interval(sc.length));
    if (sc.window_start >= sc.window_stop())
        fail("window", "[" + format_duration(sc.window_start) + ", " +
                           format_duration(sc.window_stop()) + ") is empty");
    if (sc.repetitions < 1 || sc.repetitions > max_repetitions)
        fail("repetitions", std::to_string(sc.repetitions) + " is outside [1, " +
                                std::to_string(max_repetitions) + "]");
}

inline void check_nice(const std::string& field, int nice, warnings& w) {
    if (nice < min_clampable_nice || nice > max_clampable_nice)
        fail(field, std::to_string(nice) + " is outside [" + std::to_string(min_nice) + ", " +
                        std::to_string(max_nice) + "]");
    if (const nice_clamp c = clamp_nice(nice); c.clamped)
        warn(w, field,
             std::to_string(nice) + " clamped to " + std::to_string(c.nice) +
                 " as setpriority() does");
}

// run: whether the distribution is a run length, which must leave the task some CPU time.
inline void check_distribution(const std::string& field, const distribution& d, bool run) {
    using kind = distribution::kind;
    switch (d.type) {
    case kind::constant:
        if (d.a < 0)
            fail(field, format_duration(d.a) + " is negative");
        if (run && d.a == 0)
            fail(field, "0s: a task must run for some time");
        break;
    case kind::uniform:
        if (d.a < 0)
            fail(field + ".low", format_duration(d.a) + " is negative");
        if (d.a > d.b)
            fail(field, "low " + format_duration(d.a) + " is above high " + format_duration(d.b));
        if (run && d.b == 0)
            fail(field + ".high", "0s: a task must run for some time");
        break;
    case kind::exponential:
        if (d.a <= 0)
            fail(field + ".mean", format_duration(d.a) + " is not positive");
        break;
    }
}

inline void check_behaviour(const std::string& field, const behaviour_spec& b) {
    using kind = behaviour_spec::kind;
    switch (b.type) {
    case kind::burner:
        break;
    case kind::periodic:
        if (b.run <= 0)
            fail(field + ".run", format_duration(b.run) + " is not positive");
        if (b.sleep < 0)
            fail(field + ".sleep", format_duration(b.sleep) + " is negative");
        break;
    case kind::random:
        check_distribution(field + ".run", b.run_dist, true);
        check_distribution(field + ".sleep", b.sleep_dist, false);
        break;
    }
}

inline void check_task(const scenario& sc, std::size_t i, warnings& w) {
    const task_spec& t = sc.tasks[i];
    const std::string at = "tasks[" + std::to_string(i) + "]";
    if (t.count < 1 || t.count > max_task_count)
        fail(at + ".count",
             std::to_string(t.count) + " is outside [1, " + std::to_string(max_task_count) + "]");
    check_nice(at + ".nice", t.nice, w);

    std::set<int> allowed;
    for (const int cpu : t.affinity) {
        if (cpu < 0 || cpu >= sc.machine.cpus)
            fail(at + ".affinity", "affinity to CPU " + std::to_string(cpu) +
                                       " but the machine has " +
                                       count_text(sc.machine.cpus, "CPU"));
        if (!allowed.insert(cpu).second)
            fail(at + ".affinity", "CPU " + std::to_string(cpu) + " is listed twice");
    }
    check_behaviour(at + ".behaviour", t.behaviour);

    if (t.start < 0 || t.start >= sc.length)
        fail(at + ".start", format_duration(t.start) + " is outside " + run_interval(sc.length));
    if (t.stagger < 0)
        fail(at + ".stagger", format_duration(t.stagger) + " is negative");
    if (t.stagger > 0) {
        // Instance k forks at start + k * stagger; the first one at or past the end never runs.
        const duration late = (sc.length - t.start - 1) / t.stagger + 1;
        if (late < t.count)
            warn(w, at + ".stagger",
                 "instances " + std::to_string(late) + " to " + std::to_string(t.count - 1) +
                     " would fork after the end of the run and never start");
    }
    if (t.slice) {
        if (sc.machine.kernel < kernel_version{6, 12})
            fail(at + ".slice", "custom slices (sched_setattr() sched_runtime) exist from 6.12; "
                                "the machine runs " +
                                    sc.machine.kernel.str());
        if (*t.slice <= 0)
            fail(at + ".slice", format_duration(*t.slice) + " is not positive");
        if (eevdf::clamp_custom_slice(*t.slice) != *t.slice)
            warn(w, at + ".slice",
                 format_duration(*t.slice) + " clamped to " +
                     format_duration(eevdf::clamp_custom_slice(*t.slice)) +
                     " as __setparam_fair() does");
    }
    if (!(t.system_share >= 0.0 && t.system_share <= 1.0))
        fail(at + ".system_share", number_text(t.system_share) + " is outside [0, 1]");
    if (t.lifetime && *t.lifetime <= 0)
        fail(at + ".lifetime", format_duration(*t.lifetime) + " is not positive");
    if (t.exit_at && *t.exit_at <= t.start)
        fail(at + ".exit_at", format_duration(*t.exit_at) + " is not after the task's start (" +
                                  format_duration(t.start) + ")");
    for (std::size_t j = 0; j < t.renice.size(); ++j) {
        const std::string rf = at + ".renice[" + std::to_string(j) + "]";
        const renice_spec& r = t.renice[j];
        if (r.at < 0 || r.at >= sc.length)
            fail(rf + ".at", format_duration(r.at) + " is outside " + run_interval(sc.length));
        check_nice(rf + ".nice", r.nice, w);
    }
}

inline void check_tasks(const scenario& sc, warnings& w) {
    if (sc.tasks.empty())
        fail("tasks", "no tasks; a scenario needs at least one [[tasks]] table");
    std::map<std::string, std::size_t> names;
    for (std::size_t i = 0; i < sc.tasks.size(); ++i) {
        const std::string& name = sc.tasks[i].name;
        const std::string field = "tasks[" + std::to_string(i) + "].name";
        if (name.empty())
            fail(field, "missing or empty; every [[tasks]] entry needs a name");
        if (name.find('.') != std::string::npos)
            fail(field, "\"" + name + "\" contains '.', which instance names use (" + name +
                            ".0, " + name + ".1, ...)");
        if (const auto [it, fresh] = names.emplace(name, i); !fresh)
            fail(field, "\"" + name + "\" is already the name of tasks[" +
                            std::to_string(it->second) + "]");
        check_task(sc, i, w);
    }
}

inline void check_measured(const scenario& sc) {
    std::vector<std::string_view> entries;
    std::string listed;
    for (const auto& t : sc.tasks) {
        entries.push_back(t.name);
        listed += (listed.empty() ? "" : ", ") + t.name;
    }
    const auto check_entry = [&](const std::string& field, const std::string& entry) {
        if (std::find(entries.begin(), entries.end(), entry) == entries.end())
            fail(field, "\"" + entry + "\" names no [[tasks]] entry" +
                            did_you_mean(entry, entries) + " (entries: " + listed + ")");
    };
    if (!sc.reference.empty())
        check_entry("reference", sc.reference);
    for (const auto& [entry, share] : sc.measured.share) {
        const std::string field = "measured.share." + entry;
        check_entry(field, entry);
        if (!std::isfinite(share) || share < 0 || share > sc.machine.cpus)
            fail(field, number_text(share) + " is not a share of the CPU time (0 to " +
                            std::to_string(sc.machine.cpus) + ")");
    }
    if (!sc.measured.ratio.empty() && sc.reference.empty())
        fail("measured.ratio", "ratios need a reference entry; set reference");
    for (const auto& [entry, ratio] : sc.measured.ratio) {
        const std::string field = "measured.ratio." + entry;
        check_entry(field, entry);
        if (!std::isfinite(ratio) || ratio <= 0)
            fail(field, number_text(ratio) + " is not a positive ratio");
    }
    const tolerance_spec& tol = sc.measured.tolerance;
    for (const auto& [field, value] : {std::pair{"measured.tolerance.share", tol.share},
                                       std::pair{"measured.tolerance.ratio", tol.ratio}})
        if (value && !(std::isfinite(*value) && *value >= 0))
            fail(field, number_text(*value) + " is not a tolerance (a number from 0 up)");
}

} // namespace detail

// Throws scenario_error for the first error; returns the warnings (each "field: what").
inline std::vector<std::string> validate(const scenario& sc) {
    detail::warnings w;
    detail::check_machine(sc.machine, w);
    detail::check_run(sc);
    detail::check_tasks(sc, w);
    detail::check_measured(sc);
    return w;
}

} // namespace libsched
