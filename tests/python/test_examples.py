"""Examples are tests: each Python example prints exactly its golden output, the same
lines the C++ example of the same name prints where there is one (checked by ctest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["nice_shares", "build_scenario"])
def test_example_matches_golden_output(name: str) -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / f"{name}.py")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out == (EXAMPLES / "golden" / f"{name}.txt").read_text()
