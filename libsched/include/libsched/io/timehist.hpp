#pragma once
// A text timeline like `perf sched timehist`: one line each time a task leaves a CPU, with
// the time (s), the CPU, the task, and in ms its wait time (from leaving a CPU, or being
// forked, to running again: sleeping and queued), its scheduling delay (the queued part:
// from the wakeup or preemption) and its run time (the slice that just ended). The idle task
// gets no lines. Written as the events come; memory grows with the tasks.
#include <iomanip>
#include <libsched/io/detail/cpu_slices.hpp>
#include <libsched/io/detail/time_text.hpp>
#include <libsched/sched/trace.hpp>
#include <ostream>
#include <string>
#include <unordered_map>

namespace libsched {

class timehist_trace {
public:
    timehist_trace(std::ostream& out, int nr_cpus) : out_(out), slices_(nr_cpus) {}
    timehist_trace(const timehist_trace&) = delete;
    timehist_trace& operator=(const timehist_trace&) = delete;

    trace_sink sink() {
        return [this](const trace_event& e) { add(e); };
    }

    void add(const trace_event& e) {
        if (e.repetition != repetition_)
            begin_repetition(e.repetition);
        switch (e.kind) {
        case trace_kind::sched_wakeup_new:
            waits_[key(e.pid, e.cpu)] = {e.time, e.time, 0, 0};
            return;
        case trace_kind::sched_wakeup:
            waits_[key(e.pid, e.cpu)].queued = e.time;
            return;
        case trace_kind::sched_switch:
            break;
        default:
            return;
        }
        if (const auto ended = slices_.on_switch(e)) {
            wait& w = waits_[key(ended->pid, e.cpu)];
            line(seconds(e.time), "[" + std::to_string(e.cpu) + "]",
                 ended->comm + "[" + std::to_string(ended->pid) + "]", ms(w.waited), ms(w.delayed),
                 ms(e.time - ended->start));
            w.left = e.time;
            if (e.prev_state == 'R')
                w.queued = e.time;
        }
        if (!is_idle_in_trace(e.next_pid, e.next_comm)) {
            wait& w = waits_[key(e.next_pid, e.cpu)];
            w.waited = e.time - w.left;
            w.delayed = e.time - w.queued;
        }
    }

private:
    struct wait {
        sim_time left = 0;                // it last left a CPU (or was forked)
        sim_time queued = 0;              // it last became runnable: woken, forked or preempted
        duration waited = 0, delayed = 0; // of the slice now running
    };

    // Tasks by pid; the stoppers, which have pid 0 and never leave their CPU, by CPU.
    static long long key(int pid, int cpu) { return pid != 0 ? pid : -1LL - cpu; }

    static std::string seconds(sim_time ns) { return detail::time_text(ns, nsec_per_sec, 6); }
    static std::string ms(duration ns) { return detail::time_text(ns, nsec_per_msec, 3); }

    void line(const std::string& time, const std::string& cpu, const std::string& task,
              const std::string& wait_time, const std::string& delay, const std::string& run) {
        out_ << std::right << std::setw(15) << time << ' ' << std::setw(6) << cpu << "  "
             << std::left << std::setw(24) << task << std::right << ' ' << std::setw(10)
             << wait_time << ' ' << std::setw(10) << delay << ' ' << std::setw(10) << run << '\n';
    }

    void begin_repetition(int repetition) {
        out_ << (repetition_ >= 0 ? "\n" : "") << "repetition " << repetition << '\n';
        repetition_ = repetition;
        waits_.clear();
        slices_.take_running();
        line("time", "cpu", "task", "wait time", "sch delay", "run time");
        line("(s)", "", "", "(ms)", "(ms)", "(ms)");
    }

    std::ostream& out_;
    detail::cpu_slices slices_;
    std::unordered_map<long long, wait> waits_;
    int repetition_ = -1;
};

} // namespace libsched
