"""libsched.measure on the real host: a short run of two pinned burners, cleanup after an
interrupt, refusals without privilege, and the document's keys against a simulated one's."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

import libsched
from libsched import _host
from libsched.measure import (
    AUTOGROUP_SYSCTL,
    GROUP_PREFIX,
    SYS_SCHED_ATTR,
    WORKER,
    _check,
    _other_work,
    _thread_times,
    machine_toml,
    set_fair_slice,
)

HOST = _host.read_host()
SERIES = f"{HOST.series[0]}.{HOST.series[1]}"
# The host kernel's build, as measure compares it with a scenario's (true where unknown).
IRQ = "false" if HOST.config_flag("CONFIG_IRQ_TIME_ACCOUNTING") is False else "true"
NOHZ = "false" if HOST.config_flag("CONFIG_NO_HZ_COMMON") is False else "true"
PREEMPT = HOST.preempt() or "none"
# This host's [machine] table. Interpolated into a dedented text it leaves the other lines
# indented, which TOML allows.
MACHINE = (
    f'[machine]\ntopology = "host"\nkernel = "{SERIES}"\nhz = {HOST.hz or 250}\n'
    f'irq_time_accounting = {IRQ}\nnohz_idle = {NOHZ}\npreempt = "{PREEMPT}"'
)


def needs_host(cpus: int = 1, cgroups: bool = False) -> None:
    """Skip, with the reason, where this host cannot run a measurement."""
    if not sys.platform.startswith("linux"):
        pytest.skip("measuring needs Linux")
    if os.geteuid() != 0:
        pytest.skip("the measurement tests run as root (they pin, renice and make cgroups)")
    if len(HOST.online) < cpus:
        pytest.skip(f"needs {cpus} online CPUs, the host has {len(HOST.online)}")
    if cgroups and (HOST.cgroup is None or not os.access(HOST.cgroup.path, os.W_OK)):
        pytest.skip("needs a writable cpu cgroup hierarchy")


def pair_toml(length: str = "2s", cgroup: bool = False) -> str:
    """Nice 0 against nice 10 pinned to the last CPU, on the host's kernel and HZ."""
    cpu = len(HOST.online) - 1
    group = '\n[[cgroups]]\nname = "g"\n' if cgroup else ""
    member = 'cgroup = "g"\n' if cgroup else ""
    return (
        textwrap.dedent(f"""\
        name = "pair"
        length = "{length}"
        window = ["0.5s", "{length}"]
        reference = "b"
        {MACHINE}
        cgroup_version = {HOST.cgroup.version if HOST.cgroup else 2}
        """)
        + group
        + textwrap.dedent(f"""\
        [[tasks]]
        name = "a"
        affinity = [{cpu}]
        {member}
        [[tasks]]
        name = "b"
        nice = 10
        affinity = [{cpu}]
        {member}""")
    )


class Text:
    """A scenario object (to_toml() and origin), readable by any user."""

    def __init__(self, text: str) -> None:
        self.text, self.origin = text, "<test>"

    def to_toml(self) -> str:
        return self.text


