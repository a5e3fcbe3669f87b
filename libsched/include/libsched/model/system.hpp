#pragma once
// The simulated system, steppable: it owns a copy of its scenario, the engine, the core
// scheduler with its run queues, the tasks, the workload that drives them and the observer
// that measures them. now(), step() and run(until) advance it; tasks, run queues and
// entities can be read at any point (sched/debug.hpp reads them as the kernel's debug files
// do); result() gives the repetition's figures once the run is over.
#include <libsched/model/fair_params_of.hpp>
#include <libsched/model/invariants.hpp>
#include <libsched/model/launch.hpp>
#include <libsched/model/observe.hpp>
#include <libsched/model/workload.hpp>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/core.hpp>
#include <libsched/sched/debug.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsched {

inline machine_costs costs_of(const machine_spec& m) {
    return {m.resched_latency_ns,   m.tick_irq_ns,    m.irq_time_accounting, m.nohz_idle,
            m.idle_exit_latency_ns, m.ipi_latency_ns, m.tick_latency};
}

class system final {
public:
    // The scenario must be valid (validate()); simulate() checks it.
    system(scenario sc, std::uint64_t seed, trace_sink trace = {})
        : sc_(std::move(sc)), sim_(seed),
          core_(sim_, make_fair_params(sc_.machine), costs_of(sc_.machine),
                topology_of(sc_.machine), *this, std::move(trace)),
          observer_(sim_, core_, sc_),
          workload_(sim_, core_, observer_, sc_.machine.timer_slack_ns, sc_.machine.sleep_cost) {
        for (int c = 0; !sc_.machine.newidle_ratio.empty() && c < core_.nr_cpus(); ++c)
            core_.set_newidle_ratio(c, static_cast<unsigned>(newidle_ratio_of(sc_.machine, c)));
        create_tasks();
        core_.start();
    }
    system(const system&) = delete;
    system& operator=(const system&) = delete;

    const scenario& spec() const { return sc_; }
    sim_time now() const { return sim_.now(); }
    sim_time end() const { return sc_.length; }
    bool done() const { return finished_; }

    // Runs the next event before the end of the run; false once there is none (the run is
    // then over: its last observations are taken).
    bool step() {
        if (finished_)
            return false;
        if (sim_.step(sc_.length)) {
            if (checking_)
                checker_.check(core_, tasks_, sim_.events_processed());
            return true;
        }
        finish();
        return false;
    }

    // Runs every event before `until` (at most the end of the run); the clock is then
    // `until`. Reaching the end finishes the run.
    void run(sim_time until) {
        if (finished_)
            return;
        if (checking_)
            while (!sim_.interrupted() && sim_.step(std::min(until, sc_.length)))
                checker_.check(core_, tasks_, sim_.events_processed());
        sim_.run(std::min(until, sc_.length));
        if (until >= sc_.length && !sim_.interrupted())
            finish();
    }

    // A flag that stops run() before the next event once it reads true (des::simulator::
    // interrupt_on()); the run can go on after it is cleared.
    void interrupt_on(const std::atomic<bool>* flag) { sim_.interrupt_on(flag); }
    bool interrupted() const { return sim_.interrupted(); }

    // The invariant-checking mode (model/invariants.hpp): from now on every event is
    // followed by a check, which throws invariant_violation at the first state that breaks
    // one. Off by default; on in builds that define LIBSCHED_CHECK_INVARIANTS (the tests').
    void check_invariants(bool on) {
        checking_ = on;
        if (on)
            checker_.check(core_, tasks_, sim_.events_processed());
    }

    // Engine events processed so far; scheduled so far (run, refused or pending); pending
    // now (des::simulator).
    std::uint64_t events() const { return sim_.events_processed(); }
    std::uint64_t events_scheduled() const { return sim_.events_scheduled(); }
    std::size_t pending_events() const { return sim_.pending(); }

    int nr_cpus() const { return core_.nr_cpus(); }
    const rq& cpu_rq(int cpu) const { return core_.cpu_rq(cpu); }
    const std::vector<std::unique_ptr<task>>& tasks() const { return tasks_; }
    // The [[tasks]] entry that tasks()[i] comes from.
    const std::string& entry(std::size_t i) const { return sc_.tasks[entries_.at(i)].name; }
    // The task instance of that name ("a", "a.1"), or nullptr.
    const task* find_task(std::string_view name) const {
        for (const auto& t : tasks_)
            if (t->comm == name)
                return t.get();
        return nullptr;
    }

