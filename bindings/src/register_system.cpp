// Binds the steppable system (model/system.hpp): stepping and running it, its tasks and run
// queues read as sched/debug.hpp reads them, its scheduling events (sched/trace.hpp) and its
// repetition's JSON document (io/result_json.hpp).
#include "interruptible.hpp"
#include "register.hpp"
#include <atomic>
#include <cstdint>
#include <libsched/io/result_json.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/model/system.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/validate.hpp>
#include <map>
#include <memory>
#include <optional>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace libsched::python {
namespace {

// The scheduling events as columns, the CLI's --trace CSV rows: the text columns hold
// indices into strings (0: the empty text of a field the event does not have), a missing
// next_pid or dest_cpu is -1.
class trace_recorder {
public:
    void record(const trace_event& e) {
        const bool is_switch = e.kind == trace_kind::sched_switch;
        time_.push_back(e.time);
        cpu_.push_back(e.cpu);
        event_.push_back(intern(trace_name(e.kind)));
        pid_.push_back(e.pid);
        comm_.push_back(intern(e.comm));
        prev_state_.push_back(is_switch ? intern(std::string_view(&e.prev_state, 1)) : 0);
        next_pid_.push_back(is_switch ? e.next_pid : -1);
        next_comm_.push_back(is_switch ? intern(e.next_comm) : 0);
        dest_cpu_.push_back(e.kind == trace_kind::sched_migrate_task ? e.dest_cpu : -1);
        reason_.push_back(intern(e.reason));
    }

    py::dict columns() const {
        py::dict d;
        d["time_ns"] = array(time_);
        d["cpu"] = array(cpu_);
        d["event"] = array(event_);
        d["pid"] = array(pid_);
        d["comm"] = array(comm_);
        d["prev_state"] = array(prev_state_);
        d["next_pid"] = array(next_pid_);
        d["next_comm"] = array(next_comm_);
        d["dest_cpu"] = array(dest_cpu_);
        d["reason"] = array(reason_);
        d["strings"] = strings_;
        return d;
    }

private:
    std::int32_t intern(std::string_view s) {
        const auto it = index_.find(s);
        if (it != index_.end())
            return it->second;
        const auto i = static_cast<std::int32_t>(strings_.size());
        strings_.emplace_back(s);
        index_.emplace(std::string(s), i);
        return i;
    }
    template <class T> static py::array_t<T> array(const std::vector<T>& v) {
        return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
    }

    std::vector<std::int64_t> time_;
    std::vector<std::int32_t> cpu_, event_, pid_, comm_, prev_state_, next_pid_, next_comm_,
        dest_cpu_, reason_;
    std::vector<std::string> strings_{""};
    std::map<std::string, std::int32_t, std::less<>> index_{{"", 0}};
};

// Virtual times as debug.c prints them: signed (a queue's clock starts just below zero).
py::int_ signed_vtime(u64 v) {
    return py::int_(static_cast<s64>(v));
}

const char* state_letter(task_state s) {
    switch (s) {
    case task_state::not_started:
        return "N";
    case task_state::runnable:
        return "R";
    case task_state::sleeping:
        return "S";
    case task_state::dead:
    default:
        return "X";
    }
}

// One repetition's system built from scenario text, with what the Python side asks of it.
class system_handle {
public:
    system_handle(const std::string& toml, const std::string& origin,
                  std::optional<std::uint64_t> seed, int repetition, bool check_invariants,
                  bool trace)
        : sc_(parse_scenario(toml, origin)), warnings_(validate(sc_)), repetition_(repetition) {
        if (repetition < 0 || repetition >= sc_.repetitions)
            throw py::value_error("libsched.Simulator: repetition must be from 0 to " +
                                  std::to_string(sc_.repetitions - 1) + " (the scenario has " +
                                  std::to_string(sc_.repetitions) + "), got " +
                                  std::to_string(repetition));
        // Repetition r of a run seeded s runs with s + r (model/simulate.hpp).
        seed_ = seed.value_or(sc_.seed) + static_cast<std::uint64_t>(repetition);
        trace_sink sink;
        if (trace) {
            recorder_ = std::make_unique<trace_recorder>();
            sink = [r = recorder_.get()](const trace_event& e) { r->record(e); };
        }
        system_ = std::make_unique<libsched::system>(sc_, seed_, std::move(sink));
        system_->check_invariants(check_invariants);
    }

