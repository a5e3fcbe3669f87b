"""libsched.Scenario.from_rt_app: an rt-app workload file as the scenario written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from libsched import Scenario, ScenarioError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

WORKLOAD = """{
    "global": { "duration": 2, "calibration": 250 },
    "tasks": {
        "waker": { "run": 500, "resume": "sleeper", "sleep": 9500 },
        "sleeper": { "instance": 2, "priority": -5, "suspend": "sleeper", "run": 100 }
    }
}"""

EXPECTED = """
name = "workload"
description = "The rt-app workload workload.json"
length = "2s"

[[tasks]]
name = "waker"
behaviour = { type = "steps", loop = -1, steps = [
    { run = "500us" }, { resume = "sleeper" }, { sleep = "9.5ms" } ] }

[[tasks]]
name = "sleeper"
count = 2
nice = -5
behaviour = { type = "steps", loop = -1, steps = [ { suspend = true }, { run = "100us" } ] }
"""


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    path = tmp_path / "workload.json"
    path.write_text(WORKLOAD)
    return path


def test_the_file_converts_to_the_scenario_written_by_hand(workload: Path) -> None:
    sc = Scenario.from_rt_app(workload)
    assert sc.to_dict() == Scenario.from_text(EXPECTED).to_dict()
    assert sc.origin == str(workload)


def test_the_machine_comes_from_a_scenario_and_the_kernel_replaces_its_release(
    workload: Path, tmp_path: Path
) -> None:
    base = Scenario(machine={"cpus": 2, "kernel": "5.15", "hz": 1000}, tasks=[{"name": "x"}])
    sc = Scenario.from_rt_app(workload, machine=base, kernel="6.12")
    assert sc.get("machine") == {"cpus": 2, "kernel": "6.12", "hz": 1000}
    # A path works as well as a Scenario; a scenario without [machine] gives the defaults.
    (tmp_path / "base.toml").write_text('[machine]\ncpus = 4\n[[tasks]]\nname = "x"\n')
    assert Scenario.from_rt_app(workload, machine=tmp_path / "base.toml").get("machine") == {
        "cpus": 4
    }
    assert "machine" not in Scenario.from_rt_app(workload, machine=Scenario(tasks=[])).to_dict()


def test_the_bundled_example_converts_to_its_committed_scenario() -> None:
    folder = EXAMPLES / "rt-app"
    sc = Scenario.from_rt_app(folder / "periodic-and-burner.json")
    assert sc.to_dict() == Scenario.from_file(folder / "periodic-and-burner.toml").to_dict()


def test_a_feature_the_model_lacks_is_a_scenario_error_naming_its_path(tmp_path: Path) -> None:
    path = tmp_path / "locks.json"
    path.write_text(
        '{ "global": { "duration": 1 }, "tasks": { "t": { "phases": { "p1": '
        '{ "lock": "m", "run": 10, "unlock": "m" } } } } }'
    )
    with pytest.raises(ScenarioError) as error:
        Scenario.from_rt_app(path)
    assert error.value.field == "tasks.t.phases.p1.lock"
    assert 'rt-app event "lock" is not supported' in str(error.value)
    assert "tasks.t.phases.p1.unlock" in str(error.value)
    assert str(path) in str(error.value)


def test_bad_arguments_name_themselves(workload: Path, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="from_rt_app: path must be a str or os.PathLike"):
        Scenario.from_rt_app(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="from_rt_app: kernel must be a str"):
        Scenario.from_rt_app(workload, kernel=6.12)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Scenario.from_rt_app: scenario must be a path"):
        Scenario.from_rt_app(workload, machine=42)
    with pytest.raises(ScenarioError, match="kernel"):
        Scenario.from_rt_app(workload, kernel="six")
    with pytest.raises(ScenarioError, match="no such file"):
        Scenario.from_rt_app(tmp_path / "missing.json")
    with pytest.raises(ScenarioError, match="is a directory, not an rt-app file"):
        Scenario.from_rt_app(tmp_path)
