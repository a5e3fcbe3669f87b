#pragma once
// Load balancing between CPUs (kernel/sched/fair.c; names as 6.1, the 6.10 renames in
// comments): periodic balancing per domain from the tick (trigger_load_balance ->
// run_rebalance_domains -> rebalance_domains -> load_balance), newly-idle balancing
// (newidle_balance), NOHZ idle balancing on behalf of tickless CPUs (nohz_balancer_kick,
// _nohz_idle_balance) and active balancing of a running task by the CPU stopper
// (active_load_balance_cpu_stop). Release differences are named where they apply.
#include <algorithm>
#include <libsched/des/simulator.hpp>
#include <libsched/sched/balance_counters.hpp>
#include <libsched/sched/balance_stats.hpp>
#include <libsched/sched/fair.hpp>
#include <libsched/sched/jiffies.hpp>
#include <libsched/sched/sched_domain.hpp>
#include <limits>
#include <vector>

namespace libsched {

// What balancing asks of the core scheduler.
class balance_ops {
public:
    // detach_task() + attach_task(): a queued, not running task moves between CPUs.
    virtual void move_queued_task(task& p, rq& src, rq& dst, migrate_reason why) = 0;
    // stop_one_cpu_nowait(): the stopper of cpu preempts what runs there and calls
    // active_load_balance_cpu_stop().
    virtual void stop_one_cpu(int cpu) = 0;
    // kick_ilb(): an IPI makes the idle cpu run the NOHZ idle balance.
    virtual void kick_ilb(int cpu) = 0;

protected:
    ~balance_ops() = default;
};

class load_balancer {
public:
    load_balancer(const cpu_topology& topo, const fair_params& params, std::vector<rq*> rqs,
                  balance_ops& ops, const jiffies_clock& jiffies, const des::simulator& sim)
        : p_(params), sd_(topo, params.version), rqs_(std::move(rqs)), ops_(ops), jiffies_(jiffies),
          sim_(sim), counters_(rqs_.size()), rng_draws_(rqs_.size()),
          newidle_stats_(feature_exists(feature::ni_random, params.version)),
          max_interval_(static_cast<u64>(params.tun.hz) * static_cast<u64>(rqs_.size()) / 10) {
        for (rq* r : rqs_)
            r->next_balance = 0;
        for (int c = 0; c < nr_cpus(); ++c) // every CPU starts busy (sd_init_shared)
            sd_.llc_shared(c).nr_busy_cpus = sd_.llc_size(c);
        for (int c = 0; c < nr_cpus(); ++c)
            set_idle_cores(c, true);
    }
    load_balancer(const load_balancer&) = delete;
    load_balancer& operator=(const load_balancer&) = delete;

    int nr_cpus() const { return static_cast<int>(rqs_.size()); }
    // The NI_RANDOM state every domain of cpu starts from: ratio, with sd_init()'s 512 passes
    // and the successes in that proportion.
    void set_newidle_ratio(int cpu, unsigned ratio) {
        for (const auto& sd : sd_.chain(cpu)) {
            sd->newidle_call = 512;
            sd->newidle_success = ratio / 2;
            sd->newidle_ratio = ratio;
        }
    }
    sched_domains& domains() { return sd_; }
    const sched_domains& domains() const { return sd_; }
    const balance_counters& counters(int cpu) const {
        return counters_[static_cast<std::size_t>(cpu)];
    }
    rq& cpu_rq(int cpu) const { return *rqs_[static_cast<std::size_t>(cpu)]; }
    u64 jiffies(sim_time now) const { return jiffies_.read(now); }

    // ---- from the tick ----

    // trigger_load_balance() (6.10 sched_balance_trigger): the softirq when a balance is
    // due (run here, at the interrupt's exit), then the NOHZ kick. `idle`: the tick found
    // the CPU idle (rq->idle_balance).
    void trigger_load_balance(rq& r, sim_time now, bool idle) {
        if (jiffies(now) >= r.next_balance)
            run_rebalance_domains(r, now, idle ? cpu_idle_type::idle : cpu_idle_type::not_idle);
        if (!idle)
            nohz_balancer_kick(r, now);
    }

    // ---- NOHZ ----

    // nohz_balance_enter_idle(): the CPU's tick stopped while idle.
    void nohz_balance_enter_idle(rq& r, sim_time now) {
        if (r.nohz_tick_stopped)
            return;
        r.nohz_tick_stopped = true;
        ++nohz_nr_cpus_;
        --sd_.llc_shared(r.cpu).nr_busy_cpus; // set_cpu_sd_state_idle()
        nohz_next_balance_ = std::min(nohz_next_balance_, std::max(r.next_balance, jiffies(now)));
    }

    // nohz_balance_exit_idle(): at the first busy tick after idle.
    void nohz_balance_exit_idle(rq& r) {
        if (!r.nohz_tick_stopped)
            return;
        r.nohz_tick_stopped = false;
        --nohz_nr_cpus_;
        ++sd_.llc_shared(r.cpu).nr_busy_cpus; // set_cpu_sd_state_busy()
    }

