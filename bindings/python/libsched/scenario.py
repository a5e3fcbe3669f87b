"""``libsched.Scenario``: a scenario (docs/scenario-format.md) as an object that mirrors the
TOML file, built in code or loaded from a file or text, with its fields read and changed by
path (``"tasks.b.nice"``)."""

from __future__ import annotations

import copy
import difflib
import os
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Union

from . import _core
from ._source import scenario_source

FieldPath = Union[str, tuple[Union[str, int], ...]]
"""A field's path: ``"tasks.b.nice"``, ``'cgroups["web.v2"].quota'``, ``"tasks[0].nice"``, or
the parts as a tuple, ``("cgroups", "web/api", "quota")``."""

_MISSING: Any = object()


class _PathError(KeyError):
    """A KeyError whose message prints as written (KeyError quotes its argument)."""

    def __str__(self) -> str:
        return str(self.args[0])


class Scenario:
    """A scenario: the TOML file's document as nested dicts and lists of TOML values.

    The keyword arguments are the file's top-level keys, each value as the file writes it::

        Scenario(name="two", length="2s", machine={"kernel": "6.6", "cpus": 1},
                 tasks=[{"name": "a"}, {"name": "b", "nice": 5}], reference="b")

    ``[[tasks]]``, ``[[cgroups]]`` and ``[[sessions]]`` are lists of dicts; a duration is a
    string with a unit (``"2ms"``) or integer nanoseconds. A value TOML cannot hold (``None``,
    a set, a dict with a non-str key) is a ``TypeError`` naming its field; whether the
    scenario is valid (known keys, values in range) is checked by ``validate()`` and when it
    is run. Values are kept as TOML reads them back: a tuple becomes a list, a NumPy integer
    an ``int``.
    """

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(self, **document: Any) -> None:
        self._document: dict[str, Any] = _normal(document)
        self._origin: Union[str, None] = None
        # The loaded text while unchanged: errors then give the lines of the file.
        self._text: Union[str, None] = None

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike[str]]) -> Scenario:
        """The scenario of the TOML file at ``path``; its ``origin`` is the path, so that
        relative ``[measured]`` data files resolve and a file without a ``name`` is still
        named after itself. ``ScenarioError`` when the file is missing or not TOML."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                "libsched.Scenario.from_file: path must be a str or os.PathLike, "
                f"not {type(path).__name__}"
            )
        origin = os.fspath(path)
        return cls.from_text(_core.run.read_scenario_file(origin), origin)

    @classmethod
    def from_text(cls, text: str, origin: str = "<string>") -> Scenario:
        """The scenario of TOML ``text``; ``origin`` names it in errors (a file name: its
        folder is where ``[measured]`` data files are looked for). ``ScenarioError`` naming
        the origin and line for a syntax error."""
        for name, value in (("text", text), ("origin", origin)):
            if not isinstance(value, str):
                raise TypeError(
                    f"libsched.Scenario.from_text: {name} must be a str, not {type(value).__name__}"
                )
        return cls._made(_core.scenario.parse_toml(text, origin), origin, text)

    @classmethod
    def from_rt_app(
        cls,
        path: Union[str, os.PathLike[str]],
        machine: Any = None,
        kernel: Union[str, None] = None,
    ) -> Scenario:
        """The scenario of the rt-app workload file (JSON) at ``path``, as ``libsched
        rt-app`` converts it (docs/rt-app.md); its ``origin`` is the path. rt-app says
        nothing of the machine: ``machine`` is a scenario (a path or a ``Scenario``) whose
        ``[machine]`` it takes, else the defaults; ``kernel`` (``"6.12"``) replaces its
        release. ``ScenarioError`` naming the JSON path of each feature the model cannot
        honour (``tasks.t.phases.p1.lock``)."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                "libsched.Scenario.from_rt_app: path must be a str or os.PathLike, "
                f"not {type(path).__name__}"
            )
        if kernel is not None and not isinstance(kernel, str):
            raise TypeError(
                'libsched.Scenario.from_rt_app: kernel must be a str such as "6.12", '
                f"not {type(kernel).__name__}"
            )
        machine_toml, machine_origin = (
            (None, "<machine>")
            if machine is None
            else scenario_source(machine, "Scenario.from_rt_app")
        )
        origin = os.fspath(path)
        document = _core.scenario.rt_app_document(origin, machine_toml, machine_origin, kernel)
        return cls._made(document, origin)

    @classmethod
    def from_perf_script(
        cls,
        path: Union[str, os.PathLike[str]],
        machine: Any = None,
        kernel: Union[str, None] = None,
        exclude: Iterable[str] = (),
        pin: bool = False,
        loops: bool = False,
        timers: Optional[Mapping[str, Union[int, str]]] = None,
    ) -> Scenario:
        """The scenario of a recorded schedule: the text ``perf sched script`` prints (or
        ``libsched run --trace``'s CSV), each traced task a program of the runs and sleeps
        it did (docs/perf-import.md). ``machine`` is a scenario (a path or a
        ``Scenario``) whose ``[machine]`` it takes, else only ``cpus``, from the trace;
        ``kernel`` replaces its release; ``exclude`` lists regular expressions of comms to
        leave out; ``pin`` keeps each task on the CPUs it ran on; ``loops`` repeats a
        task with steady sleeps until it exited, rather than running its steps once;
        ``timers`` maps regular expressions of comms to the period of the timer that wakes
        those tasks (``{"cyclic": "1ms"}``)."""
        from .perf_sched import from_perf_script

        return from_perf_script(path, machine, kernel, exclude, pin, loops, timers)

    @classmethod
    def _made(
        cls, document: dict[str, Any], origin: Union[str, None], text: Union[str, None] = None
    ) -> Scenario:
        made = cls.__new__(cls)
        made._document = document
        made._origin = origin
        made._text = text
        return made

    @property
    def origin(self) -> str:
        """What names the scenario in errors: the file of ``from_file``, the origin given to
        ``from_text``, else ``"<Scenario NAME>"``. A copy keeps its original's origin."""
        if self._origin is not None:
            return self._origin
        name = self._document.get("name")
        return f"<Scenario {name}>" if isinstance(name, str) else "<Scenario>"

    def to_toml(self) -> str:
        """The scenario as TOML text, which the scenario reader reads back to the same
        scenario: the text it was loaded from while unchanged, else the document written
        out (keys sorted; floats with 17 significant digits, to read back exactly)."""
        return self._text if self._text is not None else _format(self._document)

    def to_dict(self) -> dict[str, Any]:
        """The document as plain nested dicts and lists (a deep copy)."""
        return copy.deepcopy(self._document)

    def copy(self) -> Scenario:
        """An independent copy, with the same origin."""
        return self._made(copy.deepcopy(self._document), self._origin, self._text)

    def validate(self) -> list[str]:
        """The scenario's warnings (``"field: what"``; ``run`` and ``simulate`` also issue
        them as ``ScenarioWarning``); ``ScenarioError`` listing every error: an unknown key
        (with the nearest known one), a wrong type, a value out of range."""
        warnings: list[str] = _core.scenario.check(self.to_toml(), self.origin)
        return warnings

    def get(self, path: FieldPath, default: Any = _MISSING) -> Any:
        """The value at ``path`` (a copy), or ``default`` when the scenario does not set it.

        A path names table keys and, in an array of tables (``tasks``, ``cgroups``,
        ``sessions``), an entry by its ``name`` or by its index: ``"tasks.b.nice"``,
        ``"machine.kernel"``, ``"tasks[0].behaviour.run"``, ``"window[1]"``. A name with a
        dot is quoted, ``'cgroups["web.v2"].quota'``; ``/`` needs no quotes
        (``"cgroups.web/api.quota"``); or give the parts as a tuple,
        ``("cgroups", "web/api", "quota")``. Without ``default``, a missing field is a
        ``KeyError`` naming the path and what is there.
        """
        parts = _parts(path, "get")
        node: Any = self._document
        for depth, part in enumerate(parts):
            found = _step(node, part, parts, depth, create=False)
            if found is _MISSING:
                if default is not _MISSING:
                    return default
                raise _missing(node, part, parts, depth)
            node = found
        return copy.deepcopy(node)

    def set(self, path: FieldPath, value: Any) -> None:
        """Set the value at ``path`` (as for ``get``); missing tables on the way are made,
        but an array's entry must exist. A key the scenario format does not know is
        reported by ``validate()`` (and when the scenario runs)."""
        self._document = _assigned(self._document, {path: value}, "set")
        self._text = None

    def with_values(self, values: Mapping[FieldPath, Any]) -> Scenario:
        """A copy with each path of ``values`` set to its value, e.g.
        ``sc.with_values({"tasks.b.nice": 5, "machine.kernel": "6.18"})``."""
        if not isinstance(values, Mapping):
            raise TypeError(
                "libsched.Scenario.with_values: values must be a mapping of paths to values, "
                f"not {type(values).__name__}"
            )
        return self._made(_assigned(self._document, values, "with_values"), self._origin)

    def __eq__(self, other: object) -> bool:
        """Scenarios are equal when their documents are (their TOML is the same); the origin
        is not compared."""
        if not isinstance(other, Scenario):
            return NotImplemented
        return _format(self._document) == _format(other._document)

    def __repr__(self) -> str:
        fields = self._document
        if all(key.isidentifier() for key in fields):
            return "Scenario(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"
        return f"Scenario(**{fields!r})"


