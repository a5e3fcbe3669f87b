"""tools/host-measure/balance_trace.py, ipi_latency.py, tick_latency.py, timer_wakeup.py,
newidle_ratio.py and sleep_cost.py: what they make of bpftrace's or libsched.measure's
output, and what they do without root or bpftrace. The runs on this host need both and
skip without them; they check what holds on any host, busy or not, not the host's
figures."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

import libsched

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "host-measure"
CAN_TRACE = (
    os.geteuid() == 0
    and shutil.which("bpftrace") is not None
    and Path("/sys/kernel/btf/vmlinux").exists()
    and len(os.sched_getaffinity(0)) >= 2
)
SUBTREE = Path("/sys/fs/cgroup/cgroup.subtree_control")
CPU_CONTROLLER = Path("/sys/fs/cgroup/cpu").is_dir() or (
    SUBTREE.exists() and "cpu" in SUBTREE.read_text().split()
)


def load(name: str) -> ModuleType:
    if str(TOOLS) not in sys.path:  # the tools import their shared bpftrace_run
        sys.path.insert(0, str(TOOLS))
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool(name: str, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, str(TOOLS / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize(
    "name", ["balance_trace", "ipi_latency", "tick_latency", "timer_wakeup", "newidle_ratio"]
)
def test_without_bpftrace_the_tools_say_so_and_do_nothing(name: str, tmp_path: Path) -> None:
    done = tool(name, path=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(
        rf"{name}: needs (root|bpftrace|two CPUs.*); nothing done", done.stdout.strip()
    )


def event(t: int, cpu: int, *fields: object) -> str:
    return f"@e[{t}, {cpu}]: ({', '.join(str(f) for f in fields)})"


def test_each_softirq_is_classified_by_what_its_balance_pass_did() -> None:
    bt = load("balance_trace")
    # Fields: kind, nr_running, balance_interval, nr_balance_failed, last_balance, ...
    dump = "\n".join(
        [
            "Attaching 6 probes...",
            # cpu 1: last_balance unchanged: the pass was not due.
            event(100, 1, "E", 1, 2, 0, 500, 501, 0, 0, 300),
            event(110, 1, "X", 1, 2, 0, 500, 501, 0, 0, 300),
            # cpu 1: nr_balance_failed grew: failed.
            event(200, 1, "E", 1, 4, 0, 500, 501, 0, 0, 300),
            event(210, 1, "X", 1, 2, 1, 507, 514, 0, 0, 300),
            # cpu 1: a burner moved here (pid 42, 0 -> 1) during the softirq: moved.
            event(300, 1, "E", 1, 2, 1, 507, 514, 0, 0, 300),
            event(305, 1, "M", 42, 0, 1, 0, 0, 0, 0, 0),
            event(310, 1, "X", 2, 2, 0, 514, 521, 0, 0, 900),
            # cpu 0: last_balance moved, nothing else: balanced.
            event(400, 0, "E", 2, 2, 0, 500, 501, 0, 0, 900),
            event(410, 0, "X", 2, 4, 0, 514, 529, 0, 0, 900),
            "@moved_from[",
        ]
    )
    events = bt.parse(dump)
    assert [t for t, _, _ in events] == [100, 110, 200, 210, 300, 305, 310, 400, 410]
    passes = bt.passes(events)
    assert [(p["cpu"], p["nr_running"], p["what"]) for p in passes] == [
        (1, 1, "not due"),
        (1, 1, "failed"),
        (1, 1, "moved"),
        (0, 2, "balanced"),
    ]
    assert [p["interval_after"] for p in passes] == [2, 2, 2, 4]


def test_ipi_latencies_are_read_from_the_dump_and_summarised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ipi = load("ipi_latency")
    dump = "Attaching 3 probes...\n@lat[10]: 20000\n@lat[20]: 30000\n@lat[30]: 25000\n"
    lat = [int(m.group(1)) for m in ipi.LAT.finditer(dump)]
    assert lat == [20000, 30000, 25000]
    assert ipi.describe("to a busy CPU", lat) == 25.0
    assert capsys.readouterr().out.startswith("to a busy CPU: 3 IPIs, median 25.0 us")


def test_tick_lateness_is_taken_from_the_grid_of_tick_nsec(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tl = load("tick_latency")
    # Two CPUs at HZ 250 for 40 ticks: cpu 0 late by 10-29 us, cpu 1 by 20.5 us, so cpu 0 is
    # first 22 times of 40; the grid starts at an arbitrary multiple of TICK_NSEC.
    base = 1_000 * 4_000_000
    dump = "Attaching 1 probe...\n" + "".join(
        f"@t[{base + k * 4_000_000 + late}, {cpu}]: 1\n"
        for k in range(40)
        for cpu, late in ((0, 10_000 + (k % 20) * 1_000), (1, 20_500))
    )
    ticks = sorted((int(m.group(1)), int(m.group(2))) for m in tl.TICK.finditer(dump))
    assert len(ticks) == 80
    assert tl.tick_nsec(ticks) == 4_000_000
    late = tl.lateness(ticks, 4_000_000)
    assert sorted(set(late[1].values())) == [20_500]
    assert min(late[0].values()) == 10_000 and max(late[0].values()) == 29_000
    low, high = tl.report(late, 4_000_000)
    assert 10 <= low < 20 <= high <= 29
    out = capsys.readouterr().out
    assert "TICK_NSEC 4000000 (HZ 250)" in out
    assert "first to tick: cpu 0 22, cpu 1 18" in out


def test_a_timer_wakeup_is_split_into_its_steps(capsys: pytest.CaptureFixture[str]) -> None:
    tw = load("timer_wakeup")
    # 12 wakeups by their own interrupt, 11-12.1 us after the hard expiry, every other one to
    # an idle CPU; one expired by an earlier interrupt inside its slack; one whose switch
    # was not traced (the run's end), left out.
    exp: dict[str, list[int]] = {}
    wake: dict[str, int] = {}
    switch: dict[str, int] = {}
    seen: dict[int, int] = {}
    for k in range(14):
        soft = (k + 1) * 10_000_000
        hard = soft + 50_000
        irq = soft + 20_000 if k == 12 else hard + 11_000 + k * 100
        exp[str(soft)] = [hard, irq, k % 2, irq + 1_000]
        wake[str(soft)] = irq + 5_000
        if k != 13:
            switch[str(soft)] = irq + 13_000
        seen[soft] = irq + 16_000
    dump = "\n".join(
        [
            '{"type": "attached_probes", "data": {"probes": 7}}',
            json.dumps({"type": "map", "data": {"@exp": exp}}),
            json.dumps({"type": "map", "data": {"@wake": wake}}),
            json.dumps({"type": "map", "data": {"@switch": switch}}),
        ]
    )
    rows = tw.wakeups(dump, seen)
    assert len(rows) == 13
    assert {r["user"] - r["switch"] for r in rows} == {3_000}
    tw.report("idle CPU", rows)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "idle CPU: 13 wakeups; 12 by the timer's own interrupt (6 of them to an idle CPU), "
        "1 expired early by another interrupt"
    )
    figures = {line[:42].strip(): line[42:].split() for line in out[2:]}
    assert figures["soft -> hard expiry (timer slack)"] == ["50.0", "50.0", "50.0"]
    assert figures["interrupt entry -> hrtimer_wakeup"] == ["1.0", "1.0", "1.0"]
    assert figures["hrtimer_wakeup -> sched_wakeup"] == ["4.0", "4.0", "4.0"]
    assert figures["sched_wakeup -> sched_switch to it"] == ["8.0", "8.0", "8.0"]
    assert figures["sched_switch -> its clock read"] == ["3.0", "3.0", "3.0"]
    low, median, high = map(float, figures["hard expiry -> timer interrupt entry"])
    assert 11.0 <= low < median < high <= 12.1
    total = list(map(float, figures["soft expiry -> its clock read"]))
    # The same wakeups, 66 us later (to a rounding of the last digit).
    assert total == pytest.approx([x + 66.0 for x in (low, median, high)], abs=0.11)


@pytest.mark.skipif(not CAN_TRACE, reason="needs root, bpftrace and BTF")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_timer_wakeup_describes_both_cases_on_this_host() -> None:
    def temporary() -> set[str]:
        return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("libsched-timer-")}

    before = temporary()
    done = tool("timer_wakeup", "--seconds", "1")
    assert done.returncode == 0, done.stderr
    heads = [line for line in done.stdout.splitlines() if not line.startswith(" ")]
    assert [h.split(":")[0] for h in heads] == ["idle CPU", "beside a nice-19 busy loop"]
    for head in heads:
        assert re.match(r".*: \d+ wakeups; \d+ by the timer's own interrupt", head), head
    assert temporary() == before


@pytest.mark.skipif(not CAN_TRACE, reason="needs root, bpftrace and BTF")
def test_tick_latency_prints_a_machine_line_on_this_host() -> None:
    done = tool("tick_latency", "--seconds", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("TICK_NSEC ")
    assert lines[-2] == "[machine]"
    assert re.match(
        r'tick_latency = \{ dist = "uniform", low = "\d+us", high = "\d+us" \}', lines[-1]
    )


@pytest.mark.skipif(not CAN_TRACE, reason="needs root, bpftrace and BTF")
def test_ipi_latency_prints_machine_lines_on_this_host() -> None:
    done = tool("ipi_latency", "--wakeups", "50")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("to a busy CPU: ")
    assert lines[1].startswith("to an idle CPU: ")
    assert lines[2] == "[machine]"
    assert re.match(r'ipi_latency = "\d+us"', lines[3])
    assert re.match(r'idle_exit_latency = "\d+us"', lines[4])


def test_newidle_rates_are_read_per_cpu_and_level_and_give_the_lowest_levels_line() -> None:
    nr = load("newidle_ratio")
    dump = (
        "Attaching 1 probe...\n\n\n@s[1, 2]: (PKG, 600, 300, 512)\n"
        "@s[1, 1]: (MC, 900, 41, 82)\n@s[0, 1]: (MC, 522, 5, 11)\n"
    )
    cpus = nr.parse(dump)
    assert cpus == {
        0: [(1, "MC", 522, 5, 11)],
        1: [(1, "MC", 900, 41, 82), (2, "PKG", 600, 300, 512)],
    }
    assert nr.machine_line(cpus) == "newidle_ratio = [11, 82]"
    assert (
        nr.machine_line({0: [(0, "MC", 1, 1, 7)], 1: [(0, "MC", 2, 2, 7)]}) == "newidle_ratio = 7"
    )
    assert nr.parse("Attaching 1 probe...\n") == {}


@pytest.mark.skipif(not CAN_TRACE, reason="needs root, bpftrace and BTF")
def test_newidle_ratio_reads_every_cpu_of_this_host_or_says_why_not() -> None:
    done = tool("newidle_ratio", "--seconds", "0.3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if lines[0].startswith("newidle_ratio: no sched_domain.newidle_ratio read"):
        pytest.skip("this kernel has no NI_RANDOM")
    cpus = len(os.sched_getaffinity(0))
    assert [line.split(":")[0] for line in lines[:cpus]] == [f"cpu {c}" for c in range(cpus)]
    assert lines[cpus] == "[machine]"
    rates = re.match(r"newidle_ratio = (\d+|\[[\d, ]+\])  #", lines[cpus + 1])
    assert rates is not None
    values = json.loads(rates.group(1))
    for v in values if isinstance(values, list) else [values]:
        assert 0 <= v


def loop_result(*per_repetition: tuple[int, int]) -> dict[str, object]:
    """A measured document whose timer loop ran (window_runtime, window_nvcsw) in each
    repetition, beside a burner."""
    return {
        "repetitions": [
            {
                "tasks": [
                    {"name": "burner", "window_runtime": 10**9, "window_nvcsw": 0},
                    {"name": "loop", "window_runtime": runtime, "window_nvcsw": wakeups},
                ]
            }
            for runtime, wakeups in per_repetition
        ]
    }


def test_sleep_cost_is_the_loops_time_per_wakeup_less_its_work() -> None:
    sc = load("sleep_cost")
    # 2,500 wakeups charged 55 ms: 22 µs each, 12 µs over the 10 µs of work.
    busy = sc.costs(loop_result((55_000_000, 2_500), (57_500_000, 2_500), (53_760_000, 2_400)))
    assert busy == pytest.approx([12_000, 13_000, 12_400])
    idle = sc.costs(loop_result((92_500_000, 2_500)))
    assert idle == pytest.approx([27_000])
    assert sc.machine_line(busy, idle) == (
        'sleep_cost = "12us"  # beside a busy loop; 27 µs on an idle CPU'
    )
    assert sc.describe("alone", idle) == "alone: 27.0 µs per sleep (27.0 µs in 1 repetitions)"
    with pytest.raises(RuntimeError, match="did not sleep"):
        sc.costs(loop_result((10**9, 0)))


def test_sleep_cost_without_root_says_so_and_does_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sc = load("sleep_cost")
    monkeypatch.setattr(sc.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(sc.libsched, "measure", lambda *a, **k: pytest.fail("measured"))
    monkeypatch.setattr(sys, "argv", ["sleep_cost.py"])
    assert sc.main() == 0
    assert capsys.readouterr().out == "sleep_cost: needs root; nothing done\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_sleep_cost_prints_a_machine_line_on_this_host() -> None:
    done = tool("sleep_cost", "--seconds", "0.5", "--repetitions", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == [
        f"beside a busy loop on CPU {max(os.sched_getaffinity(0))}",
        f"alone on CPU {max(os.sched_getaffinity(0))}",
    ]
    assert lines[2] == "[machine]"
    assert re.fullmatch(
        r'sleep_cost = "\d+us"  # beside a busy loop; \d+ µs on an idle CPU', lines[3]
    )


@pytest.mark.skipif(not CAN_TRACE, reason="needs root, bpftrace and BTF")
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.skipif(not CPU_CONTROLLER, reason="needs the cpu cgroup controller")
def test_balance_trace_reports_every_burner_and_cleans_up() -> None:
    before = set(os.listdir("/sys/fs/cgroup/cpu")) if Path("/sys/fs/cgroup/cpu").is_dir() else set()
    done = tool("balance_trace", "--burners", "3", "--seconds", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "balance passes (SCHED_SOFTIRQ) over 1 s" in out
    burners = out.split("burners: pid, moves traced, CPU s, se.nr_migrations at exit\n")[1]
    assert len(burners.strip().splitlines()) == 3
    if before:
        assert not {d for d in os.listdir("/sys/fs/cgroup/cpu") if d.startswith("libsched-lb-")} - {
            d for d in before if d.startswith("libsched-lb-")
        }


# The bundled host data: the replays' figures are what the measurement files give.
REPLAYS = ROOT / "examples" / "replays"


@pytest.mark.parametrize(
    ("source", "figures"),
    [
        ("host-6.18-groups.json", "host-6.18-replay-figures.json"),
        ("host-6.18-smp-groups.json", "host-6.18-smp-replay-figures.json"),
    ],
)
def test_replay_figures_regenerate_the_bundled_figures(
    source: str, figures: str, tmp_path: Path
) -> None:
    out = tmp_path / figures
    tool = load("replay_figures")
    assert tool.main(["replay_figures.py", str(REPLAYS / "data" / source), str(out)]) == 0
    assert out.read_bytes() == (REPLAYS / "data" / figures).read_bytes()


def measured_shares(files: list[Path]) -> dict[str, list[float]]:
    """Each entry's window share (its instances summed) per repetition of `libsched
    measure` result files."""
    shares: dict[str, list[float]] = {}
    for file in files:
        for rep in json.loads(file.read_text())["repetitions"]:
            per_entry: dict[str, float] = {}
            for t in rep["tasks"]:
                entry = t["name"].split(".")[0]
                per_entry[entry] = per_entry.get(entry, 0.0) + t["share"]
            for entry, share in per_entry.items():
                shares.setdefault(entry, []).append(share)
    return shares


@pytest.mark.parametrize(
    "name",
    ["pinned-plus-two-free", "nice-mix-free", "pinned-pair-plus-free", "two-nice0-two-nice10-free"],
)
def test_a_measured_replay_states_the_medians_of_its_measurement(name: str) -> None:
    replay = libsched.Scenario.from_file(REPLAYS / f"host-6.18-{name}.toml")
    files = sorted((REPLAYS / "data").glob(f"host-6.18-measure-{name}*.json"))
    shares = measured_shares(files)
    assert replay.get("repetitions") == len(next(iter(shares.values())))
    assert set(replay.get("measured.share")) == set(shares)
    for entry, values in shares.items():
        assert replay.get("measured.share")[entry] == pytest.approx(
            statistics.median(values), abs=5e-5
        )
    # the tolerance covers every repetition and the CPU time the host's own work took
    spread = max(abs(v - statistics.median(vs)) for vs in shares.values() for v in vs)
    others = [2 - sum(vs[i] for vs in shares.values()) for i in range(replay.get("repetitions"))]
    assert replay.get("measured.tolerance.share") >= max(spread, *others)


@pytest.mark.parametrize(
    "name",
    ["pinned-plus-two-free", "nice-mix-free", "pinned-pair-plus-free", "two-nice0-two-nice10-free"],
)
def test_a_measured_replay_holds_when_measured_again_in_the_root_group(name: str) -> None:
    # The replays' measurements ran the tasks in the measuring process's autogroup; measured
    # again in the root group, as the scenarios have them, each entry's median is within the
    # replay's tolerance of the figure it keeps (docs/validation.md).
    replay = libsched.Scenario.from_file(REPLAYS / f"host-6.18-{name}.toml")
    again = REPLAYS / "data" / f"host-6.18-root-measure-{name}.json"
    assert json.loads(again.read_text())["provenance"]["session_less_autogroup"] is None
    shares = measured_shares([again])
    assert replay.get("repetitions") == len(next(iter(shares.values())))
    for entry, values in shares.items():
        assert statistics.median(values) == pytest.approx(
            replay.get("measured.share")[entry], abs=replay.get("measured.tolerance.share")
        )