def leftovers() -> tuple[list[int], list[str]]:
    """Worker processes and measurement cgroups that exist now."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.split(b"\0")[0] == WORKER.encode():
                pids.append(int(entry))
    groups = []
    if HOST.cgroup is not None:
        groups = [g for g in os.listdir(HOST.cgroup.path) if g.startswith(GROUP_PREFIX)]
    return pids, groups


@pytest.mark.parametrize(
    ("autogroup", "expected"),
    [
        # a and b in the root group beside session s's autogroup, which s1 and s2 share.
        ("true", {"a": 1 / 3, "b": 1 / 3, "s1": 1 / 6, "s2": 1 / 6}),
        # No autogroups: four tasks in the root group.
        ("false", {"a": 1 / 4, "b": 1 / 4, "s1": 1 / 4, "s2": 1 / 4}),
    ],
)
def test_tasks_run_in_the_groups_the_scenario_gives_them(
    tmp_path: Path, autogroup: str, expected: dict[str, float]
) -> None:
    needs_host()
    if HOST.autogroup is None:
        pytest.skip("needs autogroup (CONFIG_SCHED_AUTOGROUP)")
    if not os.access(AUTOGROUP_SYSCTL, os.W_OK):
        pytest.skip("needs write access to sched_autogroup_enabled")
    cpu = len(HOST.online) - 1
    in_s = 'session = "s"'
    tasks = "".join(
        f'[[tasks]]\nname = "{name}"\naffinity = [{cpu}]\n{session}\n'
        for name, session in (("a", ""), ("b", ""), ("s1", in_s), ("s2", in_s))
    )
    scenario = tmp_path / "groups.toml"
    scenario.write_text(
        f'name = "groups"\nlength = "2s"\nwindow = ["0.5s", "2s"]\nrepetitions = 1\n'
        f"{MACHINE}\nautogroup = {autogroup}\n{tasks}"
    )
    # The driver in a session of its own, hence in an autogroup, as from a login shell: its
    # forks would join that autogroup, where the model has the session-less in the root group.
    done = subprocess.run(
        [sys.executable, "-m", "libsched", "measure", str(scenario), "--json"],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=True,
    )
    doc = json.loads(done.stdout)
    assert doc["provenance"]["session_less_autogroup"] is None
    shares = {s["entry"]: s["share"] for s in doc["summary"]}
    for entry, share in expected.items():
        assert shares[entry] == pytest.approx(share, abs=0.04), shares
    assert _host.read_host().autogroup == HOST.autogroup  # restored


def test_nice_0_against_nice_10_on_one_cpu(tmp_path: Path) -> None:
    needs_host()
    out = tmp_path / "pair.json"
    # weight(0) / weight(10) = 1024 / 110 = 9.31; the host is shared, so a band around it,
    # and a second run when other work disturbed the first (as a measurement script sets a
    # disturbed run aside).
    for attempt in range(2):
        doc = libsched.measure(Text(pair_toml()), out=out)
        a, b = doc["summary"]
        if 8.5 <= a["ratio"] <= 10.2 or attempt == 1:
            break
    assert 8.5 <= a["ratio"] <= 10.2, a
    assert b["ratio"] == 1.0
    # The two shared one CPU: together at most the window, and each task's share is its
    # window runtime over the time between its two reads: the 1.5 s window, read a little
    # late on a busy host.
    task_a = doc["repetitions"][0]["tasks"][0]
    assert task_a["share"] == pytest.approx(task_a["window_runtime"] / 1.5e9, rel=0.01)
    # Both are always runnable: each is running or waiting (schedstat's run delay, its
    # count and sum read at the window's ends) all through the window.
    for task in doc["repetitions"][0]["tasks"]:
        delay = task["run_delay"]
        assert delay["count"] > 0 and delay["p50"] is None
        assert delay["mean"] == pytest.approx(delay["sum"] / delay["count"])
        assert task["window_runtime"] + delay["sum"] == pytest.approx(1.5e9, rel=0.03)
    assert b["run_delay_share"] == pytest.approx(
        doc["repetitions"][0]["tasks"][1]["run_delay"]["sum"] / 1.5e9, rel=0.01
    )
    # /proc/PID/sched shows a running task's runtime as of its last update, up to a tick
    # old, at each end of the window.
    tick = 1 / (HOST.hz or 250)
    assert a["share"] + b["share"] <= 1.0 + 2 * tick / 1.5
    assert doc["provenance"]["source"] == "measured"
    assert doc["provenance"]["host_release"] == os.uname().release
    # As root the driver reads where the host's tick falls and starts the run on one.
    assert doc["provenance"]["time_zero_on_tick"] is True
    assert json.loads(out.read_text()) == doc
    assert leftovers() == ([], [])


def test_document_has_the_keys_of_a_simulated_one(tmp_path: Path) -> None:
    needs_host(cgroups=True)
    scenario = tmp_path / "pair.toml"
    scenario.write_text(
        pair_toml("0.6s", cgroup=True).replace('["0.5s", "0.6s"]', '["0.1s", "0.6s"]')
    )
    measured = libsched.measure(scenario)
    simulated = libsched.run(scenario)
    # The typed results read a measurement as they read a simulation.
    typed = libsched.Result.from_json(measured)
    assert typed.provenance.source == "measured" and typed.provenance.model is None
    assert typed.repetitions[0].tasks[0].wakeup_latency is None
    assert typed.task_array("share").shape == (1, 2)

    def keys(doc: dict[str, Any]) -> dict[str, set[str]]:
        rep = doc["repetitions"][0]
        return {
            "top": set(doc),
            "task": set(rep["tasks"][0]),
            "cpu": set(rep["cpus"][0]),
            "group": set(rep["task_groups"][0]),
            "summary": set(doc["summary"][0]),
            "repetition": set(rep),
        }

    assert keys(measured) == keys(simulated)
    # The host's own facts are extra; every key of a simulated provenance is there.
    assert set(simulated["provenance"]) <= set(measured["provenance"])
    assert set(simulated["provenance"]["tunables"]) == set(measured["provenance"]["tunables"])
    task = measured["repetitions"][0]["tasks"][0]
    assert task["model"] is None and task["wakeup_latency"] is None
    assert set(task["run_delay"]) == set(simulated["repetitions"][0]["tasks"][0]["run_delay"])
    assert measured["repetitions"][0]["task_groups"][0]["nr_tasks"] == 2
    # What else ran: one record per repetition, never the workers, the top a part of it.
    (other,) = measured["provenance"]["other_work"]
    workers = {t["pid"] for t in measured["repetitions"][0]["tasks"]}
    assert other["threads"] >= len(other["top"]) > 0
    assert not workers & {t["tid"] for t in other["top"]}
    assert other["window_runtime"] >= sum(t["window_runtime"] for t in other["top"]) > 0


def measuring(scenario: Path) -> subprocess.Popen[str]:
    """A child measuring ``scenario``, once its two workers exist (at most 10 s)."""
    script = (
        "import faulthandler, libsched, signal, warnings; warnings.simplefilter('ignore'); "
        "faulthandler.register(signal.SIGUSR1); "
        f"libsched.measure({str(scenario)!r})"
    )
    child = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(leftovers()[0]) < 2:
        time.sleep(0.05)
    return child


def finished(child: subprocess.Popen[str], timeout: float = 10) -> str:
    """The stderr of a measuring child that was signalled to stop, once it has exited. One
    still running after ``timeout`` fails the test with where it waits (its Python stack,
    which faulthandler prints on SIGUSR1, and its kernel wait channel), and what it left
    behind is removed, so that the next test starts clean."""
    try:
        return child.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        try:
            wchan = Path(f"/proc/{child.pid}/wchan").read_text()
        except OSError:
            wchan = "?"
        child.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        child.kill()
        err = child.communicate()[1]
        pids, groups = leftovers()
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for group in groups:
            top = os.path.join(HOST.cgroup.path, group) if HOST.cgroup else group
            for path, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
                for _ in range(50):  # EBUSY while the killed workers exit
                    try:
                        os.rmdir(path)
                        break
                    except OSError:
                        time.sleep(0.02)
        pytest.fail(
            f"the measuring child had not exited {timeout} s after the signal; it waited in "
            f"{wchan!r}, left {len(pids)} workers and {groups} cgroups; its stderr:\n{err}"
        )


def test_interrupt_leaves_nothing_behind(tmp_path: Path) -> None:
    needs_host(cgroups=True)
    scenario = tmp_path / "long.toml"
    scenario.write_text(pair_toml("20s", cgroup=True))
    child = measuring(scenario)
    try:
        pids, groups = leftovers()
        assert len(pids) == 2 and len(groups) == 1, (pids, groups)
        child.send_signal(signal.SIGINT)
        err = finished(child)
    finally:
        child.kill()
        child.wait()
    assert "KeyboardInterrupt" in err
    assert leftovers() == ([], [])


def test_sigterm_cleans_up_too(tmp_path: Path) -> None:
    needs_host()
    scenario = tmp_path / "long.toml"
    scenario.write_text(pair_toml("20s"))
    child = measuring(scenario)
    try:
        child.send_signal(signal.SIGTERM)
        finished(child)
    finally:
        child.kill()
        child.wait()
    assert leftovers() == ([], [])


def refusal_as_nobody(toml: str) -> str:
    """The MeasureError text measure() gives for toml in a child running as nobody without
    scheduling privileges."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))
            resource.setrlimit(resource.RLIMIT_NICE, (0, 0))
            os.setgid(65534)
            os.setuid(65534)
            # Warnings (an unwritable sched_autogroup_enabled) are not what is tested.
            warnings.simplefilter("ignore", libsched.ScenarioWarning)
            try:
                libsched.measure(Text(toml))
                message = "no refusal"
            except libsched.MeasureError as err:
                message = f"{err.field}|{err}"
            except Exception as err:
                message = f"|{type(err).__name__}: {err}"
            os.write(w, message.encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        message = f.read()
    os.waitpid(pid, 0)
    return message


@pytest.mark.parametrize(
    ("task", "field", "words"),
    [
        (
            'policy = "fifo"\nrt_priority = 50',
            "tasks[0].policy",
            ["SCHED_FIFO", "CAP_SYS_NICE", "RLIMIT_RTPRIO >= 50"],
        ),
        ("nice = -5", "tasks[0].nice", ["nice -5", "CAP_SYS_NICE", "RLIMIT_NICE >= 25"]),
        (
            'renice = [{ at = "0.5s", nice = 2 }]\nnice = 5',
            "tasks[0].renice[0]",
            ["nice 2 below 5"],
        ),
    ],
)
def test_refuses_without_privilege(task: str, field: str, words: list[str]) -> None:
    needs_host()
    toml = (
        f'length = "1s"\n[machine]\ntopology = "host"\nkernel = "{SERIES}"\n'
        f"hz = {HOST.hz or 250}\nirq_time_accounting = {IRQ}\nnohz_idle = {NOHZ}\n"
        f'[[tasks]]\nname = "a"\n{task}\n'
    )
    message = refusal_as_nobody(toml)
    got_field, _, text = message.partition("|")
    assert got_field == field, message
    for word in words:
        assert word in text


def test_refuses_more_cpus_than_online() -> None:
    toml = f'length = "1s"\n[machine]\ncpus = {len(HOST.online) + 1}\n[[tasks]]\nname = "a"\n'
    with pytest.raises(libsched.MeasureError, match=r"machine\.cpus: the scenario has") as err:
        libsched.measure(Text(toml))
    assert err.value.field == "machine.cpus"


def test_warns_of_another_kernel() -> None:
    needs_host()
    other = "5.15" if HOST.eevdf else "6.6"
    toml = (
        f'length = "0.2s"\n[machine]\ntopology = "host"\nkernel = "{other}"\n'
        f"hz = {HOST.hz or 250}\nirq_time_accounting = {IRQ}\nnohz_idle = {NOHZ}\n"
        '[[tasks]]\nname = "a"\nbehaviour = { type = "periodic", run = "1ms", period = "10ms" }\n'
    )
    with pytest.warns(
        libsched.ScenarioWarning, match=rf"machine\.kernel: the scenario models {other}"
    ):
        doc = libsched.measure(Text(toml))
    # An absolute timer: 20 periods, the first burst at time zero is not a wakeup.
    assert 15 <= doc["repetitions"][0]["tasks"][0]["lateness"]["count"] <= 19


def split_toml(reads: str = "") -> str:
    """Two 5 ms / 2 ms periodic tasks and a burner, all on the last CPU, on the host's kernel
    and HZ; with ``reads`` the periodic tasks read their CPU clock that often."""
    cpu = len(HOST.online) - 1
    return (
        textwrap.dedent(f"""\
        length = "1.5s"
        window = ["0.5s", "1.5s"]
        {MACHINE}
        [[tasks]]
        name = "p"
        count = 2
        affinity = [{cpu}]
        behaviour = {{ type = "periodic", run = "5ms", sleep = "2ms" }}
        """)
        + (f'cpu_clock_reads = "{reads}"\n' if reads else "")
        + textwrap.dedent(f"""\
        [[tasks]]
        name = "burner"
        affinity = [{cpu}]
        """)
    )


def test_a_periodic_worker_runs_as_the_scenario_says() -> None:
    needs_host()
    # The worker counts its runs in calibrated spins and reads its CPU clock only as each
    # run starts, so its share is the simulated one (the model's accuracy on one CPU, a
    # few percent) and no clock read ends its turns early.
    measured = libsched.measure(Text(split_toml()))["summary"]
    simulated = libsched.run(Text(split_toml()))["summary"]
    assert measured[0]["share"] == pytest.approx(simulated[0]["share"], rel=0.05)
    assert measured[0]["nivcsw_per_s"] < 1.5 * simulated[0]["nivcsw_per_s"] + 20


def test_cpu_clock_reads_end_turns_from_6_6() -> None:
    needs_host()
    if not HOST.eevdf:
        pytest.skip("before 6.6 a read of the CPU clock ends no turn")
    # Each 5 ms run outlasts a slice; a read once it is used up ends the turn at once, not
    # at the next tick (docs/model.md), so the readers are switched out several times as often.
    plain = libsched.measure(Text(split_toml()))["summary"][0]
    reads = libsched.measure(Text(split_toml("10us")))["summary"][0]
    assert reads["nivcsw_per_s"] > 2 * plain["nivcsw_per_s"]


def test_a_timer_loop_waits_for_a_tick_once_its_lag_is_spent() -> None:
    needs_host()
    if not HOST.eevdf:
        pytest.skip("old CFS credits a sleeper: it never waits here")
    # 1 ms every 10 ms beside a burner, time zero on a tick: every other expiry comes in the
    # tick's interrupt, after its handler. Each burst spends half a millisecond of the
    # loop's lag; once it is spent the wakee's deadline comes after the one the tick just
    # renewed for the burner, and it waits for the next tick (docs/validation.md): about
    # one wakeup in four or five, 4 ms each. A model that woke it at the tick's own instant
    # gave it the tie and a mean of 26 us. How often the lag lands exactly at zero depends
    # on us of clock_task (IRQ and steal time), hence the factor 2.
    cpu = len(HOST.online) - 1
    toml = textwrap.dedent(f"""\
        length = "2.5s"
        window = ["0.5s", "2.5s"]
        {MACHINE}
        [[tasks]]
        name = "loop"
        affinity = [{cpu}]
        behaviour = {{ type = "periodic", run = "1ms", period = "10ms" }}
        [[tasks]]
        name = "hog"
        affinity = [{cpu}]
        """)
    measured = libsched.measure(Text(toml))["repetitions"][0]["tasks"][0]["lateness"]
    simulated = libsched.run(Text(toml))["repetitions"][0]["tasks"][0]["lateness"]
    assert simulated["mean"] > 500_000
    assert 0.5 * simulated["mean"] < measured["mean"] < 2 * simulated["mean"]


def needs_custom_slices() -> None:
    needs_host()
    if HOST.series < (6, 12):
        pytest.skip("a fair task's requested slice takes effect from 6.12")
    if os.uname().machine not in SYS_SCHED_ATTR:
        pytest.skip(f"sched_setattr() is not known on {os.uname().machine}")


def test_a_requested_slice_is_set_and_clamped_as_the_kernel_does() -> None:
    needs_custom_slices()
    child = subprocess.Popen(["sleep", "30"])
    try:
        # __setparam_fair() clamps sched_runtime to [0.1 ms, 100 ms].
        kept = [set_fair_slice(child.pid, "normal", 0, ns) for ns in (20_000, 3_000_000, 10**9)]
        assert kept == [100_000, 3_000_000, 100_000_000]
    finally:
        child.kill()
        child.wait()


def test_the_plan_asks_for_the_slice_the_kernel_keeps() -> None:
    toml = '[machine]\nkernel = "6.18"\n[[tasks]]\nname = "a"\nslice = "20us"\n'
    toml += '[[tasks]]\nname = "b"\n'
    text, warned = libsched._core.measure.scenario_plan(toml, "<test>")
    assert [t["slice"] for t in json.loads(text)["tasks"]] == [100_000, None]
    assert [w.split(":")[0] for w in warned] == ["tasks[0].slice"]


def test_refuses_a_slice_where_the_kernel_would_ignore_it() -> None:
    toml = f'length = "1s"\n[machine]\nkernel = "6.18"\nhz = {HOST.hz or 250}\n'
    toml += '[[tasks]]\nname = "a"\nslice = "1ms"\n'
    plan = json.loads(libsched._core.measure.scenario_plan(toml, "<test>")[0])
    old = dataclasses.replace(HOST, release="6.11.9", series=(6, 11))
    with pytest.raises(libsched.MeasureError, match="takes effect from 6.12") as err:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", libsched.ScenarioWarning)
            _check(plan, old)
    assert err.value.field == "tasks[0].slice"


def test_a_short_slice_preempts_the_burner_at_wakeup() -> None:
    needs_custom_slices()
    # The timer loop of the test above with a 0.1 ms slice: PREEMPT_SHORT lets its wakeup
    # preempt the burner whatever its lag, and its deadline, a tenth of the burner's slice
    # away, is the earlier one, so no wakeup waits for a tick (the model and the host).
    cpu = len(HOST.online) - 1
    toml = textwrap.dedent(f"""\
        length = "2.5s"
        window = ["0.5s", "2.5s"]
        {MACHINE}
        [[tasks]]
        name = "loop"
        affinity = [{cpu}]
        slice = "100us"
        behaviour = {{ type = "periodic", run = "1ms", period = "10ms" }}
        [[tasks]]
        name = "hog"
        affinity = [{cpu}]
        """)
    simulated = libsched.run(Text(toml))["repetitions"][0]["tasks"][0]["lateness"]
    measured = libsched.measure(Text(toml))["repetitions"][0]["tasks"][0]["lateness"]
    assert simulated["max"] < 1_000_000
    # p90, not p99: the host's own noise (its hypervisor's other work) delays one wakeup in
    # a hundred now and then; without the slice one in four or five waits a whole tick.
    assert measured["p90"] < 1_000_000


def test_the_short_slice_example_does_what_its_comment_says() -> None:
    # Simulated: with its slice no wakeup waits for a tick; without it some wait a whole
    # tick (4 ms at HZ 250); with a 3 ms slice some wait for the next one, half a tick away.
    text = (Path(__file__).resolve().parents[2] / "examples/measure/short-slice.toml").read_text()

    def max_lateness(line: str) -> int:
        toml = text.replace('slice = "100us"\n', line)
        assert (toml == text) == (line == 'slice = "100us"\n')
        return int(libsched.run(Text(toml))["repetitions"][0]["tasks"][0]["lateness"]["max"])

    assert max_lateness('slice = "100us"\n') < 1_000_000
    assert max_lateness("") == pytest.approx(4_000_000, rel=0.01)
    assert max_lateness('slice = "3ms"\n') == pytest.approx(2_000_000, rel=0.02)


def test_a_group_competes_with_the_tasks_outside_groups_as_in_the_model() -> None:
    needs_host(cgroups=True)
    # A burner in an idle group (cpu.idle, weight 3) beside one in no group: on the root
    # queue the group's entity weighs 3 against 1024. Under a parent group of their own,
    # as measure made them before, the idle group would be the parent's only child and
    # have the parent's whole weight: half the CPU.
    cpu = len(HOST.online) - 1
    toml = textwrap.dedent(f"""\
        length = "1.5s"
        window = ["0.5s", "1.5s"]
        {MACHINE}
        cgroup_version = {HOST.cgroup.version if HOST.cgroup else 2}
        [[cgroups]]
        name = "g"
        idle = true
        [[tasks]]
        name = "plain"
        affinity = [{cpu}]
        [[tasks]]
        name = "grouped"
        cgroup = "g"
        affinity = [{cpu}]
        """)
    measured = libsched.measure(Text(toml))["summary"]
    simulated = libsched.run(Text(toml))["summary"]
    assert simulated[1]["share"] < 0.01
    assert measured[1]["share"] < 0.02
    assert measured[0]["share"] > 0.95


def test_the_plan_carries_each_tasks_timer_slack_and_the_costs_a_scenario_sets() -> None:
    toml = textwrap.dedent("""\
        [machine]
        cpus = 2
        kernel = "6.19"
        newidle_ratio = [66, 136]
        timer_slack = "20us"
        tick_irq = "5us"
        idle_exit_latency = "1us"
        sleep_cost = "12us"
        [[tasks]]
        name = "a"
        [[tasks]]
        name = "b"
        timer_slack = "0us"
        """)
    plan = json.loads(libsched._core.measure.scenario_plan(toml, "<test>")[0])
    assert [t["timer_slack"] for t in plan["tasks"]] == [20_000, 0]
    # idle_exit_latency is at its default: only tick_irq and sleep_cost differ.
    assert plan["machine"]["costs_set"] == ["tick_irq", "sleep_cost"]
    assert plan["machine"]["newidle_ratio"] == [66, 136]
    plain = json.loads(libsched._core.measure.scenario_plan('[[tasks]]\nname = "a"\n', "<t>")[0])
    assert plain["machine"]["newidle_ratio"] is None


def test_warns_that_the_hosts_own_costs_are_measured() -> None:
    needs_host()
    toml = (
        f'length = "0.1s"\n[machine]\ntopology = "host"\nkernel = "{SERIES}"\n'
        f'hz = {HOST.hz or 250}\ntick_irq = "5us"\nirq_time_accounting = {IRQ}\n'
        f'nohz_idle = {NOHZ}\nnewidle_ratio = 100\n[[tasks]]\nname = "a"\n'
        'behaviour = { type = "periodic", run = "1ms", sleep = "9ms" }\n'
    )
    with pytest.warns(libsched.ScenarioWarning) as caught:
        libsched.measure(Text(toml))
    said = [str(w.message) for w in caught]
    assert any(s.startswith("machine.tick_irq: set in the scenario") for s in said), said
    assert any(
        s.startswith("machine.newidle_ratio: set in the scenario; the host's CPUs") for s in said
    ), said


def test_warns_of_a_kernel_build_other_than_the_hosts() -> None:
    needs_host()
    if HOST.config is None:
        pytest.skip("the host's kernel configuration is not readable")
    other = "false" if IRQ == "true" else "true"
    toml = (
        f'length = "0.1s"\n[machine]\ntopology = "host"\nkernel = "{SERIES}"\n'
        f"hz = {HOST.hz or 250}\nirq_time_accounting = {other}\nnohz_idle = {NOHZ}\n"
        '[[tasks]]\nname = "a"\nbehaviour = { type = "periodic", run = "1ms", sleep = "9ms" }\n'
    )
    with pytest.warns(
        libsched.ScenarioWarning,
        match=rf"machine\.irq_time_accounting: {other}, the host's kernel has "
        "CONFIG_IRQ_TIME_ACCOUNTING",
    ):
        libsched.measure(Text(toml))


def test_a_worker_sleeps_with_the_scenarios_timer_slack() -> None:
    needs_host()
    # A 1 ms / 10 ms timer loop alone on a CPU: with 2 ms of slack its sleeps end at a tick
    # or 2 ms late, with none at their due time (plus the wakeup's own cost).
    cpu = len(HOST.online) - 1

    def p50(slack: str) -> int:
        toml = textwrap.dedent(f"""\
            length = "1.5s"
            window = ["0.5s", "1.5s"]
            {MACHINE}
            [[tasks]]
            name = "loop"
            affinity = [{cpu}]
            timer_slack = "{slack}"
            behaviour = {{ type = "periodic", run = "1ms", period = "10ms" }}
            """)
        doc = libsched.measure(Text(toml))
        return int(doc["repetitions"][0]["tasks"][0]["lateness"]["p50"])

    assert p50("2ms") > p50("0us") + 500_000


TIMER_LIST = """\
now at 45798978744798 nsecs

cpu: 0
 clock 0:
  .offset:     0 nsecs
  .last_tick      : {0} nsecs
  .tick_stopped   : 0

cpu: 1
 clock 0:
  .offset:     0 nsecs
  .last_tick      : {1} nsecs
"""


@pytest.mark.parametrize(
    ("ticks", "cpus", "phase"),
    [
        ((45798792000000, 45798972000000), [0, 1], 0),  # one grid: multiples of 4 ms
        ((45798792001000, 45798972001000), [0, 1], 1000),
        ((45798792000000, 45798972002000), [0, 1], None),  # skew_tick: no common phase
        ((45798792000000, 45798972002000), [0], 0),  # only the measured CPUs count
        ((45798792000000, 45798972000000), [0, 2], None),  # a CPU the file does not show
    ],
)
def test_tick_phase_is_the_last_ticks_common_offset(
    monkeypatch: pytest.MonkeyPatch, ticks: tuple[int, int], cpus: list[int], phase: Optional[int]
) -> None:
    monkeypatch.setattr(_host, "read_text", lambda path: TIMER_LIST.format(*ticks))
    assert _host.tick_phase(cpus, _host.tick_nsec(250)) == phase


def test_tick_period_is_tick_nsec() -> None:
    assert [_host.tick_nsec(hz) for hz in (100, 250, 300, 1000)] == [
        10_000_000,
        4_000_000,
        3_333_333,
        1_000_000,
    ]


def test_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match="libsched.measure: scenario must be a path"):
        libsched.measure(42)
    with pytest.raises(ValueError, match="repetitions must be >= 1"):
        libsched.measure(Text('[[tasks]]\nname = "a"\n'), repetitions=0)


