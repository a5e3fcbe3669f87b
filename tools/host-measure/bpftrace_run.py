"""bpftrace for the host-measure tools (balance_trace.py, ipi_latency.py, tick_latency.py,
timer_wakeup.py):
started with its output in a file and waited for until its probes are attached; stopped with
SIGINT, which makes it print its maps; killed if still running when the tool ends; the
kernel symbols their scripts compare with, the busy loops they fork, and those children
reaped."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def start(args: list[str], out_path: str, map_keys: int) -> subprocess.Popen[bytes]:
    """`bpftrace ARGS`, its output going to out_path, once it has attached its probes."""
    env = dict(os.environ, BPFTRACE_MAP_KEYS_MAX=str(map_keys))
    with open(out_path, "w") as out:
        tracer = subprocess.Popen(
            ["bpftrace", *args], stdout=out, stderr=subprocess.DEVNULL, env=env
        )
    for _ in range(100):
        time.sleep(0.1)
        with open(out_path) as f:
            text = f.read()
            if "Attaching" in text or "attached_probes" in text:  # text or -f json
                return tracer
    end(tracer)
    raise RuntimeError("bpftrace did not start")


def kernel_symbols(names: tuple[str, ...]) -> dict[str, int]:
    """The addresses of those of names that /proc/kallsyms shows (non-zero: as root)."""
    found: dict[str, int] = {}
    with open("/proc/kallsyms") as f:
        for line in f:
            addr, _, name = line.split()[:3]
            if name in names and int(addr, 16):
                found[name] = int(addr, 16)
    return found


def fork_spinner(cpu: int, nice: int = 0) -> int:
    """A forked busy loop pinned to cpu at that nice value; its pid, for reap()."""
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        os.nice(nice)
        while True:
            pass
    return pid


def stop(tracer: subprocess.Popen[bytes]) -> None:
    """SIGINT: bpftrace prints its maps and exits. The signal is sent again every 5 s: once,
    with a busy loop on each CPU, bpftrace did not act on the first and ran on."""
    for _ in range(12):
        tracer.send_signal(signal.SIGINT)
        try:
            tracer.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            pass
    raise RuntimeError("bpftrace did not stop within 60 s of SIGINT")


def reap(children: list[int]) -> None:
    """Kill the tool's forked children, wait for them and empty the list (a pid, once
    reaped, may be reused)."""
    for c in children:
        try:
            os.kill(c, signal.SIGKILL)
            os.waitpid(c, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    children.clear()


def end(tracer: subprocess.Popen[bytes] | None) -> None:
    """Kill it if it still runs."""
    if tracer is not None and tracer.poll() is None:
        tracer.kill()
        tracer.wait()
