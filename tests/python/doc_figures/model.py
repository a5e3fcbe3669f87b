"""docs/model.md."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import libsched
from doc_figures import Figure, comparison, summary

DOC = "docs/model.md"

TWO_BURNERS = "examples/scenarios/two-burners.toml"
HRTICK = "examples/scenarios/hrtick.toml"
FAIR_SERVER_IDLE = "examples/scenarios/fair-server-idle.toml"
CYCLIC_1 = "examples/latency/cyclic-1.toml"

# The releases of a row of the two-burners table: the 0.75 ms base slice, then 0.70 ms.
EEVDF_075 = tuple(f"6.{minor}" for minor in range(6, 15))
EEVDF_070 = tuple(f"6.{minor}" for minor in range(15, 20))

# "A 1 ms / 10 ms timer loop beside a burner" of docs/validation.md: the cyclictest-like
# case with one burner (both pinned to CPU 1 of the 2-core 6.18 machine, three
# repetitions) with a 1 ms burst and a 3 s window.
LOOP_1MS = {"tasks.cyclic.behaviour.run": "1ms", "length": "4s", "window": ["1s", "4s"]}


def entries(c: libsched.Comparison) -> list[str]:
    return [row["entry"] for row in c.result["summary"]]


def switches_per_s(c: libsched.Comparison) -> float:
    """Every task's involuntary switches per second of the window, summed."""
    return float(sum(summary(c, e)["nivcsw_per_s"] for e in entries(c)))


def turn_ms(c: libsched.Comparison) -> float:
    """A turn's length (ms) with two burners on one CPU: what each waits for the other."""
    return float(summary(c, entries(c)[0])["run_delay"]["mean"]) / 1e6


def agreed(values: Mapping[str, Sequence[float]]) -> tuple[float, ...]:
    """The values every release gives (within 1 %), else a failure naming each release's."""
    first = next(iter(values.values()))
    assert all(
        math.isclose(a, b, rel_tol=1e-2) for v in values.values() for a, b in zip(v, first)
    ), values
    return tuple(first)


def two_burners(kernel: str, online: int, hz: int) -> libsched.Comparison:
    return comparison(
        TWO_BURNERS, {"machine.kernel": kernel, "machine.online_cpus": online, "machine.hz": hz}
    )


def burner_row(kernels: Iterable[str], online: int) -> tuple[float, ...]:
    """Turn (ms) and switches per second at HZ 250, then at HZ 1000, the same for each of
    ``kernels``. The switch rate is the turns' (1 / turn, both tasks' switches together),
    checked against the window's count of involuntary switches, which also counts the
    window's edges (562 in 9 s for 16 ms turns)."""

    def row(kernel: str) -> list[float]:
        out: list[float] = []
        for hz in (250, 1000):
            c = two_burners(kernel, online, hz)
            turn = turn_ms(c)
            assert math.isclose(switches_per_s(c), 1000 / turn, rel_tol=1e-2), (kernel, hz)
            out += [turn, 1000 / turn]
        return out

    return agreed({k: row(k) for k in kernels})


def burner_shares() -> tuple[float, float]:
    """The least and the most a burner gets (%) in every case of the table and of HRTICK."""
    runs = [
        two_burners(k, online, hz)
        for k, online in (
            ("5.15", 1),
            ("5.15", 8),
            *((k, n) for k in EEVDF_075 for n in (1, 8)),
            *((k, 8) for k in EEVDF_070),
        )
        for hz in (250, 1000)
    ]
    runs += [hrtick(k, hz) for k in ("5.15", *EEVDF_075, *EEVDF_070) for hz in (250, 1000)]
    shares = [100 * t["share"] for c in runs for r in c.result["repetitions"] for t in r["tasks"]]
    return min(shares), max(shares)


def same_rounded(low_high: tuple[float, float]) -> float:
    low, high = low_high
    assert round(low) == round(high), low_high
    return low


def hrtick(kernel: str, hz: int, values: Mapping[str, Any] | None = None) -> libsched.Comparison:
    return comparison(HRTICK, {"machine.kernel": kernel, "machine.hz": hz, **(values or {})})


