"""The example scenarios shipped with the package (the source tree's examples/scenarios),
so that a snippet runs from any folder::

    import libsched
    libsched.run(libsched.examples.path("two-burners"))
"""

from __future__ import annotations

from pathlib import Path

_FOLDER = Path(__file__).resolve().parent / "scenarios"


def names() -> list[str]:
    """The bundled scenarios' names (file names without ``.toml``), sorted."""
    return sorted(p.stem for p in _FOLDER.glob("*.toml"))


def path(name: str) -> Path:
    """The file of the bundled scenario ``name`` (e.g. ``"two-burners"``); ``ValueError``
    naming the known ones if there is none of that name."""
    if not isinstance(name, str):
        raise TypeError(f"libsched.examples.path: name must be a str, not {type(name).__name__}")
    file = _FOLDER / f"{name.removesuffix('.toml')}.toml"
    if name and "/" not in name and file.is_file():
        return file
    raise ValueError(
        f"libsched.examples.path: no bundled scenario {name!r}; there are: {', '.join(names())}"
    )
