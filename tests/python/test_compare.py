"""libsched.compare, the measured-data loaders, ``libsched compare`` and libsched.plot."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import libsched
from libsched import _core

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "examples" / "replays"
PAIR_0_5 = REPLAYS / "seed002-pair-0-5.toml"
SEED000_N10 = REPLAYS / "seed000-5.15-n10.toml"
SLEEPER = ROOT / "examples" / "scenarios" / "sleeper-vs-hog.toml"
PNG = b"\x89PNG\r\n\x1a\n"

# Two nice-0 tasks of one entry beside a nice-5 task on one CPU, three repetitions.
TRIO = """
name = "trio"
length = "1s"
window = ["200ms", "1s"]
repetitions = 3
reference = "b"

[machine]
cpus = 1
hz = 250
kernel = "6.8"

[[tasks]]
name = "a"
count = 2

[[tasks]]
name = "b"
nice = 5
"""


@pytest.fixture
def trio(tmp_path: Path) -> Path:
    path = tmp_path / "trio.toml"
    path.write_text(TRIO)
    return path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def libsched_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "libsched", *args], cwd=cwd, capture_output=True, text=True
    )


# --- theory, simulated, errors ------------------------------------------------------------


def test_theory_is_the_weight_tables_split() -> None:
    # nice 0 and nice 5 weigh 1024 and 335 (sched_prio_to_weight)
    c = libsched.compare(PAIR_0_5)
    assert c.row("a", "share").theory == pytest.approx(1024 / 1359, abs=1e-12)
    assert c.row("b", "share").theory == pytest.approx(335 / 1359, abs=1e-12)
    assert c.row("a", "ratio").theory == pytest.approx(1024 / 335, abs=1e-12)
    assert round(c.row("a", "share").theory, 4) == 0.7535  # type: ignore[arg-type]
    assert round(c.row("b", "share").theory, 4) == 0.2465  # type: ignore[arg-type]


def test_an_entrys_theory_sums_its_tasks(trio: Path) -> None:
    c = libsched.compare(trio)
    assert c.row("a", "share").theory == pytest.approx(2048 / 2383, abs=1e-12)
    assert c.row("b", "share").theory == pytest.approx(335 / 2383, abs=1e-12)
    assert c.row("a", "ratio").theory == pytest.approx(2048 / 335, abs=1e-12)


# A task that exits inside the window, one whose single pass ends in it, and one that waits
# on a pipe another task writes.
SHORT_LIVED_OR_WAITING = [
    'lifetime = "500ms"',
    'behaviour = { type = "steps", loop = 1, steps = [{ run = "1ms" }, { sleep = "3ms" }] }',
    'behaviour = { type = "steps", steps = [{ run = "1ms" }, { pipe_read = "p" }] }\n'
    '[[tasks]]\nname = "w"\n'
    'behaviour = { type = "steps", steps = [{ pipe_write = "p" }, { sleep = "9ms" }] }',
]


@pytest.mark.parametrize("task", SHORT_LIVED_OR_WAITING)
def test_no_theory_where_the_summary_has_none(tmp_path: Path, task: str) -> None:
    # The fluid split of tasks alive throughout says nothing of such a window: no theory,
    # in compare as in the run's summary.
    path = write(tmp_path, "short.toml", TRIO + f'\n[[tasks]]\nname = "c"\n{task}\n')
    c = libsched.compare(path)
    assert all(row["theory_share"] is None for row in libsched.run(path)["summary"])
    assert all(r.theory is None and r.theory_error is None for r in c.rows)
    assert c.row("a", "share").simulated is not None


def test_simulated_column_is_the_runs_summary() -> None:
    c = libsched.compare(PAIR_0_5)
    summary = {row["entry"]: row for row in libsched.run(PAIR_0_5)["summary"]}
    assert [(r.entry, r.quantity) for r in c.rows] == [
        ("a", "share"),
        ("a", "ratio"),
        ("b", "share"),
    ]
    for r in c.rows:
        assert r.simulated == summary[r.entry][r.quantity]


def test_errors_are_pp_for_shares_and_percent_for_ratios() -> None:
    c = libsched.compare(PAIR_0_5)
    document = libsched.run(PAIR_0_5)
    share, ratio = c.row("a", "share"), c.row("a", "ratio")
    assert (share.measured, ratio.measured) == (0.75, 3.0)
    assert share.error_unit == "pp" and ratio.error_unit == "%"
    assert share.error == pytest.approx((share.simulated - 0.75) * 100)  # type: ignore[operator]
    assert share.theory_error == pytest.approx((1024 / 1359 - 0.75) * 100)
    assert ratio.theory_error == pytest.approx((1024 / 335 - 3.0) / 3.0 * 100)
    # the same numbers the C++ side puts in the document
    for quantity in ("share", "ratio"):
        for entry, error in document["error"][quantity].items():
            assert c.row(entry, quantity).error == pytest.approx(error, abs=1e-12)


def test_a_two_group_figure_compares_its_ratios() -> None:
    c = libsched.compare(SEED000_N10)
    document = libsched.run(SEED000_N10)
    groups = document["groups"]
    assert c.reference == "b"
    getrusage, jiffies = c.row("a", "ru_ratio"), c.row("a", "jratio")
    assert (getrusage.measured, jiffies.measured) == (9.231, 9.487)  # the source's medians
    assert getrusage.simulated == groups["simulated"]["ratio"]
    assert jiffies.simulated == groups["simulated"]["jratio"]
    # 2 tasks of 1024 and 2 of 110 on 2 CPUs: neither reaches a whole CPU, so 1024 / 110
    assert getrusage.theory == pytest.approx(1024 / 110, abs=1e-9) == groups["theory"]
    assert getrusage.error == pytest.approx(document["error"]["ratio"]["a/b"], abs=1e-12)
    assert jiffies.error == pytest.approx(document["error"]["jratio"]["a/b"], abs=1e-12)
    assert c.unmeasured == ()  # b is the reference of the ratios


def test_without_measurements_theory_and_simulated_only(trio: Path) -> None:
    c = libsched.compare(trio)
    assert c.measured_source is None and c.unmeasured == () and c.unmatched == ()
    assert all(r.measured is None and r.error is None for r in c.rows)
    assert "measured" not in c.table()


def test_repetitions_and_seed_reach_the_run(trio: Path) -> None:
    c = libsched.compare(trio, repetitions=1, seed=5)
    assert len(c.result["repetitions"]) == 1
    assert c.result["provenance"]["model"]["seed"] == 5
    with pytest.raises(ValueError, match="repetitions"):
        libsched.compare(trio, repetitions=0)


def test_the_same_scenario_and_seed_compare_the_same(trio: Path) -> None:
    assert libsched.compare(trio).rows == libsched.compare(trio).rows


def test_table_dict_and_pandas_hold_the_rows() -> None:
    c = libsched.compare(PAIR_0_5)
    table = c.table()
    assert "75.35 %" in table and "75.00 %" in table and "+0.35 pp" in table
    assert f"{100 * c.row('a', 'share').simulated:.2f} %" in table  # type: ignore[operator]
    d = json.loads(json.dumps(c.to_dict()))
    assert d["scenario"] == "seed002-pair-0-5" and d["reference"] == "b"
    assert [r["quantity"] for r in d["rows"]] == ["share", "ratio", "share"]
    assert d["rows"][0]["theory"] == c.row("a", "share").theory
    frame = c.to_pandas()
    assert list(frame["entry"]) == ["a", "a", "b"]
    assert frame.loc[1, "measured"] == 3.0


def test_to_pandas_names_the_extra_when_pandas_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    c = libsched.compare(PAIR_0_5)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"libsched\[pandas\]"):
        c.to_pandas()


# --- loaders --------------------------------------------------------------------------------


def test_the_scenarios_own_measured_figures() -> None:
    m = libsched.Measurements.from_replay(libsched.run(PAIR_0_5))
    assert m is not None
    assert m.values == {
        ("a", None, "share"): 0.75,
        ("b", None, "share"): 0.25,
        ("a", None, "ratio"): 3.0,
    }
    assert m.reference == "b"
    assert libsched.Measurements.from_replay(libsched.run(SLEEPER)) is None


def measured_document(path: Path, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """A run's document dressed as a measurement, written to a file."""
    document = libsched.run(path)
    document["provenance"]["source"] = "measured"
    document["provenance"]["host_name"] = "box"
    file = tmp_path / "measured.json"
    file.write_text(json.dumps(document))
    return document, file


