#pragma once
// Where a waking or new fair task goes (kernel/sched/fair.c select_task_rq_fair): forks
// take the slow path (find_idlest_cpu() down the domains that balance forks); wakeups
// the fast path (wake_affine(), then select_idle_sibling() in the target's LLC).
#include <libsched/des/simulator.hpp>
#include <libsched/sched/balance_stats.hpp>
#include <libsched/sched/jiffies.hpp>
#include <libsched/sched/sched_domain.hpp>
#include <limits>
#include <vector>

namespace libsched {

class select_task_rq_fair {
public:
    select_task_rq_fair(const fair_params& params, sched_domains& sd, std::vector<rq*> rqs,
                        const des::simulator& sim, const jiffies_clock& jiffies)
        : p_(params), sd_(sd), rqs_(std::move(rqs)), sim_(sim), jiffies_(jiffies) {}

    // select_task_rq_fair(p, prev_cpu, wake_flags) run on this_cpu (the waker's or the
    // forking parent's CPU), whose running task is `current`: the waker, or the task a
    // timer's interrupt found there (the idle task on an idle CPU).
    int operator()(task& p, int prev_cpu, int this_cpu, wake_flags wf) {
        const bool fork = has(wf, wake_flags::fork);
        task& current = *cpu_rq(this_cpu).curr;
        // The waker is running a step, so it is not exiting (PF_EXITING).
        const bool sync = has(wf, wake_flags::sync);
        sched_domain* sd = nullptr;
        int new_cpu = prev_cpu;
        bool want_affine = false;
        if (!fork) {
            record_wakee(current, p);
            want_affine = !wake_wide(current, p, this_cpu) && p.allowed_on(this_cpu);
        }
        const sd_flag sd_flag_ = fork ? sd_flag::balance_fork : sd_flag::balance_wake;
        for (sched_domain* tmp = sd_.lowest(this_cpu); tmp != nullptr; tmp = tmp->parent) {
            if (want_affine && has(tmp->flags, sd_flag::wake_affine) && tmp->contains(prev_cpu)) {
                if (this_cpu != prev_cpu)
                    new_cpu = wake_affine(*tmp, p, current, this_cpu, prev_cpu, sync);
                sd = nullptr; // wake_affine over the balance flags
                break;
            }
            if (has(tmp->flags, sd_flag_))
                sd = tmp;
            else if (!want_affine)
                break;
        }
        if (sd != nullptr)
            return find_idlest_cpu(*sd, p, this_cpu, prev_cpu, sd_flag_);
        if (fork)
            return new_cpu;
        return select_idle_sibling(p, prev_cpu, new_cpu);
    }

private:
    rq& cpu_rq(int cpu) const { return *rqs_[static_cast<std::size_t>(cpu)]; }
    bool available_idle_cpu(int cpu) const { return idle_cpu(cpu_rq(cpu)); }
    bool idle_or_sched_idle(int cpu) const {
        return available_idle_cpu(cpu) || sched_idle_cpu(cpu_rq(cpu));
    }

    // record_wakee(): the waker's flips count each change of wakee; they are halved once
    // a second has passed since the last halving (time_after(jiffies, ts + HZ)).
    void record_wakee(task& current, const task& p) const {
        const u64 jiffies = jiffies_.read(sim_.now());
        if (jiffies > current.wakee_flip_decay_ts + static_cast<u64>(p_.tun.hz)) {
            current.wakee_flips >>= 1;
            current.wakee_flip_decay_ts = jiffies;
        }
        if (current.last_wakee != &p) {
            current.last_wakee = &p;
            ++current.wakee_flips;
        }
    }

    // wake_wide(): a waker and wakee that both switch between many partners (the fewer
    // flips at least the LLC's size, the more at least that many times the fewer) are
    // spread rather than pulled together.
    bool wake_wide(const task& current, const task& p, int this_cpu) const {
        const sched_domain* llc = sd_.llc(this_cpu);
        const unsigned factor = llc != nullptr ? static_cast<unsigned>(llc->span.size()) : 1;
        const unsigned master = std::max(current.wakee_flips, p.wakee_flips);
        const unsigned slave = std::min(current.wakee_flips, p.wakee_flips);
        return !(slave < factor || master < slave * factor);
    }