def hrtick_rate(kernels: Iterable[str], hz: int, values: Mapping[str, Any] | None = None) -> float:
    return agreed({k: [switches_per_s(hrtick(k, hz, values))] for k in kernels})[0]


def hrtick_hz1000(c: libsched.Comparison) -> tuple[float, float, float]:
    rates = [switches_per_s(hrtick(k, 1000)) for k in (*EEVDF_075, *EEVDF_070)]
    return min(rates), max(rates), hrtick_rate(EEVDF_075, 1000, {"machine.tick_irq": 0})


NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


def ticks_of_a_3ms_slice(c: libsched.Comparison) -> str:
    turn = agreed({k: [turn_ms(two_burners(k, 8, 1000))] for k in EEVDF_075})[0]
    return NUMBERS.get(round(turn), str(turn))


def lateness_us(c: libsched.Comparison, entry: str) -> float:
    return float(summary(c, entry)["lateness"]["mean"]) / 1e3


FIGURES = [
    Figure(
        DOC,
        "| 5.15 (CFS) | 1 | ideal 3 ms (6 ms latency / 2) | {:.0f} ms, {:.0f} | {:.0f} ms, {:.0f} |",
        TWO_BURNERS,
        lambda c: burner_row(("5.15",), 1),
    ),
    Figure(
        DOC,
        "| 5.15 (CFS) | 8 | ideal 12 ms (24 ms / 2) | {:.0f} ms, {:.1f} | {:.0f} ms, {:.0f} |",
        TWO_BURNERS,
        lambda c: burner_row(("5.15",), 8),
    ),
    Figure(
        DOC,
        "| 6.6 \u2013 6.14 | 1 | 0.75 ms | {:.0f} ms, {:.0f} | {:.0f} ms, {:.0f} |",
        TWO_BURNERS,
        lambda c: burner_row(EEVDF_075, 1),
    ),
    Figure(
        DOC,
        "| 6.6 \u2013 6.14 | 8 | 3 ms | {:.0f} ms, {:.0f} | {:.0f} ms, {:.0f} (three ticks leave",
        TWO_BURNERS,
        lambda c: burner_row(EEVDF_075, 8),
    ),
    Figure(
        DOC,
        "| 6.15 + | 8 | 2.8 ms | {:.0f} ms, {:.0f} | {:.0f} ms, {:.0f} |",
        TWO_BURNERS,
        lambda c: burner_row(EEVDF_070, 8),
    ),
    Figure(
        DOC,
        "HRTICK ends turns at the slice itself ({:.0f} switches/s for the 12 ms CFS slice, {:.0f} for 3 ms, {:.0f} for 2.8 ms at HZ 250",
        HRTICK,
        lambda c: (
            switches_per_s(c),
            hrtick_rate(EEVDF_075, 250),
            hrtick_rate(EEVDF_070, 250),
        ),
    ),
    Figure(
        DOC,
        "at HZ 1000 EEVDF switches {:.0f}\u2013{:.0f} times/s with the tick's IRQ time `tick_irq`, {:.0f} without it",
        HRTICK,
        hrtick_hz1000,
    ),
    Figure(
        DOC,
        "The shares stay at {:.0f} % each in every case",
        TWO_BURNERS,
        lambda c: same_rounded(burner_shares()),
    ),
    Figure(
        DOC,
        "This is what makes a 3 ms EEVDF slice take {} ticks at HZ 1000",
        TWO_BURNERS,
        ticks_of_a_3ms_slice,
    ),
    Figure(
        DOC,
        "{:,.0f} µs modelled, {:,.0f} µs with the host's `irq_time_accounting = false`",
        CYCLIC_1,
        lambda c: (
            lateness_us(c, "cyclic"),
            lateness_us(
                comparison(CYCLIC_1, {**LOOP_1MS, "machine.irq_time_accounting": False}),
                "cyclic",
            ),
        ),
        values=LOOP_1MS,
    ),
    Figure(
        DOC,
        "the sleeper's wakeup behind a FIFO task that started meanwhile waits a whole {:.0f} ms",
        FAIR_SERVER_IDLE,
        lambda c: summary(c, "fair")["wakeup_latency"]["max"] / 1e6,
        values={"machine.kernel": "6.19"},
    ),
]
