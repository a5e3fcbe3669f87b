"""Theory, simulation and measurement side by side: ``libsched.compare``, the measured-data
loaders and the ``libsched compare`` command (docs/python.md, "Comparing with
measurements")."""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import io
import json
import math
import os
import statistics
import sys
import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from . import _core

#: What a measurement can give, named as the result document's ``summary`` names it
#: (docs/output-format.md), in the order tables list them: share of one CPU; the ratios to
#: the reference entry (of share, of /proc jiffies, of getrusage utime); jiffies; getrusage
#: utime in ms; window context switches and migrations per second; the window's waits on
#: run queues over its length (schedstat run delay); wakeup latency in ns.
QUANTITIES: tuple[str, ...] = (
    "share",
    "ratio",
    "jratio",
    "ru_ratio",
    "jiffies",
    "ru_utime_ms",
    "nvcsw_per_s",
    "nivcsw_per_s",
    "migrations_per_s",
    "run_delay_share",
    *(f"wakeup_latency_{k}" for k in ("mean", "p50", "p90", "p99", "p99_9", "max")),
)
RATIOS = frozenset({"ratio", "jratio", "ru_ratio"})
# A task's figures in one repetition of a document: its field (a dotted path into the task)
# divided by a number or by the window's length: "s" in seconds, for a rate, "ns" in ns,
# for a share of the window.
_TASK_FIELDS: dict[str, tuple[str, Union[float, str]]] = {
    "share": ("share", 1.0),
    "jiffies": ("stat_utime", 1.0),
    "ru_utime_ms": ("ru_utime_us", 1000.0),
    "nvcsw_per_s": ("window_nvcsw", "s"),
    "nivcsw_per_s": ("window_nivcsw", "s"),
    "migrations_per_s": ("window_nr_migrations", "s"),
    "run_delay_share": ("run_delay.sum", "ns"),
}
#: The quantities a single task (rather than an entry) can be measured by.
TASK_QUANTITIES: tuple[str, ...] = tuple(_TASK_FIELDS)
_USER_HZ = 100  # /proc/PID/stat counts utime in USER_HZ ticks on every Linux

Key = tuple[str, Optional[str], str]  # (entry, task or None for the whole entry, quantity)


@dataclass(frozen=True)
class Measurements:
    """Measured figures in one form, whatever they were read from: ``values`` maps
    ``(entry, task, quantity)`` to a number (``task`` is ``None`` for the entry as a whole;
    quantities as in ``QUANTITIES``; several repetitions reduced to their median), ratios
    being to the entry ``reference``. ``source`` says where the figures come from."""

    source: str
    values: dict[Key, float]
    reference: Optional[str] = None

    @classmethod
    def from_document(
        cls, document: Mapping[str, Any], source: Optional[str] = None
    ) -> Measurements:
        """The figures of a result document (docs/output-format.md): what ``libsched
        measure`` writes (``provenance.source == "measured"``) or a run's ``libsched run
        --json`` output; per entry its ``summary``, per task of an entry with several the
        median over repetitions of its share, jiffies, utime and switches per second."""
        _check_document(document, "libsched.Measurements.from_document: document")
        if source is None:
            provenance = document.get("provenance") or {}
            host = provenance.get("host_name")
            source = f"{provenance.get('source', 'a')} run of {document.get('scenario')}" + (
                f" on {host} ({provenance.get('host_release')})" if host else ""
            )
        return cls(source, _document_figures(document), _document_reference(document))

    @classmethod
    def from_replay(cls, document: Mapping[str, Any]) -> Optional[Measurements]:
        """The scenario's own ``[measured]`` figures as a run's document holds them (its
        ``measured`` block, read through the scenario's data file if it names one, and a
        two-group figure's ratios under ``groups``), or ``None`` if it has none. A two-group
        figure's ``ratio`` (of getrusage utime) is the quantity ``ru_ratio``."""
        _check_document(document, "libsched.Measurements.from_replay: document")
        block = document.get("measured")
        if not block:
            return None
        values: dict[Key, float] = {}
        for quantity in ("share", "ratio"):
            for entry, value in block.get(quantity, {}).items():
                values[(entry, None, quantity)] = float(value)
        groups = document.get("groups")
        if groups:
            for quantity, key in (("ru_ratio", "ratio"), ("jratio", "jratio")):
                values[(groups["a"], None, quantity)] = float(groups["measured"][key])
        return cls(str(block.get("source", "")), values, _document_reference(document))


