#pragma once
// The theory predictor: the share of a CPU each task of a scenario would get in the fluid
// limit (generalised processor sharing, GPS), the figure one computes by hand from the
// kernel's weight table, beside which the model's simulated shares are judged.
//
// The fluid model (docs/theory.md says more):
//   * machine.cpus identical CPUs, all online, each able to give 1 (one whole CPU);
//   * every task runnable all the time, but using at most its demand: 1 for a burner, the
//     duty cycle run / (run + sleep) (run / period on an absolute timer) for a periodic
//     task, the same of the means for a random one (demand-capped GPS); and never more
//     than one CPU, on the CPUs its affinity and cpuset allow;
//   * the RT class first: RT tasks of each priority, highest first, share what their CPUs
//     have (equal parts within a priority, as SCHED_RR gives), each CPU giving RT at most
//     sched_rt_runtime / sched_rt_period where RT throttling applies (before 6.12, or with
//     rt_group_sched), and at most 1 - fair_server_runtime / fair_server_period where the
//     6.12+ fair server keeps that for fair tasks (on CPUs a fair task may use);
//   * the fair class hierarchically: the root group's entities (its tasks, the top-level
//     cgroups, the autogroups) share what RT leaves in proportion to their weights
//     (sched_prio_to_weight, SCHED_IDLE's 3; a group's tg->shares from cpu.shares,
//     cpu.weight or cpu.weight.nice, 3 with cpu.idle); a group's share is then split among
//     its own entities the same way; a group never gets more than its quota
//     (cpu.max quota / period, in CPUs; the burst is ignored in the long run), than its tasks
//     can use, or than its tasks' CPUs can give.
//
// Each split is weighted max-min fair ("progressive filling"): a common level, the rate
// per unit weight, rises; an entity stops where it reaches its cap or where the CPUs it may
// use are full; the others go on. Whether a set of rates fits the CPUs is a max-flow
// test (stats/detail/max_flow.hpp) over source -> entities -> groups' entities -> tasks ->
// allowed CPUs -> sink; entities already decided keep their rates there (and may still
// move between CPUs). Without affinity the breakpoints are the caps and the parent's total,
// found exactly; with affinity a level where the CPUs fill is found by bisection to 1e-12.
// Cost: each step freezes at least one entity, and takes one max flow (Dinic, O(V^2 E) with
// V ~ groups + tasks + 2 CPUs, E ~ tasks x CPUs) or ~50 of them with bisection.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <libsched/model/fair_params_of.hpp>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/bandwidth.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/stats/detail/max_flow.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace libsched::stats {

struct theory_task {
    std::string name;  // instance name, as the model names it: "a", or "a.0" .. "a.{n-1}"
    std::string entry; // the [[tasks]] entry
    std::string group; // its cgroup path, "autogroup-N", or "" for the root group
    sched_policy policy = sched_policy::normal;
    int nice = 0;          // clamped to [-20, 19]
    int rt_priority = 0;   // SCHED_FIFO / SCHED_RR only
    double weight = 0;     // load weight among its siblings (unscaled); 0 for RT tasks
    double demand = 1;     // the CPUs it can use at most: 1, or its duty cycle
    std::vector<int> cpus; // the CPUs it may use; empty = every CPU
    double share = 0;      // of one CPU: 1.0 = a whole CPU
};

struct theory_group {
    std::string name;            // cgroup path, or "autogroup-N" as the model names it
    std::string parent;          // "" = the root group
    std::string session;         // an autogroup's session
    double weight = 0;           // tg->shares, unscaled (1024 = the default)
    std::optional<double> quota; // quota / period in CPUs; unset = unlimited
    double share = 0;            // of one CPU: its tasks' and its descendants' tasks' shares summed
};

struct theory_result {
    int cpus = 1;
    double rt_limit = 1;              // what a CPU gives the RT class at most
    std::vector<theory_task> tasks;   // in the model's order (entries, then instances)
    std::vector<theory_group> groups; // parents first, autogroups last
};

