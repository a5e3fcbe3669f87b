"""Sweep throughput: N short points (two burners for 20 ms on one CPU, nice of one swept)
in this process, on 1, 2 and all local processes and on a local Dask cluster; points per
second and the overhead per point against running the same points' scenarios bare
(_core.run.run_scenario_text on prepared TOML, the floor a sweep builds on).

    python bench/sweep_bench.py            # 10,000 points
    python bench/sweep_bench.py --quick    # 200 points, a smoke run (CI)
"""

from __future__ import annotations

import argparse
import os
import time

import libsched
from libsched import _core
from libsched.sweep import grid_values, point_seed

BASE = libsched.Scenario(
    name="sweep-bench",
    length="20ms",
    machine={"kernel": "6.6", "cpus": 1, "hz": 250},
    tasks=[{"name": "a"}, {"name": "b"}],
)


def axes(points: int) -> dict[str, list[int]]:
    # nice -20..19 times a dummy axis of repetitions of the same scenario (the seed varies).
    return {"tasks.b.nice": list(range(-20, 20)), "seed": list(range(1, points // 40 + 1))}


def bare(points: int) -> float:
    grid = list(axes(points).values())
    texts = []
    for point in range(points):
        values = grid_values(grid, point)
        texts.append(BASE.with_values(dict(zip(axes(points), values))).to_toml())
    start = time.perf_counter()
    for point, text in enumerate(texts):
        _core.run.run_scenario_text(text, 1, point_seed(1, grid_values(grid, point), 0), "<b>")
    return time.perf_counter() - start


def timed(points: int, **engine: object) -> float:
    start = time.perf_counter()
    result = libsched.sweep(BASE, axes(points), progress=False, **engine)  # type: ignore[arg-type]
    assert len(result) == points and not result.failures
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 points: a smoke run")
    points = 200 if parser.parse_args().quick else 10_000
    cpus = os.cpu_count() or 1
    floor = bare(points)
    rows = [("bare run_scenario_text, 1 process", 1, floor)]
    rows.append(("sweep, in this process (jobs=1)", 1, timed(points, jobs=1)))
    for jobs in sorted({2, cpus}):
        rows.append((f"sweep, {jobs} local processes", jobs, timed(points, jobs=jobs)))
    try:
        import distributed
    except ImportError:
        distributed = None
    if distributed is not None:
        with (
            distributed.LocalCluster(
                n_workers=cpus, threads_per_worker=1, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            wall = timed(points, client=client)
            rows.append((f"sweep, local Dask cluster ({cpus} workers)", cpus, wall))
    print(f"{points} points on {cpus} CPUs")
    # Overhead: the CPU time per point beyond the bare runs, with the workers' wall time
    # counted once each (start-up, scenario building, transport, the table).
    print(f"{'engine':<44} {'wall s':>8} {'points/s':>9} {'overhead us/point':>18}")
    for name, workers, wall in rows:
        overhead = (wall * workers - floor) / points * 1e6
        print(f"{name:<44} {wall:8.2f} {points / wall:9.0f} {overhead:18.1f}")


if __name__ == "__main__":
    main()