def read_measurements(path: Union[str, os.PathLike[str]]) -> Measurements:
    """Measured figures from a file: a result document in JSON (``libsched measure``'s
    output, or ``libsched run --json``'s), a CSV file of ``entry,quantity,value`` lines
    with optional ``task`` and ``repetition`` columns (docs/python.md), or the text ``perf
    sched script`` printed (each task as ``libsched perf-import`` names it). ``ValueError`` names
    the file, and for a CSV file the line and column, of anything else."""
    return _read_measurements(path, "libsched.read_measurements")


@dataclass(frozen=True)
class ComparisonRow:
    """One quantity of one entry (or task): the theory's value, the simulation's and the
    measurement's (``None`` where there is none), and the simulation's and theory's errors
    against the measurement, in percentage points for a share and in percent of the
    measurement for every other quantity (``error_unit``: ``"pp"`` or ``"%"``)."""

    entry: str
    task: Optional[str]
    quantity: str
    theory: Optional[float]
    simulated: Optional[float]
    measured: Optional[float]
    error: Optional[float]
    theory_error: Optional[float]
    error_unit: str


@dataclass(frozen=True)
class Comparison:
    """What ``libsched.compare`` found: one row per entry and quantity, in the scenario's
    order, then per measured task. ``unmatched`` lists the measured entries and tasks the
    scenario does not have, ``unmeasured`` the scenario's entries without any measurement
    (empty without measured data); ``result`` is the run's document."""

    scenario: str
    reference: Optional[str]
    measured_source: Optional[str]
    rows: tuple[ComparisonRow, ...]
    unmatched: tuple[str, ...] = ()
    unmeasured: tuple[str, ...] = ()
    result: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def row(self, entry: str, quantity: str, task: Optional[str] = None) -> ComparisonRow:
        """The row of ``entry`` (or its ``task``) and ``quantity``; ``KeyError`` if none."""
        for r in self.rows:
            if (r.entry, r.task, r.quantity) == (entry, task, quantity):
                return r
        raise KeyError((entry, task, quantity))

    def table(self) -> str:
        """The rows as a text table: values in their units (shares in % of one CPU, latency
        in µs), errors signed, ``-`` where there is no value."""
        return _table(self)

    def to_dict(self) -> dict[str, Any]:
        """The comparison as JSON-able data (what ``libsched compare --json`` prints): the
        scenario, reference, measured source, ``rows`` (dicts of the row's fields),
        ``unmatched`` and ``unmeasured``."""
        return {
            "scenario": self.scenario,
            "reference": self.reference,
            "measured_source": self.measured_source,
            "rows": [vars(r).copy() for r in self.rows],
            "unmatched": list(self.unmatched),
            "unmeasured": list(self.unmeasured),
        }

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (the optional extra ``libsched[pandas]``)."""
        try:
            pandas = importlib.import_module("pandas")
        except ImportError as err:
            raise ImportError(
                "libsched.Comparison.to_pandas needs pandas, the optional extra "
                "libsched[pandas]: python3 -m pip install 'libsched[pandas]'"
            ) from err
        return pandas.DataFrame(
            [vars(r) for r in self.rows], columns=list(ComparisonRow.__dataclass_fields__)
        )


def compare(
    scenario: Any,
    measured: Any = None,
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
) -> Comparison:
    """Simulate ``scenario`` (a path or a ``libsched.Scenario``, as for ``run``), compute its
    theory (``libsched.theory``: an entry's share is the sum of its tasks' fluid shares, a
    ratio that share over the reference entry's; none, as in the run's summary, where a task
    waits on others or may exit before the window ends) and set both beside ``measured``.

    ``measured`` is a file (``read_measurements``), a result document (a dict, or an object
    whose ``to_dict()`` gives one: what ``libsched measure`` produces), a ``Measurements``,
    or ``None`` for the scenario's own ``[measured]`` figures (none: theory and simulation
    only). Measured entries are matched to the scenario's by name: one the scenario lacks
    is listed in ``unmatched``, but a name that differs from one of the scenario's only by
    case or a small typo raises ``ValueError`` with the likely name. ``repetitions`` and
    ``seed`` override the scenario's, as for ``run``.
    """
    # The package's own functions: defined by the time compare() is called.
    from . import run, theory

    measurements = _measurements_argument(measured)
    document = run(scenario, repetitions, seed)
    if measurements is None:
        measurements = Measurements.from_replay(document)
    # No theory where the run's summary has none: a task waits on others or may exit
    # before the window ends (docs/theory.md).
    has_theory = any(row.get("theory_share") is not None for row in document["summary"])
    shares = theory(scenario)["tasks"] if has_theory else {}
    return _comparison(document, shares, measurements)


def _measurements_argument(measured: Any) -> Optional[Measurements]:
    if measured is None or isinstance(measured, Measurements):
        return measured
    if isinstance(measured, (str, os.PathLike)):
        return _read_measurements(measured, "libsched.compare")
    to_dict = getattr(measured, "to_dict", None)
    document = to_dict() if callable(to_dict) else measured
    if isinstance(document, Mapping):
        _check_document(document, "libsched.compare: measured")
        return Measurements.from_document(document)
    raise TypeError(
        "libsched.compare: measured must be a path, a result document (a dict or a "
        f"libsched.Result), a libsched.Measurements or None, not {type(measured).__name__}"
    )


# --- The run's figures, per entry and per task -------------------------------------------


def _check_document(document: Mapping[str, Any], where: str) -> None:
    for key in ("summary", "repetitions", "window"):
        if key not in document:
            raise ValueError(
                f'{where}: not a result document (docs/output-format.md): it has no "{key}"'
            )


def _document_reference(document: Mapping[str, Any]) -> Optional[str]:
    """The entry ratios are to: the scenario's reference, or a two-group figure's group B."""
    reference = document.get("reference")
    if reference is None and document.get("groups"):
        reference = document["groups"]["b"]
    return None if reference is None else str(reference)


def _document_figures(document: Mapping[str, Any]) -> dict[Key, float]:
    values: dict[Key, float] = {}
    for row in document["summary"]:
        entry = row["entry"]
        for quantity in QUANTITIES:
            if quantity.startswith("wakeup_latency_"):
                value = (row.get("wakeup_latency") or {}).get(
                    quantity.removeprefix("wakeup_latency_")
                )
            else:
                value = row.get(quantity)
            if value is not None:
                values[(entry, None, quantity)] = float(value)
    groups = document.get("groups")
    if groups and document.get("reference") is None:
        # Without a reference the summary has no ratios; a two-group figure's are A over B.
        for quantity, key in (("ru_ratio", "ratio"), ("jratio", "jratio")):
            value = groups["simulated"][key]
            if value is not None:
                values[(groups["a"], None, quantity)] = float(value)
    values.update(_task_figures(document))
    return values


def _task_figures(document: Mapping[str, Any]) -> dict[Key, float]:
    """Per task of an entry with several: the median over repetitions of its figures."""
    window_s = (document["window"]["end"] - document["window"]["start"]) / 1e9
    runs: dict[Key, list[float]] = {}
    for repetition in document["repetitions"]:
        for t in repetition["tasks"]:
            for quantity, (key, divisor) in _TASK_FIELDS.items():
                raw: Any = t
                for part in key.split("."):
                    raw = raw.get(part) if isinstance(raw, Mapping) else None
                if raw is not None:
                    by = {"s": window_s, "ns": window_s * 1e9}.get(str(divisor))
                    value = raw / (by if by is not None else float(divisor))
                    runs.setdefault((t["entry"], t["name"], quantity), []).append(float(value))
    tasks_of = _tasks_of(document)
    return {k: statistics.median(v) for k, v in runs.items() if len(tasks_of.get(k[0], ())) > 1}


def _tasks_of(document: Mapping[str, Any]) -> dict[str, list[str]]:
    tasks: dict[str, list[str]] = {row["entry"]: [] for row in document["summary"]}
    for t in document["repetitions"][0]["tasks"] if document["repetitions"] else ():
        tasks.setdefault(t["entry"], []).append(t["name"])
    return tasks


# --- Reading files -------------------------------------------------------------------------


def _read_measurements(path: Union[str, os.PathLike[str]], function: str) -> Measurements:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8-sig")  # a spreadsheet's CSV may start with a BOM
    except OSError as err:
        raise ValueError(f"{function}: measured: cannot read {file}: {err.strerror}") from err
    if file.suffix.lower() == ".csv":
        return _read_csv(text, str(file), function)
    if file.suffix.lower() != ".json":
        from .perf_sched import looks_like_perf_script, measurements

        if looks_like_perf_script(text):
            return measurements(text.splitlines(), str(file))
        raise ValueError(
            f"{function}: measured: {file} is neither .csv nor .json nor perf sched script's text"
        )
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{function}: measured: {file} is not JSON: {err}") from err
    if isinstance(document, list) and len(document) == 1:
        document = document[0]
    if isinstance(document, list):
        raise ValueError(
            f"{function}: measured: {file} holds {len(document)} result documents; give one"
        )
    if isinstance(document, dict) and "experiments" in document:
        raise ValueError(
            f"{function}: measured: {file} is a data file of figures: a scenario's [measured] "
            "table names one of its figures (data, experiment, figure, entries; "
            "docs/scenario-format.md), and compare() without measured uses it"
        )
    if not isinstance(document, dict):
        raise ValueError(
            f"{function}: measured: {file} is not a result document (docs/output-format.md)"
        )
    _check_document(document, f"{function}: measured: {file}")
    return Measurements.from_document(document, source=str(file))


_CSV_COLUMNS = ("entry", "quantity", "value", "task", "repetition")
_CSV_REQUIRED = _CSV_COLUMNS[:3]


class _CsvProblem(Exception):
    """What is wrong with a CSV line, and in which column (0-based; None: the whole line)."""

    def __init__(self, message: str, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.column = column


def _read_csv(text: str, name: str, function: str) -> Measurements:
    reader = csv.reader(io.StringIO(text))
    header: Optional[list[str]] = None
    runs: dict[Key, dict[Optional[int], tuple[float, int]]] = {}
    for fields in reader:
        line = reader.line_num
        if not "".join(fields).strip() or fields[0].lstrip().startswith("#"):
            continue  # blank lines and comments
        try:
            if header is None:
                header = _csv_header([f.strip() for f in fields])
                continue
            key, repetition, value = _csv_row([f.strip() for f in fields], header)
            _csv_add(runs.setdefault(key, {}), key, repetition, (value, line))
        except _CsvProblem as problem:
            where = f"line {line}" + (
                "" if problem.column is None else f", column {problem.column + 1}"
            )
            raise ValueError(f"{function}: measured: {name}: {where}: {problem}") from None
    if header is None:
        raise ValueError(
            f"{function}: measured: {name}: no header line ({','.join(_CSV_REQUIRED)})"
        )
    values = {k: statistics.median(v for v, _ in given.values()) for k, given in runs.items()}
    return Measurements(name, values)


def _csv_add(
    given: dict[Optional[int], tuple[float, int]],
    key: Key,
    repetition: Optional[int],
    value_and_line: tuple[float, int],
) -> None:
    """Adds one line's value of ``key``: a repetition once, and either one value without a
    repetition or every value with one."""
    for earlier, (_, line) in given.items():
        if earlier == repetition or (earlier is None) != (repetition is None):
            what = key[0] + ("" if key[1] is None else f" task {key[1]}") + f" {key[2]}"
            raise _CsvProblem(
                f"{what} is already given on line {line}"
                + ("" if earlier == repetition else " (give every repetition, or one value)")
            )
    given[repetition] = value_and_line


def _csv_header(fields: list[str]) -> list[str]:
    for column, heading in enumerate(fields):
        if heading not in _CSV_COLUMNS:
            raise _CsvProblem(
                f"unknown column {heading!r}{_did_you_mean(heading, _CSV_COLUMNS)}; the columns "
                "are entry, quantity, value and optionally task and repetition",
                column,
            )
        if fields.index(heading) != column:
            raise _CsvProblem(f"column {heading!r} appears twice", column)
    for required in _CSV_REQUIRED:
        if required not in fields:
            raise _CsvProblem(f"the header has no column {required!r}")
    return fields


def _csv_row(fields: list[str], header: list[str]) -> tuple[Key, Optional[int], float]:
    if len(fields) != len(header):
        raise _CsvProblem(
            f"{len(fields)} fields, but the header has {len(header)}", min(len(fields), len(header))
        )
    row = dict(zip(header, fields))
    entry, quantity, task = row["entry"], row["quantity"], row.get("task") or None
    if not entry:
        raise _CsvProblem("the entry is empty", header.index("entry"))
    if quantity not in QUANTITIES:
        raise _CsvProblem(
            f"unknown quantity {quantity!r}{_did_you_mean(quantity, QUANTITIES)}; the "
            "quantities are " + ", ".join(QUANTITIES),
            header.index("quantity"),
        )
    if task is not None and quantity not in TASK_QUANTITIES:
        raise _CsvProblem(
            f"a task's quantity is one of {', '.join(TASK_QUANTITIES)}, not {quantity}",
            header.index("quantity"),
        )
    try:
        value = float(row["value"])
    except ValueError:
        raise _CsvProblem(f"{row['value']!r} is not a number", header.index("value")) from None
    if not math.isfinite(value) or value < 0:
        raise _CsvProblem(f"{row['value']} is not a number from 0 up", header.index("value"))
    repetition: Optional[int] = None
    if row.get("repetition"):
        if not row["repetition"].isdigit():
            raise _CsvProblem(
                f"repetition {row['repetition']!r} is not a whole number from 0 up",
                header.index("repetition"),
            )
        repetition = int(row["repetition"])
    return (entry, task, quantity), repetition, value


def _did_you_mean(word: str, candidates: Any) -> str:
    best = _core.run.nearest_name(word, list(candidates))
    return "" if best is None else f'; did you mean "{best}"?'


# --- The comparison ----------------------------------------------------------------------


def _error(quantity: str, value: Optional[float], measured: Optional[float]) -> Optional[float]:
    """As docs/output-format.md defines it: a share's in percentage points, every other
    quantity's in percent of the measurement."""
    if value is None or measured is None:
        return None
    if quantity == "share":
        return (value - measured) * 100
    return None if measured == 0 else (value - measured) / measured * 100