namespace detail {

// The demand of a behaviour, in CPUs: the share of time it wants to run.
inline double mean_of(const distribution& d) {
    switch (d.type) {
    case distribution::kind::uniform:
        return 0.5 * (static_cast<double>(d.a) + static_cast<double>(d.b));
    case distribution::kind::constant:
    case distribution::kind::exponential:
    default:
        return static_cast<double>(d.a);
    }
}

inline double demand_of(const behaviour_spec& b) {
    double run = 0, rest = 0;
    switch (b.type) {
    case behaviour_spec::kind::burner:
        return 1;
    case behaviour_spec::kind::periodic:
        run = static_cast<double>(b.run);
        if (b.period)
            return std::min(1.0, run / static_cast<double>(*b.period));
        rest = static_cast<double>(b.sleep);
        break;
    case behaviour_spec::kind::random:
        run = mean_of(b.run_dist);
        rest = mean_of(b.sleep_dist);
        break;
    case behaviour_spec::kind::steps:
        // Its runs over its runs and sleeps, each phase weighted by its loop count (a phase
        // repeated for ever is all that counts). Timers count as their periods; waits on
        // other tasks are not known here, so this is an upper bound for such a program.
        for (const phase_spec& ph : b.steps.phases) {
            double phase_run = 0, phase_rest = 0;
            for (const step_spec& st : ph.steps) {
                using k = step_spec::kind;
                if (st.type == k::run || st.type == k::runtime)
                    phase_run += mean_of(st.time);
                else if (st.type == k::sleep || st.type == k::timer)
                    phase_rest += mean_of(st.time);
            }
            if (ph.loop == -1) {
                run = phase_run;
                rest = phase_rest;
                break;
            }
            run += phase_run * ph.loop;
            rest += phase_rest * ph.loop;
        }
        break;
    }
    return run + rest > 0 ? std::min(1.0, run / (run + rest)) : 1.0;
}

// The hierarchy as the filling sees it: entity 0 is the root group; groups and tasks
// below it; RT tasks hang from no group (they take no part in the fair split).
class gps_solver {
public:
    struct entity {
        int parent = -1; // -1: RT task, or the root
        bool task = false;
        double weight = 1;
        double own_cap = max_flow::infinite; // quota, or a task's demand
        std::vector<int> cpus;               // tasks: allowed CPUs (empty = all)
        std::vector<int> children;
        double cap = 0;  // what it could get alone (own cap, its tasks, its CPUs)
        double rate = 0; // the result
    };

    gps_solver(int cpus, std::vector<double> rt_limit)
        : cpus_(cpus), rt_limit_(std::move(rt_limit)) {
        entities_.push_back({}); // the root group
    }

    int add(int parent, bool task, double weight, double own_cap, std::vector<int> cpus) {
        const int id = static_cast<int>(entities_.size());
        entities_.push_back({parent, task, weight, own_cap, std::move(cpus), {}, 0, 0});
        if (parent >= 0)
            entities_[static_cast<std::size_t>(parent)].children.push_back(id);
        return id;
    }

    const entity& at(int id) const { return entities_[static_cast<std::size_t>(id)]; }

    // rt_levels: the RT tasks of each priority, highest first.
    void solve(const std::vector<std::vector<int>>& rt_levels) {
        build_network();
        const double total = static_cast<double>(cpus_);
        for (const std::vector<int>& level : rt_levels)
            fill(level, total);
        // The fair class, top down: each group's rate split among its entities.
        std::vector<int> queue{0};
        set_rate(0, 0);
        fill(at(0).children, total);
        for (int c : at(0).children)
            queue.push_back(c);
        for (std::size_t i = 1; i < queue.size(); ++i) {
            const int g = queue[i];
            if (at(g).task || at(g).children.empty())
                continue;
            const double x = at(g).rate;
            set_rate(g, 0); // replaced by its entities
            fill(at(g).children, x);
            for (int c : at(g).children)
                queue.push_back(c);
        }
    }

private:
    static constexpr double flow_eps = 1e-13; // what the flow treats as no capacity
    static constexpr double tol = 1e-9;       // in CPUs: rates this close are equal

    entity& mut(int id) { return entities_[static_cast<std::size_t>(id)]; }

    std::vector<int> all_cpus() const {
        std::vector<int> out(static_cast<std::size_t>(cpus_));
        for (int c = 0; c < cpus_; ++c)
            out[static_cast<std::size_t>(c)] = c;
        return out;
    }

    // Bottom up: the CPUs a group's tasks may use and what it could get alone.
    std::vector<int> compute_cap(int id) {
        entity& e = mut(id);
        if (e.task) {
            std::vector<int> cpus = e.cpus.empty() ? all_cpus() : e.cpus;
            e.cap = std::min({e.own_cap, 1.0, static_cast<double>(cpus.size())});
            return cpus;
        }
        std::vector<int> cpus;
        double sum = 0;
        for (int c : e.children) {
            const std::vector<int> sub = compute_cap(c);
            cpus.insert(cpus.end(), sub.begin(), sub.end());
            sum += at(c).cap;
        }
        std::sort(cpus.begin(), cpus.end());
        cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
        e.cap = std::min({e.own_cap, sum, static_cast<double>(cpus.size())});
        return cpus;
    }

