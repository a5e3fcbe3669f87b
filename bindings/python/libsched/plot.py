"""Figures of a comparison and a run (the optional extra ``libsched[plot]``: matplotlib):
bars of theory, simulated and measured on a log axis, a per-CPU timeline of which task runs
when, and wakeup latency CDFs. Each function draws on ``ax`` (a new figure without one) and
returns the axes; ``save`` writes a figure to a file (docs/python.md)."""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from .compare import QUANTITIES, RATIOS, Comparison, ComparisonRow, format_value
from .simulator import TRACE_TEXT_COLUMNS

#: How much of the window ``libsched compare --timeline`` shows, from its start.
TIMELINE_SPAN_NS = 100_000_000

_COLOURS = {"theory": "#9e9e9e", "simulated": "#1f77b4", "measured": "#ff7f0e"}
# (axis label, the factor from the quantity's unit to the axis's); one family per axis.
_AXES: dict[str, tuple[str, float]] = {
    "share": ("share of one CPU (%)", 100.0),
    **{q: ("ratio to the reference entry", 1.0) for q in RATIOS},
    "jiffies": ("/proc utime over the window (jiffies)", 1.0),
    "ru_utime_ms": ("getrusage utime (ms)", 1.0),
    "nvcsw_per_s": ("context switches per second", 1.0),
    "nivcsw_per_s": ("context switches per second", 1.0),
    "migrations_per_s": ("migrations per second", 1.0),
    "run_delay_share": ("waiting on a run queue (% of the window)", 100.0),
    **{q: ("wakeup latency (µs)", 1e-3) for q in QUANTITIES if q.startswith("wakeup_latency_")},
}
_RATIO_OF = {"ratio": "share", "jratio": "/proc jiffies", "ru_ratio": "getrusage"}
_PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99_9", 0.999), ("max", 1.0))


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(
            "libsched.plot needs matplotlib, the optional extra libsched[plot]: "
            "python3 -m pip install 'libsched[plot]'"
        ) from err
    return plt


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    _, new = _pyplot().subplots(figsize=size, layout="constrained")
    return new


def save(ax: Any, path: Union[str, os.PathLike[str]]) -> None:
    """Write the figure of ``ax`` to ``path`` (the format from its suffix, e.g. ``.png``)
    and close it."""
    figure = ax.figure
    figure.savefig(os.fspath(path), dpi=120)
    _pyplot().close(figure)


# --- Bars ----------------------------------------------------------------------------------


