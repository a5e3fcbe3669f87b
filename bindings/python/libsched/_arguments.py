"""Checks of the package's int arguments, in its own words."""

from __future__ import annotations

from typing import Any, Optional

MAX_SEED = 2**64 - 1  # seeds are 64-bit unsigned in the model


def check_int(
    function: str,
    name: str,
    value: Any,
    low: int,
    high: Optional[int],
    *,
    optional: bool = False,
) -> None:
    """Raise TypeError unless ``value`` is an int (a bool is not; None is fine when
    ``optional``), ValueError unless it is from ``low`` to ``high`` (None: no upper
    bound); the message names ``libsched.<function>`` and the argument."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "an int or None" if optional else "an int"
        raise TypeError(f"libsched.{function}: {name} must be {kind}, not {type(value).__name__}")
    if high is None:
        if value < low:
            raise ValueError(f"libsched.{function}: {name} must be >= {low}, got {value}")
    elif not low <= value <= high:
        bound = "2**64 - 1" if high == MAX_SEED else str(high)
        raise ValueError(f"libsched.{function}: {name} must be from {low} to {bound}, got {value}")
