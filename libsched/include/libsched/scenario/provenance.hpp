#pragma once
// Where a result's numbers came from. One record for every source: a simulation fills it
// from the parameters the model ran with; a measurement will fill it from the host it ran on
// (its kernel, HZ, tunables and features as debugfs shows them) and leave the model's own
// settings out.
#include <cstdint>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/fair_params.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/version.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace libsched {

enum class result_source { simulated, measured };

// What only a model has: no real machine has a seed or a resched latency one could set.
struct model_settings {
    calc_delta_mode delta_mode = calc_delta_mode::inverse_multiply;
    duration resched_latency_ns = 0;
    duration tick_irq_ns = 0;
    duration timer_slack_ns = 0;
    duration idle_exit_latency_ns = 0;
    duration ipi_latency_ns = 0;
    distribution tick_latency{};
    distribution sleep_cost{};
    std::uint64_t seed = 0;               // of the first repetition; repetition i uses seed + i
    std::optional<double> smt_throughput; // the assumed SMT throughput, if modelled
    // NI_RANDOM's starting success rate per CPU (machine.newidle_ratio, else sd_init()'s
    // 512); empty where the release has no NI_RANDOM or the machine one CPU.
    std::vector<int> newidle_ratio;
};

struct provenance {
    result_source source = result_source::simulated;
    std::string producer = "libsched";
    std::string producer_version = LIBSCHED_VERSION_STRING;
    kernel_version kernel;
    int hz = 250;
    int cpus = 1;        // CPUs the tasks ran on
    int online_cpus = 1; // CPUs the kernel counts when it scales its tunables
    // In effect: the release's defaults, scaled for online_cpus, then any overrides.
    sched_tunables tunables;
    // Every feature the release has, by its lower-case name, on or off.
    std::map<std::string, bool> features;
    bool irq_time_accounting = true; // CONFIG_IRQ_TIME_ACCOUNTING
    bool nohz_idle = true;           // CONFIG_NO_HZ_IDLE
    // The preemption model; a measurement leaves it unset where the host does not show it.
    std::optional<preempt_mode> preempt;
    std::optional<model_settings> model; // simulated results only
    // Host facts of a measurement (uname -n, uname -r); unset for a simulation.
    std::optional<std::string> host_name;
    std::optional<std::string> host_release;
};

// The provenance of a simulation of sc whose first repetition ran with seed; params are the
// fair class's parameters the model ran with (make_fair_params(sc.machine)).
inline provenance simulated_provenance(const scenario& sc, const fair_params& params,
                                       std::uint64_t seed) {
    const machine_spec& m = sc.machine;
    provenance p;
    p.source = result_source::simulated;
    p.kernel = m.kernel;
    p.hz = m.hz;
    p.cpus = m.cpus;
    p.online_cpus = m.online_cpus > 0 ? m.online_cpus : m.cpus;
    p.tunables = params.tun;
    for (std::size_t i = 0; i < feature_count; ++i) {
        const auto f = static_cast<feature>(i);
        if (feature_exists(f, m.kernel))
            p.features.emplace(feature_table[i].name, params.feat(f));
    }
    p.irq_time_accounting = m.irq_time_accounting;
    p.nohz_idle = m.nohz_idle;
    p.preempt = effective_preempt(m);
    p.model = model_settings{params.delta_mode,
                             m.resched_latency_ns,
                             m.tick_irq_ns,
                             m.timer_slack_ns,
                             m.idle_exit_latency_ns,
                             m.ipi_latency_ns,
                             m.tick_latency,
                             m.sleep_cost,
                             seed,
                             m.smt_throughput,
                             {}};
    if (m.cpus > 1 && feature_exists(feature::ni_random, m.kernel))
        for (int c = 0; c < m.cpus; ++c)
            p.model->newidle_ratio.push_back(newidle_ratio_of(m, c));
    return p;
}

} // namespace libsched
