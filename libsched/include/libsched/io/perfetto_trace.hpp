#pragma once
// A run's schedule as a Chrome trace-event JSON document, which the Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open as they are (docs/output-format.md).
// Every repetition is a process "CPUs, repetition R" with one thread per CPU; on a CPU's
// track each stretch of a task is a complete event ("X") named by its comm, and wakeups,
// migrations and exits are instant events ("i"). Written as the events come: memory grows
// with the CPUs, not with the run. Timestamps are microseconds with three decimals, exact to
// the nanosecond.
#include <cstdint>
#include <libsched/io/detail/cpu_slices.hpp>
#include <libsched/io/detail/time_text.hpp>
#include <libsched/scenario/scenario.hpp>
#include <libsched/sched/trace.hpp>
#include <libsched/version.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace libsched {

class perfetto_trace {
public:
    // Writes the document's head; the scenario gives the CPUs and the length a repetition
    // runs to.
    perfetto_trace(std::ostream& out, const scenario& sc)
        : out_(out), nr_cpus_(sc.machine.cpus), length_(sc.length), slices_(sc.machine.cpus) {
        out_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
             << nlohmann::json{{"producer", "libsched"},
                               {"producer_version", LIBSCHED_VERSION_STRING},
                               {"scenario", sc.name}}
                    .dump()
             << ",\"traceEvents\":[";
    }
    perfetto_trace(const perfetto_trace&) = delete;
    perfetto_trace& operator=(const perfetto_trace&) = delete;

    // Takes every event of every repetition, in the order the run gives them.
    trace_sink sink() {
        return [this](const trace_event& e) { add(e); };
    }

    void add(const trace_event& e) {
        if (e.repetition != repetition_) {
            end_repetition(length_);
            begin_repetition(e.repetition);
        }
        switch (e.kind) {
        case trace_kind::sched_switch:
            if (auto ended = slices_.on_switch(e))
                write_slice(*ended, e.time, e.prev_state, e.reason);
            return;
        case trace_kind::sched_migrate_task:
            write_instant(e, ",\"dest_cpu\":" + std::to_string(e.dest_cpu) +
                                 ",\"reason\":" + quoted(e.reason));
            return;
        default:
            write_instant(e, "");
            return;
        }
    }

    // The last repetition's slices end at `end` (its length, or where an interrupt stopped
    // it), and the document closes.
    void finish(sim_time end) {
        end_repetition(end);
        out_ << "\n]}\n";
    }

    // The process and thread ids of a repetition and of a CPU's track in it: unique in the
    // document, 0 left out (trace viewers take it for the idle task).
    static int process_id(int repetition) { return repetition + 1; }
    int thread_id(int repetition, int cpu) const { return repetition * nr_cpus_ + cpu + 1; }

private:
    static std::string micros(sim_time ns) { return detail::time_text(ns, nsec_per_usec, 3); }

    static std::string quoted(std::string_view s) { return nlohmann::json(s).dump(); }

    // The start of every event: its phase, process, thread and time.
    void begin_event(char phase, int cpu, sim_time time) {
        out_ << (first_ ? "\n" : ",\n") << "{\"ph\":\"" << phase
             << "\",\"pid\":" << process_id(repetition_)
             << ",\"tid\":" << thread_id(repetition_, cpu) << ",\"ts\":" << micros(time);
        first_ = false;
    }

    void write_metadata(const char* name, int tid, const std::string& args) {
        out_ << (first_ ? "\n" : ",\n") << "{\"ph\":\"M\",\"pid\":" << process_id(repetition_);
        if (tid > 0)
            out_ << ",\"tid\":" << tid;
        out_ << ",\"name\":\"" << name << "\",\"args\":{" << args << "}}";
        first_ = false;
    }

    void begin_repetition(int repetition) {
        repetition_ = repetition;
        write_metadata("process_name", 0,
                       "\"name\":" + quoted("CPUs, repetition " + std::to_string(repetition)));
        write_metadata("process_sort_index", 0, "\"sort_index\":" + std::to_string(repetition));
        for (int cpu = 0; cpu < nr_cpus_; ++cpu) {
            const int tid = thread_id(repetition, cpu);
            write_metadata("thread_name", tid, "\"name\":\"CPU " + std::to_string(cpu) + "\"");
            write_metadata("thread_sort_index", tid, "\"sort_index\":" + std::to_string(cpu));
        }
    }

    void end_repetition(sim_time end) {
        if (repetition_ < 0)
            return;
        for (const detail::cpu_slice& s : slices_.take_running())
            write_slice(s, end, 0, {});
    }

    // A slice that ended at `end`, with the state its task left in (0: the run ended) and,
    // when it was preempted, why.
    void write_slice(const detail::cpu_slice& s, sim_time end, char end_state,
                     std::string_view reason) {
        begin_event('X', s.cpu, s.start);
        out_ << ",\"dur\":" << micros(end - s.start)
             << ",\"cat\":\"sched\",\"name\":" << quoted(s.comm) << ",\"args\":{\"pid\":" << s.pid
             << ",\"end_state\":\""
             << (end_state == 0 ? std::string{"running"} : std::string(1, end_state)) << '"';
        if (!reason.empty())
            out_ << ",\"end_reason\":" << quoted(reason);
        out_ << "}}";
    }

    void write_instant(const trace_event& e, const std::string& more_args) {
        begin_event('i', e.cpu, e.time);
        out_ << ",\"s\":\"t\",\"cat\":\"sched\",\"name\":\"" << trace_name(e.kind)
             << "\",\"args\":{\"comm\":" << quoted(e.comm) << ",\"pid\":" << e.pid << more_args
             << "}}";
    }

    std::ostream& out_;
    int nr_cpus_;
    sim_time length_;
    detail::cpu_slices slices_;
    int repetition_ = -1; // none yet
    bool first_ = true;
};

} // namespace libsched
