#!/usr/bin/env python3
"""Run rt-app workload files on this host with Debian's rt-app, simulate the same files for
this host's machine with libsched, and print the two side by side (docs/validation.md,
"The same rt-app file on the host and in the model").

    python3 tools/host-measure/rt_app_host.py [FILE.json ...] [--repetitions N] [--json OUT]

Without files it runs examples/rt-app/periodic-and-burner.json and ping-pong.json. It needs
root and `rt-app` (Debian: apt-get install rt-app); without either it says which and exits 0
having done nothing. Each repetition waits (at most --quiet-wait seconds) for a second in
which the workload's CPUs are at most 10 % busy, runs rt-app in a temporary directory (its
logs land there: the file's `logdir` must be relative), reads every rt-app thread's
/proc/PID/task/TID/schedstat and status at the window's ends (--margin seconds after the
threads appear and before the file's duration ends), then kills rt-app if it is still alive
and removes the directory. The model runs with the same window, read off rt-app's log.

Host figures: share = the threads' schedstat runtime over the window; switches from status;
from rt-app's per-loop log (loops ending in the window): a timer's lateness is wu_lat
(clock_nanosleep's return minus the expiry) of the loops that slept, an overrun a loop whose
expiry had passed (slack <= 0: no sleep, wu_lat 0), the loop time its `period` column.
Model figures: the same from libsched.run (lateness, loops, loop_time). "Other work" is the
workload's CPUs' busy time in /proc/stat (steal included) less every rt-app thread's runtime.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measure_groups import USER_HZ, foreign_busy_check, proc_stat_busy

import libsched
from libsched import _core

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FILES = [
    ROOT / "examples/rt-app/periodic-and-burner.json",
    ROOT / "examples/rt-app/ping-pong.json",
]
NS, US = 1_000_000_000, 1_000
LOG_COLUMNS = [
    "idx",
    "perf",
    "run",
    "period",
    "start",
    "end",
    "rel_st",
    "slack",
    "c_duration",
    "c_period",
    "wu_lat",
]
SAMPLE_S = 0.02  # how often the threads are read
MANY = 100  # loops in the window for a per-loop CPU time (the edges matter less)
DISTURBED = 0.05  # other work above this fraction of the workload's CPUs sets a repetition aside


def missing_prerequisite() -> str | None:
    """Why this host cannot run the comparison, or None."""
    if shutil.which("rt-app") is None:
        return "rt-app is not installed (Debian: apt-get install rt-app)"
    if os.geteuid() != 0:
        return "rt-app's placement (affinity, policy, priority) needs root"
    return None


def nearest_rank(values: list[int], p: float) -> int | None:
    """The smallest value with at least p % of the sample at or below it (as libsched)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * p // 100) - 1)]


def threads(pid: int) -> dict[int, dict[str, Any]]:
    """Every thread of the process: name, schedstat runtime and wait (ns), switches."""
    out: dict[int, dict[str, Any]] = {}
    for entry in Path(f"/proc/{pid}/task").iterdir():
        try:
            comm = (entry / "comm").read_text().strip()
            runtime, wait, _ = (int(x) for x in (entry / "schedstat").read_text().split())
            status = dict(
                line.split(":\t", 1) for line in (entry / "status").read_text().splitlines()
            )
        except (OSError, ValueError):
            continue  # the thread has just exited
        out[int(entry.name)] = {
            "name": comm,
            "runtime": runtime,
            "run_delay": wait,
            "nvcsw": int(status["voluntary_ctxt_switches"]),
            "nivcsw": int(status["nonvoluntary_ctxt_switches"]),
        }
    return out


def read_log(path: Path) -> list[dict[str, int]]:
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            values = [int(x) for x in line.split()]
            if len(values) != len(LOG_COLUMNS):
                raise RuntimeError(f"{path.name}: not rt-app 1.0's log columns: {line}")
            rows.append(dict(zip(LOG_COLUMNS, values)))
    return rows


