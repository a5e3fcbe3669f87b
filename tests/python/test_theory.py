"""libsched.theory (a file) and libsched.theory_text (TOML text): the fluid shares, with
the same hand-computed numbers as the C++ tests (tests/cpp/stats/test_theory.cpp)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import libsched

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def test_nice_0_against_nice_5_on_one_cpu() -> None:
    shares = libsched.theory_text('[[tasks]]\nname = "a"\n[[tasks]]\nname = "b"\nnice = 5\n')
    assert shares["tasks"]["a"] == pytest.approx(1024 / (1024 + 335), abs=1e-9)
    assert shares["tasks"]["b"] == pytest.approx(335 / (1024 + 335), abs=1e-9)
    assert shares["groups"] == {}


def test_a_task_is_capped_at_one_cpu() -> None:
    shares = libsched.theory_text(
        """
[machine]
cpus = 2
[[tasks]]
name = "big"
nice = -20
[[tasks]]
name = "small"
count = 4
"""
    )["tasks"]
    assert shares["big"] == pytest.approx(1.0, abs=1e-9)
    assert [shares[f"small.{i}"] for i in range(4)] == pytest.approx([0.25] * 4, abs=1e-9)


def test_affinity_restricts_where_tasks_run() -> None:
    shares = libsched.theory_text(
        """
[machine]
cpus = 2
[[tasks]]
name = "a"
affinity = [0]
[[tasks]]
name = "b"
affinity = [0]
[[tasks]]
name = "c"
"""
    )["tasks"]
    assert shares == pytest.approx({"a": 0.5, "b": 0.5, "c": 1.0}, abs=1e-9)


def test_group_shares_and_quota() -> None:
    shares = libsched.theory_text(
        """
[machine]
cpus = 2
[[cgroups]]
name = "batch"
quota = "150ms"
period = "100ms"
[[tasks]]
name = "b"
count = 3
cgroup = "batch"
"""
    )
    assert shares["groups"] == pytest.approx({"batch": 1.5}, abs=1e-9)
    assert shares["tasks"]["b.2"] == pytest.approx(0.5, abs=1e-9)


def test_v1_shares_on_one_cpu() -> None:
    shares = libsched.theory_text(
        """
[machine]
cgroup_version = 1
[[cgroups]]
name = "hi"
shares = 2048
[[cgroups]]
name = "lo"
shares = 512
[[tasks]]
name = "a"
cgroup = "hi"
[[tasks]]
name = "b"
cgroup = "lo"
"""
    )
    assert shares["groups"] == pytest.approx({"hi": 0.8, "lo": 0.2}, abs=1e-9)


@pytest.mark.parametrize(("kernel", "fair"), [("6.6", 0.05), ("6.18", 0.05)])
def test_rt_burner_beside_a_fair_one(kernel: str, fair: float) -> None:
    shares = libsched.theory_text(
        f'[machine]\nkernel = "{kernel}"\n'
        '[[tasks]]\nname = "fifo"\npolicy = "fifo"\nrt_priority = 50\n'
        '[[tasks]]\nname = "fair"\n'
    )["tasks"]
    assert shares["fifo"] == pytest.approx(1 - fair, abs=1e-9)
    assert shares["fair"] == pytest.approx(fair, abs=1e-9)


def test_theory_of_a_file_matches_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "cgroup-shares.toml"
    shares = libsched.theory(path)
    assert shares["tasks"]["x"] == pytest.approx(1.0, abs=1e-9)
    assert shares["tasks"]["y.0"] == pytest.approx(1 / 3, abs=1e-9)
    assert shares["groups"] == pytest.approx({"solo": 1.0, "crowd": 1.0}, abs=1e-9)
    assert libsched._core.run.cli_main(["theory", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {t["name"]: t["share"] for t in doc["tasks"]} == pytest.approx(shares["tasks"])


def test_errors_raise_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(libsched.ScenarioError):
        libsched.theory(tmp_path / "missing.toml")
    with pytest.raises(libsched.ScenarioError) as err:
        libsched.theory_text('[[tasks]]\nname = "a"\nnice = "x"\n')
    assert err.value.field
