"""docs/validation.md."""

# The quoted words keep the document's en dashes and multiplication signs.
# ruff: noqa: RUF001, RUF002

from __future__ import annotations

import collections
import functools
import json
import operator
import statistics
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

import libsched
from doc_figures import ROOT, Figure, comparison, error, pct, repetition, simulated, summary, task

DOC = "docs/validation.md"

N10 = "examples/replays/seed000-5.15-n10.toml"
NEG10 = "examples/replays/seed000-5.15-neg10.toml"
N20 = "examples/replays/seed000-5.15-n20.toml"
THREE_ON_TWO = "examples/scenarios/three-on-two.toml"
CGROUP_SHARES = "examples/scenarios/cgroup-shares.toml"
CPU_MAX = "examples/scenarios/cpu-max.toml"
FAIR_SERVER_RESTART = "examples/scenarios/fair-server-restart.toml"
YIELD = "examples/scenarios/yield.toml"
SYNC_WAKEUP = "examples/scenarios/sync-wakeup.toml"
RT_TWO_CPUS = "examples/scenarios/rt-two-cpus.toml"


def replay(name: str) -> str:
    return f"examples/replays/{name}.toml"


def host(case: str) -> str:
    return replay(f"host-6.18-{case}")


# The guest agent's nice -10 threads as two tasks ("Group shares on several CPUs").
AGENT = {
    "name": "agent",
    "count": 2,
    "nice": -10,
    "behaviour": {
        "type": "random",
        "run": {"dist": "exponential", "mean": "0.8ms"},
        "sleep": {"dist": "exponential", "mean": "550ms"},
    },
}
AGENT_SEEDS = range(1, 7)


def with_agent(case: str, seed: int) -> libsched.Comparison:
    """Host case ``case`` with the agent's tasks added, run with ``seed``."""
    tasks = libsched.Scenario.from_file(ROOT / host(case)).to_dict()["tasks"]
    return comparison(host(case), {"tasks": [*tasks, AGENT], "seed": seed})


def agent_shares(case: str, entry: str) -> tuple[float, float]:
    """The least and the most of ``entry``'s share in percent of one CPU over the agent
    seeds."""
    shares = [pct(simulated(with_agent(case, s), entry, "share")) for s in AGENT_SEEDS]
    return min(shares), max(shares)


def agent_moves(case: str, entry: str) -> tuple[int, int]:
    """The fewest and the most moves of one of ``entry``'s tasks over the agent seeds."""
    moves = [t["nr_migrations"] for s in AGENT_SEEDS for t in tasks_of(with_agent(case, s), entry)]
    return min(moves), max(moves)


RT_ON_TICK = "examples/latency/rt-on-the-tick-grid.toml"


def rt_percentiles(doc: Mapping[str, Any]) -> tuple[list[float], list[float]]:
    """The RT task's lateness p50s and p90s (µs) in a run's or a measurement's document,
    one per repetition in order."""
    late = [t["lateness"] for r in doc["repetitions"] for t in r["tasks"] if t["name"] == "rt"]
    return [x["p50"] / 1e3 for x in late], [x["p90"] / 1e3 for x in late]


def rt_lateness(c: libsched.Comparison) -> tuple[float, float, float, float]:
    """The model's p50 and p90, least and most over the repetitions."""
    p50, p90 = rt_percentiles(c.result)
    return min(p50), max(p50), min(p90), max(p90)


def rt_on_tick_host() -> tuple[float, ...]:
    """The host's p50s, then p90s, of its three repetitions in order."""
    with open(
        ROOT / "examples/latency/data/host-6.18-rt-on-the-tick-grid.json", encoding="utf-8"
    ) as f:
        p50, p90 = rt_percentiles(json.load(f))
    return (*p50, *p90)


def cyclic(burners: int) -> str:
    return f"examples/latency/cyclic-{burners}.toml"


def alike(values: Iterable[Any]) -> Any:
    """The value every run gives, else a failure naming each: for a figure the document
    says is the same for several releases, repetitions or tasks."""
    found = list(values)
    assert all(v == found[0] for v in found), found
    return found[0]


def escaped(text: str) -> str:
    """``text`` as a format string's fixed words."""
    return text.replace("{", "{{").replace("}", "}}")


def number(n: int) -> str:
    return ("none", "one", "two", "three", "four", "five")[n] if n <= 5 else str(n)


def span(values: Iterable[float], spec: str) -> str:
    """The range "lo – hi" of ``values`` as the document writes it, one value if both
    ends show the same."""
    found = sorted(values)
    lo, hi = format(found[0], spec), format(found[-1], spec)
    return lo if lo == hi else f"{lo} – {hi}"


def tasks_of(c: libsched.Comparison, entry: Optional[str] = None, index: int = 0) -> list[Any]:
    """The tasks of repetition ``index`` (of ``entry`` only, if given)."""
    return [t for t in repetition(c, index)["tasks"] if entry is None or t["entry"] == entry]


def all_tasks(c: libsched.Comparison, entry: str) -> list[Any]:
    """The tasks of ``entry`` in every repetition."""
    return [t for r in c.result["repetitions"] for t in r["tasks"] if t["entry"] == entry]


def group(c: libsched.Comparison, name: str, index: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = next(
        g for g in repetition(c, index)["task_groups"] if g["name"] == name
    )
    return found


def cpu_stat(c: libsched.Comparison, name: str = "q") -> dict[str, Any]:
    stat: dict[str, Any] = group(c, name)["bandwidth"]["window_cpu_stat"]
    return stat


# Source 000.


def ru_ratios(c: libsched.Comparison) -> list[float]:
    """Each repetition's getrusage ratio, A over B, of the seed000 replays."""

    def utime(r: dict[str, Any], entry: str) -> float:
        return float(sum(t["ru_utime_us"] for t in r["tasks"] if t["entry"] == entry))

    return [utime(r, "a") / utime(r, "b") for r in c.result["repetitions"]]


LOW = 9.05  # between n10's two modes: the launch transient (8.84) and the pairing at once


def n10_seeds(values: Optional[Mapping[str, Any]] = None) -> list[float]:
    """n10's ratio for seeds 1 to 40."""
    return ru_ratios(comparison(N10, values, 40))


def transient(c: libsched.Comparison) -> tuple[int, str, str, float, float]:
    forty = n10_seeds()
    five = ru_ratios(c)
    low = [r["model"]["seed"] for r, v in zip(c.result["repetitions"], five) if v < LOW]
    return (
        sum(v < LOW for v in forty),
        number(len(low)),
        f"seeds {low[0]} to {low[-1]}",
        simulated(c, "a", "ru_ratio"),
        error(c, "a", "ru_ratio"),
    )


# Every CPU's tick a little apart: a tick latency of 0 to 1 us.
TICKS_APART = {"machine.tick_latency": {"dist": "uniform", "low": "0us", "high": "1us"}}


def ticks_apart(c: libsched.Comparison) -> tuple[int, float, float, float, float]:
    """The transient's seeds of 40 and both replays' ratios with the ticks apart."""
    n10, neg10 = comparison(N10, TICKS_APART), comparison(NEG10, TICKS_APART)
    return (
        sum(v < LOW for v in n10_seeds(TICKS_APART)),
        simulated(n10, "a", "ru_ratio"),
        error(n10, "a", "ru_ratio"),
        simulated(neg10, "a", "ru_ratio"),
        error(neg10, "a", "ru_ratio"),
    )


def on_that_host(c: libsched.Comparison) -> tuple[str, float, float, int]:
    forty = n10_seeds({"machine.kernel": "6.18", "machine.topology": "2c"})
    return (
        number(sum(v < LOW for v in forty)),
        min(forty),
        max(forty),
        sum(v < LOW for v in n10_seeds()),
    )


# Multi-CPU runs on a real 6.18 host: the model run as that machine, three seeds. No file
# holds these runs; three-on-two.toml (two cores, 6.18, HZ 250) with the tasks as the
# section states them: A at nice 0 then B at nice 10, each launch 1-3 ms after the one
# before, 20 s lives.

LAUNCH = {"dist": "uniform", "low": "1ms", "high": "3ms"}


def launched(a: int, b: int) -> libsched.Comparison:
    tasks: list[dict[str, Any]] = [
        {"name": "a", "count": a, "nice": 0, "lifetime": "20s", "stagger": LAUNCH}
    ]
    if b:
        tasks.append(
            {
                "name": "b",
                "count": b,
                "nice": 10,
                "lifetime": "20s",
                "after": "a",
                "stagger": LAUNCH,
            }
        )
    return comparison(
        THREE_ON_TWO, {"tasks": tasks, "length": "20.2s", "window": ["0s", "20.2s"]}, 3
    )


def launch_row(a: int, b: int, migrations_per_group: bool = True) -> tuple[str, str, str]:
    """CPU seconds, involuntary switches and migrations per process, the range over the
    runs, per group ("A / B")."""
    c = launched(a, b)
    entries = ["a", "b"] if b else ["a"]

    def column(key: str, spec: str, scale: float = 1.0) -> str:
        return " / ".join(span((t[key] / scale for t in all_tasks(c, e)), spec) for e in entries)

    migrations = (
        column("nr_migrations", ".0f")
        if migrations_per_group
        else span((t["nr_migrations"] for e in entries for t in all_tasks(c, e)), ".0f")
    )
    return column("sum_exec_runtime", ".2f", 1e9), column("nivcsw", ".0f"), migrations


# Group shares on several CPUs: each row the same on 5.15 and 6.18, three seeds.


def on_both(path: str, values: Mapping[str, Any], row: Any) -> tuple[str, ...]:
    return tuple(
        alike(
            row(comparison(path, {**values, "machine.kernel": kernel}, 3))
            for kernel in ("5.15", "6.18")
        )
    )


def task_shares(c: libsched.Comparison, entry: str, spec: str = ".3f", *more: str) -> str:
    """Every task's share of ``entry`` (and ``more``) in every repetition, if they all show
    the same."""
    return str(alike(format(t["share"], spec) for e in (entry, *more) for t in all_tasks(c, e)))


def shares_row(values: Mapping[str, Any], y: Optional[str]) -> Any:
    """CPUs per group (x's, y's), then x's and each y's share (``y`` their format), or
    without ``y`` the one share every task has."""

    def row(c: libsched.Comparison) -> tuple[str, ...]:
        groups = f"{simulated(c, 'x', 'share'):.4f}", f"{simulated(c, 'y', 'share'):.4f}"
        if y is not None:
            return *groups, groups[0], task_shares(c, "y", y)
        return *groups, task_shares(c, "x", ".2f", "y")

    return lambda c: on_both(CGROUP_SHARES, values, row)


def v1_shares_row(c: libsched.Comparison) -> tuple[str, ...]:
    def row(c: libsched.Comparison) -> tuple[str, ...]:
        return (
            f"{simulated(c, 'm', 'share'):.3f}",
            f"{simulated(c, 'o', 'share'):.3f}",
            task_shares(c, "m"),
            task_shares(c, "o"),
        )

    return tuple(
        alike(
            row(comparison(replay(f"seed003-shares-512-1024-2cpu-{kernel}"), None, 3))
            for kernel in ("5.15", "6.18")
        )
    )


# Real 6.18 host: the bandwidth cases 5, 6a, 6b and 7.

# The host's machine costs the host-6.18-* replays state, taken out ("latencies 0").
LATENCIES_0 = {
    "machine.tick_latency": "0us",
    "machine.ipi_latency": "0us",
    "machine.idle_exit_latency": "0us",
}
AS_6_17 = {**LATENCIES_0, "machine.kernel": "6.17"}
# The defaults for IPIs and idle exit (1 us each), with and without the tick latency: the
# columns of the 16 seeds' table.
BARE_IPI = {"machine.ipi_latency": "1us", "machine.idle_exit_latency": "1us"}
BARE = {**BARE_IPI, "machine.tick_latency": "0us"}


def bandwidth_row(case: str, values: Mapping[str, Any]) -> tuple[Any, ...]:
    """Group CPUs, per-task CPUs, nr_periods, nr_throttled, throttled time (s), migrations."""
    c = comparison(host(case), values)
    stat = cpu_stat(c)
    burners = tasks_of(c)
    return (
        group(c, "q")["share"],
        *(t["share"] for t in burners),
        stat["nr_periods"],
        stat["nr_throttled"],
        stat["throttled_time"] / 1e9,
        *(t["nr_migrations"] for t in burners),
    )


def bandwidth_block(case: str) -> Any:
    return lambda c: tuple(
        v for values in ({}, LATENCIES_0, AS_6_17) for v in bandwidth_row(case, values)
    )


@functools.cache
def unread_tasks() -> list[dict[str, Any]]:
    """Case 7's tasks without their reads of the CPU clock."""
    tasks: list[dict[str, Any]] = libsched.Scenario.from_file(ROOT / host("7")).to_dict()["tasks"]
    for t in tasks:
        t.pop("cpu_clock_reads", None)
    return tasks


def case_7(values: Optional[Mapping[str, Any]] = None, reads: bool = True) -> libsched.Comparison:
    return comparison(host("7"), {**(values or {}), **({} if reads else {"tasks": unread_tasks()})})


def case_7_q_range(reads: bool = True, seeds: Iterable[int] = range(1, 11)) -> tuple[float, float]:
    """The least and the most of q's CPUs over ``seeds``."""
    q = [group(case_7({"seed": seed}, reads), "q")["share"] for seed in seeds]
    return min(q), max(q)


def case_7_row(c: libsched.Comparison, migrations: bool = True) -> tuple[Any, ...]:
    """Group CPUs (q, u), per-task CPUs, nr_periods, nr_throttled, throttled time and, with
    ``migrations``, the tasks' migrations."""
    stat = cpu_stat(c)
    moved = [t["nr_migrations"] for t in tasks_of(c)]
    return (
        group(c, "q")["share"],
        group(c, "u")["share"],
        *(t["share"] for t in tasks_of(c)),
        stat["nr_periods"],
        stat["nr_throttled"],
        f"{stat['throttled_time'] / 1e9:.2f} s" if stat["throttled_time"] else "0",
        *(("all 0" if not any(moved) else " / ".join(map(str, moved)),) if migrations else ()),
    )


def case_7_block(c: libsched.Comparison) -> tuple[Any, ...]:
    return (
        *case_7_row(case_7()),
        *case_7_row(case_7(LATENCIES_0)),
        *case_7_row(case_7(AS_6_17)),
        *case_7_row(case_7(reads=False), migrations=False),
    )


def burner_shares(case: str, values: Mapping[str, Any]) -> tuple[float, ...]:
    return tuple(pct(t["share"]) for t in tasks_of(comparison(host(case), values)))


def largest_error(case: str, values: Mapping[str, Any]) -> float:
    c = comparison(host(case), values)
    return max(abs(error(c, t["name"], "share")) for t in tasks_of(c))


def moves(case: str, values: Mapping[str, Any]) -> int:
    return sum(t["window_nr_migrations"] for t in tasks_of(comparison(host(case), values)))


def sixteen_seeds(case: str, values: Mapping[str, Any]) -> tuple[int, float, float, float]:
    """Over seeds 1 to 16: the runs with under 10 moves, and over the others the median
    spread of the burners' shares (pp), moves and largest error against the host (pp)."""
    c = comparison(host(case), values, 16)
    measured = {t["name"]: pct(c.row(t["name"], "share").measured or 0) for t in tasks_of(c)}
    locked, spreads, moved, errors = 0, [], [], []
    for r in c.result["repetitions"]:
        burners = r["tasks"]
        n = sum(t["window_nr_migrations"] for t in burners)
        if n < 10:
            locked += 1
            continue
        shares = [pct(t["share"]) for t in burners]
        spreads.append(max(shares) - min(shares))
        moved.append(n)
        errors.append(max(abs(pct(t["share"]) - measured[t["name"]]) for t in burners))
    return locked, statistics.median(spreads), statistics.median(moved), statistics.median(errors)


def case_5_seeds(values: Mapping[str, Any]) -> tuple[int, float]:
    """Case 5 over seeds 1 to 12: the seeds within the tolerance, and the median of each
    seed's largest error (pp)."""
    c = comparison(host("5"), values, 12)
    tolerance = pct(c.result["measured"]["tolerance"]["share"])
    measured = {t["name"]: pct(c.row(t["name"], "share").measured or 0) for t in tasks_of(c)}
    errors = [
        max(abs(pct(t["share"]) - measured[t["name"]]) for t in r["tasks"])
        for r in c.result["repetitions"]
    ]
    return sum(e <= tolerance for e in errors), statistics.median(errors)


def machine_costs(c: libsched.Comparison) -> tuple[str, int, float, float]:
    """How much further case 7 (q and u alike) is from the host with the host's latencies
    than without; case 5 with them and without over 12 seeds."""
    further = alike(
        f"{abs(error(case_7(), e, 'share')) - abs(error(case_7(LATENCIES_0), e, 'share')):.1f}"
        for e in ("q", "u")
    )
    within, median = case_5_seeds({})
    return further, within, median, case_5_seeds(LATENCIES_0)[1]


def seeds_table(c: libsched.Comparison) -> tuple[Any, ...]:
    columns = [sixteen_seeds(case, values) for values in (BARE, BARE_IPI) for case in ("6a", "6b")]
    return (
        *(col[0] for col in columns),
        *(col[1] for col in columns),
        *(col[2] for col in columns),
    )


def replayed_seeds(c: libsched.Comparison) -> tuple[Any, ...]:
    a, b = sixteen_seeds("6a", {}), sixteen_seeds("6b", {})
    return a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]


