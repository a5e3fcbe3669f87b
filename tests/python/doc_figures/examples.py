"""README.md, examples/scenarios/README.md and the comments and descriptions of the
examples' files (examples/scenarios, examples/replays, examples/latency, examples/sweeps,
examples/python, ...): the figures they quote from the model. README.md's own figures
(calc_delta_fair's 3056716 ns, the tunables) are the kernel's arithmetic, not a run, and
the replays' figures that docs/replays.md quotes are in replays.py; measured figures,
weight ratios and kernel constants are not checked."""

from __future__ import annotations

import functools
import json
import statistics
import warnings
from collections.abc import Iterable
from typing import Any

import libsched
from doc_figures import (
    ROOT,
    Figure,
    comparison,
    pct,
    repetition,
    simulated,
    summary,
    task,
)

SCENARIOS_README = "examples/scenarios/README.md"

WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def scenario(name: str) -> str:
    return f"examples/scenarios/{name}.toml"


def replay(name: str) -> str:
    return f"examples/replays/{name}.toml"


# Accessors and wordings of this module's figures.


def without(path: str, key: str) -> libsched.Comparison:
    """The run of ``path`` with ``key`` taken out of every ``[[tasks]]`` entry (a setting
    ``with_values`` cannot unset), made once."""
    return _without(path, key)


@functools.cache
def _without(path: str, key: str) -> libsched.Comparison:
    document = libsched.Scenario.from_file(ROOT / path).to_dict()
    for entry in document["tasks"]:
        entry.pop(key, None)
    text = libsched.Scenario(**document).to_toml()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        return libsched.compare(libsched.Scenario.from_text(text, str(ROOT / path)))


def share(c: libsched.Comparison, entry: str) -> float:
    """An entry's share in percent of one CPU."""
    return pct(simulated(c, entry, "share"))


def group(c: libsched.Comparison, name: str, index: int = 0) -> dict[str, Any]:
    """A task group's row in repetition ``index``."""
    rows = [g for g in repetition(c, index)["task_groups"] if g["name"] == name]
    assert len(rows) == 1, (c.scenario, name)
    row: dict[str, Any] = rows[0]
    return row


def busy_s(c: libsched.Comparison, cpu: int) -> float:
    """How long CPU ``cpu`` was busy in the window (s), repetition 0."""
    busy: float = repetition(c)["cpus"][cpu]["window_busy"]
    return busy / 1e9


def window_s(c: libsched.Comparison) -> float:
    window = c.result["window"]
    return float(window["end"] - window["start"]) / 1e9


def same(values: Iterable[str]) -> str:
    """The one value of figures the text gives once ("50 % each"), else all of them."""
    distinct = list(dict.fromkeys(values))
    return distinct[0] if len(distinct) == 1 else " / ".join(distinct)


def near(values: Iterable[float], target: float, tolerance: float, written: str) -> str:
    """``written`` (the text's "about" figure) when every value is within ``tolerance`` of
    ``target``, else the values."""
    values = list(values)
    if all(abs(v - target) <= tolerance for v in values):
        return written
    return " / ".join(f"{v:.3g}" for v in values)


def half(fraction: float) -> str:
    """ "half" for a share within half a point of 50 %."""
    return "half" if abs(fraction - 0.5) < 0.005 else f"{pct(fraction):.2f} % of"


def tens(value: float) -> float:
    """A figure rounded to tens, as "some 880 a second" gives it."""
    return round(value, -1)


def kernel(path: str, release: str) -> libsched.Comparison:
    """The run of ``path`` on another release."""
    return comparison(path, {"machine.kernel": release})


# examples/scenarios/README.md


def one_in(c: libsched.Comparison, entry: str) -> str:
    """One wakeup in how many is late by a tick: the lateness takes two values here (at once,
    or at the tick), so the share of late ones is where the mean lies between them."""
    lateness = summary(c, entry)["lateness"]
    late = (lateness["mean"] - lateness["p50"]) / (lateness["max"] - lateness["p50"])
    n = round(1 / late)
    return WORDS.get(n, str(n))


def fair_ms_per_s(releases: tuple[str, ...]) -> str:
    return near(
        (
            1000 * simulated(kernel(scenario("rt-fifo-vs-fair"), k), "fair", "share")
            for k in releases
        ),
        50,
        2,
        "50",
    )


def yielder_shares(releases: tuple[str, ...]) -> list[float]:
    return [simulated(kernel(scenario("yield"), k), "yielder", "share") for k in releases]


