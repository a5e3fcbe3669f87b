"""docs/latency.md.

Its figures come from the sweep files of examples/latency (one repetition a point, the
schbench-like sweep three: its table gives their medians).
"""

from __future__ import annotations

import functools
import json
import statistics
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import libsched
from doc_figures import ROOT, Figure, pct, simulated, summary

DOC = "docs/latency.md"

BURNERS = "examples/latency/cfs-vs-eevdf/burners.toml"
NICE = "examples/latency/cfs-vs-eevdf/nice.toml"
SLICE = "examples/latency/cfs-vs-eevdf/slice.toml"
RUN_TO_PARITY = "examples/latency/cfs-vs-eevdf/run-to-parity.toml"
TUNABLES = "examples/latency/cfs-vs-eevdf/tunables.toml"
SCHBENCH = "examples/latency/cfs-vs-eevdf/schbench.toml"
CFS_LATENCY = "examples/latency/database/cfs-latency.toml"
CFS_MIN_GRANULARITY = "examples/latency/database/cfs-min-granularity.toml"
EEVDF_BASE_SLICE = "examples/latency/database/eevdf-base-slice.toml"
EEVDF_TASK_SLICE = "examples/latency/database/eevdf-task-slice.toml"

EEVDF = ("6.6", "6.18")
WORK = "tasks.worker.behaviour.steps[1].run.mean"
Row = dict[str, Any]


def swept(text: str, path: str, value: Callable[[libsched.SweepResult], Any]) -> Figure:
    """A figure read from the rows of the sweep file ``path``."""
    return Figure(DOC, text, path, value)


def points(result: libsched.SweepResult, **axes: Any) -> list[Row]:
    """The rows (one per repetition) of the point whose axes end with the given names
    (``kernel="6.6"`` for ``machine.kernel``) and have the given values."""

    def at(row: Row) -> bool:
        for name, value in axes.items():
            (axis,) = (a for a in result.axes if a.split(".")[-1] == name)
            if row[axis] != value:
                return False
        return True

    rows = [r for r in result.rows if at(r)]
    assert rows, (axes, result.axes)
    return rows


def point(result: libsched.SweepResult, **axes: Any) -> Row:
    """The row of a point run once."""
    (row,) = points(result, **axes)
    return row


def wait(row: Row, name: str) -> float:
    """'Wait per wakeup': the task's run-queue waits summed, divided by its wakeups (ns)."""
    delay = row[f"{name}.run_delay.mean"] * row[f"{name}.run_delay.count"]
    value: float = delay / row[f"{name}.wakeup_latency.count"]
    return value


def switches(row: Row) -> float:
    """Every task's voluntary and involuntary switches a second."""
    return sum(v for k, v in row.items() if k.endswith((".nvcsw_per_s", ".nivcsw_per_s")))


def ms(ns: float) -> str:
    """A time as the tables print it: in ms, or in µs when it is a few µs."""
    return f"{ns / 1e3:.0f} µs" if ns < 10_000 else f"{ns / 1e6:.2f}"


def span(values: Iterable[float], spec: str) -> str:
    """The least and the most of the values, each formatted with ``spec``, joined by an en
    dash."""
    listed = list(values)
    return f"{min(listed):{spec}}–{max(listed):{spec}}"  # noqa: RUF001 (the docs' dash)


def distinct(values: Iterable[Any], spec: str = "") -> list[str]:
    return list(dict.fromkeys(f"{v:{spec}}" for v in values))


def same(values: Iterable[Any], spec: str = "") -> str:
    """The values' one formatted value, when they all format alike (else all of them, which
    no text quotes)."""
    return " / ".join(distinct(values, spec))


# A light periodic task among burners (burners.toml, nice.toml, slice.toml, ...).


def burst(text: str) -> str:
    return text.replace(" µs", "us").replace(" ", "")


def burners_row(kernel: str, count: int, run: str) -> Callable[[libsched.SweepResult], Any]:
    def value(s: libsched.SweepResult) -> tuple[str, ...]:
        row = point(s, kernel=kernel, count=count, run=burst(run))
        return (
            *(ms(row[f"light.wakeup_latency.{q}"]) for q in ("p50", "p99", "max")),
            ms(wait(row, "light")),
            f"{switches(row):.0f}",
        )

    return value