    // Nodes: source, sink, one per entity, two per CPU (RT tasks reach a CPU through its
    // RT node, which passes at most rt_limit).
    void build_network() {
        for (std::size_t i = 0; i < entities_.size(); ++i)
            if (entities_[i].parent < 0)
                compute_cap(static_cast<int>(i));
        const std::size_t n = entities_.size();
        const std::size_t cpu0 = 2 + n;
        const auto c = static_cast<std::size_t>(cpus_);
        net_.emplace(cpu0 + 2 * c);
        source_edge_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const entity& e = entities_[i];
            source_edge_[i] = net_->add_edge(source, 2 + i, 0);
            if (e.parent >= 0)
                net_->add_edge(2 + static_cast<std::size_t>(e.parent), 2 + i, e.own_cap);
            if (!e.task)
                continue;
            const bool rt = e.parent < 0;
            for (int cpu : e.cpus.empty() ? all_cpus() : e.cpus)
                net_->add_edge(2 + i, cpu0 + 2 * static_cast<std::size_t>(cpu) + (rt ? 1 : 0),
                               max_flow::infinite);
        }
        for (std::size_t cpu = 0; cpu < c; ++cpu) {
            net_->add_edge(cpu0 + 2 * cpu + 1, cpu0 + 2 * cpu, rt_limit_[cpu]);
            net_->add_edge(cpu0 + 2 * cpu, sink, 1.0);
        }
    }

    void set_rate(int id, double rate) {
        mut(id).rate = rate;
        net_->set_capacity(source_edge_[static_cast<std::size_t>(id)], rate);
    }

    // Whether every rate given to an entity fits at once.
    bool feasible() {
        double want = 0;
        for (const entity& e : entities_)
            want += e.rate;
        return net_->solve(source, sink, flow_eps) >= want - tol;
    }

    // Progressive filling of `ids` within `total` (see the header's comment).
    void fill(const std::vector<int>& ids, double total) {
        if (ids.empty())
            return;
        double weights = 0;
        for (int id : ids)
            weights += at(id).weight;
        std::vector<int> open = ids;
        // Weights normalised so a level step of 1e-12 moves no rate by more than that.
        const auto w = [&](int id) { return at(id).weight / weights; };
        const auto rates_at = [&](double level) {
            for (int id : open)
                set_rate(id, std::min(w(id) * level, at(id).cap));
        };
        double level = 0;
        for (int id : ids)
            set_rate(id, 0);
        while (!open.empty()) {
            double fixed = 0, open_w = 0, next = max_flow::infinite;
            std::vector<bool> is_open(entities_.size(), false);
            for (int id : open)
                is_open[static_cast<std::size_t>(id)] = true;
            for (int id : ids)
                if (!is_open[static_cast<std::size_t>(id)])
                    fixed += at(id).rate;
            for (int id : open) {
                open_w += w(id);
                next = std::min(next, at(id).cap / w(id));
            }
            const double to_total = std::max(0.0, total - fixed) / open_w;
            const double candidate = std::min(next, to_total);
            rates_at(candidate);
            if (feasible()) {
                level = candidate;
            } else { // the CPUs fill first: bisect for the last level that fits
                double lo = level, hi = candidate;
                while (hi - lo > 1e-12) {
                    const double mid = 0.5 * (lo + hi);
                    rates_at(mid);
                    (feasible() ? lo : hi) = mid;
                }
                level = lo;
                rates_at(level);
                feasible(); // the residual network of this level
            }
            double sum = fixed;
            for (int id : open)
                sum += at(id).rate;
            const bool full = sum >= total - tol;
            std::vector<int> still;
            if (!full) {
                const std::vector<bool> to_sink = net_->reaching(sink, tol);
                for (int id : open)
                    if (at(id).rate < at(id).cap - tol && to_sink[2 + static_cast<std::size_t>(id)])
                        still.push_back(id);
            }
            if (still.size() == open.size()) // a numerical stall: nothing could stop
                still.clear();
            open = std::move(still);
        }
    }

    static constexpr std::size_t source = 0;
    static constexpr std::size_t sink = 1;
    int cpus_;
    std::vector<double> rt_limit_;
    std::vector<entity> entities_;
    std::optional<max_flow> net_;
    std::vector<std::size_t> source_edge_;
};

