"""docs/python.md, docs/theory.md, docs/output-format.md, docs/reliability.md and the model's
counts in docs/performance.md (docs/scenario-format.md, docs/rt-app.md,
docs/architecture.md, docs/glossary.md and docs/design.md quote no figure of the model).

docs/performance.md's benchmark builds its scenarios in C++ (bench/bench_burners.cpp);
here they are examples/scenarios/two-burners.toml with the bench's fields set. Its
tables are records of past rounds (their event counts came from the builds of those
rounds) and are not checked; the sentences about what the model does now are. Not
checked either: docs/python.md's run on the project's host (its machine is
``libsched.host_machine()``, no file of the project) and the sizes of output files.

A figure's ``scenario`` must run as a scenario, which a sweep file does not: a figure of a
sweep names examples/scenarios/two-burners.toml and reads the sweep's rows with
``sweep()``.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import libsched
from doc_figures import ROOT, Figure, comparison, pct, repetition, sweep, task

PYTHON = "docs/python.md"
THEORY = "docs/theory.md"
OUTPUT = "docs/output-format.md"
RELIABILITY = "docs/reliability.md"
PERFORMANCE = "docs/performance.md"

PAIR = "examples/replays/seed002-pair-0-5.toml"
TWO_BURNERS = "examples/scenarios/two-burners.toml"
SLEEPER_VS_HOG = "examples/scenarios/sleeper-vs-hog.toml"


@functools.cache
def cli(*args: str) -> str:
    """What the ``libsched`` command prints (paths relative to the project)."""
    done = subprocess.run(
        [sys.executable, "-m", "libsched", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@functools.cache
def perfetto(scenario: str) -> tuple[str, ...]:
    """The lines of ``libsched run --perfetto`` for ``scenario``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "trace.json"
        cli("run", "--perfetto", str(out), scenario)
        return tuple(out.read_text().splitlines())


def compare_row(c: libsched.Comparison, entry: str, quantity: str) -> tuple[float, ...]:
    """A row of ``Comparison.table()``: theory, simulated, error, theory error (a share
    in %)."""
    row = c.row(entry, quantity)
    scale = 100.0 if quantity == "share" else 1.0
    assert row.theory is not None and row.simulated is not None
    assert row.error is not None and row.theory_error is not None
    return row.theory * scale, row.simulated * scale, row.error, row.theory_error


def report_header(c: libsched.Comparison) -> tuple[Any, ...]:
    provenance = c.result["provenance"]
    return (
        provenance["kernel"],
        provenance["scheduler"].upper(),
        provenance["online_cpus"],
        provenance["hz"],
    )


def latency_row(c: libsched.Comparison, name: str) -> tuple[float, ...]:
    """A task's row of ``libsched run --latency``: runtime and delays in ms, switches, and
    when the longest delay began and ended (s)."""
    t = task(c, name)
    delay = t["run_delay"]
    return (
        t["window_runtime"] / 1e6,
        t["window_nvcsw"] + t["window_nivcsw"],
        delay["mean"] / 1e6,
        delay["max"] / 1e6,
        (delay["max_at"] - delay["max"]) / 1e9,
        delay["max_at"] / 1e9,
    )


def latency_total(c: libsched.Comparison) -> tuple[float, int]:
    tasks = repetition(c)["tasks"]
    return (
        sum(t["window_runtime"] for t in tasks) / 1e6,
        sum(t["window_nvcsw"] + t["window_nivcsw"] for t in tasks),
    )


def why_row(c: libsched.Comparison, name: str) -> tuple[int, ...]:
    """A task's row of ``libsched run --why`` for a task preempted by the two EEVDF rules
    and never moved."""
    t = task(c, name)
    by = t["model"]["window_preempted_by"]
    assert sum(by.values()) == t["window_nivcsw"]
    return (
        t["window_nivcsw"],
        by["update_deadline"],
        by["wakeup_preempt"],
        t["window_nr_migrations"],
    )


def timehist_line(task_name: str, index: int = 0) -> tuple[str, ...]:
    """The fields of ``libsched run --timehist`` two-burners' ``index``-th line of a task
    (time, wait time, sch delay, run time: the command's digits, cut)."""
    lines = [
        line.split()
        for line in cli("run", "--timehist", TWO_BURNERS).splitlines()
        if len(line.split()) == 6 and line.split()[2] == task_name
    ]
    time, _, _, wait, delay, run = lines[index]
    return time, wait, delay, run


def first_slice(c: libsched.Comparison) -> tuple[float, float, str]:
    """The first complete event of ``--perfetto`` two-burners: its start and length (µs)
    and why it ended."""
    event = next(
        json.loads(line.rstrip(","))
        for line in perfetto(TWO_BURNERS)
        if line.startswith('{"ph":"X"')
    )
    args = event["args"]
    assert (event["name"], args["pid"], args["end_state"]) == ("a", 1000, "R")
    return event["ts"], event["dur"], args["end_reason"]


def seed000_slices(c: libsched.Comparison) -> str:
    count = sum(
        line.startswith('{"ph":"X"') for line in perfetto("examples/replays/seed000-6.18-base.toml")
    )
    return f"{round(count, -3):,}"