BURNERS_TABLE = [
    ("5.15", 1, "100 µs"),
    ("5.15", 1, "1 ms"),
    ("5.15", 4, "100 µs"),
    ("5.15", 4, "1 ms"),
    ("5.15", 8, "1 ms"),
    *(
        (kernel, n, b)
        for kernel in EEVDF
        for n, b in ((1, "100 µs"), (1, "1 ms"), (4, "100 µs"), (4, "1 ms"), (8, "1 ms"))
    ),
]


def among_eight(s: libsched.SweepResult) -> tuple[str, str, str]:
    """The EEVDF task with 1 ms bursts among 8 burners: its wait per wakeup, its bursts a
    second, and CFS's."""
    eevdf = [point(s, kernel=k, count=8, run="1ms") for k in EEVDF]
    cfs = point(s, kernel="5.15", count=8, run="1ms")
    return (
        same((wait(r, "light") / 1e6 for r in eevdf), ".0f"),
        span((r["light.nvcsw_per_s"] for r in eevdf), ".0f"),
        f"{cfs['light.nvcsw_per_s']:.0f}",
    )


def source_004_targets(s: libsched.SweepResult) -> tuple[str, str]:
    eevdf = [point(s, kernel=k, count=8, run="1ms") for k in EEVDF]
    return (
        span((r["light.wakeup_latency.p99"] / 1e6 for r in eevdf), ".0f"),
        span((r["light.wakeup_latency.max"] / 1e6 for r in eevdf), ".0f"),
    )


def cfs_burner_waits(s: libsched.SweepResult) -> tuple[str, str]:
    """The burners' mean wait for a turn on 5.15 (ms), over both bursts, at N = 4 and 8."""

    def turn(n: int) -> str:
        rows = points(s, kernel="5.15", count=n)
        return span((r["burner.run_delay.mean"] / 1e6 for r in rows), ".0f")

    return turn(4), turn(8)


def desktop(s: libsched.SweepResult) -> tuple[str, float]:
    cfs = max(r["light.wakeup_latency.max"] for r in points(s, kernel="5.15"))
    eevdf = max(point(s, kernel=k, count=8, run="1ms")["light.wakeup_latency.max"] for k in EEVDF)
    return ms(cfs), eevdf / 1e6


def eevdf_p99_with_several(s: libsched.SweepResult) -> str:
    """The EEVDF task's p99 with 1 ms bursts among 4 and 8 burners, as the table has it."""
    rows = [point(s, kernel=k, count=n, run="1ms") for k in EEVDF for n in (4, 8)]
    return span((r["light.wakeup_latency.p99"] / 1e6 for r in rows), ".0f")


def nice_variant(s: libsched.SweepResult) -> tuple[float, ...]:
    at0, at5 = (point(s, kernel="6.6", nice=n) for n in (0, -5))
    return (
        wait(at0, "light") / 1e6,
        wait(at5, "light") / 1e6,
        at0["light.wakeup_latency.p99"] / 1e6,
        at5["light.wakeup_latency.p99"] / 1e6,
    )


def nice_minus_10(s: libsched.SweepResult) -> tuple[float, float]:
    def at(kernel: str) -> float:
        return wait(point(s, kernel=kernel, nice=-10), "light") / 1e6

    return at("6.18"), at("6.6")


def slice_variant(s: libsched.SweepResult) -> tuple[str, ...]:
    def p99(kernel: str, slice_: str) -> float:
        value: float = point(s, kernel=kernel, slice=slice_)["light.wakeup_latency.p99"] / 1e6
        return value

    default = [point(s, kernel=k, slice="3ms") for k in ("6.12", "6.18")]
    shorter = [
        point(s, kernel=k, slice=x) for k in ("6.12", "6.18") for x in ("1ms", "0.3ms", "0.1ms")
    ]
    return (
        same((p99(k, "3ms") for k in ("6.12", "6.18")), ".2f"),
        *(f"{p99(k, x):.2f}" for x in ("1ms", "0.1ms") for k in ("6.12", "6.18")),
        same((wait(r, "light") / 1e6 for r in default), ".1f"),
        span((wait(r, "light") / 1e6 for r in shorter), ".1f"),
    )