def test_a_result_document_per_entry_and_per_task(trio: Path, tmp_path: Path) -> None:
    document, file = measured_document(trio, tmp_path)
    m = libsched.read_measurements(file)
    assert m.reference == "b" and m.source == str(file)
    summary = {row["entry"]: row for row in document["summary"]}
    for entry in ("a", "b"):
        for quantity in (
            "share",
            "jiffies",
            "nvcsw_per_s",
            "nivcsw_per_s",
            "migrations_per_s",
            "ru_utime_ms",
        ):
            assert m.values[(entry, None, quantity)] == summary[entry][quantity]
    assert m.values[("a", None, "ratio")] == summary["a"]["ratio"]
    window_s = 0.8
    for task in ("a.0", "a.1"):
        runs = [t for rep in document["repetitions"] for t in rep["tasks"] if t["name"] == task]
        assert len(runs) == 3
        assert m.values[("a", task, "share")] == statistics.median(t["share"] for t in runs)
        assert m.values[("a", task, "nivcsw_per_s")] == pytest.approx(
            statistics.median(t["window_nivcsw"] / window_s for t in runs)
        )
        assert m.values[("a", task, "migrations_per_s")] == pytest.approx(
            statistics.median(t["window_nr_migrations"] / window_s for t in runs)
        )
    assert ("b", "b", "share") not in m.values  # an entry of one task has no task rows
    assert "measured run of trio on box" in libsched.Measurements.from_document(document).source