    const std::vector<std::string>& warnings() const { return warnings_; }
    std::uint64_t seed() const { return seed_; }
    int repetition() const { return repetition_; }
    sim_time now() const { return system_->now(); }
    sim_time end() const { return system_->end(); }
    bool done() const { return system_->done(); }
    std::uint64_t events() const { return system_->events(); }
    int nr_cpus() const { return system_->nr_cpus(); }
    bool step() { return system_->step(); }

    void run(sim_time until) {
        run_interruptible([&](const std::atomic<bool>* flag) {
            system_->interrupt_on(flag);
            system_->run(until);
            const bool stopped = system_->interrupted(); // then the clock is short of until
            system_->interrupt_on(nullptr);              // a later run() reads no stale Ctrl-C
            return stopped;
        });
    }

    py::list tasks() const {
        py::list out;
        const auto& ts = system_->tasks();
        for (std::size_t i = 0; i < ts.size(); ++i)
            out.append(task_view(*ts[i], i));
        return out;
    }

    std::optional<py::dict> task(const std::string& name) const {
        const auto& ts = system_->tasks();
        for (std::size_t i = 0; i < ts.size(); ++i)
            if (ts[i]->comm == name)
                return task_view(*ts[i], i);
        return std::nullopt;
    }

    py::dict rq_view(int cpu) const {
        if (cpu < 0 || cpu >= system_->nr_cpus())
            throw py::value_error("libsched.Simulator.rq: cpu must be from 0 to " +
                                  std::to_string(system_->nr_cpus() - 1) + ", got " +
                                  std::to_string(cpu));
        const rq& r = system_->cpu_rq(cpu);
        const cfs_rq_state q = read_cfs_rq(r.cfs);
        py::dict d;
        d["cpu"] = cpu;
        d["nr_running"] = nr_running(r);
        d["nr_queued"] = q.nr_queued;
        d["h_nr_queued"] = q.h_nr_queued;
        d["h_nr_delayed"] = q.h_nr_delayed;
        d["curr"] = is_idle_task(r, *r.curr) ? py::object(py::none()) : py::str(r.curr->comm);
        d["clock"] = r.clock;
        d["clock_task"] = r.clock_task;
        d["nr_switches"] = r.nr_switches;
        d["min_vruntime"] = signed_vtime(q.min_vruntime);
        d["avg_vruntime"] = eevdf() ? py::object(signed_vtime(q.avg_vruntime)) : py::none();
        d["load"] = q.load;
        py::list entities;
        const detail::timeline& tree = r.cfs.tasks_timeline;
        for (const sched_entity* se = tree.first(); se != nullptr; se = tree.next(*se))
            entities.append(entity_view(*se));
        d["entities"] = entities;
        return d;
    }

    std::string result_json() {
        run(system_->end());
        run_result r = simulated_run(sc_, seed_);
        repetition_result rep = system_->result();
        rep.seed = seed_;
        r.repetitions.push_back(std::move(rep));
        std::ostringstream text;
        write_json(text, r, sc_, -1);
        return text.str();
    }

    py::dict trace() const {
        if (!recorder_)
            throw py::value_error("libsched.Simulator.trace: the simulator does not trace; "
                                  "create it with trace=True");
        return recorder_->columns();
    }

private:
    bool eevdf() const { return sc_.machine.kernel.is_eevdf(); }

