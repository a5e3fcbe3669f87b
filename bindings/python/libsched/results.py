"""Typed results: ``libsched.simulate`` and ``libsched.Result``, the JSON document of
docs/output-format.md as frozen dataclasses, with NumPy arrays and pandas tables of its
observables.

A result of the model and a measured one share the schema; what only the model has (the
``model`` objects: seeds, engine events, tick samples) is ``None`` in a measured one.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import importlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar, Union

import numpy as np
import numpy.typing as npt

from ._run import run_scenario

_T = TypeVar("_T")


def _of(cls: type[Any], *, optional: bool = False) -> Any:
    """A field holding a ``cls`` object."""
    metadata = {"convert": cls}
    return field(default=None, metadata=metadata) if optional else field(metadata=metadata)


def _many(cls: type[Any]) -> Any:
    """A field holding a tuple of ``cls`` objects, of a JSON array."""
    return field(metadata={"convert": cls, "many": True})


def _at(*key: str) -> Any:
    """An optional field found at ``key`` in the JSON object (``("model", "seed")``)."""
    return field(default=None, metadata={"key": key})


@dataclass(frozen=True)
class Window:
    """The measurement window ``[start, end)``, in ns."""

    start: int
    end: int


@dataclass(frozen=True)
class Latency:
    """Wakeup latency or lateness (ns) of the window's wakeups: count, mean and
    nearest-rank percentiles; all but ``count`` are ``None`` without a wakeup, and a task's
    percentiles also where the scenario keeps its samples per entry
    (``latency_samples = "entry"``)."""

    count: int
    mean: Optional[float] = None
    p50: Optional[float] = None
    p90: Optional[float] = None
    p99: Optional[float] = None
    p99_9: Optional[float] = None
    max: Optional[float] = None


@dataclass(frozen=True)
class RunDelay(Latency):
    """A task's waits on a run queue (schedstat's run delay) in the window, ns: each from a
    fork, wakeup or preemption to the switch-in, as ``Latency``; ``sum`` their total (what
    ``/proc/PID/schedstat`` field 2 grows by) and ``max_at`` when the longest began."""

    sum: Optional[int] = None
    max_at: Optional[int] = None


@dataclass(frozen=True)
class TaskModel:
    """What only the model knows of a task: ``p->utime`` and ``p->stime`` in ticks, the
    work figures of ``machine.smt_throughput`` (``None`` without it), and the window's
    involuntary switches and migrations by the kernel function behind them
    (``{"update_deadline": 480, "wakeup_preempt": 12, ...}``, every reason named)."""

    utime_ticks: int
    stime_ticks: int
    work_ns: Optional[int] = None
    window_work_ns: Optional[int] = None
    window_preempted_by: dict[str, int] = field(default_factory=dict)
    window_migrated_by: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskResult:
    """One task of one repetition (``libsched::task_result``): what ``/proc/PID/stat``,
    ``/proc/PID/sched`` and ``getrusage`` show. Times in ns unless the name says."""

    name: str
    entry: str
    pid: int
    cpu: int
    nice: int
    nice_clamped: bool
    policy: str
    rt_priority: int
    sum_exec_runtime: int
    window_runtime: int
    share: float
    stat_utime_start: int
    stat_utime_end: int
    stat_stime_start: int
    stat_stime_end: int
    stat_utime: int
    stat_stime: int
    ru_utime_us: int
    ru_stime_us: int
    nvcsw: int
    nivcsw: int
    window_nvcsw: int
    window_nivcsw: int
    nr_migrations: int
    window_nr_migrations: int
    started: int
    lateness: Latency = _of(Latency)
    # None in a measurement: user space sees no distribution of the waits. Of the run
    # delay it sees the count and sum (/proc/PID/schedstat), so a measurement has those and
    # the mean.
    wakeup_latency: Optional[Latency] = _of(Latency, optional=True)
    run_delay: Optional[RunDelay] = _of(RunDelay, optional=True)
    exited: Optional[int] = None
    # A program of steps (None otherwise): the passes through its phases that ended in the
    # window, and each one's wall time (from its start, or from the resume / post / write that
    # released a pass beginning with a wait: a schbench-like worker's request latency).
    loops: Optional[int] = None
    loop_time: Optional[Latency] = _of(Latency, optional=True)
    model: Optional[TaskModel] = _of(TaskModel, optional=True)


@dataclass(frozen=True)
class CpuResult:
    """One CPU of one repetition: busy and idle time (ns), switches, and the load
    balancer's schedstat counters (``balance``: whole run, ``window_balance``: window);
    ``irq`` is the interrupt time the model takes out of the tasks."""

    cpu: int
    busy: int
    idle: int
    window_busy: int
    window_idle: int
    # None in a measurement, which reads only /proc/stat's busy and idle time.
    nr_switches: Optional[int] = None
    balance: Optional[dict[str, int]] = None
    window_balance: Optional[dict[str, int]] = None
    irq: Optional[int] = _at("model", "irq")


@dataclass(frozen=True)
class TaskGroupResult:
    """One cgroup or autogroup of one repetition (``libsched::task_group_result``), its
    CPU time with its subgroups'; ``bandwidth`` (quota, period, burst, ``cpu_stat`` and
    ``window_cpu_stat``) only for a group with a quota."""

    name: str
    autogroup: bool
    shares: int
    nr_tasks: int
    sum_exec_runtime: int
    window_runtime: int
    share: float
    session: Optional[str] = None
    bandwidth: Optional[dict[str, Any]] = None


@dataclass(frozen=True)
class Repetition:
    """One repetition: its tasks, CPUs and task groups, ``perf_stat`` over its tasks, and
    the model's seed and engine event count (``None`` for a measurement)."""

    tasks: tuple[TaskResult, ...] = _many(TaskResult)
    cpus: tuple[CpuResult, ...] = _many(CpuResult)
    task_groups: tuple[TaskGroupResult, ...] = _many(TaskGroupResult)
    perf_stat: Optional[dict[str, dict[str, float]]] = None
    seed: Optional[int] = _at("model", "seed")
    events: Optional[int] = _at("model", "events")


