#!/usr/bin/env python3
"""Measure, step by step, how late a task sleeping on an absolute timer runs after its
timer's expiry on this host, on an idle CPU and beside a busy loop (docs/validation.md,
"Wakeup lateness on the real 6.18 host").

    sudo python3 tools/host-measure/timer_wakeup.py [--cpu 1] [--seconds 5]

A sleeper pinned to --cpu does cyclictest's loop: `clock_nanosleep(TIMER_ABSTIME)` to the
next point of a 10 ms grid, reads CLOCK_MONOTONIC, runs 100 us and sleeps again. It runs
once alone on an idle CPU and once beside a nice-19 busy loop, which it always preempts.
bpftrace records, per wakeup, the timer's soft and hard expiry (`timer:hrtimer_start`),
the CPU's last timer interrupt (`irq_vectors:local_timer_entry`) and whether it came to
an idle CPU (`power:cpu_idle`), the expiry (`timer:hrtimer_expire_entry` of
`hrtimer_wakeup`), the wakeup (`sched:sched_wakeup`) and the switch to the sleeper
(`sched:sched_switch`); the sleeper's own clock read ends the chain. Wakeups whose timer
an earlier interrupt expired (the tick's, inside the slack) are counted apart. Prints the
median and 10th/90th percentiles of each step. Needs root, bpftrace and gcc; without
them it says which and exits 0. Every process it starts is stopped before it returns.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from typing import Any

import bpftrace_run

PERIOD_NS = 10_000_000
RUN_NS = 100_000

SCRIPT = r"""
tracepoint:timer:hrtimer_start /pid == $1 && (uint64)args->function == WAKEUP/ {
  @soft = args->softexpires; @hard = args->expires; @timer = (uint64)args->hrtimer;
}
tracepoint:power:cpu_idle /cpu == $2/ { @idle = args->state != 4294967295 ? 1 : 0; }
tracepoint:irq_vectors:local_timer_entry /cpu == $2/ { @irq = nsecs; @irq_idle = @idle; }
tracepoint:timer:hrtimer_expire_entry /(uint64)args->hrtimer == @timer && @timer != 0/ {
  @exp[@soft] = (@hard, @irq, @irq_idle, nsecs);
  @last = @soft;
}
tracepoint:sched:sched_wakeup /args->pid == $1 && @last != 0/ { @wake[@last] = nsecs; }
tracepoint:sched:sched_switch /args->next_pid == $1 && @last != 0/ {
  @switch[@last] = nsecs;
  @last = 0;
}
END {
  clear(@soft); clear(@hard); clear(@timer); clear(@idle); clear(@irq); clear(@irq_idle);
  clear(@last);
}
"""

# The steps of a wakeup, each from the end of the one before.
STEPS = (
    ("slack", "soft -> hard expiry (timer slack)"),
    ("interrupt", "hard expiry -> timer interrupt entry"),
    ("expiry", "interrupt entry -> hrtimer_wakeup"),
    ("wakeup", "hrtimer_wakeup -> sched_wakeup"),
    ("switch", "sched_wakeup -> sched_switch to it"),
    ("user", "sched_switch -> its clock read"),
    ("total", "soft expiry -> its clock read"),
)


def wakeup_address() -> int | None:
    """hrtimer_wakeup's address, from /proc/kallsyms (readable as root)."""
    return bpftrace_run.kernel_symbols(("hrtimer_wakeup",)).get("hrtimer_wakeup")


def missing(cpu: int, wakeup: int | None) -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("bpftrace") is None:
        return "needs bpftrace"
    if shutil.which("gcc") is None:
        return "needs gcc"
    if cpu not in os.sched_getaffinity(0) or len(os.sched_getaffinity(0)) < 2:
        return f"needs CPU {cpu} and another to run on"
    if wakeup is None:
        return "needs hrtimer_wakeup in /proc/kallsyms"
    return None


# cyclictest's loop, in C so that the return to user space is a C program's, as for
# cyclictest and libsched's measure worker: `sleeper CPU WAKEUPS` starts once a byte
# arrives on stdin and prints "soft-expiry clock-read" (ns) per wakeup at the end.
SLEEPER_C = r"""
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static long long now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
int main(int argc, char **argv) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(atoi(argv[1]), &set);
  if (sched_setaffinity(0, sizeof set, &set)) return 1;
  long n = atol(argv[2]);
  long long *seen = malloc(2 * n * sizeof *seen), due;
  char go;
  if (read(0, &go, 1) != 1) return 1;
  due = (now(CLOCK_MONOTONIC) / PERIOD + 2) * PERIOD;
  for (long i = 0; i < n; i++) {
    due += PERIOD;
    struct timespec ts = {due / 1000000000, due % 1000000000};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    seen[2 * i] = due;
    seen[2 * i + 1] = now(CLOCK_MONOTONIC);
    long long start = now(CLOCK_THREAD_CPUTIME_ID);
    while (now(CLOCK_THREAD_CPUTIME_ID) - start < RUN) {}
  }
  for (long i = 0; i < n; i++) printf("%lld %lld\n", seen[2 * i], seen[2 * i + 1]);
  return 0;
}
"""


