"""libsched.simulate and libsched.Result: the JSON document typed, as NumPy arrays and as
pandas tables; a measured document on disk."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import libsched
from libsched import Result, Scenario
from libsched.results import EntrySummary, Provenance, TaskGroupResult, TaskResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PODS = EXAMPLES / "replays" / "k8s-pod-limits.toml"  # 3 repetitions, 6 tasks, quotas on 4 CPUs
PAIR = EXAMPLES / "replays" / "seed002-pair-0-5.toml"  # [measured] from a data file

THREE = Scenario(
    name="three",
    length="300ms",
    repetitions=3,
    seed=11,
    machine={"cpus": 2, "kernel": "6.12"},
    tasks=[{"name": "a", "count": 2}, {"name": "b", "nice": 5}],
    reference="b",
)


def fields_of(obj: Any, document: dict[str, Any]) -> dict[str, Any]:
    """A typed object as a dict, leaving out the optional fields its document lacks."""
    return {k: v for k, v in dataclasses.asdict(obj).items() if v is not None or k in document}


def test_simulate_gives_the_numbers_of_run() -> None:
    result = libsched.simulate(THREE, seed=5)
    document = libsched.run(THREE, seed=5)
    assert result.to_dict() == document
    assert result == Result.from_json(document)
    assert result.scenario == "three"
    assert result.window == libsched.results.Window(0, 300_000_000)
    assert result.reference == "b"
    assert result.interrupted is None and result.measured is None and result.error is None
    assert [rep.seed for rep in result.repetitions] == [5, 6, 7]
    for rep, rep_doc in zip(result.repetitions, document["repetitions"]):
        assert rep.events == rep_doc["model"]["events"]
        for task, task_doc in zip(rep.tasks, rep_doc["tasks"]):
            assert isinstance(task, TaskResult)
            assert dataclasses.asdict(task) == task_doc  # every key, typed
            assert task.model is not None
            assert sum(task.model.window_preempted_by.values()) == task.window_nivcsw
            assert sum(task.model.window_migrated_by.values()) == task.window_nr_migrations
        for cpu, cpu_doc in zip(rep.cpus, rep_doc["cpus"]):
            assert cpu.busy == cpu_doc["busy"] and cpu.irq == cpu_doc["model"]["irq"]
            assert cpu.balance == cpu_doc["balance"]
    for entry, entry_doc in zip(result.summary, document["summary"]):
        assert isinstance(entry, EntrySummary)
        assert fields_of(entry, entry_doc) == entry_doc
    assert isinstance(result.provenance, Provenance)
    assert fields_of(result.provenance, document["provenance"]) == document["provenance"]
    assert result.provenance.source == "simulated"
    assert result.provenance.scheduler == "eevdf"
    assert result.provenance.model is not None and result.provenance.model.seed == 5


def test_samples_per_entry_keep_the_entries_percentiles_and_the_tasks_statistics() -> None:
    sleepers = Scenario(
        name="sleepers",
        length="1s",
        machine={"cpus": 2},
        tasks=[
            {
                "name": "s",
                "count": 6,
                "behaviour": {
                    "type": "random",
                    "run": {"dist": "uniform", "low": "100us", "high": "1ms"},
                    "sleep": {"dist": "exponential", "mean": "2ms"},
                },
            },
            {"name": "b"},
        ],
    )
    per_task = libsched.simulate(sleepers)
    per_entry = libsched.simulate(sleepers.with_values({"latency_samples": "entry"}))
    assert per_entry.summary == per_task.summary
    latencies = per_entry.task_array("wakeup_latency.p99")
    assert np.isnan(latencies).all()
    for name in ("count", "mean", "max"):
        observable = f"wakeup_latency.{name}"
        np.testing.assert_array_equal(  # NaN for the burner, which never wakes
            per_entry.task_array(observable), per_task.task_array(observable)
        )
    assert per_task.summary[0].wakeup_latency is not None
    assert per_task.summary[0].wakeup_latency.p99 is not None
    assert per_task.summary[0].lateness is not None and per_task.summary[0].lateness.count == 0


def test_groups_and_measured_values_are_typed() -> None:
    result = libsched.simulate(PODS)
    document = result.to_dict()
    for rep, rep_doc in zip(result.repetitions, document["repetitions"]):
        for group, group_doc in zip(rep.task_groups, rep_doc["task_groups"]):
            assert isinstance(group, TaskGroupResult)
            assert fields_of(group, group_doc) == group_doc
    replay = libsched.simulate(PAIR)
    assert replay.measured is not None
    assert replay.measured.share == {"a": 0.75, "b": 0.25}  # the data file's 75 % : 25 %
    assert replay.measured.tolerance == {"share": 0.005, "ratio": 0.03, "jratio": None}
    assert replay.error is not None
    share_a = replay.summary[0].share
    assert replay.error["share"]["a"] == pytest.approx(100 * (share_a - 0.75))


def test_result_changes_leave_the_document_alone() -> None:
    result = libsched.simulate(THREE)
    result.repetitions[0].cpus[0].balance["lb_count"] = -1
    assert result.to_dict() == libsched.run(THREE)
    result.to_dict()["scenario"] = "changed"
    assert result.scenario == "three" and result.to_dict()["scenario"] == "three"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.scenario = "x"  # type: ignore[misc]


def test_task_array_is_repetitions_by_tasks() -> None:
    result = libsched.simulate(THREE)
    document = result.to_dict()
    assert result.task_names == ("a.0", "a.1", "b")
    share = result.task_array("share")
    assert share.shape == (3, 3)
    for r, rep in enumerate(document["repetitions"]):
        for i, task in enumerate(rep["tasks"]):
            assert share[r, i] == task["share"]
            assert (
                result.task_array("wakeup_latency.count")[r, i] == task["wakeup_latency"]["count"]
            )
    # share is the window's runtime over the window's length
    window = document["window"]
    runtime = result.task_array("window_runtime")
    assert runtime.dtype == np.int64
    np.testing.assert_allclose(share, runtime / (window["end"] - window["start"]))
    # on two CPUs the three tasks together have at most two CPUs
    assert (share.sum(axis=1) <= 2 + 1e-12).all()
    # no wakeups: the latency percentiles are NaN
    assert np.isnan(result.task_array("wakeup_latency.p99")).all()


def test_cpu_and_group_arrays() -> None:
    result = libsched.simulate(PODS)
    document = result.to_dict()
    reps = len(document["repetitions"])
    assert result.cpu_ids == (0, 1, 2, 3)
    busy = result.cpu_array("busy")
    assert busy.shape == (reps, 4)
    assert busy[1, 2] == document["repetitions"][1]["cpus"][2]["busy"]
    assert result.cpu_array("balance.lb_count").shape == (reps, 4)
    groups = [g["name"] for g in document["repetitions"][0]["task_groups"]]
    assert result.group_names == tuple(groups)
    throttled = result.group_array("bandwidth.cpu_stat.nr_throttled")
    assert throttled.shape == (reps, len(groups))
    pod = groups.index("kubepods/burstable/pod-a")  # the only group with a quota
    for r, rep in enumerate(document["repetitions"]):
        assert throttled[r, pod] == rep["task_groups"][pod]["bandwidth"]["cpu_stat"]["nr_throttled"]
    assert np.isnan(np.delete(throttled, pod, axis=1)).all()


def test_an_unknown_observable_names_the_known_ones() -> None:
    result = libsched.simulate(THREE)
    with pytest.raises(
        ValueError, match="no numeric tasks observable 'policy'; there are: .*share"
    ):
        result.task_array("policy")
    with pytest.raises(
        ValueError,
        match=r"no numeric cpus observable 'bussy' \(did you mean 'busy'\?\); there are: ",
    ):
        result.cpu_array("bussy")
    with pytest.raises(TypeError, match="observable must be a str"):
        result.task_array(1)  # type: ignore[arg-type]


def test_to_pandas_has_a_row_per_repetition_and_task() -> None:
    pytest.importorskip("pandas")
    result = libsched.simulate(PODS)
    tasks = result.to_pandas()
    reps = len(result.repetitions)
    assert len(tasks) == reps * len(result.task_names)
    assert list(tasks["repetition"]) == [r for r in range(reps) for _ in result.task_names]
    np.testing.assert_array_equal(
        tasks["share"].to_numpy().reshape(reps, -1), result.task_array("share")
    )
    np.testing.assert_array_equal(
        tasks["wakeup_latency.count"].to_numpy().reshape(reps, -1),
        result.task_array("wakeup_latency.count"),
    )
    cpus = result.to_pandas("cpus")
    assert len(cpus) == reps * 4
    np.testing.assert_array_equal(
        cpus["busy"].to_numpy().reshape(reps, -1), result.cpu_array("busy")
    )
    groups = result.to_pandas("groups")
    assert len(groups) == reps * len(result.group_names)
    assert list(groups["name"][: len(result.group_names)]) == list(result.group_names)
    summary = result.to_pandas("summary")
    assert list(summary["entry"]) == [e.entry for e in result.summary]
    assert list(summary["share"]) == [e.share for e in result.summary]
    with pytest.raises(ValueError, match="what must be one of tasks, cpus, groups, summary"):
        result.to_pandas("task")


def test_to_pandas_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match=r"pip install libsched\[pandas\]"):
        libsched.simulate(THREE).to_pandas()


def test_simulate_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="libsched.simulate: repetitions must be from 1"):
        libsched.simulate(THREE, repetitions=0)
    with pytest.raises(TypeError, match="libsched.simulate: seed must be an int or None"):
        libsched.simulate(THREE, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="libsched.simulate: scenario must be a path"):
        libsched.simulate(b"x.toml")
    with pytest.raises(libsched.ScenarioError, match="nope.toml: no such file"):
        libsched.simulate("nope.toml")


def test_warnings_point_at_the_caller() -> None:
    loud = THREE.with_values({"tasks.b.nice": 25})
    for function in (libsched.simulate, libsched.run):
        with pytest.warns(libsched.ScenarioWarning, match="tasks\\[1\\].nice: 25 clamped") as got:
            function(loud)
        assert [w.filename for w in got] == [__file__]


def test_a_result_file_loads(tmp_path: Path) -> None:
    document = libsched.run(PODS)
    file = tmp_path / "result.json"
    file.write_text(json.dumps(document))
    assert Result.from_json(file) == libsched.simulate(PODS)
    assert Result.from_json(str(file)).to_dict() == document
    file.write_text("[]")
    with pytest.raises(ValueError, match="holds a JSON list, not one result object"):
        Result.from_json(file)
    with pytest.raises(TypeError, match="source must be a path"):
        Result.from_json(3)  # type: ignore[arg-type]


def latency(count: int = 0) -> dict[str, Any]:
    keys = ("mean", "p50", "p90", "p99", "p99_9", "max")
    return {"count": count, **{k: None for k in keys}}


def measured_task(name: str, pid: int, window_runtime: int) -> dict[str, Any]:
    """A task as a measurement on a host reads it: no model figures."""
    return {
        "name": name,
        "entry": name,
        "pid": pid,
        "cpu": 0,
        "nice": 0,
        "nice_clamped": False,
        "policy": "normal",
        "rt_priority": 0,
        "sum_exec_runtime": window_runtime,
        "window_runtime": window_runtime,
        "share": window_runtime / 1e9,
        "stat_utime_start": 0,
        "stat_utime_end": window_runtime // 10_000_000,
        "stat_stime_start": 0,
        "stat_stime_end": 0,
        "stat_utime": window_runtime // 10_000_000,
        "stat_stime": 0,
        "ru_utime_us": window_runtime // 1000,
        "ru_stime_us": 0,
        "nvcsw": 0,
        "nivcsw": 40,
        "window_nvcsw": 0,
        "window_nivcsw": 40,
        "nr_migrations": 0,
        "window_nr_migrations": 0,
        "wakeup_latency": latency(),
        "lateness": latency(),
        "started": 0,
        "exited": None,
        "model": None,
    }


# A measured result written by hand: one repetition of two tasks on one CPU over 1 s.
MEASURED: dict[str, Any] = {
    "provenance": {
        "source": "measured",
        "kernel": "6.8.0",
        "scheduler": "eevdf",
        "hz": 250,
        "cpus": 1,
        "host_name": "box",
        "host_release": "6.8.0-45-generic",
        "model": None,
    },
    "scenario": "pair",
    "description": "",
    "window": {"start": 0, "end": 1_000_000_000},
    "reference": "b",
    "interrupted": None,
    "repetitions": [
        {
            "tasks": [measured_task("a", 100, 750_000_000), measured_task("b", 101, 250_000_000)],
            "cpus": [
                {
                    "cpu": 0,
                    "busy": 1_000_000_000,
                    "idle": 0,
                    "window_busy": 1_000_000_000,
                    "window_idle": 0,
                    "nr_switches": 80,
                    "balance": {},
                    "window_balance": {},
                    "model": None,
                }
            ],
            "task_groups": [],
            "model": None,
        }
    ],
    "summary": [],
}


def test_a_measured_document_has_no_model_figures(tmp_path: Path) -> None:
    file = tmp_path / "measured.json"
    file.write_text(json.dumps(MEASURED))
    result = Result.from_json(file)
    assert result == Result.from_json(MEASURED)
    assert result.to_dict() == MEASURED
    assert result.provenance.source == "measured"
    assert result.provenance.host_release == "6.8.0-45-generic"
    assert result.provenance.model is None and result.provenance.tunables is None
    rep = result.repetitions[0]
    assert rep.seed is None and rep.events is None
    assert rep.tasks[0].model is None and rep.cpus[0].irq is None
    assert result.task_names == ("a", "b")
    np.testing.assert_array_equal(result.task_array("share"), [[0.75, 0.25]])
    assert np.isnan(result.task_array("model.utime_ticks")).all()
    assert result.group_array("share").shape == (1, 0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["repetitions"][0]["tasks"][1].pop("share"),
            r"repetitions\[0\]\.tasks\[1\]\.share: missing",
        ),
        (lambda d: d["provenance"].update(kernel=None), r"provenance\.kernel: missing \(or null\)"),
        (lambda d: d.update(window=[0, 1]), r"window: expected an object, got list"),
        (lambda d: d.update(summary={}), r"summary: expected an array, got dict"),
    ],
)
def test_a_document_that_is_no_result_names_the_field(change: Any, message: str) -> None:
    document = json.loads(json.dumps(MEASURED))
    change(document)
    with pytest.raises(ValueError, match=message):
        Result.from_json(document)