@pytest.mark.parametrize(
    ("release", "version"),
    [
        ("6.18.44-fc-v1045", "6.18.44"),
        ("6.18.0-rc2", "6.18"),
        ("5.15.0-91-generic", "5.15"),
        ("6.8.12", "6.8.12"),
        ("6.12", "6.12"),
    ],
)
def test_a_kernel_release_names_its_patch_level(release: str, version: str) -> None:
    assert _host.kernel_version(release) == version


def test_a_release_that_is_no_version_is_refused() -> None:
    with pytest.raises(ValueError, match="no kernel release"):
        _host.kernel_version("linux")


def _host_with_cpu_cgroup_v1(root: Path) -> _host.Host:
    return dataclasses.replace(HOST, cgroup=_host.CgroupMount(1, str(root)))


def test_rt_bandwidth_is_the_root_groups_where_rt_group_scheduling_shows_it(
    tmp_path: Path,
) -> None:
    # A v1 cpu hierarchy with cpu.rt_runtime_us: RT group scheduling is on, and the root
    # group's own bandwidth is what its RT tasks get, whatever the sysctls say.
    (tmp_path / "cpu.rt_runtime_us").write_text("900000\n")
    (tmp_path / "cpu.rt_period_us").write_text("1000000\n")
    assert _host_with_cpu_cgroup_v1(tmp_path).rt_bandwidth() == (True, 900000, 1000000)
    # Without the files: the build's CONFIG_RT_GROUP_SCHED and the sysctls.
    (tmp_path / "cpu.rt_runtime_us").unlink()
    host = _host_with_cpu_cgroup_v1(tmp_path)
    assert host.rt_bandwidth() == (
        HOST.config_flag("CONFIG_RT_GROUP_SCHED"),
        host.sysctl("sched_rt_runtime_us"),
        host.sysctl("sched_rt_period_us"),
    )


