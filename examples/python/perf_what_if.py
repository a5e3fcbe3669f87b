"""A what-if made from a recorded schedule, set beside a recording of the what-if itself.

examples/perf-import/burner-and-sleeper.txt is `perf sched record` of a busy loop and a
loop that spins 2 ms and sleeps 8 ms, both on CPU 1 of a 6.18 guest;
nice10-burner-and-sleeper.txt is the same with the busy loop at nice 10. The first is
imported twice (plainly, and with `loops=True`, which repeats the sleeping loop's steady
rounds until it exited), its busy loop set to nice 10, and run; the second is read as a
measurement (docs/perf-import.md).

    python3 examples/python/perf_what_if.py

Imported plainly, the sleeping loop replays the rounds it went through beside a nice-0
busy loop and stops; with `loops=True` it keeps going round at the pace the model gives
it, as the real loop did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import libsched
from libsched import Scenario

TRACES = Path(__file__).resolve().parents[1] / "perf-import"


def busiest(rows: dict[str, dict[str, Any]], comm: str) -> dict[str, Any]:
    """Of the entries named COMM-PID, the one with the largest CPU share (the loop, not
    the shells and timeouts that started it)."""
    return max(
        (row for name, row in rows.items() if name.startswith(comm + "-")),
        key=lambda row: row["share"],
    )


def predicted(loops: bool) -> dict[str, Any]:
    """The summary rows of the nice-0 recording's import with its busy loop at nice 10."""
    scenario = Scenario.from_perf_script(
        TRACES / "burner-and-sleeper.txt",
        kernel="6.18",
        exclude=["^perf"],
        pin=True,
        loops=loops,
    )
    # The busy loop: the shell that ran for most of the trace without sleeping.
    for task in scenario.get("tasks"):
        steps = task["behaviour"]["steps"] if isinstance(task["behaviour"], dict) else []
        if task["name"].startswith("sh-") and len(steps) == 1 and steps[0]["run"] > 10**9:
            scenario.set(f"tasks.{task['name']}.nice", 10)
    return {row["entry"]: row for row in libsched.run(scenario)["summary"]}


def main() -> None:
    recorded: dict[str, dict[str, Any]] = {}
    measurements = libsched.read_measurements(TRACES / "nice10-burner-and-sleeper.txt")
    for (name, _, quantity), value in measurements.values.items():
        recorded.setdefault(name, {})[quantity] = value
    columns = (predicted(False), predicted(True), recorded)
    headers = ("plain import", "with loops", "recorded")
    print(f"{'busy loop at nice 10':<22}" + "".join(f"{h:>12}" for h in headers))
    for label, comm, quantity, scale, unit in (
        ("sleeper CPU share", "python3", "share", 100, " %"),
        ("sleeper wakeups", "python3", "nvcsw_per_s", 1, "/s"),
        ("busy loop CPU share", "sh", "share", 100, " %"),
    ):
        cells = [f"{busiest(rows, comm)[quantity] * scale:>10.1f}{unit}" for rows in columns]
        print(f"{label:<22}" + "".join(cells))


if __name__ == "__main__":
    main()