def run_to_parity_variant(s: libsched.SweepResult) -> tuple[str, ...]:
    def p99(kernel: str, on: bool) -> str:
        return f"{point(s, kernel=kernel, run_to_parity=on)['light.wakeup_latency.p99'] / 1e6:.2f}"

    return (
        same((wait(r, "light") / 1e6 for r in s.rows), ".1f"),
        *(p99(k, on) for k in EEVDF for on in (True, False)),
    )


def tunables_variant(s: libsched.SweepResult) -> tuple[str, str]:
    above = [point(s, kernel="5.15", wakeup_granularity=g) for g in ("16ms", "32ms")]
    return (
        same((r["light.wakeup_latency.p50"] / 1e6 for r in above), ".2f"),
        same((r["light.wakeup_latency.max"] / 1e6 for r in above), ".2f"),
    )


# The schbench-like workload (schbench.toml): the medians of its three repetitions.


def median(s: libsched.SweepResult, kernel: str, work: str, figure: str) -> float:
    return statistics.median(r[figure] for r in points(s, kernel=kernel, mean=work))


def schbench_row(kernel: str, work: str) -> Callable[[libsched.SweepResult], Any]:
    def value(s: libsched.SweepResult) -> tuple[str, ...]:
        def m(figure: str) -> float:
            return median(s, kernel, work, figure)

        return (
            *(f"{m(f'worker.wakeup_latency.{q}') / 1e6:.2f}" for q in ("p50", "p99", "p99_9")),
            *(f"{m(f'worker.loop_time.{q}') / 1e6:.2f}" for q in ("p50", "p99")),
            f"{m('worker.loops_per_s'):.0f}",
            f"{m('worker.nivcsw_per_s'):.0f}",
            f"{m('message.run_delay.mean') / 1e3:.0f} µs",
        )

    return value


SCHBENCH_TABLE = [(k, w) for k in ("5.15", *EEVDF) for w in ("0.5 ms", "1 ms", "2 ms", "3 ms")]


def lower(s: libsched.SweepResult, works: tuple[str, ...], figure: str) -> str:
    """How much lower EEVDF's figure is than CFS's (%), from the least to the most."""
    return span(
        (
            100 * (1 - median(s, k, w, figure) / median(s, "5.15", w, figure))
            for k in EEVDF
            for w in works
        ),
        ".0f",
    )


def source_004_schbench(s: libsched.SweepResult) -> tuple[str, ...]:
    p99 = "worker.wakeup_latency.p99"
    at_15 = distinct((median(s, k, "0.5ms", p99) / 1e6 for k in ("5.15", *EEVDF)), ".2f")
    return (
        "the same" if len(at_15) == 1 else f"different ({' / '.join(at_15)})",
        lower(s, ("1ms",), p99),
        lower(s, ("2ms", "3ms"), p99),
        lower(s, ("2ms", "3ms"), "worker.wakeup_latency.p99_9"),
    )


def cfs_to_eevdf(
    s: libsched.SweepResult, works: tuple[str, ...], figure: str, spec: str, unit: float = 1e6
) -> tuple[str, ...]:
    """For each work: CFS's figure, and EEVDF's from the least to the most (in ``unit`` ns,
    ms by default)."""
    found: list[str] = []
    for w in works:
        found.append(f"{median(s, '5.15', w, figure) / unit:{spec}}")
        found.append(span((median(s, k, w, figure) / unit for k in EEVDF), spec))
    return tuple(found)


def message_waits(s: libsched.SweepResult) -> tuple[str, ...]:
    """The message's wait per wait over the loads (µs) on 6.6 and on 6.18, and the workers'
    involuntary switches at 0.5 ms on 6.18 and 6.6."""
    works = ("0.5ms", "1ms", "2ms", "3ms")
    return (
        *(
            span((median(s, k, w, "message.run_delay.mean") / 1e3 for w in works), ".0f")
            for k in EEVDF
        ),
        *(f"{median(s, k, '0.5ms', 'worker.nivcsw_per_s'):.0f}" for k in ("6.18", "6.6")),
    )


