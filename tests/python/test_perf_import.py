"""libsched perf-import (libsched.Scenario.from_perf_script): a recorded schedule as a
workload. Each task's steps are the runs and sleeps the trace shows, worked out by hand
from the lines below; a trace the model itself wrote comes back as the same demand."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

import libsched
from libsched import Scenario
from libsched.perf_sched import per_cpu_kthread_cpu

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

MS = 1_000_000

# perf sched script's lines (perf 6.1's layout), two CPUs. "app" (prio 120, nice 0) runs
# 3 ms, sleeps 5 ms, runs 2 ms, is preempted for 1 ms by "ksoftirqd/1", runs 1 ms more and
# exits. "rt" (prio 89: SCHED_FIFO 10) forks at 1 ms on CPU 0, runs 0.5 ms and sleeps for
# good. "migration/0" (a stopper) and "idle" (never runs) are left out.
PERF = """\
            perf  1000 [001]   100.000000: sched:sched_stat_runtime: comm=perf pid=1000 runtime=1000 [ns]
         swapper     0 [001]   100.000000:       sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=42 next_prio=120
             app    42 [001]   100.001000: sched:sched_wakeup_new: comm=rt pid=43 prio=89 target_cpu=000
         swapper     0 [000]   100.001000:       sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rt next_pid=43 next_prio=89
              rt    43 [000]   100.001500:       sched:sched_switch: prev_comm=rt prev_pid=43 prev_prio=89 prev_state=S ==> next_comm=migration/0 next_pid=12 next_prio=0
     migration/0    12 [000]   100.001600:       sched:sched_switch: prev_comm=migration/0 prev_pid=12 prev_prio=0 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
             app    42 [001]   100.003000:       sched:sched_switch: prev_comm=app prev_pid=42 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
         swapper     0 [001]   100.008000:       sched:sched_waking: comm=app pid=42 prio=120 target_cpu=001
         swapper     0 [001]   100.008001:       sched:sched_wakeup: comm=app pid=42 prio=120 target_cpu=001
         swapper     0 [001]   100.008010:       sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=42 next_prio=120
             app    42 [001]   100.010010:       sched:sched_switch: prev_comm=app prev_pid=42 prev_prio=120 prev_state=R+ ==> next_comm=ksoftirqd/1 next_pid=24 next_prio=120
     ksoftirqd/1    24 [001]   100.011010:       sched:sched_switch: prev_comm=ksoftirqd/1 prev_pid=24 prev_prio=120 prev_state=S ==> next_comm=app next_pid=42 next_prio=120
             app    42 [001]   100.012010:       sched:sched_process_exit: comm=app pid=42 prio=120
             app    42 [001]   100.012010:       sched:sched_switch: prev_comm=app prev_pid=42 prev_prio=120 prev_state=X ==> next_comm=swapper/1 next_pid=0 next_prio=120
            idle    77 [000]   100.020000:       sched:sched_waking: comm=idle pid=77 prio=139 target_cpu=000