NORMAL_LOOP = {"tasks.loop.policy": "normal"}
VM_LATENCIES = {
    "machine.tick_latency": {"dist": "uniform", "low": "7us", "high": "26us"},
    "machine.idle_exit_latency": "24us",
}
ONE_SESSION = {"tasks.build.session": "term1"}
SEMAPHORE = {
    "tasks.reader.behaviour.steps[0]": {"sem_wait": "p"},
    "tasks.writer0.behaviour.steps[1]": {"sem_post": "p"},
    "tasks.writer1.behaviour.steps[1]": {"sem_post": "p"},
}
PINNED_TO_0 = {"tasks.a.affinity": [0], "tasks.b.affinity": [0]}


def autogroup_split(c: libsched.Comparison) -> tuple[str, str]:
    """Two ways of sharing one session: both tasks in it, or autogroup off."""
    runs = (comparison(scenario("autogroup"), ONE_SESSION), autogroup_off())
    return (
        same(f"{share(r, 'editor'):.0f}" for r in runs),
        same(f"{share(r, 'build'):.0f}" for r in runs),
    )


def autogroup_off() -> libsched.Comparison:
    return comparison(scenario("autogroup"), {"machine.autogroup": False})


README_FIGURES = [
    Figure(
        SCENARIOS_README,
        "as SCHED_NORMAL on EEVDF about one wakeup in {} does",
        scenario("periodic-timer-vs-burner"),
        lambda c: one_in(c, "loop"),
        values=NORMAL_LOOP,
    ),
    Figure(
        SCENARIOS_README,
        "RT throttling before 6.12, the fair server after, ~{} ms per second either way",
        scenario("rt-fifo-vs-fair"),
        lambda c: fair_ms_per_s(("5.15", "6.6", "6.12", "6.18")),
    ),
    Figure(
        SCENARIOS_README,
        "so the wakeup waits {:.0f} ms instead of 6.18.44's {:.0f}",
        scenario("fair-server-idle"),
        lambda c: (
            summary(kernel(scenario("fair-server-idle"), "6.19"), "fair")["wakeup_latency"]["max"]
            / 1e6,
            summary(c, "fair")["wakeup_latency"]["max"] / 1e6,
        ),
    ),
    Figure(
        SCENARIOS_README,
        "the lowest is preempted and moves about {:.0f} times a second",
        scenario("rt-two-cpus"),
        lambda c: tens(summary(c, "lo")["migrations_per_s"]),
    ),
    Figure(
        SCENARIOS_README,
        "h_load balancing give each group {} CPU",
        scenario("cgroup-shares"),
        lambda c: near((group(c, g)["share"] for g in ("solo", "crowd")), 1, 0.01, "one"),
    ),
    Figure(
        SCENARIOS_README,
        "load balancing gives each {} of a CPU through migrations",
        scenario("three-on-two"),
        lambda c: near((task(c, f"b.{i}")["share"] for i in range(3)), 2 / 3, 0.01, "2/3"),
    ),
    Figure(
        SCENARIOS_README,
        "nice 0 against nice 10 in separate sessions share a CPU {:.0f}/{:.0f}; in one session, {}/{}",
        scenario("autogroup"),
        lambda c: (share(c, "editor"), share(c, "build"), *autogroup_split(c)),
    ),
    Figure(
        SCENARIOS_README,
        "{} the CPU on old CFS and 6.6\u20136.18, about {} % from 6.19 (and 6.18.2, 6.12.63)",
        scenario("yield"),
        lambda c: (
            same(half(s) for s in yielder_shares(("5.15", "6.6", "6.12", "6.18"))),
            same(f"{pct(s):.0f}" for s in yielder_shares(("6.19", "6.18.2", "6.12.63"))),
        ),
    ),
]


# examples/scenarios/*.toml


def migrations_word(c: libsched.Comparison, names: tuple[str, ...]) -> str:
    counts = {task(c, n)["window_nr_migrations"] for n in names}
    return WORDS[counts.pop()] if len(counts) == 1 else str(sorted(counts))


def clock_reads(c: libsched.Comparison) -> tuple[float, float, str]:
    plain = without(scenario("cpu-clock-reads"), "cpu_clock_reads")
    switches = summary(c, "reader")["nivcsw_per_s"] / summary(plain, "reader")["nivcsw_per_s"]
    return (
        share(c, "reader"),
        share(plain, "reader"),
        "more than twice" if switches > 2 else f"{switches:.2f} times",
    )