def _theory_of(
    document: Mapping[str, Any], task_shares: Mapping[str, float], reference: Optional[str]
) -> dict[Key, float]:
    """The fluid shares, an entry's being its tasks' sum; the ratios to the reference; and
    the jiffies the shares would give over the window."""
    window_s = (document["window"]["end"] - document["window"]["start"]) / 1e9
    theory: dict[Key, float] = {}
    if not task_shares:
        return theory
    tasks_of = _tasks_of(document)
    for entry, tasks in tasks_of.items():
        shares: dict[Optional[str], float] = {t: task_shares[t] for t in tasks if len(tasks) > 1}
        shares[None] = sum(task_shares[t] for t in tasks)  # the entry's
        for task, share in shares.items():
            theory[(entry, task, "share")] = share
            theory[(entry, task, "jiffies")] = share * window_s * _USER_HZ
    reference_share = theory.get((reference, None, "share")) if reference else None
    if reference_share:
        for entry, quantity in ((e, q) for e in tasks_of for q in RATIOS):
            theory[(entry, None, quantity)] = theory[(entry, None, "share")] / reference_share
    return theory


def _comparison(
    document: dict[str, Any], task_shares: Mapping[str, float], measured: Optional[Measurements]
) -> Comparison:
    reference = _document_reference(document)
    tasks_of = _tasks_of(document)
    values = dict(measured.values) if measured else {}
    if (
        measured
        and measured.reference not in (None, reference)
        and reference is not None
        and any(q in RATIOS for _, _, q in values)
    ):
        raise ValueError(
            f"libsched.compare: measured: its ratios are to entry {measured.reference}, but the "
            f"scenario's reference is {reference}"
        )
    unmatched = _unmatched(values, tasks_of)
    simulated = _document_figures(document)
    theory = _theory_of(document, task_shares, reference)

    keys: list[Key] = []
    for entry, tasks in tasks_of.items():
        shown = {"share"} | {q for e, t, q in values if e == entry and t is None}
        if (entry, None, "ratio") in simulated:
            shown.add("ratio")
        if entry == reference:
            shown -= RATIOS  # 1 by definition
        keys += [(entry, None, q) for q in QUANTITIES if q in shown]
        keys += [(entry, t, q) for t in tasks for q in TASK_QUANTITIES if (entry, t, q) in values]
    rows = tuple(
        ComparisonRow(
            entry=key[0],
            task=key[1],
            quantity=key[2],
            theory=theory.get(key),
            simulated=simulated.get(key),
            measured=values.get(key),
            error=_error(key[2], simulated.get(key), values.get(key)),
            theory_error=_error(key[2], theory.get(key), values.get(key)),
            error_unit="pp" if key[2] == "share" else "%",
        )
        for key in keys
    )
    measured_entries = {e for e, _, _ in values}
    return Comparison(
        scenario=str(document.get("scenario", "")),
        reference=reference,
        measured_source=measured.source if measured else None,
        rows=rows,
        unmatched=unmatched,
        unmeasured=tuple(
            e for e in tasks_of if measured and e not in measured_entries and e != reference
        ),
        result=document,
    )