    // cfs_h_nr_delayed() where the sync test subtracts it (aa3ee4f0b754): the CPU's
    // delayed tasks, asleep though still queued.
    unsigned delayed_on(int cpu) const {
        return p_.carries(sync_ignores_delayed) ? cpu_rq(cpu).cfs.h_nr_delayed : 0;
    }

    // wake_affine(): WA_IDLE, then WA_WEIGHT; prev_cpu unless one of them picks this_cpu.
    // A sync wakeup (the waker about to sleep) counts this_cpu as if the waker had left it.
    int wake_affine(const sched_domain& sd, task& p, const task& current, int this_cpu,
                    int prev_cpu, bool sync) const {
        if (available_idle_cpu(this_cpu) && sd_.cpus_share_cache(this_cpu, prev_cpu))
            return available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu;
        if (sync && nr_running(cpu_rq(this_cpu)) - delayed_on(this_cpu) == 1)
            return this_cpu;
        if (available_idle_cpu(prev_cpu))
            return prev_cpu;
        // wake_affine_weight(): compare the loads as if p ran on either (WA_BIAS).
        unsigned long this_load = cpu_load(cpu_rq(this_cpu));
        if (sync) {
            const unsigned long current_load = task_h_load(current);
            if (current_load > this_load)
                return this_cpu;
            this_load -= current_load;
        }
        const unsigned long task_load = task_h_load(p);
        const u64 this_eff = (static_cast<u64>(this_load) + task_load) * 100 * sched_capacity_scale;
        const unsigned long prev_load = cpu_load(cpu_rq(prev_cpu));
        u64 prev_eff = static_cast<u64>(prev_load > task_load ? prev_load - task_load : 0) *
                       (100 + (sd.imbalance_pct - 100) / 2) * sched_capacity_scale;
        // With sync, equal loads stack the wakee on the waker's CPU unless
        // select_idle_sibling() finds an idle one (the kernel's prev_eff is signed: below
        // zero, the + 1 leaves it below this_eff).
        if (sync && prev_load >= task_load)
            prev_eff += 1;
        return this_eff < prev_eff ? this_cpu : prev_cpu;
    }

    // select_idle_sibling(): target or prev if idle, p's recently used CPU, an idle
    // sibling of prev when no core is wholly idle, then a scan of the LLC.
    int select_idle_sibling(task& p, int prev, int target) {
        if (idle_or_sched_idle(target))
            return target;
        if (prev != target && sd_.cpus_share_cache(prev, target) && idle_or_sched_idle(prev))
            return prev;
        const int recent = p.recent_used_cpu;
        p.recent_used_cpu = prev;
        if (recent >= 0 && recent != prev && recent != target &&
            sd_.cpus_share_cache(recent, target) && idle_or_sched_idle(recent) &&
            p.allowed_on(recent))
            return recent;
        sched_domain* llc = sd_.llc(target);
        if (llc == nullptr)
            return target;
        bool has_idle_core = false;
        if (sd_.smt_active()) {
            has_idle_core = sd_.llc_shared(target).has_idle_cores;
            if (!has_idle_core && sd_.cpus_share_cache(prev, target))
                for (int c : sd_.smt_mask(prev)) // select_idle_smt()
                    if (c != prev && p.allowed_on(c) && idle_or_sched_idle(c))
                        return c;
        }
        const int i = select_idle_cpu(p, *llc, has_idle_core, target);
        return i >= 0 ? i : target;
    }

