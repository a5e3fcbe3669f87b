"""libsched: the Linux fair scheduler (CFS and EEVDF) simulated in user space.

The compiled core is ``libsched._core``; this package is the supported interface.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Union

try:
    from . import _core
except ImportError as err:  # the source tree has no compiled module
    raise ImportError(
        "libsched._core (the compiled part of libsched) could not be imported: "
        f"{err}. Install the package with `python3 -m pip install .` from the "
        "source checkout rather than importing libsched from the source tree."
    ) from err

from . import examples, plot, results
from ._core import kernel, weight
from ._run import ScenarioWarning, check_run_arguments, document, run_scenario
from ._source import scenario_source
from .compare import Comparison, ComparisonRow, Measurements, compare, read_measurements
from .measure import MeasureError, host_machine, measure, other_work_tasks
from .results import Repetition, Result, simulate
from .scenario import Scenario
from .simulator import Simulator
from .sweep import SweepFailure, SweepResult, load_sweep, sweep

__version__: str = _core.__version__

ScenarioError = _core.run.ScenarioError

nice_to_weight = weight.nice_to_weight
clamp_nice = weight.clamp_nice
calc_delta_fair = weight.calc_delta_fair
features = kernel.features
tunables = kernel.tunables

__all__ = [
    "Comparison",
    "ComparisonRow",
    "MeasureError",
    "Measurements",
    "Repetition",
    "Result",
    "Scenario",
    "ScenarioError",
    "ScenarioWarning",
    "Simulator",
    "SweepFailure",
    "SweepResult",
    "__version__",
    "calc_delta_fair",
    "clamp_nice",
    "compare",
    "examples",
    "features",
    "host_machine",
    "kernel",
    "load_sweep",
    "measure",
    "nice_to_weight",
    "other_work_tasks",
    "plot",
    "read_measurements",
    "results",
    "run",
    "run_text",
    "simulate",
    "sweep",
    "theory",
    "theory_text",
    "tunables",
    "weight",
]


def run(
    scenario: Union[str, os.PathLike[str], Any],
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
) -> dict[str, Any]:
    """Run ``scenario`` and return its result as a dict (the CLI's JSON output).

    ``scenario`` is a path to a TOML scenario file (a ``str`` or an ``os.PathLike``, never
    TOML text: use ``run_text`` for that; a relative path is resolved against the current
    directory) or a ``libsched.Scenario``. ``repetitions`` and ``seed`` override the
    scenario's own values. Raises ``ScenarioError`` (a ``ValueError``) naming the file and
    the offending field when the file is missing or the scenario is invalid.
    """
    return run_scenario(scenario, repetitions, seed, "run")


def run_text(
    toml: str,
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
) -> dict[str, Any]:
    """Run a scenario given as TOML text and return its result as a dict, as ``run`` does
    for a file.

    Errors name the origin ``<string>``; a scenario without a ``name`` is called
    ``<string>``.
    """
    if not isinstance(toml, str):
        raise TypeError(f"libsched.run_text: toml must be a str, not {type(toml).__name__}")
    check_run_arguments("run_text", repetitions, seed)
    return document(_core.run.run_scenario_text(toml, repetitions, seed), stacklevel=3)


def theory(scenario: Union[str, os.PathLike[str], Any]) -> dict[str, dict[str, float]]:
    """The fluid (generalised processor sharing) share of one CPU each task and group of
    ``scenario`` would get: the figure computed by hand from the kernel's weight table, with
    each task capped at one CPU and at its demand, affinity and cpusets, group weights
    through the hierarchy, quotas, and RT tasks first (docs/theory.md).

    Returns ``{"tasks": {name: share}, "groups": {name: share}}``, 1.0 being a whole CPU;
    tasks are named as ``run`` names them (``"a"``, or ``"a.0"`` .. for ``count > 1``),
    groups by their cgroup path or ``"autogroup-N"``. ``scenario`` is a path or a
    ``libsched.Scenario``, as for ``run``; errors raise ``ScenarioError``. The command
    line's ``libsched theory --json`` gives each task's settings beside its share.
    """
    text, origin = scenario_source(scenario, "theory")
    return _shares(_core.theory.theory_scenario_text(text, origin))


def theory_text(toml: str) -> dict[str, dict[str, float]]:
    """The fluid shares of a scenario given as TOML text, as ``theory`` gives for a file."""
    return _shares(_core.theory.theory_scenario_text(toml))


def _shares(text: str) -> dict[str, dict[str, float]]:
    doc = json.loads(text)
    return {
        "tasks": {t["name"]: float(t["share"]) for t in doc["tasks"]},
        "groups": {g["name"]: float(g["share"]) for g in doc["groups"]},
    }
