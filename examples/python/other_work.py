"""A measurement set beside the model with and without the host's own work.

examples/replays/host-6.18-two-nice0-two-nice10-free.toml was measured with `libsched
measure` on a 2-CPU 6.18 guest: two nice-0 and two nice-10 burners, free on both CPUs.
Its measurement (data/host-6.18-measure-two-nice0-two-nice10-free.json) also records what
the host's other threads ran in the window (`provenance.other_work`);
`libsched.other_work_tasks` turns them into scenario tasks for a what-if.

    python3 examples/python/other_work.py

Each CPU holds one task of each nice, and the shares agree either way. What the plain
model misses is what the host's own work does: it preempts the nice-0 tasks more often,
one of them most, and now and then it tips the balancer, which moves a nice-10 task."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import libsched
from libsched import Scenario

REPLAY = (
    Path(__file__).resolve().parents[1] / "replays" / "host-6.18-two-nice0-two-nice10-free.toml"
)
MEASURED = REPLAY.parent / "data" / "host-6.18-measure-two-nice0-two-nice10-free.json"


def per_task(doc: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    """Each burner's share (%), migrations and involuntary switches per second in the
    window: medians over the repetitions, the instances of an entry pooled in the order of
    their counts (the one switched out less often first)."""
    window = (doc["window"]["end"] - doc["window"]["start"]) / 1e9
    rows: dict[str, list[tuple[float, float, float]]] = {}
    for rep in doc["repetitions"]:
        by_entry: dict[str, list[tuple[float, float, float]]] = {}
        for t in rep["tasks"]:
            if t["entry"] in ("n0", "n10"):
                figures = (100 * t["share"], t["window_nr_migrations"], t["window_nivcsw"] / window)
                by_entry.setdefault(t["entry"], []).append(figures)
        for entry, tasks in by_entry.items():
            for i, figures in enumerate(sorted(tasks, key=lambda f: f[2])):
                rows.setdefault(f"{entry} #{i + 1}", []).append(figures)
    medians = {}
    for name, values in rows.items():
        share, moves, ivcsw = (statistics.median(f[k] for f in values) for k in range(3))
        medians[name] = (share, moves, ivcsw)
    return medians


def main() -> None:
    measured = json.loads(MEASURED.read_text())
    scenario = Scenario.from_file(REPLAY)
    with_work = scenario.copy()
    background = libsched.other_work_tasks(measured)
    with_work.set("tasks", scenario.get("tasks") + background)
    print("the host's other work as tasks:")
    for t in background:
        run, sleep = (float(t["behaviour"][k]["mean"][:-2]) / 1e6 for k in ("run", "sleep"))
        print(f"  {t['name']:<24} nice {t['nice']:>3}: {run:.3f} ms, then {sleep:.0f} ms asleep")
    columns = {
        "host": per_task(measured),
        "model": per_task(libsched.run(scenario)),
        "model + other work": per_task(libsched.run(with_work, repetitions=9)),
    }
    print("\nmedians: share %, moves and involuntary switches per second in the window")
    print(f"{'burner':<8}" + "".join(f"  {c:>24}" for c in columns))
    for name in columns["host"]:
        cells = "".join(
            f"  {s:>8.2f} {m:>6.0f} {i:>8.1f}" for s, m, i in (c[name] for c in columns.values())
        )
        print(f"{name:<8}{cells}")


if __name__ == "__main__":
    main()