// What a CPU gives the RT class at most: RT throttling's runtime / period where it applies
// (before 6.12, or with rt_group_sched), and what the 6.12+ fair server leaves.
inline double rt_limit_of(const machine_spec& m, bool fair_tasks) {
    const sched_tunables t = make_fair_params(m).tun;
    double limit = 1;
    const bool throttling =
        t.rt_runtime != runtime_inf && (m.kernel < kernel_version{6, 12} || t.rt_group_sched);
    if (throttling && t.rt_period > 0)
        limit = static_cast<double>(t.rt_runtime) / static_cast<double>(t.rt_period);
    if (fair_tasks && m.kernel >= kernel_version{6, 12} && t.fair_server_period > 0)
        limit = std::min(limit, 1.0 - static_cast<double>(t.fair_server_runtime) /
                                          static_cast<double>(t.fair_server_period));
    return limit;
}

inline std::vector<int> cpu_list(const std::vector<bool>& mask) {
    std::vector<int> out;
    for (std::size_t c = 0; c < mask.size(); ++c)
        if (mask[c])
            out.push_back(static_cast<int>(c));
    return out;
}

} // namespace detail

// The fluid share of every task and group of the scenario (validated first: throws
// scenario_error). Settings changed during the run (renice, set_affinity) and tasks'
// start and exit times are not taken into account: the theory is of the settings at fork,
// with every task alive.
inline theory_result theory_shares(const scenario& sc) {
    validate(sc);
    const machine_spec& m = sc.machine;
    theory_result out;
    out.cpus = m.cpus;

    // The CPUs fair tasks may use: the fair server guards only those.
    std::vector<bool> fair_cpu(static_cast<std::size_t>(m.cpus), false);
    for (const task_spec& t : sc.tasks) {
        if (rt_policy(t.policy))
            continue;
        const std::vector<bool> mask = effective_cpus(m, t, t.affinity);
        for (std::size_t c = 0; c < fair_cpu.size(); ++c)
            fair_cpu[c] = fair_cpu[c] || mask.empty() || mask[c];
    }
    std::vector<double> rt_limit(fair_cpu.size());
    for (std::size_t c = 0; c < fair_cpu.size(); ++c)
        rt_limit[c] = detail::rt_limit_of(m, fair_cpu[c]);
    out.rt_limit = detail::rt_limit_of(m, true);
    detail::gps_solver gps(m.cpus, rt_limit);

    // The cgroups, parents first, as the model creates them.
    std::map<std::string, int> group_id;
    std::map<std::string, std::size_t> group_index;
    for (const std::string& path : cgroup_paths(sc)) {
        const std::string parent = cgroup_parent(path);
        const cgroup_spec* g = find_cgroup(sc, path);
        theory_group tg;
        tg.name = path;
        tg.parent = parent;
        tg.weight = g == nullptr ? 1024.0
                    : g->idle    ? static_cast<double>(weight_idleprio)
                                 : static_cast<double>(scale_load_down(cgroup_shares(*g, m)));
        if (g != nullptr && g->quota && *g->quota != runtime_inf)
            tg.quota = static_cast<double>(*g->quota) /
                       static_cast<double>(g->period.value_or(default_cfs_period));
        group_id[path] = gps.add(parent.empty() ? 0 : group_id.at(parent), false, tg.weight,
                                 tg.quota.value_or(detail::max_flow::infinite), {});
        group_index[path] = out.groups.size();
        out.groups.push_back(std::move(tg));
    }

    // The tasks; autogroups as the model makes them, at a session's first task.
    std::map<std::string, std::string> autogroup_of;
    std::map<int, std::vector<int>, std::greater<>> rt_levels;
    std::vector<int> task_id;
    for (const task_spec& spec : sc.tasks) {
        std::string group = spec.cgroup;
        if (group.empty() && !spec.session.empty() && m.autogroup) {
            auto it = autogroup_of.find(spec.session);
            if (it == autogroup_of.end()) {
                theory_group ag;
                ag.name = "autogroup-" + std::to_string(autogroup_of.size() + 1);
                ag.session = spec.session;
                int nice = 0;
                for (const session_spec& s : sc.sessions)
                    if (s.name == spec.session)
                        nice = s.nice;
                ag.weight = nice_to_weight(nice);
                group_id[ag.name] = gps.add(0, false, ag.weight, detail::max_flow::infinite, {});
                group_index[ag.name] = out.groups.size();
                it = autogroup_of.emplace(spec.session, ag.name).first;
                out.groups.push_back(std::move(ag));
            }
            group = it->second;
        }
        for (int i = 0; i < spec.count; ++i) {
            theory_task t;
            t.name = instance_name(spec, i);
            t.entry = spec.name;
            t.group = group;
            t.policy = spec.policy;
            t.nice = clamp_nice(spec.nice).nice;
            t.demand = detail::demand_of(spec.behaviour);
            t.cpus = detail::cpu_list(effective_cpus(m, spec, spec.affinity));
            if (rt_policy(spec.policy)) {
                t.rt_priority = spec.rt_priority;
                const int id = gps.add(-1, true, 1.0, t.demand, t.cpus);
                rt_levels[spec.rt_priority].push_back(id);
                task_id.push_back(id);
            } else {
                t.weight = static_cast<double>(scale_load_down(
                    task_load_weight(t.nice, spec.policy == sched_policy::idle).weight));
                task_id.push_back(gps.add(group.empty() ? 0 : group_id.at(group), true, t.weight,
                                          t.demand, t.cpus));
            }
            out.tasks.push_back(std::move(t));
        }
    }

    std::vector<std::vector<int>> levels;
    for (auto& [prio, ids] : rt_levels)
        levels.push_back(std::move(ids));
    gps.solve(levels);

    for (std::size_t i = 0; i < out.tasks.size(); ++i) {
        theory_task& t = out.tasks[i];
        t.share = gps.at(task_id[i]).rate;
        for (std::string g = t.group; !g.empty();) {
            theory_group& tg = out.groups[group_index.at(g)];
            tg.share += t.share;
            g = tg.parent;
        }
    }
    return out;
}