def sleep_cost_shares(c: libsched.Comparison) -> tuple[float, float, float, float]:
    """sleep-cost.toml's loop: its share (%), its CPU time per wakeup (µs), its share with
    sleeps that cost nothing and the median share the guest measured (%)."""
    loop = task(c, "cyclic")
    free = comparison(scenario("sleep-cost"), {"machine.sleep_cost": "0s"})
    doc = json.loads((ROOT / "examples/latency/data/host-6.18-sleep-cost-busy.json").read_text())
    host = [t["share"] for r in doc["repetitions"] for t in r["tasks"] if t["name"] == "cyclic"]
    return (
        pct(loop["share"]),
        loop["window_runtime"] / loop["window_nvcsw"] / 1e3,
        pct(task(free, "cyclic")["share"]),
        pct(statistics.median(host)),
    )


def throttled_every_period(c: libsched.Comparison, name: str) -> str:
    stat = group(c, name)["bandwidth"]["window_cpu_stat"]
    return "=" if stat["nr_throttled"] == stat["nr_periods"] else "<"


def bursts(release: str) -> str:
    """The fair task's 1 ms bursts in the run: its CPU time in ms."""
    c = kernel(scenario("fair-server-restart"), release)
    return f"{task(c, 'fair')['window_runtime'] / 1e6:g}"


def hrtick_rates(c: libsched.Comparison) -> tuple[str, str]:
    """The switch rates without and with HRTICK: a turn of 16 ms (the tick after the 12 ms
    slice) or 12 ms, as the file gives them, when the window's switches (whole ones: within
    one of the rate times the window) say so."""
    off = comparison(scenario("hrtick"), {"machine.features.hrtick": False})
    one_switch = 1 / window_s(c)
    return (
        near([summary(off, "a")["nivcsw_per_s"]], 1000 / 16, one_switch, "62.5"),
        near([summary(c, "a")["nivcsw_per_s"]], 1000 / 12, one_switch, "83"),
    )


def wake_max_ms(c: libsched.Comparison, entry: str) -> float:
    latency: float = summary(c, entry)["wakeup_latency"]["max"]
    return latency / 1e6


def lateness_us(c: libsched.Comparison, entry: str) -> str:
    """The lateness of every wakeup when they are all alike, else its range."""
    lateness = summary(c, entry)["lateness"]
    if lateness["p50"] == lateness["max"] == lateness["mean"]:
        return f"{lateness['max'] / 1e3:.0f}"
    return f"{lateness['p50'] / 1e3:.0f} to {lateness['max'] / 1e3:.0f}"


def same_share(c: libsched.Comparison, names: Iterable[str], spec: str = ".0f") -> str:
    return same(format(pct(task(c, n)["share"]), spec) for n in names)


def work_per_runtime(c: libsched.Comparison, name: str) -> float:
    t = task(c, name)
    work: float = t["model"]["window_work_ns"]
    return work / t["window_runtime"]