    // The fair-class fields of an entity (read_entity()), EEVDF's as None before 6.6.
    void add_entity_fields(py::dict& d, const sched_entity& se) const {
        const entity_state e = read_entity(se);
        const bool v = eevdf();
        d["vruntime"] = signed_vtime(e.vruntime);
        d["deadline"] = v ? py::object(signed_vtime(e.deadline)) : py::none();
        d["lag"] = v && e.on_rq ? py::object(py::int_(e.lag)) : py::none();
        d["vlag"] = v ? py::object(py::int_(e.vlag)) : py::none();
        d["eligible"] = v && e.on_rq ? py::object(py::bool_(e.eligible)) : py::none();
        d["slice"] = e.slice;
        d["weight"] = e.weight;
        d["on_rq"] = e.on_rq;
        d["sched_delayed"] = e.sched_delayed;
        d["sum_exec_runtime"] = e.sum_exec_runtime;
    }

    py::dict entity_view(const sched_entity& se) const {
        py::dict d;
        const libsched::task* t = task_of(se);
        d["task"] = t != nullptr ? py::object(py::str(t->comm)) : py::none();
        d["group"] = se.my_q != nullptr ? py::object(py::str(se.my_q->tg->name)) : py::none();
        add_entity_fields(d, se);
        return d;
    }

    py::dict task_view(const libsched::task& t, std::size_t index) const {
        py::dict d;
        d["name"] = t.comm;
        d["entry"] = system_->entry(index);
        d["pid"] = t.pid;
        d["cpu"] = t.cpu;
        d["state"] = state_letter(t.state);
        d["policy"] = policy_name(t.policy);
        d["prio"] = task_prio(t);
        d["nice"] = t.nice;
        add_entity_fields(d, t.se);
        d["nr_migrations"] = t.se.nr_migrations;
        d["nvcsw"] = t.nvcsw;
        d["nivcsw"] = t.nivcsw;
        d["group"] = t.sched_task_group->name;
        return d;
    }

    scenario sc_;
    std::vector<std::string> warnings_;
    int repetition_;
    std::uint64_t seed_ = 0;
    std::unique_ptr<trace_recorder> recorder_; // before system_: the system's sink uses it
    std::unique_ptr<libsched::system> system_;
};

} // namespace

void register_system(py::module_& m) {
    py::class_<system_handle>(m, "System", "One repetition of a scenario, steppable; times in ns.")
        .def(py::init<const std::string&, const std::string&, std::optional<std::uint64_t>, int,
                      bool, bool>(),
             py::arg("toml"), py::arg("origin"), py::arg("seed"), py::arg("repetition"),
             py::arg("check_invariants"), py::arg("trace"))
        .def_property_readonly("warnings", &system_handle::warnings)
        .def_property_readonly("seed", &system_handle::seed)
        .def_property_readonly("repetition", &system_handle::repetition)
        .def_property_readonly("now", &system_handle::now)
        .def_property_readonly("end", &system_handle::end)
        .def_property_readonly("done", &system_handle::done)
        .def_property_readonly("events", &system_handle::events)
        .def_property_readonly("nr_cpus", &system_handle::nr_cpus)
        .def("step", &system_handle::step, "Runs the next event; false once the run is over.")
        .def("run", &system_handle::run, py::arg("until"),
             "Runs the events before until (ns); KeyboardInterrupt on Ctrl-C.")
        .def("tasks", &system_handle::tasks, "Every task's fields, in pid order.")
        .def("task", &system_handle::task, py::arg("name"), "The task's fields, or None.")
        .def("rq", &system_handle::rq_view, py::arg("cpu"), "The CPU's run queue's fields.")
        .def("result_json", &system_handle::result_json,
             "Runs to the end; the repetition's JSON document.")
        .def("trace", &system_handle::trace, "The scheduling events so far, as columns.");

    m.def(
        "parse_duration", [](const std::string& text) { return libsched::parse_duration(text); },
        py::arg("text"),
        "The duration text (\"1.5s\", \"250ms\") in ns, or None when it is not one.");
}

} // namespace libsched::python