def plot_comparison(
    comparison: Union[Comparison, Sequence[Comparison]],
    quantities: Optional[Sequence[str]] = None,
    ax: Any = None,
) -> Any:
    """Grouped bars of theory, simulated and measured per entry and quantity, on a log axis,
    for one comparison or several side by side (e.g. one per replay of an experiment).

    Without ``quantities``: the ratios that were measured, or else every ratio, or else the
    shares; the quantities drawn must share a unit (``ValueError`` otherwise). A missing
    value has no bar; each bar is labelled with its value."""
    comparisons = [comparison] if isinstance(comparison, Comparison) else list(comparison)
    if not comparisons or not all(isinstance(c, Comparison) for c in comparisons):
        raise TypeError(
            "libsched.plot.plot_comparison: comparison must be a Comparison or a list of them"
        )
    groups = _bar_groups(comparisons, quantities)
    axis_labels = {_AXES[r.quantity][0] for _, r in groups}
    if len(axis_labels) > 1:
        raise ValueError(
            "libsched.plot.plot_comparison: quantities must share a unit, got "
            + ", ".join(sorted({r.quantity for _, r in groups}))
        )
    ax = _axes(ax, (max(6.4, 1.3 * len(groups) + 2.0), 4.8))
    scale = _AXES[groups[0][1].quantity][1]
    # Without any measurement, no empty third bar.
    columns = ["theory", "simulated"] + (
        ["measured"] if any(r.measured is not None for _, r in groups) else []
    )
    width = 0.8 / len(columns)
    x = np.arange(len(groups))
    drawn: list[float] = []
    for i, column in enumerate(columns):
        offset = (i - (len(columns) - 1) / 2) * width
        values = [getattr(r, column) for _, r in groups]
        heights = [np.nan if v is None or v <= 0 else v * scale for v in values]
        bars = ax.bar(x + offset, heights, width, label=column, color=_COLOURS[column])
        ax.bar_label(
            bars,
            labels=[
                "" if v is None or v <= 0 else format_value(r.quantity, v)
                for v, (_, r) in zip(values, groups)
            ],
            fontsize=7,
            rotation=90,
            padding=2,
        )
        drawn += [h for h in heights if not np.isnan(h)]
    if not drawn:
        raise ValueError("libsched.plot.plot_comparison: no positive value to draw on a log axis")
    ax.set_yscale("log")
    ax.set_ylim(min(drawn) / 2, max(drawn) * 4)  # room above for the labels and the legend
    _plain_log_ticks(ax.yaxis)
    ax.set_xticks(x, [_bar_label(c, r) for c, r in groups])
    ax.set_xlim(-0.6, len(groups) - 0.4)
    several = len(comparisons) > 1
    if several:  # each comparison's name once, under its bars, which a thin line sets apart
        owners = [id(c) for c, _ in groups]
        spans = [[i for i, o in enumerate(owners) if o == id(c)] for c in comparisons]
        spans = [s for s in spans if s]
        names = [groups[s[0]][0].scenario for s in spans]
        below = ax.secondary_xaxis("bottom")
        below.set_xticks([(s[0] + s[-1]) / 2 for s in spans], names)
        below.tick_params(length=0, pad=32)
        below.spines["bottom"].set_visible(False)
        for s in spans[1:]:
            ax.axvline(s[0] - 0.5, color="0.8", linewidth=0.8)
    ax.set_ylabel(axis_labels.pop() + ", log scale")
    title = "Theory, simulated and measured" if len(columns) == 3 else "Theory and simulated"
    ax.set_title(title + ("" if several else f": {comparisons[0].scenario}"))
    ax.legend(loc="upper left", ncols=len(columns), fontsize=9)
    ax.grid(axis="y", which="major", alpha=0.3)
    return ax