def run_host(
    path: Path, scenario: libsched.Scenario, cpus: list[str], margin_s: float
) -> dict[str, Any]:
    """One run of rt-app on the file: the window's thread figures and rt-app's logs."""
    names = [t["name"] for t in scenario.get("tasks")]
    length_s = int(scenario.get("length").removesuffix("s"))
    with tempfile.TemporaryDirectory(prefix="libsched-rt-app-") as tmp:
        shutil.copy(path, tmp)
        with open(Path(tmp) / "rt-app.out", "w") as out:
            proc = subprocess.Popen(
                ["rt-app", path.name], cwd=tmp, stdout=out, stderr=subprocess.STDOUT
            )
        try:
            deadline = time.monotonic() + 60  # rt-app calibrates for some seconds first
            while {t["name"] for t in threads(proc.pid).values()} < set(names):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"rt-app did not start the threads {names}: {(Path(tmp) / 'rt-app.out').read_text()}"
                    )
                time.sleep(0.001)
            # rt-app sets its threads up before their start, which only its log tells:
            # sample all along and choose the window's ends afterwards.
            samples = []
            while proc.poll() is None and time.monotonic() < deadline + length_s:
                samples.append((time.monotonic_ns(), threads(proc.pid), proc_stat_busy()))
                time.sleep(SAMPLE_S)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # rt-app names its logs BASENAME-TASK-INDEX.log.
        files = sorted(Path(tmp).glob("*.log"))
        logs = {
            name: [
                row
                for f in files
                if re.fullmatch(rf".*-{re.escape(name)}-\d+\.log", f.name)
                for row in read_log(f)
            ]
            for name in names
        }
    # rt-app's log times are CLOCK_MONOTONIC microseconds; rel_st counts from its start.
    first = next((rows[0] for rows in logs.values() if rows), None)
    if first is None:
        raise RuntimeError(f"{path.name}: rt-app logged no loop (did its tasks wait for ever?)")
    zero_ns = (first["start"] - first["rel_st"]) * US
    start, stop = zero_ns + int(margin_s * NS), zero_ns + int((length_s - margin_s) * NS)
    t0, a, busy_a = next(x for x in samples if x[0] >= start)
    t1, b, busy_b = next(x for x in reversed(samples) if x[0] <= stop)
    window_ns = t1 - t0
    tasks = {}
    for name in names:
        tids = [tid for tid, t in b.items() if t["name"] == name and tid in a]
        delta = {
            k: sum(b[tid][k] - a[tid][k] for tid in tids)
            for k in ("runtime", "run_delay", "nvcsw", "nivcsw")
        }
        rows = [r for r in logs[name] if t0 <= r["end"] * US < t1]
        tasks[name] = {"threads": len(tids), **delta, "log": rows}
    ours = sum(b[tid]["runtime"] - a[tid]["runtime"] for tid in b if tid in a)
    busy = sum(busy_b[c] - busy_a[c] for c in cpus) * NS // USER_HZ
    return {
        "window": [t0 - zero_ns, t1 - zero_ns],
        "tasks": tasks,
        "other_work": (busy - ours) / (window_ns * len(cpus)),
    }


def host_figures(
    run: dict[str, Any], timer_tasks: set[str], head_waits: set[str]
) -> dict[str, dict[str, Any]]:
    seconds = (run["window"][1] - run["window"][0]) / NS
    out = {}
    for name, t in run["tasks"].items():
        rows = t["log"]
        slept = [r["wu_lat"] * US for r in rows if r["slack"] > 0]
        fig: dict[str, Any] = {
            "share": t["runtime"] / (seconds * NS),
            "nvcsw_per_s": t["nvcsw"] / seconds,
            "nivcsw_per_s": t["nivcsw"] / seconds,
            "loops": len(rows) if rows else None,
            "run_p50": nearest_rank([r["run"] * US for r in rows], 50),
            # CPU time per loop: rt-app's run is calibrated work, not CPU time.
            "cpu_per_loop": t["runtime"] / len(rows) if len(rows) >= MANY else None,
            # schedstat's run_delay (every wait on the run queue, after a wakeup or a
            # preemption) per blocking switch.
            "wait_per_vcsw": t["run_delay"] / t["nvcsw"] if t["nvcsw"] else None,
        }
        if name not in head_waits:
            periods = [r["period"] * US for r in rows]
            fig.update(loop_p50=nearest_rank(periods, 50), loop_p99=nearest_rank(periods, 99))
        if name in timer_tasks:
            fig.update(
                wakeups=len(slept),
                overruns=len(rows) - len(slept),
                late_p50=nearest_rank(slept, 50),
                late_p99=nearest_rank(slept, 99),
                late_max=max(slept, default=None),
            )
        out[name] = fig
    return out


