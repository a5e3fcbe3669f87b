"""Sweeps: one base scenario run over a grid of values of its fields (``libsched.sweep``,
``libsched sweep FILE``), in this process, on all local cores or on a Dask cluster, with one
table row per point and repetition whatever the engine, the worker count or the order."""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from . import _core
from ._arguments import check_int
from ._run import ScenarioWarning
from .scenario import Scenario

PathLike = Union[str, "os.PathLike[str]"]

# A unit of work: one repetition of one point, (point, repetition, values, seed).
_Unit = tuple[int, int, tuple[Any, ...], int]

_MAX_REPETITIONS = 10_000  # validate.hpp's max_repetitions
_DEFAULT_BATCH_UNITS = 64  # units per task at most: small enough to balance, large to amortise


@dataclass(frozen=True)
class SweepFailure:
    """A point (and repetition) that could not run: its axis values and the error."""

    point: int
    repetition: int
    values: dict[str, Any]
    error: str

    def __str__(self) -> str:
        where = ", ".join(f"{path} = {value!r}" for path, value in self.values.items())
        return f"point {self.point} ({where}), repetition {self.repetition}: {self.error}"


class SweepResult:
    """The table of a sweep: ``rows`` (one dict per point and repetition, sorted by point
    and repetition), the ``axes`` and ``figures`` that name its columns, the ``failures``
    (points that could not run), and ``to_pandas()`` / ``to_xarray()`` / ``save()``."""

    def __init__(
        self,
        axes: Sequence[str],
        figures: Sequence[str],
        rows: list[dict[str, Any]],
        failures: list[SweepFailure],
    ) -> None:
        self.axes: tuple[str, ...] = tuple(axes)
        self.figures: tuple[str, ...] = tuple(figures)
        self.rows: list[dict[str, Any]] = sorted(
            rows, key=lambda r: (int(r["point"]), int(r["repetition"]))
        )
        self.failures: list[SweepFailure] = sorted(failures, key=lambda f: (f.point, f.repetition))

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return (
            f"<SweepResult {len(self.rows)} rows, axes {list(self.axes)}, "
            f"{len(self.failures)} failures>"
        )

    @property
    def columns(self) -> list[str]:
        """The table's columns: point, the axes, repetition, seed, then the figures."""
        figure_columns = sorted({k for r in self.rows for k in r} - _fixed(self.axes))
        return ["point", *self.axes, "repetition", "seed", *figure_columns]

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (``pip install libsched[pandas]``); a figure
        the run gave no value for (a ratio without a reference) is NaN."""
        pandas = _import("pandas", "libsched[pandas]")
        frame = pandas.DataFrame.from_records(self.rows, columns=self.columns)
        for figure in self.columns[len(self.axes) + 3 :]:
            frame[figure] = frame[figure].astype(float)
        return frame

    def to_xarray(self) -> Any:
        """The table as an xarray Dataset with the axes and the repetition as dimensions
        and each figure a variable (``pip install xarray``)."""
        _import("xarray", "xarray")
        frame = self.to_pandas().drop(columns=["point", "seed"])
        return frame.set_index([*self.axes, "repetition"]).to_xarray()

    def save(self, path: PathLike) -> None:
        """Write the table to ``path``: Parquet for ``.parquet`` (needs pyarrow), else
        CSV."""
        frame = self.to_pandas()
        if os.fspath(path).endswith(".parquet"):
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False)


def _fixed(axes: Sequence[str]) -> set[str]:
    return {"point", "repetition", "seed", *axes}


def _import(module: str, install: str) -> Any:
    try:
        return __import__(module)
    except ImportError as err:
        raise ImportError(f"libsched.sweep: this needs {module} (pip install {install})") from err


def axis_values(path: str, values: Any) -> list[Any]:
    """The values of one axis: a list, tuple, range or NumPy array, or a TOML-style
    ``{"from": a, "to": b, "step": s}`` (``to`` included when reached; step 1 by default)."""
    if isinstance(values, Mapping):
        unknown = set(values) - {"from", "to", "step"}
        if unknown or not {"from", "to"} <= set(values):
            raise ValueError(
                f"libsched.sweep: axis {path}: a range is {{from, to[, step]}}, got {dict(values)}"
            )
        low, high, step = values["from"], values["to"], values.get("step", 1)
        for name, v in (("from", low), ("to", high), ("step", step)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"libsched.sweep: axis {path}: {name} must be a number, got {v!r}")
        if step == 0 or (high - low) * step < 0:
            raise ValueError(f"libsched.sweep: axis {path}: step {step} never reaches {high}")
        count = math.floor((high - low) / step + 1e-9) + 1
        ints = all(isinstance(v, int) for v in (low, high, step))
        return [low + i * step if ints else round(low + i * step, 12) for i in range(count)]
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            f"libsched.sweep: axis {path}: values must be a list, range or {{from, to, step}}, "
            f"not {type(values).__name__}"
        )
    listed = [v.item() if hasattr(v, "item") else v for v in values]
    if not listed:
        raise ValueError(f"libsched.sweep: axis {path}: no values")
    return listed


def point_seed(base_seed: int, values: Sequence[Any], repetition: int) -> int:
    """The seed of one repetition of one point: a hash of the sweep's seed, the point's
    values and the repetition, so that it depends on nothing else (engine, order)."""
    key = json.dumps([base_seed, list(values), repetition], sort_keys=True, default=str)
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") >> 1


class UnknownFigure(ValueError):
    """A figure the summary has not: it stops the whole sweep, as no point could give it."""


def _figure_value(row: Mapping[str, Any], figure: str) -> Optional[float]:
    value: Any = row
    for part in figure.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(figure)
        value = value[part]
    return None if value is None else float(value)


def _figures_of(document: Mapping[str, Any], figures: Sequence[str]) -> dict[str, Any]:
    """``entry.figure`` columns from a one-repetition run's summary."""
    out: dict[str, Any] = {}
    for row in document["summary"]:
        for figure in figures:
            try:
                out[f"{row['entry']}.{figure}"] = _figure_value(row, figure)
            except KeyError:
                known = sorted(_known_figures(row))
                raise UnknownFigure(
                    f"libsched.sweep: no figure {figure!r}; there are: {', '.join(known)}"
                ) from None
    return out