def _plain_log_ticks(axis: Any, subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> None:
    """Log-axis ticks at ``subs`` times the powers of ten, written as plain numbers (0.5, 20)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def _bar_groups(
    comparisons: list[Comparison], quantities: Optional[Sequence[str]]
) -> list[tuple[Comparison, ComparisonRow]]:
    rows = [(c, r) for c in comparisons for r in c.rows if r.task is None]
    if quantities is None:
        for wanted in (
            lambda r: r.quantity in RATIOS and r.measured is not None,
            lambda r: r.quantity in RATIOS,
            lambda r: r.quantity == "share",
        ):
            chosen = [(c, r) for c, r in rows if wanted(r)]
            if chosen:
                return chosen
        raise ValueError(
            "libsched.plot.plot_comparison: the comparison has no share or ratio to draw"
        )
    unknown = [q for q in quantities if q not in _AXES]
    if unknown:
        raise ValueError(f"libsched.plot.plot_comparison: unknown quantities {', '.join(unknown)}")
    chosen = [(c, r) for c, r in rows if r.quantity in quantities]
    if not chosen:
        raise ValueError(f"libsched.plot.plot_comparison: no row of {', '.join(quantities)}")
    return chosen


def _bar_label(c: Comparison, r: ComparisonRow) -> str:
    if r.quantity in RATIOS:
        return f"{r.entry}/{c.reference}\n{_RATIO_OF[r.quantity]}"
    return r.entry if r.quantity == "share" else f"{r.entry}\n{r.quantity}"


# --- The timeline --------------------------------------------------------------------------


def read_trace(path: Union[str, os.PathLike[str]]) -> dict[str, np.ndarray]:
    """The columns of a scheduling trace CSV (``libsched run --trace FILE``;
    docs/output-format.md) as arrays: the numbers as integers (-1 where a line leaves one
    empty), the names and events as strings."""
    with Path(path).open(newline="", encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    if not lines:
        raise ValueError(f"libsched.plot.read_trace: {path} holds no events")
    columns: dict[str, np.ndarray] = {}
    for name in lines[0]:
        values = [line[name] for line in lines]
        if name in TRACE_TEXT_COLUMNS:
            columns[name] = np.array(values, dtype=str)
        else:
            columns[name] = np.array([int(v) if v else -1 for v in values], dtype=np.int64)
    return columns


def plot_timeline(
    trace: Union[str, os.PathLike[str], Mapping[str, Any]],
    repetition: int = 0,
    start: Optional[int] = None,
    end: Optional[int] = None,
    ax: Any = None,
) -> Any:
    """A per-CPU Gantt chart of one repetition of a scheduling trace: which task runs on
    each CPU when, one colour per task, idle time blank.

    ``trace`` is a trace CSV file or its columns (a mapping of column name to an array, as
    ``read_trace`` returns; at least ``time_ns``, ``cpu``, ``event``, ``next_pid`` and
    ``next_comm``, with ``repetition`` if it holds several). ``start`` and ``end`` (ns)
    bound the time shown: by default from 0 to the repetition's last event. The axis is in
    ms, or in s for two seconds and more."""
    columns = (
        read_trace(trace)
        if isinstance(trace, (str, os.PathLike))
        else {k: np.asarray(v) for k, v in trace.items()}
    )
    missing = [k for k in ("time_ns", "cpu", "event", "next_pid", "next_comm") if k not in columns]
    if missing:
        raise ValueError(
            f"libsched.plot.plot_timeline: the trace has no column {', '.join(missing)}"
        )
    times = columns["time_ns"].astype(np.int64)
    in_repetition = (
        columns["repetition"] == repetition
        if "repetition" in columns
        else np.ones(len(times), dtype=bool)
    )
    switch = in_repetition & (columns["event"] == "sched_switch")
    if not switch.any():
        raise ValueError(f"libsched.plot.plot_timeline: no sched_switch in repetition {repetition}")
    begin = 0 if start is None else start
    stop = int(times[in_repetition].max()) if end is None else end
    if stop <= begin:
        raise ValueError(f"libsched.plot.plot_timeline: end {stop} is not after start {begin}")
    unit, unit_ns = ("s", 1e9) if stop - begin >= 2_000_000_000 else ("ms", 1e6)

    cpus = np.unique(columns["cpu"][in_repetition])
    tasks: dict[str, list[tuple[int, float, float]]] = {}  # name -> (cpu, from, length)
    for cpu in cpus:
        on_cpu = switch & (columns["cpu"] == cpu)
        t = times[on_cpu]
        if not len(t):
            continue  # events on the CPU, but no switch to draw
        ends = np.append(t[1:], max(stop, int(t[-1])))
        for name, pid, a, b in zip(
            columns["next_comm"][on_cpu], columns["next_pid"][on_cpu], t, ends
        ):
            a, b = max(int(a), begin), min(int(b), stop)
            if pid != 0 and b > a:
                tasks.setdefault(str(name), []).append(
                    (int(cpu), (a - begin) / unit_ns, (b - a) / unit_ns)
                )

    ax = _axes(ax, (9.0, 1.0 + 0.6 * len(cpus)))
    colours = _task_colours(len(tasks))
    for (name, spans), colour in zip(sorted(tasks.items(), key=_natural), colours):
        label: Optional[str] = name  # one legend entry per task, however many CPUs it ran on
        for cpu_index, cpu in enumerate(cpus):
            ranges = [(a, length) for c, a, length in spans if c == cpu]
            if ranges:
                ax.broken_barh(ranges, (cpu_index - 0.4, 0.8), color=colour, label=label)
                label = None
    ax.set_yticks(range(len(cpus)), [f"CPU {c}" for c in cpus])
    ax.set_ylim(len(cpus) - 0.5, -0.5)  # CPU 0 on top
    ax.set_xlim(0, (stop - begin) / unit_ns)
    ax.set_xlabel(f"time ({unit})" if begin == 0 else f"time from {_format_time(begin)} ({unit})")
    ax.set_title(f"Which task runs on each CPU, repetition {repetition} (blank: idle)")
    if len(tasks) <= 20:
        ax.legend(
            title="task", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, title_fontsize=8
        )
    return ax


def _natural(item: tuple[str, Any]) -> list[Any]:
    """Sorts "a.2" before "a.10": the digits of a name by their value."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", item[0])]


