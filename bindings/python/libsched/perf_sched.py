"""A recorded schedule as a workload: the text ``perf sched script`` prints of a
``perf sched record`` (or ``libsched run --trace``'s CSV), turned into a scenario whose
tasks ask for the CPU as the traced ones did (docs/perf-import.md).

Each traced task becomes a ``[[tasks]]`` entry with a program of steps: ``run`` for the
CPU time it used between waking up and blocking (the time it was switched in, across any
preemptions), ``sleep`` for the time from blocking to being woken, once through, then it
exits; a task that never blocked nor exited becomes a burner. What woke a task (a timer,
another task, an interrupt) is not in the trace, so each wakeup becomes a timed sleep (an
absolute timer's, for the tasks named with a period); the schedule the model makes of these
demands can then be set beside the recorded one, under another release, nice values or
machine. The scenario starts on the trace's tick grid, so that the model's ticks fall where
the traced machine's did.
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional, TextIO, Union

from . import _core
from ._source import scenario_source
from .compare import Measurements
from .scenario import Scenario

PathLike = Union[str, "os.PathLike[str]"]

# One line of `perf sched script` (or `perf script` of the sched tracepoints): the
# current task, its pid, [cpu], seconds (micro- or nanosecond digits), the event, its fields.
_LINE = re.compile(
    r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>\d+\.\d+):\s+"
    r"(?:sched:)?(?P<event>\w+):\s*(?P<fields>.*)$"
)
_SWITCH = re.compile(
    r"prev_comm=(?P<prev_comm>.*?) prev_pid=(?P<prev_pid>\d+) prev_prio=(?P<prev_prio>-?\d+) "
    r"prev_state=(?P<prev_state>\S+) ==> next_comm=(?P<next_comm>.*?) "
    r"next_pid=(?P<next_pid>\d+) next_prio=(?P<next_prio>-?\d+)"
)
_WAKE = re.compile(
    r"comm=(?P<comm>.*?) pid=(?P<pid>\d+) prio=(?P<prio>-?\d+)(?: target_cpu=(?P<target>\d+))?"
)

# Per-CPU kernel threads are bound to their CPU: ksoftirqd/1, cpuhp/0, kworker/1:2,
# kworker/0:1H-kblockd (a kworker's comm may carry its workqueue); not irq/24-virtio0, whose
# number is the interrupt's, nor kworker/u8:5, an unbound one. The stoppers ("migration/N")
# are the model's own.
_PER_CPU_KTHREAD = re.compile(r"^(?:kworker/(\d+):\d+H?(?:-.*)?|[\w.-]+/(\d+))$")
_STOPPER = re.compile(r"^migration/\d+$")


def per_cpu_kthread_cpu(comm: str) -> Optional[int]:
    """The CPU a per-CPU kernel thread of this comm is bound to; None for any other."""
    bound = _PER_CPU_KTHREAD.match(comm)
    return None if bound is None else int(bound[1] or bound[2])


def is_stopper(comm: str) -> bool:
    """Whether the thread is a CPU's stopper (migration/N), which the model has itself."""
    return _STOPPER.match(comm) is not None


@dataclass
class _Event:
    time: int  # ns
    cpu: int
    kind: str  # switch, wakeup, wakeup_new, exit
    pid: int
    comm: str
    prio: Optional[int] = None
    prev_state: str = ""
    next_pid: int = -1
    next_comm: str = ""
    next_prio: Optional[int] = None
    target_cpu: int = -1  # a wakeup's CPU