def test_a_measurement_equal_to_the_simulation_has_no_error(trio: Path, tmp_path: Path) -> None:
    document, file = measured_document(trio, tmp_path)
    for measured in (file, document, libsched.Measurements.from_document(document)):
        c = libsched.compare(trio, measured=measured)
        measured_rows = [r for r in c.rows if r.measured is not None]
        assert {(r.entry, r.task) for r in measured_rows} >= {
            ("a", None),
            ("a", "a.0"),
            ("a", "a.1"),
        }
        # (an error of a quantity measured as 0 has no percent: None)
        assert all(r.error == 0 or (r.measured == 0 and r.error is None) for r in measured_rows)
        assert not any(
            r.entry == "b" and r.quantity in {"ratio", "jratio", "ru_ratio"} for r in c.rows
        )


def test_an_object_with_to_dict_is_a_document(trio: Path, tmp_path: Path) -> None:
    document, _ = measured_document(trio, tmp_path)

    class Result:
        def to_dict(self) -> dict[str, Any]:
            return document

    c = libsched.compare(trio, measured=Result())
    assert c.row("b", "share").measured == c.row("b", "share").simulated


def test_a_csv_file_with_repetitions_and_tasks(trio: Path, tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "m.csv",
        "# measured on a laptop\n"
        "entry,quantity,value,task,repetition\n"
        "a,share,0.80,,0\n"
        "a,share,0.90,,1\n"
        "a,share,0.85,,2\n"
        "\n"
        "b,share,0.14,,\n"
        "a,share,0.45,a.0,\n"
        "a,ratio,6.0,,\n",
    )
    m = libsched.read_measurements(file)
    assert m.values == {
        ("a", None, "share"): 0.85,
        ("b", None, "share"): 0.14,
        ("a", "a.0", "share"): 0.45,
        ("a", None, "ratio"): 6.0,
    }
    c = libsched.compare(trio, measured=file)
    assert c.row("a", "share").theory_error == pytest.approx((2048 / 2383 - 0.85) * 100)
    assert c.row("a", "ratio").theory_error == pytest.approx((2048 / 335 - 6.0) / 6.0 * 100)
    assert c.row("a", "share", task="a.0").theory == pytest.approx(1024 / 2383)
    assert c.row("a", "share", task="a.0").simulated is not None
    with pytest.raises(KeyError):
        c.row("a", "share", task="a.1")  # not measured: no row
    assert "a.0" in c.table()


