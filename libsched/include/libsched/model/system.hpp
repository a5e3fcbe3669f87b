#pragma once
// The simulated system, steppable: it owns a copy of its scenario, the engine, the core
// scheduler with its run queues, the tasks, the workload that drives them and the observer
// that measures them. now(), step() and run(until) advance it; tasks, run queues and
// entities can be read at any point (sched/debug.hpp reads them as the kernel's debug files
// do); result() gives the repetition's figures once the run is over.
#include <libsched/model/fair_params_of.hpp>
#include <libsched/model/launch.hpp>
#include <libsched/model/observe.hpp>
#include <libsched/model/workload.hpp>
#include <libsched/scenario/result.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/core.hpp>
#include <libsched/sched/debug.hpp>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace libsched {

inline machine_costs costs_of(const machine_spec& m) {
    return {m.resched_latency_ns, m.tick_irq_ns, m.irq_time_accounting, m.nohz_idle};
}

class system final {
public:
    // The scenario must be valid (validate()); simulate() checks it.
    system(scenario sc, std::uint64_t seed, trace_sink trace = {})
        : sc_(std::move(sc)), sim_(seed),
          core_(sim_, make_fair_params(sc_.machine), costs_of(sc_.machine),
                topology_of(sc_.machine), *this, std::move(trace)),
          observer_(sim_, core_, sc_), workload_(sim_, core_, observer_) {
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
        if (sim_.step(sc_.length))
            return true;
        finish();
        return false;
    }

    // Runs every event before `until` (at most the end of the run); the clock is then
    // `until`. Reaching the end finishes the run.
    void run(sim_time until) {
        if (finished_)
            return;
        sim_.run(std::min(until, sc_.length));
        if (until >= sc_.length)
            finish();
    }

    // Engine events processed so far.
    std::uint64_t events() const { return sim_.events_processed(); }

    int nr_cpus() const { return core_.nr_cpus(); }
    const rq& cpu_rq(int cpu) const { return core_.cpu_rq(cpu); }
    const std::vector<std::unique_ptr<task>>& tasks() const { return tasks_; }
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
            tr.entry = entries_[i];
            tr.nice_clamped = workload_.nice_clamped(t);
            tr.policy = t.policy;
            tr.rt_priority = t.rt_priority;
            tr.started = workload_.start_of(t);
            out.tasks.push_back(std::move(tr));
        }
        for (int c = 0; c < core_.nr_cpus(); ++c)
            out.cpus.push_back(observer_.cpu_figures(c));
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
    void switched_out(task& t) {
        observer_.switched_out(t);
        workload_.switched_out(t);
    }
    bool tick_in_kernel_mode(task& t) { return workload_.tick_in_kernel_mode(t); }

    void finish() {
        if (finished_)
            return;
        finished_ = true;
        sim_.run(sc_.length);                // the clock stands at the end
        if (sc_.window_stop() == sc_.length) // no event runs at `length` itself
            observer_.observe_end();
    }

    void create_tasks() {
        int pid = first_pid;
        const auto forks = fork_times(sc_, sim_.rng());
        for (std::size_t e = 0; e < sc_.tasks.size(); ++e) {
            const task_spec& spec = sc_.tasks[e];
            for (int i = 0; i < spec.count; ++i) {
                auto t = std::make_unique<task>();
                t->comm = spec.count == 1 ? spec.name : spec.name + "." + std::to_string(i);
                t->pid = pid++;
                t->nice = clamp_nice(spec.nice).nice;
                t->policy = spec.policy;
                t->rt_priority = spec.rt_priority;
                if (spec.slice) { // set by the process itself right after it starts
                    t->se.custom_slice = true;
                    t->se.slice = eevdf::clamp_custom_slice(*spec.slice);
                }
                t->cpus_allowed = effective_cpus(sc_.machine, spec, spec.affinity);
                std::vector<std::vector<bool>> changes;
                for (const affinity_change_spec& a : spec.set_affinity)
                    changes.push_back(effective_cpus(sc_.machine, spec, a.cpus));
                core_.sched_fork(*t, parent_cpu(*t));
                observer_.add(*t);
                workload_.add(*t, spec, forks[e][static_cast<std::size_t>(i)], std::move(changes));
                entries_.push_back(spec.name);
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
    std::vector<std::string> entries_; // the [[tasks]] entry each instance comes from
    bool finished_ = false;
};

} // namespace libsched
