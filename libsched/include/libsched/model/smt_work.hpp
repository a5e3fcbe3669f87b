#pragma once
// Work done on SMT siblings, an optional model beside the kernel's accounting: CPU time is
// charged per hardware thread as the kernel does, whatever the sibling does; "work" weighs
// each stretch a task runs by the thread's throughput, 1 alone on its core and `factor`
// while another thread of the core also runs a task. This is an assumption about the
// hardware (stated in the scenario), not a kernel rule: it turns CPU time into what an
// experiment counting loop iterations measures.
#include <algorithm>
#include <cstddef>
#include <libsched/model/task_index.hpp>
#include <libsched/sched/task.hpp>
#include <libsched/sched/topology.hpp>
#include <vector>

namespace libsched {

class smt_work_meter {
public:
    smt_work_meter(const cpu_topology& topo, double factor)
        : factor_(factor), core_of_(static_cast<std::size_t>(topo.nr_cpus())),
          running_(static_cast<std::size_t>(topo.nr_cpus()), nullptr) {
        int cores = 0;
        for (const auto& c : topo.cpus)
            cores = std::max(cores, c.core + 1);
        threads_.resize(static_cast<std::size_t>(cores));
        since_.assign(static_cast<std::size_t>(cores), 0);
        for (int cpu = 0; cpu < topo.nr_cpus(); ++cpu) {
            core_of_[static_cast<std::size_t>(cpu)] = topo.of(cpu).core;
            threads_[static_cast<std::size_t>(topo.of(cpu).core)].push_back(cpu);
        }
    }

    void add(const task& t) {
        if (task_index(t) >= work_.size())
            work_.resize(task_index(t) + 1, 0.0);
    }

    // cpu starts running t, or stops (nullptr), at now.
    void set_running(int cpu, const task* t, sim_time now) {
        settle(core_of_[static_cast<std::size_t>(cpu)], now);
        running_[static_cast<std::size_t>(cpu)] = t;
    }

    // The work t has done up to now, in nanoseconds of running alone on a core.
    double work_ns(const task& t, sim_time now) const {
        double w = work_[task_index(t)];
        for (std::size_t cpu = 0; cpu < running_.size(); ++cpu)
            if (running_[cpu] == &t) {
                const int c = core_of_[cpu];
                w += static_cast<double>(now - since_[static_cast<std::size_t>(c)]) * rate(c);
            }
        return w;
    }

private:
    // The throughput of each busy thread of the core.
    double rate(int core_id) const {
        int busy = 0;
        for (int cpu : threads_[static_cast<std::size_t>(core_id)])
            busy += running_[static_cast<std::size_t>(cpu)] != nullptr ? 1 : 0;
        return busy > 1 ? factor_ : 1.0;
    }

    // Credits the core's running tasks up to now.
    void settle(int core_id, sim_time now) {
        const auto ucore = static_cast<std::size_t>(core_id);
        const double r = rate(core_id);
        for (int cpu : threads_[ucore])
            if (const task* t = running_[static_cast<std::size_t>(cpu)])
                work_[task_index(*t)] += static_cast<double>(now - since_[ucore]) * r;
        since_[ucore] = now;
    }

    double factor_;
    std::vector<int> core_of_;
    std::vector<std::vector<int>> threads_; // per core, its CPUs
    std::vector<const task*> running_;      // per CPU, the task it runs, if any
    std::vector<sim_time> since_;           // per core, when its tasks were last credited
    std::vector<double> work_;              // per task index
};

} // namespace libsched
