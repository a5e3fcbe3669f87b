#!/usr/bin/env python3
"""Measure the CPU time this host charges a task for each of its sleeps, and print the
`[machine]` line libsched takes it as (docs/scenario-format.md: `sleep_cost`;
docs/validation.md, "CPU time charged per sleep").

    sudo .venv/bin/python tools/host-measure/sleep_cost.py [--cpu N] [--seconds 5]

A timer loop, 10 µs of work every 2 ms (`libsched measure`'s periodic worker), pinned to
one CPU, first beside a busy loop on that CPU, then alone. The kernel charges the loop the
system call, the timer, the switch out and back and the return to user space
(`update_curr()` runs in its context): its CPU time over the window
(`se.sum_exec_runtime`) per wakeup, less its 10 µs of work, is what one sleep costs it.
The line printed is the busy case's median: there a wakeup finds its CPU running another
task, as in the cases the model is usually asked about; the idle case (a halted CPU to
wake, dearer in a VM) is printed beside it, since the model has one value. Needs root and
the libsched package; without root it says so and exits 0. Every process it starts is
stopped before it returns (`libsched.measure`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from typing import Any

import libsched

WORK_NS = 10_000
PERIOD = "2ms"


def missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    return None


def loop_scenario(cpu: int, seconds: float, repetitions: int, busy: bool) -> libsched.Scenario:
    """The timer loop pinned to cpu for a window of `seconds` after 1 s, with a busy loop
    beside it if `busy`."""
    loop = {
        "name": "loop",
        "affinity": [cpu],
        "behaviour": {"type": "periodic", "run": f"{WORK_NS}ns", "period": PERIOD},
    }
    burner = {"name": "burner", "affinity": [cpu]}
    return libsched.Scenario(
        name=f"sleep-cost-{'busy' if busy else 'idle'}",
        length=f"{seconds + 1}s",
        window=["1s", f"{seconds + 1}s"],
        repetitions=repetitions,
        machine=libsched.host_machine(),
        tasks=[loop, burner] if busy else [loop],
    )


def costs(result: dict[str, Any]) -> list[float]:
    """Each repetition's CPU time charged to the loop per wakeup in the window, less its
    work (ns)."""
    found = []
    for repetition in result["repetitions"]:
        loop = next(t for t in repetition["tasks"] if t["name"] == "loop")
        if loop["window_nvcsw"] == 0:
            raise RuntimeError("the timer loop did not sleep in the window")
        found.append(loop["window_runtime"] / loop["window_nvcsw"] - WORK_NS)
    return found


def describe(name: str, found: list[float]) -> str:
    us = sorted(x / 1e3 for x in found)
    return (
        f"{name}: {statistics.median(us):.1f} µs per sleep "
        f"({', '.join(f'{x:.1f}' for x in us)} µs in {len(us)} repetitions)"
    )


def machine_line(busy: list[float], idle: list[float]) -> str:
    """The `sleep_cost` line: the busy case's median in whole µs (at least 0)."""
    value = max(0, round(statistics.median(busy) / 1e3))
    return (
        f'sleep_cost = "{value}us"  # beside a busy loop; '
        f"{statistics.median(idle) / 1e3:.0f} µs on an idle CPU"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=int, help="the CPU to run on (default: the last one)")
    parser.add_argument("--seconds", type=float, default=5.0, help="each window's length")
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    reason = missing()
    if reason is not None:
        print(f"sleep_cost: {reason}; nothing done")
        return 0
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    found = {}
    for busy in (True, False):
        scenario = loop_scenario(cpu, args.seconds, args.repetitions, busy)
        found[busy] = costs(libsched.measure(scenario))
    print(describe(f"beside a busy loop on CPU {cpu}", found[True]))
    print(describe(f"alone on CPU {cpu}", found[False]))
    print("[machine]")
    print(machine_line(found[True], found[False]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
