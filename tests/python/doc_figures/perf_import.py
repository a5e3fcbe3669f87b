"""docs/validation.md, "A perf trace replayed": the model's schedule of the imported trace
(examples/perf-import/burner-and-sleeper.toml), with the default machine costs and with
the 6.18 host's."""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libsched
from doc_figures import ROOT, Figure, comparison, task

DOC = "docs/validation.md"
IMPORTED = "examples/perf-import/burner-and-sleeper.toml"
HOST_COSTS = {
    "machine.topology": "2c",
    "machine.cgroup_version": 1,
    "machine.ipi_latency": "24us",
    "machine.idle_exit_latency": "24us",
    "machine.tick_latency": {"dist": "uniform", "low": "7us", "high": "26us"},
}
SLEEPER = "python3-29962"
LOOP = "sh-29963"


def latency(c: libsched.Comparison) -> dict[str, Any]:
    found: dict[str, Any] = task(c, SLEEPER)["wakeup_latency"]
    return found


def long_waits() -> int:
    """The sleeper's wakeups that waited more than 1 ms for the CPU, in the trace of the
    imported scenario's run with the default costs."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.csv"
        args = ["run", "-q", "--trace", str(path), str(ROOT / IMPORTED)]
        assert libsched._core.run.cli_main(args) == 0
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
    woke = None
    waits = 0
    for r in rows:
        if r["event"] == "sched_wakeup" and r["comm"] == SLEEPER:
            woke = int(r["time_ns"])
        elif r["event"] == "sched_switch" and r["next_comm"] == SLEEPER and woke is not None:
            waits += int(r["time_ns"]) - woke > 1_000_000
            woke = None
    return waits


def both(value: Callable[[libsched.Comparison], Any]) -> Callable[[libsched.Comparison], Any]:
    """The value with the default costs (the figure's own run) and with the host's."""
    return lambda c: (value(c), value(comparison(IMPORTED, HOST_COSTS)))


FIGURES = [
    Figure(
        DOC, "| sleeper: wakeups | 168 | {} | {} |", IMPORTED, both(lambda c: latency(c)["count"])
    ),
    Figure(
        DOC,
        "| sleeper: wakeup to running, p50 | 10 µs | {:.0f} µs | {:.0f} µs |",
        IMPORTED,
        both(lambda c: latency(c)["p50"] / 1e3),
    ),
    Figure(
        DOC,
        "| sleeper: p90 | 3.80 ms | {:.2f} ms | {:.2f} ms |",
        IMPORTED,
        both(lambda c: latency(c)["p90"] / 1e6),
    ),
    Figure(
        DOC,
        "| sleeper: max | 4.76 ms | {:.2f} ms | {:.2f} ms |",
        IMPORTED,
        both(lambda c: latency(c)["max"] / 1e6),
    ),
    Figure(
        DOC,
        "| sleeper: preempted | 57 | {} | {} |",
        IMPORTED,
        both(lambda c: task(c, SLEEPER)["nivcsw"]),
    ),
    Figure(
        DOC,
        "| busy loop: preempted | 229 | {} | {} |",
        IMPORTED,
        both(lambda c: task(c, LOOP)["nivcsw"]),
    ),
    Figure(
        DOC,
        "| CPU time, sleeper / busy loop | {:.1f} / {:.1f} ms |",
        IMPORTED,
        lambda c: (
            task(c, SLEEPER)["sum_exec_runtime"] / 1e6,
            task(c, LOOP)["sum_exec_runtime"] / 1e6,
        ),
    ),
    Figure(
        DOC, "29 of the 168 wakeups on the host, {} in the model", IMPORTED, lambda c: long_waits()
    ),
]
