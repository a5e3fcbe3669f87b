"""libsched.Simulator: one repetition stepped or run in pieces gives the figures of
libsched.run, its snapshots agree with one another and with hand-computed shares, its trace
is the CLI's --trace CSV, and bad arguments are refused in the package's words."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import libsched

# Two CPUs, a sleeper and burners, one of them niced: wakeups, preemptions, migrations.
MIXED = """
name = "mixed"
length = "300ms"
repetitions = 3
seed = 11

[machine]
cpus = 2
hz = 250
kernel = "{kernel}"

[[tasks]]
name = "hog"
count = 2

[[tasks]]
name = "nice"
nice = 5

[[tasks]]
name = "sleeper"
behaviour = {{ type = "periodic", run = "1ms", sleep = "3ms" }}
"""

PAIR = """
name = "pair"
length = "2s"

[machine]
cpus = 1
hz = 250
kernel = "{kernel}"

[[tasks]]
name = "a"

[[tasks]]
name = "b"
"""

TICK_NS = 4_000_000  # HZ 250


def scenario(tmp_path: Path, text: str, kernel: str = "6.12") -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(text.format(kernel=kernel))
    return path


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    return scenario(tmp_path, MIXED)


@pytest.mark.parametrize("repetition", [0, 2])
def test_stepping_to_the_end_gives_the_figures_of_run(mixed: Path, repetition: int) -> None:
    sim = libsched.Simulator(mixed, repetition=repetition)
    assert sim.seed == 11 + repetition
    steps = 0
    while sim.step():
        steps += 1
    assert sim.done and sim.now == sim.end == 300_000_000
    assert not sim.step()
    document = sim.result()
    # The whole document is that of a one-repetition run with this seed...
    assert document == libsched.run(mixed, repetitions=1, seed=sim.seed)
    # ...and its repetition is repetition r of the scenario's own run, number for number.
    assert document["repetitions"] == [libsched.run(mixed)["repetitions"][repetition]]
    assert document["repetitions"][0]["model"]["events"] == steps == sim.events


def test_an_explicit_seed_is_the_first_repetitions_as_for_run(mixed: Path) -> None:
    sim = libsched.Simulator(mixed, 100, repetition=1)
    assert sim.seed == 101
    sim.run()
    rep = sim.result()["repetitions"][0]
    assert rep == libsched.run(mixed, seed=100)["repetitions"][1]


def test_run_in_pieces_equals_one_run(mixed: Path) -> None:
    whole = libsched.Simulator(mixed)
    whole.run()
    pieces = libsched.Simulator(mixed)
    pieces.run("50ms")
    assert pieces.now == 50_000_000 and not pieces.done
    pieces.run(120_000_001)
    assert pieces.now == 120_000_001
    pieces.run(pieces.now)  # until == now runs nothing
    pieces.run(2**80)  # beyond the end: stops there
    assert pieces.done and pieces.now == pieces.end
    pieces.run()
    assert pieces.result() == whole.result()


def test_now_and_events_advance_one_event_per_step(mixed: Path) -> None:
    sim = libsched.Simulator(mixed)
    assert (sim.now, sim.events, sim.done) == (0, 0, False)
    now, events = 0, 0
    while sim.step():
        events += 1
        assert sim.events == events
        assert now <= sim.now < sim.end
        now = sim.now
    assert events > 100 and sim.events == events
    assert sim.now == sim.end  # the last step finished the run: the clock is at the end


def test_result_runs_to_the_end_first(mixed: Path) -> None:
    sim = libsched.Simulator(mixed)
    sim.run("10ms")
    document = sim.result()
    assert sim.done
    assert document == libsched.run(mixed, repetitions=1)


def test_checking_invariants_changes_no_figure(mixed: Path) -> None:
    checked = libsched.Simulator(mixed, check_invariants=True)
    plain = libsched.Simulator(mixed)
    assert checked.result() == plain.result()


def check_snapshot(sim: libsched.Simulator, by_deadline: bool) -> None:
    """What must hold at any instant between events."""
    tasks = {t.name: t for t in sim.tasks}
    cpus = sim.cpus
    assert [q.cpu for q in cpus] == list(range(len(cpus)))
    # Every queued task is counted once, on its own CPU: the running ones, the waiting ones
    # and (6.12+) the sleeping ones whose dequeue is delayed.
    assert sum(q.nr_running for q in cpus) == sum(t.on_rq for t in tasks.values())
    assert sum(q.nr_running - q.h_nr_delayed for q in cpus) == sum(
        t.state == "R" for t in tasks.values()
    )
    for t in tasks.values():
        assert t.sched_delayed == (t.on_rq and t.state == "S")
    for q in cpus:
        queued = [t for t in tasks.values() if t.on_rq and t.cpu == q.cpu]
        assert q.nr_running == q.nr_queued == q.h_nr_queued == len(queued)
        assert q.load == sum(t.weight for t in queued)
        in_tree = [e.task for e in q.entities]
        if q.curr is not None:
            curr = tasks[q.curr]
            assert curr.state == "R" and curr.cpu == q.cpu and curr.on_rq
            assert q.curr not in in_tree  # the kernel keeps the running entity out of the tree
            assert sorted([*in_tree, q.curr]) == sorted(t.name for t in queued)
        else:
            assert in_tree == [t.name for t in queued] == []
        keys = [e.deadline if by_deadline else e.vruntime for e in q.entities]
        assert keys == sorted(keys)
        if q.avg_vruntime is not None:
            # V is the load-weighted mean vruntime: the weighted lags cancel out, up to V's
            # rounding down (less than the total weight).
            weighted_lag = sum(t.weight * (t.lag or 0) for t in queued)
            assert 0 <= -weighted_lag < max(q.load, 1)


# The fair queue's tree is ordered by vruntime under CFS, by deadline under EEVDF.
@pytest.mark.parametrize(
    ("kernel", "by_deadline"), [("5.15", False), ("6.6", True), ("6.12", True)]
)
def test_snapshots_mid_run_agree_with_one_another(
    tmp_path: Path, kernel: str, by_deadline: bool
) -> None:
    sim = libsched.Simulator(scenario(tmp_path, MIXED, kernel))
    runtime: dict[str, int] = {}
    states: set[str] = set()
    while sim.now < 290_000_000:
        sim.run(sim.now + 3_700_000)
        check_snapshot(sim, by_deadline)
        for t in sim.tasks:
            assert t.sum_exec_runtime >= runtime.get(t.name, 0)
            runtime[t.name] = t.sum_exec_runtime
            states.add(t.state)
            assert (t.deadline is None) == (kernel == "5.15")
    assert states == {"R", "S"}


def test_vruntime_of_a_burner_never_goes_back(tmp_path: Path) -> None:
    sim = libsched.Simulator(scenario(tmp_path, PAIR))
    last = {"a": -(2**63), "b": -(2**63)}
    for _ in range(3000):
        sim.step()
        for t in sim.tasks:
            if t.state != "N":
                assert t.vruntime >= last[t.name]
                last[t.name] = t.vruntime


@pytest.mark.parametrize("kernel", ["5.15", "6.12"])
def test_two_nice_0_burners_each_get_half_a_second_of_the_first(
    tmp_path: Path, kernel: str
) -> None:
    # No tick IRQ time: the whole clock is the tasks' to share.
    no_irq_time = PAIR.replace("cpus = 1", 'cpus = 1\ntick_irq = "0us"')
    sim = libsched.Simulator(scenario(tmp_path, no_irq_time, kernel))
    sim.run("1s")
    a, b = sim.task("a"), sim.task("b")
    assert (a.weight, b.weight) == (1024, 1024)  # nice 0: NICE_0_LOAD
    # Figures are as of the last update, the last tick before 1 s (run() stops before the events
    # at `until`): the pair had the CPU up to then, split evenly up to the slice in
    # progress (at most a tick).
    assert 10**9 - TICK_NS <= a.sum_exec_runtime + b.sum_exec_runtime <= 10**9
    assert abs(a.sum_exec_runtime - b.sum_exec_runtime) <= TICK_NS
    for t in (a, b):
        assert abs(t.sum_exec_runtime - 500_000_000) <= TICK_NS


def test_task_views_name_the_kernels_fields(tmp_path: Path) -> None:
    path = tmp_path / "groups.toml"
    path.write_text(
        textwrap.dedent(
            """
            length = "100ms"
            [machine]
            cpus = 1
            kernel = "6.18"
            [[cgroups]]
            name = "web"
            [[tasks]]
            name = "w"
            count = 2
            cgroup = "web"
            [[tasks]]
            name = "solo"
            [[tasks]]
            name = "rt"
            policy = "fifo"
            rt_priority = 10
            behaviour = { type = "periodic", run = "1ms", sleep = "9ms" }
            [[tasks]]
            name = "late"
            nice = -5
            start = "50ms"
            [[tasks]]
            name = "brief"
            lifetime = "2ms"
            """
        )
    )
    sim = libsched.Simulator(path)
    names = ["w.0", "w.1", "solo", "rt", "late", "brief"]
    assert [t.name for t in sim.tasks] == names
    assert [t.pid for t in sim.tasks] == sorted(t.pid for t in sim.tasks)
    sim.run("5ms")
    w = sim.task("w.1")
    assert (w.entry, w.group, w.policy, w.prio, w.nice) == ("w", "web", "normal", 120, 0)
    rt = sim.task("rt")
    assert (rt.policy, rt.prio, rt.group, rt.state) == ("fifo", 99 - 10, "", "S")
    late = sim.task("late")
    assert (late.state, late.prio, late.weight) == ("N", 115, libsched.nice_to_weight(-5))
    assert sim.task("brief").state == "X"
    # The root queue holds two entities, the task solo and the group web (both w's in it);
    # the one running is out of the tree.
    q = sim.rq(0)
    assert (q.nr_queued, q.h_nr_queued, q.nr_running) == (2, 3, 3)
    assert q.curr is not None
    (waiting,) = q.entities
    if q.curr == "solo":
        assert (waiting.task, waiting.group) == (None, "web")
    else:
        assert q.curr in ("w.0", "w.1")
        assert (waiting.task, waiting.group) == ("solo", None)
        assert waiting.weight == sim.task("solo").weight


def test_trace_rows_are_the_cli_trace_csv(
    mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path = tmp_path / "trace.csv"
    cli = ["run", "--quiet", "--trace", str(csv_path), str(mixed)]
    assert libsched._core.run.cli_main(cli) == 0
    capsys.readouterr()
    with csv_path.open(newline="") as f:
        expected = [row for row in csv.DictReader(f) if row["repetition"] == "1"]
    assert expected

    sim = libsched.Simulator(mixed, repetition=1, trace=True)
    sim.run("100ms")
    early = sim.trace()
    sim.run()
    trace = sim.trace()
    assert set(trace) == set(expected[0]) - {"repetition"}
    assert all(len(column) == len(expected) for column in trace.values())
    missing = {"next_pid", "dest_cpu"}  # -1 where the CSV leaves the field empty
    rows = [
        {
            name: ("" if name in missing and int(trace[name][i]) == -1 else str(trace[name][i]))
            for name in trace
        }
        for i in range(len(expected))
    ]
    assert rows == [{k: v for k, v in row.items() if k != "repetition"} for row in expected]
    # What was traced by 100 ms is the start of the whole trace.
    n = len(early["time_ns"])
    assert 0 < n < len(expected)
    for name, column in early.items():
        assert list(column) == list(trace[name][:n])
    assert set(trace["event"]) >= {"sched_switch", "sched_wakeup", "sched_migrate_task"}


def test_the_trace_says_why_each_task_was_preempted() -> None:
    # A run-100us-then-yield loop beside a burner on one CPU: the loop leaves the CPU only
    # by yielding, the burner only at its slice's end (update_deadline); each preemption is
    # an involuntary switch.
    examples = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
    sim = libsched.Simulator(examples / "yield.toml", trace=True)
    sim.run()
    trace = sim.trace()
    preempted = (trace["event"] == "sched_switch") & (trace["prev_state"] == "R")
    preempted &= trace["pid"] != 0
    why = {
        name: set(trace["reason"][preempted & (trace["comm"] == name)])
        for name in ("yielder", "burner")
    }
    assert why == {"yielder": {"sched_yield"}, "burner": {"update_deadline"}}
    tasks = {t["name"]: t for t in sim.result()["repetitions"][0]["tasks"]}
    for name in why:
        assert (preempted & (trace["comm"] == name)).sum() == tasks[name]["nivcsw"]
    assert set(trace["reason"][~preempted & (trace["event"] != "sched_migrate_task")]) == {""}


def test_scenario_objects_and_warnings(tmp_path: Path) -> None:
    class Scenario:
        origin = "<object>"

        def to_toml(self) -> str:
            return PAIR.format(kernel="6.6").replace('name = "b"', 'name = "b"\nnice = 25')

    with pytest.warns(libsched.ScenarioWarning, match="clamped to 19"):
        sim = libsched.Simulator(Scenario())
    assert sim.task("b").nice == 19


def test_repr_says_where_the_run_is(mixed: Path) -> None:
    sim = libsched.Simulator(mixed)
    assert repr(sim) == "<libsched.Simulator now=0 ns end=300000000 ns running>"
    sim.run()
    assert repr(sim) == "<libsched.Simulator now=300000000 ns end=300000000 ns done>"


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"seed": -1}, ValueError, r"libsched.Simulator: seed must be from 0 to 2\*\*64 - 1"),
        ({"seed": 1.5}, TypeError, "libsched.Simulator: seed must be an int or None, not float"),
        ({"repetition": 3}, ValueError, r"repetition must be from 0 to 2 \(the scenario has 3\)"),
        ({"repetition": -1}, ValueError, "libsched.Simulator: repetition must be >= 0, got -1"),
        ({"repetition": True}, TypeError, "repetition must be an int, not bool"),
        ({"trace": 1}, TypeError, "libsched.Simulator: trace must be a bool, not int"),
        ({"check_invariants": None}, TypeError, "check_invariants must be a bool"),
    ],
)
def test_bad_arguments_are_refused(
    mixed: Path, arguments: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        libsched.Simulator(mixed, **arguments)


def test_bad_calls_are_refused(mixed: Path) -> None:
    with pytest.raises(TypeError, match="libsched.Simulator: scenario must be a path"):
        libsched.Simulator(42)
    with pytest.raises(libsched.ScenarioError):
        libsched.Simulator(mixed.parent / "none.toml")
    bad = mixed.parent / "bad.toml"
    bad.write_text(mixed.read_text().replace('length = "300ms"', 'length = "-1s"'))
    with pytest.raises(libsched.ScenarioError) as error:
        libsched.Simulator(bad)
    assert error.value.field == "length"
    sim = libsched.Simulator(mixed)
    sim.run("20ms")
    with pytest.raises(ValueError, match=r"until \(10000000 ns\) is before now \(20000000 ns\)"):
        sim.run("10ms")
    with pytest.raises(ValueError, match="until .* is before now"):
        sim.run(-1)
    with pytest.raises(ValueError, match='until must be a duration such as "1.5s"'):
        sim.run("soon")
    with pytest.raises(TypeError, match="until must be an int"):
        sim.run(2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="libsched.Simulator.rq: cpu must be an int, not str"):
        sim.rq("0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="create it with trace=True"):
        sim.trace()
    with pytest.raises(ValueError, match="no task is named 'nope'"):
        sim.task("nope")
    with pytest.raises(ValueError, match="libsched.Simulator.rq: cpu must be from 0 to 1, got 2"):
        sim.rq(2)
    assert sim.now == 20_000_000  # nothing refused moved it


def test_runs_outside_the_main_thread(mixed: Path) -> None:
    # No Ctrl-C there: the run goes on without the signal handler.
    results: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: results.append(libsched.Simulator(mixed).result()))
    worker.start()
    worker.join()
    assert results == [libsched.run(mixed, repetitions=1)]


ENDLESS = """
name = "endless"
length = "100000s"
[[tasks]]
name = "b"
count = 2
"""

# Runs until Ctrl-C, then goes on 1 ms from where it stopped.
RUNNER = textwrap.dedent(
    f"""
    import libsched

    class Scenario:
        origin = "<endless>"
        def to_toml(self):
            return {ENDLESS!r}

    sim = libsched.Simulator(Scenario())
    print("ready", flush=True)
    try:
        sim.run()
    except KeyboardInterrupt:
        stopped = sim.now
        sim.run(stopped + 1_000_000)
        assert sim.now == stopped + 1_000_000 and not sim.done
        print("interrupted", stopped > 0, flush=True)
    """
)


def test_ctrl_c_raises_keyboard_interrupt_and_the_run_can_go_on() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", RUNNER], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
        time.sleep(0.5)  # the handler is set up inside run(): let it start
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)  # generous for a loaded machine
    assert out == "interrupted True\n", err
    assert process.returncode == 0
    assert time.monotonic() - sent < 60