def shifted(scenario: libsched.Scenario, window: list[int], shift: int) -> libsched.Scenario:
    """The scenario with the window, and every task's start, `shift` ns later: the model's
    ticks fall at multiples of the tick period from its time 0, and this puts the tasks'
    timers at the phase they have on the host against its ticks."""
    values: dict[str, Any] = {"window": [window[0] + shift, window[1] + shift]}
    for i, task in enumerate(scenario.get("tasks")):
        start = _core.system.parse_duration(str(task.get("start", "0ns"))) or 0
        values[f"tasks[{i}].start"] = start + shift
    return scenario.with_values(values)


def model_figures(
    scenario: libsched.Scenario,
    window: list[int],
    timer_tasks: set[str],
    head_waits: set[str],
    shift: int = 0,
) -> dict[str, dict[str, Any]]:
    doc = libsched.run(shifted(scenario, window, shift), repetitions=1)
    out = {}
    for s in doc["summary"]:
        name = s["entry"]
        mine = [t for t in doc["repetitions"][0]["tasks"] if t["entry"] == name]
        wakeups = sum(t["window_nvcsw"] for t in mine)  # blocking switches, as on the host
        fig: dict[str, Any] = {
            "share": s["share"],
            "nvcsw_per_s": s["nvcsw_per_s"],
            "nivcsw_per_s": s["nivcsw_per_s"],
            "loops": s["loops"],
            "run_p50": None,  # the model runs exactly the written work
            "cpu_per_loop": sum(t["window_runtime"] for t in mine) / s["loops"]
            if s["loops"] >= MANY
            else None,
            "wait_per_vcsw": sum(t["run_delay"]["sum"] for t in mine) / wakeups
            if wakeups
            else None,
        }
        if name not in head_waits:
            fig.update(loop_p50=s["loop_time"]["p50"], loop_p99=s["loop_time"]["p99"])
        if name in timer_tasks:
            late = [t["lateness"] for t in mine]
            count = sum(x["count"] for x in late)
            fig.update(
                wakeups=count,
                overruns=s["loops"] - count,
                late_p50=late[0]["p50"] if len(late) == 1 else None,
                late_p99=late[0]["p99"] if len(late) == 1 else None,
                late_max=max((x["max"] for x in late if x["max"] is not None), default=None),
            )
        out[name] = fig
    return out


