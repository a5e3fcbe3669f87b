"""docs/validation.md, "A perf trace replayed", and docs/perf-import.md: the model's
schedule of the imported trace (examples/perf-import/burner-and-sleeper.toml, and its
import with --loops), with the default machine costs and with the 6.18 host's."""

from __future__ import annotations

import csv
import functools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libsched
from doc_figures import ROOT, Figure, comparison, task
from libsched import Scenario

DOC = "docs/validation.md"
IMPORTED = "examples/perf-import/burner-and-sleeper.toml"
HOST_COSTS = {
    "machine.topology": "2c",
    "machine.cgroup_version": 1,
    "machine.ipi_latency": "24us",
    "machine.idle_exit_latency": "24us",
    "machine.tick_latency": {"dist": "uniform", "low": "7us", "high": "26us"},
}
NICE10 = "examples/perf-import/nice10-burner-and-sleeper.toml"
LOOPED = "examples/perf-import/burner-and-sleeper-loops.toml"
TWO = "examples/perf-import/two-burners-and-sleeper.toml"
TIMER = "examples/perf-import/timer-and-burner.toml"
TIMER_SLEEPER = "python3-13377"
TIMER_WHAT_IF = {"tasks.sh-13376.nice": 10}
SLEEPER2 = "python3-12028"
WHAT_IF = {"tasks.sh-29963.nice": 10}
SLEEPER10 = "python3-32457"
LOOP10 = "sh-32456"
SLEEPER = "python3-29962"
LOOP = "sh-29963"


def latency(c: libsched.Comparison, sleeper: str = SLEEPER) -> dict[str, Any]:
    found: dict[str, Any] = task(c, sleeper)["wakeup_latency"]
    return found


def trace_rows(scenario: Scenario) -> list[dict[str, str]]:
    """The rows of the trace ``libsched run --trace`` writes of a run of the scenario."""
    with tempfile.TemporaryDirectory() as folder:
        toml = Path(folder) / "scenario.toml"
        toml.write_text(scenario.to_toml())
        path = Path(folder) / "trace.csv"
        assert libsched._core.run.cli_main(["run", "-q", "--trace", str(path), str(toml)]) == 0
        with path.open(newline="") as f:
            return list(csv.DictReader(f))


def long_waits(scenario: Scenario, sleeper: str = SLEEPER) -> int:
    """The sleeper's wakeups that waited more than 1 ms for the CPU, in the trace of a run
    of the scenario (its first repetition)."""
    return long_waits_per_repetition(scenario, sleeper)[0]


def long_waits_per_repetition(scenario: Scenario, sleeper: str = SLEEPER) -> list[int]:
    """The same for each repetition of the run."""
    woke: dict[str, int] = {}
    waits: dict[str, int] = {}
    for r in trace_rows(scenario):
        rep = r["repetition"]
        waits.setdefault(rep, 0)
        if r["event"] == "sched_wakeup" and r["comm"] == sleeper:
            woke[rep] = int(r["time_ns"])
        elif r["event"] == "sched_switch" and r["next_comm"] == sleeper and rep in woke:
            waits[rep] += int(r["time_ns"]) - woke.pop(rep) > 1_000_000
    return [waits[rep] for rep in sorted(waits, key=int)]


SEEDS = {**HOST_COSTS, "repetitions": 7, "seed": 1}


def over_seeds(scenario: Scenario, sleeper: str) -> list[dict[str, Any]]:
    """The sleeper's figures in seven repetitions (seeds 1 to 7) with the host's costs."""
    document = libsched.run(scenario.with_values(SEEDS))
    return [
        next(t for t in rep["tasks"] if t["name"] == sleeper) for rep in document["repetitions"]
    ]


def plain_timer_import() -> Scenario:
    """The timer loop's trace imported without --timer."""
    return Scenario.from_perf_script(
        ROOT / "examples/perf-import/timer-and-burner.txt",
        kernel="6.18",
        exclude=["^perf"],
        pin=True,
    )


