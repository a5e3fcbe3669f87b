#pragma once
// What waking costs on the machine this runs on, read from procfs and sysfs into the
// machine fields (machine.timer_slack, machine.idle_exit_latency):
//   /proc/self/timerslack_ns                        the reading process's timer slack (4.6+),
//                                                   what a task started from it inherits
//   devices/system/cpu/cpuidle/current_driver       the cpuidle driver (intel_idle, haltpoll..)
//   devices/system/cpu/cpuN/cpuidle/stateM/         name, latency and residency (us), disable
// The idle exit latency is that of the deepest enabled state of any online CPU: the state
// the menu and teo governors choose for an idle period longer than its target residency,
// which a periodic task's sleep of milliseconds is. Shorter idle periods get shallower
// states (and the haltpoll governor polls before it halts); the model has one value.
// Without a cpuidle driver (no stateM directories) the CPU idles in the architecture's
// default way and no value is read. A file that exists but cannot be read or parsed is a
// host_topology_error naming it, as for the topology.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <libsched/io/host_topology.hpp>
#include <libsched/sched/types.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace libsched {

struct host_idle_state {
    std::string name;
    duration exit_latency = 0;     // latency, us in sysfs
    duration target_residency = 0; // residency, us in sysfs
    bool disabled = false;         // disable: by the user (or the driver's default)
};

struct host_wakeup {
    std::optional<duration> timer_slack; // nothing without the procfs file
    std::string cpuidle_driver;          // empty if none
    // CPU 0's idle states in the driver's order (shallowest first), as an example.
    std::vector<host_idle_state> states;
    // The deepest enabled state's exit latency, the largest over the online CPUs.
    std::optional<duration> idle_exit_latency;
    std::string idle_exit_state; // its name
};

namespace detail {

inline host_idle_state read_idle_state(const std::filesystem::path& dir) {
    const auto microseconds = [&dir](const char* file) {
        const auto v = read_sysfs_int(dir / file);
        if (v && *v < 0)
            throw host_topology_error(dir / file, "is negative");
        return v ? duration{*v} * nsec_per_usec : duration{0};
    };
    host_idle_state s;
    s.name = read_sysfs_file(dir / "name").value_or(dir.filename().string());
    s.exit_latency = microseconds("latency");
    s.target_residency = microseconds("residency");
    s.disabled = read_sysfs_int(dir / "disable").value_or(0) != 0;
    return s;
}

} // namespace detail

inline host_wakeup read_host_wakeup(const std::filesystem::path& proc = "/proc",
                                    const std::filesystem::path& sysfs = "/sys") {
    using namespace detail;
    host_wakeup w;
    const std::filesystem::path slack_file = proc / "self" / "timerslack_ns";
    if (const auto text = read_sysfs_file(slack_file)) {
        long long ns = 0;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), ns);
        if (ec != std::errc{} || end != text->data() + text->size() || ns < 0)
            throw host_topology_error(slack_file, "\"" + *text + "\" is not a count of ns");
        w.timer_slack = ns;
    }
    const std::filesystem::path cpu = sysfs / "devices" / "system" / "cpu";
    w.cpuidle_driver = read_sysfs_file(cpu / "cpuidle" / "current_driver").value_or("");
    const std::vector<int> online =
        read_cpu_list(cpu / "online").value_or(numbered_entries(cpu, "cpu"));
    for (const int c : online) {
        const std::filesystem::path idle = cpu / ("cpu" + std::to_string(c)) / "cpuidle";
        std::vector<host_idle_state> states;
        for (const int n : numbered_entries(idle, "state"))
            states.push_back(read_idle_state(idle / ("state" + std::to_string(n))));
        const auto deepest = std::find_if(states.rbegin(), states.rend(),
                                          [](const host_idle_state& s) { return !s.disabled; });
        if (deepest != states.rend() &&
            (!w.idle_exit_latency || deepest->exit_latency > *w.idle_exit_latency)) {
            w.idle_exit_latency = deepest->exit_latency;
            w.idle_exit_state = deepest->name;
        }
        if (c == online.front())
            w.states = std::move(states);
    }
    return w;
}

} // namespace libsched