def test_host_machine_carries_a_root_rt_bandwidth_other_than_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cpu.rt_runtime_us").write_text("-1\n")
    (tmp_path / "cpu.rt_period_us").write_text("500000\n")
    monkeypatch.setattr(_host, "read_host", lambda: _host_with_cpu_cgroup_v1(tmp_path))
    machine = libsched.host_machine()
    assert machine["rt_group_sched"] is True
    assert machine["sched_rt_runtime"] == "unlimited"
    assert machine["sched_rt_period"] == "500000us"
    toml = machine_toml(machine) + '\n[[tasks]]\nname = "a"\n'
    plan = json.loads(libsched._core.measure.scenario_plan(toml, "<host>")[0])
    assert plan["machine"]["sched_rt_runtime"] == -1
    assert plan["machine"]["sched_rt_period"] == 500_000_000
    # The default bandwidth adds neither key.
    (tmp_path / "cpu.rt_runtime_us").write_text("950000\n")
    (tmp_path / "cpu.rt_period_us").write_text("1000000\n")
    machine = libsched.host_machine()
    assert machine["rt_group_sched"] is True
    assert "sched_rt_runtime" not in machine and "sched_rt_period" not in machine


def test_host_machine_is_a_machine_table_the_reader_accepts() -> None:
    machine = libsched.host_machine()
    assert machine["cpus"] == len(HOST.online)
    assert machine["kernel"].startswith(SERIES)
    assert machine["kernel"] == _host.kernel_version(HOST.release)
    toml = machine_toml(machine) + '\n[[tasks]]\nname = "a"\n'
    plan = json.loads(libsched._core.measure.scenario_plan(toml, "<host>")[0])
    assert plan["machine"]["cpus"] == len(HOST.online)
    if HOST.config is not None:
        assert machine["irq_time_accounting"] == HOST.config_flag("CONFIG_IRQ_TIME_ACCOUNTING")
        assert machine["nohz_idle"] == HOST.config_flag("CONFIG_NO_HZ_COMMON")
    assert machine.get("preempt") == HOST.preempt()
    if isinstance(machine["topology"], dict):
        t = machine["topology"]
        assert t["packages"] * t["cores"] * t["threads"] == machine["cpus"]


