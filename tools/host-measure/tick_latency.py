#!/usr/bin/env python3
"""Measure how late each CPU's tick handler runs after the tick's grid point on this host,
and print the `[machine]` line libsched takes it as (docs/scenario-format.md:
`tick_latency`; docs/validation.md, cases 6a/6b).

    sudo python3 tools/host-measure/tick_latency.py [--seconds 5]

A busy loop pinned to each CPU keeps every tick running (no NOHZ idle). bpftrace records,
at `timer:hrtimer_expire_entry` of the tick's handler (`tick_nohz_handler`, 6.8+, or
`tick_sched_timer`, found in /proc/kallsyms), the time the interrupt read on entry. The
tick hrtimer expires on the grid of multiples of TICK_NSEC (`tick_init_jiffy_update()`
aligns it; `hrtimer_forward()` keeps it there), so that time modulo TICK_NSEC is the
handler's lateness. TICK_NSEC is the median gap between one CPU's ticks. The line printed
is a uniform distribution over the 5th to 95th percentile of all CPUs' lateness; how often
each CPU's tick comes first shows whether the CPUs' delays are independent. On a virtual
machine the lateness is the host's timer injection. Needs root and bpftrace; without them
it says which and exits 0. Every process it starts is stopped before it returns.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict

import bpftrace_run

SCRIPT = r"""
tracepoint:timer:hrtimer_expire_entry /(uint64)args->function == HANDLER/ {
  @t[(uint64)args->now, cpu] = 1;
}
"""
TICK = re.compile(r"@t\[(\d+), (\d+)\]: 1")
HANDLERS = ("tick_nohz_handler", "tick_sched_timer")


def handler_address() -> int | None:
    """The tick handler's address, from /proc/kallsyms (readable as root)."""
    found = bpftrace_run.kernel_symbols(HANDLERS)
    return next((found[name] for name in HANDLERS if name in found), None)


def missing(handler: int | None) -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("bpftrace") is None:
        return "needs bpftrace"
    if len(os.sched_getaffinity(0)) < 2:
        return "needs two CPUs to run on"
    if handler is None:
        return "needs the tick handler in /proc/kallsyms"
    return None


def measure(seconds: float, handler: int, tmp: str) -> list[tuple[int, int]]:
    """(time read on entry, CPU) of every tick handler during the run."""
    script = os.path.join(tmp, "tick.bt")
    with open(script, "w") as f:
        # A literal: bpftrace reads a positional parameter as a signed 64-bit number.
        f.write(SCRIPT.replace("HANDLER", hex(handler)))
    out_path = os.path.join(tmp, "out.txt")
    children: list[int] = []
    tracer = bpftrace_run.start([script], out_path, map_keys=200_000)
    try:
        for cpu in sorted(os.sched_getaffinity(0)):
            children.append(bpftrace_run.fork_spinner(cpu))
        time.sleep(seconds)
        # The same clock as the hrtimer's `now`; ticks after it are an idle CPU's.
        busy_until = time.monotonic_ns()
        # bpftrace gets a CPU to itself to print its map.
        bpftrace_run.reap(children)
        bpftrace_run.stop(tracer)
    finally:
        bpftrace_run.reap(children)
        bpftrace_run.end(tracer)
    with open(out_path) as f:
        ticks = ((int(m.group(1)), int(m.group(2))) for m in TICK.finditer(f.read()))
        return sorted(t for t in ticks if t[0] <= busy_until)


def tick_nsec(ticks: list[tuple[int, int]]) -> int:
    """The median gap between one CPU's successive ticks, as the nearest TICK_NSEC."""
    last: dict[int, int] = {}
    gaps = []
    for t, cpu in ticks:
        if cpu in last:
            gaps.append(t - last[cpu])
        last[cpu] = t
    gap = statistics.median(gaps)
    return min(
        ((10**9 + hz // 2) // hz for hz in (100, 250, 300, 1000)), key=lambda n: abs(n - gap)
    )


def lateness(ticks: list[tuple[int, int]], period: int) -> dict[int, dict[int, int]]:
    """Per CPU, per grid point, the handler's lateness (ns)."""
    late: dict[int, dict[int, int]] = defaultdict(dict)
    for t, cpu in ticks:
        late[cpu][t // period] = t % period
    return late


def report(late: dict[int, dict[int, int]], period: int) -> tuple[float, float]:
    """Print each CPU's figures and which CPU's tick comes first; the 5th and 95th
    percentiles (us) of all."""
    every = sorted(x / 1000 for per in late.values() for x in per.values())
    print(f"TICK_NSEC {period} (HZ {round(10**9 / period)})")
    for cpu in sorted(late):
        us = sorted(x / 1000 for x in late[cpu].values())
        q = statistics.quantiles(us, n=20)
        print(
            f"cpu {cpu}: {len(us)} ticks, lateness p5 {q[0]:.1f} us, median "
            f"{statistics.median(us):.1f}, p95 {q[18]:.1f}, max {us[-1]:.1f}"
        )
    cpus = sorted(late)
    first: dict[int, int] = defaultdict(int)
    for k in set.intersection(*(set(late[c]) for c in cpus)):
        first[min(cpus, key=lambda c: late[c][k])] += 1
    print("first to tick: " + ", ".join(f"cpu {c} {first[c]}" for c in cpus))
    q = statistics.quantiles(every, n=20)
    return q[0], q[18]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    handler = handler_address()  # 0 addresses, so None, without root
    why = missing(handler)
    if why or handler is None:
        print(f"tick_latency: {why}; nothing done")
        return 0
    tmp = tempfile.mkdtemp(prefix="libsched-tick-")
    try:
        ticks = measure(args.seconds, handler, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if len(ticks) < 20:
        print("tick_latency: too few ticks seen")
        return 0
    period = tick_nsec(ticks)
    low, high = report(lateness(ticks, period), period)
    print("[machine]")
    print(
        f'tick_latency = {{ dist = "uniform", low = "{round(low)}us", '
        f'high = "{round(high)}us" }}  # 5th to 95th percentile'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
