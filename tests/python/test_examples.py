"""Examples are tests: each Python example prints exactly its golden output, the same
lines the C++ example of the same name, where there is one, prints (checked by ctest);
step_simulator begins with the lines of the C++ step_system."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def golden(name: str) -> str:
    return (EXAMPLES / "golden" / f"{name}.txt").read_text()


def run_example(name: str, *args: str, cwd: Path | None = None) -> str:
    """What examples/python/NAME.py prints, run with ``args`` in ``cwd``."""
    return subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / f"{name}.py"), *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
    ).stdout


def is_png(path: Path) -> bool:
    return path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize(
    "name",
    [
        "nice_shares",
        "step_simulator",
        "build_scenario",
        "why_preempted",
        "perf_what_if",
        "other_work",
    ],
)
def test_example_matches_golden_output(name: str) -> None:
    out = run_example(name)
    assert out == golden(name)


def test_compare_seed000_prints_its_golden_tables_and_writes_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = run_example("compare_seed000", "seed000.png", cwd=tmp_path)
    assert out == golden("compare_seed000")
    assert is_png(tmp_path / "seed000.png")


def test_the_simulator_reads_what_the_cpp_system_reads() -> None:
    assert golden("step_simulator").startswith(golden("step_system"))


def test_nice_sweep_prints_its_golden_table_and_draws_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    out = run_example("nice_sweep", "nice.png", cwd=tmp_path)
    assert out == golden("nice_sweep")
    assert is_png(tmp_path / "nice.png")


def test_seed000_here_builds_simulates_and_draws_for_this_host(tmp_path: Path) -> None:
    # The machine is this host's, so the figures are too: check the table's rows and the
    # theory the weight table gives where both groups fit (2 CPUs or more).
    pytest.importorskip("matplotlib")
    out = run_example("seed000_here", "here.png", cwd=tmp_path)
    assert out.startswith("seed000-here: theory and simulated; ratios to b")
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines()[3:] if line}
    assert set(rows) == {("a", "share"), ("a", "ratio"), ("b", "share")}
    if len(os.sched_getaffinity(0)) >= 2:
        assert rows[("a", "ratio")][0] == f"{1024 / 110:.3f}"
    assert is_png(tmp_path / "here.png")


def test_cfs_vs_eevdf_prints_its_golden_table_and_draws_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    out = run_example("cfs_vs_eevdf", "p99.png", cwd=tmp_path)
    assert out == golden("cfs_vs_eevdf")
    assert is_png(tmp_path / "p99.png")