DYNAMIC_NONE = {"CONFIG_PREEMPT_DYNAMIC": "y", "CONFIG_PREEMPT_NONE": "y"}


@pytest.mark.parametrize(
    ("config", "debugfs", "cmdline", "mode"),
    [
        # debugfs shows the mode in effect, in parentheses.
        (DYNAMIC_NONE, "none voluntary (full) lazy", "preempt=lazy", "full"),
        # Else a PREEMPT_DYNAMIC kernel's boot option; what follows "--" is init's.
        (DYNAMIC_NONE, None, "quiet preempt=lazy -- preempt=full", "lazy"),
        (DYNAMIC_NONE, None, "quiet -- preempt=lazy", "none"),
        # Without PREEMPT_DYNAMIC the option does nothing: the configured model.
        ({"CONFIG_PREEMPT_VOLUNTARY": "y"}, None, "preempt=lazy", "voluntary"),
        ({"CONFIG_PREEMPT_LAZY": "y", "CONFIG_PREEMPT": "y"}, None, "", "lazy"),
        ({"CONFIG_PREEMPT": "y"}, None, "", "full"),
        # PREEMPT_RT is not modelled; nothing readable says nothing.
        ({"CONFIG_PREEMPT_RT": "y", "CONFIG_PREEMPT_DYNAMIC": "y"}, "(full)", "", None),
        (None, None, "", None),
    ],
)
def test_the_hosts_preemption_model(
    monkeypatch: pytest.MonkeyPatch,
    config: Optional[dict[str, str]],
    debugfs: Optional[str],
    cmdline: str,
    mode: Optional[str],
) -> None:
    texts = {os.path.join(_host.DEBUG_SCHED, "preempt"): debugfs, "/proc/cmdline": cmdline}
    monkeypatch.setattr(_host, "read_text", texts.get)
    host = dataclasses.replace(HOST, config=config, unreadable={})
    assert host.preempt() == mode
    assert ("preempt" in host.unreadable) == (mode is None)