def _known_figures(row: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in row.items():
        if isinstance(value, Mapping):
            yield from _known_figures(value, f"{prefix}{key}.")
        elif key not in ("entry",):
            yield prefix + key


def _run_units(
    base: str, origin: str, axes: Sequence[str], figures: Sequence[str], units: Sequence[_Unit]
) -> list[tuple[str, int, int, int, Any, list[str]]]:
    """Run a batch of units (in a worker): ("ok", point, repetition, seed, figures,
    warnings) or ("failed", point, repetition, seed, error, [])."""
    scenario = Scenario.from_text(base, origin)
    out: list[tuple[str, int, int, int, Any, list[str]]] = []
    for point, repetition, values, seed in units:
        try:
            text = scenario.with_values(dict(zip(axes, values))).to_toml()
            doc_text, messages = _core.run.run_scenario_text(text, 1, seed, origin)
            found = _figures_of(json.loads(doc_text), figures)
        except UnknownFigure:
            raise
        except (KeyError, TypeError, ValueError) as err:  # ScenarioError is a ValueError
            message = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
            out.append(("failed", point, repetition, seed, message, []))
            continue
        out.append(("ok", point, repetition, seed, found, messages))
    return out


def _default_figures(scenario: Scenario) -> list[str]:
    figures = ["share", "theory_share"]
    if scenario.get("reference", None) is not None:
        figures += ["ratio", "theory_ratio"]
    return figures


def _batches(units: list[_Unit], workers: int, batch_size: Optional[int]) -> list[list[_Unit]]:
    size = batch_size or max(1, min(_DEFAULT_BATCH_UNITS, math.ceil(len(units) / (4 * workers))))
    return [units[i : i + size] for i in range(0, len(units), size)]


def _progress(total: int, show: Optional[bool]) -> Any:
    """A tqdm bar (notebook-aware) when tqdm is installed and ``show`` is not False."""
    if show is False or total == 0:
        return None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped]
    except ImportError as err:
        if show:
            message = "libsched.sweep: progress=True needs tqdm (pip install tqdm)"
            raise ImportError(message) from err
        return None
    return tqdm(total=total, unit="run", desc="sweep", file=sys.stderr)