    // select_idle_cpu(): from target + 1 round the LLC, a wholly idle core while the LLC
    // says it has one (clearing the hint if not), else any idle CPU, within the SIS_UTIL
    // scan depth (6.0+; before, the SIS_PROP limit, which a model whose scans cost no time
    // never reaches).
    int select_idle_cpu(task& p, const sched_domain& llc, bool has_idle_core, int target) {
        // SIS_UTIL: an LLC too busy to scan (depth 0, as also before its first periodic
        // balance at that level) is not scanned at all, idle cores or not.
        int nr = std::numeric_limits<int>::max();
        if (p_.since(6, 0)) {
            nr = sd_.llc_shared(target).nr_idle_scan + 1;
            if (nr == 1)
                return -1;
        }
        int idle_cpu_found = -1;
        // for_each_cpu_wrap() over the span and p's CPUs: the cores found busy are left out
        // (the kernel takes their siblings off its scan mask).
        const std::size_t n = llc.span.size();
        std::size_t i = static_cast<std::size_t>(
            std::upper_bound(llc.span.begin(), llc.span.end(), target) - llc.span.begin());
        if (has_idle_core)
            skipped_.assign(static_cast<std::size_t>(sd_.nr_cpus()), false);
        for (std::size_t k = 0; k < n; ++k, ++i) {
            const int c = llc.span[i < n ? i : i - n];
            if (!p.allowed_on(c) || (has_idle_core && skipped_[static_cast<std::size_t>(c)]))
                continue;
            if (has_idle_core) {
                // select_idle_core(): all of c's siblings idle; else remember an idle one.
                bool idle = true;
                for (int s : sd_.smt_mask(c)) {
                    if (!available_idle_cpu(s)) {
                        idle = false;
                        if (idle_cpu_found == -1 && sched_idle_cpu(cpu_rq(s)) && p.allowed_on(s)) {
                            idle_cpu_found = s;
                            break;
                        }
                        continue;
                    }
                    if (idle_cpu_found == -1 && p.allowed_on(s))
                        idle_cpu_found = s;
                }
                if (idle)
                    return c;
                for (int s : sd_.smt_mask(c))
                    skipped_[static_cast<std::size_t>(s)] = true;
            } else {
                if (--nr <= 0)
                    return -1;
                if (idle_or_sched_idle(c))
                    return c;
            }
        }
        if (has_idle_core)
            sd_.llc_shared(target).has_idle_cores = false;
        return idle_cpu_found;
    }

    // find_idlest_cpu() (6.10 sched_balance_find_dst_cpu): down from sd, the idlest group
    // then its idlest CPU, re-descending from the CPU chosen.
    int find_idlest_cpu(sched_domain& top, task& p, int cpu, int prev_cpu, sd_flag flag) {
        bool any = false;
        for (int c : top.span)
            any = any || p.allowed_on(c);
        if (!any)
            return prev_cpu;
        int new_cpu = cpu;
        sched_domain* sd = &top;
        while (sd != nullptr) {
            if (!has(sd->flags, flag)) {
                sd = sd->child;
                continue;
            }
            const sched_group* group = find_idlest_group(*sd, p, cpu);
            if (group == nullptr) {
                sd = sd->child;
                continue;
            }
            new_cpu = find_idlest_group_cpu(*group, p, cpu);
            if (new_cpu == cpu) {
                sd = sd->child;
                continue;
            }
            cpu = new_cpu;
            const int weight = sd->span_weight();
            sd = nullptr;
            for (sched_domain* tmp = sd_.lowest(cpu); tmp != nullptr; tmp = tmp->parent) {
                if (weight <= tmp->span_weight())
                    break;
                if (has(tmp->flags, flag))
                    sd = tmp;
            }
        }
        return new_cpu;
    }

    // update_sg_wakeup_stats(): a new task is on no queue yet, so nothing to subtract. From
    // 6.19 (82d6e01a0699; 6.18.39) only the CPUs p may run on count; capacity and weight
    // stay the whole group's.
    void wakeup_stats(const sched_domain& sd, const sched_group& g, const task& p,
                      sg_lb_stats& s) const {
        s = {};
        const bool allowed_only = p_.carries(idlest_group_allowed_cpus);
        for (int c : g.cpus) {
            if (allowed_only && !p.allowed_on(c))
                continue;
            const rq& r = cpu_rq(c);
            s.group_load += cpu_load(r);
            s.group_util += cpu_util_cfs(r);
            s.group_runnable += cpu_runnable(r);
            s.sum_h_nr_running += r.cfs.h_nr_queued;
            s.sum_nr_running += nr_running(r);
            if (nr_running(r) == 0 && idle_cpu(r))
                ++s.idle_cpus;
        }
        s.group_capacity = g.sgc->capacity;
        s.group_weight = static_cast<unsigned>(g.weight());
        s.type = group_classify(sd.imbalance_pct, g, s);
        if (s.type == group_type::fully_busy || s.type == group_type::overloaded)
            s.avg_load = group_avg_load(s);
    }

