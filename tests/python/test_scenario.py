"""libsched.Scenario: built in code or loaded, written back as TOML, read and changed by path."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import libsched
from libsched import Scenario, ScenarioError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Every bundled scenario, and replays with [measured] figures of their own and from a data
# file beside them.
FILES = [
    *sorted((EXAMPLES / "scenarios").glob("*.toml")),
    EXAMPLES / "replays" / "seed002-pair-0-5.toml",
    EXAMPLES / "replays" / "seed000-6.18-n10.toml",
    EXAMPLES / "replays" / "k8s-pod-limits.toml",
]

TWO = """
name = "two"
length = "2s"
reference = "b"

[machine]
kernel = "6.6"
cpus = 1

[[tasks]]
name = "a"

[[tasks]]
name = "b"
nice = 5
"""


def two() -> Scenario:
    return Scenario(
        name="two",
        length="2s",
        machine={"kernel": "6.6", "cpus": 1},
        tasks=[{"name": "a"}, {"name": "b", "nice": 5}],
        reference="b",
    )


def quiet_run(scenario: object) -> dict[str, object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", libsched.ScenarioWarning)
        return libsched.run(scenario)


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.stem)
def test_a_loaded_scenario_runs_as_its_file(file: Path) -> None:
    expected = quiet_run(file)
    loaded = Scenario.from_file(file)
    assert loaded.origin == str(file)
    assert quiet_run(loaded) == expected
    # The document written out by the TOML writer, read with the file's origin (so that a
    # data file resolves and a file without a name keeps its own), runs the same.
    rewritten = Scenario.from_text(Scenario(**loaded.to_dict()).to_toml(), origin=str(file))
    assert rewritten == loaded
    assert quiet_run(rewritten) == expected


def test_a_scenario_built_in_code_is_its_toml_text() -> None:
    built = two()
    text = Scenario.from_text(TWO)
    assert built == text
    assert built.to_dict() == text.to_dict()
    assert libsched.run(built) == libsched.run_text(TWO)
    assert libsched.theory(built) == libsched.theory_text(TWO)
    # what the writer gives reads back as the same document
    assert Scenario.from_text(built.to_toml()).to_dict() == built.to_dict()


def test_values_are_kept_as_toml_reads_them() -> None:
    sc = Scenario(
        window=("1s", "2s"),
        tasks=[{"name": "a", "nice": np.int64(3), "system_share": 0.1}],
        measured={"share": {"a": 0.6, "b.c": 1e-300}},
    )
    doc = sc.to_dict()
    assert doc["window"] == ["1s", "2s"]
    assert type(doc["tasks"][0]["nice"]) is int
    # floats read back bit for bit
    assert Scenario.from_text(sc.to_toml()).get("tasks.a.system_share") == 0.1
    assert Scenario.from_text(sc.to_toml()).get(("measured", "share", "b.c")) == 1e-300
    assert sc.get('measured.share["b.c"]') == 1e-300


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (None, TypeError, r"tasks\[1\]\.x: TOML cannot hold None \(type NoneType\)"),
        ({1, 2}, TypeError, r"tasks\[1\]\.x: TOML cannot hold \{1, 2\} \(type set\)"),
        ({1: 2}, TypeError, r"tasks\[1\]\.x: the key 1 \(type int\) is not a str"),
        ([[None]], TypeError, r"tasks\[1\]\.x\[0\]\[0\]: TOML cannot hold None"),
        (2**63, ValueError, r"tasks\[1\]\.x: 9223372036854775808 is beyond TOML's integers"),
        (np.float32(0.5), TypeError, r"tasks\[1\]\.x: TOML cannot hold .* \(type numpy\.float32\)"),
    ],
)
def test_a_value_toml_cannot_hold_is_an_error_naming_its_field(
    value: object, error: type[Exception], message: str
) -> None:
    sc = two()
    with pytest.raises(error, match=message):
        sc.set("tasks.b.x", value)
    assert sc == two()  # unchanged
    with pytest.raises(error, match=message.replace(r"tasks\[1\]\.x", "x")):
        Scenario(x=value)


def test_toml_errors_name_the_origin_and_line() -> None:
    with pytest.raises(ScenarioError, match=r"^f\.toml: TOML syntax error at line 2, column 5"):
        Scenario.from_text("a = 1\nb = = 2\n", origin="f.toml")
    with pytest.raises(ScenarioError, match=r"<string>: day: a TOML date or time, .*\(line 1\)"):
        Scenario.from_text("day = 1979-05-27")
    with pytest.raises(ScenarioError, match="nope.toml: no such file"):
        Scenario.from_file("nope.toml")
    with pytest.raises(TypeError, match="from_text: text must be a str"):
        Scenario.from_text(b"x = 1")  # type: ignore[arg-type]


def test_origin() -> None:
    assert two().origin == "<Scenario two>"
    assert Scenario(tasks=[{"name": "a"}]).origin == "<Scenario>"
    assert Scenario.from_text(TWO).origin == "<string>"
    assert Scenario.from_text(TWO, origin="x/y.toml").origin == "x/y.toml"
    # a copy keeps its original's origin, so a file's data files still resolve
    file = EXAMPLES / "replays" / "seed002-pair-0-5.toml"
    assert Scenario.from_file(file).with_values({"tasks.b.nice": 6}).origin == str(file)
    # without a name the scenario is named after its origin, as a file is
    unnamed = Scenario(length="100ms", tasks=[{"name": "a"}])
    assert libsched.run(unnamed)["scenario"] == "<Scenario>"


def test_validate_returns_the_warnings_and_raises_the_errors() -> None:
    assert two().validate() == []
    loud = two().with_values({"tasks.b.nice": 25})
    assert loud.validate() == ["tasks[1].nice: 25 clamped to 19 as setpriority() does"]
    with pytest.warns(libsched.ScenarioWarning, match="tasks\\[1\\].nice: 25 clamped to 19"):
        libsched.run(loud)
    typo = two()
    typo.set("tasks.b.nicee", 3)
    with pytest.raises(
        ScenarioError, match='<Scenario two>: tasks\\[1\\].nicee: unknown key; did you mean "nice"'
    ):
        typo.validate()
    with pytest.raises(ScenarioError, match="machine.hz: 123 is not a CONFIG_HZ choice"):
        two().with_values({"machine.hz": 123}).validate()


def test_a_loaded_scenarios_errors_give_the_lines_of_its_file() -> None:
    text = TWO.replace("nice = 5", 'nice = "5"')
    line = text.splitlines().index('nice = "5"') + 1
    with pytest.raises(
        ScenarioError, match=rf"tasks\[1\]\.nice: expected an integer.*\(line {line}\)"
    ):
        Scenario.from_text(text).validate()


def test_get_reads_by_path() -> None:
    sc = Scenario.from_file(EXAMPLES / "replays" / "k8s-pod-limits.toml")
    assert sc.get("machine.cgroup_version") == 1
    assert sc.get("cgroups.kubepods/burstable/pod-a.quota") == "200ms"
    assert sc.get('cgroups["kubepods/burstable/pod-a"].period') == "100ms"
    assert sc.get(("cgroups", "kubepods/burstable", "shares")) == 1024
    assert sc.get("cgroups[0].name") == "kubepods/burstable"
    tasks = sc.to_dict()["tasks"]
    assert sc.get(f"tasks.{tasks[0]['name']}") == tasks[0]
    assert sc.get("tasks[0]") == tasks[0]
    assert sc.get("tasks[-1]") == tasks[-1]
    assert sc.get("window[1]") == "11s"
    assert sc.get("machine.hz", 100) == 250
    assert sc.get("machine.online_cpus", 0) == 0  # not set: the default given
    # a copy: changing it leaves the scenario alone
    sc.get("tasks[0]")["name"] = "changed"
    assert sc.get("tasks[0]") == tasks[0]


def test_get_of_a_cgroup_whose_name_has_a_slash() -> None:
    sc = Scenario(
        cgroups=[{"name": "web"}, {"name": "web/api", "quota": "50ms"}],
        tasks=[{"name": "a", "cgroup": "web/api"}],
    )
    assert sc.get("cgroups.web/api.quota") == "50ms"
    assert sc.get('cgroups["web/api"].quota') == "50ms"
    assert sc.get(("cgroups", "web/api", "quota")) == "50ms"
    sc.set(("cgroups", "web/api", "quota"), "20ms")
    assert sc.get("cgroups[1].quota") == "20ms"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "tasks.c.nice",
            r"no 'tasks\.c\.nice': tasks has no entry named 'c'; its entries are "
            r"'a', 'b'$",
        ),
        (
            "tasks.bb",
            r"tasks has no entry named 'bb'; its entries are 'a', 'b'; did you mean "
            r"'b'\?",
        ),
        (
            "tasks.b.nicee",
            r"no 'tasks\.b\.nicee': tasks\.b has no key 'nicee'; it has 'name', "
            r"'nice'; did you mean 'nice'\?",
        ),
        ("tasks[2]", r"tasks has 2 entries, no index 2"),
        ("machine[0]", r"machine is a table: name its keys, not an index \(0\)"),
        ("tasks.b.nice.x", r"tasks\.b\.nice is 5, which has no field 'x'"),
        ("machin.cpus", r"the scenario has no key 'machin'.*did you mean 'machine'\?"),
    ],
)
def test_an_unknown_path_is_a_key_error_naming_what_is_there(path: str, message: str) -> None:
    with pytest.raises(KeyError, match=message):
        two().get(path)


def test_an_entry_without_names_is_indexed() -> None:
    sc = two().with_values({"tasks.a.renice": [{"at": "1s", "nice": 3}]})
    assert sc.get("tasks.a.renice[0].nice") == 3
    with pytest.raises(
        KeyError,
        match=r"has no entry named 'x'; index its entries: "
        r"tasks\.a\.renice\[0\]",
    ):
        sc.get("tasks.a.renice.x")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a..b", r"path 'a\.\.b': an empty part \(at 2\)"),
        ("x[", r"path 'x\[': expected \[index\] or \[\"name\"\]"),
        ("tasks[b]", r"expected \[index\] or \[\"name\"\]"),
        ("a]b", r"expected '\.' or '\[' between parts"),
        ("", r"path '': an empty path"),
    ],
)
def test_a_malformed_path_is_a_value_error(path: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        two().get(path)


def test_a_path_is_a_str_or_a_tuple() -> None:
    with pytest.raises(TypeError, match="a path is a str"):
        two().get(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a path is a str"):
        two().get(())
    with pytest.raises(TypeError, match="a path is a str"):
        two().get(("tasks", True))


def test_set_changes_one_value_and_makes_missing_tables() -> None:
    sc = two()
    sc.set("tasks.b.nice", 7)
    sc.set("machine.features.run_to_parity", False)
    sc.set("window", ["0s", "1s"])
    sc.set("window[0]", "500ms")
    expected = two().to_dict()
    expected["tasks"][1]["nice"] = 7
    expected["machine"]["features"] = {"run_to_parity": False}
    expected["window"] = ["500ms", "1s"]
    assert sc.to_dict() == expected
    result = libsched.run(sc)
    assert result["provenance"]["features"]["run_to_parity"] is False
    assert result["window"] == {"start": 500_000_000, "end": 1_000_000_000}
    assert result["summary"][1]["nice"] == 7


def test_set_does_not_make_array_entries() -> None:
    sc = two()
    with pytest.raises(KeyError, match="tasks has no entry named 'c'"):
        sc.set("tasks.c.nice", 1)
    with pytest.raises(KeyError, match="tasks has 2 entries, no index 5"):
        sc.set("tasks[5]", {"name": "c"})
    assert sc == two()


def test_with_values_returns_a_changed_copy() -> None:
    original = two()
    changed = original.with_values({"tasks.b.nice": 10, "machine.kernel": "6.18"})
    assert original == two()
    assert changed.get("tasks.b.nice") == 10
    assert changed.get("machine.kernel") == "6.18"
    assert changed != original
    assert libsched.run(changed)["provenance"]["kernel"] == "6.18"
    with pytest.raises(TypeError, match="values must be a mapping"):
        original.with_values([("tasks.b.nice", 1)])  # type: ignore[arg-type]


def test_copy_to_dict_eq_and_repr() -> None:
    sc = two()
    clone = sc.copy()
    clone.set("tasks.a.nice", 1)
    assert sc == two() and clone != sc
    doc = sc.to_dict()
    doc["tasks"].clear()
    assert sc == two()
    assert eval(repr(sc), {"Scenario": Scenario}) == sc
    assert repr(Scenario(**{"a b": 1})) == "Scenario(**{'a b': 1})"
    # a value's TOML type counts: 1 and true are different values
    assert Scenario(x=1) != Scenario(x=True)
    assert sc != "two"
    with pytest.raises(TypeError):
        hash(sc)


def test_a_loaded_scenario_keeps_its_text_until_changed() -> None:
    sc = Scenario.from_text(TWO)
    assert sc.to_toml() == TWO
    assert sc.copy().to_toml() == TWO
    sc.set("tasks.b.nice", 5)
    assert sc.to_toml() == two().to_toml()
