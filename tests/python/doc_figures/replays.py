"""docs/replays.md."""

from __future__ import annotations

import statistics
from typing import Any

import libsched
from doc_figures import Figure, comparison, error, pct, repetition, simulated, summary, task

DOC = "docs/replays.md"


def replay(name: str) -> str:
    return f"examples/replays/{name}.toml"


def share_row(c: libsched.Comparison, entry: str) -> tuple[float, float]:
    return pct(simulated(c, entry, "share")), error(c, entry, "share")


def ratio_row(c: libsched.Comparison, entry: str) -> tuple[float, float]:
    return simulated(c, entry, "ratio"), error(c, entry, "ratio")


def group_row(c: libsched.Comparison) -> tuple[float, float, float, float]:
    return (
        simulated(c, "a", "ru_ratio"),
        error(c, "a", "ru_ratio"),
        simulated(c, "a", "jratio"),
        error(c, "a", "jratio"),
    )


def pair_extremes(c: libsched.Comparison) -> tuple[float, float]:
    shares = [
        pct(
            simulated(
                comparison(replay("seed002-pair-0-5"), {"machine.kernel": k, "machine.hz": hz}),
                "a",
                "share",
            )
        )
        for k in ("5.15", "6.6", "6.12")
        for hz in (100, 250, 1000)
    ]
    return min(shares), max(shares)


def forwarder_row(c: libsched.Comparison) -> tuple[float, ...]:
    shares = [pct(simulated(c, e, "share")) for e in ("forwarder", "kworker", "shipper", "app")]
    return (*shares, summary(c, "kworker")["wakeup_latency"]["max"] / 1e6)