    // update_pick_idlest()
    static bool pick_idlest(const sg_lb_stats& idlest, const sg_lb_stats& s) {
        if (s.type != idlest.type)
            return s.type < idlest.type;
        switch (s.type) {
        case group_type::overloaded:
        case group_type::fully_busy:
            return idlest.avg_load > s.avg_load;
        case group_type::has_spare:
            if (idlest.idle_cpus > s.idle_cpus)
                return false;
            return !(idlest.idle_cpus == s.idle_cpus && idlest.group_util <= s.group_util);
        default:
            return false;
        }
    }

    // find_idlest_group(): nullptr keeps the task in the local group.
    const sched_group* find_idlest_group(const sched_domain& sd, task& p, int this_cpu) const {
        const sched_group* idlest = nullptr;
        const sched_group* local = nullptr;
        sg_lb_stats idlest_s, local_s;
        idlest_s.type = group_type::overloaded;
        idlest_s.avg_load = std::numeric_limits<unsigned long>::max();
        for (const sched_group& g : sd.groups) {
            bool allowed = false;
            for (int c : g.cpus)
                allowed = allowed || p.allowed_on(c);
            if (!allowed)
                continue;
            sg_lb_stats s;
            wakeup_stats(sd, g, p, s);
            if (g.contains(this_cpu)) {
                local = &g;
                local_s = s;
            } else if (pick_idlest(idlest_s, s)) {
                idlest = &g;
                idlest_s = s;
            }
        }
        if (idlest == nullptr)
            return nullptr;
        if (local == nullptr)
            return idlest;
        if (local_s.type != idlest_s.type)
            return local_s.type < idlest_s.type ? nullptr : idlest;
        switch (local_s.type) {
        case group_type::overloaded:
        case group_type::fully_busy: {
            const unsigned long imbalance = sched_capacity_scale * (sd.imbalance_pct - 100) / 100;
            if (idlest_s.avg_load >= local_s.avg_load + imbalance)
                return nullptr;
            if (100 * local_s.avg_load <= sd.imbalance_pct * idlest_s.avg_load)
                return nullptr;
            return idlest;
        }
        case group_type::has_spare:
            // NUMA: a lightly loaded local node keeps the task near its parent.
            if (has(sd.flags, sd_flag::numa) && local_s.sum_nr_running + 1 <= sd.imb_numa_nr)
                return nullptr;
            return local_s.idle_cpus >= idlest_s.idle_cpus ? nullptr : idlest;
        default:
            return nullptr;
        }
    }

    // find_idlest_group_cpu(): a CPU running only SCHED_IDLE tasks; else the idle CPU that
    // went idle last (no idle states are modelled, so none is shallower); else the least
    // loaded.
    int find_idlest_group_cpu(const sched_group& g, task& p, int this_cpu) const {
        if (g.weight() == 1)
            return g.cpus.front();
        unsigned long min_load = std::numeric_limits<unsigned long>::max();
        sim_time latest_idle = -1;
        int least_loaded = this_cpu, shallowest_idle = -1;
        for (int c : g.cpus) {
            if (!p.allowed_on(c))
                continue;
            const rq& r = cpu_rq(c);
            if (sched_idle_cpu(r))
                return c;
            if (available_idle_cpu(c)) {
                if (r.idle_stamp > latest_idle) {
                    latest_idle = r.idle_stamp;
                    shallowest_idle = c;
                }
            } else if (shallowest_idle == -1 && cpu_load(r) < min_load) {
                min_load = cpu_load(r);
                least_loaded = c;
            }
        }
        return shallowest_idle != -1 ? shallowest_idle : least_loaded;
    }

    fair_params p_;
    sched_domains& sd_;
    std::vector<rq*> rqs_;
    const des::simulator& sim_;
    const jiffies_clock& jiffies_;
    std::vector<bool> skipped_; // select_idle_cpu()'s busy cores, kept to spare an allocation
};

} // namespace libsched
