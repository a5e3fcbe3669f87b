"""Every public name of the package has a docstring: the functions, the classes and their
public methods, and the names of the public submodules (plot, examples, results)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

import libsched


def public_names() -> Iterator[tuple[str, Any]]:
    for name in libsched.__all__:
        obj = getattr(libsched, name)
        if name.startswith("__") or isinstance(obj, (int, str, float, dict, list)):
            continue
        yield name, obj
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if not member.startswith("_") and (
                    callable(value) or isinstance(value, (property, classmethod, staticmethod))
                ):
                    yield f"{name}.{member}", getattr(obj, member)
        if isinstance(obj, types.ModuleType):
            for member in dir(obj):
                value = getattr(obj, member)
                if (
                    not member.startswith("_")
                    and (inspect.isfunction(value) or inspect.isclass(value))
                    and getattr(value, "__module__", "").startswith("libsched")
                ):
                    yield f"{name}.{member}", value


def test_every_public_name_has_a_docstring() -> None:
    names = dict(public_names())
    assert len(names) > 60  # the walk reaches the classes' members and the submodules
    assert [name for name, obj in names.items() if not (inspect.getdoc(obj) or "").strip()] == []