def _task_colours(n: int) -> list[Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _format_time(ns: int) -> str:
    return f"{ns / 1e9:g} s" if ns % 1_000_000 == 0 and ns >= 1_000_000_000 else f"{ns / 1e6:g} ms"


# --- Latency CDFs --------------------------------------------------------------------------


def plot_latency_cdf(
    source: Union[Comparison, Mapping[str, Any]],
    ax: Any = None,
) -> Any:
    """The distribution of wakeup latency per entry, on a log axis in µs.

    ``source`` is a ``Comparison`` (its run, and the measured percentiles where it has
    them, dashed), a run's result document (its ``summary``: count and percentiles, drawn
    as points of the CDF at 50, 90, 99, 99.9 and 100 %), or a mapping of entry name to raw
    latency samples in ns (drawn as the empirical CDF). ``ValueError`` if no entry woke up."""
    ax_given = ax
    curves: list[
        tuple[str, np.ndarray, np.ndarray, str, bool]
    ] = []  # label, x µs, y, entry, dashed
    if isinstance(source, Comparison) or "summary" in source:
        document = source.result if isinstance(source, Comparison) else source
        for row in document["summary"]:
            latency = row.get("wakeup_latency") or {}
            if latency.get("count"):
                points = [(latency[k] / 1000, y) for k, y in _PERCENTILES if latency.get(k)]
                curves.append(
                    (
                        f"{row['entry']} simulated ({latency['count']} wakeups)",
                        *_xy(points),
                        row["entry"],
                        False,
                    )
                )
        if isinstance(source, Comparison):
            measured = {(r.entry, r.quantity): r.measured for r in source.rows if r.task is None}
            for entry in dict.fromkeys(r.entry for r in source.rows):
                points = [
                    (value / 1000, y)
                    for k, y in _PERCENTILES
                    if (value := measured.get((entry, f"wakeup_latency_{k}"))) is not None
                    and value > 0
                ]
                if points:
                    curves.append((f"{entry} measured", *_xy(points), entry, True))
    else:
        for entry, samples in source.items():
            values = np.sort(np.asarray(samples, dtype=float))
            values = values[values > 0] / 1000
            if len(values):
                y = np.arange(1, len(values) + 1) / len(values)
                curves.append((f"{entry} ({len(values)} wakeups)", values, y, str(entry), False))
    if not curves:
        raise ValueError(
            "libsched.plot.plot_latency_cdf: no entry woke up inside the window: nothing to draw"
        )

    ax = _axes(ax_given, (6.4, 4.8))
    entries = list(dict.fromkeys(c[3] for c in curves))
    colours = dict(zip(entries, _task_colours(len(entries))))
    for label, x, y, entry, dashed in curves:
        # A step at each percentile: of the values between two, only the bounds are known.
        marker = "" if len(x) > len(_PERCENTILES) else "o"
        ax.plot(
            x,
            y,
            drawstyle="steps-post",
            linestyle="--" if dashed else "-",
            marker=marker,
            markersize=4,
            color=colours[entry],
            label=label,
        )
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis, subs=(1.0,))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("wakeup latency (µs), log scale")
    ax.set_ylabel("fraction of wakeups at or below")
    ax.set_title("Wakeup latency, from a wakeup to the task's first run")
    ax.grid(which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return ax


def _xy(points: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([p[0] for p in points]), np.array([p[1] for p in points])
