"""Why each task lost its CPU or moved: one repetition of a scenario run with the trace on,
and per task its involuntary switches and its migrations counted by the kernel function
behind each (the trace's `reason` column, docs/output-format.md).

    python3 examples/python/why_preempted.py [SCENARIO]

Without an argument it runs examples/scenarios/three-on-two.toml: three burners on two
CPUs, which the load balancer keeps moving, each preempted at its slice's end or when a
moved task arrives beside it."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import libsched

DEFAULT = Path(__file__).resolve().parents[1] / "scenarios" / "three-on-two.toml"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    sim = libsched.Simulator(path, trace=True)
    sim.run()
    trace = sim.trace()
    tasks = sim.result()["repetitions"][0]["tasks"]

    preempted = (trace["event"] == "sched_switch") & (trace["prev_state"] == "R")
    moved = trace["event"] == "sched_migrate_task"
    print(f"{path.name}: {sim.now / 1e9:g} s simulated, {len(trace['time_ns'])} events traced")
    for t in tasks:
        mine = trace["comm"] == t["name"]
        reasons = Counter(trace["reason"][preempted & mine].tolist())
        moves = Counter(trace["reason"][moved & mine].tolist())
        # Every involuntary switch is a traced preemption, every migration a traced move.
        assert sum(reasons.values()) == t["nivcsw"]
        assert sum(moves.values()) == t["nr_migrations"]
        print(f"{t['name']}: {t['nivcsw']} preemptions, {t['nr_migrations']} migrations")
        for why, n in reasons.most_common():
            print(f"  preempted {n:6} {why}")
        for why, n in moves.most_common():
            print(f"  moved     {n:6} {why}")


if __name__ == "__main__":
    main()