def build_sleeper(tmp: str) -> str:
    src, exe = os.path.join(tmp, "sleeper.c"), os.path.join(tmp, "sleeper")
    with open(src, "w") as f:
        f.write(SLEEPER_C)
    subprocess.run(
        ["gcc", "-O2", f"-DPERIOD={PERIOD_NS}LL", f"-DRUN={RUN_NS}LL", "-o", exe, src], check=True
    )
    return exe


def measure(
    cpu: int, seconds: float, busy: bool, wakeup: int, exe: str, tmp: str
) -> list[dict[str, int]]:
    """Per wakeup, its time stamps (ns): soft, hard, irq, irq_idle, exp, wake, switch, user."""
    script = os.path.join(tmp, "wakeup.bt")
    with open(script, "w") as f:
        # A literal: bpftrace reads a positional parameter as a signed 64-bit number.
        f.write(SCRIPT.replace("WAKEUP", hex(wakeup)))
    out_path = os.path.join(tmp, "out.json")
    children: list[int] = []
    tracer, sleeper = None, None
    os.sched_setaffinity(0, os.sched_getaffinity(0) - {cpu})  # the driver off the CPU
    try:
        if busy:
            children.append(bpftrace_run.fork_spinner(cpu, nice=19))
        count = str(int(seconds * 1e9 / PERIOD_NS))
        sleeper = subprocess.Popen(
            [exe, str(cpu), count], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        tracer = bpftrace_run.start(
            ["-f", "json", script, str(sleeper.pid), str(cpu)], out_path, map_keys=100_000
        )
        out, _ = sleeper.communicate("x", timeout=seconds + 60)
        seen: dict[int, int] = {}
        for line in out.splitlines():
            soft, read = map(int, line.split())
            seen[soft] = read
        bpftrace_run.stop(tracer)
    finally:
        if sleeper is not None:
            sleeper.kill()
            sleeper.wait()
        bpftrace_run.reap(children)
        bpftrace_run.end(tracer)
    with open(out_path) as f:
        return wakeups(f.read(), seen)


def wakeups(dump: str, seen: dict[int, int]) -> list[dict[str, int]]:
    """Per wakeup traced to its end, its time stamps (ns), from bpftrace's JSON output and
    the sleeper's {soft expiry: clock read}."""
    maps: dict[str, dict[str, Any]] = {}
    for line in dump.splitlines():
        if line.startswith("{"):
            doc = json.loads(line)
            if doc.get("type") == "map":
                maps.update(doc["data"])
    rows = []
    for key, (hard, irq, irq_idle, exp) in maps.get("@exp", {}).items():
        soft = int(key)
        wake, switch = maps.get("@wake", {}).get(key), maps.get("@switch", {}).get(key)
        if wake is None or switch is None or soft not in seen:
            continue
        rows.append(
            dict(
                soft=soft,
                hard=hard,
                irq=irq,
                irq_idle=irq_idle,
                exp=exp,
                wake=wake,
                switch=switch,
                user=seen[soft],
            )
        )
    return rows


def steps(r: dict[str, int]) -> dict[str, int]:
    return {
        "slack": r["hard"] - r["soft"],
        "interrupt": r["irq"] - r["hard"],
        "expiry": r["exp"] - r["irq"],
        "wakeup": r["wake"] - r["exp"],
        "switch": r["switch"] - r["wake"],
        "user": r["user"] - r["switch"],
        "total": r["user"] - r["soft"],
    }


def report(name: str, rows: list[dict[str, int]]) -> None:
    # Its own interrupt: one that came at or after the hard expiry (not an earlier tick's).
    own = [steps(r) for r in rows if r["irq"] >= r["hard"]]
    idle = sum(r["irq_idle"] for r in rows if r["irq"] >= r["hard"])
    print(
        f"{name}: {len(rows)} wakeups; {len(own)} by the timer's own interrupt ({idle} of them "
        f"to an idle CPU), {len(rows) - len(own)} expired early by another interrupt"
    )
    if len(own) < 10:
        print("  too few to describe")
        return
    print(f"  {'step':40s} {'p10':>7s} {'median':>7s} {'p90':>7s}  (us)")
    for key, label in STEPS:
        us = sorted(s[key] / 1000 for s in own)
        q = statistics.quantiles(us, n=10)
        print(f"  {label:40s} {q[0]:7.1f} {statistics.median(us):7.1f} {q[8]:7.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    wakeup = wakeup_address()
    why = missing(args.cpu, wakeup)
    if why or wakeup is None:
        print(f"timer_wakeup: {why}; nothing done")
        return 0
    tmp = tempfile.mkdtemp(prefix="libsched-timer-")
    try:
        exe = build_sleeper(tmp)
        for name, busy in (("idle CPU", False), ("beside a nice-19 busy loop", True)):
            report(name, measure(args.cpu, args.seconds, busy, wakeup, exe, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