@dataclass(frozen=True)
class EntrySummary:
    """One entry (a ``[[tasks]]`` table): the sum over its tasks, the median over
    repetitions; the ratios are ``None`` without a reference."""

    entry: str
    nice: int
    tasks: int
    share: float
    jiffies: float
    ru_utime_ms: float
    stime_jiffies: float
    ru_stime_ms: float
    nvcsw_per_s: float
    nivcsw_per_s: float
    # Moves to another CPU in the window per second, and the window's waits on run queues
    # over its length (None in a document written before they were added).
    migrations_per_s: Optional[float] = None
    run_delay_share: Optional[float] = None
    wakeup_latency: Optional[Latency] = _of(Latency, optional=True)  # None if measured
    lateness: Optional[Latency] = _of(Latency, optional=True)  # None if measured
    run_delay: Optional[Latency] = _of(Latency, optional=True)  # None if measured
    # Entries running programs of steps (None otherwise): their passes in the window, per
    # second of it, and the pooled wall time of each pass, ns.
    loops: Optional[float] = None
    loops_per_s: Optional[float] = None
    loop_time: Optional[Latency] = _of(Latency, optional=True)
    # When the entry's last task exited, ns (None while one is still alive at the end).
    last_exit: Optional[float] = None
    ratio: Optional[float] = None
    jratio: Optional[float] = None
    ru_ratio: Optional[float] = None
    # The fluid theory's share and ratio (docs/theory.md); None where it has none.
    theory_share: Optional[float] = None
    theory_ratio: Optional[float] = None