"""


def steps(entry: dict[str, Any]) -> list[tuple[str, int]]:
    return [next(iter(step.items())) for step in entry["behaviour"]["steps"]]


def entries(scenario: Scenario) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in scenario.to_dict()["tasks"]}


@pytest.fixture
def perf_text(tmp_path: Path) -> Path:
    path = tmp_path / "app.txt"
    path.write_text(PERF)
    return path


def test_each_task_asks_for_the_cpu_as_it_did_in_the_trace(perf_text: Path) -> None:
    sc = Scenario.from_perf_script(perf_text, kernel="6.12")
    tasks = entries(sc)
    assert sorted(tasks) == ["app-42", "ksoftirqd_1-24", "rt-43"]
    app = tasks["app-42"]
    # 3 ms, 5 ms asleep until its sched_waking, then 2 + 1 ms across the preemption.
    assert steps(app) == [("run", 3 * MS), ("sleep", 5 * MS), ("run", 3 * MS)]
    assert (app["start"], app["nice"], app["behaviour"]["loop"]) == (0, 0, 1)
    assert "affinity" not in app
    rt = tasks["rt-43"]
    assert steps(rt) == [("run", MS // 2)]  # its sleep for good is left out
    assert (rt["start"], rt["policy"], rt["rt_priority"]) == (MS, "fifo", 10)
    soft = tasks["ksoftirqd_1-24"]
    assert steps(soft) == [("run", MS)]
    assert soft["affinity"] == [1]  # a per-CPU kernel thread stays on its CPU
    assert soft["start"] == 0  # runnable when the trace began
    assert sc.get("length") == 20 * MS
    assert sc.get("machine") == {"cpus": 2, "kernel": "6.12"}


def test_exclude_and_pin(perf_text: Path) -> None:
    sc = Scenario.from_perf_script(perf_text, exclude=["^ksoft"], pin=True)
    tasks = entries(sc)
    assert sorted(tasks) == ["app-42", "rt-43"]
    assert tasks["app-42"]["affinity"] == [1]
    assert tasks["rt-43"]["affinity"] == [0]


def test_a_switch_the_trace_lost_counts_from_the_cpus_last_switch(tmp_path: Path) -> None:
    # app's switch-in at 100.002 is missing: it ran from the CPU's previous switch.
    lines = [
        "x 9 [000] 100.000000: sched:sched_switch: prev_comm=x prev_pid=9 prev_prio=120 "
        "prev_state=S ==> next_comm=y next_pid=8 next_prio=120",
        "y 8 [000] 100.002000: sched:sched_switch: prev_comm=y prev_pid=8 prev_prio=120 "
        "prev_state=S ==> next_comm=z next_pid=7 next_prio=120",
        "app 42 [000] 100.005000: sched:sched_switch: prev_comm=app prev_pid=42 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    ]
    path = tmp_path / "lost.txt"
    path.write_text("\n".join(lines) + "\n")
    assert steps(entries(Scenario.from_perf_script(path))["app-42"]) == [("run", 3 * MS)]


def test_a_trace_the_model_wrote_comes_back_as_the_same_demand(tmp_path: Path) -> None:
    # A 1 ms-run, 9 ms-sleep task beside a burner: the imported tasks ask for what each
    # ran, so the model gives them the same CPU time again.
    trace = tmp_path / "trace.csv"
    source = EXAMPLES / "scenarios" / "sleeper-vs-hog.toml"
    assert libsched._core.run.cli_main(["run", "-q", "--trace", str(trace), str(source)]) == 0
    with trace.open(newline="") as f:
        switches = [r for r in csv.DictReader(f) if r["event"] == "sched_switch"]
    original = libsched.run(source, repetitions=1)["repetitions"][0]["tasks"]
    sc = Scenario.from_perf_script(trace, machine=source)
    tasks = entries(sc)
    assert sorted(tasks) == ["hog-1001", "sleeper-1000"]
    assert tasks["hog-1001"]["behaviour"] == "burner"  # it never blocked
    # Each run step is a stretch on the CPU from the trace's switches (wall time: the
    # ticks' interrupt time, which sum_exec_runtime leaves out, is inside it).
    sleeper = [v for kind, v in steps(tasks["sleeper-1000"]) if kind == "run"]
    blocks = sum(r["comm"] == "sleeper" and r["prev_state"] == "S" for r in switches)
    mine = [r for r in switches if "sleeper" in (r["comm"], r["next_comm"])]
    assert len(sleeper) == blocks + (mine[-1]["next_comm"] == "sleeper")
    assert all(MS <= v <= MS + 10_000 for v in sleeper[:blocks])  # 1 ms and a tick's IRQ
    ran = {t["name"]: t["sum_exec_runtime"] for t in original}
    replayed = libsched.run(sc, repetitions=1)["repetitions"][0]["tasks"]
    for t in replayed:
        name = t["name"].rsplit("-", 1)[0]
        assert abs(t["sum_exec_runtime"] - ran[name]) <= 0.005 * ran[name], name


# A loop of 2 ms runs and 8 ms sleeps that exits at 1.5 s, beside a burner, on one CPU.
CLOSED_LOOP = """
name = "closed-loop"
length = "2s"
[machine]
cpus = 1
kernel = "6.12"
[[tasks]]
name = "loop"
behaviour = { type = "periodic", run = "2ms", sleep = "8ms" }
exit_at = "1500ms"
[[tasks]]
name = "hog"
"""


def traced(tmp_path: Path, source: Scenario) -> Path:
    """The trace of one repetition of ``source``, as ``libsched run --trace`` writes it."""
    scenario = tmp_path / "source.toml"
    scenario.write_text(source.to_toml())
    trace = tmp_path / "trace.csv"
    assert libsched._core.run.cli_main(["run", "-q", "--trace", str(trace), str(scenario)]) == 0
    return trace


def cpu_time(scenario: Scenario, prefix: str) -> int:
    tasks = libsched.run(scenario, repetitions=1)["repetitions"][0]["tasks"]
    return sum(t["sum_exec_runtime"] for t in tasks if t["name"].startswith(prefix))


def test_loops_repeat_a_steady_loop_until_it_exited(tmp_path: Path, perf_text: Path) -> None:
    source = Scenario.from_text(CLOSED_LOOP)
    trace = traced(tmp_path, source)
    once = entries(Scenario.from_perf_script(trace, machine=source))["loop-1000"]
    assert once["behaviour"]["loop"] == 1 and "exit_at" not in once
    looped = entries(Scenario.from_perf_script(trace, machine=source, loops=True))["loop-1000"]
    assert looped["behaviour"]["loop"] == -1
    # Its recorded steps, then a sleep as long as its median one, until its exit.
    recorded = steps(once)
    assert steps(looped)[:-1] == recorded
    sleeps = sorted(v for kind, v in recorded if kind == "sleep")
    assert len(sleeps) > 100
    assert steps(looped)[-1] == ("sleep", sleeps[(len(sleeps) + 1) // 2 - 1])
    assert steps(looped)[-1][1] in range(8 * MS, 8 * MS + 100_000)
    assert looped["exit_at"] in range(1500 * MS, 1500 * MS + 10 * MS)
    # A task that slept fewer than ten times runs its steps once.
    assert (
        entries(Scenario.from_perf_script(perf_text, loops=True))["app-42"]["behaviour"]["loop"]
        == 1
    )


def test_a_looped_import_keeps_its_pace_under_a_what_if(tmp_path: Path) -> None:
    # The hog at nice 10: the loop waits less for the CPU and goes round more often. The
    # import run once replays the nice-0 run's demand; looped, it gets what the source
    # scenario itself gives at nice 10.
    source = Scenario.from_text(CLOSED_LOOP)
    trace = traced(tmp_path, source)
    nice10 = source.with_values({"tasks[1].nice": 10})
    expected = cpu_time(nice10, "loop")
    assert expected > 1.05 * cpu_time(source, "loop")
    got = {}
    for loops in (False, True):
        imported = Scenario.from_perf_script(trace, machine=source, loops=loops)
        assert imported.get("tasks[1].name") == "hog-1001"
        got[loops] = cpu_time(imported.with_values({"tasks[1].nice": 10}), "loop")
    assert got[False] < 0.95 * expected
    assert abs(got[True] - expected) <= 0.02 * expected


# A loop of 4 ms runs every 10 ms of an absolute timer, beside a burner, on one CPU.
TIMER_LOOP = CLOSED_LOOP.replace(
    'behaviour = { type = "periodic", run = "2ms", sleep = "8ms" }',
    'behaviour = { type = "periodic", run = "4ms", period = "10ms" }',
)


def test_a_timer_loop_sleeps_until_its_grid(tmp_path: Path) -> None:
    source = Scenario.from_text(TIMER_LOOP)
    trace = traced(tmp_path, source)
    imported = Scenario.from_perf_script(
        trace, machine=source, loops=True, timers={"^loop$": "10ms"}
    )
    loop = entries(imported)["loop-1000"]
    timer = {"timer": 10 * MS, "ref": "unique", "mode": "absolute"}
    program = loop["behaviour"]["steps"]
    assert all(step == timer for step in program[1::2]) and len(program) % 2 == 0
    assert all("run" in step for step in program[::2])
    # Its timer's first expiry, a period after its start, is its first wakeup's time.
    with trace.open(newline="") as f:
        rows = list(csv.DictReader(f))
    woke = next(int(r["time_ns"]) for r in rows if r["event"] == "sched_wakeup")
    origin = int(rows[-1]["time_ns"]) - imported.get("length")
    assert loop["start"] + 10 * MS == woke - origin
    # Its sleeps, all of which ended on the grid, kept it on the grid whatever it waited:
    # the burner at nice 10 leaves it its 4 ms every round, as the source itself gives.
    expected = cpu_time(source.with_values({"tasks[1].nice": 10}), "loop")
    got = cpu_time(imported.with_values({"tasks[1].nice": 10}), "loop")
    assert abs(got - expected) <= 0.01 * expected
    # Repeated as sleeps of their median length it would have gone round far more often.
    as_sleeps = Scenario.from_perf_script(trace, machine=source, loops=True)
    assert cpu_time(as_sleeps.with_values({"tasks[1].nice": 10}), "loop") > 1.2 * expected
    with pytest.raises(ValueError, match="timer 'loop': the period must be a positive duration"):
        Scenario.from_perf_script(trace, timers={"loop": "ten"})


def test_the_scenario_starts_on_the_traces_tick_grid(tmp_path: Path) -> None:
    # The model's ticks come at whole 4 ms periods (HZ 250). A trace cut to begin inside a
    # period imports as a scenario that begins at a point of that grid (the tick's switches
    # come a few µs after it) before the first event.
    source = Scenario.from_text(CLOSED_LOOP)
    trace = traced(tmp_path, source)
    with trace.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for cut_at in (101_300_000, 202_900_000, 303_999_000):
        kept = [r for r in rows if int(r["time_ns"]) >= cut_at]
        cut = tmp_path / "cut.csv"
        with cut.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(kept)
        imported = Scenario.from_perf_script(cut, machine=source)
        origin = int(kept[-1]["time_ns"]) - imported.get("length")
        first = int(kept[0]["time_ns"])
        assert first - 4 * MS < origin <= first
        assert origin % (4 * MS) < 10_000
        # The window is the trace's span, as a measurement of the trace takes it.
        if origin < first:
            assert imported.get("window") == [first - origin, imported.get("length")]


def test_a_bad_row_of_a_trace_csv_is_named_by_its_line(tmp_path: Path) -> None:
    header = "repetition,time_ns,cpu,event,pid,comm,prev_state,next_pid,next_comm,dest_cpu,reason"
    path = tmp_path / "bad.csv"
    path.write_text(
        f"{header}\n0,1000,0,sched_wakeup_new,7,a,,,,-1,\n0,soon,0,sched_switch,0,swapper,R,7,a,-1,\n"
    )
    with pytest.raises(libsched.perf_sched.TraceError, match=r"bad.csv:3: time_ns: .*'soon'"):
        Scenario.from_perf_script(path)


def test_the_command_prints_toml_and_names_a_bad_file(perf_text: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "libsched", "perf-import"]
    out = subprocess.run(
        [*command, str(perf_text), "--kernel", "6.18"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert Scenario.from_text(out.stdout).get("machine.kernel") == "6.18"
    written = tmp_path / "app.toml"
    assert subprocess.run([*command, str(perf_text), "-o", str(written)]).returncode == 0
    assert Scenario.from_file(written) == Scenario.from_perf_script(perf_text)
    timed = subprocess.run(
        [*command, str(perf_text), "--timer", "^app$=5ms"], capture_output=True, text=True
    )
    assert timed.returncode == 0, timed.stderr
    assert {"timer": 5 * MS, "ref": "unique", "mode": "absolute"} in Scenario.from_text(
        timed.stdout
    ).get("tasks.app-42.behaviour.steps")
    for bad, message in (("5ms", "give REGEX=PERIOD"), ("app=soon", "positive duration")):
        out = subprocess.run(
            [*command, str(perf_text), "--timer", bad], capture_output=True, text=True
        )
        assert out.returncode != 0 and message in out.stderr, out.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("not a trace\n")
    bad = subprocess.run([*command, str(empty)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stderr == "libsched perf-import: the trace holds no scheduling events\n"


TIMER = {"python3": "10ms"}


@pytest.mark.parametrize(
    ("name", "trace", "options"),
    [
        ("burner-and-sleeper", "burner-and-sleeper", {"pin": True}),
        ("burner-and-sleeper-loops", "burner-and-sleeper", {"pin": True, "loops": True}),
        ("nice10-burner-and-sleeper", "nice10-burner-and-sleeper", {"pin": True}),
        ("two-burners-and-sleeper", "two-burners-and-sleeper", {"pin": True}),
        ("three-burners-and-sleeper", "three-burners-and-sleeper", {}),
        ("timer-and-burner", "timer-and-burner", {"pin": True, "timers": TIMER}),
        ("nice10-timer-and-burner", "nice10-timer-and-burner", {"pin": True, "timers": TIMER}),
    ],
)
def test_the_bundled_examples_are_the_imports_of_their_traces(
    name: str, trace: str, options: dict[str, Any]
) -> None:
    folder = EXAMPLES / "perf-import"
    imported = Scenario.from_perf_script(
        folder / f"{trace}.txt", kernel="6.18", exclude=["^perf"], **options
    )
    assert Scenario.from_file(folder / f"{name}.toml") == imported


def test_the_recorded_loops_are_what_the_example_ran() -> None:
    folder = EXAMPLES / "perf-import"
    imported = Scenario.from_perf_script(
        folder / "burner-and-sleeper.txt", kernel="6.18", exclude=["^perf"], pin=True
    )
    # The two loops of the recording: the sleeper's 2 ms spins (a little more with the
    # interrupts inside them) between 8 ms sleeps (a little more: timer slack, wakeup).
    tasks = entries(imported)
    sleeper = steps(tasks["python3-29962"])
    spins = [v for kind, v in sleeper if kind == "run"]
    sleeps = [v for kind, v in sleeper if kind == "sleep"]
    assert len(spins) == 169 and len(sleeps) == 168
    assert sorted(spins)[len(spins) // 2] in range(2 * MS, 2 * MS + 100_000)
    assert sorted(sleeps)[len(sleeps) // 2] in range(8 * MS, 8 * MS + 200_000)
    assert all(t["affinity"] == [1] for t in tasks.values())


def test_the_trace_as_measurements_for_compare(perf_text: Path) -> None:
    measured = libsched.read_measurements(perf_text)
    app = {q: v for (e, t, q), v in measured.values.items() if e == "app-42"}
    span = 20 * MS  # the trace's first event to its last: the window
    assert app["share"] == pytest.approx(6 * MS / span)  # 3 + 2 + 1 ms on the CPU
    assert app["nvcsw_per_s"] == pytest.approx(2 / 0.02)  # blocked once, exited
    assert app["nivcsw_per_s"] == pytest.approx(1 / 0.02)  # preempted once
    # Woken at 8.000 ms, on the CPU at 8.010; queued 10 us then, and 1 ms preempted.
    assert app["wakeup_latency_max"] == app["wakeup_latency_p50"] == 10_000
    assert app["run_delay_share"] == pytest.approx((10_000 + MS) / span)
    assert app["migrations_per_s"] == 0
    assert {e for e, _, _ in measured.values} == {"app-42", "rt-43", "ksoftirqd_1-24"}
    c = libsched.compare(Scenario.from_perf_script(perf_text), perf_text)
    assert c.unmatched == ()
    assert c.row("app-42", "share").simulated == pytest.approx(0.3, abs=0.001)


def test_a_switch_out_the_trace_lost_is_made_up_where_the_task_was_last_seen(
    tmp_path: Path,
) -> None:
    # "agent" is switched in at 100.001 and seen running at 100.002 (it wakes "app"), but
    # its switch-out is missing: at 100.005 the CPU runs "app" (the line's task), so agent
    # blocked after 100.002, and app ran from the CPU's last switch.
    lines = [
        "x 9 [000] 100.000000: sched:sched_switch: prev_comm=x prev_pid=9 prev_prio=120 "
        "prev_state=S ==> next_comm=y next_pid=8 next_prio=120",
        "y 8 [000] 100.001000: sched:sched_switch: prev_comm=y prev_pid=8 prev_prio=120 "
        "prev_state=S ==> next_comm=agent next_pid=5 next_prio=110",
        "agent 5 [000] 100.002000: sched:sched_waking: comm=app pid=42 prio=120 target_cpu=000",
        "app 42 [000] 100.005000: sched:sched_switch: prev_comm=app prev_pid=42 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
        "swapper 0 [000] 100.009000: sched:sched_waking: comm=agent pid=5 prio=110 target_cpu=000",
        "swapper 0 [000] 100.009000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 "
        "prev_prio=120 prev_state=R ==> next_comm=agent next_pid=5 next_prio=110",
        "agent 5 [000] 100.010000: sched:sched_switch: prev_comm=agent prev_pid=5 prev_prio=110 "
        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
    ]
    path = tmp_path / "lost.txt"
    path.write_text("\n".join(lines) + "\n")
    tasks = entries(Scenario.from_perf_script(path))
    # Not a burner running from 100.001 to the end: 1 ms, asleep 7 ms, 1 ms.
    assert steps(tasks["agent-5"]) == [("run", MS), ("sleep", 7 * MS), ("run", MS)]
    assert steps(tasks["app-42"]) == [("run", 3 * MS)]
    share = libsched.read_measurements(path).values[("agent-5", None, "share")]
    assert share == pytest.approx(2 * MS / (10 * MS))


@pytest.mark.parametrize(
    ("comm", "cpu"),
    [
        ("ksoftirqd/1", 1),
        ("cpuhp/0", 0),
        ("kworker/1:2", 1),
        ("kworker/0:1H", 0),
        ("kworker/1:0-vir", 1),  # a workqueue's name after the worker's, cut at 15 characters
        ("kworker/0:1H-kblockd", 0),
        ("kworker/u8:5", None),  # unbound
        ("kworker/R-kblockd", None),  # a rescuer
        ("irq/24-virtio0", None),  # the interrupt's number
        ("app", None),
    ],
)
def test_a_per_cpu_kernel_thread_is_known_by_its_comm(comm: str, cpu: Optional[int]) -> None:
    assert per_cpu_kthread_cpu(comm) == cpu