SCENARIO_FIGURES = [
    Figure(
        scenario("affinity-change"),
        "re-pinned task shows {} migration; CPU 0 is idle after {:.0f} s.",
        scenario("affinity-change"),
        lambda c: (migrations_word(c, ("a", "b", "p")), busy_s(c, 0)),
    ),
    Figure(
        scenario("autogroup"),
        "so the two get about {} % each whatever their nice values",
        scenario("autogroup"),
        lambda c: same(f"{share(c, e):.0f}" for e in ("editor", "build")),
    ),
    Figure(
        scenario("autogroup"),
        "1024 : 110 apply again (about {} % / {} %)",
        scenario("autogroup"),
        autogroup_split,
    ),
    Figure(
        scenario("cgroup-shares"),
        "Look at the per task group table (about {} % of a CPU each)",
        scenario("cgroup-shares"),
        lambda c: near((group(c, g)["share"] for g in ("solo", "crowd")), 1, 0.01, "100"),
    ),
    Figure(
        scenario("cgroup-shares"),
        "and the y's shares ({} each)",
        scenario("cgroup-shares"),
        lambda c: near((task(c, f"y.{i}")["share"] for i in range(3)), 1 / 3, 0.005, "a third"),
    ),
    Figure(
        scenario("cpu-clock-reads"),
        "giving it up sooner, gets about {:.0f} % # against {:.0f} % without the reads, with {} the involuntary switches",
        scenario("cpu-clock-reads"),
        clock_reads,
    ),
    Figure(
        scenario("sleep-cost"),
        'With it the loop gets {:.2f} % of the CPU, {:.0f} us per # period; its work alone is {:.2f} %, what the model gives with `sleep_cost = "0s"`. The # guest measured {:.2f} %',
        scenario("sleep-cost"),
        lambda c: sleep_cost_shares(c),
    ),
    Figure(
        SCENARIOS_README,
        "| `sleep-cost.toml` | a 10 µs / 2 ms timer loop beside a burner, charged the 12 µs per sleep a 6.18 guest measured (`machine.sleep_cost`): {:.2f} % of the CPU instead of its work's {:.2f} % (the guest measured {:.2f} %) |",
        scenario("sleep-cost"),
        lambda c: tuple(sleep_cost_shares(c)[i] for i in (0, 2, 3)),
    ),
    Figure(
        scenario("cpu-max"),
        "group table (share about {:.0f} %)",
        scenario("cpu-max"),
        lambda c: pct(group(c, "batch")["share"]),
    ),
    Figure(
        scenario("cpu-max"),
        "runtime in every period (nr_throttled {} nr_periods)",
        scenario("cpu-max"),
        lambda c: throttled_every_period(c, "batch"),
    ),
    Figure(
        scenario("cpu-max"),
        "under cpu.max 150ms/100ms: {:.1f} CPUs, throttled every period.",
        scenario("cpu-max"),
        lambda c: group(c, "batch")["share"],
    ),
    Figure(
        scenario("cpu-max"),
        "the group's share is # {}.",
        scenario("cpu-max"),
        lambda c: (
            "the same"
            if round(pct(group(kernel(scenario("cpu-max"), "6.18"), "batch")["share"]), 1)
            == round(pct(group(c, "batch")["share"]), 1)
            else f"{pct(group(kernel(scenario('cpu-max'), '6.18'), 'batch')['share']):.1f} %"
        ),
    ),
    Figure(
        scenario("fair-server-idle"),
        'for that deadline: {:.0f} ms ("wake max")',
        scenario("fair-server-idle"),
        lambda c: wake_max_ms(c, "fair"),
    ),
    Figure(
        scenario("fair-server-idle"),
        "deferred to its zero-laxity point: {:.0f} ms.",
        scenario("fair-server-idle"),
        lambda c: wake_max_ms(kernel(scenario("fair-server-idle"), "6.19"), "fair"),
    ),
    Figure(
        scenario("fair-server-idle"),
        "which keeps the stopped server's deadline and serves {}.",
        scenario("fair-server-idle"),
        lambda c: (
            "at once"
            if wake_max_ms(kernel(scenario("fair-server-idle"), "6.19.14"), "fair") < 0.1
            else f"after {wake_max_ms(kernel(scenario('fair-server-idle'), '6.19.14'), 'fair'):.1f} ms"
        ),
    ),
    Figure(
        scenario("fair-server-restart"),
        "one after it waits {:.0f} ms for a new deferred period: {} bursts in 10 s.",
        scenario("fair-server-restart"),
        lambda c: (
            wake_max_ms(c, "fair"),
            same(bursts(k) for k in ("6.18.44", "6.18.24", "6.19.14", "6.12.92")),
        ),
    ),
    Figure(
        scenario("fair-server-restart"),
        "keeps serving at once once a starvation has begun: {}.",
        scenario("fair-server-restart"),
        lambda c: same(bursts(k) for k in ("6.18.8", "6.17")),
    ),
    Figure(
        scenario("fair-server-restart"),
        "6.19.0-6.19.13) defers at every wakeup: {}.",
        scenario("fair-server-restart"),
        lambda c: same(bursts(k) for k in ("6.18.9", "6.19.0", "6.19.13")),
    ),
    Figure(
        scenario("hrtick"),
        "compare the switch rates ({}/s vs {}/s)",
        scenario("hrtick"),
        hrtick_rates,
    ),
    Figure(
        scenario("periodic-timer-vs-burner"),
        "the time from its release to a tick ({:.0f} or {:.0f} ms here",
        scenario("periodic-timer-vs-burner"),
        lambda c: (
            summary(c, "loop")["lateness"]["p50"] / 1e6,
            summary(c, "loop")["lateness"]["max"] / 1e6,
        ),
    ),
    Figure(
        scenario("periodic-timer-vs-burner"),
        "a wakee owed nothing waits for a tick: about one # wakeup in {} is {:.0f} ms late",
        scenario("periodic-timer-vs-burner"),
        lambda c: (one_in(c, "loop"), summary(c, "loop")["lateness"]["max"] / 1e6),
        values=NORMAL_LOOP,
    ),
    Figure(
        scenario("periodic-timer"),
        "alone on one CPU: it gets # {:.0f} % and every wakeup is late by the same {} us",
        scenario("periodic-timer"),
        lambda c: (share(c, "loop"), lateness_us(c, "loop")),
    ),
    Figure(
        scenario("periodic-timer"),
        'idle_exit_latency = "24us": about {:.0f} us, as each wakeup draws its own interrupt latency',
        scenario("periodic-timer"),
        lambda c: summary(c, "loop")["lateness"]["mean"] / 1e3,
        values=VM_LATENCIES,
    ),
    Figure(
        scenario("renice-midway"),
        "= 90.3 % for a ({:.1f} % over",
        scenario("renice-midway"),
        lambda c: share(c, "a"),
    ),
    Figure(
        scenario("renice-midway"),
        "(docs/theory.md), so it shows {:.0f}/{:.0f}.",
        scenario("renice-midway"),
        lambda c: (pct(c.row("a", "share").theory or 0), pct(c.row("b", "share").theory or 0)),
    ),
    Figure(
        scenario("rt-fifo-vs-fair"),
        "the fair task the last ~{} ms of each second",
        scenario("rt-fifo-vs-fair"),
        lambda c: fair_ms_per_s(("6.6", "5.15")),
    ),
    Figure(
        scenario("rt-fifo-vs-fair"),
        "its zero-laxity point, also ~{} ms per second.",
        scenario("rt-fifo-vs-fair"),
        lambda c: fair_ms_per_s(("6.12", "6.18")),
    ),
    Figure(
        scenario("rt-fifo-vs-fair"),
        "(before 6.12 the fair task then {})",
        scenario("rt-fifo-vs-fair"),
        lambda c: (
            "starves"
            if simulated(
                comparison(scenario("rt-fifo-vs-fair"), {"machine.sched_rt_runtime": "unlimited"}),
                "fair",
                "share",
            )
            == 0
            else "runs"
        ),
    ),
    Figure(
        scenario("rt-push-ipi"),
        '("e" gets {}, CPU 1 idles)',
        scenario("rt-push-ipi"),
        lambda c: "no CPU" if simulated(c, "e", "share") == 0 else f"{share(c, 'e'):.2f} %",
    ),
    Figure(
        scenario("rt-push-ipi"),
        "and runs it from {:.0f} ms on.",
        scenario("rt-push-ipi"),
        lambda c: (
            task(kernel(scenario("rt-push-ipi"), "6.18.39"), "e")["run_delay"]["max_at"] / 1e6
        ),
    ),
    Figure(
        scenario("rt-two-cpus"),
        'Look at "lo": about {:.0f} involuntary # switches and {:.0f} migrations a second',
        scenario("rt-two-cpus"),
        lambda c: (summary(c, "lo")["nivcsw_per_s"], summary(c, "lo")["migrations_per_s"]),
    ),
    Figure(
        scenario("rt-two-cpus"),
        "(--kernel 6.18.38 gives # {} figures)",
        scenario("rt-two-cpus"),
        lambda c: (
            "the same"
            if kernel(scenario("rt-two-cpus"), "6.18.38").result["summary"] == c.result["summary"]
            else "other"
        ),
    ),
    Figure(
        scenario("sleeper-vs-hog"),
        "it gets {:.1f} % rather than the 10 %",
        scenario("sleeper-vs-hog"),
        lambda c: share(c, "sleeper"),
    ),
    Figure(
        scenario("sleeper-vs-hog"),
        "lets it preempt at once, and it gets its {:.0f} %.",
        scenario("sleeper-vs-hog"),
        lambda c: share(kernel(scenario("sleeper-vs-hog"), "5.15"), "sleeper"),
    ),
    Figure(
        scenario("smt-idle-core"),
        "so both land on CPU {} and take turns there",
        scenario("smt-idle-core"),
        lambda c: same(str(task(c, f"tick.{i}")["cpu"]) for i in range(2)),
    ),
    Figure(
        scenario("smt-idle-core"),
        "while CPU {} stays idle.",
        scenario("smt-idle-core"),
        lambda c: "3" if busy_s(c, 3) == 0 else f"3 (busy {busy_s(c, 3):.3f} s)",
    ),
    Figure(
        scenario("smt-throughput"),
        "thread each (share {} %)",
        scenario("smt-throughput"),
        lambda c: same_share(c, ("a", "b")),
    ),
    Figure(
        scenario("smt-throughput"),
        "each does {} of the work it would do alone.",
        scenario("smt-throughput"),
        lambda c: same(f"{work_per_runtime(c, n):.1f}" for n in ("a", "b")),
    ),
    Figure(
        scenario("smt-throughput"),
        "share one thread instead ({} the CPU each",
        scenario("smt-throughput"),
        lambda c: same(half(task(c, n)["share"]) for n in ("a", "b")),
        values=PINNED_TO_0,
    ),
    Figure(
        scenario("sync-wakeup"),
        "some {:.0f} a second, of {:.0f} # wakeups;",
        scenario("sync-wakeup"),
        lambda c: (
            tens(summary(c, "reader")["migrations_per_s"]),
            tens(summary(c, "reader")["wakeup_latency"]["count"] / window_s(c)),
        ),
    ),
    Figure(
        scenario("sync-wakeup"),
        "keeps the reader on its CPU instead: {} migrations.",
        scenario("sync-wakeup"),
        lambda c: (
            "no"
            if summary(c, "reader")["migrations_per_s"] == 0
            else f"{summary(c, 'reader')['migrations_per_s']:.1f}/s"
        ),
        values=SEMAPHORE,
    ),
    Figure(
        scenario("three-on-two"),
        "Look at the share column (about {} % each)",
        scenario("three-on-two"),
        lambda c: near((task(c, f"b.{i}")["share"] for i in range(3)), 2 / 3, 0.01, "66.7"),
    ),
    Figure(
        scenario("three-on-two"),
        "load balancing shares them at {} of a CPU each.",
        scenario("three-on-two"),
        lambda c: near((task(c, f"b.{i}")["share"] for i in range(3)), 2 / 3, 0.01, "2/3"),
    ),
    Figure(
        scenario("two-burners"),
        "the fair split, {}% each.",
        scenario("two-burners"),
        lambda c: same(f"{share(c, e):.0f}" for e in ("a", "b")),
    ),
    Figure(
        scenario("yield"),
        "the yielder still gets {} the CPU;",
        scenario("yield"),
        lambda c: half(yielder_shares(("5.15",))[0]),
    ),
    Figure(
        scenario("yield"),
        "is picked again: {} the CPU as well;",
        scenario("yield"),
        lambda c: same(half(s) for s in yielder_shares(("6.6", "6.12", "6.18"))),
    ),
    Figure(
        scenario("yield"),
        "about 100 us per 1.4 ms slice, some {} % of the CPU",
        scenario("yield"),
        lambda c: same(
            f"{pct(s):.0f}" for s in yielder_shares(("6.19", "6.18.2", "6.17.13", "6.12.63"))
        ),
    ),
]


