"""libsched.sweep: the grid and its table, the same table on every engine (this process,
local processes, a local Dask cluster), a bad point reported and skipped, resuming, the
sweep file and the command."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import libsched
from libsched.sweep import axis_values, grid_values, point_seed

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# weight(nice) from the kernel's table, for the theory by hand.
WEIGHT = {-2: 1586, -1: 1277, 0: 1024, 1: 820, 2: 655, 5: 335}


def pair(length: str = "400ms") -> libsched.Scenario:
    return libsched.Scenario(
        length=length,
        reference="a",
        machine={"kernel": "6.6", "cpus": 1},
        tasks=[{"name": "a"}, {"name": "b"}],
    )


AXES = {"tasks.b.nice": [-2, 0, 2], "machine.kernel": ["5.15", "6.6"]}


def test_one_row_per_point_and_repetition_with_the_axes_and_the_figures() -> None:
    result = libsched.sweep(pair(), AXES, repetitions=2, jobs=1, progress=False)
    assert len(result) == 3 * 2 * 2 and not result.failures
    frame = result.to_pandas()
    assert list(frame.columns[:5]) == [
        "point",
        "tasks.b.nice",
        "machine.kernel",
        "repetition",
        "seed",
    ]
    # The last axis counts fastest, as itertools.product does.
    assert list(frame["machine.kernel"][:4]) == ["5.15", "5.15", "6.6", "6.6"]
    assert list(frame["tasks.b.nice"][::4]) == [-2, 0, 2]
    for row in result.rows:
        nice = row["tasks.b.nice"]
        theory = WEIGHT[nice] / (1024 + WEIGHT[nice])
        assert row["b.theory_share"] == pytest.approx(theory, abs=1e-9)
        assert row["b.theory_ratio"] == pytest.approx(WEIGHT[nice] / 1024, abs=1e-9)
        # Two burners on one CPU: the simulated split is the theory's within a tick of 400 ms.
        assert row["b.share"] == pytest.approx(theory, abs=0.02)
        assert row["a.share"] + row["b.share"] == pytest.approx(1.0, abs=1e-3)


def test_each_point_runs_as_a_scenario_of_its_own_with_a_seed_of_its_values() -> None:
    result = libsched.sweep(
        pair(), {"tasks.b.nice": [5]}, repetitions=2, seed=7, jobs=1, progress=False
    )
    for row in result.rows:
        assert row["seed"] == point_seed(7, (5,), row["repetition"])
        alone = libsched.run(
            pair().with_values({"tasks.b.nice": 5}), repetitions=1, seed=row["seed"]
        )
        assert row["b.share"] == alone["summary"][1]["share"]
    assert result.rows[0]["seed"] != result.rows[1]["seed"]


def test_a_point_gives_the_same_row_in_any_grid() -> None:
    # Its seed depends on its values only, not on its place or on the other points.
    small = libsched.sweep(pair(), {"tasks.b.nice": [2]}, jobs=1, progress=False)
    big = libsched.sweep(pair(), {"tasks.b.nice": [-2, 0, 2]}, jobs=1, progress=False)
    assert {k: v for k, v in small.rows[0].items() if k != "point"} == {
        k: v for k, v in big.rows[2].items() if k != "point"
    }


def test_local_processes_give_the_table_of_one_process() -> None:
    one = libsched.sweep(pair(), AXES, repetitions=2, jobs=1, progress=False)
    two = libsched.sweep(pair(), AXES, repetitions=2, jobs=2, batch_size=3, progress=False)
    assert two.rows == one.rows


def test_a_local_dask_cluster_gives_the_table_of_one_process() -> None:
    distributed = pytest.importorskip("distributed")
    one = libsched.sweep(pair(), AXES, jobs=1, progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = libsched.sweep(pair(), AXES, client=client, batch_size=2, progress=False)
    assert on_dask.rows == one.rows


def test_a_bad_point_is_reported_with_its_values_and_the_others_run() -> None:
    with pytest.warns(RuntimeWarning, match=r"tasks\.b\.nice = 42.*nice"):
        result = libsched.sweep(pair(), {"tasks.b.nice": [0, 42, 1]}, jobs=1, progress=False)
    assert [row["tasks.b.nice"] for row in result.rows] == [0, 1]
    (failure,) = result.failures
    assert failure.point == 1 and failure.values == {"tasks.b.nice": 42}
    assert "tasks[1].nice" in failure.error


def test_an_axis_that_names_nothing_stops_the_sweep_before_it_runs() -> None:
    with pytest.raises(KeyError, match="tasks.c"):
        libsched.sweep(pair(), {"tasks.c.nice": [1]}, jobs=1, progress=False)


def test_an_unknown_figure_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no figure 'shares'.*share"):
        libsched.sweep(pair(), {"tasks.b.nice": [1]}, figures=["shares"], jobs=1, progress=False)


def test_latency_figures_by_their_dotted_names() -> None:
    sc = libsched.Scenario(
        length="300ms",
        machine={"kernel": "6.6", "cpus": 1},
        tasks=[
            {"name": "hog"},
            {"name": "p", "behaviour": {"type": "periodic", "run": "1ms", "period": "10ms"}},
        ],
    )
    result = libsched.sweep(
        sc,
        {"machine.kernel": ["5.15", "6.6"]},
        figures=["wakeup_latency.p99", "wakeup_latency.count"],
        jobs=1,
        progress=False,
    )
    for row in result.rows:
        assert row["p.wakeup_latency.count"] > 20
        assert row["p.wakeup_latency.p99"] > 0
        assert row["hog.wakeup_latency.p99"] is None  # a burner never sleeps


def test_axis_values() -> None:
    assert axis_values("x", {"from": -2, "to": 2}) == [-2, -1, 0, 1, 2]
    assert axis_values("x", {"from": 1, "to": 2, "step": 0.5}) == [1, 1.5, 2]
    assert axis_values("x", range(3)) == [0, 1, 2]
    with pytest.raises(ValueError, match="never reaches"):
        axis_values("x", {"from": 0, "to": 2, "step": -1})
    with pytest.raises(TypeError, match="axis x"):
        axis_values("x", "5.15")
    assert grid_values([[1, 2], ["a", "b", "c"]], 4) == (2, "b")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_resuming_runs_only_the_points_not_in_the_table(tmp_path: Path, suffix: str) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"table{suffix}"
    axes = {"tasks.b.nice": [0, 1], "machine.kernel": ["5.15", "6.10"]}
    full = libsched.sweep(pair(), axes, jobs=1, progress=False)
    part = libsched.sweep(
        pair(), {"tasks.b.nice": [1], "machine.kernel": ["6.10"]}, jobs=1, out=out, progress=False
    )
    assert len(part) == 1
    resumed = libsched.sweep(pair(), axes, jobs=1, out=out, resume=True, progress=False)
    assert resumed.to_pandas().equals(full.to_pandas())  # "6.10" came back as text
    assert len(libsched.sweep(pair(), axes, jobs=1, out=out, resume=True, progress=False)) == 4


def test_xarray_has_the_axes_as_dimensions() -> None:
    pytest.importorskip("xarray")
    data = libsched.sweep(pair(), AXES, repetitions=2, jobs=1, progress=False).to_xarray()
    assert dict(data.sizes) == {"tasks.b.nice": 3, "machine.kernel": 2, "repetition": 2}
    assert "b.share" in data


def test_the_progress_bar_shows_runs_done(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    libsched.sweep(pair(), {"tasks.b.nice": [0, 1, 2]}, jobs=1, progress=True)
    assert "3/3" in capsys.readouterr().err


SWEEP_FILE = """\
length = "300ms"
reference = "a"
[machine]
cpus = 1
[[tasks]]
name = "a"
[[tasks]]
name = "b"
[sweep]
repetitions = 1
figures = ["share", "theory_share"]
[sweep.axes]
"tasks.b.nice" = { from = 0, to = 2 }
"machine.kernel" = ["5.15", "6.18"]
"""


def test_a_sweep_file_runs_as_the_call_does(tmp_path: Path) -> None:
    path = tmp_path / "nice.toml"
    path.write_text(SWEEP_FILE)
    scenario, options = libsched.load_sweep(path)
    assert "sweep" not in scenario.to_dict()
    assert options["axes"]["tasks.b.nice"] == {"from": 0, "to": 2}
    from_file = libsched.sweep(scenario, jobs=1, progress=False, **options)
    axes = {"machine.kernel": ["5.15", "6.18"], "tasks.b.nice": [0, 1, 2]}  # paths sorted
    by_call = libsched.sweep(
        pair("300ms").with_values({"machine": {"cpus": 1}}),
        axes,
        jobs=1,
        progress=False,
        figures=["share", "theory_share"],
    )
    assert [r["b.share"] for r in from_file.rows] == [r["b.share"] for r in by_call.rows]


def test_the_command_writes_the_table_and_reports_a_bad_point(tmp_path: Path) -> None:
    path = tmp_path / "nice.toml"
    path.write_text(SWEEP_FILE.replace("{ from = 0, to = 2 }", "[0, 99]"))
    out = tmp_path / "table.csv"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "libsched",
            "sweep",
            str(path),
            "--jobs",
            "1",
            "--out",
            str(out),
            "-q",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "tasks.b.nice = 99" in done.stderr
    assert "2 rows written" in done.stdout
    assert len(out.read_text().splitlines()) == 1 + 2


def test_a_file_without_a_sweep_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text(textwrap.dedent(SWEEP_FILE.split("[sweep]")[0]))
    with pytest.raises(ValueError, match="no \\[sweep\\] table"):
        libsched.load_sweep(path)


def test_the_cpu_max_sweep_holds_the_batch_group_to_its_quota() -> None:
    scenario, options = libsched.load_sweep(EXAMPLES / "sweeps" / "cpu-max.toml")
    result = libsched.sweep(scenario, jobs=1, progress=False, **options)
    assert len(result) == 7 * 2 and not result.failures
    for row in result.rows:
        quota = int(row["cgroups.batch.quota"].removesuffix("ms")) / 100  # CPUs per period
        # At most the quota (within a tick of the 2.5 s window) and at most what the API
        # leaves of the two cores.
        assert row["b.share"] <= min(quota, 2 - row["api.share"]) + 0.004 * 2 / 2.5


def test_the_nice_ladder_file_gives_one_table_on_local_processes_and_on_dask() -> None:
    distributed = pytest.importorskip("distributed")
    scenario, options = libsched.load_sweep(EXAMPLES / "sweeps" / "nice-ladder.toml")
    local = libsched.sweep(scenario, jobs=2, progress=False, **options)
    assert len(local) == 3 * 40 and not local.failures
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = libsched.sweep(scenario, client=client, progress=False, **options)
    assert on_dask.rows == local.rows