def test_columns_may_come_in_any_order_after_a_bom(tmp_path: Path) -> None:
    file = write(tmp_path, "m.csv", "\ufeffvalue,entry,quantity\n0.5,a,share\n")
    assert libsched.read_measurements(file).values == {("a", None, "share"): 0.5}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "entry,quantity,valeu\n",
            r"line 1, column 3: unknown column 'valeu'; did you mean \"value\"\?",
        ),
        ("entry,quantity\n", r"line 1: the header has no column 'value'"),
        ("entry,entry,quantity,value\n", r"line 1, column 2: column 'entry' appears twice"),
        (
            "entry,quantity,value\na,share,0.5\nb,shar,0.5\n",
            r"line 3, column 2: unknown quantity 'shar'; did you mean \"share\"\?",
        ),
        ("entry,quantity,value\na,share,half\n", r"line 2, column 3: 'half' is not a number"),
        ("entry,quantity,value\na,share,-1\n", r"line 2, column 3: -1 is not a number from 0 up"),
        ("entry,quantity,value\na,share,nan\n", r"line 2, column 3: nan is not a number from 0 up"),
        ("entry,quantity,value\na,share\n", r"line 2, column 3: 2 fields, but the header has 3"),
        (
            "entry,quantity,value\na,share,1,2\n",
            r"line 2, column 4: 4 fields, but the header has 3",
        ),
        ("entry,quantity,value\n,share,1\n", r"line 2, column 1: the entry is empty"),
        (
            "entry,quantity,value,task\na,ratio,1,a.0\n",
            r"line 2, column 2: a task's quantity is one of share",
        ),
        (
            "entry,quantity,value,repetition\na,share,1,x\n",
            r"line 2, column 4: repetition 'x' is not a whole number",
        ),
        (
            "entry,quantity,value\na,share,0.5\n\na,share,0.6\n",
            r"line 4: a share is already given on line 2",
        ),
        (
            "entry,quantity,value,repetition\na,share,0.5,0\na,share,0.6,\n",
            r"line 3: a share is already given on line 2 \(give every",
        ),
        ("# nothing\n", r"no header line"),
    ],
)
def test_a_bad_csv_file_names_the_line_and_column(tmp_path: Path, text: str, where: str) -> None:
    file = write(tmp_path, "bad.csv", text)
    with pytest.raises(
        ValueError, match=rf"libsched.read_measurements: measured: .*bad.csv: {where}"
    ):
        libsched.read_measurements(file)


def test_files_that_are_not_measurements(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"data file of figures: a scenario's \[measured\]"):
        libsched.read_measurements(REPLAYS / "data" / "seed-measurements.json")
    with pytest.raises(ValueError, match=r"x.json: not a result document .* no \"summary\""):
        libsched.read_measurements(write(tmp_path, "x.json", '{"scenario": "x"}'))
    with pytest.raises(ValueError, match="is not JSON"):
        libsched.read_measurements(write(tmp_path, "y.json", "{"))
    with pytest.raises(ValueError, match="neither .csv nor .json"):
        libsched.read_measurements(write(tmp_path, "z.txt", ""))
    with pytest.raises(ValueError, match="cannot read"):
        libsched.read_measurements(tmp_path / "missing.csv")
    with pytest.raises(TypeError, match="libsched.compare: measured must be a path"):
        libsched.compare(PAIR_0_5, measured=3)