def task_shares(c: libsched.Comparison) -> tuple[float, ...]:
    return tuple(sorted((t["share"] for t in repetition(c)["tasks"]), reverse=True))


def tick_irq_share(c: libsched.Comparison) -> float:
    """The interrupt time the model takes out of a busy CPU, % of the run."""
    cpu = repetition(c)["cpus"][0]
    return pct(cpu["model"]["irq"] / (cpu["busy"] + cpu["idle"]))


def nice_ladder_gap(c: libsched.Comparison) -> float:
    """The largest gap between the simulated share of the swept burner and
    w(X) / (w(X) + 1024), in percentage points, over every release and nice."""
    rows = sweep("examples/sweeps/nice-ladder.toml").rows
    return max(pct(abs(r["x.share"] - r["x.theory_share"])) for r in rows)


# docs/performance.md: the benchmark's configurations (bench/bench_burners.cpp).


def bench_burners(kernel: str, burners: int, seconds: int) -> dict[str, Any]:
    """burners_on_one_cpu(): N nice-0 burners on one CPU at HZ 1000, the whole run."""
    length = f"{seconds}s"
    return {
        "machine.kernel": kernel,
        "machine.hz": 1000,
        "length": length,
        "window": ["0s", length],
        "tasks.a.count": burners - 1,
    }


def bench_mixed(
    packages: int, cores: int, threads: int, tasks: int, seconds: int, nohz_idle: bool = True
) -> dict[str, Any]:
    """mixed_on_many_cpus(): 10 % burners, 45 % periodic tasks, 45 % random sleepers."""
    burners = tasks // 10
    periodic = (tasks - burners) // 2
    length = f"{seconds}s"
    return {
        "machine.cpus": packages * cores * threads,
        "machine.topology": {"packages": packages, "cores": cores, "threads": threads},
        "machine.hz": 250,
        "machine.kernel": "6.6",
        "machine.nohz_idle": nohz_idle,
        "length": length,
        "window": ["0s", length],
        "reference": "burner",
        "tasks": [
            {"name": "burner", "count": burners},
            {
                "name": "periodic",
                "count": periodic,
                "behaviour": {"type": "periodic", "run": "2ms", "period": "10ms"},
            },
            {
                "name": "sleeper",
                "count": tasks - burners - periodic,
                "behaviour": {
                    "type": "random",
                    "run": {"dist": "uniform", "low": "100us", "high": "2ms"},
                    "sleep": {"dist": "exponential", "mean": "10ms"},
                },
            },
        ],
    }


def events(values: dict[str, Any]) -> int:
    count: int = repetition(comparison(TWO_BURNERS, values))["model"]["events"]
    return count


def switches(values: dict[str, Any]) -> int:
    return sum(cpu["nr_switches"] for cpu in repetition(comparison(TWO_BURNERS, values))["cpus"])


def floor_table_events(c: libsched.Comparison) -> tuple[float, float]:
    counts = [
        events(bench_burners(kernel, n, 4000)) for kernel in ("6.6", "5.15") for n in (2, 64, 8192)
    ]
    return min(counts) / 1e6, max(counts) / 1e6


def two_burner_switches(c: libsched.Comparison) -> tuple[float, float, float]:
    """Switches per event with 2 burners on 6.6; the time between switches (ms) and
    switches per event on 5.15."""
    eevdf, cfs = bench_burners("6.6", 2, 4000), bench_burners("5.15", 2, 4000)
    return (
        switches(eevdf) / events(eevdf),
        4000e3 / switches(cfs),
        switches(cfs) / events(cfs),
    )


def nohz_events(c: libsched.Comparison) -> tuple[int, int, str]:
    busy = events(bench_mixed(2, 16, 2, 1000, 10)), events(bench_mixed(2, 16, 2, 1000, 10, False))
    return (
        events(bench_mixed(8, 64, 2, 250, 10)),
        events(bench_mixed(8, 64, 2, 250, 10, False)),
        f"{busy[0]:,}" if busy[0] == busy[1] else f"{busy[0]:,} and {busy[1]:,}",
    )