// The theory beside a run's figures: each [[tasks]] entry's fluid share (its tasks' summed)
// and each task's, and a share's ratio to the reference entry's, as a run's ratio is taken.
struct theory_figures {
    std::map<std::string, double> entry_share; // by entry
    std::map<std::string, double> task_share;  // by instance name ("a", "a.1")
    std::string reference;                     // the scenario's reference entry, or ""

    // share / the reference entry's; unset without a reference or when it gets nothing
    // (within the filling's tolerance of 1e-9 CPUs).
    std::optional<double> ratio(double share) const {
        const auto ref = entry_share.find(reference);
        if (ref == entry_share.end() || ref->second <= 1e-9)
            return std::nullopt;
        return share / ref->second;
    }
};

// Whether a program of steps waits for other tasks (suspend, sem_wait, pipe_read): how long is up
// to them, which a fluid split of demands cannot know.
inline bool waits_on_tasks(const behaviour_spec& b) {
    for (const phase_spec& ph : b.steps.phases)
        for (const step_spec& st : ph.steps)
            if (st.type == step_spec::kind::suspend || st.type == step_spec::kind::sem_wait ||
                st.type == step_spec::kind::pipe_read)
                return true;
    return false;
}

// Whether a task may exit before `at`: a program of steps that ends (no phase and not the
// program repeated for ever) and, started at its entry's start and never waiting, would be
// through before then; a lifetime or exit time before it. Later forks (stagger, after) and
// waits only make it end later, so a task this says no of lives until `at`.
inline bool may_exit_before(const task_spec& t, sim_time at) {
    if ((t.exit_at && *t.exit_at < at) || (t.lifetime && t.start + *t.lifetime < at))
        return true;
    const behaviour_spec& b = t.behaviour;
    if (b.type != behaviour_spec::kind::steps || b.steps.loop < 0)
        return false;
    duration pass = 0; // the shortest pass through the phases
    for (const phase_spec& ph : b.steps.phases) {
        if (ph.loop < 0)
            return false;
        duration steps = 0;
        for (const step_spec& st : ph.steps) {
            using k = step_spec::kind;
            if (st.type == k::run || st.type == k::runtime || st.type == k::sleep)
                steps += des::least_draw(st.time); // a timer's expiry may have passed: no wait
        }
        pass += steps * ph.loop;
    }
    return t.start + pass * b.steps.loop < at;
}

// The theory's shares by entry and task; none when a task waits on others, or may exit
// before the window ends (the theory's tasks live through the run).
inline theory_figures theory_figures_of(const scenario& sc) {
    theory_figures out;
    out.reference = sc.reference;
    if (std::any_of(sc.tasks.begin(), sc.tasks.end(), [&sc](const task_spec& t) {
            return waits_on_tasks(t.behaviour) || may_exit_before(t, sc.window_stop());
        }))
        return out;
    for (const theory_task& t : theory_shares(sc).tasks) {
        out.entry_share[t.entry] += t.share;
        out.task_share[t.name] = t.share;
    }
    return out;
}

} // namespace libsched::stats