# --- alignment ------------------------------------------------------------------------------


def test_entries_in_one_but_not_the_other_are_reported(trio: Path, tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "m.csv",
        "entry,quantity,value,task\na,share,0.8,\nzzz,share,0.1,\na,share,0.4,a.7\n",
    )
    c = libsched.compare(trio, measured=file)
    assert c.unmatched == ("zzz", "a/a.7")
    assert c.unmeasured == ()  # b is the reference
    assert "not in the scenario: zzz, a/a.7" in c.table()
    c = libsched.compare(
        PAIR_0_5, measured=write(tmp_path, "n.csv", "entry,quantity,value\nb,share,0.3\n")
    )
    assert c.unmeasured == ("a",)
    assert "in the scenario, not measured: a" in c.table()


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("A,share,0.8,", r"""measured entry 'A' is not in the scenario; did you mean "a"\?"""),
        (
            "a,share,0.4,a.O",
            r"""measured task 'a.O' is not a task of entry 'a'; did you mean "a.0"\?""",
        ),
        ("b,share,0.4,a.0", r"measured task 'a.0' is a task of entry 'a', not of 'b'"),
    ],
)
def test_near_misses_are_errors(trio: Path, tmp_path: Path, lines: str, message: str) -> None:
    file = write(tmp_path, "m.csv", f"entry,quantity,value,task\n{lines}\n")
    with pytest.raises(ValueError, match=message):
        libsched.compare(trio, measured=file)


def test_ratios_to_another_reference_are_an_error(trio: Path, tmp_path: Path) -> None:
    document, _ = measured_document(trio, tmp_path)
    document["reference"] = "a"
    with pytest.raises(
        ValueError, match="its ratios are to entry a, but the scenario's reference is b"
    ):
        libsched.compare(trio, measured=document)


def test_nearest_name_is_the_scenario_readers_suggestion() -> None:
    assert _core.run.nearest_name("A", ["a", "b"]) == "a"
    assert _core.run.nearest_name("c", ["a", "b"]) is None
    assert _core.run.nearest_name("hgo", ["sleeper", "hog"]) == "hog"


# --- the command ----------------------------------------------------------------------------


def test_cli_prints_theory_simulated_and_measured() -> None:
    out = libsched_cli("compare", "examples/replays/seed002-pair-0-5.toml")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "seed002-pair-0-5: theory, simulated and measured; ratios to b"
    assert lines[2].split() == [
        "entry",
        "quantity",
        "theory",
        "simulated",
        "measured",
        "error",
        "theory",
        "error",
    ]
    summary = libsched.run(PAIR_0_5)["summary"][0]
    a_share = lines[4].split()
    assert a_share[:4] == ["a", "share", f"{100 * 1024 / 1359:.2f}", "%"]
    assert a_share[4:8] == [f"{100 * summary['share']:.2f}", "%", "75.00", "%"]


def test_cli_json_is_the_comparisons_dict() -> None:
    out = libsched_cli("compare", "--json", str(PAIR_0_5))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(json.dumps(libsched.compare(PAIR_0_5).to_dict()))


def test_cli_measured_reps_seed_and_errors(trio: Path, tmp_path: Path) -> None:
    file = write(tmp_path, "m.csv", "entry,quantity,value\nb,share,0.1\n")
    out = libsched_cli(
        "compare", str(trio), "--measured", str(file), "--reps", "1", "--seed", "3", "--json"
    )
    assert out.returncode == 0, out.stderr
    expected = libsched.compare(trio, measured=file, repetitions=1, seed=3).to_dict()
    assert json.loads(out.stdout) == json.loads(json.dumps(expected))
    out = libsched_cli("compare", str(trio), "--measured", str(tmp_path / "missing.csv"))
    assert out.returncode == 1
    assert "libsched compare: libsched.compare: measured: cannot read" in out.stderr
    assert libsched_cli("compare", "--reps").returncode == 2  # argparse's usage error


