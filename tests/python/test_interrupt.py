"""Ctrl-C during a long run: ``libsched.run_text`` raises KeyboardInterrupt, and the
command line (``python -m libsched run``) stops with what finished, exit status 130."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

# Far longer than any test waits: only the SIGINT ends it.
ENDLESS = """
name = "endless"
length = "100000s"
[[tasks]]
name = "b"
count = 2
"""

# Says "ready" just before the run, then runs; a KeyboardInterrupt prints "interrupted".
RUNNER = textwrap.dedent(
    f"""
    import sys
    import libsched
    print("ready", flush=True)
    try:
        libsched.run_text({ENDLESS!r})
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(3)
    """
)


def _interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    # Generous: the process only has to notice the signal, but a loaded machine is slow.
    out, err = process.communicate(timeout=120)
    return out, err


def test_ctrl_c_raises_keyboard_interrupt_in_python() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
        # The handler is set up inside run_text: wait until the model is running.
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        out, err = _interrupt(process)
    assert out == "interrupted\n", err
    assert process.returncode == 3


def test_ctrl_c_stops_the_command_line_with_what_finished(tmp_path: Path) -> None:
    scenario = tmp_path / "endless.toml"
    scenario.write_text(ENDLESS)
    with subprocess.Popen(
        [sys.executable, "-m", "libsched", "run", "--json", str(scenario)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stderr is not None
        # The first progress line comes a second into the run.
        assert "repetition 1 of 1" in process.stderr.readline()
        process.send_signal(signal.SIGINT)
        out, err = _interrupt(process)
    assert process.returncode == 130, err
    assert "interrupted; the results are of the repetitions that finished" in err
    assert '"interrupted": {' in out