def test_other_work_is_each_threads_time_in_the_window_longest_first() -> None:
    me = os.getpid()
    gone, born = 2**31 - 1, 2**31 - 2  # tids no thread has
    start = {me: (me, 1_000, 5), gone: (me, 10, 1)}
    end = {me: (me, 4_000, 8), born: (me, 7_000, 2)}
    other = _other_work(start, end, top=1)
    assert other["window_runtime"] == 3_000 + 7_000 and other["threads"] == 2
    # Only the longest is named; one that has exited by the time it is named has no name.
    (longest,) = other["top"]
    assert (longest["tid"], longest["window_runtime"], longest["window_runs"]) == (born, 7_000, 2)
    assert longest["comm"] is None and longest["nice"] is None
    mine = _other_work(start, end, top=2)["top"][1]
    assert mine["comm"] == Path("/proc/self/comm").read_text().strip()
    assert (mine["policy"], mine["nice"]) == ("normal", os.getpriority(os.PRIO_PROCESS, 0))
    assert (mine["window_runtime"], mine["window_runs"]) == (3_000, 3)


def test_thread_times_reads_every_thread_but_those_skipped() -> None:
    me = os.getpid()
    first = _thread_times(set())
    sum(range(200_000))  # some CPU time of this thread
    # schedstat's run time is brought up to date only at a tick or a switch
    # (update_curr()); sleeping is a switch, so the work above is counted.
    time.sleep(0.005)
    later = _thread_times(set())
    assert first[me][0] == me and later[me][1] > first[me][1]
    assert me not in _thread_times({me}) and 1 in later


