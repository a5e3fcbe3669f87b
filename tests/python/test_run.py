"""libsched.run and the CLI binding on small inline scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

import libsched
from libsched import _core

PAIR = """
name = "pair"
length = "200ms"
repetitions = 2
seed = 7

[machine]
cpus = 1
hz = 250
kernel = "6.6"

[[tasks]]
name = "a"
behaviour = "burner"

[[tasks]]
name = "b"
nice = 5
behaviour = "burner"
"""


def test_run_text_gives_the_result_document() -> None:
    result = libsched.run(PAIR)
    assert result["scenario"] == "pair"
    provenance = result["provenance"]
    assert provenance["source"] == "simulated"
    assert provenance["producer_version"] == libsched.__version__
    assert provenance["cpus"] == 1
    assert provenance["kernel"] == "6.6"
    assert provenance["model"]["seed"] == 7
    # repetition r runs with seed + r
    assert [rep["model"]["seed"] for rep in result["repetitions"]] == [7, 8]
    for repetition in result["repetitions"]:
        assert sorted(task["name"] for task in repetition["tasks"]) == ["a", "b"]
        assert [cpu["cpu"] for cpu in repetition["cpus"]] == [0]


def test_repetitions_and_seed_override_the_file() -> None:
    result = libsched.run(PAIR, repetitions=3, seed=100)
    assert [rep["model"]["seed"] for rep in result["repetitions"]] == [100, 101, 102]


def test_run_file_and_text_agree(tmp_path: Path) -> None:
    path = tmp_path / "pair.toml"
    path.write_text(PAIR)
    assert libsched.run(path) == libsched.run(PAIR)
    assert libsched.run(str(path), repetitions=1, seed=3) == libsched.run(
        PAIR, repetitions=1, seed=3
    )


def test_malformed_scenario_raises_scenario_error_naming_the_field() -> None:
    bad = PAIR.replace("nice = 5", 'nice = "high"')
    with pytest.raises(libsched.ScenarioError, match=r"tasks\[1\]\.nice") as info:
        libsched.run(bad)
    assert isinstance(info.value, ValueError)
    assert info.value.field == "tasks[1].nice"


def test_missing_file_raises_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(libsched.ScenarioError, match="missing.toml"):
        libsched.run(tmp_path / "missing.toml")


def test_repetitions_below_one_are_rejected_by_name() -> None:
    with pytest.raises(libsched.ScenarioError, match="repetitions"):
        libsched.run(PAIR, repetitions=0)


def test_cli_binding_writes_to_python_streams(capsys: pytest.CaptureFixture[str]) -> None:
    assert _core.run.cli_main(["weights"]) == 0
    out = capsys.readouterr().out
    assert "88761" in out and "1024" in out


def test_cli_binding_reports_bad_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(PAIR.replace("nice = 5", 'nice = "high"'))
    assert _core.run.cli_main(["check", str(path)]) != 0
    assert "tasks[1].nice" in capsys.readouterr().err