FIGURES = [
    # docs/python.md
    Figure(
        PYTHON,
        "a share {:.2f} % {:.2f} % 75.00 % {:+.2f} pp {:+.2f} pp",
        PAIR,
        lambda c: compare_row(c, "a", "share"),
    ),
    Figure(
        PYTHON,
        "a ratio {:.3f} {:.3f} 3.000 {:+.1f} % {:+.1f} %",
        PAIR,
        lambda c: compare_row(c, "a", "ratio"),
    ),
    Figure(
        PYTHON,
        "b share {:.2f} % {:.2f} % 25.00 % {:+.2f} pp {:+.2f} pp",
        PAIR,
        lambda c: compare_row(c, "b", "share"),
    ),
    Figure(
        PYTHON,
        'c.row("a", "share").error # {:+.2f}: percentage points, simulated - measured',
        PAIR,
        lambda c: c.row("a", "share").error,
    ),
    Figure(
        PYTHON,
        "on every release the simulated share stays within {:.2f} percentage points of `w(X) / (w(X) + 1024)`",
        TWO_BURNERS,  # a sweep file does not run as a scenario: the rows are the sweep's
        nice_ladder_gap,
    ),
    # docs/theory.md
    Figure(
        THEORY,
        "each queue throttled in turn (the model gives about {:.2f}, {:.2f} and {:.2f})",
        "examples/scenarios/cpu-max.toml",
        task_shares,
    ),
    Figure(
        THEORY,
        "The model charges the tick interrupt outside tasks' time ({:.2f} % of a CPU at HZ 250)",
        TWO_BURNERS,
        tick_irq_share,
    ),
    # docs/output-format.md
    Figure(
        OUTPUT,
        "seed002-pair-0-5: kernel {} ({}), 1 CPU ({} online), HZ {}, window 0s to 2s, 1 repetition",
        PAIR,
        report_header,
    ),
    Figure(
        OUTPUT,
        "a:1000 {:.3f} {} {:.3f} {:.3f} {:.6f} {:.6f}",
        TWO_BURNERS,
        lambda c: latency_row(c, "a"),
    ),
    Figure(
        OUTPUT,
        "b:1001 {:.3f} {} {:.3f} {:.3f} {:.6f} {:.6f}",
        TWO_BURNERS,
        lambda c: latency_row(c, "b"),
    ),
    Figure(OUTPUT, "TOTAL {:.3f} {}", TWO_BURNERS, latency_total),
    Figure(OUTPUT, "sleeper:1000 {} {} {} {}", SLEEPER_VS_HOG, lambda c: why_row(c, "sleeper")),
    Figure(OUTPUT, "hog:1001 {} {} {} {}", SLEEPER_VS_HOG, lambda c: why_row(c, "hog")),
    Figure(
        OUTPUT,
        "The hog loses the CPU {} times: {} times to the sleeper's wakeup and {} times at the end",
        SLEEPER_VS_HOG,
        lambda c: (why_row(c, "hog")[0], why_row(c, "hog")[2], why_row(c, "hog")[1]),
    ),
    Figure(
        OUTPUT,
        "{} [0] a[1000] {} {} {}",
        TWO_BURNERS,
        lambda c: timehist_line("a[1000]"),
    ),
    Figure(
        OUTPUT,
        "{} [0] b[1001] {} {} {}",
        TWO_BURNERS,
        lambda c: timehist_line("b[1001]"),
    ),
    Figure(
        OUTPUT,
        '{{"ph":"X","pid":1,"tid":1,"ts":{:.3f},"dur":{:.3f},"cat":"sched","name":"a","args":{{"pid":1000,"end_state":"R","end_reason":"{}"}}}}',
        TWO_BURNERS,
        first_slice,
    ),
    Figure(
        OUTPUT,
        "writes the five repetitions of the seed 000 replay (about 2.7 MB, {} slices)",
        "examples/replays/seed000-6.18-base.toml",
        seed000_slices,
    ),
    # docs/reliability.md: the fair task's CPU time over the run, in ms.
    Figure(
        RELIABILITY,
        "a FIFO burner and a fair burner with 30 ms per 100 ms: 38 ms in 10 s instead of {:.0f} ms",
        "examples/scenarios/rt-fifo-vs-fair.toml",
        lambda c: task(c, "fair")["sum_exec_runtime"] / 1e6,
        values={
            "machine.kernel": "6.12",
            "cgroups": [{"name": "g", "quota": "30ms", "period": "100ms"}],
            "tasks.fair.cgroup": "g",
        },
    ),
    # docs/performance.md
    Figure(
        PERFORMANCE,
        "Each configuration simulates 4000 s ({:.0f} to {:.0f} million engine events)",
        TWO_BURNERS,
        floor_table_events,
    ),
    Figure(
        PERFORMANCE,
        "one tree update and two heap operations: {:.1f} tree updates and 1 heap operation per event. Old CFS (5.15) with 2 burners switches every {:.0f} ms: {:.1f} tree updates per event.",
        TWO_BURNERS,
        two_burner_switches,
    ),
    Figure(
        PERFORMANCE,
        "(`libsched_bench --multi 8 64 2 250 10`) make {:,} events with NOHZ idle and {:,} with every tick kept (`--no-nohz`); on 64 CPUs with 1000 tasks (`--multi 2 16 2 1000 10`), where no CPU stays idle, both make the same {} events.",
        TWO_BURNERS,
        nohz_events,
    ),
    Figure(
        PERFORMANCE,
        "its run has 5.52 M events against {:.2f} M now",
        TWO_BURNERS,
        lambda c: events(bench_mixed(2, 16, 2, 1000, 60)) / 1e6,
    ),
    Figure(
        PERFORMANCE,
        "8192 burners, 400 simulated seconds ({:,} events, {:,} switches)",
        TWO_BURNERS,
        lambda c: (
            events(bench_burners("6.6", 8192, 400)),
            switches(bench_burners("6.6", 8192, 400)),
        ),
    ),
]
