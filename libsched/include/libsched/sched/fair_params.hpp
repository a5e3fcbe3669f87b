#pragma once
// Everything the fair class reads besides its queues: release, features, tunables.
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/flags.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/sched_entity.hpp>
#include <libsched/sched/tunables.hpp>

namespace libsched {

struct fair_params {
    const kernel_version version{}; // fixed: the release tests below read it as series_
    sched_features feat;
    sched_tunables tun;
    calc_delta_mode delta_mode = calc_delta_mode::inverse_multiply;
    // PREEMPT_LAZY (6.13+): the class's resched_curr_lazy() sets TIF_NEED_RESCHED_LAZY.
    bool lazy_preemption = false;

    fair_params() = default;
    fair_params(kernel_version v, sched_tunables t,
                calc_delta_mode m = calc_delta_mode::inverse_multiply)
        : version(v), feat(v), tun(t), delta_mode(m) {}

    // The hot path asks these at every event: one load and one comparison each.
    bool since(int major, int minor) const {
        return series_ >= kernel_version{major, minor}.series();
    }
    bool eevdf() const { return series_ >= first_eevdf_kernel.series(); }
    // 6.17 up to 80390ead2080 (7.0, 6.18.45): sched_entity keeps vlag and vprot in one union.
    bool vprot_shares_vlag() const { return vprot_shares_vlag_; }
    // Whether the release, at its patch level, has a fix that stable updates took.
    bool carries(const stable_fix& f) const { return libsched::carries(version, f); }
    // carries(next_buddy_rework), asked at every pick: kept.
    bool reworked_next_buddy() const { return reworked_next_buddy_; }
    // The run-queue tree's order: by deadline for EEVDF (as 6.8+; 6.6-6.7 ordered by
    // vruntime, with the same picks but among equal deadlines), by vruntime for old CFS.
    bool timeline_by_deadline() const { return eevdf(); }

    u64 delta_fair(u64 delta, sched_entity& se) const {
        return calc_delta_fair(delta, se.load, delta_mode);
    }

private:
    std::int64_t series_ = version.series();
    bool reworked_next_buddy_ = libsched::carries(version, next_buddy_rework);
    bool vprot_shares_vlag_ = since(6, 17) && !libsched::carries(version, vlag_vprot_apart);
};

} // namespace libsched