    // ttwu_do_wakeup(): a task woke on a CPU that was idle; rq->avg_idle learns how long
    // (update_avg(), capped at twice max_idle_balance_cost, which is migration_cost here).
    void idle_ended(rq& r, sim_time now) {
        if (r.idle_stamp < 0)
            return;
        r.avg_idle += (now - r.idle_stamp - r.avg_idle) / 8;
        r.avg_idle = std::min(r.avg_idle, 2 * p_.tun.migration_cost);
        r.idle_stamp = -1;
    }

    // A CPU's idle task starts running (pick_next_task_idle -> update_idle_core): its core
    // may now be wholly idle.
    void cpu_went_idle(rq& r) {
        if (!sd_.smt_active())
            return;
        for (int c : sd_.smt_mask(r.cpu))
            if (c != r.cpu && !idle_cpu(cpu_rq(c)))
                return;
        set_idle_cores(r.cpu, true);
    }

    // The ILB's IPI arrived: _nohz_idle_balance() over the tickless CPUs, starting after
    // this one and ending with it, until this CPU gets work.
    void nohz_idle_balance(rq& ilb, sim_time now) {
        ilb_pending_ = false;
        u64 next = jiffies(now) + 60 * static_cast<u64>(p_.tun.hz);
        const int n = nr_cpus();
        for (int i = 1; i <= n; ++i) {
            rq& r = cpu_rq((ilb.cpu + i) % n);
            if (!r.nohz_tick_stopped || !idle_cpu(r))
                continue;
            if (ilb.need_resched || nr_running(ilb) > 0)
                break;
            update_blocked_averages(p_, r);
            if (jiffies(now) >= r.next_balance) {
                ++counters_[static_cast<std::size_t>(ilb.cpu)].nohz_kicks;
                rebalance_domains(r, now, cpu_idle_type::idle);
            }
            next = std::min(next, r.next_balance);
        }
        nohz_next_balance_ = next;
    }

    // ---- newly idle ----

    // newidle_balance() (6.10 sched_balance_newidle): the CPU is about to go idle; pull
    // from the busiest CPU of the lowest domain that has one. True if a task arrived. The
    // kernel skips it when the CPU's average idle time is below the cost of balancing;
    // the model's balancing costs no time, so only the overload test remains. Under
    // NI_RANDOM (33cf66d88306) a level is tried only with the probability of its recent
    // success, a pass that pulled counting as many as the tries it stood for.
    bool newidle_balance(rq& r, sim_time now) {
        r.idle_stamp = now;
        // Before 5.17 also not when the CPU's idle periods average under migration_cost.
        if (!overloaded_ || (!p_.since(5, 17) && r.avg_idle < p_.tun.migration_cost))
            return false;
        update_blocked_averages(p_, r);
        bool continue_balancing = true;
        for (sched_domain* sd = sd_.lowest(r.cpu); sd != nullptr; sd = sd->parent) {
            if (!continue_balancing)
                break;
            if (has(sd->flags, sd_flag::balance_newidle)) {
                unsigned weight = 1;
                if (p_.feat(feature::ni_random)) {
                    const unsigned d1k = sched_rng(r.cpu) % 1024;
                    weight = 1 + sd->newidle_ratio;
                    if (d1k > weight) {
                        update_newidle_stats(*sd, 0);
                        continue;
                    }
                    weight = (1024 + weight / 2) / weight;
                }
                const bool pulled =
                    load_balance(r, *sd, cpu_idle_type::newly_idle, continue_balancing, now) > 0;
                if (newidle_stats_) // update_newidle_cost(): the kernel's pass always costs
                    update_newidle_stats(*sd, pulled ? weight : 0);
                if (pulled) {
                    ++counters_[static_cast<std::size_t>(r.cpu)].newidle;
                    break;
                }
            }
            if (nr_running(r) > 0)
                break;
        }
        if (nr_running(r) > 0)
            r.idle_stamp = -1;
        else {
            u64 next = r.next_balance;
            for (sched_domain* sd = sd_.lowest(r.cpu); sd != nullptr; sd = sd->parent)
                next = std::min(next, sd->last_balance + balance_interval(*sd, false));
            r.next_balance = next;
        }
        return nr_running(r) > 0;
    }

    // rq->rd->overload: some CPU has more than one runnable task; newly-idle balancing
    // only runs while it is set. Set on enqueue (add_nr_running), cleared by a balance of
    // the whole machine that found none.
    void note_nr_running(const rq& r) {
        if (nr_running(r) >= 2)
            overloaded_ = true;
    }

    // ---- active balance ----