def test_cli_prints_scenario_warnings_on_stderr() -> None:
    out = libsched_cli("compare", str(REPLAYS / "seed000-5.15-n20.toml"))
    assert out.returncode == 0
    assert "libsched compare: warning: tasks[1].nice: 20 clamped to 19" in out.stderr


def test_cli_help_lists_compare_and_the_cpp_commands() -> None:
    out = libsched_cli("--help")
    assert out.returncode == 0
    assert "replay" in out.stdout and "compare" in out.stdout
    assert "--measured" in libsched_cli("compare", "--help").stdout


def test_cli_writes_the_figures(tmp_path: Path) -> None:
    out = libsched_cli(
        "compare",
        str(SLEEPER),
        "--plot",
        "bars.png",
        "--timeline",
        "timeline.png",
        "--latency",
        "latency.png",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    for name in ("bars.png", "timeline.png", "latency.png"):
        assert (tmp_path / name).read_bytes().startswith(PNG)
    out = libsched_cli("compare", str(PAIR_0_5), "--latency", "latency.png", cwd=tmp_path)
    assert out.returncode == 1 and "no entry woke up" in out.stderr


# --- figures --------------------------------------------------------------------------------


@pytest.fixture
def plt() -> Iterator[Any]:
    pyplot = pytest.importorskip("matplotlib.pyplot")
    yield pyplot
    pyplot.close("all")


def test_comparison_bars_on_a_log_axis(tmp_path: Path, plt: Any) -> None:
    c = libsched.compare(SEED000_N10)
    figure, ax = plt.subplots()
    assert libsched.plot.plot_comparison(c, ax=ax) is ax
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a/b\n/proc jiffies", "a/b\ngetrusage"]
    heights = [[bar.get_height() for bar in container] for container in ax.containers]
    assert heights[0] == pytest.approx([1024 / 110] * 2)  # theory
    assert heights[2] == [9.487, 9.231]  # measured
    libsched.plot.save(ax, tmp_path / "bars.png")
    assert (tmp_path / "bars.png").read_bytes().startswith(PNG)
    assert not plt.fignum_exists(figure.number)


def test_comparison_bars_of_several_and_of_shares(trio: Path, plt: Any) -> None:
    ax = libsched.plot.plot_comparison(
        [libsched.compare(PAIR_0_5), libsched.compare(trio)], quantities=["share"]
    )
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "a", "b"]
    assert ax.containers[0][0].get_height() == pytest.approx(100 * 1024 / 1359)  # in %
    assert [c.get_label() for c in ax.containers] == ["theory", "simulated", "measured"]
    with pytest.raises(ValueError, match="share a unit"):
        libsched.plot.plot_comparison(libsched.compare(PAIR_0_5), quantities=["share", "ratio"])


def test_comparison_bars_without_a_measurement(trio: Path, plt: Any) -> None:
    ax = libsched.plot.plot_comparison(libsched.compare(trio))  # its ratio: no share mixed in
    assert [c.get_label() for c in ax.containers] == ["theory", "simulated"]
    assert ax.containers[0][0].get_height() == pytest.approx(2048 / 335)
    assert ax.get_title() == "Theory and simulated: trio"


