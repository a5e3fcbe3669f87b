#!/usr/bin/env python3
"""Measure how long an IPI takes on this host, to a busy CPU and to an idle one, and print
the `[machine]` lines libsched takes them as (docs/scenario-format.md: `ipi_latency`,
`idle_exit_latency`; docs/validation.md, cases 6a/6b).

    sudo python3 tools/host-measure/ipi_latency.py [--from-cpu 0] [--to-cpu 1] [--wakeups 1000]

A writer pinned to --from-cpu wakes a reader pinned to --to-cpu through a pipe every 3 ms.
With --to-cpu idle the wakeup queues the reader on the idle CPU's wake list and sends it a
function-call IPI; with a nice-19 busy loop on --to-cpu it enqueues the reader there and
sends a reschedule IPI. bpftrace times each IPI from `ipi:ipi_send_cpu` on the sender to
`irq_vectors:call_function_single_entry` or `reschedule_entry` on the target. The busy
case's median is the IPI's delivery (`ipi_latency`); the idle case's median less it is the
idle CPU's exit (`idle_exit_latency`). On a virtual machine both include the hypervisor's
work (a halted vCPU must be woken and scheduled). Needs root and bpftrace; without them it
says which and exits 0. Every process it starts is stopped before it returns.
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

import bpftrace_run

SCRIPT = r"""
tracepoint:ipi:ipi_send_cpu /cpu == $1 && args->cpu == $2/ { @sent = nsecs; }
tracepoint:irq_vectors:call_function_single_entry, tracepoint:irq_vectors:reschedule_entry
/cpu == $2 && @sent != 0/ {
  @lat[nsecs] = nsecs - @sent;
  @sent = 0;
}
"""
LAT = re.compile(r"@lat\[\d+\]: (\d+)")


def missing(src: int, dst: int) -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("bpftrace") is None:
        return "needs bpftrace"
    if src == dst or not {src, dst} <= os.sched_getaffinity(0):
        return f"needs two CPUs, {src} and {dst}, to run on"
    return None


def reader(cpu: int, fd: int) -> None:
    os.sched_setaffinity(0, {cpu})
    while os.read(fd, 1):
        pass
    os._exit(0)


def writer(cpu: int, fd: int, wakeups: int) -> None:
    os.sched_setaffinity(0, {cpu})
    for _ in range(wakeups):
        time.sleep(0.003)
        os.write(fd, b"x")
    os._exit(0)


def measure(src: int, dst: int, wakeups: int, busy: bool, tmp: str) -> list[int]:
    """The latencies (ns) of the IPIs from src to dst during one run."""
    script = os.path.join(tmp, "ipi.bt")
    with open(script, "w") as f:
        f.write(SCRIPT)
    out_path = os.path.join(tmp, "out.txt")
    children: list[int] = []
    tracer = bpftrace_run.start([script, str(src), str(dst)], out_path, map_keys=100_000)
    try:
        if busy:
            children.append(bpftrace_run.fork_spinner(dst, nice=19))
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(w)
            reader(dst, r)
        children.append(pid)
        pid = os.fork()
        if pid == 0:
            os.close(r)
            writer(src, w, wakeups)
        os.close(r)
        os.close(w)
        os.waitpid(pid, 0)
        bpftrace_run.stop(tracer)
    finally:
        bpftrace_run.reap(children)
        bpftrace_run.end(tracer)
    with open(out_path) as f:
        return [int(m.group(1)) for m in LAT.finditer(f.read())]


def describe(name: str, lat: list[int]) -> float:
    us = sorted(x / 1000 for x in lat)
    if not us:
        print(f"{name}: no IPI seen")
        return float("nan")
    q = statistics.quantiles(us, n=10) if len(us) > 1 else [us[0]] * 9
    med = statistics.median(us)
    print(
        f"{name}: {len(us)} IPIs, median {med:.1f} us, p10 {q[0]:.1f}, p90 {q[8]:.1f}, "
        f"max {us[-1]:.1f}"
    )
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from-cpu", type=int, default=0)
    ap.add_argument("--to-cpu", type=int, default=1)
    ap.add_argument("--wakeups", type=int, default=1000)
    args = ap.parse_args()
    why = missing(args.from_cpu, args.to_cpu)
    if why:
        print(f"ipi_latency: {why}; nothing done")
        return 0
    tmp = tempfile.mkdtemp(prefix="libsched-ipi-")
    try:
        busy = describe(
            "to a busy CPU", measure(args.from_cpu, args.to_cpu, args.wakeups, True, tmp)
        )
        idle = describe(
            "to an idle CPU", measure(args.from_cpu, args.to_cpu, args.wakeups, False, tmp)
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if busy == busy and idle == idle:
        print("[machine]")
        print(f'ipi_latency = "{round(busy)}us"  # median IPI to a busy CPU')
        print(
            f'idle_exit_latency = "{max(0, round(idle - busy))}us"  '
            "# median IPI to an idle CPU, less the above"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