def _results_in_process(
    batches: list[list[_Unit]], job: Callable[[list[_Unit]], Any]
) -> Iterator[Any]:
    for batch in batches:
        yield job(batch)


def _results_in_processes(
    batches: list[list[_Unit]], jobs: int, args: tuple[Any, ...]
) -> Iterator[Any]:
    # spawn: a fresh interpreter per worker, safe whatever threads this process runs.
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    try:
        job = functools.partial(_run_units, *args)
        futures = [pool.submit(job, batch) for batch in batches]
        for future in concurrent.futures.as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _results_on_dask(
    batches: list[list[_Unit]], client: Any, args: tuple[Any, ...]
) -> Iterator[Any]:
    distributed = _import("distributed", "libsched[dask]")
    futures = [client.submit(_run_units, *args, batch, pure=False) for batch in batches]
    try:
        for future in distributed.as_completed(futures):
            yield future.result()
    finally:
        client.cancel(futures)


def _read_table(
    path: PathLike, paths: Sequence[str], grid: Sequence[Sequence[Any]]
) -> list[dict[str, Any]]:
    """The rows of a table written before, each axis value given back as the axis has it
    (a CSV holds text: kernel "6.10" must not come back as 6.1)."""
    pandas = _import("pandas", "libsched[pandas]")
    if os.fspath(path).endswith(".parquet"):
        frame = pandas.read_parquet(path)
    else:
        frame = pandas.read_csv(path, dtype={p: str for p in paths})
    missing = _fixed(paths) - set(frame.columns)
    if missing:
        raise ValueError(
            f"libsched.sweep: {os.fspath(path)} is not this sweep's table: it lacks "
            f"{', '.join(sorted(missing))}"
        )
    rows: list[dict[str, Any]] = []
    by_text = [{str(v): v for v in axis} for axis in grid]
    for row in frame.to_dict("records"):
        values = [row[p] for p in paths]
        if all(str(v) in known for v, known in zip(values, by_text)):
            for p, v, known in zip(paths, values, by_text):
                row[p] = known[str(v)]
            rows.append(row)
    return rows


def _key(values: Sequence[Any], repetition: Any) -> tuple[str, ...]:
    # As text, so that values read back from CSV (all text) match those of the axes.
    return (*(str(v) for v in values), str(int(repetition)))


