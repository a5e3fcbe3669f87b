#!/usr/bin/env python3
"""Derive the replays' figures from a host-measure data file.

Python 3.11 standard library only.  See README.md in this directory.

    python3 tools/host-measure/replay_figures.py \
        examples/replays/data/host-6.18-groups.json \
        examples/replays/data/host-6.18-replay-figures.json

The measurement file (measure_groups.py's output) keeps its cases under "cases"; the
replays' [measured] tables read "experiments" with a "share_percent" figure
(docs/scenario-format.md, "Figures from a data file").  This script writes the second
shape from the first and changes no figure: for each case it takes the same quantity the
measurement file's medians give for a group ("cpus") for each group or task the replay names: the median over the kept repetitions of its
CPU time over the repetition's run length, in percent of one CPU, unrounded.  Beside it,
for the replay's tolerance: each repetition's value and the farthest one's distance from
the median.  Nothing here is
read by the model.
"""

from __future__ import annotations

import json
import statistics
import sys

# case id -> what the replay's entries stand for, in order: ("group", name) sums the tasks
# of a cpu cgroup and its children (the measurement's "groups"); ("task", index) is one
# burner (its "task_index").  Cases 5, 6a, 6b and 7 use CFS bandwidth control; their
# experiments also carry the groups' cpu.stat deltas ("cpu_stat").
FIGURES = {
    "1": [("group", "a"), ("group", "b")],
    "2": [("group", "a"), ("group", "b")],
    "3": [("group", "P/x"), ("group", "P/y"), ("group", "Q")],
    "4": [("group", "a"), ("group", "b")],
    "5": [("task", 0), ("task", 1)],
    "6a": [("task", 0), ("task", 1), ("task", 2)],
    "6b": [("task", 0), ("task", 1), ("task", 2)],
    "7": [("group", "q"), ("group", "u")],
    "8": [("task", 0), ("task", 1)],
    "9": [("task", 0), ("task", 1)],
    "10a": [("task", 0), ("task", 1)],
    "10b": [("task", 0), ("task", 1)],
    "10c": [("task", 0), ("task", 1)],
    "10d": [("task", 0), ("task", 1)],
    "11": [("group", "a"), ("group", "b")],
    "12": [("group", "a"), ("group", "b")],
    "13": [("group", "m"), ("group", "o")],
}


def cpu_ns(rep: dict, what: tuple) -> int:
    kind, key = what
    if kind == "group":
        return rep["groups"][key]["cpu_ns"]
    (task,) = [t for t in rep["tasks"] if t["task_index"] == key]
    return task["sum_exec_runtime_ns"]


def label(case: dict, what: tuple) -> str:
    kind, key = what
    if kind == "group":
        return f"group {key}"
    t = case["config"]["tasks"][key]
    policy = t["policy"] or "other"
    return f"task {key} ({policy}{' ' + str(t['prio']) if t['policy'] else ''}, nice {t['nice']})"


def figure(case: dict, entries: list) -> dict:
    reps = case["repetitions"]
    shares, per_rep, spread = [], [], []
    for what in entries:
        values = [cpu_ns(r, what) / r["run_ns"] for r in reps]
        share = statistics.median(values)
        if what[0] == "group":  # the file's own figure, as a check
            stated = case["medians"]["groups"][what[1]]["cpus"]
            if abs(stated - share) > 1e-12:
                raise SystemExit(f"case {case['id']}: {what} gives {share}, file says {stated}")
        shares.append(100 * share)
        per_rep.append([100 * v for v in values])
        spread.append(100 * max(abs(v - share) for v in values))
    out = {
        "entries": [label(case, w) for w in entries],
        "share_percent": shares,
        "repetitions_percent": per_rep,
        "max_abs_deviation_percent": spread,
    }
    if all(w[0] == "task" for w in entries):
        out["nice"] = [case["config"]["tasks"][w[1]]["nice"] for w in entries]
    return out


def cpu_stat(case: dict) -> dict | None:
    """The cpu.stat deltas of each group with a quota: the file's medians, and each
    repetition's, unchanged."""
    medians = case["medians"]["groups"]
    out = {}
    for name, g in medians.items():
        settings = [x["settings"] for x in case["config"]["groups"] if x["name"] == name]
        if not settings or "cpu.cfs_quota_us" not in settings[0]:
            continue
        out[name] = {
            "median": g["cpu_stat_delta"],
            "repetitions": [r["groups"][name]["cpu_stat_delta"] for r in case["repetitions"]],
        }
    return out or None


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    source = argv[1].replace("\\", "/").rsplit("/", 1)[-1]
    experiments = []
    for case in doc["cases"]:
        if case["id"] not in FIGURES:
            continue
        experiment = {
            "id": f"host-6.18-{case['id']}",
            "case": case["id"],
            "name": case["name"],
            "description": case["config"]["description"],
            "repetitions": len(case["repetitions"]),
            "cpus": figure(case, FIGURES[case["id"]]),
        }
        stat = cpu_stat(case)
        if stat:
            experiment["cpu_stat"] = stat
        experiments.append(experiment)
    result = {
        "about": (
            f"Figures derived from {source} by tools/host-measure/replay_figures.py, in the "
            "shape the replays' [measured] data tables read; regenerate, do not edit. For each "
            "case, 'cpus' gives per group or task (entries, in order) share_percent: the "
            "median over the kept repetitions of its CPU time (sum_exec_runtime at exit) over "
            "the repetition's run length (run_ns), in percent of one CPU, as the source's "
            "medians give 'cpus' for a group; repetitions_percent: each repetition's value; "
            "max_abs_deviation_percent: the farthest repetition's distance "
            "from the median. Cases 5, 6a, 6b and 7 (CFS bandwidth control) also give, for "
            "each group with a quota, 'cpu_stat': the source's median cpu.stat deltas and "
            "each repetition's, unchanged."
        ),
        "source": source,
        "host": doc["host"],
        "experiments": experiments,
    }
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for e in experiments:
        c = e["cpus"]
        print(
            e["id"],
            " ".join(f"{n}={s:.4f}%" for n, s in zip(c["entries"], c["share_percent"])),
            "max|rep-median| =",
            " ".join(f"{d:.4f}" for d in c["max_abs_deviation_percent"]),
            "pp",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
