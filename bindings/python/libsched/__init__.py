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

from ._core import kernel, weight

__version__: str = _core.__version__

ScenarioError = _core.run.ScenarioError
nice_to_weight = weight.nice_to_weight
clamp_nice = weight.clamp_nice
calc_delta_fair = weight.calc_delta_fair
features = kernel.features
tunables = kernel.tunables

__all__ = [
    "ScenarioError",
    "__version__",
    "calc_delta_fair",
    "clamp_nice",
    "features",
    "kernel",
    "nice_to_weight",
    "run",
    "run_text",
    "tunables",
    "weight",
]


def run(
    path: Union[str, os.PathLike[str]],
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
) -> dict[str, Any]:
    """Run the TOML scenario file at ``path`` and return its result as a dict (the CLI's
    JSON output).

    ``path`` is always a path, a ``str`` or an ``os.PathLike``, never TOML text (use
    ``run_text`` for that); a relative path is resolved against the current directory.
    ``repetitions`` and ``seed`` override the scenario's own values. Raises
    ``ScenarioError`` (a ``ValueError``) naming the file and the offending field when the
    file is missing or the scenario is invalid.
    """
    return _result(_core.run.run_scenario_file(os.fspath(path), repetitions, seed))


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
    return _result(_core.run.run_scenario_text(toml, repetitions, seed))


def _result(text: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(text)
    return result