@dataclass(frozen=True)
class ModelProvenance:
    """The model's own settings: ``calc_delta``, ``resched_latency``, ``tick_irq``, the
    first repetition's seed, the cost of waking (``timer_slack``, ``idle_exit_latency``,
    ``ipi_latency``, ``tick_latency``, ``sleep_cost``) and NI_RANDOM's starting rates
    (``newidle_ratio``)."""

    calc_delta: str
    resched_latency: int
    tick_irq: int
    seed: Optional[int] = None
    smt_throughput: Optional[float] = None
    # The cost of waking (ns): the default timer slack, an idle CPU's exit latency, an IPI.
    timer_slack: Optional[int] = None
    idle_exit_latency: Optional[int] = None
    ipi_latency: Optional[int] = None
    # The tick device's interrupt after the expiry it was set for (the tick's grid point, a
    # sleep's hard expiry): {"dist": "constant", "value": ns} or
    # {"dist": "uniform", "low": ns, "high": ns}.
    tick_latency: Optional[dict[str, Any]] = None
    # CPU time charged to a task for each of its sleeps (machine.sleep_cost), as
    # tick_latency: {"dist": "constant", "value": ns} or a uniform.
    sleep_cost: Optional[dict[str, Any]] = None
    # NI_RANDOM's success rate out of 1024 each CPU started from (machine.newidle_ratio);
    # None where the release has no NI_RANDOM or the machine one CPU.
    newidle_ratio: Optional[list[int]] = None


@dataclass(frozen=True)
class Provenance:
    """Where the numbers come from: ``source`` is ``"simulated"`` or ``"measured"``; the
    kernel release, its scheduler (``"eevdf"`` or ``"cfs"``), HZ and CPUs; the tunables
    and features in effect; a measurement's host; the model's settings (``None`` for a
    measurement)."""

    source: str
    kernel: str
    scheduler: str
    hz: int
    cpus: int
    online_cpus: Optional[int] = None
    producer: Optional[str] = None
    producer_version: Optional[str] = None
    tunables: Optional[dict[str, Any]] = None
    features: Optional[dict[str, bool]] = None
    irq_time_accounting: Optional[bool] = None
    nohz_idle: Optional[bool] = None
    preempt: Optional[str] = None
    host_name: Optional[str] = None
    host_release: Optional[str] = None
    model: Optional[ModelProvenance] = _of(ModelProvenance, optional=True)


@dataclass(frozen=True)
class Measured:
    """A scenario's ``[measured]`` values: per entry, the share and the ratio to the
    reference, with the stated tolerances."""

    share: dict[str, float]
    ratio: dict[str, float]
    source: Optional[str] = None
    tolerance: Optional[dict[str, Optional[float]]] = None
    judged: Optional[bool] = None


@dataclass(frozen=True)
class Interrupted:
    """Where a run stopped by Ctrl-C stood: the repetition and the time (ns) it was at."""

    repetition: int
    repetitions: int
    repetitions_finished: int
    at: int