def _unmatched(values: Mapping[Key, float], tasks_of: Mapping[str, list[str]]) -> tuple[str, ...]:
    """The measured entries and tasks the scenario lacks; a near miss of one it has (by case
    or a typo) is an error."""
    entry_of = {t: entry for entry, tasks in tasks_of.items() for t in tasks}
    unmatched: list[str] = []
    for entry, task in dict.fromkeys((e, t) for e, t, _ in values):
        if entry not in tasks_of:
            _no_near_miss(f"entry {entry!r} is not in the scenario", entry, list(tasks_of))
            unmatched.append(entry)
        elif task is not None and task not in tasks_of[entry]:
            if task in entry_of:
                raise ValueError(
                    f"libsched.compare: measured task {task!r} is a task of entry "
                    f"{entry_of[task]!r}, not of {entry!r}"
                )
            if not task.removeprefix(f"{entry}.").isdigit():  # else an instance it lacks
                _no_near_miss(
                    f"task {task!r} is not a task of entry {entry!r}", task, tasks_of[entry]
                )
            unmatched.append(f"{entry}/{task}")
    return tuple(unmatched)


def _no_near_miss(what: str, name: str, names: list[str]) -> None:
    if hint := _did_you_mean(name, names):
        raise ValueError(f"libsched.compare: measured {what}{hint}")


