#pragma once
// Rules that stable updates changed: a fix merged for one release and backported to point
// releases of older series. A release's patch level ("6.12.31") selects them; each entry
// names the first point release of a series found in the stable review mails.
#include <array>
#include <libsched/sched/kernel_version.hpp>
#include <optional>
#include <string_view>

namespace libsched {

// The first point release of a series that took a fix; {0, 0} (the default): none.
struct backport : kernel_version {
    constexpr backport() : kernel_version(0, 0) {}
    constexpr backport(int maj, int min, int pat = 0) : kernel_version(maj, min, pat) {}
};

struct stable_fix {
    std::string_view commit;           // the upstream commit
    std::string_view summary;          // the rule it brings
    kernel_version mainline;           // the first release that has it
    std::array<backport, 6> backports; // first point release per series
};

// The point release of v's series that took the fix in a stable update, if one did, so
// that v's patch level decides whether it has it.
inline constexpr std::optional<kernel_version> series_backport(kernel_version v,
                                                               const stable_fix& f) {
    for (const kernel_version& b : f.backports)
        if (b.major != 0 && v == b)
            return b;
    return std::nullopt;
}

// Whether release v has the fix: from its mainline release on, or in a series it was
// backported to from that point release on.
inline constexpr bool carries(kernel_version v, const stable_fix& f) {
    if (v >= f.mainline)
        return true;
    const auto b = series_backport(v, f);
    return b && v.patch >= b->patch;
}

// 2ae891b82695 "sched: Reduce the default slice to avoid tasks getting an extra tick":
// 6.15; stable reviews 6.6.93-rc1 (2 Jun 2025), 6.12.31-rc1 and 6.14.9-rc1 (27 May 2025).
inline constexpr stable_fix reduced_base_slice{"2ae891b82695",
                                               "base slice 0.70 ms x factor (was 0.75 ms)",
                                               {6, 15},
                                               {{{6, 6, 93}, {6, 12, 31}, {6, 14, 9}}}};

// f553741ac8c0 "sched: Cancel the slice protection of the idle entity": 6.15; stable
// reviews 6.12.23-rc1, 6.13.11-rc1 and 6.14.2-rc1 (8 Apr 2025). No 6.6.y backport found.
inline constexpr stable_fix idle_loses_protection{
    "f553741ac8c0",
    "a SCHED_IDLE task preempted by a normal wakee loses its slice protection",
    {6, 15},
    {{{6, 12, 23}, {6, 13, 11}, {6, 14, 2}}}};

// 493afbd187c4 "sched/fair: Fix NEXT_BUDDY": 6.13; stable review 6.12.7-rc1 (23 Dec 2024).
inline constexpr stable_fix next_buddy_not_delayed{
    "493afbd187c4", "NEXT_BUDDY does not mark a delayed wakee", {6, 13}, {{{6, 12, 7}}}};

// 2a77e4be12cb "sched/fair: Untangle NEXT_BUDDY and pick_next_task()": 6.14 (the 6.14
// merge, after 6.13's NEXT_BUDDY fix); queued for 6.12.y and 6.13.y on 4 Feb 2025, after
// 6.12.12 and 6.13.1, so 6.12.13 and 6.13.2 (whose source has it).
inline constexpr stable_fix untangled_next_buddy{
    "2a77e4be12cb",
    "PICK_BUDDY (on), not NEXT_BUDDY (off), lets the pick honour the next buddy",
    {6, 14},
    {{{6, 12, 13}, {6, 13, 2}}}};

// e837456fdca8 "sched/fair: Reimplement NEXT_BUDDY to align with EEVDF goals": 6.19, as
// it stands there after 15257cc2f905 ("Revert force wakeup preemption", 6.19-rc7); the
// feature NEXT_BUDDY stays off. The stable tree's push of Linux 6.18.33 (23 May 2026)
// carries both (and two later fixes of the same function, not modelled: docs/model.md).
inline constexpr stable_fix next_buddy_rework{
    "e837456fdca8",
    "the wakeup test of the NEXT_BUDDY rework: a fork or a delayed wakee never preempts, "
    "the pick honours the next buddy ahead of curr's protection, and a wakee that does not "
    "preempt shrinks that protection",
    {6, 19},
    {{{6, 18, 33}}}};

// 79104becf42b "sched/fair: Forfeit vruntime on yield": 6.19; queued for the 6.12, 6.17
// and 6.18 stable trees on 16 Dec 2025: 6.12.63, 6.17.13-rc1 and 6.18.2-rc1. No 6.6.y
// backport found.
inline constexpr stable_fix yield_forfeits_vruntime{
    "79104becf42b",
    "sched_yield() by an eligible task forfeits the rest of its slice (vruntime = deadline)",
    {6, 19},
    {{{6, 12, 63}, {6, 17, 13}, {6, 18, 2}}}};

// aa3ee4f0b754 "sched/fair: Fixup wake_up_sync() vs DELAYED_DEQUEUE": 6.16; stable
// review of 8 Jul 2025 for 6.12.37 and 6.15.6 (the 6.12 one with its dependencies
// 3edcabcfc253 and 0cc4721a7182).
inline constexpr stable_fix sync_ignores_delayed{
    "aa3ee4f0b754",
    "a sync wakeup counts the waker's CPU as running only the waker when its other queued "
    "tasks are all delayed",
    {6, 16},
    {{{6, 12, 37}, {6, 15, 6}}}};

// cccb45d7c429 "sched/deadline: Less agressive dl_server handling" (6.17-rc1) with
// 4ae8d9aa9f9d (no server_has_tasks) and a3a70caf7906 (6.17): the fair server is no longer
// stopped when its fair tasks leave, only when its pick finds none. The series was
// backported to 6.12.92 (stable review of 28 May 2026).
inline constexpr stable_fix lazy_dl_server{
    "cccb45d7c429",
    "the fair server stays started when its fair tasks leave; it stops when its pick finds none",
    {6, 17},
    {{{6, 12, 92}}}};

// 115135422562 "sched/deadline: Fix 'stuck' dl_server": 6.19; 6.12.69 (its -rc1 review)
// and 6.18.9 (the 6.18.8 and 6.18.9 sources differ by it).
inline constexpr stable_fix dl_server_defers_again{
    "115135422562",
    "a fair server restarted after its deadline, or with too much budget left, defers again",
    {6, 19},
    {{{6, 12, 69}, {6, 18, 9}}}};

// 14a857056466 "sched/deadline: Use revised wakeup rule for dl_server": sent for 7.0;
// 6.18.24 (the 6.18.23 and 6.18.24 sources differ by it) and 6.19.14 (its -rc1 review, 20
// Apr 2026). In 6.12.y it appears between the 6.12.75 and 6.12.83 sources; 6.12.83 is the
// first release seen with it.
inline constexpr stable_fix dl_server_revised_wakeup{
    "14a857056466",
    "a fair server restarted before its deadline with too much budget keeps the deadline and "
    "cuts the budget to its density times the time left",
    {7, 0},
    {{{6, 12, 83}, {6, 18, 24}, {6, 19, 14}}}};

// 1842bf97af10 "sched/deadline: Use revised wakeup rule only for running dl_server": sent
// for 7.2; 6.12.102 and 6.18.44 (the 6.18.43 and 6.18.44 sources differ by it).
inline constexpr stable_fix dl_server_revised_wakeup_running{
    "1842bf97af10",
    "the revised wakeup rule only for a fair server handling a starvation",
    {7, 2},
    {{{6, 12, 102}, {6, 18, 44}}}};

// The 6.18.17 update (the 6.18.16 and 6.18.17 sources differ by these three, with the
// result-neutral zero_vruntime tracking of b3d99f43c72b) and 6.19.7 (its -rc1 review's
// shortlog); sent for 7.0.
// 6e3c0a4e1ad1 "sched/fair: Fix lag clamp".
inline constexpr stable_fix lag_clamp_max_slice{
    "6e3c0a4e1ad1",
    "a dequeued entity's lag is clamped at the queue's largest slice plus a tick, not at "
    "max(2 x its own slice, a tick)",
    {7, 0},
    {{{6, 18, 17}, {6, 19, 7}}}};

// bcd74b2ffdd0 "sched/fair: Only set slice protection at pick time".
inline constexpr stable_fix protect_slice_at_pick{
    "bcd74b2ffdd0",
    "the protected slice is set when an entity is picked, not when a running task is set "
    "again after a change (renice)",
    {7, 0},
    {{{6, 18, 17}, {6, 19, 7}}}};

// ff38424030f9 "sched/eevdf: Update se->vprot in reweight_entity()".
inline constexpr stable_fix reweight_keeps_vprot{
    "ff38424030f9",
    "a reweighted running entity keeps the rest of its protected slice, scaled to its new "
    "weight, relative to its new vruntime",
    {7, 0},
    {{{6, 18, 17}, {6, 19, 7}}}};

// 82d6e01a0699 "sched/fair: Only update stats for allowed CPUs when looking for dst
// group": 6.19 (tip sched/core, 16 Oct 2025); 6.18.39 (the 6.18.38 and 6.18.39 sources
// differ by it). Not in 6.12.94.
inline constexpr stable_fix idlest_group_allowed_cpus{
    "82d6e01a0699",
    "the slow path's group statistics (fork placement) count only the CPUs the task may use",
    {6, 19},
    {{{6, 18, 39}}}};

// ac8e69e69363 "sched/fair: Fix wakeup_preempt_fair() vs delayed dequeue" with 9f6d929ee2c6
// ("... for not waking up task"): 7.1; 6.18.33 ("[PATCH 6.18 788/957]" and 877/957) and
// 7.0.10 (the stable pushes of 23 May 2026); none found for 6.12.y or 6.19.y.
inline constexpr stable_fix wakeup_pick_dequeues_delayed{
    "ac8e69e69363",
    "the wakeup's pick dequeues a delayed entity it finds and picks again while the queue has "
    "entities left",
    {7, 1},
    {{{6, 18, 33}, {7, 0, 10}}}};

// ca125231dd29 "sched/fair: Fix unfairness caused by stalled tg_load_avg_contrib when the
// last task migrates out" (Fixes 1528c661c24b, 6.7's rate limit): 6.19 (sched-urgent of
// 6 Dec 2025); 6.12.63 (its -rc1 review), 6.17.13 and 6.18.2 (the stable pushes).
inline constexpr stable_fix stalled_tg_load_withdrawn{
    "ca125231dd29",
    "a group queue stays on the leaf list until its contribution to the group's load is "
    "withdrawn, so a group's load on a CPU it left no longer lingers",
    {6, 19},
    {{{6, 12, 63}, {6, 17, 13}, {6, 18, 2}}}};

// 33cf66d88306 "sched/fair: Proportional newidle balance", after d206fbad9328 "Revert
// max_newidle_lb_cost bump": 6.19 (sched-core-2025-12-01); with the revert in 6.1.160
// and 6.6.120, after it in 6.12.65 and 6.18.5 (their -rc1 pushes and reviews).
inline constexpr stable_fix proportional_newidle{
    "33cf66d88306",
    "NI_RANDOM: a CPU about to go idle tries each level's newidle balance only with the "
    "probability of that level's recent success",
    {6, 19},
    {{{6, 1, 160}, {6, 6, 120}, {6, 12, 65}, {6, 18, 5}}}};

// dd29c017aed6 "sched/rt: Have RT_PUSH_IPI be default off for non PREEMPT_RT" (tip
// sched/core, 19 May 2026; sent for 7.2): CVE-2026-64374, fixed in 5.10.261, 5.15.212,
// 6.1.178, 6.6.145, 6.12.96, 6.18.39 and 7.1.4; 6.19.y ended without it.
inline constexpr stable_fix rt_push_ipi_off{
    "dd29c017aed6",
    "RT_PUSH_IPI is off by default without CONFIG_PREEMPT_RT: a CPU that lowers its priority "
    "pulls RT tasks itself instead of having the overloaded CPUs push them",
    {7, 2},
    {{{5, 10, 261}, {5, 15, 212}, {6, 1, 178}, {6, 6, 145}, {6, 12, 96}, {6, 18, 39}}}};

// 80390ead2080 "sched/fair: Separate se->vlag from se->vprot": 7.0 (tip sched/core, Dec
// 2025); 6.18.45 (the 6.18.y push of 19 Aug 2026, with the revert of 6d71a9c61604). No
// 6.19.y backport found (6.19.9 still has the union). From 6.17 (74eec63661d4) the two
// were one union.
inline constexpr stable_fix vlag_vprot_apart{
    "80390ead2080",
    "vlag and vprot are separate fields: a lag written while the entity runs no longer takes "
    "the place of its protected slice",
    {7, 0},
    {{{6, 18, 45}}}};

inline constexpr std::array<const stable_fix*, 20> stable_fixes = {
    &reduced_base_slice,
    &idle_loses_protection,
    &next_buddy_not_delayed,
    &untangled_next_buddy,
    &next_buddy_rework,
    &yield_forfeits_vruntime,
    &sync_ignores_delayed,
    &lazy_dl_server,
    &dl_server_defers_again,
    &dl_server_revised_wakeup,
    &dl_server_revised_wakeup_running,
    &lag_clamp_max_slice,
    &protect_slice_at_pick,
    &reweight_keeps_vprot,
    &idlest_group_allowed_cpus,
    &wakeup_pick_dequeues_delayed,
    &stalled_tg_load_withdrawn,
    &proportional_newidle,
    &rt_push_ipi_off,
    &vlag_vprot_apart};

} // namespace libsched