def _format(document: dict[str, Any]) -> str:
    text: str = _core.scenario.format_toml(document)
    return text


def _normal(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document as TOML reads it back; a TypeError or ValueError naming the field of a
    value TOML cannot hold."""
    normal: dict[str, Any] = _core.scenario.parse_toml(_format(dict(document)))
    return normal


def _assigned(
    document: dict[str, Any], values: Mapping[FieldPath, Any], function: str
) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    for path, value in values.items():
        parts = _parts(path, function)
        node: Any = changed
        for depth, part in enumerate(parts[:-1]):
            found = _step(node, part, parts, depth, create=True)
            if found is _MISSING:
                raise _missing(node, part, parts, depth)
            node = found
        last = parts[-1]
        if isinstance(node, dict) and isinstance(last, str):
            node[last] = value
        elif isinstance(node, list):
            index = _index(node, last)
            if index is None:
                raise _missing(node, last, parts, len(parts) - 1)
            node[index] = value
        else:
            raise _not_a_container(node, last, parts, len(parts) - 1)
    return _normal(changed)


def _step(
    node: Any, part: Union[str, int], parts: tuple[Union[str, int], ...], depth: int, create: bool
) -> Any:
    """The value under ``part`` of ``node``, or ``_MISSING``; ``create`` makes a missing
    table."""
    if isinstance(node, dict) and isinstance(part, str):
        if part not in node and create:
            node[part] = {}
        return node.get(part, _MISSING)
    if isinstance(node, list):
        index = _index(node, part)
        return _MISSING if index is None else node[index]
    raise _not_a_container(node, part, parts, depth)


def _index(entries: list[Any], part: Union[str, int]) -> Union[int, None]:
    """Where ``part`` (an index, or an entry's name) is in ``entries``."""
    if isinstance(part, int):
        return part % len(entries) if -len(entries) <= part < len(entries) else None
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("name") == part:
            return i
    return None


def _missing(
    node: Any, part: Union[str, int], parts: tuple[Union[str, int], ...], depth: int
) -> KeyError:
    where = _spell(parts[:depth]) or "the scenario"
    path = _spell(parts)
    if isinstance(node, list):
        names = [e["name"] for e in node if isinstance(e, dict) and isinstance(e.get("name"), str)]
        if isinstance(part, int):
            reason = f"{where} has {len(node)} entries, no index {part}"
        elif names:
            reason = f"{where} has no entry named {part!r}; its entries are {_listed(names)}"
            reason += _did_you_mean(part, names)
        else:
            reason = f"{where} has no entry named {part!r}; index its entries: {where}[0]"
        return _PathError(f"libsched.Scenario: no {path!r}: {reason}")
    keys = list(node)
    reason = f"{where} has no key {part!r}"
    reason += f"; it has {_listed(keys)}" if keys else ""
    reason += _did_you_mean(str(part), keys)
    return _PathError(f"libsched.Scenario: no {path!r}: {reason}")


def _not_a_container(
    node: Any, part: Union[str, int], parts: tuple[Union[str, int], ...], depth: int
) -> Exception:
    where = _spell(parts[:depth]) or "the scenario"
    if isinstance(node, dict):
        what = f"{where} is a table: name its keys, not an index ({part!r})"
    else:
        what = f"{where} is {node!r}, which has no field {part!r}"
    return _PathError(f"libsched.Scenario: no {_spell(parts)!r}: {what}")


def _listed(names: Iterable[str]) -> str:
    return ", ".join(repr(n) for n in names)


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _parts(path: FieldPath, function: str) -> tuple[Union[str, int], ...]:
    """The parts of a path given as text or as a tuple (or list) of str and int."""
    if isinstance(path, str):
        return _parse_path(path, function)
    if (
        isinstance(path, (tuple, list))
        and path
        and all(
            isinstance(p, str) or (isinstance(p, int) and not isinstance(p, bool)) for p in path
        )
    ):
        return tuple(path)
    raise TypeError(
        f'libsched.Scenario.{function}: a path is a str such as "tasks.b.nice" or a '
        f"non-empty tuple of str and int parts, not {path!r}"
    )


def _parse_path(path: str, function: str) -> tuple[Union[str, int], ...]:
    parts: list[Union[str, int]] = []
    at = 0

    def bad(why: str) -> ValueError:
        return ValueError(f"libsched.Scenario.{function}: path {path!r}: {why} (at {at})")

    while at < len(path):
        if path[at] == "[":
            close = path.find("]", at)
            inner = path[at + 1 : close] if close >= 0 else ""
            if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "\"'":
                parts.append(inner[1:-1])
            elif inner.lstrip("-").isdigit():
                parts.append(int(inner))
            else:
                raise bad('expected [index] or ["name"]')
            at = close + 1
            continue
        if parts:
            if path[at] != ".":
                raise bad("expected '.' or '[' between parts")
            at += 1
        end = at
        while end < len(path) and path[end] not in ".[]\"'":
            end += 1
        if end == at:
            raise bad("an empty part")
        parts.append(path[at:end])
        at = end
    if not parts:
        raise bad("an empty path")
    return tuple(parts)


def _spell(parts: tuple[Union[str, int], ...]) -> str:
    """A path's text, as ``get`` reads it."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part and not any(c in part for c in ".[]\"'"):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text