@dataclass(frozen=True, eq=False)
class Result:
    """A run's result: the JSON document of docs/output-format.md, typed.

    ``repetitions`` holds one ``Repetition`` each, ``summary`` one ``EntrySummary`` per
    entry; ``measured``, ``error`` (the prediction's error per entry) and
    ``within_tolerance`` are there when the scenario has ``[measured]`` values, ``groups``
    for a two-group replay. ``to_dict()`` gives back the document; ``task_array``,
    ``cpu_array``, ``group_array`` and ``to_pandas`` give the observables for analysis.
    Two results are equal when their documents are.
    """

    scenario: str
    description: str
    window: Window = _of(Window)
    provenance: Provenance = _of(Provenance)
    repetitions: tuple[Repetition, ...] = _many(Repetition)
    summary: tuple[EntrySummary, ...] = _many(EntrySummary)
    reference: Optional[str] = None
    interrupted: Optional[Interrupted] = _of(Interrupted, optional=True)
    perf_stat: Optional[dict[str, dict[str, float]]] = None
    measured: Optional[Measured] = _of(Measured, optional=True)
    error: Optional[dict[str, dict[str, Optional[float]]]] = None
    within_tolerance: Optional[dict[str, dict[str, Optional[bool]]]] = None
    groups: Optional[dict[str, Any]] = None
    _document: dict[str, Any] = field(init=False, repr=False)

    @classmethod
    def from_json(cls, source: Union[str, os.PathLike[str], dict[str, Any]]) -> Result:
        """The result in a JSON file (``libsched run --json FILE``, a measurement) or an
        already loaded document (a dict, copied). ``ValueError`` naming the field when it is
        not a result (``repetitions[0].tasks[1].share: missing``)."""
        if isinstance(source, dict):
            return cls._of_document(copy.deepcopy(source))
        if isinstance(source, (str, os.PathLike)):
            with open(source, encoding="utf-8") as file:
                loaded = json.load(file)
            if not isinstance(loaded, dict):
                raise ValueError(
                    f"libsched.Result.from_json: {os.fspath(source)} holds a JSON "
                    f"{type(loaded).__name__}, not one result object"
                )
            return cls._of_document(loaded)
        raise TypeError(
            "libsched.Result.from_json: source must be a path (str or os.PathLike) or a dict, "
            f"not {type(source).__name__}"
        )

    @classmethod
    def _of_document(cls, document: dict[str, Any]) -> Result:
        result = _build(cls, document, "")
        object.__setattr__(result, "_document", document)
        return result

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (a deep copy), as ``libsched.run`` returns it."""
        return copy.deepcopy(self._document)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self._document == other._document

    __hash__ = None  # type: ignore[assignment]  # holds dicts

    @property
    def task_names(self) -> tuple[str, ...]:
        """The tasks' names, in the order of ``task_array``'s columns."""
        return tuple(t.name for t in self._first().tasks)

    @property
    def cpu_ids(self) -> tuple[int, ...]:
        """The CPUs' numbers, in the order of ``cpu_array``'s columns."""
        return tuple(c.cpu for c in self._first().cpus)

    @property
    def group_names(self) -> tuple[str, ...]:
        """The task groups' names, in the order of ``group_array``'s columns."""
        return tuple(g.name for g in self._first().task_groups)

    def task_array(self, observable: str) -> npt.NDArray[Any]:
        """A task observable as an array of shape (repetitions, tasks), columns in the order
        of ``task_names``: ``"share"``, ``"nvcsw"``, ``"wakeup_latency.p99"``,
        ``"model.utime_ticks"``. A missing value (``None``) is NaN."""
        return self._array("tasks", observable)

    def cpu_array(self, observable: str) -> npt.NDArray[Any]:
        """A CPU observable (``"busy"``, ``"balance.lb_count"``) as an array of shape
        (repetitions, CPUs), columns in the order of ``cpu_ids``."""
        return self._array("cpus", observable)

    def group_array(self, observable: str) -> npt.NDArray[Any]:
        """A task group observable (``"share"``, ``"bandwidth.cpu_stat.nr_throttled"``) as
        an array of shape (repetitions, groups), columns in the order of ``group_names``;
        NaN where a group lacks it (no quota)."""
        return self._array("task_groups", observable)

    def to_pandas(self, what: str = "tasks") -> Any:
        """A pandas DataFrame: ``"tasks"`` one row per repetition and task, ``"cpus"`` per
        repetition and CPU, ``"groups"`` per repetition and task group (each with a
        ``repetition`` column), ``"summary"`` one row per entry. Nested objects become
        dotted columns (``wakeup_latency.p99``). Needs pandas
        (``pip install libsched[pandas]``)."""
        try:
            pd = importlib.import_module("pandas")
        except ImportError as err:
            raise ImportError(
                "libsched.Result.to_pandas needs pandas: pip install libsched[pandas]"
            ) from err
        if what == "summary":
            return pd.json_normalize(self._document["summary"])
        key = _TABLES.get(what)
        if key is None:
            raise ValueError(
                f"libsched.Result.to_pandas: what must be one of {', '.join(_TABLE_NAMES)}, "
                f"got {what!r}"
            )
        rows = [
            {"repetition": i, **row}
            for i, repetition in enumerate(self._document["repetitions"])
            for row in repetition[key]
        ]
        return pd.json_normalize(rows)

    def _first(self) -> Repetition:
        if not self.repetitions:
            raise ValueError("libsched.Result: the result has no repetition")
        return self.repetitions[0]

    def _array(self, key: str, observable: str) -> npt.NDArray[Any]:
        if not isinstance(observable, str):
            raise TypeError(
                f"libsched.Result: observable must be a str, not {type(observable).__name__}"
            )
        repetitions = self._document["repetitions"]
        rows = [[_numeric(row, observable) for row in rep[key]] for rep in repetitions]
        widths = {len(row) for row in rows}
        if len(widths) > 1:
            raise ValueError(
                f"libsched.Result: the repetitions have different numbers of {key} "
                f"({sorted(widths)}); read them from .repetitions"
            )
        if all(v is _ABSENT for row in rows for v in row) and any(rows):
            known = sorted(_numeric_names(repetitions[0][key][0]))
            close = difflib.get_close_matches(observable, known, n=1)
            raise ValueError(
                f"libsched.Result: no numeric {key} observable {observable!r}"
                + (f" (did you mean {close[0]!r}?)" if close else "")
                + f"; there are: {', '.join(known)}"
            )
        values = [[math.nan if v is None or v is _ABSENT else v for v in row] for row in rows]
        return np.array(values).reshape(len(rows), widths.pop() if widths else 0)


_TABLES = {"tasks": "tasks", "cpus": "cpus", "groups": "task_groups"}
_TABLE_NAMES = (*_TABLES, "summary")
_ABSENT: Any = object()


def _numeric(row: dict[str, Any], observable: str) -> Any:
    """The value at the dotted ``observable`` of ``row``: a number, ``None`` (also under a
    null object, such as a measurement's ``model``), or ``_ABSENT`` when there is none or
    it is not a number."""
    value: Any = row
    for part in observable.split("."):
        if value is None:
            return None
        if not isinstance(value, dict) or part not in value:
            return _ABSENT
        value = value[part]
    return value if value is None or isinstance(value, (int, float)) else _ABSENT


def _numeric_names(row: dict[str, Any], prefix: str = "") -> list[str]:
    names: list[str] = []
    for key, value in row.items():
        if isinstance(value, dict):
            names += _numeric_names(value, f"{prefix}{key}.")
        elif value is None or isinstance(value, (int, float)):
            names.append(prefix + key)
    return names


def _build(cls: type[_T], data: Any, where: str) -> _T:
    """A ``cls`` of the JSON object ``data``, found at ``where`` in the document."""
    if not isinstance(data, dict):
        raise ValueError(
            f"libsched.Result: {where or 'the document'}: expected an object, "
            f"got {type(data).__name__}"
        )
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        key: tuple[str, ...] = f.metadata.get("key", (f.name,))
        name = ".".join(key)
        at = f"{where}.{name}" if where else name
        value: Any = data
        for part in key:
            value = value.get(part) if isinstance(value, dict) else None
        required = f.default is dataclasses.MISSING
        if value is None:
            if required:
                raise ValueError(f"libsched.Result: {at}: missing (or null)")
            continue
        convert: Optional[type[Any]] = f.metadata.get("convert")
        if convert is not None and f.metadata.get("many"):
            if not isinstance(value, list):
                raise ValueError(
                    f"libsched.Result: {at}: expected an array, got {type(value).__name__}"
                )
            value = tuple(_build(convert, e, f"{at}[{i}]") for i, e in enumerate(value))
        elif convert is not None:
            value = _build(convert, value, at)
        else:
            value = copy.deepcopy(value)  # the document's own stays as it was read
        values[f.name] = value
    return cls(**values)


def simulate(
    scenario: Union[str, os.PathLike[str], Any],
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
) -> Result:
    """Run ``scenario`` (a path to a TOML file or a ``libsched.Scenario``) and return its
    ``Result``; the arguments are those of ``libsched.run``, whose dict is
    ``result.to_dict()``."""
    return Result._of_document(run_scenario(scenario, repetitions, seed, "simulate"))
