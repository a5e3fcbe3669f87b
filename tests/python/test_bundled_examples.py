"""libsched.examples: the bundled scenarios are in the installed package and run from any
folder."""

from __future__ import annotations

from pathlib import Path

import pytest

import libsched

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def test_every_example_scenario_is_bundled() -> None:
    assert libsched.examples.names() == sorted(p.stem for p in SOURCE.glob("*.toml"))
    for name in libsched.examples.names():
        assert libsched.examples.path(name).read_text() == (SOURCE / f"{name}.toml").read_text()


def test_a_bundled_scenario_runs_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = libsched.run(libsched.examples.path("two-burners"), repetitions=1)
    assert len(result["repetitions"]) == 1


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no bundled scenario 'nope'; there are: .*two-burners"):
        libsched.examples.path("nope")
    with pytest.raises(ValueError):
        libsched.examples.path("../README")
