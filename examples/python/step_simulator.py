"""Steps a simulated system from Python and reads its scheduler state on the way: two CPU
burners on one CPU under EEVDF (6.12), nice 0 and nice 5. At 100 ms and 200 ms it prints
each task's vruntime, deadline, lag and eligibility and the queue's V; at the end, each
task's share of the CPU and what the scheduling trace counted. The first lines are those
examples/cpp/step_system.cpp prints for the same scenario.

The figures are read as they stand, as the kernel's debug files read them: the running
task's are as of its last update (run(until) stops before the events at `until`: the tick
at 100 ms has not run yet), and V with them."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import libsched

SCENARIO = """
name = "step-system"
length = "1s"
[machine]
cpus = 1
hz = 250
kernel = "6.12"
[[tasks]]
name = "a"
[[tasks]]
name = "b"
nice = 5
"""


def print_state(sim: libsched.Simulator) -> None:
    q = sim.rq(0)
    print(f"at {sim.now // 1_000_000} ms: V {q.avg_vruntime}, queued {q.nr_queued}, load {q.load}")
    weighted_lag = 0
    for t in sim.tasks:
        assert t.lag is not None  # EEVDF, and both tasks are queued
        weighted_lag += t.lag * t.weight
        running = " (running)" if q.curr == t.name else ""
        print(
            f"  {t.name} nice {t.nice} weight {t.weight}{running}: vruntime {t.vruntime}, "
            f"deadline {t.deadline}, lag {t.lag}, "
            f"{'eligible' if t.eligible else 'not eligible'}"
        )
    # V is the load-weighted average vruntime, so the weighted lags cancel out (up to V's
    # rounding down: less than the total weight).
    print(f"  sum of weight * lag: {weighted_lag}")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "step-system.toml"
        path.write_text(SCENARIO)
        sim = libsched.Simulator(path, trace=True)
    sim.run("100ms")
    print_state(sim)
    sim.run("200ms")
    print_state(sim)

    result = sim.result()
    print(f"at {sim.now // 1_000_000} ms (end):")
    for t in result["repetitions"][0]["tasks"]:
        print(
            f"  {t['name']} nice {t['nice']}: share {100 * t['share']:.2f} %, "
            f"runtime {t['window_runtime'] // 1000} us"
        )

    trace = sim.trace()
    print(f"trace: {len(trace['time_ns'])} events")
    for event, n in sorted(Counter(trace["event"].tolist()).items()):
        print(f"  {event}: {n}")
    # A task preempted while runnable leaves with prev_state R: an involuntary switch.
    switches = trace["event"] == "sched_switch"
    for t in sim.tasks:
        preempted = switches & (trace["comm"] == t.name) & (trace["prev_state"] == "R")
        print(f"  {t.name} preempted {int(preempted.sum())} times, nivcsw {t.nivcsw}")


if __name__ == "__main__":
    main()