def sweep(
    scenario: Union[PathLike, Scenario],
    axes: Mapping[str, Any],
    *,
    repetitions: int = 1,
    figures: Optional[Sequence[str]] = None,
    seed: Optional[int] = None,
    jobs: Optional[int] = None,
    client: Any = None,
    batch_size: Optional[int] = None,
    out: Optional[PathLike] = None,
    resume: bool = False,
    progress: Optional[bool] = None,
) -> SweepResult:
    """Run ``scenario`` (a path or a ``libsched.Scenario``) at every point of the grid
    ``axes`` (field path -> values, e.g. ``{"tasks.b.nice": range(0, 20), "machine.kernel":
    ["5.15", "6.6", "6.18"]}``; paths as ``Scenario.get`` takes them), ``repetitions``
    times each, and return the table.

    Each repetition of each point is one simulated repetition whose seed is a hash of
    ``seed`` (default: the scenario's, else 1), the point's values and the repetition
    (``point_seed``), so the table is the same on every engine: in this process
    (``jobs=1``), on ``jobs`` local processes (default: all CPUs), or on a Dask cluster
    (``client``: a ``distributed.Client``). ``figures`` are names of the JSON summary's
    per-entry figures (``share``, ``ratio``, ``jiffies``, ``nvcsw_per_s``,
    ``wakeup_latency.p99``, ``run_delay.p99``, ``theory_share`` ...); each becomes a column
    ``ENTRY.FIGURE``. ``out`` writes the table (``.parquet`` or CSV), also when the sweep
    is interrupted; with ``resume=True`` the rows already in ``out`` are kept and their
    points not run again. A point whose scenario is invalid is listed in ``failures`` with
    its values and the error (and warned about); the others go on. ``progress`` shows a
    bar with tqdm (default: when tqdm is installed).
    """
    base = scenario if isinstance(scenario, Scenario) else Scenario.from_file(scenario)
    if not isinstance(axes, Mapping) or not axes:
        raise TypeError("libsched.sweep: axes must be a non-empty mapping of field paths to values")
    check_int("sweep", "repetitions", repetitions, 1, _MAX_REPETITIONS)
    check_int("sweep", "jobs", jobs, 1, None, optional=True)
    check_int("sweep", "batch_size", batch_size, 1, None, optional=True)
    if client is not None and jobs is not None:
        raise ValueError("libsched.sweep: give jobs (local processes) or client (Dask), not both")
    base_seed = base.get("seed", 1) if seed is None else seed
    check_int("sweep", "seed", base_seed, 0, 2**63 - 1)
    paths = list(axes)
    grid = [axis_values(path, axes[path]) for path in paths]
    wanted = list(figures) if figures is not None else _default_figures(base)
    for path, axis in zip(paths, grid):  # a path that names nothing fails here, once
        base.with_values({path: axis[0]})

    # Rows of points no longer on the grid are dropped from the table written back.
    done: list[dict[str, Any]] = []
    if resume and out is not None and os.path.exists(out):
        done = _read_table(out, paths, grid)
    finished = {_key([row[p] for p in paths], row["repetition"]) for row in done}
    units: list[_Unit] = []
    point_of: dict[tuple[Any, ...], int] = {}
    for point, values in enumerate(itertools.product(*grid)):
        point_of[tuple(str(v) for v in values)] = point
        for repetition in range(repetitions):
            if _key(values, repetition) not in finished:
                units.append((point, repetition, values, point_seed(base_seed, values, repetition)))

    rows = [
        {
            **row,
            "point": point_of[tuple(str(row[p]) for p in paths)],
            "repetition": int(row["repetition"]),
            "seed": int(row["seed"]),
        }
        for row in done
        if int(row["repetition"]) < repetitions
    ]
    failures: list[SweepFailure] = []
    seen_warnings: set[str] = set()
    workers = 1 if jobs is None and client is None and len(units) < 2 else jobs
    workers = workers if workers is not None else (os.cpu_count() or 1)
    batches = _batches(units, workers if client is None else 16, batch_size)
    args = (base.to_toml(), base.origin, paths, wanted)
    if client is not None:
        results = _results_on_dask(batches, client, args)
    elif workers == 1:
        results = _results_in_process(batches, lambda batch: _run_units(*args, batch))
    else:
        results = _results_in_processes(batches, workers, args)

    bar = _progress(len(units), progress)
    try:
        for batch in results:
            for status, point, repetition, seed_of, found, messages in batch:
                at = grid_values(grid, point)
                named = dict(zip(paths, at))
                if status == "failed":
                    failures.append(SweepFailure(point, repetition, named, found))
                    continue
                rows.append(
                    {"point": point, **named, "repetition": repetition, "seed": seed_of, **found}
                )
                seen_warnings.update(messages)
            if bar is not None:
                bar.update(len(batch))
                bar.set_postfix(failed=len(failures), refresh=False)
    finally:
        if bar is not None:
            bar.close()
        result = SweepResult(paths, wanted, rows, failures)
        if out is not None and result.rows:
            result.save(out)
    for message in sorted(seen_warnings):
        warnings.warn(message, ScenarioWarning, stacklevel=2)
    for failure in result.failures:
        warnings.warn(f"libsched.sweep: {failure}", RuntimeWarning, stacklevel=2)
    return result


