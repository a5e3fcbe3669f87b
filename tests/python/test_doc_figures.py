"""Every figure the docs and the examples' comments quote from the model (doc_figures/),
made again: the text, filled with what the model gives now, must still be in its file.
A failure names the file, the words as they should read, and what the file has there."""

from __future__ import annotations

import functools
import importlib
import pkgutil

import pytest

import doc_figures
from doc_figures import ROOT, Figure, normalized, quoted

FIGURES: list[Figure] = [
    figure
    for module in pkgutil.iter_modules(doc_figures.__path__)
    for figure in importlib.import_module(f"doc_figures.{module.name}").FIGURES
]


def test_the_figures_cover_the_documents() -> None:
    quoting = {figure.where for figure in FIGURES}
    assert {"docs/replays.md"} <= quoting


@functools.cache
def document(where: str) -> str:
    """A quoting file's text, normalized, read once for all its figures."""
    return normalized((ROOT / where).read_text())


def what_is_there(text: str, expected: str) -> str:
    """The file's words where the expected text's first fixed words are, for the message."""
    head = normalized(expected.split("{", 1)[0])
    at = text.find(head)
    return (
        text[at : at + len(head) + 80] if at >= 0 else "(the words before the figure are not there)"
    )


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.id)
def test_the_quoted_figure_is_what_the_model_gives(figure: Figure) -> None:
    text = document(figure.where)
    expected = normalized(quoted(figure))
    assert expected in text, (
        f"{figure.where} should read\n  {expected}\n(from {figure.scenario}); it has\n  "
        f"{what_is_there(text, figure.text)}"
    )


def test_a_changed_figure_is_found_and_wrapping_and_minus_signs_are_not() -> None:
    pair = "examples/replays/seed002-pair-0-5.toml"
    found = Figure(
        "docs/replays.md",
        "| seed002-pair-0-5 | share of nice 5 | {:.2f} % |",
        pair,
        lambda c: 24.79,
    )
    moved = Figure(
        "docs/replays.md",
        "| seed002-pair-0-5 | share of nice 5 | {:.2f} % |",
        pair,
        lambda c: 24.78,
    )
    text = normalized((ROOT / "docs/replays.md").read_text())
    assert normalized(quoted(found)) in text
    assert normalized(quoted(moved)) not in text
    assert normalized("a\n  \u22120.21 pp\tgap") == "a -0.21 pp gap"
