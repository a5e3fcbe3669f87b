#!/usr/bin/env python3
"""Read where NI_RANDOM's newly idle balancing stands on each CPU of this host, and print
the `[machine]` line that starts a scenario from it (docs/scenario-format.md:
`newidle_ratio`; docs/validation.md, "Newly idle balancing on the 6.18 host").

    sudo python3 tools/host-measure/newidle_ratio.py [--seconds 1] [--lower 4]

With NI_RANDOM (6.19; 6.18.5, 6.12.65, 6.6.120, 6.1.160) a CPU about to go idle tries each
level of its sched domains only with the probability of that level's recent success,
`sd->newidle_ratio` out of 1024. sd_init() starts it at 512; from then on it is the
successes of the last 512 to 1024 tries, updated every 512 tries, so it says what the
host did before, not what the scenario will do. bpftrace reads every domain of the CPU at
each `sched:sched_switch` while a short sleeper on each CPU makes sure every CPU switches;
each CPU's lowest level gives the line. `--lower S` first drives every CPU's rates
down to 0, as a host that has long failed to pull: for S seconds per CPU two busy loops
pinned to another CPU keep the machine overloaded while a sleeper on it goes idle every
0.5 ms and finds nothing it may pull. Needs root and bpftrace with BTF; without them,
or on a kernel without NI_RANDOM, it says so and exits 0. Every process it starts is
stopped before it returns.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time

import bpftrace_run

SCRIPT = r"""
tracepoint:sched:sched_switch {
  $sd = ((struct task_struct *)curtask)->se.cfs_rq->rq->sd;
  unroll(6) {
    if ($sd != 0) {
      @s[cpu, $sd->level] = (str($sd->name), (uint64)$sd->newidle_call,
                             (uint64)$sd->newidle_success, (uint64)$sd->newidle_ratio);
      $sd = (struct sched_domain *)$sd->parent;
    }
  }
}
"""
STATE = re.compile(r"@s\[(\d+), (\d+)\]: \((\w+), (\d+), (\d+), (\d+)\)")


def missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("bpftrace") is None:
        return "needs bpftrace"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "needs BTF (/sys/kernel/btf/vmlinux)"
    if len(os.sched_getaffinity(0)) < 2:
        return "needs two CPUs"
    return None


def parse(dump: str) -> dict[int, list[tuple[int, str, int, int, int]]]:
    """Per CPU, its levels as (level, name, newidle_call, newidle_success, newidle_ratio),
    lowest first."""
    cpus: dict[int, list[tuple[int, str, int, int, int]]] = {}
    for m in STATE.finditer(dump):
        cpu, level, name, call, success, ratio = m.groups()
        cpus.setdefault(int(cpu), []).append(
            (int(level), name, int(call), int(success), int(ratio))
        )
    return {cpu: sorted(levels) for cpu, levels in sorted(cpus.items())}


def machine_line(cpus: dict[int, list[tuple[int, str, int, int, int]]]) -> str:
    """newidle_ratio = [...]: each CPU's lowest level, one value if all agree."""
    rates = [levels[0][4] for _, levels in sorted(cpus.items())]
    value = str(rates[0]) if len(set(rates)) == 1 else "[" + ", ".join(map(str, rates)) + "]"
    return f"newidle_ratio = {value}"


def sleeper(cpu: int, seconds: float, period: float = 0.001) -> None:
    """The forked child: on cpu, sleep `period` at a time for `seconds`, then exit."""
    os.sched_setaffinity(0, {cpu})
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(period)
    os._exit(0)


def lower(seconds: float) -> None:
    """Every newly idle pass of each CPU in turn fails for `seconds`."""
    cpus = sorted(os.sched_getaffinity(0))
    children: list[int] = []
    try:
        for cpu in cpus:
            busy = next(c for c in cpus if c != cpu)
            children += [bpftrace_run.fork_spinner(busy), bpftrace_run.fork_spinner(busy)]
            pid = os.fork()
            if pid == 0:
                sleeper(cpu, seconds, period=0.0005)
            os.waitpid(pid, 0)
            bpftrace_run.reap(children)
    finally:
        bpftrace_run.reap(children)


def read_state(seconds: float, tmp: str) -> tuple[str, str]:
    """bpftrace's dump and its error output over `seconds` of sleepers on every CPU."""
    script = os.path.join(tmp, "newidle.bt")
    with open(script, "w") as f:
        f.write(SCRIPT)
    out_path = os.path.join(tmp, "out.txt")
    children: list[int] = []
    tracer = None
    try:
        tracer = bpftrace_run.start([script], out_path, map_keys=4096)
        for cpu in sorted(os.sched_getaffinity(0)):
            pid = os.fork()
            if pid == 0:
                sleeper(cpu, seconds)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        children.clear()
        bpftrace_run.stop(tracer)
    except RuntimeError as e:
        return "", str(e)
    finally:
        bpftrace_run.reap(children)
        bpftrace_run.end(tracer)
    with open(out_path) as f:
        return f.read(), ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--lower", type=float, metavar="S", help="drive the rates to 0 first")
    args = ap.parse_args()
    why = missing()
    if why:
        print(f"newidle_ratio: {why}; nothing done")
        return 0
    if args.lower:
        lower(args.lower)
    tmp = tempfile.mkdtemp(prefix="libsched-newidle-")
    try:
        dump, error = read_state(args.seconds, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cpus = parse(dump)
    if not cpus:
        print(
            "newidle_ratio: no sched_domain.newidle_ratio read (a kernel without NI_RANDOM, "
            f"or a bpftrace that could not attach{': ' + error if error else ''}); nothing done"
        )
        return 0
    for cpu, levels in cpus.items():
        print(
            f"cpu {cpu}: "
            + "; ".join(
                f"{name} (level {level}) ratio {ratio}, {call} calls, {success} weighed successes"
                for level, name, call, success, ratio in levels
            )
        )
    print("[machine]")
    print(f"{machine_line(cpus)}  # each CPU's lowest level, read {time.strftime('%Y-%m-%d')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
