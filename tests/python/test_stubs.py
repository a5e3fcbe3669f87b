"""The committed .pyi stubs of libsched._core name exactly what the module defines."""

from __future__ import annotations

import ast
import types
from pathlib import Path

import pytest

import libsched
from libsched import _core

STUBS = Path(libsched.__file__).parent / "_core"


def stub_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module is None:
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def public_names(module: types.ModuleType) -> set[str]:
    return {name for name in vars(module) if not name.startswith("_")}


@pytest.mark.parametrize(
    "area", ["weight", "run", "kernel", "theory", "measure", "system", "scenario"]
)
def test_submodule_stub_matches(area: str) -> None:
    assert stub_names(STUBS / f"{area}.pyi") == public_names(getattr(_core, area))


def test_core_stub_matches() -> None:
    assert stub_names(STUBS / "__init__.pyi") == public_names(_core) | {"__version__"}