    // The repetition's figures; runs to the end first if it is not there yet.
    repetition_result result() {
        run(sc_.length);
        repetition_result out;
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            task& t = *tasks_[i];
            task_result tr = observer_.task_figures(t);
            tr.name = t.comm;
            tr.entry = entry(i);
            tr.nice_clamped = workload_.nice_clamped(t);
            tr.policy = t.policy;
            tr.rt_priority = t.rt_priority;
            tr.started = workload_.start_of(t);
            out.tasks.push_back(std::move(tr));
        }
        out.entries = observer_.entry_figures(sc_);
        for (int c = 0; c < core_.nr_cpus(); ++c)
            out.cpus.push_back(observer_.cpu_figures(c));
        out.task_groups = task_group_figures(out.tasks);
        out.events = sim_.events_processed();
        return out;
    }

private:
    using core_type = basic_core<system>;
    friend core_type; // the core calls the hooks below directly, not through task_hooks

    void switched_in(task& t) {
        observer_.switched_in(t);
        workload_.switched_in(t);
    }
    void switched_out(task& t, resched_reason why) {
        observer_.switched_out(t, why);
        workload_.switched_out(t);
    }
    void migrated(task& t, migrate_reason why) { observer_.migrated(t, why); }
    bool tick_in_kernel_mode(task& t) { return workload_.tick_in_kernel_mode(t); }
    void hrtimer_interrupt(int cpu, sim_time basenow) { workload_.hrtimer_interrupt(cpu, basenow); }
    bool timer_due(int cpu, sim_time handler_end) const {
        return workload_.timer_due(cpu, handler_end);
    }
    sim_time next_timer(int cpu) const { return workload_.next_timer(cpu); }

    void finish() {
        if (finished_)
            return;
        finished_ = true;
        sim_.run(sc_.length);                // the clock stands at the end
        if (sc_.window_stop() == sc_.length) // no event runs at `length` itself
            observer_.observe_end();
    }

    // The cgroups, parents first, each with the shares its files give.
    void create_cgroups() {
        for (const std::string& path : cgroup_paths(sc_)) {
            const std::string parent = cgroup_parent(path);
            task_group& pg = parent.empty() ? core_.root_task_group() : *cgroups_.at(parent);
            const cgroup_spec* g = find_cgroup(sc_, path);
            task_group& tg = core_.sched_create_group(
                pg, path, g ? cgroup_shares(*g, sc_.machine) : nice_0_load);
            if (g != nullptr && g->idle)
                core_.sched_group_set_idle(tg, true); // cpu.idle = 1 after the mkdir
            cgroups_[path] = &tg;
            if (g != nullptr && g->quota) {
                core_.tg_set_cfs_bandwidth(tg, g->period.value_or(default_cfs_period), *g->quota,
                                           g->burst.value_or(0));
                limited_.push_back(&tg);
            }
        }
        // cpu.stat read at the window's start and end: events only with a limited group.
        if (!limited_.empty()) {
            sim_.schedule_at(sc_.window_start, observer<core_type>::observe_order, stat_h_, 0);
            if (sc_.window_stop() < sc_.length)
                sim_.schedule_at(sc_.window_stop(), observer<core_type>::observe_order, stat_h_, 1);
        }
    }

    static cfs_bandwidth_stat cpu_stat_of(const cfs_bandwidth& b) {
        return {b.nr_periods, b.nr_throttled, b.throttled_time, b.nr_burst, b.burst_time};
    }

    // Each limited group's cpu.stat at the window's start (0) or end (1).
    void read_cpu_stat(std::uint64_t which) {
        auto& at = which == 0 ? stat_at_start_ : stat_at_end_;
        for (const task_group* tg : limited_)
            at[tg] = cpu_stat_of(*tg->cfs_b);
    }

    // task_group(p): the task's cgroup; in the root cgroup, the autogroup of its session when
    // autogroup is on and it started one (task_wants_autogroup()), created by the session's
    // first task (autogroup_create(): below the root, with the session's nice as weight);
    // otherwise the root group, which is also the boot session's autogroup.
    task_group& group_of(const task_spec& spec) {
        if (!spec.cgroup.empty())
            return *cgroups_.at(spec.cgroup);
        if (spec.session.empty() || !sc_.machine.autogroup)
            return core_.root_task_group();
        auto it = autogroups_.find(spec.session);
        if (it == autogroups_.end()) {
            int nice = 0;
            for (const session_spec& s : sc_.sessions)
                if (s.name == spec.session)
                    nice = s.nice;
            task_group& ag = core_.sched_create_group(
                core_.root_task_group(), "autogroup-" + std::to_string(autogroups_.size() + 1),
                scale_load(nice_to_weight(nice)));
            ag.autogroup = true;
            it = autogroups_.emplace(spec.session, &ag).first;
        }
        return *it->second;
    }

    // Each group's tasks' CPU time in the window, its own and its descendants'.
    std::vector<task_group_result>
    task_group_figures(const std::vector<task_result>& results) const {
        std::vector<task_group_result> out;
        const auto& groups = core_.task_groups();
        std::map<const task_group*, std::size_t> index;
        for (const auto& tg : groups) {
            if (tg->is_root())
                continue;
            task_group_result g;
            g.name = tg->name;
            g.autogroup = tg->autogroup;
            g.shares = scale_load_down(tg->shares);
            for (const auto& [session, ag] : autogroups_)
                if (ag == tg.get())
                    g.session = session;
            index[tg.get()] = out.size();
            out.push_back(std::move(g));
        }
        for (std::size_t i = 0; i < tasks_.size(); ++i)
            for (const task_group* tg = tasks_[i]->sched_task_group; !tg->is_root();
                 tg = tg->parent) {
                task_group_result& g = out[index.at(tg)];
                g.window_runtime += results[i].window_runtime;
                g.sum_exec_runtime += results[i].sum_exec_runtime;
                g.nr_tasks += tg == tasks_[i]->sched_task_group ? 1 : 0;
            }
        const double window = static_cast<double>(sc_.window_stop() - sc_.window_start);
        for (task_group_result& g : out)
            g.share = static_cast<double>(g.window_runtime) / window;
        for (const task_group* tg : limited_) {
            task_group_result& g = out[index.at(tg)];
            const cfs_bandwidth& b = *tg->cfs_b;
            g.bandwidth = true;
            g.quota = b.quota;
            g.period = b.period;
            g.burst = b.burst;
            g.cpu_stat = cpu_stat_of(b);
            const auto start = stat_at_start_.find(tg);
            const auto end = stat_at_end_.find(tg);
            g.window_cpu_stat = (end != stat_at_end_.end() ? end->second : g.cpu_stat) -
                                (start != stat_at_start_.end() ? start->second : g.cpu_stat);
        }
        return out;
    }

    void create_tasks() {
        create_cgroups();
        int pid = first_pid;
        const auto forks = fork_times(sc_, sim_.rng());
        std::size_t instances = 0;
        for (const task_spec& spec : sc_.tasks)
            instances += static_cast<std::size_t>(spec.count);
        tasks_.reserve(instances);
        entries_.reserve(instances);
        observer_.reserve(instances);
        for (std::size_t e = 0; e < sc_.tasks.size(); ++e) {
            const task_spec& spec = sc_.tasks[e];
            for (int i = 0; i < spec.count; ++i) {
                auto t = std::make_unique<task>();
                t->comm = instance_name(spec, i);
                t->pid = pid++;
                t->nice = clamp_nice(spec.nice).nice;
                t->policy = spec.policy;
                t->rt_priority = spec.rt_priority;
                if (spec.slice) { // set by the process itself right after it starts
                    t->se.custom_slice = true;
                    t->se.slice = eevdf::clamp_custom_slice(*spec.slice);
                }
                t->cpus_allowed = effective_cpus(sc_.machine, spec, spec.affinity);
                t->sched_task_group = &group_of(spec);
                std::vector<std::vector<bool>> changes;
                for (const affinity_change_spec& a : spec.set_affinity)
                    changes.push_back(effective_cpus(sc_.machine, spec, a.cpus));
                core_.sched_fork(*t, parent_cpu(*t));
                observer_.add(*t, spec.behaviour.type == behaviour_spec::kind::steps, e);
                workload_.add(*t, spec, forks[e][static_cast<std::size_t>(i)], std::move(changes));
                entries_.push_back(static_cast<std::uint32_t>(e));
                tasks_.push_back(std::move(t));
            }
        }
    }

    // The CPU of the process that launches the task (a shell, not simulated), where
    // sched_fork() puts the child before wake_up_new_task() places it: the first CPU the
    // task may run on, as if the launcher had taken on the task's affinity before forking.
    int parent_cpu(const task& t) const {
        for (int c = 0; c < sc_.machine.cpus; ++c)
            if (t.allowed_on(c))
                return c;
        return 0;
    }

    scenario sc_;
    des::simulator sim_;
    core_type core_;
    observer<core_type> observer_;
    workload<core_type> workload_;
    std::vector<std::unique_ptr<task>> tasks_;
    std::vector<std::uint32_t> entries_;            // the [[tasks]] entry each instance comes from
    std::map<std::string, task_group*> cgroups_;    // by path
    std::map<std::string, task_group*> autogroups_; // by session
    std::vector<const task_group*> limited_;        // groups with a quota, parents first
    des::member_handler<system, &system::read_cpu_stat> stat_h_{this};
    std::map<const task_group*, cfs_bandwidth_stat> stat_at_start_, stat_at_end_;
    bool finished_ = false;
#ifdef LIBSCHED_CHECK_INVARIANTS
    bool checking_ = true;
#else
    bool checking_ = false;
#endif
    invariant_checker<core_type> checker_;
};

} // namespace libsched