# examples/replays/*.toml


def burner_shares(c: libsched.Comparison, n: int) -> tuple[float, ...]:
    return tuple(task(c, f"q{i}")["share"] for i in range(n))


def seed_shares(c: libsched.Comparison, within: bool) -> tuple[float, ...]:
    """The three burners' shares (%), once the replay's verdict on them is as said."""
    tolerance = pct(c.result["measured"]["tolerance"]["share"])
    errors = [abs(c.row(f"q{i}", "share").error or 0) for i in range(3)]
    assert (max(errors) <= tolerance) == within, (errors, tolerance)
    return tuple(pct(s) for s in burner_shares(c, 3))


def burner_migrations(c: libsched.Comparison, n: int) -> tuple[int, ...]:
    return tuple(task(c, f"q{i}")["window_nr_migrations"] for i in range(n))


def split(c: libsched.Comparison, n: int) -> tuple[Any, ...]:
    return (group(c, "q")["share"], *burner_shares(c, n), *burner_migrations(c, n))


ZERO_LATENCIES = {
    "machine.tick_latency": "0us",
    "machine.ipi_latency": "0us",
    "machine.idle_exit_latency": "0us",
}


def group_pct(c: libsched.Comparison, *names: str) -> tuple[float, ...]:
    return tuple(pct(group(c, n)["share"]) for n in names)


