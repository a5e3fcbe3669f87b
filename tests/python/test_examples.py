"""Examples are tests: each Python example prints exactly its golden output, the same
lines the C++ example of the same name, where there is one, prints (checked by ctest);
step_simulator begins with the lines of the C++ step_system."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def golden(name: str) -> str:
    return (EXAMPLES / "golden" / f"{name}.txt").read_text()


@pytest.mark.parametrize("name", ["nice_shares", "step_simulator", "build_scenario"])
def test_example_matches_golden_output(name: str) -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / f"{name}.py")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out == golden(name)


def test_compare_seed000_prints_its_golden_tables_and_writes_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / "compare_seed000.py"), "seed000.png"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert out == (EXAMPLES / "golden" / "compare_seed000.txt").read_text()
    assert (tmp_path / "seed000.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_simulator_reads_what_the_cpp_system_reads() -> None:
    assert golden("step_simulator").startswith(golden("step_system"))


def test_nice_sweep_prints_its_golden_table_and_draws_the_figure(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / "nice_sweep.py"), "nice.png"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert out == golden("nice_sweep")
    assert (tmp_path / "nice.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
