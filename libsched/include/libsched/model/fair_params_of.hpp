#pragma once
// The fair class's parameters a scenario's machine stands for: release, tunables (the
// release's defaults, scaled for the online CPUs, then the scenario's overrides), features.
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/fair_params.hpp>

namespace libsched {

inline fair_params make_fair_params(const machine_spec& m) {
    const int online = m.online_cpus > 0 ? m.online_cpus : m.cpus;
    sched_tunables t = default_tunables(m.kernel, online, m.hz, m.scaling);
    if (m.base_slice_ns)
        t.base_slice = *m.base_slice_ns;
    if (m.latency_ns)
        t.latency = *m.latency_ns;
    if (m.min_granularity_ns)
        t.min_granularity = *m.min_granularity_ns;
    if (m.wakeup_granularity_ns)
        t.wakeup_granularity = *m.wakeup_granularity_ns;
    t.cfs_bandwidth_slice = m.cfs_bandwidth_slice_ns;
    // Before 5.13 the sysctl handler (sched_proc_update_handler) re-derived sched_nr_latency
    // from the values written; the debugfs files of 5.13+ are plain numbers, so it stays 8.
    if (m.kernel < kernel_version{5, 13})
        t.nr_latency =
            static_cast<unsigned>((t.latency + t.min_granularity - 1) / t.min_granularity);
    if (m.sched_rt_period)
        t.rt_period = *m.sched_rt_period;
    if (m.sched_rt_runtime)
        t.rt_runtime = *m.sched_rt_runtime;
    if (m.sched_rr_timeslice) // sched_rr_handler(): milliseconds to jiffies
        t.rr_timeslice =
            msecs_to_jiffies(static_cast<u64>(*m.sched_rr_timeslice / nsec_per_msec), m.hz);
    t.rt_group_sched = m.rt_group_sched;
    if (m.fair_server_runtime)
        t.fair_server_runtime = *m.fair_server_runtime;
    if (m.fair_server_period)
        t.fair_server_period = *m.fair_server_period;
    fair_params p(m.kernel, t, m.delta_mode);
    p.lazy_preemption = effective_preempt(m) == preempt_mode::lazy;
    for (const auto& [name, on] : m.features)
        if (auto f = feature_by_name(name); f && feature_exists(*f, m.kernel))
            p.feat.set(*f, on);
    return p;
}

} // namespace libsched