def thread(comm: str, tid: int, ms: float, runs: int, nice: Optional[int] = 0, **kw: Any) -> Any:
    return {
        "pid": tid,
        "tid": tid,
        "comm": comm,
        "nice": nice,
        "policy": kw.get("policy", "normal"),
        "rt_priority": kw.get("rt_priority", 0),
        "window_runtime": int(ms * 1e6),
        "window_runs": runs,
    }


def test_other_work_becomes_tasks_of_the_same_cpu_time_and_runs() -> None:
    top = [
        thread("tokio-rt-worker", 106, 20, 10, nice=-10),
        thread("kworker/1:0-events", 24, 8, 400),
        thread("kworker/3:1", 30, 8, 400),  # a CPU the scenario does not have
        thread("migration/0", 18, 6, 60, nice=None, policy="fifo", rt_priority=99),
        thread("irq/24-virtio", 90, 5, 50, nice=None, policy="fifo", rt_priority=50),
        thread("cron", 300, 4.9, 2),  # under min_share
    ]
    doc = {
        "window": {"start": 1_000_000_000, "end": 11_000_000_000},
        "provenance": {
            "cpus": 2,
            "other_work": [
                {"window_runtime": 10_000_000, "threads": 1, "top": []},
                {"window_runtime": 60_000_000, "threads": 6, "top": top},  # the median
                {"window_runtime": 90_000_000, "threads": 1, "top": []},
            ],
        },
    }
    tasks = libsched.other_work_tasks(doc)
    assert [t["name"] for t in tasks] == [
        "tokio-rt-worker-106",
        "kworker_1_0-events-24",
        "irq_24-virtio-90",
    ]
    assert tasks[0]["nice"] == -10 and tasks[1]["affinity"] == [1]
    assert (tasks[2]["policy"], tasks[2]["rt_priority"]) == ("fifo", 50)
    window = 10e9
    for task, t in zip(tasks, [top[0], top[1], top[4]]):
        run = float(task["behaviour"]["run"]["mean"][:-2])
        sleep = float(task["behaviour"]["sleep"]["mean"][:-2])
        # runs times the mean run is its CPU time; runs times a cycle is the window
        assert run * t["window_runs"] == pytest.approx(t["window_runtime"], rel=1e-6)
        assert (run + sleep) * t["window_runs"] == pytest.approx(window, rel=1e-6)
    scenario = libsched.Scenario.from_text(
        'name = "bg"\nlength = "1s"\n[machine]\ncpus = 2\nkernel = "6.18"\n'
    )
    scenario.set("tasks", tasks)
    scenario.validate()
    with pytest.raises(ValueError, match="provenance.other_work"):
        libsched.other_work_tasks({"provenance": {}, "window": doc["window"]})