@functools.cache
def _run_point(path: str, values: str) -> dict[str, Any]:
    scenario, _ = libsched.load_sweep(ROOT / path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        document: dict[str, Any] = libsched.run(
            scenario.with_values(json.loads(values)), repetitions=1
        )
    return document


def run_point(path: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """One point of the sweep file ``path``, run once on its own (the whole document)."""
    return _run_point(path, json.dumps(dict(values), sort_keys=True))


def message_timer_lateness(_: libsched.SweepResult) -> str:
    """How late the message's timer wakes it at 0.5 ms (µs): one value on every release,
    p50 and max alike."""
    found = []
    for kernel in ("5.15", *EEVDF):
        document = run_point(SCHBENCH, {"machine.kernel": kernel, WORK: "0.5ms"})
        (message,) = (t for t in document["repetitions"][0]["tasks"] if t["name"] == "message")
        found += [message["lateness"]["p50"] / 1e3, message["lateness"]["max"] / 1e3]
    return same(found, ".0f")


# The database case (examples/latency/database).


def commit_row(**axes: Any) -> Callable[[libsched.SweepResult], Any]:
    def value(s: libsched.SweepResult) -> tuple[str, ...]:
        row = point(s, **axes)
        cells = [ms(row[f"commit.wakeup_latency.{q}"]) for q in ("p50", "p99", "max")]
        return (*cells, ms(wait(row, "commit")))

    return value


def with_commits(**axes: Any) -> Callable[[libsched.SweepResult], Any]:
    def value(s: libsched.SweepResult) -> tuple[str, ...]:
        return (*commit_row(**axes)(s), f"{point(s, **axes)['commit.nvcsw_per_s']:.1f}")

    return value


def length(text: str) -> str:
    return text.split(" (")[0].replace(" ", "")


CFS_LATENCY_TABLE = [
    ("2 ms", "0.5 ms"),
    ("2 ms", "2 ms (default)"),
    ("2 ms", "4 ms"),
    ("6 ms", "2 ms"),
    ("6 ms", "4 ms"),
    ("12 ms (default)", "2 ms"),
    ("24 ms", "4 ms"),
]
BASE_SLICE_TABLE = [(b, k) for k in EEVDF for b in ("0.35 ms", "1.4 ms", "5.6 ms")]
TASK_SLICE_TABLE = [
    ("0.1 ms", "6.12"),
    ("1.4 ms", "6.12"),
    ("0.1 ms", "6.18"),
    ("1.4 ms", "6.18"),
    ("5 ms", "6.18"),
]


def min_granularity_switches(s: libsched.SweepResult) -> tuple[str, ...]:
    served = same(ms(r["commit.wakeup_latency.max"]) for r in s.rows)
    return served, *(
        f"{point(s, min_granularity=g)['java.nivcsw_per_s']:.0f}"
        for g in ("0.75ms", "1.5ms", "3ms", "6ms")
    )


def lowered_latency(s: libsched.SweepResult) -> tuple[str, float]:
    default = point(s, latency="12ms", wakeup_granularity="2ms")
    lowered = point(s, latency="2ms", wakeup_granularity="2ms")
    return ms(default["commit.wakeup_latency.p99"]), lowered["commit.wakeup_latency.p99"] / 1e6


FIGURES = [
    *(
        swept(
            f"| {kernel} | {n} | {b} | {{}} | {{}} | {{}} | {{}} | {{}} |",
            BURNERS,
            burners_row(kernel, n, b),
        )
        for kernel, n, b in BURNERS_TABLE
    ),
    swept(
        "With 1 ms bursts among 8 burners the EEVDF task waits {} ms of each 10.1 ms period and misses about three wakeups in ten ({} bursts a second instead of {})",
        BURNERS,
        among_eight,
    ),
    swept(
        "1 ms among 4 burners: {:.2f} ms on 6.6, as the table shows",
        BURNERS,
        lambda s: wait(point(s, kernel="6.6", count=4, run="1ms"), "light") / 1e6,
    ),
    swept(
        "reaches the positive clamp and loses the excess ({:.2f} ms instead of 0.40)",
        BURNERS,
        lambda s: wait(point(s, kernel="6.6", count=4, run="100us"), "light") / 1e6,
    ),
    swept(
        "(6.18, one burner, 1 ms: {:.2f} ms instead of 1.00",
        BURNERS,
        lambda s: wait(point(s, kernel="6.18", count=1, run="1ms"), "light") / 1e6,
    ),
    swept(
        "at nice -5 the light task's wait on 6.6 falls from {:.2f} to {:.2f} ms, the weighted balance's 4 × 1024 / 3121 = 1.31 ms; p99 {:.2f} → {:.2f} ms",  # noqa: RUF001
        NICE,
        nice_variant,
    ),
    swept(
        "p99 {} ms at 3 ms, {} (6.12) / {} (6.18) at 1 ms, {} (6.12) / {} (6.18) at 0.1 ms. The wait per wakeup falls from {} to {} ms",
        SLICE,
        slice_variant,
    ),
    swept(
        "At nice -10 on 6.18 the same happens ({:.2f} ms against the balance's 0.43 and 6.6's {:.2f})",
        NICE,
        nice_minus_10,
    ),
    swept(
        "does not shorten the wait ({} ms per wakeup either way) and lengthens the tail (p99 {} → {} ms on 6.6, {} → {} on 6.18)",
        RUN_TO_PARITY,
        run_to_parity_variant,
    ),
    swept(
        "make the 100 µs task wait for the tick (p50 {} ms, max {} ms) where 1 ms and 4 ms serve it at once",
        TUNABLES,
        tunables_variant,
    ),
    swept(
        "for a 1 ms burst among 8 burners the model gives p99 {} ms, max {} ms",
        BURNERS,
        source_004_targets,
    ),
    swept(
        "on 5.15 the burners wait {} ms for each turn at N = 4, {} ms at N = 8",
        BURNERS,
        cfs_burner_waits,
    ),
    swept(
        "at 15 % load the three kernels give {} p99, at 30 % EEVDF's is {} % lower; at 60–90 % EEVDF's p99 is {} % lower than CFS's and its p99.9 {} % lower",  # noqa: RUF001
        SCHBENCH,
        source_004_schbench,
    ),
    swept(
        "lengthens those requests (request p99 {} → {} ms; at 3 ms it is shorter, {} → {} ms)",
        SCHBENCH,
        lambda s: cfs_to_eevdf(s, ("2ms", "3ms"), "worker.loop_time.p99", ".1f"),
    ),
    swept(
        "the model points the other way for a task with 1 ms bursts (CFS µs, EEVDF p99 {} ms)",
        BURNERS,
        eevdf_p99_with_several,
    ),
    swept(
        "In the model a light periodic task on CFS waits at most {}; on EEVDF its maximum reaches {:.0f} ms (1 ms bursts, 8 burners)",
        BURNERS,
        desktop,
    ),
    *(
        swept(
            f"| {kernel} | {work} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} | {{}} |",
            SCHBENCH,
            schbench_row(kernel, work.replace(" ", "")),
        )
        for kernel, work in SCHBENCH_TABLE
    ),
    swept(
        "about equally on every kernel ({}/s)",
        SCHBENCH,
        lambda s: span(
            (median(s, k, "3ms", "worker.loops_per_s") for k in ("5.15", *EEVDF)), ".0f"
        ),
    ),
    swept(
        "(at 30 %, {} ms on 5.15 against {} on EEVDF)",
        SCHBENCH,
        lambda s: cfs_to_eevdf(s, ("1ms",), "worker.wakeup_latency.p99", ".2f"),
    ),
    swept(
        "waiting workers get their turn sooner (p99 {} → {} ms at 2 ms, {} → {} ms at 3 ms;",
        SCHBENCH,
        lambda s: cfs_to_eevdf(s, ("2ms", "3ms"), "worker.wakeup_latency.p99", ".1f"),
    ),
    swept(
        "at 2 ms last a little longer (request p99 {} → {} ms; at 3 ms {} → {} ms, shorter) and the workers are switched out more often (ivcsw/s {} → {})",
        SCHBENCH,
        lambda s: (
            *cfs_to_eevdf(s, ("2ms", "3ms"), "worker.loop_time.p99", ".1f"),
            *cfs_to_eevdf(s, ("2ms",), "worker.nivcsw_per_s", ".0f", unit=1),
        ),
    ),
    swept(
        "the end of its protection ({} µs per wait on 6.6). On 6.18 it waits longer still ({} µs) and preempts the workers far less at low load ({} against {} ivcsw/s at 0.5 ms)",
        SCHBENCH,
        message_waits,
    ),
    Figure(
        DOC,
        "the idle state's exit and the reschedule ({} µs) on every release",
        SCHBENCH,
        message_timer_lateness,
    ),
    *(
        swept(
            f"| {latency} | {granularity} | {{}} | {{}} | {{}} | {{}} |",
            CFS_LATENCY,
            commit_row(latency=length(latency), wakeup_granularity=length(granularity)),
        )
        for latency, granularity in CFS_LATENCY_TABLE
    ),
    swept(
        "the commit thread is served in {} at every value; the busy threads' switches per second are {}, {}, {} and {} for 0.75, 1.5, 3 and 6 ms",
        CFS_MIN_GRANULARITY,
        min_granularity_switches,
    ),
    *(
        swept(
            f"| {base} | {kernel} | {{}} | {{}} | {{}} | {{}} | {{}} |",
            EEVDF_BASE_SLICE,
            with_commits(base_slice=length(base), kernel=kernel),
        )
        for base, kernel in BASE_SLICE_TABLE
    ),
    *(
        swept(
            f"| {slice_} | {kernel} | {{}} | {{}} | {{}} | {{}} |",
            EEVDF_TASK_SLICE,
            commit_row(slice=length(slice_), kernel=kernel),
        )
        for slice_, kernel in TASK_SLICE_TABLE
    ),
    swept(
        "does not let the commit thread pay its debt while asleep here ({:.1f} ms at 0.1 ms)",
        EEVDF_TASK_SLICE,
        lambda s: wait(point(s, kernel="6.18", slice="0.1ms"), "commit") / 1e6,
    ),
    swept(
        "so it preempts only once the running thread is about 1 ms into its turn and otherwise waits for the tick: p99 {} → {:.1f} ms, worse, not better",
        CFS_LATENCY,
        lowered_latency,
    ),
]


LAZY = "examples/scenarios/lazy-preemption.toml"


def short(ns: float) -> str:
    """A wakeup latency as the lazy table prints it: µs below 10 µs, else ms."""
    return f"{ns / 1e3:.0f} µs" if ns < 10_000 else f"{ns / 1e6:.1f} ms"


def lazy_row(c: libsched.Comparison) -> tuple[Any, ...]:
    """The service's wakeup p50 and max, its sleeps a second, and the service's and the
    batch job's shares (%)."""
    service = summary(c, "service")
    return (
        short(service["wakeup_latency"]["p50"]),
        short(service["wakeup_latency"]["max"]),
        service["nvcsw_per_s"],
        pct(simulated(c, "service", "share")),
        pct(simulated(c, "batch", "share")),
    )


def normal_batch(c: libsched.Comparison) -> tuple[str, str]:
    """The service's wakeup p50 and max with a nice-0 batch burner, under none."""
    latency = summary(c, "service")["wakeup_latency"]
    return short(latency["p50"]), short(latency["max"])


FIGURES += [
    Figure(
        DOC,
        "| none (voluntary, full) | {} | {} | {:.0f} | {:.2f} / {:.2f} |",
        LAZY,
        lazy_row,
        {"machine.preempt": "none"},
    ),
    Figure(DOC, "| lazy | {} | {} | {:.0f} | {:.2f} / {:.2f} |", LAZY, lazy_row),
    Figure(
        DOC,
        "the service mostly preempts at once under none as well (p50 {}, a few waits up to {})",
        LAZY,
        normal_batch,
        {"machine.preempt": "none", "tasks.batch.policy": "normal"},
    ),
]