@dataclass
class _Task:
    pid: int
    comm: str
    start: int
    prio: Optional[int] = None
    cpus: set[int] = field(default_factory=set)
    steps: list[tuple[str, int]] = field(default_factory=list)
    first_wakeup: Optional[int] = None  # when its first sleep in the trace ended (ns)
    on_cpu_since: Optional[int] = None
    burst: int = 0
    asleep_since: Optional[int] = None
    blocked: bool = False
    exited: Optional[int] = None  # when it exited (ns), if it did

    def woke(self, at: int, asleep_since: int) -> None:
        self.steps.append(("sleep", at - asleep_since))
        if self.first_wakeup is None:
            self.first_wakeup = at
        self.asleep_since = None

    def end_burst(self) -> None:
        if self.burst > 0:
            self.steps.append(("run", self.burst))
        self.burst = 0


class TraceError(ValueError):
    """A trace that cannot be read: names the file and line."""


def _seconds_to_ns(text: str) -> int:
    whole, _, frac = text.partition(".")
    return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])


def read_perf_script(lines: Iterable[str], origin: str = "<trace>") -> Iterator[_Event]:
    """The scheduling events of ``perf sched script`` text: sched_switch, sched_waking (or
    sched_wakeup where the trace has no sched_waking), sched_wakeup_new,
    sched_process_exit; other lines are skipped.

    Each line also says which task its CPU runs (the comm and pid before the CPU): where
    that is not the task the CPU last switched to, the trace lost that task's switch-out
    (perf drops events, and some are never recorded), and an event is made up for it: the
    task blocked when it was last seen running there."""
    waking_seen = False
    current: dict[int, tuple[int, str, int]] = {}  # CPU -> pid, comm, last seen running
    for number, line in enumerate(lines, 1):
        m = _LINE.match(line)
        if m is None:
            continue
        event = m["event"]
        time = _seconds_to_ns(m["time"])
        cpu = int(m["cpu"])
        fields = m["fields"]
        running = int(m["pid"])
        pid, comm, seen = current.get(cpu, (running, m["comm"], time))
        if pid != running and pid != 0:
            yield _Event(seen, cpu, "switch", pid, comm, None, "S", 0, "swapper", None)
        current[cpu] = (running, m["comm"], time)
        if event == "sched_switch":
            s = _SWITCH.search(fields)
            if s is None:
                raise TraceError(
                    f"{origin}:{number}: a sched_switch without its fields: {line.strip()}"
                )
            current[cpu] = (int(s["next_pid"]), s["next_comm"], time)
            yield _Event(
                time,
                cpu,
                "switch",
                int(s["prev_pid"]),
                s["prev_comm"],
                int(s["prev_prio"]),
                s["prev_state"],
                int(s["next_pid"]),
                s["next_comm"],
                int(s["next_prio"]),
            )
            continue
        if event not in (
            "sched_waking",
            "sched_wakeup",
            "sched_wakeup_new",
            "sched_process_exit",
            "sched_migrate_task",
        ):
            continue
        w = _WAKE.search(fields)
        if w is None:
            raise TraceError(
                f"{origin}:{number}: a {event} without comm, pid and prio: {line.strip()}"
            )
        if event == "sched_waking":
            waking_seen = True
        elif event == "sched_wakeup" and waking_seen:
            continue  # the same wakeup, seen when it was queued
        kind = {
            "sched_process_exit": "exit",
            "sched_wakeup_new": "wakeup_new",
            "sched_migrate_task": "migrate",
        }.get(event, "wakeup")
        target = int(w["target"]) if w["target"] is not None else -1
        yield _Event(time, cpu, kind, int(w["pid"]), w["comm"], int(w["prio"]), target_cpu=target)