    // active_load_balance_cpu_stop(): the stopper runs on the busiest CPU; the task it
    // preempted (now only queued) or another one goes to push_cpu.
    void active_load_balance_cpu_stop(rq& busiest, sim_time now) {
        if (!busiest.active_balance)
            return;
        busiest.active_balance = false;
        if (nr_running(busiest) == 0) // the stopper itself counts in the kernel's nr_running
            return;
        rq& target = cpu_rq(busiest.push_cpu);
        sched_domain* sd = sd_.lowest(target.cpu);
        while (sd != nullptr && !sd->contains(busiest.cpu))
            sd = sd->parent;
        if (sd == nullptr)
            return;
        lb_env env(*sd, target, cpu_idle_type::idle);
        env.src = &busiest;
        env.active = true;
        for (auto it = busiest.cfs_tasks.rbegin(); it != busiest.cfs_tasks.rend(); ++it) {
            task& p = *task_of(*it);
            if (!can_migrate_task(p, env, now))
                continue;
            ops_.move_queued_task(p, busiest, target, migrate_reason::active_load_balance);
            sd->nr_balance_failed = 0;
            ++counters_[static_cast<std::size_t>(busiest.cpu)].alb_pushed;
            return;
        }
    }

    // Whether the CPU may run its own periodic balance at this level (should_we_balance()).
    // Public for tests.
    bool should_we_balance(const sched_domain& sd, const rq& dst, cpu_idle_type idle) const {
        if (idle == cpu_idle_type::newly_idle)
            return nr_running(dst) == 0;
        const sched_group& local = sd.groups.front();
        int idle_smt = -1;
        for (int c : local.cpus) {
            if (!idle_cpu(cpu_rq(c)))
                continue;
            // 6.6 (b1bfeab9b002): above SMT, prefer a CPU whose whole core is idle.
            if (p_.since(6, 6) && !has(sd.flags, sd_flag::share_cpucapacity) && !is_core_idle(c)) {
                if (idle_smt == -1)
                    idle_smt = c;
                continue;
            }
            return c == dst.cpu;
        }
        if (idle_smt != -1)
            return idle_smt == dst.cpu;
        return local.cpus.front() == dst.cpu; // group_balance_cpu()
    }

private:
    // update_newidle_stats(): every 1024 passes the ratio is the weighed successes of the
    // last ones, and the counts halve.
    static void update_newidle_stats(sched_domain& sd, unsigned success) {
        ++sd.newidle_call;
        sd.newidle_success += success;
        if (sd.newidle_call >= 1024) {
            sd.newidle_ratio = sd.newidle_success;
            sd.newidle_call /= 2;
            sd.newidle_success /= 2;
        }
    }