def ru_ratios(c: libsched.Comparison) -> list[float]:
    """Each repetition's getrusage utime ratio of group A to group B."""

    def utime(tasks: list[dict[str, Any]], entry: str) -> int:
        return sum(t["ru_utime_us"] for t in tasks if t["entry"] == entry)

    return [utime(r["tasks"], "a") / utime(r["tasks"], "b") for r in c.result["repetitions"]]


def launch_mode(ratios: list[float]) -> tuple[list[float], list[float]]:
    """The repetitions whose launch left A,A | B,B a while (the lower ratio of the two
    modes), and the others: split halfway between the extremes."""
    middle = (min(ratios) + max(ratios)) / 2
    return [r for r in ratios if r < middle], [r for r in ratios if r >= middle]


def n10_modes(c: libsched.Comparison) -> tuple[int, int]:
    forty = comparison(replay("seed000-5.15-n10"), repetitions=40)
    return len(launch_mode(ru_ratios(c))[0]), len(launch_mode(ru_ratios(forty))[0])


def n10_mode_ratios(c: libsched.Comparison) -> tuple[float, float]:
    low, high = launch_mode(ru_ratios(comparison(replay("seed000-5.15-n10"), repetitions=40)))
    return statistics.mean(low), statistics.mean(high)


def k8s_shares(c: libsched.Comparison, entry: str, count: int) -> str:
    """The shares of an entry's tasks (medians over the repetitions), if all alike."""
    repetitions = range(len(c.result["repetitions"]))
    return same(
        f"{pct(statistics.median(task(c, f'{entry}.{i}', r)['share'] for r in repetitions)):.0f}"
        for i in range(count)
    )


