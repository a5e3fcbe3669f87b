"""libsched.run (a file), libsched.run_text (TOML text) and the CLI binding on small scenarios."""

from __future__ import annotations

import signal
import subprocess
import sys
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
    result = libsched.run_text(PAIR)
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


def test_counters_sum_the_tasks_and_one_cpu_does_not_balance() -> None:
    result = libsched.run_text(PAIR)
    for repetition in result["repetitions"]:
        tasks = repetition["tasks"]
        perf = repetition["perf_stat"]
        assert perf["run"]["context_switches"] == sum(t["nvcsw"] + t["nivcsw"] for t in tasks)
        assert perf["window"]["context_switches"] == sum(
            t["window_nvcsw"] + t["window_nivcsw"] for t in tasks
        )
        assert perf["run"]["cpu_migrations"] == sum(t["nr_migrations"] for t in tasks)
        clock_ms = sum(t["window_runtime"] for t in tasks) / 1e6
        assert perf["window"]["task_clock_ms"] == pytest.approx(clock_ms)
        window = result["window"]
        assert perf["window"]["cpus_utilized"] == pytest.approx(
            clock_ms / ((window["end"] - window["start"]) / 1e6)
        )
        for cpu in repetition["cpus"]:
            assert set(cpu["balance"]) == {
                "lb_count",
                "lb_failed",
                "lb_gained",
                "alb_pushed",
                "newidle",
                "nohz_kicks",
            }
            assert all(v == 0 for v in cpu["balance"].values())
            assert all(v == 0 for v in cpu["window_balance"].values())
    assert set(result["perf_stat"]) == {"window", "run"}


def test_repetitions_and_seed_override_the_file() -> None:
    result = libsched.run_text(PAIR, repetitions=3, seed=100)
    assert [rep["model"]["seed"] for rep in result["repetitions"]] == [100, 101, 102]


def test_a_drawn_start_differs_between_repetitions_and_not_between_runs() -> None:
    # A periodic task starting at a uniform point of the first tick period: each
    # repetition forks it elsewhere in [0, 4 ms), the same seed at the same point.
    text = PAIR.replace(
        'name = "b"\nnice = 5\nbehaviour = "burner"',
        'name = "b"\nstart = { dist = "uniform", low = "0ms", high = "3999us" }\n'
        'behaviour = { type = "periodic", run = "1ms", period = "10ms" }',
    )
    assert text != PAIR
    starts = [
        next(t["started"] for t in rep["tasks"] if t["name"] == "b")
        for rep in libsched.run_text(text, repetitions=8)["repetitions"]
    ]
    assert all(0 <= s < 4_000_000 for s in starts)
    assert len(set(starts)) == 8
    again = libsched.run_text(text, repetitions=8)["repetitions"]
    assert starts == [next(t["started"] for t in rep["tasks"] if t["name"] == "b") for rep in again]


def test_run_file_and_text_agree(tmp_path: Path) -> None:
    path = tmp_path / "pair.toml"
    path.write_text(PAIR)
    assert libsched.run(path) == libsched.run_text(PAIR)
    assert libsched.run(str(path), repetitions=1, seed=3) == libsched.run_text(
        PAIR, repetitions=1, seed=3
    )


def test_a_str_is_always_a_path_even_with_an_equals_sign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "nice=5.toml").write_text(PAIR)
    monkeypatch.chdir(tmp_path)  # a relative path is resolved against the current directory
    assert libsched.run("runs/nice=5.toml") == libsched.run_text(PAIR)


def test_toml_text_given_to_run_is_taken_for_a_path() -> None:
    with pytest.raises(libsched.ScenarioError, match="no such file"):
        libsched.run(PAIR)


def test_an_empty_path_is_named_in_the_error() -> None:
    with pytest.raises(libsched.ScenarioError, match='^"" is an empty path, not a scenario file$'):
        libsched.run("")


def test_run_rejects_what_is_not_a_path() -> None:
    with pytest.raises(TypeError):
        libsched.run(42)  # type: ignore[arg-type]


def test_malformed_scenario_raises_scenario_error_naming_the_field() -> None:
    bad = PAIR.replace("nice = 5", 'nice = "high"')
    with pytest.raises(libsched.ScenarioError, match=r"tasks\[1\]\.nice") as info:
        libsched.run_text(bad)
    assert isinstance(info.value, ValueError)
    assert info.value.field == "tasks[1].nice"
    assert info.value.origin == "<string>"


def test_every_error_is_in_the_message_the_first_in_field() -> None:
    bad = PAIR.replace("nice = 5", "nice = 42").replace("hz = 250", "hz = 123")
    with pytest.raises(libsched.ScenarioError) as info:
        libsched.run_text(bad)
    assert info.value.field == "machine.hz"
    lines = str(info.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == ["machine.hz", "tasks[1].nice"]


def test_missing_file_raises_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(libsched.ScenarioError, match="missing.toml"):
        libsched.run(tmp_path / "missing.toml")


def test_repetitions_below_one_are_rejected_by_name() -> None:
    with pytest.raises(ValueError, match="repetitions must be from 1 to 10000, got 0"):
        libsched.run_text(PAIR, repetitions=0)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (
            {"seed": -1},
            ValueError,
            r"libsched.run_text: seed must be from 0 to 2\*\*64 - 1, got -1",
        ),
        ({"seed": 2**64}, ValueError, "seed must be from 0 to"),
        ({"repetitions": 10**20}, ValueError, "repetitions must be from 1 to 10000"),
        ({"repetitions": True}, TypeError, "repetitions must be an int or None, not bool"),
        ({"seed": 1.5}, TypeError, "seed must be an int or None, not float"),
    ],
)
def test_bad_arguments_are_named_in_the_packages_words(
    arguments: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        libsched.run_text(PAIR, **arguments)  # type: ignore[arg-type]


def test_run_text_rejects_what_is_not_text() -> None:
    with pytest.raises(TypeError, match="toml must be a str, not bytes"):
        libsched.run_text(PAIR.encode())  # type: ignore[arg-type]


def test_validation_warnings_become_python_warnings() -> None:
    clamped = PAIR.replace("nice = 5", "nice = 25")
    with pytest.warns(libsched.ScenarioWarning, match=r"tasks\[1\]\.nice") as record:
        result = libsched.run_text(clamped)
    assert len(record) == 1
    assert result["repetitions"][0]["tasks"][1]["nice_clamped"]


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


def test_the_command_ends_quietly_when_its_reader_goes(tmp_path: Path) -> None:
    # `libsched run ... | head`: the write into the closed pipe ends the tool as it does a
    # C tool, without an abort or a traceback.
    path = tmp_path / "pair.toml"
    path.write_text(PAIR)
    with subprocess.Popen(
        [sys.executable, "-m", "libsched", "run", "--timehist", "--reps", "20", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as p:
        assert p.stdout is not None and p.stderr is not None
        assert p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode()
        status = p.wait(timeout=120)
    assert "terminate" not in err and "Traceback" not in err, err
    assert status in (0, -signal.SIGPIPE)


@pytest.mark.parametrize(
    ("kernel", "preempt", "effective"),
    [("6.6", "", "none"), ("7.0", "", "lazy"), ("7.0", 'preempt = "full"', "full")],
)
def test_the_preemption_model_is_the_releases_unless_set(
    kernel: str, preempt: str, effective: str
) -> None:
    text = PAIR.replace('kernel = "6.6"', f'kernel = "{kernel}"\n{preempt}')
    assert libsched.run_text(text)["provenance"]["preempt"] == effective