def test_timeline_from_columns(plt: Any) -> None:
    # CPU 0: x from 0 to 10 ms, y to 20 ms, then idle to the last event at 30 ms; CPU 1: y
    # from 5 ms on; CPU 2 only sees a migration; the other repetition is left out.
    trace = {
        "repetition": [0, 0, 0, 0, 0, 0, 1],
        "time_ns": [0, 5_000_000, 10_000_000, 10_000_000, 20_000_000, 30_000_000, 0],
        "cpu": [0, 1, 0, 2, 0, 0, 0],
        "event": [
            "sched_switch",
            "sched_switch",
            "sched_switch",
            "sched_migrate_task",
            "sched_switch",
            "sched_wakeup",
            "sched_switch",
        ],
        "next_pid": [1, 2, 2, -1, 0, -1, 3],
        "next_comm": ["x", "y", "y", "", "swapper", "", "z"],
    }
    figure, ax = plt.subplots()
    assert libsched.plot.plot_timeline(trace, ax=ax) is ax
    _, labels = ax.get_legend_handles_labels()
    assert labels == ["x", "y"]
    spans = {
        (label, round(float(path.vertices[:, 1].mean()))): (
            path.vertices[:, 0].min(),
            path.vertices[:, 0].max(),
        )
        for collection, label in zip(ax.collections, ["x", "y", "y"])
        for path in collection.get_paths()
    }
    assert spans == {("x", 0): (0, 10), ("y", 0): (10, 20), ("y", 1): (5, 30)}
    assert [t.get_text() for t in ax.get_yticklabels()] == ["CPU 0", "CPU 1", "CPU 2"]
    assert ax.get_xlabel() == "time (ms)"
    plt.close(figure)


def test_timeline_from_a_trace_file(tmp_path: Path, plt: Any) -> None:
    trace = tmp_path / "trace.csv"
    out = libsched_cli("run", "-q", "--trace", str(trace), str(SLEEPER))
    assert out.returncode == 0, out.stderr
    columns = libsched.plot.read_trace(trace)
    assert columns["time_ns"].dtype.kind == "i"
    ax = libsched.plot.plot_timeline(trace, start=1_000_000_000, end=1_050_000_000)
    assert sorted(ax.get_legend_handles_labels()[1]) == ["hog", "sleeper"]
    assert ax.get_xlim() == (0, 50)
    assert ax.get_xlabel() == "time from 1 s (ms)"
    libsched.plot.save(ax, tmp_path / "timeline.png")
    assert (tmp_path / "timeline.png").read_bytes().startswith(PNG)


def test_latency_cdf_from_a_run_and_from_samples(tmp_path: Path, plt: Any) -> None:
    c = libsched.compare(SLEEPER)
    latency = c.result["summary"][0]["wakeup_latency"]
    figure, ax = plt.subplots()
    assert libsched.plot.plot_latency_cdf(c, ax=ax) is ax
    (line,) = ax.lines
    assert list(line.get_xdata()) == [
        latency[k] / 1000 for k in ("p50", "p90", "p99", "p99_9", "max")
    ]
    assert list(line.get_ydata()) == [0.5, 0.9, 0.99, 0.999, 1.0]
    assert ax.get_xscale() == "log"
    plt.close(figure)
    ax = libsched.plot.plot_latency_cdf({"s": [4000, 1000, 2000, 3000]})
    (line,) = ax.lines
    assert list(line.get_xdata()) == [1, 2, 3, 4] and list(line.get_ydata()) == [
        0.25,
        0.5,
        0.75,
        1.0,
    ]
    libsched.plot.save(ax, tmp_path / "latency.png")
    assert (tmp_path / "latency.png").read_bytes().startswith(PNG)
    with pytest.raises(ValueError, match="no entry woke up"):
        libsched.plot.plot_latency_cdf(libsched.compare(PAIR_0_5))


def test_latency_cdf_draws_measured_percentiles_dashed(tmp_path: Path, plt: Any) -> None:
    file = write(
        tmp_path,
        "m.csv",
        "entry,quantity,value\nsleeper,wakeup_latency_p50,2000\nsleeper,wakeup_latency_max,9000\n",
    )
    ax = libsched.plot.plot_latency_cdf(libsched.compare(SLEEPER, measured=file))
    measured = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [list(line.get_xdata()) for line in measured] == [[2.0, 9.0]]
    plt.close("all")


def test_plots_name_the_extra_when_matplotlib_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"libsched\[plot\]"):
        libsched.plot.plot_comparison(libsched.compare(PAIR_0_5))
