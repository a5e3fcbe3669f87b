"""Running a scenario to its JSON document, shared by ``run``, ``run_text`` and
``simulate``: the argument checks and the scenario's warnings."""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional

from . import _core
from ._arguments import MAX_SEED, check_int
from ._source import scenario_source


class ScenarioWarning(UserWarning):
    """A scenario that runs but may not do what was meant (a value the kernel clamps, a
    setting without effect); the message names the field."""


_MAX_REPETITIONS = 10_000  # validate.hpp's max_repetitions


def run_scenario(
    scenario: Any, repetitions: Optional[int], seed: Optional[int], function: str
) -> dict[str, Any]:
    """The JSON document of a run of ``scenario`` (a path or a scenario object), for the
    public ``function``; its warnings are issued at that function's caller."""
    text, origin = scenario_source(scenario, function)
    check_run_arguments(function, repetitions, seed)
    return document(_core.run.run_scenario_text(text, repetitions, seed, origin), stacklevel=4)


def check_run_arguments(function: str, repetitions: Optional[int], seed: Optional[int]) -> None:
    check_int(function, "repetitions", repetitions, 1, _MAX_REPETITIONS, optional=True)
    check_int(function, "seed", seed, 0, MAX_SEED, optional=True)


def document(run: tuple[str, list[str]], stacklevel: int) -> dict[str, Any]:
    """The run's document; its warnings as ScenarioWarning, ``stacklevel`` counted from
    here."""
    text, scenario_warnings = run
    for message in scenario_warnings:
        warnings.warn(message, ScenarioWarning, stacklevel=stacklevel)
    result: dict[str, Any] = json.loads(text)
    return result