def grid_values(grid: Sequence[Sequence[Any]], point: int) -> tuple[Any, ...]:
    """The values of point ``point`` of the grid (points count in ``itertools.product``
    order: the last axis fastest)."""
    values: list[Any] = []
    for axis in reversed(grid):
        point, index = divmod(point, len(axis))
        values.append(axis[index])
    return tuple(reversed(values))


def load_sweep(path: PathLike) -> tuple[Scenario, dict[str, Any]]:
    """A sweep file: a scenario with a ``[sweep]`` table (``axes``: path -> list or
    ``{from, to, step}``; optional ``repetitions``, ``seed``, ``figures``). Returns the
    scenario without it and the ``sweep`` keyword arguments it gives."""
    origin = os.fspath(path)
    document = _core.scenario.parse_toml(_core.run.read_scenario_file(origin), origin)
    spec = document.pop("sweep", None)
    if not isinstance(spec, dict):
        raise ValueError(f"{origin}: no [sweep] table (a sweep file is a scenario with one)")
    unknown = set(spec) - {"axes", "repetitions", "seed", "figures"}
    if unknown:
        raise ValueError(f"{origin}: sweep.{sorted(unknown)[0]}: unknown key")
    if not isinstance(spec.get("axes"), dict) or not spec["axes"]:
        raise ValueError(f"{origin}: sweep.axes: missing; a table of field paths to values")
    options: dict[str, Any] = {"axes": spec["axes"]}
    for key in ("repetitions", "seed", "figures"):
        if key in spec:
            options[key] = spec[key]
    scenario = Scenario.from_text(_core.scenario.format_toml(document), origin)
    return scenario, options


def main(args: list[str]) -> int:
    """``libsched sweep``: run a sweep file (exit 0; 1 when a point failed or the file is
    bad; 130 on Ctrl-C, after writing the rows that finished)."""
    parser = argparse.ArgumentParser(
        prog="libsched sweep",
        description="Run a scenario over a grid of parameter values ([sweep] in the file).",
    )
    parser.add_argument("file", help="a scenario file with a [sweep] table")
    parser.add_argument("--jobs", type=int, help="local processes (default: all CPUs)")
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler")
    parser.add_argument("--out", help="write the table here (.parquet or .csv)")
    parser.add_argument("--resume", action="store_true", help="keep the rows already in --out")
    parser.add_argument("--reps", type=int, help="repetitions per point (overrides the file)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    opts = parser.parse_args(args)
    try:
        scenario, options = load_sweep(opts.file)
        if opts.reps is not None:
            options["repetitions"] = opts.reps
        client = None
        if opts.dask:
            client = _import("distributed", "libsched[dask]").Client(opts.dask)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # failures are printed below
            result = sweep(
                scenario,
                options.pop("axes"),
                jobs=opts.jobs,
                client=client,
                out=opts.out,
                resume=opts.resume,
                progress=False if opts.quiet else None,
                **options,
            )
    except KeyboardInterrupt:
        where = f"; the finished rows are in {opts.out}" if opts.out else ""
        print(f"libsched: sweep: interrupted{where}", file=sys.stderr)
        return 130
    except (ValueError, TypeError, KeyError, OSError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"libsched: {message}", file=sys.stderr)
        return 1
    for failure in result.failures:
        print(f"libsched: sweep: {failure}", file=sys.stderr)
    if opts.out:
        print(f"{len(result)} rows written to {opts.out}")
    else:
        print(result.to_pandas().to_string(index=False))
    return 1 if result.failures else 0
