"""``libsched.Simulator``: one repetition of a scenario, stepped or run in pieces from
Python, its tasks and run queues readable on the way, as the kernel's debug files show
them (``/proc/PID/sched``, ``/sys/kernel/debug/sched/debug``). Times are in nanoseconds."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._arguments import MAX_SEED, check_int
from ._source import scenario_source

__all__ = ["EntityView", "RunQueueView", "Simulator", "TaskView"]


@dataclass(frozen=True)
class EntityView:
    """A fair-class scheduling entity on a run queue: a task's (``task`` is its name) or a
    task group's (``group`` is the group's path, ``""`` never: the root group has no entity).

    Virtual times are signed ns, as debug.c prints them. ``deadline``, ``vlag``, ``lag``
    (V - vruntime now) and ``eligible`` are EEVDF's (6.6+) and None on older releases;
    ``lag`` and ``eligible`` are also None off the queue. ``weight`` is ``se.load.weight``
    at the 1024 resolution of the nice-0 weight; ``slice`` is the requested slice in ns.
    """

    task: Optional[str]
    group: Optional[str]
    vruntime: int
    deadline: Optional[int]
    lag: Optional[int]
    vlag: Optional[int]
    eligible: Optional[bool]
    slice: int
    weight: int
    on_rq: bool
    sched_delayed: bool
    sum_exec_runtime: int


@dataclass(frozen=True)
class TaskView:
    """A task as ``/proc/PID/sched`` shows it at one instant, plus where it stands.

    ``name`` is its comm (``"a"``, or ``"a.0"``.. for a ``count > 1`` entry ``entry``);
    ``state`` is ``"N"`` (not started yet), ``"R"`` (runnable: queued or running), ``"S"``
    (sleeping; 6.12+ may keep it queued, ``sched_delayed``) or ``"X"`` (exited); ``policy``
    as ``chrt`` names it (``"normal"``, ``"fifo"``..), ``prio`` the kernel's ``p->prio``;
    ``group`` the path of its task group (a cgroup such as ``"web/api"``, an
    ``"autogroup-N"``, or ``""`` for the root). The entity fields are those of
    ``EntityView``; a running task's are as of its last update, as in the kernel.
    ``sum_exec_runtime`` is in ns; ``nvcsw`` / ``nivcsw`` count voluntary and involuntary
    switches.
    """

    name: str
    entry: str
    pid: int
    cpu: int
    state: str
    policy: str
    prio: int
    nice: int
    vruntime: int
    deadline: Optional[int]
    lag: Optional[int]
    vlag: Optional[int]
    eligible: Optional[bool]
    slice: int
    weight: int
    on_rq: bool
    sched_delayed: bool
    sum_exec_runtime: int
    nr_migrations: int
    nvcsw: int
    nivcsw: int
    group: str


@dataclass(frozen=True)
class RunQueueView:
    """A CPU's run queue (``struct rq``) and its fair queue (``rq->cfs``) at one instant.

    ``nr_running`` counts the runnable tasks of every class (``rq->nr_running``);
    ``nr_queued`` the entities on the fair queue and ``h_nr_queued`` the tasks queued in it
    and the groups below (``nr_running`` / ``h_nr_running`` before 6.14), ``h_nr_delayed``
    of those the 6.12+ delayed ones. ``curr`` is the running task's name, None when the CPU
    is idle. ``clock`` / ``clock_task`` are ``rq_clock()`` / ``rq_clock_task()`` as of their
    last update (ns). ``min_vruntime`` and ``avg_vruntime`` (V, EEVDF only: None before
    6.6) are signed virtual ns; ``load`` is the fair queue's weight at 1024 resolution.
    ``entities`` holds the fair queue's tree in order (by deadline under EEVDF, by
    vruntime before), the running entity, which the kernel keeps out of the tree, excluded.
    """

    cpu: int
    nr_running: int
    nr_queued: int
    h_nr_queued: int
    h_nr_delayed: int
    curr: Optional[str]
    clock: int
    clock_task: int
    nr_switches: int
    min_vruntime: int
    avg_vruntime: Optional[int]
    load: int
    entities: tuple[EntityView, ...]


# The trace's columns that hold text (plot.read_trace reads the CSV's alike).
TRACE_TEXT_COLUMNS = ("event", "comm", "prev_state", "next_comm", "reason")


class Simulator:
    """One repetition of ``scenario``, stepped with ``step()`` or run in pieces with
    ``run(until)``; ``tasks``, ``cpus``, ``task(name)`` and ``rq(cpu)`` read its state on
    the way, ``result()`` gives its figures at the end.

    ``scenario`` is a path or a ``libsched.Scenario``, as for ``libsched.run``. Repetition
    ``repetition`` (from 0) runs with seed ``seed + repetition``, ``seed`` defaulting to the
    scenario's: the seed ``libsched.run(scenario, seed=seed)`` gives that repetition, so
    both give the same figures. ``check_invariants`` checks the model's invariants after
    every event (slower; a violation raises RuntimeError). ``trace=True`` keeps every
    scheduling event for ``trace()``: about 40 bytes per event (up to twice that while its
    arrays grow), for the whole run.
    Raises ``ScenarioError`` for an invalid scenario; warnings of a scenario that runs but
    may not do what was meant are ``ScenarioWarning``.
    """

    def __init__(
        self,
        scenario: Union[str, os.PathLike[str], Any],
        seed: Optional[int] = None,
        *,
        repetition: int = 0,
        check_invariants: bool = False,
        trace: bool = False,
    ) -> None:
        text, origin = scenario_source(scenario, "Simulator")
        check_int("Simulator", "seed", seed, 0, MAX_SEED, optional=True)
        check_int("Simulator", "repetition", repetition, 0, None)
        for name, flag in (("check_invariants", check_invariants), ("trace", trace)):
            if not isinstance(flag, bool):
                raise TypeError(
                    f"libsched.Simulator: {name} must be a bool, not {type(flag).__name__}"
                )
        self._system = _core.system.System(text, origin, seed, repetition, check_invariants, trace)
        # The package defines it after importing this module.
        from . import ScenarioWarning

        for message in self._system.warnings:
            warnings.warn(message, ScenarioWarning, stacklevel=2)

    @property
    def now(self) -> int:
        """The simulated clock, ns since the run's start."""
        return self._system.now

    @property
    def end(self) -> int:
        """The end of the run (the scenario's ``length``), ns."""
        return self._system.end

    @property
    def done(self) -> bool:
        """Whether the run is over: the clock stands at ``end``."""
        return self._system.done

    @property
    def events(self) -> int:
        """Engine events processed so far."""
        return self._system.events

    @property
    def seed(self) -> int:
        """The seed this repetition runs with."""
        return self._system.seed

    @property
    def repetition(self) -> int:
        """Which repetition of the scenario this is, from 0."""
        return self._system.repetition

    def step(self) -> bool:
        """Runs the next engine event; False, and the run is over, once there is none
        before the end."""
        return self._system.step()

    def run(self, until: Union[int, str, None] = None) -> None:
        """Runs every event before ``until``, then sets the clock to it (at most ``end``;
        reaching ``end`` finishes the run). ``until`` is ns since the start, a duration
        text as the scenario format writes it (``"1.5s"``, ``"250ms"``), or None for the
        end. Ctrl-C stops it before its next event with KeyboardInterrupt; the clock is
        then at the last event run, and ``run`` can go on from there."""
        target = self.end if until is None else _instant(until, "run")
        if target < self.now:
            raise ValueError(
                f"libsched.Simulator.run: until ({target} ns) is before now ({self.now} ns)"
            )
        self._system.run(min(target, self.end))

    @property
    def tasks(self) -> list[TaskView]:
        """Every task, in pid order, as it stands now."""
        return [TaskView(**t) for t in self._system.tasks()]

    def task(self, name: str) -> TaskView:
        """The task named ``name`` (``"a"``, ``"a.1"``) as it stands now."""
        if not isinstance(name, str):
            raise TypeError(
                f"libsched.Simulator.task: name must be a str, not {type(name).__name__}"
            )
        t = self._system.task(name)
        if t is None:
            raise ValueError(f"libsched.Simulator.task: no task is named {name!r}")
        return TaskView(**t)

    @property
    def cpus(self) -> list[RunQueueView]:
        """Every CPU's run queue as it stands now, by CPU number."""
        return [self.rq(cpu) for cpu in range(self._system.nr_cpus)]

    def rq(self, cpu: int) -> RunQueueView:
        """CPU ``cpu``'s run queue as it stands now."""
        check_int("Simulator.rq", "cpu", cpu, 0, self._system.nr_cpus - 1)
        q = self._system.rq(cpu)
        q["entities"] = tuple(EntityView(**e) for e in q["entities"])
        return RunQueueView(**q)

    def result(self) -> dict[str, Any]:
        """Runs to the end (as ``run()``, Ctrl-C included), then returns the repetition's
        figures: the JSON document ``libsched.run(scenario, repetitions=1,
        seed=sim.seed)`` gives, as a dict."""
        document: dict[str, Any] = json.loads(self._system.result_json())
        return document

    def trace(self) -> dict[str, npt.NDArray[Any]]:
        """The scheduling events so far (``trace=True`` only), one array element per
        event, the rows ``libsched run --trace`` writes for this repetition: ``time_ns``,
        ``cpu``, ``event`` (the tracepoint's name), ``pid`` and ``comm``; for
        ``sched_switch``, ``prev_state`` (R, S or X) and ``next_pid`` / ``next_comm``; for
        ``sched_migrate_task``, ``dest_cpu``; ``reason``, for a preempted task's switch
        the kernel function that asked for the reschedule (``update_deadline``,
        ``wakeup_preempt``, ...) and for a migration the one that moved the task
        (``select_task_rq``, ``load_balance``, ...; docs/output-format.md). Fields an event
        lacks are ``""`` or -1.
        Every call builds new arrays; a text column takes 4 bytes per character of its
        longest text per event."""
        columns = self._system.trace()
        strings: list[str] = columns.pop("strings")
        out: dict[str, npt.NDArray[Any]] = {}
        for name, values in columns.items():
            if name in TRACE_TEXT_COLUMNS:
                # Each column as wide as its own longest text (prev_state: one character).
                width = max((len(strings[i]) for i in np.unique(values)), default=1)
                values = np.array(strings, dtype=f"<U{max(width, 1)}")[values]
            out[name] = values
        return out

    def __repr__(self) -> str:
        state = "done" if self.done else "running"
        return f"<libsched.Simulator now={self.now} ns end={self.end} ns {state}>"


def _instant(until: Union[int, str], method: str) -> int:
    if isinstance(until, str):
        ns = _core.system.parse_duration(until)
        if ns is None:
            raise ValueError(
                f'libsched.Simulator.{method}: until must be a duration such as "1.5s" or '
                f'"250ms", got {until!r}'
            )
        return ns
    if isinstance(until, bool) or not isinstance(until, int):
        raise TypeError(
            f"libsched.Simulator.{method}: until must be an int (ns), a duration text or "
            f"None, not {type(until).__name__}"
        )
    return until