def median_throttling(c: libsched.Comparison) -> tuple[int, float, int, int, int]:
    """The shipper's throttled periods in the median repetition, its throttled time (ms),
    and each repetition's count."""

    def stat(index: int) -> dict[str, Any]:
        groups = repetition(c, index)["task_groups"]
        found: dict[str, Any] = next(g for g in groups if g["name"] == "logship")
        return found["bandwidth"]["window_cpu_stat"]

    counts = [stat(i)["nr_throttled"] for i in range(len(c.result["repetitions"]))]
    median = sorted(range(len(counts)), key=lambda i: counts[i])[len(counts) // 2]
    return counts[median], stat(median)["throttled_time"] / 1e6, *counts


def k8s_throttled_s(c: libsched.Comparison) -> float:
    """The Burstable pod's throttled time in the window, the median of the repetitions."""
    times = [
        g["bandwidth"]["window_cpu_stat"]["throttled_time"]
        for r in c.result["repetitions"]
        for g in r["task_groups"]
        if g["name"] == "kubepods/burstable/pod-a"
    ]
    return statistics.median(times) / 1e9


def migrations(c: libsched.Comparison, names: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(task(c, n)["window_nr_migrations"] for n in names)


def shares_of(c: libsched.Comparison, names: tuple[str, ...]) -> tuple[float, ...]:
    return tuple(simulated(c, n, "share") for n in names)


FIGURES = [
    *(
        Figure(
            DOC,
            f"| {name} | share of nice {nice} | {{:.2f}} % | {measured} % | {{:+.2f}} pp |",
            replay(name),
            lambda c, e=entry: share_row(c, e),
        )
        for name, entry, nice, measured in (
            ("seed002-pair-0-5", "a", 0, 75),
            ("seed002-pair-0-5", "b", 5, 25),
            ("seed002-pair-0-10", "a", 0, 90),
            ("seed002-pair-0-10", "b", 10, 10),
        )
    ),
    Figure(
        DOC,
        "| seed002-pair-0-5 | ratio | {:.2f} | 3.0 | {:+.1f} % |",
        replay("seed002-pair-0-5"),
        lambda c: ratio_row(c, "a"),
    ),
    Figure(
        DOC,
        "| seed002-pair-0-10 | ratio | {:.2f} | 9.0 | {:+.1f} % |",
        replay("seed002-pair-0-10"),
        lambda c: ratio_row(c, "a"),
    ),
    Figure(
        DOC,
        "| seed002-equal-4 | share of each | {:.2f} % | 24.96 % | {:+.2f} pp |",
        replay("seed002-equal-4"),
        lambda c: share_row(c, "b"),
    ),
    Figure(
        DOC,
        "| seed002-equal-4 | ratio of each to a | {:.3f} | 1.0 | {:.0f} % |",
        replay("seed002-equal-4"),
        lambda c: (simulated(c, "b", "ratio"), abs(error(c, "b", "ratio"))),
    ),
    Figure(
        DOC,
        "| seed002-alone-nice19 | share | {:.2f} % | 100 % | {:+.2f} pp |",
        replay("seed002-alone-nice19"),
        lambda c: share_row(c, "alone"),
    ),
    Figure(
        DOC,
        "the predicted split over this window ({:.2f} %)",
        replay("seed002-pair-0-5"),
        lambda c: pct(simulated(c, "a", "share")),
    ),
    Figure(
        DOC,
        'replay output ({:.2f} vs "3.0", {:.2f} vs "9.0")',
        replay("seed002-pair-0-5"),
        lambda c: (
            simulated(c, "a", "ratio"),
            simulated(comparison(replay("seed002-pair-0-10")), "a", "ratio"),
        ),
    ),
    Figure(
        DOC,
        "the prediction moves between {:.2f} % and {:.2f} % (5.15, 6.6 and 6.12 at HZ 100, 250 and 1000)",
        replay("seed002-pair-0-5"),
        pair_extremes,
    ),
    *(
        Figure(
            DOC,
            f"{name} a/b {columns} {{:.3f}} {ratio} {{:+.1f}} {{:.3f}} {jratio} {{:+.1f}}",
            replay(name),
            group_row,
        )
        for release in ("5.15", "6.18")
        for name, columns, ratio, jratio in (
            (f"seed000-{release}-base", "0/0 1.000 +0.2 1.000 +0.2", "0.998", "1.001"),
            (f"seed000-{release}-n10", "0/10 9.309 +0.8 3.908 -57.7", "9.231", "9.487"),
            (f"seed000-{release}-n20", "0/20 68.267 +19.5 68.267 +19.5", "57.148", "71.545"),
            (f"seed000-{release}-neg10", "-10/0 9.324 +6.0 2.250 -74.4", "8.798", "9.397"),
        )
    ),
    *(
        Figure(
            DOC,
            f"{counter} {{:{spec}}} {measured} {{:+.1f}}",
            replay("seed000-5.15-n10"),
            lambda c, k=key, m=float(measured): (
                c.result["perf_stat"]["run"][k],
                (c.result["perf_stat"]["run"][k] / m - 1) * 100,
            ),
        )
        for counter, key, spec, measured in (
            ("context-switches", "context_switches", ".0f", "4205"),
            ("cpu-migrations", "cpu_migrations", ".0f", "79"),
            ("task-clock ms", "task_clock_ms", ".2f", "17990.09"),
            ("CPUs utilized", "cpus_utilized", ".3f", "1.977"),
        )
    ),
    Figure(
        DOC,
        "the n10 getrusage ratio, {:.1f} % against ±3 %",
        replay("seed000-5.15-n10"),
        lambda c: error(c, "a", "ru_ratio"),
    ),
    *(
        Figure(
            DOC,
            f"| seed003-fifo-forwarder-{release} | {{:.2f}} % | {{:.2f}} % | {{:.2f}} % | {{:.2f}} % | {{:.0f}} ms |",
            replay(f"seed003-fifo-forwarder-{release}"),
            forwarder_row,
        )
        for release in ("5.15", "6.6", "6.18")
    ),
    *(
        Figure(
            DOC,
            f"| seed003-shares-512-1024-{cpus}cpu-{release} | {{:.4f}} | {{:.4f}} |",
            replay(f"seed003-shares-512-1024-{cpus}cpu-{release}"),
            lambda c: shares_of(c, ("m", "o")),
        )
        for cpus in (1, 2)
        for release in ("5.15", "6.18")
    ),
    Figure(
        DOC,
        "the API service {:.1f} % of its 160 % demand",
        replay("tuning-log-shipper-quota"),
        lambda c: pct(simulated(c, "api", "share")),
    ),
    Figure(
        DOC,
        "In the median repetition {} of the 100 periods end throttled, for {:.1f} ms in all (the three repetitions: {}, {} and {})",
        replay("tuning-log-shipper-quota"),
        median_throttling,
    ),
    Figure(
        DOC,
        "The Burstable pod gets its limit, {:.1f} %",
        replay("k8s-pod-limits"),
        lambda c: pct(simulated(c, "a", "share")),
    ),
    Figure(
        DOC,
        "every period ends throttled ({:.1f} s of throttled time",
        replay("k8s-pod-limits"),
        k8s_throttled_s,
    ),
    Figure(
        DOC,
        "the BestEffort pod gets the rest, {:.0f} %",
        replay("k8s-pod-limits"),
        lambda c: pct(simulated(c, "b", "share")),
    ),
    Figure(
        DOC,
        "its two burners split the group's {:.3f} CPU {:.3f} / {:.3f} against the host's 0.254 / 0.251",
        replay("host-6.18-5"),
        lambda c: (sum(shares_of(c, ("q0", "q1"))), *shares_of(c, ("q0", "q1"))),
    ),
    Figure(
        DOC,
        "6a's three burners get {:.3f} / {:.3f} / {:.3f} with {}, {} and {} migrations",
        replay("host-6.18-6a"),
        lambda c: (*shares_of(c, ("q0", "q1", "q2")), *migrations(c, ("q0", "q1", "q2"))),
    ),
    Figure(
        DOC,
        "6b's {:.3f} / {:.3f} / {:.3f} with {}, {} and {}",
        replay("host-6.18-6b"),
        lambda c: (*shares_of(c, ("q0", "q1", "q2")), *migrations(c, ("q0", "q1", "q2"))),
    ),
    Figure(
        DOC,
        "in case 7 q has {:.1f} pp less than on the host and u {:.1f} pp more",
        replay("host-6.18-7"),
        lambda c: (-error(c, "q", "share"), error(c, "u", "share")),
    ),
]
