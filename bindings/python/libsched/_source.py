"""Where a scenario argument's TOML comes from: every public function that takes a
scenario takes a path (``str`` or ``os.PathLike``, never TOML text) or an object with
``to_toml()`` and ``origin`` (``libsched.Scenario``)."""

from __future__ import annotations

import os
from typing import Any

from . import _core


def scenario_source(scenario: Any, function: str) -> tuple[str, str]:
    """``(TOML text, origin)`` of ``scenario``; the origin names it in errors, and a file's
    folder is where its ``[measured]`` data files are looked for."""
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        return _core.run.read_scenario_file(path), path
    to_toml = getattr(scenario, "to_toml", None)
    if callable(to_toml):
        text = to_toml()
        origin = getattr(scenario, "origin", "<scenario>")
        if isinstance(text, str) and isinstance(origin, str):
            return text, origin
    raise TypeError(
        f"libsched.{function}: scenario must be a path (str or os.PathLike) or a "
        f"libsched.Scenario, not {type(scenario).__name__}"
    )
