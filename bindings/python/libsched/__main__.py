"""``python -m libsched`` and the ``libsched`` console script: the C++ command-line tool,
with ``measure`` (which runs scenarios on this host) from the Python package."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any, Optional

from . import _core


def _table(doc: dict[str, Any]) -> str:
    rows = [("entry", "share %", "ratio", "jiffies", "vcsw/s", "ivcsw/s")]
    for s in doc["summary"]:
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
        rows.append((s["entry"], f"{100 * s['share']:.2f}", ratio, f"{s['jiffies']:.0f}",
                     f"{s['nvcsw_per_s']:.1f}", f"{s['nivcsw_per_s']:.1f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                     for r in rows)


def measure_main(args: list[str]) -> int:
    """``libsched measure``: run scenarios on this host (exit 0, 1 on a refusal or a
    scenario error, 2 on a usage error, 130 on Ctrl-C)."""
    from . import MeasureError, ScenarioError, host_machine, measure
    from .measure import machine_toml

    parser = argparse.ArgumentParser(
        prog="libsched measure",
        description="Run a scenario on this Linux host and report it as libsched run does.")
    parser.add_argument("scenario", nargs="?", help="the scenario file")
    parser.add_argument("--reps", type=int, help="repetitions (default: the scenario's)")
    parser.add_argument("--out", help="also write the JSON document to this file")
    parser.add_argument("--json", action="store_true", help="print the JSON document, not the table")
    parser.add_argument("--host", action="store_true", help="print this host as a [machine] table and exit")
    opts = parser.parse_args(args)
    if opts.host:
        sys.stdout.write(machine_toml(host_machine()))
        return 0
    if opts.scenario is None:
        parser.error("a scenario file is needed (or --host)")

    def progress(r: int, n: int) -> None:
        print(f"libsched: {opts.scenario}: repetition {r + 1} of {n}", file=sys.stderr, flush=True)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            doc = measure(opts.scenario, repetitions=opts.reps, out=opts.out, progress=progress)
        except (MeasureError, ScenarioError, ValueError) as err:
            print(f"libsched: {opts.scenario}: {err}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print(f"libsched: {opts.scenario}: interrupted; everything started was stopped and removed",
                  file=sys.stderr)
            return 130
        finally:
            for w in seen:
                print(f"libsched: {opts.scenario}: warning: {w.message}", file=sys.stderr)
    print(json.dumps(doc, indent=2, sort_keys=True) if opts.json else _table(doc))
    return 0


def main(argv: Optional[list[str]] = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["measure"]:
        sys.exit(measure_main(args[1:]))
    sys.exit(_core.run.cli_main(args))


if __name__ == "__main__":
    main()
