"""The steps behaviour from Python: a Scenario holding one writes it back as TOML that reads
the same and runs the same, and the typed results carry loops, loop_time and last_exit."""

from __future__ import annotations

from pathlib import Path

import pytest

import libsched
from libsched import Scenario, ScenarioError
from libsched.results import Result, TaskResult

LATENCY = Path(__file__).resolve().parents[2] / "examples" / "latency"

PHASES = """
name = "phases"
length = "200ms"

[machine]
cpus = 2

[[tasks]]
name = "w"
count = 2

[tasks.behaviour]
type = "steps"
loop = 3

[[tasks.behaviour.phases]]
loop = 4
steps = [
  { run = { dist = "uniform", low = "1ms", high = "2ms" } },
  { timer = "5ms", ref = "t", mode = "relative" },
]

[[tasks.behaviour.phases]]
steps = [{ suspend = true }]

[[tasks]]
name = "m"
[tasks.behaviour]
type = "steps"
steps = [{ sleep = "30ms" }, { resume = "w" }, { sem_post = "s" }, { sem_wait = "s" }]
"""


@pytest.mark.parametrize(
    "scenario",
    [LATENCY / "schbench.toml", LATENCY / "hackbench.toml", PHASES],
    ids=["schbench", "hackbench", "phases"],
)
def test_steps_round_trip_through_toml(scenario: Path | str) -> None:
    loaded = (
        Scenario.from_file(scenario)
        if isinstance(scenario, Path)
        else Scenario.from_text(scenario, "phases.toml")
    )
    again = Scenario.from_text(loaded.to_toml(), "again.toml")
    assert again == loaded
    assert again.get("tasks[0].behaviour.type") == "steps"
    assert libsched.run(again, repetitions=1, seed=3) == libsched.run(loaded, repetitions=1, seed=3)


def test_a_bad_step_is_a_scenario_error_naming_it() -> None:
    s = Scenario.from_text(PHASES, "phases.toml")
    s.set("tasks[1].behaviour.steps[1].resume", "nobody")
    with pytest.raises(ScenarioError, match=r"tasks\[1\]\.behaviour\.steps\[1\]\.resume: no task"):
        s.validate()


def test_the_typed_results_carry_loops_and_the_last_exit() -> None:
    result = libsched.simulate(LATENCY / "schbench.toml", repetitions=1)
    window_s = (result.window.end - result.window.start) / 1e9
    worker = next(e for e in result.summary if e.entry == "worker")
    tasks = [t for t in result.repetitions[0].tasks if t.entry == "worker"]
    assert worker.loops == sum(t.loops or 0 for t in tasks)
    assert worker.loops_per_s == pytest.approx(worker.loops / window_s)
    assert worker.loop_time is not None
    assert worker.loop_time.count == worker.loops
    assert worker.last_exit is None  # the workers run for ever
    assert all(t.loop_time is not None and t.loop_time.count == t.loops for t in tasks)

    hackbench = libsched.simulate(LATENCY / "hackbench.toml", repetitions=1)
    exits = [t.exited for t in hackbench.repetitions[0].tasks]
    assert all(e is not None for e in exits)
    last = {e.entry: e.last_exit for e in hackbench.summary}
    assert max(v for v in last.values() if v is not None) == max(e for e in exits if e)


def test_other_behaviours_have_no_loops() -> None:
    result = libsched.simulate(libsched.examples.path("two-burners"), repetitions=1)
    assert all(t.loops is None and t.loop_time is None for t in result.repetitions[0].tasks)
    assert all(e.loops is None and e.last_exit is None for e in result.summary)


def test_a_pipe_wakes_its_reader_onto_the_writers_cpu_and_a_semaphore_does_not() -> None:
    # Two always-running writers, one per CPU: WF_SYNC sends the reader to the waker's CPU
    # at each wakeup (wake_affine_idle), a plain wakeup leaves it where it ran
    # (wake_affine_weight). About half the messages find the reader awake, so wakeups,
    # and with the pipe migrations, come at about every other message.
    text = libsched.examples.path("sync-wakeup").read_text()
    piped = libsched.simulate(Scenario.from_text(text, "pipe.toml"), repetitions=1)
    semaphore = text.replace("pipe_write", "sem_post").replace("pipe_read", "sem_wait")
    posted = libsched.simulate(Scenario.from_text(semaphore, "sem.toml"), repetitions=1)

    def reader(result: Result) -> TaskResult:
        return next(t for t in result.repetitions[0].tasks if t.name == "reader")

    loops = reader(piped).loops
    assert loops is not None and loops > 1000
    assert reader(piped).window_nr_migrations > loops // 4
    assert reader(posted).window_nr_migrations == 0