REPLAY_FIGURES = [
    Figure(
        replay("host-6.18-5"),
        "splits the group's {:.3f} CPU {:.3f} / {:.3f} against the host's 0.254 / 0.251.",
        replay("host-6.18-5"),
        lambda c: split(c, 2)[:3],
    ),
    Figure(
        replay("host-6.18-5"),
        "one queue kept the last slice: {:.3f} / # {:.3f}",
        replay("host-6.18-5"),
        lambda c: burner_shares(c, 2),
        values={"machine.tick_latency": "0us"},
    ),
    Figure(
        replay("host-6.18-5"),
        "this host's tick latency) gives q {:.3f} CPU, {:.3f} / \\ {:.3f}.",
        replay("host-6.18-5"),
        lambda c: split(c, 2)[:3],
    ),
    *(
        Figure(
            replay(f"host-6.18-{case}"),
            "1.5 CPUs is {1:.3f} / {2:.3f} / {3:.3f} with {4} / {5} / {6} migrations",
            replay(f"host-6.18-{case}"),
            lambda c: split(c, 3),
        )
        for case in ("6a", "6b")
    ),
    *(
        Figure(
            replay(f"host-6.18-{case}"),
            f"this seed {verdict} the tolerance: {{:.2f}} / {{:.2f}} / {{:.2f}} % against ~50 % each",
            replay(f"host-6.18-{case}"),
            functools.partial(seed_shares, within=verdict == "is within"),
        )
        for case, verdict in (("6a", "is within"), ("6b", "misses"))
    ),
    Figure(
        replay("host-6.18-6a"),
        "this host's latencies) gives q {:.3f} \\ CPUs split {:.3f} / {:.3f} / {:.3f} with {}, {} and {} migrations",
        replay("host-6.18-6a"),
        lambda c: split(c, 3),
    ),
    Figure(
        replay("host-6.18-6b"),
        "this host's latencies) gives q {:.3f} CPUs split {:.3f} / {:.3f} / {:.3f} with \\ {}, {} and {} migrations",
        replay("host-6.18-6b"),
        lambda c: split(c, 3),
    ),
    Figure(
        replay("host-6.18-7"),
        "(cpu_clock_reads below; without it the model gives q {:.2f} %)",
        replay("host-6.18-7"),
        lambda c: group_pct(without(replay("host-6.18-7"), "cpu_clock_reads"), "q")[0],
    ),
    Figure(
        replay("host-6.18-7"),
        "tolerance ({:.2f} % against 87.94 %, ±0.5 pp) and so does u ({:.2f} % against",
        replay("host-6.18-7"),
        lambda c: group_pct(c, "q", "u"),
    ),
    Figure(
        replay("host-6.18-7"),
        "with the latencies at 0 they were {:.2f} % and # {:.2f} %.",
        replay("host-6.18-7"),
        lambda c: group_pct(c, "q", "u"),
        values=ZERO_LATENCIES,
    ),
    Figure(
        replay("host-6.18-7"),
        "the model (6.18.44): q and u outside the tolerance ({:.2f} %, {:.2f} %)",
        replay("host-6.18-7"),
        lambda c: group_pct(c, "q", "u"),
    ),
    Figure(
        replay("host-6.18-7"),
        "gives q {:.3f}, u {:.3f}: shown, not judged",
        replay("host-6.18-7"),
        lambda c: (group(c, "q")["share"], group(c, "u")["share"]),
    ),
    Figure(
        replay("k8s-pod-limits"),
        "where each runs about {} ms of each 100 ms",
        replay("k8s-pod-limits"),
        lambda c: k8s_shares(c, "a", 4),
    ),
    Figure(
        replay("k8s-pod-limits"),
        "stretches, about {} % each; two threads cannot fill # the four CPUs pod-a leaves, so two idle meanwhile ({:.0f} % of the 4 CPUs busy). Idle # CPUs pull the waiting BestEffort threads ({} to {} migrations each in the window)",
        replay("k8s-pod-limits"),
        lambda c: (k8s_shares(c, "b", 2), share(c, "a") + share(c, "b"), *k8s_migrations(c)),
    ),
    Figure(
        replay("seed000-5.15-n10"),
        "in {} of the 5 repetitions ({} of 40",
        replay("seed000-5.15-n10"),
        n10_modes,
    ),
    Figure(
        replay("seed000-5.15-n10"),
        "those runs # give {:.2f} against {:.2f} for the others.",
        replay("seed000-5.15-n10"),
        n10_mode_ratios,
    ),
    Figure(
        replay("tuning-log-shipper-quota"),
        "is never throttled: the model shows nr_throttled {} for it.",
        replay("tuning-log-shipper-quota"),
        lambda c: max(
            group(c, "logship", i)["bandwidth"]["cpu_stat"]["nr_throttled"]
            for i in range(len(c.result["repetitions"]))
        ),
        values={"tasks.ship.behaviour": {"type": "periodic", "run": "20ms", "sleep": "30ms"}},
    ),
]