# --- The text table -----------------------------------------------------------------------


def format_value(quantity: str, value: Optional[float]) -> str:
    """``value`` of ``quantity`` in its unit as tables show it: a share in % of one CPU, a
    ratio to three decimals, a latency (ns) in µs; ``-`` for ``None``."""
    if value is None:
        return "-"
    if quantity == "share":
        return f"{100 * value:.2f} %"
    if quantity in RATIOS:
        return f"{value:.3f}"
    if quantity.startswith("wakeup_latency_"):
        return f"{value / 1000:.1f} µs"
    if quantity == "ru_utime_ms":
        return f"{value:.1f} ms"
    if quantity.endswith("_per_s"):
        return f"{value:.1f}/s"
    return f"{value:.1f}"


def _format_error(row: ComparisonRow, value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:+.2f} pp" if row.error_unit == "pp" else f"{value:+.1f} %"


def _table(c: Comparison) -> str:
    with_tasks = any(r.task is not None for r in c.rows)
    with_measured = c.measured_source is not None
    heading = ["entry"] + (["task"] if with_tasks else []) + ["quantity", "theory", "simulated"]
    if with_measured:
        heading += ["measured", "error", "theory error"]
    lines = [heading]
    for r in c.rows:
        line = [r.entry] + ([r.task or ""] if with_tasks else []) + [r.quantity]
        line += [format_value(r.quantity, r.theory), format_value(r.quantity, r.simulated)]
        if with_measured:
            line += [
                format_value(r.quantity, r.measured),
                _format_error(r, r.error),
                _format_error(r, r.theory_error),
            ]
        lines.append(line)
    text_columns = 3 if with_tasks else 2
    widths = [max(len(line[i]) for line in lines) for i in range(len(heading))]

    def render(line: list[str]) -> str:
        cells = [
            s.ljust(w) if i < text_columns else s.rjust(w)
            for i, (s, w) in enumerate(zip(line, widths))
        ]
        return "  ".join(cells).rstrip()

    title = (
        f"{c.scenario}: theory, simulated and measured"
        if with_measured
        else f"{c.scenario}: theory and simulated"
    )
    if c.reference is not None:
        title += f"; ratios to {c.reference}"
    out = [title]
    if with_measured:
        out.append(f"measured: {c.measured_source}")
    out += [render(lines[0]), render(["-" * w for w in widths])] + [
        render(line) for line in lines[1:]
    ]
    if c.unmatched:
        out.append("measured, not in the scenario: " + ", ".join(c.unmatched))
    if c.unmeasured:
        out.append("in the scenario, not measured: " + ", ".join(c.unmeasured))
    return "\n".join(out) + "\n"