def timer_figures(scenario: Scenario) -> tuple[int, int, int, float, float]:
    """The timer loop's waits over 1 ms, preemptions, rounds (wakeups), CPU time (ms) and
    longest wait (ms) in a run of the scenario."""
    tasks = libsched.run(scenario)["repetitions"][0]["tasks"]
    t = next(t for t in tasks if t["name"] == TIMER_SLEEPER)
    return (
        long_waits(scenario, TIMER_SLEEPER),
        t["nivcsw"],
        t["wakeup_latency"]["count"],
        t["sum_exec_runtime"] / 1e6,
        t["wakeup_latency"]["max"] / 1e6,
    )


def spread_of(values: list[int]) -> tuple[int, int]:
    return min(values), max(values)


def seeded_waits(scenario: Scenario) -> tuple[int, int, int]:
    """The sleeper's waits over 1 ms in seven seeds with the host's costs: the least, the
    most and the median."""
    waits = sorted(long_waits_per_repetition(scenario.with_values(SEEDS)))
    return waits[0], waits[-1], waits[len(waits) // 2]


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
        DOC,
        "29 of the 168 wakeups on the host, {} in the model",
        IMPORTED,
        lambda c: long_waits(imported()),
    ),
    # The what-if: the nice-0 import with the loop at nice 10 (the figures' own run), and
    # the nice-10 import.
    Figure(
        DOC,
        "| sleeper: wakeups | 195 | {} | {} | {} |",
        IMPORTED,
        lambda c: (
            latency(c)["count"],
            latency(looped_what_if())["count"],
            latency(nice10(), SLEEPER10)["count"],
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "| sleeper: waits over 1 ms | 8 | {} | {} | {} |",
        IMPORTED,
        lambda c: (
            long_waits(imported().with_values(WHAT_IF)),
            long_waits(Scenario.from_file(ROOT / LOOPED).with_values(WHAT_IF)),
            long_waits(Scenario.from_file(ROOT / NICE10), SLEEPER10),
        ),
    ),
    Figure(
        DOC,
        "| sleeper: max wait | 2.75 ms | {:.2f} ms | {:.2f} ms | {:.2f} ms |",
        IMPORTED,
        lambda c: (
            latency(c)["max"] / 1e6,
            latency(looped_what_if())["max"] / 1e6,
            latency(nice10(), SLEEPER10)["max"] / 1e6,
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "| sleeper: preempted | 11 | {} | {} | {} |",
        IMPORTED,
        lambda c: (
            task(c, SLEEPER)["nivcsw"],
            task(looped_what_if(), SLEEPER)["nivcsw"],
            task(nice10(), SLEEPER10)["nivcsw"],
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "| busy loop: preempted | 201 | {} | {} | {} |",
        IMPORTED,
        lambda c: (
            task(c, LOOP)["nivcsw"],
            task(looped_what_if(), LOOP)["nivcsw"],
            task(nice10(), LOOP10)["nivcsw"],
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "| CPU time, sleeper / busy loop | 398.5 / 1602.6 ms | {:.1f} / {:.1f} ms | {:.1f} / {:.1f} ms | {:.1f} / {:.1f} ms |",
        IMPORTED,
        lambda c: (
            *cpu_ms(c, SLEEPER, LOOP),
            *cpu_ms(looped_what_if(), SLEEPER, LOOP),
            *cpu_ms(nice10(), SLEEPER10, LOOP10),
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "it goes round {} times and uses {:.1f} ms against the host's 195 and 398.5 ms, the busy loop {:,.1f} ms",
        LOOPED,
        lambda c: (
            latency(c)["count"],
            *cpu_ms(c, SLEEPER, LOOP),
        ),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "starting with the original, predicts {} rounds and {:.1f} ms ({} waits over 1 ms, the longest {:.2f} ms",
        IMPORTED,
        lambda c: (
            second_loop_run()["nvcsw"],
            second_loop_run()["sum_exec_runtime"] / 1e6,
            long_waits(second_loop()),
            second_loop_run()["wakeup_latency"]["max"] / 1e6,
        ),
    ),
    Figure(
        DOC,
        "is cut ({} preemptions in the what-if against the host's 4)",
        IMPORTED,
        lambda c: second_loop_run()["nivcsw"],
    ),
    Figure(
        DOC,
        "and with the host's costs {} to {} over seven seeds",
        IMPORTED,
        lambda c: spread_of([t["nvcsw"] for t in over_seeds(second_loop(), SLEEPER)]),
    ),
    Figure(
        DOC,
        "and {} to {} over seven seeds with the host's costs",
        TWO,
        lambda c: spread_of(
            [t["nvcsw"] for t in over_seeds(Scenario.from_file(ROOT / TWO), SLEEPER2)]
        ),
    ),
    Figure(
        DOC,
        "with the host's costs (a tick latency drawn anew at each tick) seven seeds give {} to {}, median {}",
        LOOPED,
        lambda c: seeded_waits(Scenario.from_file(ROOT / LOOPED).with_values(WHAT_IF)),
    ),
    Figure(
        DOC,
        "with the copy starting 0.1, 0.76, 1.5 or 3 ms after the original the model gives {}, {}, {} and {} rounds",
        IMPORTED,
        lambda c: tuple(
            second_loop_run(offset)["nvcsw"] for offset in (100_000, 762_000, 1_500_000, 3_000_000)
        ),
    ),
    Figure(
        DOC,
        "gives {} rounds (12 ms cycles in {} of them)",
        TWO,
        lambda c: cycles(Scenario.from_file(ROOT / TWO), SLEEPER2)[::-1],
    ),
    Figure(
        DOC,
        "and is preempted more ({} waits over 1 ms, {} preemptions) and gets through {} rounds ({:.1f} ms) of its 200",
        TIMER,
        lambda c: timer_figures(plain_timer_import())[:4],
    ),
    Figure(
        DOC,
        "as the loop's own did: {} rounds, {:.1f} ms, {} waits over 1 ms, the longest {:.2f} ms against the host's 4.19, {} preemptions",
        TIMER,
        lambda c: (lambda f: (f[2], f[3], f[0], f[4], f[1]))(
            timer_figures(Scenario.from_file(ROOT / TIMER))
        ),
    ),
    Figure(
        DOC,
        "Setting the busy loop to nice 10 in it predicts {} rounds, {:.1f} ms and {} waits over 1 ms",
        TIMER,
        lambda c: (lambda f: (f[2], f[3], f[0]))(
            timer_figures(Scenario.from_file(ROOT / TIMER).with_values(TIMER_WHAT_IF))
        ),
    ),
    Figure(
        "docs/perf-import.md",
        "predicts {} rounds of the recorded sleeper where the host went round 195 times, and {} without",
        LOOPED,
        lambda c: (latency(c)["count"], latency(comparison(IMPORTED, WHAT_IF))["count"]),
        values=WHAT_IF,
    ),
    Figure(
        DOC,
        "is one {:,.0f} ms run either way",
        IMPORTED,
        lambda c: (
            Scenario.from_file(ROOT / IMPORTED).get("tasks.sh-29963.behaviour.steps[0].run") / 1e6
        ),
    ),
    Figure(
        DOC,
        "its 1 ms waits drop from 29 to 8 (model: {} to {})",
        IMPORTED,
        lambda c: (long_waits(imported()), long_waits(imported().with_values(WHAT_IF))),
    ),
    Figure(
        DOC,
        "the longest from 4.8 to 2.75 ms (model: {:.1f} to {:.2f})",
        IMPORTED,
        lambda c: (latency(c)["max"] / 1e6, latency(comparison(IMPORTED, WHAT_IF))["max"] / 1e6),
    ),
    Figure(
        DOC,
        "the nice-10 trace itself gives the sleeper {} wait over 1 ms",
        IMPORTED,
        lambda c: long_waits(Scenario.from_file(ROOT / NICE10), SLEEPER10),
    ),
]


def imported() -> Scenario:
    return Scenario.from_file(ROOT / IMPORTED)


def second_loop(offset_ns: int = 0) -> Scenario:
    """The one-loop import with a copy of its busy loop starting ``offset_ns`` after it."""
    document = imported().to_dict()
    loop = next(t for t in document["tasks"] if t["name"] == LOOP)
    document["tasks"].append({**loop, "name": "sh-copy", "start": loop["start"] + offset_ns})
    return Scenario(**document)


@functools.cache
def second_loop_run(offset_ns: int = 0) -> dict[str, Any]:
    """The sleeper's figures in a run of ``second_loop(offset_ns)``."""
    tasks = libsched.run(second_loop(offset_ns))["repetitions"][0]["tasks"]
    found: dict[str, Any] = next(t for t in tasks if t["name"] == SLEEPER)
    return found


def cycles(scenario: Scenario, sleeper: str) -> tuple[int, int]:
    """Of the sleeper's rounds (wakeups) in a traced run, those 12 ms (to within 0.5 ms)
    after the one before, switch-in to switch-in; and the rounds."""
    ins = [
        int(r["time_ns"])
        for r in trace_rows(scenario)
        if r["event"] == "sched_switch" and r["next_comm"] == sleeper
    ]
    twelve = sum(abs(b - a - 12_000_000) < 500_000 for a, b in zip(ins, ins[1:]))
    wakeups = libsched.run(scenario)["repetitions"][0]["tasks"]
    return twelve, next(t["nvcsw"] for t in wakeups if t["name"] == sleeper)


def looped_what_if() -> libsched.Comparison:
    """The import with --loops, the busy loop set to nice 10."""
    return comparison(LOOPED, WHAT_IF)


def nice10() -> libsched.Comparison:
    return comparison(NICE10)


def cpu_ms(c: libsched.Comparison, *names: str) -> tuple[float, ...]:
    return tuple(task(c, n)["sum_exec_runtime"] / 1e6 for n in names)


SPREAD = "examples/perf-import/three-burners-and-sleeper"


def spread() -> libsched.Comparison:
    """The unpinned two-CPU recording's import, compared with the recording itself."""
    return _spread()


@functools.cache
def _spread() -> libsched.Comparison:
    return libsched.compare(ROOT / f"{SPREAD}.toml", ROOT / f"{SPREAD}.txt")


def counts(entry: str) -> tuple[int, int, int, int]:
    """Preemptions and migrations of an entry over the span: host, model, host, model."""
    c = spread()
    span_s = c.result["window"]["end"] / 1e9 - c.result["window"]["start"] / 1e9
    out = []
    for quantity in ("nivcsw_per_s", "migrations_per_s"):
        row = c.row(entry, quantity)
        assert row.measured is not None and row.simulated is not None
        out += [round(row.measured * span_s), round(row.simulated * span_s)]
    return out[0], out[1], out[2], out[3]


SPREAD_FIGURES = [
    *(
        Figure(
            DOC,
            f"| {label} | {{}} | {{}} | {{}} | {{}} |",
            f"{SPREAD}.toml",
            lambda c, e=entry: counts(e),
        )
        for label, entry in (
            ("busy loop 1 (`sh-8408`)", "sh-8408"),
            ("busy loop 2 (`sh-8409`)", "sh-8409"),
            ("busy loop 3 (`sh-8410`)", "sh-8410"),
            ("sleeping loop", "python3-8411"),
        )
    ),
    Figure(
        DOC,
        "p90 2.78 ms on the host, {:.2f} ms in the model; longest 7.8 ms and {:.1f} ms",
        f"{SPREAD}.toml",
        lambda c: (
            spread().row("python3-8411", "wakeup_latency_p90").simulated / 1e6,
            spread().row("python3-8411", "wakeup_latency_max").simulated / 1e6,
        ),
    ),
]
SPREAD_TASKS = ("sh-8408", "sh-8409", "sh-8410", "python3-8411")
SPREAD_FIGURES.append(
    Figure(
        DOC,
        "about as often in the model as on the host ({} and 21 moves in all; {} to {} per loop in the model",
        f"{SPREAD}.toml",
        lambda c: (
            sum(counts(e)[3] for e in SPREAD_TASKS),
            *spread_of([counts(e)[3] for e in SPREAD_TASKS]),
        ),
    )
)
FIGURES += SPREAD_FIGURES