def k8s_migrations(c: libsched.Comparison) -> tuple[int, int]:
    """The fewest and most moves of a BestEffort thread in the window, over the repetitions."""
    moves = [
        task(c, name, i)["window_nr_migrations"]
        for i in range(len(c.result["repetitions"]))
        for name in ("b.0", "b.1")
    ]
    return min(moves), max(moves)


def lazy_figures(c: libsched.Comparison) -> tuple[Any, ...]:
    """lazy-preemption.toml as written (lazy) and with preempt = "none": the service's
    wakeup p50 and max (ms), its sleeps a second under lazy and none, its wakeup p50 under
    none (us), and the service's and the batch job's shares under lazy (%)."""
    none = comparison(scenario("lazy-preemption"), {"machine.preempt": "none"})
    lazy = summary(c, "service")["wakeup_latency"]
    return (
        lazy["p50"] / 1e6,
        lazy["max"] / 1e6,
        summary(c, "service")["nvcsw_per_s"],
        summary(none, "service")["nvcsw_per_s"],
        summary(none, "service")["wakeup_latency"]["p50"] / 1e3,
        pct(simulated(c, "service", "share")),
        pct(simulated(c, "batch", "share")),
    )


SCENARIO_FIGURES += [
    Figure(
        scenario("lazy-preemption"),
        "(`libsched run --latency`: wake p50 {:.1f} ms, max {:.1f} ms; requests that arrive # within one tick are handled in one go, so the service sleeps {:.0f} times a second instead # of {:.0f}). Run it with `--preempt none` (voluntary and full are the same for user-space # tasks) and the IPI brings the preemption at once: {:.0f} us, the IPI and the reschedule. The # CPU split does not move: {:.2f} % for the service, {:.2f} % for the batch job.",
        scenario("lazy-preemption"),
        lazy_figures,
    ),
    Figure(
        SCENARIOS_README,
        "no IPI, so it waits for its CPU's tick ({:.1f} ms p50) where `--preempt none` runs it {:.0f} µs after the wakeup |",
        scenario("lazy-preemption"),
        lambda c: (lazy_figures(c)[0], lazy_figures(c)[4]),
    ),
]

FIGURES = [*README_FIGURES, *SCENARIO_FIGURES, *REPLAY_FIGURES]