    // sched_rng(): the CPU's own pseudo-random stream (prandom_u32_state()), here drawn from
    // the seed, the CPU and the draw's number alone, so that it takes nothing from the
    // simulator's stream.
    unsigned sched_rng(int cpu) {
        constexpr std::uint64_t sched_rng_key = std::uint64_t{1} << 62;
        constexpr des::distribution any_u32{des::distribution::kind::uniform, 0, 0xffff'ffff};
        auto& n = rng_draws_[static_cast<std::size_t>(cpu)];
        return static_cast<unsigned>(
            sim_.keyed_draw(any_u32, sched_rng_key | static_cast<std::uint64_t>(cpu), n++));
    }

    struct lb_env {
        lb_env(sched_domain& d, rq& to, cpu_idle_type t) : sd(d), dst(&to), idle(t) {}
        sched_domain& sd;
        rq* dst;
        rq* src = nullptr;
        cpu_idle_type idle;
        long imbalance = 0;
        migration_type type = migration_type::load;
        std::vector<int> excluded; // all-pinned busiest CPUs of this pass
        unsigned loop = 0, loop_max = 0;
        bool active = false; // LBF_ACTIVE_LB
        bool all_pinned = false, some_pinned = false, dst_pinned = false;
        int new_dst_cpu = -1;
        bool candidate(int cpu) const {
            return std::find(excluded.begin(), excluded.end(), cpu) == excluded.end();
        }
    };

    struct sd_lb_stats {
        const sched_group* busiest = nullptr;
        const sched_group* local = nullptr;
        unsigned long total_load = 0, total_capacity = 0, avg_load = 0;
        sg_lb_stats busiest_stat, local_stat;
        bool prefer_sibling = false;
    };

    bool is_core_idle(int cpu) const {
        for (int c : sd_.smt_mask(cpu))
            if (c != cpu && !idle_cpu(cpu_rq(c)))
                return false;
        return true;
    }
    void set_idle_cores(int cpu, bool v) { sd_.llc_shared(cpu).has_idle_cores = v; }

    static int cores_of(const sched_domains& sds, const sched_group& g) {
        int cores = 0;
        for (int c : g.cpus)
            if (sds.smt_mask(c).front() == c || !g.contains(sds.smt_mask(c).front()))
                ++cores;
        return cores;
    }

    // get_sd_balance_interval(), in jiffies: longer while busy, clamped to
    // max_load_balance_interval (HZ * CPUs / 10).
    u64 balance_interval(const sched_domain& sd, bool busy) const {
        u64 ms = sd.balance_interval;
        if (busy)
            ms *= sd.busy_factor;
        u64 j = (ms * static_cast<u64>(p_.tun.hz) + 999) / 1000; // msecs_to_jiffies()
        if (busy && j > 0)
            --j;
        return std::clamp<u64>(j, 1, std::max<u64>(max_interval_, 1));
    }

    // run_rebalance_domains(): blocked averages brought up to date, then the domains.
    void run_rebalance_domains(rq& r, sim_time now, cpu_idle_type idle) {
        update_blocked_averages(p_, r);
        rebalance_domains(r, now, idle);
    }

    // rebalance_domains() (6.10 sched_balance_domains): each level whose interval has
    // passed, bottom up, until a level says this CPU is not the one to balance.
    void rebalance_domains(rq& r, sim_time now, cpu_idle_type idle) {
        bool busy = idle != cpu_idle_type::idle && !sched_idle_cpu(r);
        bool continue_balancing = true;
        const u64 j = jiffies(now);
        u64 next = j + 60 * static_cast<u64>(p_.tun.hz);
        bool update_next = false;
        for (sched_domain* sd = sd_.lowest(r.cpu); sd != nullptr; sd = sd->parent) {
            if (!continue_balancing)
                break;
            u64 interval = balance_interval(*sd, busy);
            if (j >= sd->last_balance + interval) {
                if (load_balance(r, *sd, idle, continue_balancing, now) > 0) {
                    idle = idle_cpu(r) ? cpu_idle_type::idle : cpu_idle_type::not_idle;
                    busy = idle != cpu_idle_type::idle && !sched_idle_cpu(r);
                }
                sd->last_balance = j;
                interval = balance_interval(*sd, busy);
            }
            if (next > sd->last_balance + interval) {
                next = sd->last_balance + interval;
                update_next = true;
            }
        }
        if (update_next)
            r.next_balance = next;
    }

    // nohz_balancer_kick(): a busy CPU's tick kicks an idle CPU to balance for the
    // tickless ones when there is something to take: this CPU runs two or more tasks, or
    // its LLC has more than one busy CPU.
    void nohz_balancer_kick(rq& r, sim_time now) {
        nohz_balance_exit_idle(r);
        if (nohz_nr_cpus_ == 0 || jiffies(now) < nohz_next_balance_ || ilb_pending_)
            return;
        const bool kick = nr_running(r) >= 2 || sd_.llc_shared(r.cpu).nr_busy_cpus > 1;
        if (!kick)
            return;
        // find_new_ilb(): the first tickless idle CPU.
        for (int c = 0; c < nr_cpus(); ++c) {
            rq& ilb = cpu_rq(c);
            if (c != r.cpu && ilb.nohz_tick_stopped && idle_cpu(ilb)) {
                nohz_next_balance_ = jiffies(now) + 1;
                ilb_pending_ = true;
                ops_.kick_ilb(c);
                return;
            }
        }
    }

    // load_balance() (6.10 sched_balance_rq): one pass at one level for dst. Returns the
    // number of tasks moved.
    int load_balance(rq& dst, sched_domain& sd, cpu_idle_type idle, bool& continue_balancing,
                     sim_time now) {
        lb_env env(sd, dst, idle);
        ++counters_[static_cast<std::size_t>(dst.cpu)].lb_count;
        int moved = 0;
        bool active = false;
        for (;;) { // redo: once per all-pinned busiest CPU excluded
            if (!should_we_balance(sd, dst, idle)) {
                continue_balancing = false;
                return out_balanced(env);
            }
            sd_lb_stats sds;
            const sched_group* busiest_group = find_busiest_group(env, sds);
            if (busiest_group == nullptr)
                return out_balanced(env);
            rq* busiest = find_busiest_queue(env, *busiest_group);
            if (busiest == nullptr)
                return out_balanced(env);
            env.src = busiest;
            env.all_pinned = true;
            if (nr_running(*busiest) > 1) {
                env.loop = 0;
                env.loop_max = std::min<unsigned>(p_.tun.nr_migrate, nr_running(*busiest));
                moved += detach_tasks(env, now);
                while (env.dst_pinned && env.imbalance > 0) {
                    // LBF_DST_PINNED: retry for another CPU of the local group.
                    env.dst = &cpu_rq(env.new_dst_cpu);
                    env.dst_pinned = false;
                    env.loop = 0;
                    moved += detach_tasks(env, now);
                }
                if (sd.parent != nullptr && env.some_pinned && env.imbalance > 0)
                    sd.parent->groups.front().sgc->imbalance = true;
                if (env.all_pinned) {
                    env.excluded.push_back(busiest->cpu);
                    bool others = false;
                    for (int c : sd.span)
                        if (env.candidate(c) && !sd.groups.front().contains(c))
                            others = true;
                    if (others)
                        continue;
                    return out_all_pinned(env);
                }
            }
            break;
        }
        counters_[static_cast<std::size_t>(dst.cpu)].lb_gained += static_cast<unsigned>(moved);
        if (moved == 0) {
            ++counters_[static_cast<std::size_t>(dst.cpu)].lb_failed;
            if (idle != cpu_idle_type::newly_idle)
                ++sd.nr_balance_failed;
            if (need_active_balance(env)) {
                rq& busiest = *env.src;
                if (!busiest.curr->allowed_on(dst.cpu)) {
                    env.all_pinned = true;
                    return out_one_pinned(env);
                }
                if (!busiest.active_balance) {
                    busiest.active_balance = true;
                    busiest.push_cpu = dst.cpu;
                    active = true;
                    ops_.stop_one_cpu(busiest.cpu);
                }
            }
        } else {
            sd.nr_balance_failed = 0;
        }
        if (!active || need_active_balance(env))
            sd.balance_interval = sd.min_interval; // unbalanced: back to the shortest interval
        return moved;
    }

    int out_balanced(lb_env& env) {
        if (env.sd.parent != nullptr && !env.all_pinned)
            env.sd.parent->groups.front().sgc->imbalance = false;
        return out_all_pinned(env);
    }
    int out_all_pinned(lb_env& env) {
        env.sd.nr_balance_failed = 0;
        return out_one_pinned(env);
    }
    // Balanced: the interval grows, up to max_interval (all pinned: MAX_PINNED_INTERVAL).
    int out_one_pinned(lb_env& env) {
        sched_domain& sd = env.sd;
        if (env.idle == cpu_idle_type::newly_idle)
            return 0;
        if ((env.all_pinned && sd.balance_interval < 512) || sd.balance_interval < sd.max_interval)
            sd.balance_interval *= 2;
        return 0;
    }

    // need_active_balance(): since 5.12 (imbalanced_active_balance) only a migrate_task
    // imbalance that failed more than cache_nice_tries + 2 times; before, any.
    bool need_active_balance(const lb_env& env) const {
        const sched_domain& sd = env.sd;
        if (p_.since(5, 12) && env.type != migration_type::task)
            return false;
        return sd.nr_balance_failed > sd.cache_nice_tries + 2;
    }

    // update_sg_lb_stats()
    void update_sg_lb_stats(const lb_env& env, const sched_group& g, bool local_group,
                            sg_lb_stats& s, bool& overload) const {
        s = {};
        for (int c : g.cpus) {
            if (!env.candidate(c))
                continue;
            const rq& r = cpu_rq(c);
            s.group_load += cpu_load(r);
            s.group_util += cpu_util_cfs(r);
            s.group_runnable += cpu_runnable(r);
            s.sum_h_nr_running += r.cfs.h_nr_queued - r.cfs.h_nr_delayed;
            const unsigned n = nr_running(r);
            s.sum_nr_running += n;
            if (n > 1)
                overload = true;
            if (n == 0 && idle_cpu(r))
                ++s.idle_cpus;
        }
        s.group_capacity = g.sgc->capacity;
        s.group_weight = static_cast<unsigned>(g.weight());
        // smt_balance() (6.6): an idle dst may take one of an SMT core's several tasks.
        if (p_.since(6, 6) && !local_group && env.idle != cpu_idle_type::not_idle &&
            has(g.flags, sd_flag::share_cpucapacity) && s.sum_h_nr_running > 1)
            s.group_smt_balance = true;
        s.type = group_classify(env.sd.imbalance_pct, g, s);
        if (s.type == group_type::overloaded)
            s.avg_load = group_avg_load(s);
    }

    static bool smt_vs_nonsmt_groups(const sched_group& a, const sched_group& b) {
        return has(a.flags, sd_flag::share_cpucapacity) != has(b.flags, sd_flag::share_cpucapacity);
    }

    // update_sd_pick_busiest(): is g a busier source than the busiest so far?
    bool update_sd_pick_busiest(const sd_lb_stats& sds, const sched_group& g,
                                const sg_lb_stats& s) const {
        const sg_lb_stats& b = sds.busiest_stat;
        if (s.sum_h_nr_running == 0)
            return false;
        if (sds.busiest == nullptr)
            return true;
        if (s.type != b.type)
            return s.type > b.type;
        switch (s.type) {
        case group_type::overloaded:
            return s.avg_load > b.avg_load;
        case group_type::imbalanced:
        case group_type::asym_packing:
        case group_type::misfit_task:
            return false;
        case group_type::smt_balance:
            if (s.idle_cpus != 0 || b.idle_cpus != 0)
                return pick_has_spare(sds, g, s);
            [[fallthrough]];
        case group_type::fully_busy:
            if (!p_.since(6, 6))
                return s.avg_load > b.avg_load;
            if (s.avg_load < b.avg_load)
                return false;
            // 6.6: on a tie keep an SMT busiest, whose tasks gain most from moving.
            return !(s.avg_load == b.avg_load &&
                     has(sds.busiest->flags, sd_flag::share_cpucapacity));
        case group_type::has_spare:
            return pick_has_spare(sds, g, s);
        }
        return false;
    }
    bool pick_has_spare(const sd_lb_stats& sds, const sched_group& g, const sg_lb_stats& s) const {
        const sg_lb_stats& b = sds.busiest_stat;
        // 6.6: a non-SMT group over an SMT group running one task.
        if (p_.since(6, 6) && smt_vs_nonsmt_groups(*sds.busiest, g))
            return !(has(g.flags, sd_flag::share_cpucapacity) && s.sum_h_nr_running <= 1);
        if (s.idle_cpus > b.idle_cpus)
            return false;
        return !(s.idle_cpus == b.idle_cpus && s.sum_nr_running <= b.sum_nr_running);
    }

    // sibling_imbalance() (6.6): tasks to move so both groups run as many per core.
    long sibling_imbalance(const lb_env& env, const sd_lb_stats& sds) const {
        const sg_lb_stats& b = sds.busiest_stat;
        const sg_lb_stats& l = sds.local_stat;
        if (env.idle == cpu_idle_type::not_idle || b.sum_nr_running == 0)
            return 0;
        const long nb = cores_of(sd_, *sds.busiest), nl = cores_of(sd_, *sds.local);
        if (nb == nl)
            return std::max<long>(0, static_cast<long>(b.sum_nr_running) - l.sum_nr_running);
        long imb =
            std::max<long>(0, nl * b.sum_nr_running - nb * static_cast<long>(l.sum_nr_running));
        imb = (2 * imb + nl + nb) / (nl + nb);
        if (imb <= 1 && l.sum_nr_running == 0 && b.sum_nr_running > 1)
            imb = 2;
        return imb;
    }

    // find_busiest_group() (6.10 sched_balance_find_src_group): the busiest group if
    // there is an imbalance worth acting on, with env.imbalance set.
    const sched_group* find_busiest_group(lb_env& env, sd_lb_stats& sds) {
        bool overload = false;
        for (const sched_group& g : env.sd.groups) {
            const bool local = g.contains(env.dst->cpu);
            sg_lb_stats s;
            update_sg_lb_stats(env, g, local, s, overload);
            if (local) {
                sds.local = &g;
                sds.local_stat = s;
            } else if (update_sd_pick_busiest(sds, g, s)) {
                sds.busiest = &g;
                sds.busiest_stat = s;
            }
            sds.total_load += s.group_load;
            sds.total_capacity += s.group_capacity;
        }
        sds.prefer_sibling =
            env.sd.child != nullptr && has(env.sd.child->flags, sd_flag::prefer_sibling);
        if (env.sd.parent == nullptr)
            overloaded_ = overload; // the root domain's overload indicator
        if (p_.since(6, 0) && env.idle != cpu_idle_type::newly_idle &&
            sd_.llc(env.dst->cpu) == &env.sd)
            update_idle_cpu_scan(env);
        const sg_lb_stats& local = sds.local_stat;
        const sg_lb_stats& busiest = sds.busiest_stat;
        if (sds.busiest == nullptr)
            return nullptr;
        bool force = busiest.type == group_type::imbalanced;
        if (!force) {
            if (local.type > busiest.type)
                return nullptr;
            if (local.type == group_type::overloaded) {
                if (local.avg_load >= busiest.avg_load)
                    return nullptr;
                sds.avg_load = sds.total_load * sched_capacity_scale / sds.total_capacity;
                if (local.avg_load >= sds.avg_load)
                    return nullptr;
                if (100 * busiest.avg_load <= env.sd.imbalance_pct * local.avg_load)
                    return nullptr;
            }
            // prefer_sibling: spread tasks over sibling groups. 6.6 compares per core.
            if (sds.prefer_sibling && local.type == group_type::has_spare &&
                (p_.since(6, 6) ? sibling_imbalance(env, sds) > 1
                                : busiest.sum_nr_running > local.sum_nr_running + 1))
                force = true;
        }
        if (!force && busiest.type != group_type::overloaded) {
            if (env.idle == cpu_idle_type::not_idle)
                return nullptr; // a busy CPU only pulls from an overloaded group
            if (busiest.type == group_type::smt_balance &&
                smt_vs_nonsmt_groups(*sds.local, *sds.busiest))
                force = true;
            else if (busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1)
                return nullptr;
            else if (busiest.sum_h_nr_running == 1)
                return nullptr;
        }
        calculate_imbalance(env, sds);
        return env.imbalance != 0 ? sds.busiest : nullptr;
    }

    // calculate_imbalance(): what to move, and how much.
    void calculate_imbalance(lb_env& env, sd_lb_stats& sds) const {
        sg_lb_stats& local = sds.local_stat;
        const sg_lb_stats& busiest = sds.busiest_stat;
        if (busiest.type == group_type::imbalanced || busiest.type == group_type::smt_balance) {
            env.type = migration_type::task;
            env.imbalance = 1;
            return;
        }
        if (local.type == group_type::has_spare) {
            if (busiest.type > group_type::fully_busy && !has(env.sd.flags, sd_flag::share_llc)) {
                // Fill the local group's spare capacity.
                env.type = migration_type::util;
                env.imbalance = static_cast<long>(std::max(local.group_capacity, local.group_util) -
                                                  local.group_util);
                if (env.idle != cpu_idle_type::not_idle && env.imbalance == 0) {
                    env.type = migration_type::task;
                    env.imbalance = 1;
                }
                return;
            }
            env.type = migration_type::task;
            if (p_.since(6, 6)) {
                env.imbalance = busiest.group_weight == 1 || sds.prefer_sibling
                                    ? sibling_imbalance(env, sds)
                                    : std::max<long>(0, static_cast<long>(local.idle_cpus) -
                                                            static_cast<long>(busiest.idle_cpus));
                if (has(env.sd.flags, sd_flag::numa) &&
                    local.sum_nr_running + 1 <= env.sd.imb_numa_nr && env.imbalance <= 2)
                    env.imbalance = 0; // adjust_numa_imbalance()
                env.imbalance >>= 1;
            } else {
                env.imbalance =
                    busiest.group_weight == 1 || sds.prefer_sibling
                        ? std::max<long>(0, static_cast<long>(busiest.sum_nr_running) -
                                                static_cast<long>(local.sum_nr_running)) >>
                              1
                        : std::max<long>(0, (static_cast<long>(local.idle_cpus) -
                                             static_cast<long>(busiest.idle_cpus)) >>
                                                1);
                // 5.15 adjust_numa_imbalance(): below a quarter busy, a pair may stay apart.
                if (has(env.sd.flags, sd_flag::numa) &&
                    busiest.sum_nr_running < busiest.group_weight / 4 && env.imbalance <= 2)
                    env.imbalance = 0;
            }
            return;
        }
        if (local.type < group_type::overloaded) {
            local.avg_load = group_avg_load(local);
            if (local.avg_load >= busiest.avg_load) {
                env.imbalance = 0;
                return;
            }
            sds.avg_load = sds.total_load * sched_capacity_scale / sds.total_capacity;
            if (local.avg_load >= sds.avg_load) {
                env.imbalance = 0;
                return;
            }
        }
        // Both busy: move load until neither side is off the domain's average.
        env.type = migration_type::load;
        if (busiest.avg_load <= sds.avg_load || sds.avg_load <= local.avg_load) {
            env.imbalance = 0;
            return;
        }
        env.imbalance =
            static_cast<long>(std::min((busiest.avg_load - sds.avg_load) * busiest.group_capacity,
                                       (sds.avg_load - local.avg_load) * local.group_capacity) /
                              sched_capacity_scale);
    }

    // update_idle_cpu_scan() (SIS_UTIL, 6.0+): how many CPUs a wakeup may scan for an idle
    // one, from the LLC's utilisation; none at about 85 % busy.
    void update_idle_cpu_scan(const lb_env& env) {
        const u64 w = static_cast<u64>(env.sd.span_weight());
        const u64 pct = env.sd.imbalance_pct;
        const u64 x = std::min<u64>(sum_util(env), w * 1024) / w;
        const u64 x2 = x * x * pct * pct / 10000;
        const u64 y = x2 / 1024 >= 1024 ? 0 : 1024 - x2 / 1024;
        sd_.llc_shared(env.dst->cpu).nr_idle_scan = static_cast<int>(y * w / 1024);
    }
    unsigned long sum_util(const lb_env& env) const {
        unsigned long u = 0;
        for (int c : env.sd.span)
            u += cpu_util_cfs(cpu_rq(c));
        return u;
    }

    // find_busiest_queue() (6.10 sched_balance_find_src_rq)
    rq* find_busiest_queue(const lb_env& env, const sched_group& g) const {
        rq* busiest = nullptr;
        unsigned long busiest_load = 0, busiest_util = 0;
        unsigned busiest_nr = 0;
        for (int c : g.cpus) {
            if (!env.candidate(c))
                continue;
            rq& r = cpu_rq(c);
            const unsigned nr = r.cfs.h_nr_queued - r.cfs.h_nr_delayed;
            if (nr == 0)
                continue;
            switch (env.type) {
            case migration_type::load: {
                const unsigned long load = cpu_load(r);
                // One task whose load exceeds the imbalance: moving it would only swap sides.
                if (nr == 1 && load > static_cast<unsigned long>(env.imbalance))
                    break;
                if (load > busiest_load) {
                    busiest_load = load;
                    busiest = &r;
                }
                break;
            }
            case migration_type::util: {
                const unsigned long util = cpu_util_cfs(r);
                if (nr > 1 && util > busiest_util) {
                    busiest_util = util;
                    busiest = &r;
                }
                break;
            }
            case migration_type::task:
                if (nr > busiest_nr) {
                    busiest_nr = nr;
                    busiest = &r;
                }
                break;
            case migration_type::misfit:
                break;
            }
        }
        return busiest;
    }

    // The queue p would join on dst: its group's there (the CPU's own for the root group).
    static const cfs_rq& dst_queue_of(const task& p, const rq& dst) {
        if (p.sched_task_group == nullptr)
            return dst.cfs;
        return *p.sched_task_group->cfs_rq[static_cast<std::size_t>(dst.cpu)];
    }

    // task_hot(): ran on its CPU within migration_cost (0.5 ms) and so still has its cache.
    bool task_hot(const task& p, const lb_env& env, sim_time now) const {
        (void)now;
        if (p.policy == sched_policy::idle)
            return false;
        // SMT siblings share every cache (posted August 2020, so 5.10; release inferred).
        if (p_.since(5, 10) && has(env.sd.flags, sd_flag::share_cpucapacity))
            return false;
        const cfs_rq& q = cfs_rq_of(p.se);
        if (nr_running(*env.dst) > 0 && (q.next == &p.se || q.last == &p.se))
            return true; // CACHE_HOT_BUDDY
        const duration cost = p_.tun.migration_cost;
        if (cost < 0)
            return true;
        if (cost == 0)
            return false;
        return env.src->clock_task - p.se.exec_start < cost;
    }

    // can_migrate_task()
    bool can_migrate_task(task& p, lb_env& env, sim_time now) {
        // 6.12+: a task still queued as delayed moves only to migrate load (it carries its
        // load, not its runnable time) and stays delayed on its new CPU.
        if (p.se.sched_delayed && env.type != migration_type::load)
            return false;
        // throttled_lb_pair(): not from or to a CPU where its group is throttled (up to
        // 6.17; 6.18's task-based throttling removed the test, 5b726e9bf954). 6.18+ keeps
        // only the destination's (lb_throttled_hierarchy(), 0d4eaf8caf8c).
        if (task_based_throttle(p_)) {
            if (lb_throttled_hierarchy(p, env.dst->cpu))
                return false;
        } else if (throttled_lb_pair(*p.sched_task_group, p.cpu, env.dst->cpu)) {
            return false;
        }
        // 6.14 (873199d27bb2): a task that is ineligible here stays ineligible there, as it
        // keeps its lag; it moves only once this level has failed to balance. There is its
        // group's queue on dst (task_is_ineligible_on_dst_cpu()).
        if (p_.since(6, 14) && env.sd.nr_balance_failed == 0 && p_.feat(feature::place_lag) &&
            dst_queue_of(p, *env.dst).nr_queued > 0 && !entity_eligible(cfs_rq_of(p.se), p.se))
            return false;
        if (!p.allowed_on(env.dst->cpu)) {
            env.some_pinned = true;
            if (env.idle == cpu_idle_type::newly_idle || env.dst_pinned || env.active)
                return false;
            for (int c : env.sd.groups.front().cpus)
                if (env.candidate(c) && p.allowed_on(c)) {
                    env.dst_pinned = true;
                    env.new_dst_cpu = c;
                    break;
                }
            return false;
        }
        env.all_pinned = false;
        if (env.src->curr == &p)
            return false;
        if (env.active)
            return true;
        return !task_hot(p, env, now) || env.sd.nr_balance_failed > env.sd.cache_nice_tries;
    }

    // detach_tasks() + attach_tasks(): from the least recently run end of the source's
    // cfs_tasks, at most loop_max tasks examined, until the imbalance is gone. Rejected
    // tasks go to the front.
    int detach_tasks(lb_env& env, sim_time now) {
        if (env.imbalance <= 0)
            return 0;
        rq& src = *env.src;
        std::vector<task*> moving;
        while (!src.cfs_tasks.empty()) {
            // An idle dst never leaves the source without a task.
            if (env.idle != cpu_idle_type::not_idle && nr_running(src) - moving.size() <= 1)
                break;
            if (++env.loop > env.loop_max)
                break;
            sched_entity& se = src.cfs_tasks.back();
            task& p = *task_of(se);
            bool take = can_migrate_task(p, env, now);
            if (take) {
                switch (env.type) {
                case migration_type::load: {
                    const long load = static_cast<long>(std::max<unsigned long>(task_h_load(p), 1));
                    if ((load >> std::min(env.sd.nr_balance_failed, 31u)) > env.imbalance)
                        take = false;
                    else
                        env.imbalance -= load;
                    break;
                }
                case migration_type::util: {
                    const long util = static_cast<long>(task_util_est(p));
                    if (util > env.imbalance)
                        take = false;
                    else
                        env.imbalance -= util;
                    break;
                }
                case migration_type::task:
                    --env.imbalance;
                    break;
                case migration_type::misfit:
                    take = false;
                    break;
                }
            }
            src.cfs_tasks.erase(src.cfs_tasks.iterator_to(se));
            if (!take) {
                src.cfs_tasks.push_front(se); // list_move(): to the head
                continue;
            }
            src.cfs_tasks.push_front(se); // detach_task() unlinks it again on dequeue
            moving.push_back(&p);
            // A newly-idle pull takes one task (CONFIG_PREEMPTION kernels).
            if (env.idle == cpu_idle_type::newly_idle || env.imbalance <= 0)
                break;
        }
        const migrate_reason why = env.idle == cpu_idle_type::newly_idle
                                       ? migrate_reason::newidle_balance
                                       : migrate_reason::load_balance;
        for (task* p : moving)
            ops_.move_queued_task(*p, src, *env.dst, why);
        return static_cast<int>(moving.size());
    }

    fair_params p_;
    sched_domains sd_;
    std::vector<rq*> rqs_;
    balance_ops& ops_;
    const jiffies_clock& jiffies_;
    const des::simulator& sim_;
    std::vector<balance_counters> counters_;
    std::vector<std::uint64_t> rng_draws_; // per CPU: sched_rng() draws so far
    bool newidle_stats_;                   // the release keeps update_newidle_stats()
    u64 max_interval_;
    bool overloaded_ = false;
    int nohz_nr_cpus_ = 0;
    u64 nohz_next_balance_ = 0;
    bool ilb_pending_ = false;
};

} // namespace libsched
