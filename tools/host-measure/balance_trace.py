#!/usr/bin/env python3
"""Trace the load balancer of this host while burners in one CFS-bandwidth group run
(docs/validation.md, "Real 6.18 host: groups, bandwidth, autogroup and RT", cases 6a/6b).

    sudo python3 tools/host-measure/balance_trace.py [--burners 3] [--quota-us 150000]
        [--period-us 100000] [--seconds 10] [--timeline FILE]

It compiles burner.c, creates a cpu cgroup (v1 `cpu.cfs_quota_us`, or v2 `cpu.max`) with
the quota, starts balance_trace.bt under bpftrace, starts the burners in the group (not
pinned) for --seconds, then stops bpftrace and prints, per CPU, what each periodic balance
pass (SCHED_SOFTIRQ) did (not due, moved a burner here, failed: nr_balance_failed grew,
balanced), the balance intervals seen, and each burner's moves and CPU time. --timeline
writes every event, one line each. The cgroup and the burners are removed at the end,
also on error. Needs root, bpftrace with BTF (/sys/kernel/btf/vmlinux) and gcc; without
them it says which and exits 0.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import bpftrace_run

HERE = os.path.dirname(os.path.abspath(__file__))
NS = 1_000_000_000
COMM = "burner"
EVENT = re.compile(r"@e\[(\d+), (\d+)\]: \((.*)\)")


def missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("bpftrace", "gcc"):
        if shutil.which(tool) is None:
            return f"needs {tool}"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "needs a kernel with BTF (/sys/kernel/btf/vmlinux)"
    if not os.path.isdir("/sys/fs/cgroup/cpu") and "cpu" not in read_words(
        "/sys/fs/cgroup/cgroup.subtree_control"
    ):
        return "needs the cpu controller (cgroup v1, or v2 with cpu in cgroup.subtree_control)"
    if len(os.sched_getaffinity(0)) < 2:
        return "needs two CPUs"
    return None


def read_words(path: str) -> list[str]:
    try:
        with open(path) as f:
            return f.read().split()
    except OSError:
        return []


def make_group(quota_us: int, period_us: int) -> str:
    """A cpu cgroup with the quota; its path."""
    name = f"libsched-lb-{os.getpid()}"
    if os.path.isdir("/sys/fs/cgroup/cpu"):
        path = os.path.join("/sys/fs/cgroup/cpu", name)
        os.mkdir(path)
        write(os.path.join(path, "cpu.cfs_period_us"), period_us)
        write(os.path.join(path, "cpu.cfs_quota_us"), quota_us)
    else:
        path = os.path.join("/sys/fs/cgroup", name)
        os.mkdir(path)
        write(os.path.join(path, "cpu.max"), f"{quota_us} {period_us}")
    return path


def write(path: str, value: object) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def parse(dump: str) -> list[tuple[int, int, list[str]]]:
    events = []
    for line in dump.splitlines():
        m = EVENT.match(line)
        if m:
            fields = [x.strip() for x in m.group(3).split(",")]
            events.append((int(m.group(1)), int(m.group(2)), fields))
    events.sort()
    return events


def passes(events: list[tuple[int, int, list[str]]]) -> list[dict]:
    """Each SCHED_SOFTIRQ of a CPU, entry to exit, and what its balance pass did."""
    entry: dict[int, list[str]] = {}
    moved: dict[int, int] = collections.Counter()
    out = []
    for _, cpu, f in events:
        kind = f[0]
        if kind == "E":
            entry[cpu] = f
            moved[cpu] = 0
        elif kind == "M" and cpu in entry and int(f[3]) == cpu:
            moved[cpu] += 1
        elif kind == "X" and cpu in entry:
            e = entry.pop(cpu)
            nr, bi, nbf, last = (int(x) for x in e[1:5])
            bi_x, nbf_x, last_x = int(f[2]), int(f[3]), int(f[4])
            if last_x == last:
                what = "not due"
            elif moved[cpu]:
                what = "moved"
            elif nbf_x > nbf:
                what = "failed"
            else:
                what = "balanced"
            out.append(dict(cpu=cpu, nr_running=nr, what=what, interval=bi, interval_after=bi_x))
    return out


def report(events, burners: dict[int, dict], seconds: float) -> None:
    ps = passes(events)
    print(f"balance passes (SCHED_SOFTIRQ) over {seconds:g} s, by CPU and nr_running at entry:")
    table = collections.Counter((p["cpu"], p["nr_running"], p["what"]) for p in ps)
    for (cpu, nr, what), n in sorted(table.items()):
        print(f"  cpu{cpu}  nr_running {nr}  {what:9s} {n:5d}")
    intervals = collections.Counter(p["interval_after"] for p in ps)
    print(
        "balance_interval after each pass (ms): "
        + ", ".join(f"{k}: {v}" for k, v in sorted(intervals.items()))
    )
    moves = collections.Counter(int(f[1]) for _, _, f in events if f[0] == "M")
    print("burners: pid, moves traced, CPU s, se.nr_migrations at exit")
    for pid, rec in sorted(burners.items()):
        cpu_s = rec.get("sum_exec_runtime_ns", 0) / NS
        print(f"  {pid}  {moves.get(pid, 0):4d}  {cpu_s:7.3f}  {rec.get('nr_migrations')}")


def timeline(events, path: str) -> None:
    t0 = events[0][0] if events else 0
    with open(path, "w") as out:
        for t, cpu, f in events:
            ms = (t - t0) / 1e6
            if f[0] in ("E", "X"):
                out.write(
                    f"{ms:10.3f} {f[0]} cpu{cpu} nr_running={f[1]} balance_interval={f[2]} "
                    f"nr_balance_failed={f[3]} last_balance={f[4]} next_balance={f[5]} "
                    f"nohz_tick_stopped={f[6]} runtime_remaining={f[7]} load_avg={f[8]}\n"
                )
            elif f[0] == "M":
                out.write(f"{ms:10.3f} M cpu{cpu} pid={f[1]} {f[2]}->{f[3]}\n")
            else:
                out.write(f"{ms:10.3f} S cpu{cpu} {f[1]} prev_state={f[2]} -> {f[3]}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--burners", type=int, default=3)
    ap.add_argument("--quota-us", type=int, default=150000)
    ap.add_argument("--period-us", type=int, default=100000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--timeline", help="write every event here, one per line")
    args = ap.parse_args()
    why = missing()
    if why:
        print(f"balance_trace: {why}; nothing done")
        return 0
    tmp = tempfile.mkdtemp(prefix="libsched-lb-")
    group = None
    procs: list[subprocess.Popen] = []
    tracer = None
    try:
        burner = os.path.join(tmp, COMM)
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-o", burner, os.path.join(HERE, "burner.c")], check=True
        )
        group = make_group(args.quota_us, args.period_us)
        out_path = os.path.join(tmp, "trace.txt")
        tracer = bpftrace_run.start(
            [os.path.join(HERE, "balance_trace.bt"), COMM], out_path, map_keys=1_000_000
        )
        time.sleep(1.0)
        deadline = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + int(0.5 * NS + args.seconds * NS)
        for _ in range(args.burners):
            p = subprocess.Popen(
                [burner, str(deadline)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            write(os.path.join(group, "cgroup.procs"), p.pid)
            procs.append(p)
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("x")
            p.stdin.flush()
        burners = {}
        for p in procs:
            stdout, _ = p.communicate(timeout=args.seconds + 30)
            burners[p.pid] = json.loads(stdout.strip().splitlines()[-1])
        bpftrace_run.stop(tracer)
        with open(out_path) as f:
            events = parse(f.read())
        report(events, burners, args.seconds)
        if args.timeline:
            timeline(events, args.timeline)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        bpftrace_run.end(tracer)
        if group is not None:
            for _ in range(50):
                try:
                    os.rmdir(group)
                    break
                except OSError:
                    time.sleep(0.1)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
