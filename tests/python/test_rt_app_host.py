"""tools/host-measure/rt_app_host.py: the same rt-app file on this host (Debian's rt-app) and
in the model (docs/validation.md). The host run needs rt-app and root and skips without
them; it checks what holds on any host, busy or not, not the host's figures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "host-measure" / "rt_app_host.py"
PERIODIC = ROOT / "examples" / "rt-app" / "periodic-and-burner.json"


def tool(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_without_rt_app_the_tool_says_so_and_does_nothing(tmp_path: Path) -> None:
    done = tool(str(PERIODIC), env={"PATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "rt_app_host: skipped: rt-app is not installed (Debian: apt-get install rt-app)"
    )


@pytest.mark.skipif(shutil.which("rt-app") is None, reason="rt-app is not installed")
@pytest.mark.skipif(os.geteuid() != 0, reason="rt-app's placement needs root")
def test_the_file_runs_on_the_host_and_in_the_model_and_nothing_is_left(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "out.json"
    done = tool(
        str(PERIODIC), "--repetitions", "1", "--quiet-wait", "0", "--json", str(out),
        env={"TMPDIR": str(scratch)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not any(scratch.iterdir())  # rt-app's directory and logs are removed
    (result,) = json.loads(out.read_text())
    (run,) = result["runs"]
    # The window, read off rt-app's log, leaves out 0.5 s at each end of the 5 s run.
    start, end = run["window"]
    assert 0.5e9 <= start < end <= 4.5e9
    # rt-app's log is the file's: each loop runs 2 ms of work on a 10 ms timer.
    rows = run["tasks"]["periodic"]["log"]
    assert rows
    assert {(r["c_duration"], r["c_period"]) for r in rows} == {(2000, 10_000)}
    host, model = result["host"], result["model"]
    for side in (host, model):
        periodic = side["periodic"]
        assert periodic["wakeups"] + periodic["overruns"] == periodic["loops"]
    # Both tasks are pinned to CPU 0: on the host they share at most that CPU; in the model
    # they fill it, and the periodic task gets at most its 2 ms a period, plus one burst
    # that began before the window.
    assert host["periodic"]["share"] + host["burner"]["share"] <= 1.01
    assert model["periodic"]["share"] + model["burner"]["share"] == pytest.approx(1, abs=0.01)
    assert model["periodic"]["share"] <= 0.2 + 2e6 / (end - start)