# The fair server's restart on the 6.18 host: fair-server-restart.toml on CPU 1 of two.

RESTART = {"machine.cpus": 2, "tasks.fifo.affinity": [1], "tasks.fair.affinity": [1]}


@functools.cache
def _trace(scenario: str, values: str, index: int) -> dict[str, Any]:
    loaded = libsched.Scenario.from_file(ROOT / scenario).with_values(json.loads(values))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        sim = libsched.Simulator(loaded, repetition=index, trace=True)
        sim.run()
    return sim.trace()


def trace(scenario: str, values: Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """The scheduling events of repetition ``index`` (``libsched run --trace``)."""
    return _trace(scenario, json.dumps(dict(values), sort_keys=True), index)


def waits(scenario: str, values: Mapping[str, Any], name: str) -> tuple[list[int], int]:
    """Each wait of task ``name`` on a run queue, from a wakeup or a preemption to its run
    (ns), and its bursts: the runs that began after a wakeup or its fork."""
    events = trace(scenario, values)
    found, since, runs, resumed = [], None, 0, 0
    for event, comm, state, following, at in zip(
        events["event"],
        events["comm"],
        events["prev_state"],
        events["next_comm"],
        events["time_ns"],
    ):
        if comm == name and (event == "sched_wakeup" or (event == "sched_switch" and state == "R")):
            since = (at, event == "sched_switch")
        elif event == "sched_switch" and following == name:
            runs += 1
            if since is not None:
                found.append(int(at - since[0]))
                resumed += since[1]
            since = None
    return found, runs - resumed


def ms(wait: int) -> str:
    """A wait as the table writes it: "·" under 0.2 ms."""
    value = wait / 1e6
    return "·" if value < 0.2 else f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def restart(kernel: str, throttling: bool = True) -> tuple[list[str], int]:
    values = {**RESTART, "machine.kernel": kernel, "machine.rt_group_sched": True}
    if not throttling:
        values["machine.sched_rt_runtime"] = "unlimited"
    found, bursts = waits(FAIR_SERVER_RESTART, values, "fair")
    return [ms(w) for w in found], bursts


def restart_row(kernel: str, throttling: bool = True) -> tuple[str, int]:
    found, bursts = restart(kernel, throttling)
    return " ".join(found), bursts


def restart_summary(*kernels: str) -> tuple[str, str, int]:
    """Without RT throttling: the first wait, then what every other is, and the bursts."""

    def row(kernel: str) -> tuple[str, str, int]:
        found, bursts = restart(kernel, throttling=False)
        return found[0], str(alike(found[1:])), bursts

    return tuple(alike(row(k) for k in kernels))


# sched_yield() on the 6.18 host: yield.toml as 6.18.44, the whole 10 s.

YIELDING = {"machine.kernel": "6.18.44", "window": ["0s", "10s"]}


def yielded(values: Optional[Mapping[str, Any]] = None) -> libsched.Comparison:
    return comparison(YIELD, {**YIELDING, **(values or {})})


def run_of(duration: Any) -> dict[str, Any]:
    return {"tasks.yielder.behaviour.steps[0].run": duration}


def yield_row(values: Mapping[str, Any]) -> tuple[str, str, str]:
    """The yielders' loops, the burners' CPU seconds, and the involuntary switches
    (yielders / burners), per task."""
    c = yielded(values)

    def each(entry: str, key: str, spec: str, scale: float = 1.0) -> str:
        return ", ".join(format(t[key] / scale, spec) for t in tasks_of(c, entry))

    return (
        each("yielder", "loops", ",.0f"),
        each("burner", "sum_exec_runtime", ".3f", 1e9),
        f"{each('yielder', 'nivcsw', ',.0f')} / {each('burner', 'nivcsw', ',.0f')}",
    )


# Sync wakeups: sync-wakeup.toml, and the same through a semaphore.

SEMAPHORE = {
    "tasks.reader.behaviour.steps[0]": {"sem_wait": "p"},
    "tasks.writer0.behaviour.steps[1]": {"sem_post": "p"},
    "tasks.writer1.behaviour.steps[1]": {"sem_post": "p"},
}


# Wakeup lateness on the real 6.18 host: the cyclictest-like task.

# The host's measured costs, as the host-6.18-* replays state them.
HOST_COSTS = {
    "machine.tick_latency": {"dist": "uniform", "low": "7us", "high": "26us"},
    "machine.ipi_latency": "24us",
    "machine.idle_exit_latency": "24us",
    "machine.sleep_cost": "12us",
}
FREE_SLEEP = {"machine.sleep_cost": "0s"}
# The 10 us / 2 ms timer loop the sleep_cost above is measured with: cyclic-1.toml.
SLEEP_LOOP = {"tasks.cyclic.behaviour.run": "10us", "tasks.cyclic.behaviour.period": "2ms"}
# A 1 ms / 10 ms timer loop beside a burner: cyclic-1.toml with 1 ms runs, 3 s windows.
LOOP_1MS = {"tasks.cyclic.behaviour.run": "1ms", "length": "4s", "window": ["1s", "4s"]}


def lateness(c: libsched.Comparison, key: str) -> float:
    """The median over the repetitions of the cyclic task's lateness ``key`` (µs)."""
    runs = range(len(c.result["repetitions"]))
    return float(statistics.median(task(c, "cyclic", i)["lateness"][key] for i in runs)) / 1e3


def wakeup_waits(burners: int, values: Mapping[str, Any], index: int) -> list[int]:
    """The wait for the CPU (ns) of each of the cyclic task's wakeups in the window, in
    order, in repetition ``index``."""
    c = comparison(cyclic(burners), values)
    start, end = c.result["window"]["start"], c.result["window"]["end"]
    events = trace(cyclic(burners), values, index)
    woke, found = None, []
    for event, comm, following, at in zip(
        events["event"], events["comm"], events["next_comm"], events["time_ns"]
    ):
        if event == "sched_wakeup" and comm == "cyclic":
            woke = at
        elif event == "sched_switch" and following == "cyclic" and woke is not None:
            if start <= woke < end:
                found.append(int(at - woke))
            woke = None
    return found


def repetitions_of(burners: int, values: Mapping[str, Any]) -> range:
    return range(len(comparison(cyclic(burners), values).result["repetitions"]))


def late(burners: int, values: Mapping[str, Any]) -> tuple[int, int]:
    """The cyclic task's wakeups in the window that waited more than 1 ms for the CPU, and
    all its wakeups in the window: the same in every repetition."""
    counts = []
    for i in repetitions_of(burners, values):
        found = wakeup_waits(burners, values, i)
        counts.append((sum(w > 1_000_000 for w in found), len(found)))
    return tuple(alike(counts))


def long_waits(values: Mapping[str, Any]) -> list[tuple[int, float, float]]:
    """Per repetition of cyclic-1.toml: its wakeups in the window that waited more than
    1 ms, the shortest and the longest of those waits (ms, 0 without any)."""
    found = []
    for i in repetitions_of(1, values):
        over = [w / 1e6 for w in wakeup_waits(1, values, i) if w > 1_000_000]
        found.append((len(over), min(over, default=0.0), max(over, default=0.0)))
    return found


# cyclic-1.toml's two tasks each in a cpu cgroup of its own.
TWO_GROUPS = {
    "cgroups": [{"name": "a"}, {"name": "b"}],
    "tasks.cyclic.cgroup": "a",
    "tasks.burner.cgroup": "b",
}


def with_slice(
    cyclic_slice: Optional[str], run: str = "100us", groups: bool = False
) -> dict[str, Any]:
    """cyclic-1.toml with the host's costs, the cyclic task's ``slice`` and run, and with
    ``groups`` its tasks in two cgroups."""
    values = {**HOST_COSTS, "tasks.cyclic.behaviour.run": run, **(TWO_GROUPS if groups else {})}
    return {**values, "tasks.cyclic.slice": cyclic_slice} if cyclic_slice else values


def host_cyclic(cyclic_slice: Optional[str], groups: bool = False) -> list[dict[str, Any]]:
    """The cyclic task of each repetition of the stored host measurement of cyclic-1.toml
    with ``slice`` (none: the file as it is), its tasks in two cgroups with ``groups``."""
    name = (
        f"host-6.18-cyclic-1{'-groups' if groups else ''}"
        f"{f'-slice-{cyclic_slice}' if cyclic_slice else ''}.json"
    )
    with open(ROOT / "examples/latency/data" / name, encoding="utf-8") as f:
        doc = json.load(f)
    return [t for r in doc["repetitions"] for t in r["tasks"] if t["name"] == "cyclic"]


def dash_span(values: Iterable[float], spec: str) -> str:
    """The range "lo–hi" of ``values``, one value if both ends show the same."""
    found = sorted(values)
    lo, hi = format(found[0], spec), format(found[-1], spec)
    return lo if lo == hi else f"{lo}–{hi}"


def slice_row(cyclic_slice: Optional[str], groups: bool = False) -> tuple[Any, ...]:
    """A row of the requested-slice tables: the host's mean and p99 lateness ranges (µs),
    the model's medians, and the model's waits over 1 ms (count and size in ms, the same
    in every repetition)."""
    host = [t["lateness"] for t in host_cyclic(cyclic_slice, groups)]
    values = with_slice(cyclic_slice, groups=groups)
    c = comparison(cyclic(1), values)
    waits = long_waits(values)
    count = alike(n for n, _, _ in waits)
    size = alike(round(longest) for _, _, longest in waits)
    return (
        dash_span((x["mean"] / 1e3 for x in host), ".0f"),
        lateness(c, "mean"),
        dash_span((x["p99"] / 1e3 for x in host), ",.0f"),
        lateness(c, "p99"),
        f"{count} of {size} ms" if count else "none",
    )


BATCH = {**HOST_COSTS, "tasks.cyclic.policy": "batch"}
IDLE_WEIGHT = "examples/scenarios/idle-weight.toml"
IDLE_GROUP = {
    "cgroups": [{"name": "g", "idle": True}],
    "tasks.idle.policy": "normal",
    "tasks.idle.cgroup": "g",
}


def host_document(path: str) -> dict[str, Any]:
    with open(ROOT / path, encoding="utf-8") as f:
        found: dict[str, Any] = json.load(f)
    return found


def host_shares(name: str) -> tuple[str, ...]:
    """A host row of the idle-weight table: each entry's median share and range (%)."""
    doc = host_document(f"examples/measure/data/{name}")
    cells = []
    for s in doc["summary"]:
        shares = [
            t["share"] for r in doc["repetitions"] for t in r["tasks"] if t["entry"] == s["entry"]
        ]
        cells.append(f"{pct(s['share']):.2f} % ({dash_span((pct(x) for x in shares), '.2f')})")
    return tuple(cells)


def host_batch() -> list[dict[str, Any]]:
    doc = host_document("examples/latency/data/host-6.18-cyclic-1-batch.json")
    return [t for r in doc["repetitions"] for t in r["tasks"] if t["name"] == "cyclic"]


def batch_waits() -> tuple[int, int]:
    """The batch task's waits of 1.5-2.5 ms and of more than 3.5 ms in the window: the same
    in every repetition."""
    return alike(
        (
            sum(1_500_000 < w < 2_500_000 for w in wakeup_waits(1, BATCH, i)),
            sum(w > 3_500_000 for w in wakeup_waits(1, BATCH, i)),
        )
        for i in repetitions_of(1, BATCH)
    )


NICE5 = {**HOST_COSTS, "tasks.cyclic.nice": 5}
NICE5_OFF_GRID = {**NICE5, "tasks.cyclic.start": "2ms"}


def weight_row(values: Mapping[str, Any], name: str) -> tuple[Any, ...]:
    """A row of the weights table: the host's mean lateness range (µs), the model's median,
    and the model's waits over 1 ms (the same in every repetition)."""
    doc = host_document(f"examples/latency/data/host-6.18-cyclic-1-{name}.json")
    host = [
        t["lateness"]["mean"] / 1e3
        for r in doc["repetitions"]
        for t in r["tasks"]
        if t["name"] == "cyclic"
    ]
    v = {**HOST_COSTS, **values}
    waits = long_waits(v)
    count = alike(n for n, _, _ in waits)
    size = alike(round(longest) for _, _, longest in waits)
    return (
        dash_span(host, ".0f"),
        lateness(comparison(cyclic(1), v), "mean"),
        f"{count} of {size} ms" if count else "none",
    )


def long_slice_switches(values: Mapping[str, Any]) -> float:
    """cyclic-1.toml's two tasks as burners with 20 ms slices and ``values``: how often a
    second each is switched out, the same for both."""
    burners = {"tasks.cyclic.behaviour": "burner", "tasks.cyclic.slice": "20ms"}
    c = comparison(cyclic(1), {**burners, "tasks.burner.slice": "20ms", **values})
    return float(alike(summary(c, e)["nivcsw_per_s"] for e in ("cyclic", "burner")))


def spacings(values: Mapping[str, Any]) -> tuple[float, float]:
    """How many wakeups from one wait of more than 1 ms to the next (wait_spacing()), the same
    in every repetition, with the base slice and with 3 ms, with ``values``."""
    found = []
    for s in (None, "3ms"):
        v = {**with_slice(s), **values}
        found.append(alike(wait_spacing(v, i)[0] for i in repetitions_of(1, v)))
    return found[0], found[1]


def per_wakeup_us(row: dict[str, Any]) -> float:
    """A task row's CPU time in the window per voluntary switch (each a sleep), µs."""
    return float(row["window_runtime"] / row["window_nvcsw"] / 1e3)


def charged(c: libsched.Comparison) -> float:
    """The cyclic task's CPU time per wakeup in the window (µs), the same in every
    repetition."""
    return float(
        alike(per_wakeup_us(task(c, "cyclic", i)) for i in range(len(c.result["repetitions"])))
    )


def host_loop(which: str) -> tuple[str, str]:
    """The range of the 10 us / 2 ms loop's CPU time per wakeup in the repetitions' windows
    in host-6.18-sleep-cost-WHICH.json, and of that less its 10 µs of work (µs)."""
    doc = host_document(f"examples/latency/data/host-6.18-sleep-cost-{which}.json")
    spent = [
        per_wakeup_us(t) for r in doc["repetitions"] for t in r["tasks"] if t["name"] == "cyclic"
    ]
    return dash_span(spent, ".1f"), dash_span((x - 10 for x in spent), ".1f")


def with_other_work(values: Mapping[str, Any], measured: str) -> dict[str, Any]:
    """``values`` on cyclic-1.toml with every thread of the host's own work in the stored
    measurement ``measured`` added as tasks (``libsched.other_work_tasks``, no minimum)."""
    with open(ROOT / "examples/latency/data" / measured, encoding="utf-8") as f:
        others = libsched.other_work_tasks(json.load(f), min_share=0.0)
    base = libsched.Scenario.from_file(ROOT / cyclic(1)).get("tasks")
    return {**values, "tasks": base + others}


def wait_sizes(values: Mapping[str, Any], index: int) -> collections.Counter[int]:
    """The waits of more than 1 ms of repetition ``index`` of cyclic-1.toml, counted by
    their length in whole ms."""
    return collections.Counter(
        round(w / 1e6) for w in wakeup_waits(1, values, index) if w > 1_000_000
    )


def rhythm(values: Mapping[str, Any], index: int) -> str:
    """Those waits of 2 ms and of 4 ms (no other length): "10 / 9"."""
    sizes = wait_sizes(values, index)
    assert set(sizes) <= {2, 4}, sizes
    return f"{sizes[2]} / {sizes[4]}"


def run_spreads() -> tuple[float, float]:
    """The 95th less the 5th percentile of the sleep-cost loop's runs in each of the two
    perf recordings of host-6.18-sleep-cost-runs.json (µs), the wider first."""
    doc = host_document("examples/latency/data/host-6.18-sleep-cost-runs.json")
    spreads = []
    for recording in doc["recordings"]:
        runs = sorted(recording["run_ns"])
        n = len(runs)
        spreads.append((runs[int(0.95 * n)] - runs[int(0.05 * n)]) / 1e3)
    wide, narrow = sorted(spreads, reverse=True)
    return wide, narrow


def around_12us(spread: float) -> dict[str, Any]:
    """machine.sleep_cost: a uniform ``spread`` µs wide (to the µs) around 12 µs."""
    half = round(spread / 2)
    return {"dist": "uniform", "low": f"{12 - half}us", "high": f"{12 + half}us"}


def spread_rhythms() -> tuple[Any, ...]:
    """The what-if of a sleep_cost as wide as the wider recording: its bounds (µs), the
    waits of 2 / 4 ms of each repetition at nice 5 and with the 3 ms slice, the time spent
    waiting at nice 5 (ms), and the bounds of the narrower spread, with which no repetition
    changes its rhythm."""
    wide, narrow = (around_12us(s) for s in run_spreads())
    nice5 = {**NICE5, "machine.sleep_cost": wide}
    slice3 = {**with_slice("3ms"), "machine.sleep_cost": wide}
    for v in (
        {**NICE5, "machine.sleep_cost": narrow},
        {**with_slice("3ms"), "machine.sleep_cost": narrow},
    ):
        assert all(len(wait_sizes(v, i)) == 1 for i in repetitions_of(1, v)), v
    return (
        wide["low"].removesuffix("us"),
        wide["high"].removesuffix("us"),
        *(rhythm(nice5, i) for i in repetitions_of(1, nice5)),
        *(rhythm(slice3, i) for i in repetitions_of(1, slice3)),
        *(
            sum(w for w in wakeup_waits(1, nice5, i) if w > 1_000_000) / 1e6
            for i in repetitions_of(1, nice5)
        ),
        narrow["low"].removesuffix("us"),
        narrow["high"].removesuffix("us"),
    )


def wait_spacing(values: Mapping[str, Any], index: int) -> tuple[float, float]:
    """The median count of wakeups from one wait of more than 1 ms to the next in
    repetition ``index`` of cyclic-1.toml, and the median of those waits (ms)."""
    found = wakeup_waits(1, values, index)
    at = [i for i, w in enumerate(found) if w > 1_000_000]
    return (
        float(statistics.median(b - a for a, b in zip(at, at[1:]))),
        float(statistics.median(found[i] for i in at)) / 1e6,
    )


# RT tasks on two CPUs: rt-two-cpus.toml, three repetitions.


def per_repetition(c: libsched.Comparison, name: str, key: str, scale: float = 1.0) -> list[float]:
    runs = range(len(c.result["repetitions"]))
    return [task(c, name, i)[key] / scale for i in runs]


def run_delays(c: libsched.Comparison, name: str, key: str, scale: float) -> list[float]:
    runs = range(len(c.result["repetitions"]))
    return [task(c, name, i)["run_delay"][key] / scale for i in runs]


def lo_waits(c: libsched.Comparison) -> tuple[float, ...]:
    sums = run_delays(c, "lo", "sum", 1e6)
    counts = run_delays(c, "lo", "count", 1)
    means = run_delays(c, "lo", "mean", 1e3)
    return min(sums), max(sums), min(counts), max(counts), min(means), max(means)


def fair_waits(c: libsched.Comparison) -> tuple[float, float]:
    sums = [
        t["run_delay"]["sum"] / 1e9
        for r in c.result["repetitions"]
        for t in r["tasks"]
        if t["entry"] == "fair"
    ]
    return min(sums), max(sums)


def median_of(values: Sequence[float]) -> float:
    return statistics.median(values)


# Newly idle balancing on the 6.18 host: newidle.toml as 6.18.44 (the file) and as 6.18.
NEWIDLE = "examples/scenarios/newidle.toml"

# Delayed sleepers in the wakeup's pick: delayed-sleepers.toml as 6.18.44 and as 6.18.32.
DELAYED_SLEEPERS = "examples/scenarios/delayed-sleepers.toml"


def delayed_sleepers_table(c: libsched.Comparison) -> tuple[float, ...]:
    """The burner's share and preemptions a second, then the sleepers' preemptions a second,
    as 6.18.44 and as 6.18.32 on each row."""
    before = comparison(DELAYED_SLEEPERS, {"machine.kernel": "6.18.32"})
    return (
        *(
            v
            for run in (c, before)
            for v in (pct(simulated(run, "b", "share")), summary(run, "b")["nivcsw_per_s"])
        ),
        *(summary(run, "p")["nivcsw_per_s"] for run in (c, before)),
    )


# A renice of a queued task: renice-queued.toml in the root group and in one autogroup.
RENICE_QUEUED = "examples/scenarios/renice-queued.toml"
ONE_SESSION = {"tasks.a.session": "s", "tasks.b.session": "s"}


def host_entry(name: str, entry: str) -> dict[str, Any]:
    """The summary of ``entry`` in the measurement ``name`` of examples/measure/data."""
    doc = host_document(f"examples/measure/data/{name}")
    return next(s for s in doc["summary"] if s["entry"] == entry)


def host_preempted(name: str) -> str:
    """The host's "a / b" preemptions a second, medians, from a renice-queued measurement."""
    doc = host_document(f"examples/measure/data/{name}")
    return " / ".join(f"{s['nivcsw_per_s']:.1f}" for s in doc["summary"])


def renice_table(c: libsched.Comparison) -> tuple[Any, ...]:
    """The renice-queued table: the host's and each release's preemptions a second (a, b),
    then the host's and each release's share of a (%)."""
    runs = [c, *(comparison(RENICE_QUEUED, {"machine.kernel": k}) for k in ("6.18.45", "6.18.16"))]
    doc = host_document("examples/measure/data/host-6.18-renice-queued.json")
    return (
        host_preempted("host-6.18-renice-queued.json"),
        *(summary(run, e)["nivcsw_per_s"] for run in runs for e in ("a", "b")),
        f"{100 * doc['summary'][0]['share']:.2f}",
        *(pct(simulated(run, "a", "share")) for run in runs),
    )


def renice_why(c: libsched.Comparison) -> tuple[int, ...]:
    """Repetition 0 as 6.18.44: b's preemptions by wakeup_preempt and at its slice's end,
    a's at a tick for want of protection."""
    a, b = (task(c, n)["model"]["window_preempted_by"] for n in ("a", "b"))
    return b["wakeup_preempt"], b["update_deadline"], a["protect_slice"]


def newidle_column(c: libsched.Comparison) -> tuple[float, ...]:
    """The model's column of the newidle table: CPU idle time in the window (ms, both CPUs:
    median, least, most), newly idle pulls (median), the b and p shares (%), migrations
    (median, least, most) and b's and p's involuntary switches a second."""
    reps = c.result["repetitions"]
    idle = [sum(cpu["window_idle"] for cpu in r["cpus"]) / 1e6 for r in reps]
    pulls = [sum(cpu["window_balance"]["newidle"] for cpu in r["cpus"]) for r in reps]
    moves = [sum(t["window_nr_migrations"] for t in r["tasks"]) for r in reps]
    return (
        median_of(idle),
        min(idle),
        max(idle),
        median_of(pulls),
        pct(simulated(c, "b", "share")),
        pct(simulated(c, "p", "share")),
        median_of(moves),
        min(moves),
        max(moves),
        summary(c, "b")["nivcsw_per_s"],
        summary(c, "p")["nivcsw_per_s"],
    )


def newidle_host(*names: str) -> tuple[str, ...]:
    """A host column of the newidle table from the measurements ``names``, their
    repetitions pooled: idle time (ms, median and range), the b / p shares (%),
    migrations (median and range) and involuntary switches a second of b / p (medians)."""
    reps = [r for n in names for r in host_document(f"examples/measure/data/{n}")["repetitions"]]
    idle = [sum(cpu["window_idle"] for cpu in r["cpus"]) / 1e6 for r in reps]
    moves = [sum(t["window_nr_migrations"] for t in r["tasks"]) for r in reps]

    def entry(e: str, key: str, scale: float) -> float:
        return median_of([sum(t[key] for t in r["tasks"] if t["entry"] == e) * scale for r in reps])

    return (
        f"{median_of(idle):.0f} ({min(idle):.0f}–{max(idle):.0f})",
        f"{entry('b', 'share', 100):.1f} / {entry('p', 'share', 100):.1f}",
        f"{median_of(moves):.0f} ({min(moves)}–{max(moves)})",
        f"{entry('b', 'window_nivcsw', 0.1):.1f} / {entry('p', 'window_nivcsw', 0.1):.1f}",
    )


def newidle_rates(name: str) -> list[tuple[tuple[int, ...], float, bool]]:
    """Per repetition of a measurement with NI_RANDOM's rates read between repetitions
    (provenance.newidle_ratio): the rates (CPU 0, 1) at its start, its idle time (ms, both
    CPUs) and whether the rates still stood at the next reading."""
    doc = host_document(f"examples/measure/data/{name}")
    read = doc["provenance"]["newidle_ratio"]
    starts = [tuple(r) for r in read["before"]]
    ends = [*starts[1:], tuple(read["after"])]
    return [
        (start, sum(cpu["window_idle"] for cpu in r["cpus"]) / 1e6, start == end)
        for start, end, r in zip(starts, ends, doc["repetitions"])
    ]


def idle_from(rates: Sequence[tuple[int, ...]]) -> list[float]:
    """The model's idle times (ms, both CPUs) of newidle.toml's nine repetitions started from
    each of ``rates``, pooled."""
    return [
        sum(cpu["window_idle"] for cpu in r["cpus"]) / 1e6
        for start in rates
        for r in comparison(NEWIDLE, {"machine.newidle_ratio": list(start)}).result["repetitions"]
    ]


def spread(values: Sequence[float]) -> str:
    return f"{median_of(values):.0f} ({min(values):.0f}–{max(values):.0f})"


def newidle_rates_table(_: libsched.Comparison) -> tuple[Any, ...]:
    return _newidle_rates_rows()


@functools.cache
def _newidle_rates_rows() -> tuple[Any, ...]:
    """The rows of the NI_RANDOM table: rates 0 / 0 (the first repetition after they were
    driven down), 1024 / 1024 (the repetitions they stood through) and those near 300 (every
    repetition); the host's idle times, and the model's from the same starting rates (nine
    repetitions each, pooled over the host's repetitions)."""
    low = newidle_rates("host-6.18-newidle-rates-0.json")
    mid = newidle_rates("host-6.18-newidle-rates.json")
    full = [(s, idle) for s, idle, held in low if held and s == (1024, 1024)]
    rates = sorted({v for s, _, _ in mid for v in s})
    return (
        f"{low[0][1]:.0f}",
        spread(idle_from([low[0][0]])),
        len(full),
        spread([idle for _, idle in full]),
        spread(idle_from([(1024, 1024)])),
        rates[0],
        rates[-1],
        len(mid),
        spread([idle for _, idle, _ in mid]),
        spread(idle_from([s for s, _, _ in mid])),
    )


def newidle_table(c: libsched.Comparison) -> tuple[float, ...]:
    """The table's model figures row by row: as 6.18.44, then as 6.18, on each row."""
    a, b = newidle_column(c), newidle_column(comparison(NEWIDLE, {"machine.kernel": "6.18"}))
    rows = [(0, 3), (3, 4), (4, 6), (6, 9), (9, 11)]
    return tuple(v for lo, hi in rows for v in (*a[lo:hi], *b[lo:hi]))


FIGURES = [
    # A timer and the tick in one interrupt.
    Figure(
        DOC,
        "lateness p50 {:.1f}, {:.1f} and {:.1f} µs, p90 {:.1f}, {:.1f} and {:.1f} µs. The model,",
        RT_ON_TICK,
        lambda c: rt_on_tick_host(),
    ),
    Figure(
        DOC,
        "which draws the latency once per CPU and expiry: p50 {:.1f} to {:.1f} µs, p90 {:.1f} to {:.1f} µs.",
        RT_ON_TICK,
        rt_lateness,
    ),
    # Group shares on several CPUs, with the guest agent's threads.
    Figure(
        DOC,
        "move m's tasks {} to {} times each and gives m {:.1f} to {:.1f} % over six seeds (host 65.4 to 67.0 %), and in case 11 a {:.1f} to {:.1f} % with b's burners moved {} to {} times each; case 12 stays within {:.1f} pp of the fluid split.",
        host("13"),
        lambda c: (
            *agent_moves("13", "m"),
            *agent_shares("13", "m"),
            *agent_shares("11", "a"),
            *agent_moves("11", "b"),
            max(abs(x - 50.0) for x in agent_shares("12", "a")),
        ),
    ),
    Figure(
        DOC,
        "the model moves q's tasks {} to {} times each and gives q {:.1f} to {:.1f} % over six seeds ({:.1f} to {:.1f} % without them): that work explains moves of the host's kind, and leaves q {:.1f} to {:.1f} pp under the host's.",
        host("7"),
        lambda c: (
            *agent_moves("7", "q"),
            *agent_shares("7", "q"),
            *(pct(q) for q in case_7_q_range(seeds=AGENT_SEEDS)),
            *(87.94 - q for q in reversed(agent_shares("7", "q"))),
        ),
    ),
    # The at-a-glance table.
    Figure(
        DOC,
        "case 7's q {:.1f} pp under the host's |",
        host("7"),
        lambda c: -error(case_7(), "q", "share"),
    ),
    # Source 000: nice weights on one core's two SMT siblings.
    Figure(
        DOC,
        "The simulated jratio is a little below the weight ratio ({:.3f} for n10)",
        N10,
        lambda c: simulated(c, "a", "jratio"),
    ),
    Figure(
        DOC,
        "(n10 9.487, neg10 9.397); the simulation is {:.1f} % and {:.1f} % below them",
        N10,
        lambda c: (-error(c, "a", "jratio"), -error(comparison(NEG10), "a", "jratio")),
    ),
    Figure(
        DOC,
        "with a B the pairing is right at once (ratio {:.2f} for n10)",
        N10,
        lambda c: statistics.median(v for v in n10_seeds() if v >= LOW),
    ),
    Figure(
        DOC,
        "During that time each B has a whole CPU, which lowers the whole-life ratio to {:.2f}.",
        N10,
        lambda c: statistics.median(v for v in n10_seeds() if v < LOW),
    ),
    Figure(
        DOC,
        "Over 40 seeds {} take that path; of the replay's five, {} ({}), so the median is {:.2f}, {:.1f} % from the measured 9.231",
        N10,
        transient,
    ),
    Figure(
        DOC,
        "With every CPU's tick a little apart (`tick_latency` uniform over 0 to 1 µs) {} of the 40 seeds take that path, and the replays' medians become {:.3f} for n10 ({:+.1f} %) and {:.3f} for neg10 ({:+.1f} %):",
        N10,
        ticks_apart,
    ),
    Figure(
        DOC,
        "neg10 (ratio {:.3f} against 8.798, {:+.1f} %) shows the same two modes",
        NEG10,
        lambda c: (simulated(c, "a", "ru_ratio"), error(c, "a", "ru_ratio")),
    ),
    Figure(
        DOC,
        "The model run as that host (6.18 on two cores) finds it in {} of 40 seeds ({:.2f} to {:.2f}); run as the source's VM (5.15 on two SMT siblings) in {} of 40.",
        N10,
        on_that_host,
    ),
    Figure(
        DOC,
        "The measured jiffy counts are 11 per B process in every run (22 per group); the simulation gives {:.0f} ({:.0f}).",
        N20,
        lambda c: (
            median_of([t["stat_utime"] for t in all_tasks(c, "b")]),
            summary(c, "b")["jiffies"],
        ),
    ),
    Figure(
        DOC,
        "so the jratio of 71.5 (measured) against {:.1f} (simulated)",
        N20,
        lambda c: simulated(c, "a", "jratio"),
    ),
    Figure(
        DOC,
        "The simulation gives {:.1f}, close to the window's {:.1f}",
        N20,
        lambda c: (simulated(c, "a", "ru_ratio"), simulated(c, "a", "jratio")),
    ),
    Figure(
        DOC,
        "The simulation counts {:.0f} over the run: the tick preemptions within each CPU's pair (about {:.0f} per second per group;",
        N10,
        lambda c: (
            c.result["perf_stat"]["run"]["context_switches"],
            summary(c, "a")["nivcsw_per_s"],
        ),
    ),
    Figure(
        DOC,
        "The simulation moves a task {:.0f} times (median)",
        N10,
        lambda c: c.result["perf_stat"]["run"]["cpu_migrations"],
    ),
    # Multi-CPU runs on a real 6.18 host.
    Figure(
        DOC,
        "| 3 × nice 0 | 12.68 – 13.64 | {} | 1742 – 1949 | {} | 38 – 66 | {} |",
        THREE_ON_TWO,
        lambda c: launch_row(3, 0),
    ),
    Figure(
        DOC,
        "| nice 0 + 2 × nice 10 | 19.85 – 19.94 / 9.88 – 9.94 | {} | 428 – 532 / 2505 – 2524 | {} | 0 – 1 | {} |",
        THREE_ON_TWO,
        lambda c: launch_row(1, 2, migrations_per_group=False),
    ),
    Figure(
        DOC,
        "| 2 × nice 0 + 2 × nice 10 | 17.81 – 18.00 / 1.91 – 1.93 | {} | 629 – 909 / 496 – 502 | {} | 0 – 1 / 16 – 25 | {} |",
        THREE_ON_TWO,
        lambda c: launch_row(2, 2),
    ),
    Figure(
        DOC,
        "| 3 × nice 0 + 2 × nice 10 | 11.86 – 12.87 / 1.36 – 1.38 | {} | 1790 – 2010 / 349 – 359 | {} | 20 – 44 / 82 – 96 | {} |",
        THREE_ON_TWO,
        lambda c: launch_row(3, 2),
    ),
    Figure(
        DOC,
        "In 3 + 2 the nice-10 tasks move about as often as on the host ({} against 82 – 96)",
        THREE_ON_TWO,
        lambda c: span((t["nr_migrations"] for t in all_tasks(launched(3, 2), "b")), ".0f"),
    ),
    # Group shares on several CPUs.
    Figure(
        DOC,
        "| 100: 1 burner, 100: 3 burners (`examples/scenarios/cgroup-shares.toml`) | 1 / 1 | {} / {} | x {}, each y {} |",
        CGROUP_SHARES,
        shares_row({}, ".3f"),
    ),
    Figure(
        DOC,
        "| 100: 1, 100: 2 | 1 / 1 | {} / {} | x {}, each y {} |",
        CGROUP_SHARES,
        shares_row({"tasks.y.count": 2}, ".2f"),
    ),
    Figure(
        DOC,
        "| 100: 1, 300: 3 | 0.5 / 1.5 | {} / {} | {} each |",
        CGROUP_SHARES,
        shares_row({"cgroups.crowd.weight": 300}, None),
    ),
    Figure(
        DOC,
        "| v1 shares 512: 2, 1024: 2 (`examples/replays/seed003-shares-512-1024-2cpu-*`) | 0.667 / 1.333 | {} / {} | m {} each, o {} each |",
        replay("seed003-shares-512-1024-2cpu-6.18"),
        v1_shares_row,
    ),
    # Source 003: a SCHED_FIFO forwarder beside fair work.
    Figure(
        DOC,
        "the forwarder overshoots by up to a tick and the overshoot is carried into the next period: it gets {} % rather than 95.00 %",
        replay("seed003-fifo-forwarder-5.15"),
        lambda c: alike(
            f"{pct(simulated(comparison(replay(f'seed003-fifo-forwarder-{k}')), 'forwarder', 'share')):.2f}"
            for k in ("5.15", "6.6")
        ),
    ),
    Figure(
        DOC,
        "waits up to {:.0f} ms behind the forwarder (its longest wakeup latency; {:.0f} ms on 6.6), then shares the ~50 ms with the burner by the fair rules: {:.2f} % and {:.2f} % (6.6: {:.2f} % and {:.2f} %)",
        replay("seed003-fifo-forwarder-5.15"),
        lambda c: (
            summary(c, "kworker")["wakeup_latency"]["max"] / 1e6,
            summary(comparison(replay("seed003-fifo-forwarder-6.6")), "kworker")["wakeup_latency"][
                "max"
            ]
            / 1e6,
            pct(simulated(c, "kworker", "share")),
            pct(simulated(c, "shipper", "share")),
            pct(simulated(comparison(replay("seed003-fifo-forwarder-6.6")), "kworker", "share")),
            pct(simulated(comparison(replay("seed003-fifo-forwarder-6.6")), "shipper", "share")),
        ),
    ),
    Figure(
        DOC,
        "the kworker's longest wait is {:.0f} ms, and the forwarder gets {:.2f} %",
        replay("seed003-fifo-forwarder-6.18"),
        lambda c: (
            summary(c, "kworker")["wakeup_latency"]["max"] / 1e6,
            pct(simulated(c, "forwarder", "share")),
        ),
    ),
    # CFS bandwidth: cpu-max.toml.
    Figure(
        DOC,
        "The group gets {:.4f} CPUs on 6.12 ({:.4f} on 5.15 and 6.1, whose period timer starts at 0",
        CPU_MAX,
        lambda c: (
            simulated(c, "b", "share"),
            alike(
                simulated(comparison(CPU_MAX, {"machine.kernel": k}), "b", "share")
                for k in ("5.15", "6.1")
            ),
        ),
    ),
    Figure(
        DOC,
        "Every one of the window's {} periods ends throttled (`nr_throttled` = `nr_periods`), and `throttled_time` is {:.2f} s",
        CPU_MAX,
        lambda c: (
            alike((cpu_stat(c, "batch")["nr_periods"], cpu_stat(c, "batch")["nr_throttled"])),
            cpu_stat(c, "batch")["throttled_time"] / 1e9,
        ),
    ),
    Figure(
        DOC,
        "three tasks on two CPUs leave one alone, and it gets {:.2f} of a CPU against {} for each of the two others",
        CPU_MAX,
        lambda c: (
            max(t["share"] for t in tasks_of(c)),
            alike(f"{t['share']:.2f}" for t in sorted(tasks_of(c), key=lambda t: t["share"])[:2]),
        ),
    ),
    Figure(
        DOC,
        "moves the burners: {:.3f} / {:.3f} / {:.3f} over the window, two of them {} times each and the third {}",
        CPU_MAX,
        lambda c: (
            *(t["share"] for t in tasks_of(c)),
            alike(sorted(t["window_nr_migrations"] for t in tasks_of(c))[1:]),
            "once"
            if sorted(t["window_nr_migrations"] for t in tasks_of(c))[0] == 1
            else sorted(t["window_nr_migrations"] for t in tasks_of(c))[0],
        ),
        values={"machine.kernel": "6.18"},
    ),
    # Real 6.18 host: groups, bandwidth, autogroup and RT.
    *(
        Figure(
            DOC,
            f"| {escaped(case)} | {names} | {measured} | "
            + " / ".join(["{:.2f}"] * len(entries))
            + " | "
            + " / ".join(["{:+.2f}"] * len(entries))
            + f" pp | ±{tolerance} pp |",
            host(name),
            lambda c, entries=entries: (
                *(pct(simulated(c, e, "share")) for e in entries),
                *(error(c, e, "share") for e in entries),
            ),
        )
        for case, name, names, entries, measured, tolerance in (
            (
                "1: a 1024 (1 burner), b 1024 (3), CPU 1",
                "1",
                "a / b",
                ("a", "b"),
                "50.00 / 50.01",
                "0.1",
            ),
            ("2: a 2048, b 512, CPU 1", "2", "a / b", ("a", "b"), "80.00 / 20.02", "0.1"),
            (
                "3: P { x 1024, y 3072 }, Q 1024, CPU 1",
                "3",
                "x / y / Q",
                ("x", "y", "q"),
                "12.53 / 37.48 / 50.00",
                "0.1",
            ),
            (
                "4: a 1024 (1), b 1024 (3), 2 CPUs unpinned",
                "4",
                "a / b",
                ("a", "b"),
                "97.83 / 100.79",
                "4.7",
            ),
            (
                "8: SCHED_FIFO 50 + nice 0, CPU 1",
                "8",
                "FIFO / fair",
                ("fifo", "fair"),
                "94.64 / 5.33",
                "0.4",
            ),
            ("9: 2 × SCHED_RR 10, CPU 1", "9", "rr0 / rr1", ("rr0", "rr1"), "47.95 / 47.30", "0.5"),
            (
                "10a: nice 0 and nice 10, own sessions, autogroup on",
                "10a",
                "n0 / n10",
                ("n0", "n10"),
                "49.97 / 49.96",
                "0.1",
            ),
            (
                "10b: the same, one session, autogroup on",
                "10b",
                "n0 / n10",
                ("n0", "n10"),
                "90.17 / 9.70",
                "0.8",
            ),
            (
                "10c: own sessions, autogroup off",
                "10c",
                "n0 / n10",
                ("n0", "n10"),
                "90.30 / 9.71",
                "2.4",
            ),
            (
                "10d: one session, autogroup off",
                "10d",
                "n0 / n10",
                ("n0", "n10"),
                "90.27 / 9.74",
                "0.1",
            ),
        )
    ),
    Figure(
        DOC,
        "the model's RT period starts with the run (RT total {:.2f} %",
        host("9"),
        lambda c: pct(simulated(c, "rr0", "share") + simulated(c, "rr1", "share")),
    ),
    Figure(
        DOC,
        "case 4: the model's {:.2f} % for a lies above even the host's calmest repetition",
        host("4"),
        lambda c: pct(simulated(c, "a", "share")),
    ),
    Figure(
        DOC,
        "cases 5, 6a and 6b change (below) and case 7 moves {} pp further from the host. With them case 5 is within its tolerance for {} of 12 seeds (median error {:.2f} pp against {:.2f} without)",
        host("5"),
        machine_costs,
    ),
    Figure(
        DOC,
        "| 5: q 50 ms / 100 ms, 2 burners | host 6.18 | 0.505 | 0.254 / 0.251 | 103 | 101 | 14.96 s | 1 / 1 (0–3) |"
        + "\n| | model as 6.18.44 | {:.3f} | {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} |"
        + "\n| | model as 6.18.44, latencies 0 | {:.3f} | {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} |"
        + "\n| | model as 6.17, latencies 0 | {:.3f} | {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} |",
        host("5"),
        bandwidth_block("5"),
    ),
    *(
        Figure(
            DOC,
            head
            + "\n| | model as 6.18.44 | {:.3f} | {:.3f} / {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} / {} |"
            + "\n| | model as 6.18.44, latencies 0 | {:.3f} | {:.3f} / {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} / {} |"
            + "\n| | model as 6.17, latencies 0 | {:.3f} | {:.3f} / {:.3f} / {:.3f} | {} | {} | {:.2f} s | {} / {} / {} |",
            host(case),
            bandwidth_block(case),
        )
        for case, head in (
            (
                "6a",
                "| 6a: q 150 ms / 100 ms, 3 burners | host 6.18 | 1.503 | 0.484 / 0.523 / 0.497 | 102 | 100 | 4.90 s | 20 / 20 / 20 (17–33) |",
            ),
            (
                "6b",
                "| 6b: as 6a, burst 50 ms | host 6.18 | 1.510 | 0.515 / 0.491 / 0.511 | 102 | 99 | 4.83 s | 17 / 17 / 20 (12–37) |",
            ),
        )
    ),
    Figure(
        DOC,
        "| 7: q 100 ms / 100 ms, 4 periodic (20 ms on, 20 ms off); u unlimited, 2 burners | host 6.18 | q 0.879, u 1.103 | q 0.224 / 0.219 / 0.219 / 0.218; u 0.550 / 0.558 | 102 | 1 (0–4) | 2.0 ms | q 5 / 4 / 7 / 6, u 2 / 2 |"
        + "\n| | model as 6.18.44 | q {:.3f}, u {:.3f} | q {:.3f} / {:.3f} / {:.3f} / {:.3f}; u {:.3f} / {:.3f} | {} | {} | {} | {} |"
        + "\n| | model as 6.18.44, latencies 0 | q {:.3f}, u {:.3f} | q {:.3f} / {:.3f} / {:.3f} / {:.3f}; u {:.3f} / {:.3f} | {} | {} | {} | {} |"
        + "\n| | model as 6.17, latencies 0 | q {:.3f}, u {:.3f} | q {:.3f} / {:.3f} / {:.3f} / {:.3f}; u {:.3f} / {:.3f} | {} | {} | {} | {} |"
        + "\n| | host 6.18, runs timed without clock reads | q 0.939 (0.925–0.948), u 1.063 | | 102 | 1–4 | | |"
        + "\n| | model as 6.18.44 without `cpu_clock_reads` | q {:.3f}, u {:.3f} | q {:.3f} / {:.3f} / {:.3f} / {:.3f}; u {:.3f} / {:.3f} | {} | {} | {} | |",
        host("7"),
        case_7_block,
    ),
    Figure(
        DOC,
        "6b's bursts: host 2 (`burst_time` 50 ms), model {} ({:.0f} ms) on both releases.",
        host("6b"),
        lambda c: alike(
            (
                cpu_stat(comparison(host("6b"), v))["nr_bursts"],
                cpu_stat(comparison(host("6b"), v))["burst_time"] / 1e6,
            )
            for v in ({}, AS_6_17)
        ),
    ),
    Figure(
        DOC,
        "Against the tolerances (the `replay` summary): case 5 {:.2f} / {:.2f} % against 25.40 / 25.08 % (±0.3 pp: within); 6a {:.2f} / {:.2f} / {:.2f} % against 48.44 / 52.27 / 49.67 % (±2.1 pp); 6b {:.2f} / {:.2f} / {:.2f} % against 51.52 / 49.10 / 51.15 % (±1.8 pp); case 7 q {:.2f} % against 87.94 %, u {:.2f} % against 110.29 %",
        host("5"),
        lambda c: (
            *burner_shares("5", {}),
            *burner_shares("6a", {}),
            *burner_shares("6b", {}),
            *(pct(simulated(case_7(), e, "share")) for e in ("q", "u")),
        ),
    ),
    Figure(
        DOC,
        "With the latencies at 0 they were {:.2f} / {:.2f} %, {:.2f} / {:.2f} / {:.2f} %, {:.2f} / {:.2f} / {:.2f} % and {:.2f} / {:.2f} %.",
        host("5"),
        lambda c: (
            *burner_shares("5", LATENCIES_0),
            *burner_shares("6a", LATENCIES_0),
            *burner_shares("6b", LATENCIES_0),
            *(pct(simulated(case_7(LATENCIES_0), e, "share")) for e in ("q", "u")),
        ),
    ),
    Figure(
        DOC,
        "With every tick at the same instant (`tick_latency` 0) that was more often CPU 0's queue, {:.3f} / {:.3f}; with each vCPU's tick late by its own draw, as measured, it is either, and the split is {:.3f} / {:.3f} against the host's 0.254 / 0.251.",
        host("5"),
        lambda c: (
            *(s / 100 for s in burner_shares("5", LATENCIES_0)),
            *(s / 100 for s in burner_shares("5", {})),
        ),
    ),
    Figure(
        DOC,
        "so q2 has {:.3f} CPU and q0 and q1 share {:.2f}.",
        host("6a"),
        lambda c: (
            burner_shares("6a", AS_6_17)[2] / 100,
            sum(burner_shares("6a", AS_6_17)[:2]) / 100,
        ),
    ),
    Figure(
        DOC,
        "The CPUs trade a burner every 40 to 180 ms, {} moves in 6a's 10 s ({} in 6b's); each burner is within {:.1f} pp of the host's share in 6a and {:.1f} pp in 6b.",
        host("6a"),
        lambda c: (
            moves("6a", LATENCIES_0),
            moves("6b", LATENCIES_0),
            largest_error("6a", LATENCIES_0),
            largest_error("6b", LATENCIES_0),
        ),
    ),
    Figure(
        DOC,
        "the model's moves come to the host's number ({} and {} against the host's 51 to 63",
        host("6a"),
        lambda c: (moves("6a", LATENCIES_0), moves("6b", LATENCIES_0)),
    ),
    Figure(
        DOC,
        "with 22 and 26 µs (without the tick latency) 6a comes to {:.3f} / {:.3f} / {:.3f} and 6b to {:.3f} / {:.3f} / {:.3f},",
        host("6a"),
        lambda c: tuple(
            s / 100
            for case in ("6a", "6b")
            for s in burner_shares(
                case,
                {
                    "machine.tick_latency": "0us",
                    "machine.ipi_latency": "22us",
                    "machine.idle_exit_latency": "26us",
                },
            )
        ),
    ),
    Figure(
        DOC,
        "| runs with < 10 moves | 0 of 16 (fewest 24) | 6a: {} of 16, 6b: {} of 16 | 6a: {} of 16, 6b: {} of 16 |"
        "\n| the others: largest minus smallest burner share, median | 5.5 pp (6a), 5.5 pp (6b) | {:.1f} pp, {:.1f} pp | {:.1f} pp, {:.1f} pp |"
        "\n| the others: moves per run, median | 45 (6a), 62 (6b) | {:.0f}, {:.0f} | {:g}, {:g} |",
        host("6a"),
        seeds_table,
    ),
    Figure(
        DOC,
        "(a CPU whose tick comes first reads the previous jiffy, `sched/jiffies.hpp`): locked runs {} and {} of 16, spread {:.1f} and {:.1f} pp, {:.0f} and {:.0f} moves, and a median largest error against the host's figures of {:.1f} and {:.1f} pp",
        host("6a"),
        replayed_seeds,
    ),
    Figure(
        DOC,
        "Those 50 ms over 10 s are why 6b has about {} CPU more than 6a on both.",
        host("6b"),
        lambda c: alike(
            f"{group(comparison(host('6b'), v), 'q')['share'] - group(comparison(host('6a'), v), 'q')['share']:.3f}"
            for v in ({}, AS_6_17)
        ),
    ),
    Figure(
        DOC,
        "The model without reads gives {:.3f}, with `cpu_clock_reads = \"6us\"` (the replay has it) {:.3f}: the reads take 6.0 pp from q on the host and {:.1f} pp in the model; with them the model's q is {:.1f} pp under the host's, without them {:.1f} pp.",
        host("7"),
        lambda c: (
            group(case_7(reads=False), "q")["share"],
            group(case_7(), "q")["share"],
            pct(group(case_7(reads=False), "q")["share"] - group(case_7(), "q")["share"]),
            -error(case_7(), "q", "share"),
            93.9 - pct(group(case_7(reads=False), "q")["share"]),
        ),
    ),
    Figure(
        DOC,
        "Over seeds 1 to 10 q is {:.3f}–{:.3f} without reads and {:.3f}–{:.3f} with them:",
        host("7"),
        lambda c: (*case_7_q_range(reads=False), *case_7_q_range()),
    ),
    Figure(
        DOC,
        "(with its latencies at 0: {:.3f} and {} throttled periods)",
        host("7"),
        lambda c: (
            group(case_7(LATENCIES_0, reads=False), "q")["share"],
            cpu_stat(case_7(LATENCIES_0, reads=False))["nr_throttled"],
        ),
    ),
    Figure(
        DOC,
        "the model gives q {:.3f} and {} throttled period; without slack {:.3f}, with 10 µs of slack {:.3f}",
        host("7"),
        lambda c: (
            group(case_7(reads=False), "q")["share"],
            cpu_stat(case_7(reads=False))["nr_throttled"] or "no",
            group(case_7({"machine.timer_slack": "0us"}, reads=False), "q")["share"],
            group(case_7({"machine.timer_slack": "10us"}, reads=False), "q")["share"],
        ),
    ),
    Figure(
        DOC,
        "With `irq_time_accounting = false`, as this host's kernel is built, the model without reads gives q {:.3f} and {} throttled periods",
        host("7"),
        lambda c: (
            group(case_7({"machine.irq_time_accounting": False}, reads=False), "q")["share"],
            cpu_stat(case_7({"machine.irq_time_accounting": False}, reads=False))["nr_throttled"],
        ),
    ),
    Figure(
        DOC,
        "The model's two CPUs are 100 % busy with the burners ({} CPUs)",
        host("7"),
        lambda c: alike(
            f"{group(r, 'q')['share'] + group(r, 'u')['share']:.3f}"
            for r in (case_7(), case_7(reads=False))
        ),
    ),
    Figure(
        DOC,
        "but 6a's and 6b's split depends on the seed by more than the host's ±2 pp, and u's share in case 7 misses by {:.1f} pp",
        host("7"),
        lambda c: error(case_7(), "u", "share"),
    ),
    # The fair server's restart on the 6.18 host.
    Figure(
        DOC,
        "| model as 6.18.44 | {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_row("6.18.44"),
    ),
    Figure(
        DOC,
        "| model as 6.18.8 (6.17's rules) | {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_row("6.18.8"),
    ),
    Figure(
        DOC,
        "| model as 6.18.9 (115135422562, no revised rule) | {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_row("6.18.9"),
    ),
    Figure(
        DOC,
        "| model before this release's rules were modelled (6.12's rules) | {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_row("6.12"),
    ),
    Figure(
        DOC,
        "| model as 6.18.44 (6.18.24+, 6.12.92+ alike) | {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: alike(
            restart_row(k, throttling=False) for k in ("6.18.44", "6.18.24", "6.12.92")
        ),
    ),
    Figure(
        DOC,
        "| model as 6.18.8 (6.17's rules) | {}, then all {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_summary("6.18.8"),
    ),
    Figure(
        DOC,
        "| model as 6.18.9 / 6.19 | {}, then all {} | {} |",
        FAIR_SERVER_RESTART,
        lambda c: restart_summary("6.18.9", "6.19"),
    ),
    # sched_yield() on the 6.18 host.
    *(
        Figure(
            DOC,
            f"| {case} | {loops} | {{}} | {cpu} | {{}} | {switches} | {{}} |",
            YIELD,
            lambda c, v=values: yield_row(v),
        )
        for case, loops, cpu, switches, values in (
            ("10 µs, 1 yielder + 1 burner", "7,078", "9.943", "2,535 / 2,542", run_of("10us")),
            ("100 µs, 1 + 1", "6,785; 6,673", "9.314; 9.250", "2,618 / 2,626; 2,625 / 2,619", {}),
            ("1 ms, 1 + 1", "3,956", "6.125", "2,318 / 2,279", run_of("1ms")),
            (
                "100 µs, 2 yielders + 1 burner",
                "6,256, 6,224",
                "8.750",
                "6,239, 6,232 / 2,509",
                {"tasks.yielder.count": 2},
            ),
            (
                "100 µs, 1 yielder + 2 burners",
                "3,472",
                "4.852, 4.853",
                "2,498 / 1,261, 1,263",
                {"tasks.burner.count": 2},
            ),
        )
    ),
    Figure(
        DOC,
        "The model as 6.18.0 or 6.18.1 (without 79104becf42b) gives the 100 µs yielder half the CPU ({:,} loops, the burner {:.1f} s)",
        YIELD,
        lambda c: alike(
            (task(r, "yielder")["loops"], task(r, "burner")["sum_exec_runtime"] / 1e9)
            for r in (yielded({"machine.kernel": k}) for k in ("6.18.0", "6.18.1"))
        ),
    ),
    Figure(
        DOC,
        "6.7 % at 100 µs, 41.7 % at 1 ms (the model's {:.1f} % there",
        YIELD,
        lambda c: pct(task(yielded(run_of("1ms")), "yielder")["share"]),
    ),
    Figure(
        DOC,
        "so it runs to the one after (5 ms): {:.0f} switches a second.",
        YIELD,
        lambda c: task(yielded(run_of("1ms")), "yielder")["nivcsw"] / 10,
    ),
    Figure(
        DOC,
        "with runs drawn from 0.9–1.1 ms the model gives {:.0f} a second",
        YIELD,
        lambda c: (
            task(yielded(run_of({"dist": "uniform", "low": "0.9ms", "high": "1.1ms"})), "yielder")[
                "nivcsw"
            ]
            / 10
        ),
    ),
    Figure(
        DOC,
        'the model gives {:,} without reads and {:,} with `cpu_clock_reads = "2us"`',
        YIELD,
        lambda c: (
            task(yielded(), "yielder")["loops"],
            task(yielded({"tasks.yielder.cpu_clock_reads": "2us"}), "yielder")["loops"],
        ),
    ),
    # Sync wakeups (a pipe) on the 6.18 host.
    Figure(
        DOC,
        "| two-writers, pipe: reader's migrations / s | 0, 380, 0.3 | {:.0f} |",
        SYNC_WAKEUP,
        lambda c: summary(c, "reader")["migrations_per_s"],
    ),
    Figure(
        DOC,
        "| two-writers, semaphore: migrations / s | 0.5, 0.6, 0.4 | {:.0f} |",
        SYNC_WAKEUP,
        lambda c: summary(c, "reader")["migrations_per_s"],
        values=SEMAPHORE,
    ),
    # Wakeup lateness on the real 6.18 host: a cyclictest-like task.
    *(
        Figure(
            DOC,
            f"| {burners} | {{:.0f}} | {p50} | {{:,.0f}} | {p99} | {peak} |",
            cyclic(burners),
            lambda c: (lateness(c, "p50"), lateness(c, "p99")),
        )
        for burners, p50, p99, peak in (
            (0, "128", "188", "635"),
            (1, "66", "4,014", "4,036"),
            (3, "66", "4,030", "4,046"),
        )
    ),
    Figure(
        DOC,
        "up to 4 ms at HZ 250 (simulated {:.3f} ms, measured 4.014 and 4.030 ms)",
        cyclic(1),
        lambda c: alike(lateness(comparison(cyclic(n)), "p99") / 1e3 for n in (1, 3)),
    ),
    Figure(
        DOC,
        "Alone on an idle CPU the host is about 75 µs later than the model** (128 against {:.0f})",
        cyclic(0),
        lambda c: lateness(c, "p50"),
    ),
    Figure(
        DOC,
        "the model gives p50 / p99 of {:.0f} / {:.0f} µs alone (host 128 / 188), {:.0f} / {:,.0f} µs with one burner (host 66 / 4,014) and {:.0f} / {:,.0f} µs with three (host 66 / 4,030)",
        cyclic(0),
        lambda c: tuple(
            lateness(comparison(cyclic(n), HOST_COSTS), key)
            for n in (0, 1, 3)
            for key in ("p50", "p99")
        ),
    ),
    Figure(
        DOC,
        "17 of 600 wakeups waited 4.00–4.03 ms (2.8 %; the model {} of {}, {:.1f} %)",
        cyclic(1),
        lambda c: (*late(1, {}), pct(late(1, {})[0] / late(1, {})[1])),
    ),
    Figure(
        DOC,
        'the model with `start = "0.65ms"` has {:.1f} % late by {:.3f} ms',
        cyclic(1),
        lambda c: (
            pct(
                late(1, {"tasks.cyclic.start": "0.65ms"})[0]
                / late(1, {"tasks.cyclic.start": "0.65ms"})[1]
            ),
            summary(comparison(cyclic(1), {"tasks.cyclic.start": "0.65ms"}), "cyclic")["lateness"][
                "max"
            ]
            / 1e6,
        ),
    ),
    Figure(
        DOC,
        "p90 4.03–4.05 ms; the model {:,.0f} µs, p90 {:.3f} ms",
        cyclic(1),
        lambda c: (
            summary(c, "cyclic")["lateness"]["mean"] / 1e3,
            summary(c, "cyclic")["lateness"]["p90"] / 1e6,
        ),
        values=LOOP_1MS,
    ),
    Figure(
        DOC,
        "The burner is switched out 102 times/s on the host, {:.0f} in the model.",
        cyclic(1),
        lambda c: summary(c, "burner")["nivcsw_per_s"],
        values=LOOP_1MS,
    ),
    Figure(
        DOC,
        "with `irq_time_accounting = false` the model gives a mean of {:.0f} µs (p90 still {:.3f} ms)",
        cyclic(1),
        lambda c: (
            summary(c, "cyclic")["lateness"]["mean"] / 1e3,
            summary(c, "cyclic")["lateness"]["p90"] / 1e6,
        ),
        values={**LOOP_1MS, "machine.irq_time_accounting": False},
    ),
    Figure(
        DOC,
        "included, the model gives a mean of {:,.0f} µs with `irq_time_accounting` on and {:,.0f} µs with it off, p90 {:.3f} ms (the host 1,045–1,070 µs, 4.03–4.05 ms); with those costs but sleeps that cost nothing, {:.0f} µs.",
        cyclic(1),
        lambda c: (
            *(
                summary(comparison(cyclic(1), {**LOOP_1MS, **HOST_COSTS, **v}), "cyclic")[
                    "lateness"
                ]["mean"]
                / 1e3
                for v in ({}, {"machine.irq_time_accounting": False})
            ),
            summary(c, "cyclic")["lateness"]["p90"] / 1e6,
            summary(comparison(cyclic(1), {**LOOP_1MS, **HOST_COSTS, **FREE_SLEEP}), "cyclic")[
                "lateness"
            ]["mean"]
            / 1e3,
        ),
        values={**LOOP_1MS, **HOST_COSTS},
    ),
    Figure(
        DOC,
        "The task alone uses 1.34–1.41 % of the CPU on the host against the model's {:.2f} %",
        cyclic(0),
        lambda c: pct(simulated(c, "cyclic", "share")),
    ),
    # CPU time charged per sleep: a 10 us / 2 ms loop, on a busy and on an idle CPU.
    Figure(
        DOC,
        'beside the burner on CPU 1 the host charged the loop {} µs per period (`se.sum_exec_runtime` over the window\'s wakeups), {} µs more than its work; the model with `sleep_cost = "12us"` charges {:.0f} µs.',
        cyclic(1),
        lambda c: (
            *host_loop("busy"),
            charged(comparison(cyclic(1), {**HOST_COSTS, **SLEEP_LOOP})),
        ),
    ),
    Figure(
        DOC,
        "the same loop was charged {} µs per period, {} µs over its work",
        cyclic(0),
        lambda c: host_loop("idle"),
    ),
    # A requested slice (sched_setattr, 6.12+): cyclic-1.toml with the host's costs.
    *(
        Figure(
            DOC,
            f"| {label} | {{}} µs | {{:.0f}} µs | {{}} µs | {{:,.0f}} µs | {host} | {{}} |"
            if cyclic_slice is None
            else f"| {label} | {{}} | {{:.0f}} | {{}} | {{:,.0f}} | {host} | {{}} |",
            cyclic(1),
            functools.partial(lambda c, s: slice_row(s), s=cyclic_slice),
        )
        for cyclic_slice, label, host in (
            (None, "none (1.4 ms)", "13–14 of 4 ms (and one of 1.3–1.6 ms in two runs)"),
            ("100us", "100 µs", "none"),
            ("1ms", "1 ms", "none"),
            ("3ms", "3 ms", "18–25 of 2 ms and 1–4 of 4 ms"),
        )
    ),
    *(
        Figure(
            DOC,
            f"| {label}, two groups | {{}} | {{:.0f}} | {{}} | {{:,.0f}} | {host} | {{}} |",
            cyclic(1),
            functools.partial(lambda c, s: slice_row(s, groups=True), s=cyclic_slice),
        )
        for cyclic_slice, label, host in (
            (None, "none", "13–15 of 4 ms"),
            ("100us", "100 µs", "none"),
            ("3ms", "3 ms", "15–26 of 2 ms and 1–8 of 4 ms"),
        )
    ),
    Figure(
        DOC,
        "the waits come every {:.0f}th wakeup with the base slice and every {:.0f}th with 3 ms, in the model as on the host",
        cyclic(1),
        lambda c: spacings({}),
    ),
    Figure(
        DOC,
        "the waits come every {:.0f}nd and {:.0f}th wakeup (mean lateness {:.0f} and {:.0f} µs)",
        cyclic(1),
        lambda c: (
            *spacings(FREE_SLEEP),
            *(
                lateness(comparison(cyclic(1), {**with_slice(s), **FREE_SLEEP}), "mean")
                for s in (None, "3ms")
            ),
        ),
    ),
    Figure(
        DOC,
        "the model {:.0f} µs with `sleep_cost`",
        cyclic(1),
        lambda c: charged(comparison(cyclic(1), with_slice(None))),
    ),
    Figure(
        DOC,
        "the host charges the worker {} µs per period",
        cyclic(1),
        lambda c: dash_span(
            (
                t["window_runtime"] / t["lateness"]["count"] / 1e3
                for s in (None, "100us", "1ms", "3ms")
                for t in host_cyclic(s)
            ),
            ".0f",
        ),
    ),
    Figure(
        DOC,
        "(p99.9 and maximum 4.0 ms, the model's {:.1f})",
        cyclic(1),
        lambda c: alike(
            round(
                task(comparison(cyclic(1), with_slice("3ms")), "cyclic", i)["lateness"][key] / 1e6,
                1,
            )
            for i in repetitions_of(1, with_slice("3ms"))
            for key in ("p99_9", "max")
        ),
    ),
    Figure(
        DOC,
        "ten threads whose runs average 0.02 to 3.5 ms), its three repetitions have {}, {} and {} waits of 2 / 4 ms",
        cyclic(1),
        lambda c: tuple(
            rhythm(with_other_work(with_slice("3ms"), "host-6.18-cyclic-1-slice-3ms.json"), i)
            for i in repetitions_of(1, with_slice("3ms"))
        ),
    ),
    Figure(
        DOC,
        "The means of the short-slice rows are the model's within {}",
        cyclic(1),
        lambda c: (
            dash_span(
                (
                    t["lateness"]["mean"] / 1e3
                    - lateness(comparison(cyclic(1), with_slice(s)), "mean")
                    for s in ("100us", "1ms")
                    for t in host_cyclic(s)
                ),
                ".0f",
            )
            + " µs"
        ),
    ),
    *(
        Figure(
            DOC,
            f"| {label} | {{}}{unit} | {{:.0f}}{unit} | {host} | {{}} |",
            cyclic(1),
            functools.partial(lambda c, v, n: weight_row(v, n), v=values, n=name),
        )
        for label, unit, values, name, host in (
            (
                "cyclic at nice 5",
                " µs",
                {"tasks.cyclic.nice": 5},
                "nice5",
                "17–70 of 2 ms and 8–36 of 4 ms",
            ),
            (
                "cyclic at nice −5",
                "",
                {"tasks.cyclic.nice": -5},
                "nice-5",
                "none (one of 2 ms in one run)",
            ),
            (
                "burner SCHED_IDLE",
                "",
                {"tasks.burner.policy": "idle"},
                "idle-burner",
                "none (one of 4 ms in one run)",
            ),
        )
    ),
    Figure(
        DOC,
        "the model keeps one rhythm ({:.0f} ms waits, every {:.0f}th wakeup)",
        cyclic(1),
        lambda c: tuple(
            reversed(
                alike(
                    tuple(round(x) for x in wait_spacing(NICE5, i))
                    for i in repetitions_of(1, NICE5)
                )
            )
        ),
    ),
    Figure(
        DOC,
        "172–178 ms per window on the host, {:.0f} ms in the model ({:.0f} ms without `sleep_cost`)",
        cyclic(1),
        lambda c: tuple(
            alike(
                round(sum(w for w in wakeup_waits(1, v, i) if w > 1_000_000) / 1e6)
                for i in repetitions_of(1, v)
            )
            for v in (NICE5, {**NICE5, **FREE_SLEEP})
        ),
    ),
    Figure(
        DOC,
        'with the task\'s timer 2 ms off the tick grid (`start = "2ms"`) its three repetitions have {}, {} and {} waits of 2 / 4 ms, {:.0f}, {:.0f} and {:.0f} ms in all',
        cyclic(1),
        lambda c: (
            *(rhythm(NICE5_OFF_GRID, i) for i in repetitions_of(1, NICE5_OFF_GRID)),
            *(
                sum(w for w in wakeup_waits(1, NICE5_OFF_GRID, i) if w > 1_000_000) / 1e6
                for i in repetitions_of(1, NICE5_OFF_GRID)
            ),
        ),
    ),
    Figure(
        DOC,
        "the loop's runs spread over {:.1f} and {:.1f} µs between their 5th and 95th percentiles",
        cyclic(1),
        lambda c: run_spreads(),
    ),
    Figure(
        DOC,
        '(`{{ dist = "uniform", low = "{}us", high = "{}us" }}`) the model moves between the two rhythms as the host does: at nice 5 its repetitions have {}, {} and {} waits of 2 / 4 ms (the host 17–70 of 2 ms and 8–36 of 4 ms), with the 3 ms slice {}, {} and {}; the time spent waiting stays {:.0f}, {:.0f} and {:.0f} ms at nice 5. With the narrower spread ({} to {} µs) every repetition keeps one rhythm.',
        cyclic(1),
        lambda c: spread_rhythms(),
    ),
    Figure(
        DOC,
        "The model gives {:.1f} with every tick on time, {:.1f} with the host's tick latency, and {:.1f} with that and the host's build",
        cyclic(1),
        lambda c: tuple(
            long_slice_switches(v)
            for v in ({}, HOST_COSTS, {**HOST_COSTS, "machine.irq_time_accounting": False})
        ),
    ),
    Figure(
        DOC,
        "both are switched at every tick: 125.4 and 125.0 a second on the host, {:.1f} in the model.",
        cyclic(1),
        lambda c: long_slice_switches({"tasks.cyclic.slice": "100us"}),
    ),
    Figure(
        DOC,
        "The host switched each out {:.1f} times a second ({})",
        cyclic(1),
        lambda c: (
            alike(
                s["nivcsw_per_s"]
                for s in host_document(
                    "examples/measure/data/host-6.18-two-burners-slice-20ms.json"
                )["summary"]
            ),
            dash_span(
                (
                    t["window_nivcsw"] / 5
                    for r in host_document(
                        "examples/measure/data/host-6.18-two-burners-slice-20ms.json"
                    )["repetitions"]
                    for t in r["tasks"]
                ),
                ".1f",
            ),
        ),
    ),
    # SCHED_BATCH, SCHED_IDLE and cpu.idle on the 6.18 host.
    Figure(
        DOC,
        "mean {:,.0f} µs against the host's {} µs, p50 {:,.0f} µs (host {}), p90 {:,.0f} µs (host {}); a `perf record` counts about 240–250 waits of 2 ms and 243–245 of 4 ms per window of 500 wakeups, the model {} and {}.",
        cyclic(1),
        lambda c: (
            lateness(comparison(cyclic(1), BATCH), "mean"),
            dash_span((t["lateness"]["mean"] / 1e3 for t in host_batch()), ",.0f"),
            lateness(comparison(cyclic(1), BATCH), "p50"),
            dash_span((t["lateness"]["p50"] / 1e3 for t in host_batch()), ",.0f"),
            lateness(comparison(cyclic(1), BATCH), "p90"),
            dash_span((t["lateness"]["p90"] / 1e3 for t in host_batch()), ",.0f"),
            *batch_waits(),
        ),
    ),
    Figure(
        DOC,
        "| model | {:.2f} % | {:.2f} % | {:.2f} % |",
        IDLE_WEIGHT,
        lambda c: tuple(
            alike(pct(simulated(comparison(IDLE_WEIGHT, v), e, "share")) for v in ({}, IDLE_GROUP))
            for e in ("normal", "idle", "nice19")
        ),
    ),
    Figure(
        DOC,
        "| host, SCHED_IDLE | {} | {} | {} |",
        IDLE_WEIGHT,
        lambda c: host_shares("host-6.18-idle-weight.json"),
    ),
    Figure(
        DOC,
        "| host, idle group | {} | {} | {} |",
        IDLE_WEIGHT,
        lambda c: host_shares("host-6.18-idle-weight-group.json"),
    ),
    Figure(
        DOC,
        "{:.0f} ms in the 5 s window",
        IDLE_WEIGHT,
        lambda c: simulated(c, "idle", "share") * 5000,
    ),
    Figure(
        DOC,
        "The nice-0 burner is preempted {:.1f} times a second on the host against the model's {:.1f}",
        IDLE_WEIGHT,
        lambda c: (
            host_document("examples/measure/data/host-6.18-idle-weight.json")["summary"][0][
                "nivcsw_per_s"
            ],
            summary(c, "normal")["nivcsw_per_s"],
        ),
    ),
    # Newly idle balancing on the 6.18 host.
    Figure(
        DOC,
        "| CPU idle time in the window, ms (both CPUs): median (range) | {0} | {4} | {8:.0f} ({9:.0f}–{10:.0f}) | {11:.0f} ({12:.0f}–{13:.0f}) |"
        "\n| pulls by newly idle balancing in the window (schedstat), median | not readable | not readable | {14:.0f} | {15:.0f} |"
        "\n| b / p share %, medians | {1} | {5} | {16:.1f} / {17:.1f} | {18:.1f} / {19:.1f} |"
        "\n| migrations in the window, all five tasks: median (range) | {2} | {6} | {20:.0f} ({21:.0f}–{22:.0f}) | {23:.0f} ({24:.0f}–{25:.0f}) |"
        "\n| involuntary switches a second, b / p | {3} | {7} | {26:.1f} / {27:.1f} | {28:.1f} / {29:.1f} |",
        NEWIDLE,
        lambda c: (
            *newidle_host("host-6.18-newidle-root.json"),
            *newidle_host("host-6.18-newidle-1.json", "host-6.18-newidle-2.json"),
            *newidle_table(c),
        ),
    ),
    Figure(
        DOC,
        "| 0 / 0 (the first repetition; CPU 1's rose to 1024 during it) | {} | {} |"
        "\n| 1024 / 1024 (the {} repetitions they stood through) | {} | {} |"
        "\n| {} to {} (all {}) | {} | {} |",
        NEWIDLE,
        newidle_rates_table,
    ),
    Figure(
        DOC,
        "the host idled {0} ms in 10 s from rates of 0 (one repetition), {1} and {2} (medians) "
        "from 1024 and about 300, the model from the same rates (`machine.newidle_ratio`) {3}, "
        "{4} and {5}; from "
        "`sd_init()`'s 512, {6:.0f} against the host's {7} at rates not read",
        NEWIDLE,
        lambda c: (
            *(t.split()[0] for t in operator.itemgetter(0, 3, 8, 1, 4, 9)(newidle_rates_table(c))),
            newidle_column(c)[0],
            newidle_host("host-6.18-newidle-root.json")[0].split()[0],
        ),
    ),
    Figure(
        DOC,
        "(one repetition), {1} against {0} ms at 1024, and about twice as long",
        NEWIDLE,
        lambda c: tuple(newidle_rates_table(c)[i].split()[0] for i in (3, 4)),
    ),
    # A renice of a queued task on the 6.18 host.
    Figure(
        DOC,
        "| a / b preempted a second | {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} |"
        "\n| a's share % | {} | {:.2f} | {:.2f} | {:.2f} |",
        RENICE_QUEUED,
        renice_table,
    ),
    Figure(
        DOC,
        "(repetition 0) b is preempted {} times in the window by `wakeup_preempt` and {} at its slice's end, and a {} times at a tick because its protection is gone.",
        RENICE_QUEUED,
        renice_why,
    ),
    Figure(
        DOC,
        "a / b are preempted {} times a second on the host, {:.1f} / {:.1f} in the model (as 6.18.44);",
        RENICE_QUEUED,
        lambda c: (
            host_preempted("host-6.18-renice-queued-session.json"),
            *(summary(comparison(RENICE_QUEUED, ONE_SESSION), e)["nivcsw_per_s"] for e in "ab"),
        ),
    ),
    # Delayed sleepers in the wakeup's pick on the 6.18 host.
    Figure(
        DOC,
        "| burner: share %, preempted a second | 35.80, 215.4 | {:.2f}, {:.1f} | {:.2f}, {:.1f} |"
        "\n| the three sleepers: preempted a second | 89.4 | {:.1f} | {:.1f} |",
        DELAYED_SLEEPERS,
        delayed_sleepers_table,
    ),
    Figure(
        DOC,
        "the medians were {:.2f} % and {:.1f} for the burner and {:.1f} for the sleepers.",
        DELAYED_SLEEPERS,
        lambda _: (
            100 * host_entry("host-6.18-delayed-sleepers-root.json", "b")["share"],
            host_entry("host-6.18-delayed-sleepers-root.json", "b")["nivcsw_per_s"],
            host_entry("host-6.18-delayed-sleepers-root.json", "p")["nivcsw_per_s"],
        ),
    ),
    # RT tasks on two CPUs on the 6.18 host.
    Figure(
        DOC,
        "| hi / mid / lo cycles a second (voluntary switches) | 154.2 / 154.2 / 146.6 | {:.1f} / {:.1f} / {:.1f} |"
        "\n| lo: preempted a second (involuntary switches) | 73.1 (70.1–74.3) | {:.1f} ({:.1f}–{:.1f}) |"
        "\n| lo: migrations in 10 s | 994 (960–1017) | {:.0f} ({:.0f}–{:.0f}) |"
        "\n| hi, mid: migrations in 10 s | 0, 0 | {:.0f}, {:.0f} |"
        "\n| hi / mid / lo share % | 31.45 / 32.02 / 30.72 | {:.2f} / {:.2f} / {:.2f} |"
        "\n| fair burners, share % each | 52.1, 53.2 | {:.1f}, {:.1f} |",
        RT_TWO_CPUS,
        lambda c: (
            *(summary(c, e)["nvcsw_per_s"] for e in ("hi", "mid", "lo")),
            summary(c, "lo")["nivcsw_per_s"],
            min(per_repetition(c, "lo", "window_nivcsw", 10)),
            max(per_repetition(c, "lo", "window_nivcsw", 10)),
            median_of(per_repetition(c, "lo", "window_nr_migrations")),
            min(per_repetition(c, "lo", "window_nr_migrations")),
            max(per_repetition(c, "lo", "window_nr_migrations")),
            median_of(per_repetition(c, "hi", "window_nr_migrations")),
            median_of(per_repetition(c, "mid", "window_nr_migrations")),
            *(pct(simulated(c, e, "share")) for e in ("hi", "mid", "lo")),
            *(pct(median_of(per_repetition(c, f"fair.{i}", "share"))) for i in (0, 1)),
        ),
    ),
    Figure(
        DOC,
        "gave lo 73.2 involuntary switches and 98.6 migrations a second against the model's {:.1f} and {:.1f} (`migrations_per_s`, {:+.1f} %)",
        RT_TWO_CPUS,
        lambda c: (
            summary(c, "lo")["nivcsw_per_s"],
            summary(c, "lo")["migrations_per_s"],
            (summary(c, "lo")["migrations_per_s"] / 98.6 - 1) * 100,
        ),
    ),
    Figure(
        DOC,
        "against the model's {:.0f}–{:.0f} ms in {:.0f}–{:.0f} ({:.0f}–{:.0f} µs), 8 % less",
        RT_TWO_CPUS,
        lo_waits,
    ),
    Figure(
        DOC,
        "about 0.1 µs a wakeup, against the model's {} ms",
        RT_TWO_CPUS,
        lambda c: alike(f"{median_of(run_delays(c, n, 'sum', 1e6)):.1f}" for n in ("hi", "mid")),
    ),
    Figure(
        DOC,
        "The fair burners waited 4.70–4.75 s each on the host, {:.2f}–{:.2f} s in the model.",
        RT_TWO_CPUS,
        fair_waits,
    ),
]
