"""docs/scenario-format.md: the figures it quotes from the model."""

from __future__ import annotations

from typing import Any

import libsched
from doc_figures import Figure, comparison, summary

DOC = "docs/scenario-format.md"
SYNC_WAKEUP = "examples/scenarios/sync-wakeup.toml"


def reader_p99(high: str | None) -> float:
    """The sync-wakeup reader's wakeup p99 (ns), with a tick latency uniform over 0 to
    ``high`` (None: the default, 0)."""
    values: dict[str, Any] = (
        {}
        if high is None
        else {"machine.tick_latency": {"dist": "uniform", "low": "0us", "high": high}}
    )
    c: libsched.Comparison = comparison(SYNC_WAKEUP, values)
    p99: float = summary(c, "reader")["wakeup_latency"]["p99"]
    return p99


def lattice(c: libsched.Comparison) -> tuple[float, float]:
    aligned = {round(reader_p99(high) / 1e6, 1) for high in (None, "1us")}
    assert len(aligned) == 1, aligned
    return aligned.pop(), reader_p99("3us") / 1e3


FIGURES = [
    Figure(
        DOC,
        "in examples/scenarios/sync-wakeup.toml the reader's wakeup p99 is {:.1f} ms with 0 or 0 to 1 µs and {:.0f} µs with 0 to 3 µs",
        SYNC_WAKEUP,
        lattice,
    ),
]