def median_figures(runs: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, fig in runs[0].items():
        out[name] = {}
        for key in fig:
            values = [r[name][key] for r in runs if r[name][key] is not None]
            out[name][key] = statistics.median(values) if values else None
    return out


def show(value: Any, key: str) -> str:
    if value is None:
        return "-"
    if key == "share":
        return f"{100 * value:.2f} %"
    if key.endswith("_per_s"):
        return f"{value:,.1f} /s"
    if key in ("loops", "wakeups", "overruns"):
        return f"{value:,.0f}"
    return f"{value / US:,.0f} us"


def report(result: dict[str, Any]) -> str:
    runs, host, model, phased = (result[k] for k in ("runs", "host", "model", "model_phase"))
    other = ", ".join(f"{100 * r['other_work']:.1f} %" for r in runs)
    phases = ", ".join("-" if p is None else f"{p / US:,.0f} us" for p in result["tick_phases"])
    lines = [
        f"{result['file']}: host (median of {len(runs)} runs, {result['set_aside']} set aside)"
        " against the model",
        f"  other work on the workload's CPUs in each run: {other}",
        f"  a timer's expiries after a host tick in each run: {phases} (and every period on)",
        f"  {'task':<10} {'figure':<14} {'host':>14} {'model':>14} {'at the phase':>14}",
    ]
    for name, fig in host.items():
        for key, value in fig.items():
            ours = [show(m[name].get(key) if m else None, key) for m in (model, phased)]
            lines.append(
                f"  {name:<10} {key:<14} {show(value, key):>14} {ours[0]:>14} {ours[1]:>14}"
            )
    return "\n".join(lines)


def timer_phase(run: dict[str, Any], timer_tasks: set[str], tick: int) -> int | None:
    """When, after a host tick, the first timer task's expiries fall (None without timers)."""
    for name in sorted(timer_tasks):
        for row in run["tasks"][name]["log"]:
            if row["slack"] > 0:
                return (row["end"] - row["wu_lat"]) * US % tick
    return None


def compare(path: Path, repetitions: int, margin_s: float, quiet_wait_s: float) -> dict[str, Any]:
    """Runs the file on the host until `repetitions` runs were undisturbed (at most twice as
    many tries; then the least disturbed are kept) and simulates each run's window."""
    machine = libsched.Scenario(machine=libsched.host_machine(), tasks=[])
    scenario = libsched.Scenario.from_rt_app(path, machine=machine)
    tasks = scenario.get("tasks")
    timer_tasks = {t["name"] for t in tasks if any("timer" in s for s in t["behaviour"]["steps"])}
    head_waits = {
        t["name"] for t in tasks if {"suspend", "sem_wait"} & set(t["behaviour"]["steps"][0])
    }
    pinned = sorted({c for t in tasks for c in t.get("affinity", [])})
    cpus = (
        [f"cpu{c}" for c in pinned] if pinned else [f"cpu{c}" for c in range(os.cpu_count() or 1)]
    )
    runs: list[dict[str, Any]] = []
    for _ in range(2 * repetitions):
        waited = 0.0
        while max(foreign_busy_check(1.0)[c] for c in cpus) > 0.10 and waited < quiet_wait_s:
            waited += 1.0
        runs.append(run_host(path, scenario, cpus, margin_s))
        if sum(r["other_work"] <= DISTURBED for r in runs) >= repetitions:
            break
    quiet = [r for r in runs if r["other_work"] <= DISTURBED]
    kept = quiet if len(quiet) >= repetitions else sorted(runs, key=lambda r: r["other_work"])
    kept = kept[:repetitions]
    hosts = [host_figures(r, timer_tasks, head_waits) for r in kept]
    models = [model_figures(scenario, r["window"], timer_tasks, head_waits) for r in kept]
    # The host's ticks come at multiples of the tick period of CLOCK_MONOTONIC (the jiffies
    # grid), a timer's expiries at multiples of its period from its thread's start: the
    # model, whose ticks start at its time 0, is run once more with its tasks moved to put
    # their expiries at the host's phase (the first expiry rt-app slept until: end - wu_lat).
    tick = NS // scenario.get("machine.hz")
    phases = [timer_phase(r, timer_tasks, tick) for r in kept]
    phased = [
        model_figures(scenario, r["window"], timer_tasks, head_waits, phase)
        for r, phase in zip(kept, phases)
        if phase is not None
    ]
    return {
        "file": path.name,
        "runs": kept,
        "set_aside": len(runs) - len(kept),
        "host": median_figures(hosts),
        "model": median_figures(models),
        "model_phase": median_figures(phased) if phased else None,
        "tick_phases": phases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument(
        "--margin", type=float, default=0.5, help="seconds left out at each end of the run"
    )
    parser.add_argument(
        "--quiet-wait", type=float, default=60.0, help="seconds to wait at most for a quiet second"
    )
    parser.add_argument("--json", type=Path, help="write every figure and run here")
    args = parser.parse_args()
    # A SIGTERM unwinds like Ctrl-C, so that rt-app is killed and its directory removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    reason = missing_prerequisite()
    if reason is not None:
        print(f"rt_app_host: skipped: {reason}")
        return 0
    results = []
    for path in args.files:
        result = compare(path, args.repetitions, args.margin, args.quiet_wait)
        print(report(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