def _csv_number(row: Mapping[str, str], where: str, column: str, empty: int = 0) -> int:
    """The whole number in a trace row's column (``empty`` for an empty cell)."""
    text = row.get(column)
    if text == "":
        return empty
    try:
        return int(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TraceError(f"{where}: {column}: not a whole number: {text!r}") from None


def read_libsched_trace(
    rows: Iterable[Mapping[str, str]], repetition: int = 0, origin: str = "<trace>"
) -> Iterator[_Event]:
    """The events of one repetition of ``libsched run --trace``'s CSV (its rows as dicts,
    the header being line 1); a row that is not one raises TraceError naming its line."""
    kinds = {
        "sched_switch": "switch",
        "sched_wakeup": "wakeup",
        "sched_wakeup_new": "wakeup_new",
        "sched_process_exit": "exit",
    }
    for line, row in enumerate(rows, start=2):
        number = functools.partial(_csv_number, row, f"{origin}:{line}")
        if number("repetition") != repetition or row.get("event") not in kinds:
            continue
        yield _Event(
            number("time_ns"),
            number("cpu"),
            kinds[row["event"]],
            number("pid"),
            row.get("comm") or "",
            prev_state=row.get("prev_state") or "",
            next_pid=number("next_pid", -1),
            next_comm=row.get("next_comm") or "",
        )


def _tasks(events: Iterable[_Event]) -> tuple[dict[int, _Task], int, int, int]:
    """Each traced task's steps, and the trace's first and last instants and CPU count."""
    tasks: dict[int, _Task] = {}
    last_switch: dict[int, int] = {}  # per CPU
    first: Optional[int] = None
    last = 0
    cpus = 0

    def task(pid: int, comm: str, at: int, prio: Optional[int]) -> _Task:
        t = tasks.get(pid)
        if t is None:
            t = tasks[pid] = _Task(pid, comm, at)
        t.comm = comm  # the latest: an exec() changes it
        if prio is not None:
            t.prio = prio
        return t

    for e in events:
        first = e.time if first is None else first
        last = max(last, e.time)
        cpus = max(cpus, e.cpu + 1)
        if e.kind == "switch":
            if e.pid != 0:
                prev = task(e.pid, e.comm, first, e.prio)
                prev.cpus.add(e.cpu)
                # Not seen switched in (running when the trace began, or the switch was
                # lost): running since the CPU's last switch.
                since = prev.on_cpu_since
                if since is None:
                    since = last_switch.get(e.cpu, first)
                prev.burst += e.time - since
                prev.on_cpu_since = None
                if not e.prev_state.startswith("R"):
                    prev.end_burst()
                    prev.blocked = True
                    prev.asleep_since = e.time
                    if prev.exited is None and e.prev_state[:1] in ("X", "Z"):
                        prev.exited = e.time
            if e.next_pid != 0:
                nxt = task(e.next_pid, e.next_comm, first, e.next_prio)
                nxt.cpus.add(e.cpu)
                if nxt.asleep_since is not None:  # its wakeup was not traced
                    nxt.woke(e.time, nxt.asleep_since)
                nxt.on_cpu_since = e.time
            last_switch[e.cpu] = e.time
        elif e.kind == "wakeup_new":
            task(e.pid, e.comm, e.time, e.prio).start = e.time
        elif e.kind == "wakeup":
            t = tasks.get(e.pid)
            if t is None:  # asleep since before the trace: it starts here
                task(e.pid, e.comm, e.time, e.prio)
            elif t.asleep_since is not None:
                t.woke(e.time, t.asleep_since)
        elif e.kind == "exit" and e.pid in tasks and tasks[e.pid].exited is None:
            tasks[e.pid].exited = e.time
    if first is None:
        raise TraceError("the trace holds no scheduling events")
    for t in tasks.values():
        if t.on_cpu_since is not None:  # still running at the end
            t.burst += last - t.on_cpu_since
        t.end_burst()
    return tasks, first, last, cpus


@dataclass(frozen=True)
class _Options:
    pin: bool = False
    loops: bool = False
    timers: tuple[tuple[re.Pattern[str], int], ...] = ()  # comm pattern, period (ns)

    def timer_of(self, comm: str) -> Optional[int]:
        return next((period for pattern, period in self.timers if pattern.search(comm)), None)


def _timers(timers: Mapping[str, Union[int, str]]) -> tuple[tuple[re.Pattern[str], int], ...]:
    """The patterns and periods of ``timers`` (a period in ns or as a duration text)."""
    out = []
    for pattern, period in timers.items():
        ns = _core.system.parse_duration(period) if isinstance(period, str) else period
        if isinstance(ns, bool) or not isinstance(ns, int) or ns <= 0:
            raise ValueError(
                f"timer {pattern!r}: the period must be a positive duration such as "
                f'"10ms" (or ns), got {period!r}'
            )
        out.append((re.compile(pattern), ns))
    return tuple(out)


def entry_name(comm: str, pid: int) -> str:
    """A traced or measured thread's scenario name: its comm with the characters a name
    cannot hold replaced by ``_``, then ``-PID``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", comm) + f"-{pid}"


def _entry(t: _Task, origin: int, cpus: int, options: _Options) -> Optional[dict[str, Any]]:
    steps = list(t.steps)
    while steps and steps[-1][0] == "sleep":  # nothing follows: it would only wait
        steps.pop()
    if not any(kind == "run" for kind, _ in steps):
        return None
    entry: dict[str, Any] = {"name": entry_name(t.comm, t.pid), "start": t.start - origin}
    prio = 120 if t.prio is None else t.prio
    if 0 <= prio < 100:  # RT; the trace does not say FIFO or RR
        entry["policy"] = "fifo"
        entry["rt_priority"] = 99 - prio
    elif 100 <= prio < 140:
        entry["nice"] = prio - 120
    bound = per_cpu_kthread_cpu(t.comm)
    if bound is not None and bound < cpus:
        entry["affinity"] = [bound]
    elif options.pin:
        entry["affinity"] = sorted(t.cpus)
    if not (t.blocked or t.exited is not None):
        # Runnable from its start to the end of the trace: it would have used more.
        entry["behaviour"] = "burner"
        return entry
    program: list[dict[str, Any]] = [{kind: value} for kind, value in steps]
    period = options.timer_of(t.comm)
    pause: Optional[dict[str, Any]] = None
    if period is not None and t.first_wakeup is not None:
        # Woken by a periodic timer: each sleep lasts until its next expiry. Its grid is
        # the one its first wakeup was on; a task's timer runs from the task's start.
        pause = {"timer": period, "ref": "unique", "mode": "absolute"}
        program = [pause if "sleep" in step else step for step in program]
        periods = max(1, round((t.first_wakeup - t.start) / period))
        entry["start"] = max(t.first_wakeup - periods * period - origin, 0)
    elif options.loops and (sleep := _steady_sleep(steps)) is not None:
        pause = {"sleep": sleep}
    repeat = False
    if options.loops and pause is not None:
        # A steady loop: its runs and pauses again and again, until it exited.
        repeat = True
        program.append(pause)
        if t.exited is not None:
            entry["exit_at"] = max(t.exited - origin, entry["start"] + 1)
    entry["behaviour"] = {"type": "steps", "loop": -1 if repeat else 1, "steps": program}
    return entry


# A loop is steady when it slept this often, its sleeps' middle 80 % (p10 to p90) within
# this fraction of their median.
STEADY_SLEEPS = 10
STEADY_SPREAD = 0.5


def _steady_sleep(steps: list[tuple[str, int]]) -> Optional[int]:
    """The median sleep of a steady loop's steps, or None when they are no steady loop."""
    sleeps = sorted(value for kind, value in steps if kind == "sleep")
    if len(sleeps) < STEADY_SLEEPS:
        return None
    median = int(_nearest_rank(sleeps, 50))
    spread = _nearest_rank(sleeps, 90) - _nearest_rank(sleeps, 10)
    return median if median > 0 and spread <= STEADY_SPREAD * median else None


def scenario_from_events(
    events: Iterable[_Event],
    name: str,
    machine: Optional[Mapping[str, Any]] = None,
    exclude: Iterable[str] = (),
    pin: bool = False,
    loops: bool = False,
    timers: Optional[Mapping[str, Union[int, str]]] = None,
) -> Scenario:
    """The scenario of a stream of scheduling events (see the module's docstring)."""
    options = _Options(pin, loops, _timers(timers or {}))
    events = list(events)
    tasks, first, last, cpus = _tasks(events)
    # The model's ticks come at whole ticks from the scenario's start: start it at a point
    # of the trace's own tick grid, so that each wakeup falls between ticks where it did.
    tick = 1_000_000_000 // int((machine or {}).get("hz", 250))
    phase = _tick_phase(events, tick)
    origin = first if phase is None else first - (first - phase) % tick
    excluded = [re.compile(pattern) for pattern in exclude]
    entries = []
    for t in sorted(tasks.values(), key=lambda t: (t.start, t.pid)):
        if is_stopper(t.comm) or any(p.search(t.comm) for p in excluded):
            continue
        entry = _entry(t, origin, cpus, options)
        if entry is not None:
            entries.append(entry)
    if not entries:
        raise TraceError("no task of the trace used the CPU")
    grid = (
        f"its ticks at {phase / 1e6:.3f} ms modulo {tick / 1e6:g} ms of its clock"
        if phase is not None
        else "no tick grid found in it"
    )
    document: dict[str, Any] = {
        "name": name,
        "description": f"Imported from a scheduling trace: {len(entries)} tasks over "
        f"{(last - first) / 1e9:.3f} s, {grid}.",
        "length": max(last - origin, 1),
        "machine": {"cpus": cpus, **(machine or {})},
        "tasks": entries,
    }
    if origin < first:  # the window is the trace's span, as a measurement of it takes it
        document["window"] = [first - origin, last - origin]
    return Scenario(**document)


# Preemptions of a task by one not woken in the last TICK_WAKE_GAP ns (the tick's, where
# a task's slice ended) that show where the trace's ticks fall: at least TICK_EVIDENCE.
TICK_WAKE_GAP = 200_000
TICK_EVIDENCE = 5


def _tick_phase(events: list[_Event], tick: int) -> Optional[int]:
    """Where the trace's ticks fall modulo ``tick`` (ns), from the preemptions that no
    wakeup caused; None with too few of them."""
    woken: dict[int, int] = {}
    phases = []
    for e in events:
        if e.kind == "wakeup":
            woken[e.pid] = e.time
        elif e.kind == "switch" and e.pid != 0 and e.prev_state.startswith("R"):
            if e.time - woken.get(e.next_pid, e.time - TICK_WAKE_GAP - 1) > TICK_WAKE_GAP:
                phases.append(e.time % tick)
    if len(phases) < TICK_EVIDENCE:
        return None
    # The most crowded tenth of the period, then the median of the phases near it (taken
    # as offsets from its middle, so that a grid near 0 does not split in two).
    bins = [0] * 10
    for p in phases:
        bins[p * 10 // tick] += 1
    middle = (max(range(10), key=bins.__getitem__) * 2 + 1) * tick // 20
    near = sorted((p - middle + tick // 2) % tick - tick // 2 for p in phases)
    near = [d for d in near if abs(d) <= tick // 10]
    return (middle + int(_nearest_rank(near, 50))) % tick


def from_perf_script(
    path: PathLike,
    machine: Any = None,
    kernel: Optional[str] = None,
    exclude: Iterable[str] = (),
    pin: bool = False,
    loops: bool = False,
    timers: Optional[Mapping[str, Union[int, str]]] = None,
) -> Scenario:
    """The scenario of a ``perf sched script`` text file, or of ``libsched run --trace``'s
    CSV (repetition 0), told apart by the CSV's header. ``machine`` is a scenario (a path
    or a ``Scenario``) whose ``[machine]`` the result takes (its ``cpus`` must hold the
    trace's), else only ``cpus`` is set, from the highest CPU the trace names; ``kernel``
    replaces the release. ``exclude``: regular expressions of comms to leave out (the
    tracer itself: ``["^perf"]``). ``pin``: each task may run only on the CPUs it ran on
    in the trace (per-CPU kernel threads, ``ksoftirqd/1``, are always bound to theirs).
    ``loops``: a task that slept at least 10 times, its sleeps steady (p10 to p90 within half
    their median), repeats its runs and sleeps until it exited (for ever if it did not),
    rather than running them once: a closed loop then keeps its own pace under a what-if.
    ``timers``: regular expressions of comms, each with the period (ns, or a duration text
    such as ``"10ms"``) of the timer that wakes those tasks: each of their sleeps lasts
    until its next expiry, on the grid of their first wakeup (with ``loops``, repeated
    until they exited)."""
    path = os.fspath(path)
    settings: dict[str, Any] = {}
    if machine is not None:
        toml_text, origin = scenario_source(machine, "from_perf_script")
        settings = dict(Scenario.from_text(toml_text, origin).get("machine", {}))
    if kernel is not None:
        settings["kernel"] = kernel
    name = re.sub(r"\.[^.]*$", "", os.path.basename(path)) or "perf-import"
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        head = f.readline()
        f.seek(0)
        if head.startswith("repetition,time_ns,"):
            events: Iterable[_Event] = read_libsched_trace(csv.DictReader(f), origin=path)
            return scenario_from_events(list(events), name, settings, exclude, pin, loops, timers)
        return scenario_from_events(
            list(read_perf_script(f, path)), name, settings, exclude, pin, loops, timers
        )


def looks_like_perf_script(text: str) -> bool:
    """Whether ``text`` holds a line of ``perf sched script`` with a scheduling event."""
    return any(
        (m := _LINE.match(line)) is not None and m["event"].startswith("sched_")
        for line in text.splitlines()[:1000]
    )


def _nearest_rank(values: list[int], p: float) -> float:
    """The smallest value with at least p % of the values at or below it (as the model's
    summaries take percentiles)."""
    return float(values[max(0, math.ceil(p / 100 * len(values)) - 1)])


def measurements(lines: Iterable[str], origin: str) -> Measurements:
    """What a ``perf sched script`` trace measured of each task that ran, named as the
    import names it (``comm-PID``), over the trace's span as the window: share (its time on
    a CPU), voluntary and involuntary switches and migrations per second, its waits on a
    run queue over the window (run_delay_share), and its wakeup latency (from its
    ``sched_waking`` to its next switch-in: mean, p50, p90, p99, p99.9, max, nearest-rank),
    for ``libsched.compare`` with the imported scenario (docs/perf-import.md). ``lines``
    are the trace's, ``origin`` names the file."""
    events = list(read_perf_script(lines, origin))
    tasks, first, last, _ = _tasks(events)
    span = max(last - first, 1)
    traced = {e.cpu for e in events}  # perf record -C: the others' switches are not seen
    # Its time on a CPU: what the import makes its runs of.
    on_cpu = {pid: sum(v for kind, v in t.steps if kind == "run") for pid, t in tasks.items()}
    switches: dict[tuple[int, bool], int] = {}
    moves: dict[int, int] = {}
    waits: dict[int, int] = {}
    latency: dict[int, list[int]] = {}
    running: set[int] = set()
    queued_since: dict[int, int] = {}  # runnable, not running: from a wakeup or preemption
    woken_at: dict[int, int] = {}
    for e in events:
        if e.kind == "switch":
            if e.pid != 0:
                running.discard(e.pid)
                preempted = e.prev_state.startswith("R")
                switches[(e.pid, preempted)] = switches.get((e.pid, preempted), 0) + 1
                if preempted:
                    queued_since[e.pid] = e.time
            if e.next_pid != 0:
                running.add(e.next_pid)
                if e.next_pid in queued_since:
                    waits[e.next_pid] = (
                        waits.get(e.next_pid, 0) + e.time - queued_since.pop(e.next_pid)
                    )
                if e.next_pid in woken_at:
                    latency.setdefault(e.next_pid, []).append(e.time - woken_at.pop(e.next_pid))
        elif e.kind == "wakeup" and e.pid not in running and e.target_cpu in (-1, *traced):
            woken_at.setdefault(e.pid, e.time)
            queued_since.setdefault(e.pid, e.time)
        elif e.kind == "migrate":
            moves[e.pid] = moves.get(e.pid, 0) + 1
    values: dict[tuple[str, Optional[str], str], float] = {}
    seconds = span / 1e9
    for pid, t in tasks.items():
        if not on_cpu.get(pid) or is_stopper(t.comm):
            continue
        entry = entry_name(t.comm, t.pid)
        values[(entry, None, "share")] = on_cpu[pid] / span
        values[(entry, None, "nvcsw_per_s")] = switches.get((pid, False), 0) / seconds
        values[(entry, None, "nivcsw_per_s")] = switches.get((pid, True), 0) / seconds
        values[(entry, None, "migrations_per_s")] = moves.get(pid, 0) / seconds
        values[(entry, None, "run_delay_share")] = waits.get(pid, 0) / span
        lat = sorted(latency.get(pid, []))
        if lat:
            values[(entry, None, "wakeup_latency_mean")] = sum(lat) / len(lat)
            for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("p99_9", 99.9)):
                values[(entry, None, f"wakeup_latency_{name}")] = _nearest_rank(lat, p)
            values[(entry, None, "wakeup_latency_max")] = float(lat[-1])
    return Measurements(f"perf trace {os.path.basename(origin)}", values)


def main(args: list[str], out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(
        prog="libsched perf-import",
        description="Turn a recorded schedule (perf sched script's text, or libsched run "
        "--trace's CSV) into a scenario whose tasks ask for the CPU as the traced ones did "
        "(docs/perf-import.md); prints the TOML.",
    )
    parser.add_argument("trace", help="the text `perf sched script` printed, or a --trace CSV")
    parser.add_argument("--machine", help="a scenario file whose [machine] the scenario takes")
    parser.add_argument("--kernel", help="the release to model, e.g. 6.12")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="REGEX",
        help="leave out the tasks whose comm matches (repeatable), e.g. ^perf",
    )
    parser.add_argument(
        "--pin", action="store_true", help="keep each task on the CPUs it ran on in the trace"
    )
    parser.add_argument(
        "--loops",
        action="store_true",
        help="a task with 10 or more steady sleeps repeats its runs and sleeps until it exited",
    )
    parser.add_argument(
        "--timer",
        action="append",
        default=[],
        metavar="REGEX=PERIOD",
        help="the tasks whose comm matches are woken by a timer of this period (repeatable), "
        "e.g. 'cyclic=1ms'",
    )
    parser.add_argument("-o", "--output", help="write the TOML there instead of printing it")
    options = parser.parse_args(args)
    timers = {}
    for given in options.timer:
        pattern, equals, period = given.rpartition("=")
        if not equals or not pattern:
            parser.error(f"--timer {given!r}: give REGEX=PERIOD, e.g. 'cyclic=1ms'")
        timers[pattern] = period
    try:
        scenario = from_perf_script(
            options.trace,
            options.machine,
            options.kernel,
            options.exclude,
            options.pin,
            options.loops,
            timers,
        )
    except (OSError, ValueError) as err:
        print(f"libsched perf-import: {err}", file=sys.stderr)
        return 1
    looped = "# A steady loop repeats its runs and sleeps until it exited (--loops).\n"
    text = (
        f"# Made by libsched perf-import from {os.path.basename(options.trace)}: each task runs\n"
        "# and sleeps as the trace shows (docs/perf-import.md says what a trace cannot tell).\n"
        + (looped if options.loops else "")
        + scenario.to_toml()
    )
    if options.output:
        with open(options.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        out.write(text)
    return 0