def test_without_schedstat_there_is_no_other_work_to_turn_into_tasks() -> None:
    doc = {"window": {"start": 0, "end": 10**9}, "provenance": {"cpus": 1, "other_work": [None]}}
    with pytest.raises(ValueError, match="CONFIG_SCHED_INFO"):
        libsched.other_work_tasks(doc)


def test_the_command_writes_the_what_if_with_the_hosts_other_work(tmp_path: Path) -> None:
    needs_host()
    scenario, what_if = tmp_path / "pair.toml", tmp_path / "what-if.toml"
    scenario.write_text(pair_toml("1s"))
    command = [sys.executable, "-m", "libsched", "measure", str(scenario)]
    command += ["--out", str(tmp_path / "m.json"), "--with-other-work", str(what_if)]
    out = subprocess.run(command, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "the host's other threads in the window" in out.stdout
    measured = json.loads((tmp_path / "m.json").read_text())
    tasks = libsched.Scenario.from_file(what_if).get("tasks")
    # The scenario's own tasks first, then what other_work_tasks makes of the measurement.
    assert [t["name"] for t in tasks[:2]] == ["a", "b"]
    assert tasks[2:] == libsched.other_work_tasks(measured)


def test_the_table_names_the_longest_other_threads_per_repetition() -> None:
    from libsched.measure import _table

    summary = {"entry": "a", "share": 0.5, "ratio": None, "jiffies": 50.0}
    summary |= {"nvcsw_per_s": 0.0, "nivcsw_per_s": 25.0}
    top = [
        thread("tokio-rt-worker", 106, 20, 14, nice=-10),
        thread("irq/24-virtio", 90, 5, 50, nice=None, policy="fifo", rt_priority=50),
    ]
    doc: dict[str, Any] = {
        "summary": [summary],
        "window": {"start": 0, "end": 10**10},
        "provenance": {
            "cpus": 2,
            "other_work": [{"window_runtime": 40_000_000, "threads": 7, "top": top}],
        },
    }
    lines = _table(doc).splitlines()
    assert lines[-3] == "the host's other threads in the window (not the scenario's tasks)"
    # 40 ms of two CPUs' 10 s is 0.20 %; the threads by comm and nice or RT policy
    assert lines[-1].split()[:4] == ["1", "40.0", "0.20", "7"]
    assert lines[-1].endswith(
        "tokio-rt-worker (nice -10) 20.0 ms in 14 runs, irq/24-virtio (fifo 50) 5.0 ms in 50 runs"
    )
    doc["provenance"]["other_work"] = [None]  # schedstat unreadable: no such table
    assert "other threads" not in _table(doc)