# --- The command -------------------------------------------------------------------------


def main(args: list[str]) -> int:
    """``libsched compare``: prints the comparison of a scenario file (``--help``)."""
    parser = argparse.ArgumentParser(
        prog="libsched compare",
        description="Print theory, simulated and measured figures of a scenario side by side.",
    )
    parser.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    parser.add_argument(
        "--measured",
        metavar="FILE",
        help="measured figures: a result document (.json), a CSV file, or perf sched "
        "script's text (docs/perf-import.md); default: the scenario's [measured] table",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument(
        "--plot",
        metavar="OUT.png",
        help="write the bars: theory, simulated, measured on a log axis",
    )
    parser.add_argument(
        "--timeline",
        metavar="OUT.png",
        help="write the per-CPU timeline of repetition 0's first 100 ms of the window",
    )
    parser.add_argument(
        "--latency", metavar="OUT.png", help="write the wakeup latency CDF per entry"
    )
    parser.add_argument("--reps", type=int, metavar="N", help="repetitions (overrides the file)")
    parser.add_argument("--seed", type=int, metavar="S", help="seed of the first repetition")
    options = parser.parse_args(args)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comparison = compare(options.scenario, options.measured, options.reps, options.seed)
        for w in caught:
            print(f"libsched compare: warning: {w.message}", file=sys.stderr)
        if options.json:
            print(json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False))
        else:
            print(comparison.table(), end="")
        _write_figures(options, comparison)
    except (ValueError, TypeError, ImportError) as err:
        print(f"libsched compare: {err}", file=sys.stderr)
        return 1
    return 0


def _write_figures(options: argparse.Namespace, comparison: Comparison) -> None:
    if not (options.plot or options.timeline or options.latency):
        return
    from . import plot

    if options.plot:
        plot.save(plot.plot_comparison(comparison), options.plot)
    if options.latency:
        plot.save(plot.plot_latency_cdf(comparison), options.latency)
    if options.timeline:
        window = comparison.result["window"]
        start = window["start"]
        end = min(window["end"], start + plot.TIMELINE_SPAN_NS)
        trace = _traced_run(options.scenario, options.seed)
        plot.save(plot.plot_timeline(trace, start=start, end=end), options.timeline)


def _traced_run(scenario: str, seed: Optional[int]) -> dict[str, Any]:
    """Repetition 0's scheduling trace, from the command-line tool's ``run --trace`` (the
    same run as the comparison's first repetition: a scenario and seed give one result)."""
    from .plot import read_trace

    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "trace.csv")
        args = ["run", "-q", "--reps", "1", "--trace", trace] + (
            [] if seed is None else ["--seed", str(seed)]
        )
        output, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors):
            status = _core.run.cli_main([*args, scenario])
        if status != 0:
            raise ValueError(f"the traced run failed: {errors.getvalue().strip()}")
        return read_trace(trace)
