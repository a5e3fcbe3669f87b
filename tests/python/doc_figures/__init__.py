"""Figures the docs and the examples' comments quote from the model, with how to make each
again: test_doc_figures.py reruns them, so a model change that moves a quoted figure fails
with the file and the words to update instead of leaving the text stale.

One module per document (replays.py for docs/replays.md, ...), each a list ``FIGURES``.
A figure is the quoted ``text`` with ``{...}`` format fields where the model's values go,
the scenario that makes them (a file of the project, optionally with ``values`` set as
``Scenario.with_values`` does) and ``value``: a function of that run (a
``libsched.Comparison``: its rows, and the run's document as ``.result``; for a sweep file
the ``libsched.SweepResult``) returning the field's value, or a tuple for several fields. Whitespace (line breaks included) and the
minus sign's spelling (U+2212 or ``-``) do not matter in the comparison.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import libsched

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Figure:
    where: str
    text: str
    scenario: str
    value: Callable[[Any], Any]
    values: Mapping[str, Any] = field(default_factory=dict)
    repetitions: Optional[int] = None

    @property
    def id(self) -> str:
        return f"{Path(self.where).name}: {self.text[:60]}"


def normalized(text: str) -> str:
    return " ".join(text.replace("\u2212", "-").split())


def comparison(
    scenario: str, values: Optional[Mapping[str, Any]] = None, repetitions: Optional[int] = None
) -> libsched.Comparison:
    """The run of ``scenario`` (a file of the project) with ``values`` set, made once for
    every figure that reads it: also for value functions that need several runs."""
    return _comparison(scenario, json.dumps(dict(values or {}), sort_keys=True), repetitions)


@functools.cache
def _comparison(scenario: str, values: str, repetitions: Optional[int]) -> libsched.Comparison:
    loaded = libsched.Scenario.from_file(ROOT / scenario)
    if values != "{}":
        loaded = loaded.with_values(json.loads(values))
    with warnings.catch_warnings():
        # What a scenario clamps is said where it is quoted; the figures are what is checked.
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        return libsched.compare(loaded, repetitions=repetitions)


@functools.cache
def is_sweep_file(path: str) -> bool:
    text = (ROOT / path).read_text()
    return any(line.lstrip().startswith("[sweep") for line in text.splitlines())


@functools.cache
def sweep(path: str) -> libsched.SweepResult:
    """The sweep file ``path`` (a file of the project) run as written, on one core, once."""
    scenario, options = libsched.load_sweep(ROOT / path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        return libsched.sweep(scenario, jobs=1, progress=False, **options)


def quoted(figure: Figure) -> str:
    """The text as the model's values now fill it."""
    if is_sweep_file(figure.scenario):
        value = figure.value(sweep(figure.scenario))
    else:
        value = figure.value(comparison(figure.scenario, figure.values, figure.repetitions))
    return figure.text.format(*(value if isinstance(value, tuple) else (value,)))


# Accessors for the value functions.


def simulated(
    c: libsched.Comparison, entry: str, quantity: str, task: Optional[str] = None
) -> float:
    """The simulated value of a comparison row (a share as a fraction of one CPU)."""
    value = c.row(entry, quantity, task).simulated
    assert value is not None, (c.scenario, entry, quantity, task)
    return value


def summary(c: libsched.Comparison, entry: str) -> dict[str, Any]:
    """An entry's row of the run's ``summary``."""
    rows = [r for r in c.result["summary"] if r["entry"] == entry]
    assert len(rows) == 1, (c.scenario, entry)
    row: dict[str, Any] = rows[0]
    return row


def pct(fraction: float) -> float:
    return 100 * fraction


def error(c: libsched.Comparison, entry: str, quantity: str, task: Optional[str] = None) -> float:
    """A comparison row's error against the measurement (pp for a share, else %)."""
    value = c.row(entry, quantity, task).error
    assert value is not None, (c.scenario, entry, quantity, task)
    return value


def repetition(c: libsched.Comparison, index: int = 0) -> dict[str, Any]:
    row: dict[str, Any] = c.result["repetitions"][index]
    return row


def task(c: libsched.Comparison, name: str, index: int = 0) -> dict[str, Any]:
    """A task's row in repetition ``index``."""
    rows = [t for t in repetition(c, index)["tasks"] if t["name"] == name]
    assert len(rows) == 1, (c.scenario, name)
    row: dict[str, Any] = rows[0]
    return row
