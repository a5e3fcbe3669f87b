"""Run a scenario on this Linux host and record it in the simulator's result schema
(docs/output-format.md, ``provenance.source = "measured"``).

Each task of the scenario is a ``libsched-worker`` process (installed with the package)
started blocked, placed (cgroup, session, affinity, policy, nice) and then released with
the others at the run's time zero. The driver samples ``/proc/PID/stat``,
``/proc/PID/sched``, ``/proc/PID/schedstat``, ``/proc/stat`` and the groups' ``cpu.stat``
at the window's ends and reaps the workers; the summary is made by the same C++ code as a
simulated run's. Every process, cgroup and sysctl it creates or changes is undone, also on
Ctrl-C and SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import json
import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from . import _core, _host
from ._source import scenario_source
from .perf_sched import entry_name, is_stopper, per_cpu_kthread_cpu

__all__ = ["MeasureError", "host_machine", "measure"]

WORKER = os.path.join(os.path.dirname(__file__), "bin", "libsched-worker")
GROUP_PREFIX = "libsched-measure-"
SETUP_MARGIN_NS = 50_000_000  # from the last placement to time zero
EXIT_GRACE_S = 2.0  # how long a worker may take past its exit time to report
PR_SET_PDEATHSIG = 1
USER_HZ = os.sysconf("SC_CLK_TCK")
OTHER_WORK_TOP = 10  # the host's threads named in provenance.other_work
AUTOGROUP_SYSCTL = os.path.join(_host.PROC_SYS_KERNEL, "sched_autogroup_enabled")
# The kernel's SCHED_* numbers, by the names a scenario's policy takes.
POLICY_NAMES = {0: "normal", 1: "fifo", 2: "rr", 3: "batch", 5: "idle", 6: "deadline"}
FAIR_POLICIES, RT_POLICIES = ("normal", "batch", "idle"), ("fifo", "rr")
SCHED_NUMBERS = {name: number for number, name in POLICY_NAMES.items()}
# sched_setattr() and sched_getattr(), which the os module lacks, by machine.
SYS_SCHED_ATTR = {"x86_64": (314, 315), "aarch64": (274, 275), "riscv64": (274, 275)}


class MeasureError(RuntimeError):
    """The host cannot run what the scenario asks (a privilege, a CPU count, a topology);
    ``field`` names the scenario field, as in ``ScenarioError``."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


def _warn(field_name: str, reason: str) -> None:
    from . import ScenarioWarning

    warnings.warn(f"{field_name}: {reason}", ScenarioWarning, stacklevel=4)


# --- checks ------------------------------------------------------------------------------


def _topology_places(topology: dict[str, Any], cpus: int) -> list[tuple[int, ...]]:
    keys = ("package", "core", "thread", "llc", "node")
    return [tuple(c[k] for k in keys) for c in topology["cpus"][:cpus]]


def _check(plan: dict[str, Any], host: _host.Host) -> None:
    """Refusals (MeasureError) and warnings for what the host cannot do as asked."""
    m = plan["machine"]
    if m["cpus"] > len(host.online):
        raise MeasureError(
            "machine.cpus", f"the scenario has {m['cpus']} CPUs, the host {len(host.online)} online"
        )
    host_places = _topology_places(host.topology, m["cpus"])
    if m["topology"] is not None and _topology_places(m["topology"], m["cpus"]) != host_places:
        raise MeasureError(
            "machine.topology", "is not the host's (libsched measure --host prints the host's)"
        )
    if m["topology"] is None and _topology_places(m["default_topology"], m["cpus"]) != host_places:
        _warn(
            "machine.topology",
            "unset (cores without SMT, one LLC), but the host's CPUs differ; measured on the "
            "host's",
        )
    if m["cpus"] < len(host.online):
        _warn(
            "machine.cpus",
            f"{m['cpus']} of the host's {len(host.online)} online CPUs: the tasks are held to "
            f"CPUs 0-{m['cpus'] - 1}",
        )
    # get_update_sysctl_factor(): the tunables scale with min(online, 8) CPUs.
    online, host_online = m["online_cpus"] or m["cpus"], len(host.online)
    if min(online, 8) != min(host_online, 8):
        _warn(
            "machine.online_cpus",
            f"{online}, the host has {host_online} online: its kernel scales its slices for "
            f"{host_online} (set online_cpus = {host_online} to simulate that)",
        )
    series = f"{host.series[0]}.{host.series[1]}"
    if m["kernel"].split(".")[:2] != series.split("."):
        _warn("machine.kernel", f"the scenario models {m['kernel']}, the host runs {series}")
    if host.hz is not None and m["hz"] != host.hz:
        _warn("machine.hz", f"the scenario has HZ {m['hz']}, the host {host.hz}")
    for key in (
        "base_slice_ns",
        "latency_ns",
        "min_granularity_ns",
        "wakeup_granularity_ns",
        "sched_rt_runtime",
        "sched_rt_period",
        "sched_rr_timeslice",
        "fair_server_runtime",
        "fair_server_period",
    ):
        if m[key] is not None:
            _warn(
                f"machine.{key.removesuffix('_ns')}",
                "set in the scenario; the host's own value is measured",
            )
    if m["features"]:
        _warn("machine.features", "set in the scenario; the host's own features are measured")
    if host.config is not None:
        for key, flag in (
            ("irq_time_accounting", "CONFIG_IRQ_TIME_ACCOUNTING"),
            ("nohz_idle", "CONFIG_NO_HZ_COMMON"),
        ):
            if m[key] != host.config_flag(flag):
                _warn(
                    f"machine.{key}",
                    f"{str(m[key]).lower()}, the host's kernel has {flag} "
                    f"{'on' if host.config_flag(flag) else 'off'}",
                )
    preempt = host.preempt()
    if preempt is not None and m["preempt"] != preempt:
        _warn("machine.preempt", f"{m['preempt']}, the host runs preempt={preempt}")
    for key in m["costs_set"]:
        _warn(f"machine.{key}", "set in the scenario; the host's own cost is what it measures")
    if m["newidle_ratio"] is not None:
        _warn(
            "machine.newidle_ratio",
            "set in the scenario; the host's CPUs start from their own NI_RANDOM state "
            "(tools/host-measure/newidle_ratio.py reads it)",
        )
    if plan["cgroups"]:
        if host.cgroup is None:
            raise MeasureError("cgroups", "the host has no cpu controller mounted")
        if not os.access(host.cgroup.path, os.W_OK):
            raise MeasureError(
                "cgroups", f"creating cpu cgroups needs write access to {host.cgroup.path}"
            )
        controllers = _host.read_text(os.path.join(host.cgroup.path, "cgroup.subtree_control"))
        if host.cgroup.version == 2 and "cpu" not in (controllers or "").split():
            raise MeasureError(
                "cgroups",
                f"the cpu controller is not enabled for the groups under {host.cgroup.path} "
                "(its cgroup.subtree_control)",
            )
        if m["cgroup_version"] != host.cgroup.version:
            _warn(
                "machine.cgroup_version",
                f"{m['cgroup_version']}, the host's cpu controller is on v{host.cgroup.version}; "
                "the groups get the same shares there",
            )
    uses_sessions = any(t["session"] and not t["cgroup"] for t in plan["tasks"])
    if uses_sessions and host.autogroup is None:
        raise MeasureError(
            "tasks.session", "the host kernel has no autogroup (CONFIG_SCHED_AUTOGROUP)"
        )
    if (
        uses_sessions
        and host.autogroup != int(m["autogroup"])
        and not os.access(AUTOGROUP_SYSCTL, os.W_OK)
    ):
        raise MeasureError(
            "machine.autogroup", "setting sched_autogroup_enabled needs write access to it (root)"
        )
    own = _sessionless_autogroup(host)
    if own is not None and any(not t["session"] and not t["cgroup"] for t in plan["tasks"]):
        _warn(
            "tasks.session",
            f"tasks without a session run in this process's autogroup ({own}), not the root "
            "group as in the model; forking them there needs write access to "
            "sched_autogroup_enabled (root)",
        )
    priv = host.privileges
    own_nice = os.getpriority(os.PRIO_PROCESS, 0)
    for i, t in enumerate(plan["tasks"]):
        where = f"tasks[{i}]"
        if t["slice"] is not None:
            if host.series < (6, 12):
                raise MeasureError(
                    f"{where}.slice",
                    f"the host runs {host.release}: a fair task's requested slice "
                    "(sched_setattr() sched_runtime) takes effect from 6.12",
                )
            if os.uname().machine not in SYS_SCHED_ATTR:
                raise MeasureError(
                    f"{where}.slice",
                    f"sched_setattr() is not known on {os.uname().machine} to this driver",
                )
        if t["behaviour"]["type"] == "steps":
            raise MeasureError(
                f"{where}.behaviour",
                "a program of steps is not measured: the worker runs burner, periodic and "
                "random behaviours (run rt-app itself for the real thing)",
            )
        if t["policy"] in ("fifo", "rr") and not priv.can_rt(t["rt_priority"]):
            raise MeasureError(
                f"{where}.policy",
                f"SCHED_{t['policy'].upper()} priority {t['rt_priority']} needs CAP_SYS_NICE or "
                f"RLIMIT_RTPRIO >= {t['rt_priority']} (it is {priv.rlimit_rtprio})",
            )
        if (
            t["policy"] in ("fifo", "rr")
            and t["cgroup"]
            and host.config_flag("CONFIG_RT_GROUP_SCHED")
        ):
            raise MeasureError(
                f"{where}.cgroup",
                "an RT task in a cgroup needs the group's RT runtime, which a scenario does not "
                "set",
            )
        steps = [(f"{where}.nice", t["nice_clamped"])] + [
            (f"{where}.renice[{j}]", max(-20, min(19, r["nice"])))
            for j, r in enumerate(t["renice"])
        ]
        current = own_nice
        for name, nice in steps:
            if nice < current and not priv.can_nice(nice):
                raise MeasureError(
                    name,
                    f"nice {nice} below {current} needs CAP_SYS_NICE or "
                    f"RLIMIT_NICE >= {20 - nice} (it is {priv.rlimit_nice})",
                )
            current = nice
        if t["system_share"] > 0:
            _warn(
                f"{where}.system_share",
                "the worker makes almost no system calls; its system time is what it is",
            )
    for name, nice in plan["sessions"].items():
        if nice < 0 and not priv.can_nice(nice):
            raise MeasureError(
                f"sessions.{name}.nice",
                f"autogroup nice {nice} needs CAP_SYS_NICE or RLIMIT_NICE >= {20 - nice}",
            )


# --- one repetition -----------------------------------------------------------------------


class _SchedAttr(ctypes.Structure):
    """struct sched_attr as SCHED_ATTR_SIZE_VER0 (include/uapi/linux/sched/types.h)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64),
        ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32),
        ("sched_runtime", ctypes.c_uint64),
        ("sched_deadline", ctypes.c_uint64),
        ("sched_period", ctypes.c_uint64),
    ]


def _sched_attr_call(number: int, pid: int, attr: _SchedAttr, *size: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, pid, ctypes.byref(attr), *size, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def set_fair_slice(pid: int, policy: str, nice: int, slice_ns: int) -> int:
    """Request ``slice_ns`` for a fair thread (sched_setattr() sched_runtime, 6.12+) and
    return the slice the kernel kept: __setparam_fair() clamps it to [0.1 ms, 100 ms];
    a kernel without custom slices reports none (0)."""
    setattr_nr, getattr_nr = SYS_SCHED_ATTR[os.uname().machine]
    attr = _SchedAttr(
        size=ctypes.sizeof(_SchedAttr),
        sched_policy=SCHED_NUMBERS[policy],
        sched_nice=nice,
        sched_runtime=slice_ns,
    )
    _sched_attr_call(setattr_nr, pid, attr)
    kept = _SchedAttr()
    _sched_attr_call(getattr_nr, pid, kept, ctypes.sizeof(_SchedAttr))
    return int(kept.sched_runtime)


@dataclass
class _Worker:
    name: str
    entry: int
    pid: int = 0
    stdin: int = -1
    stdout: int = -1
    nice: int = 0
    report: Optional[dict[str, Any]] = None
    samples: dict[str, dict[str, int]] = field(default_factory=dict)
    autogroup: Optional[str] = None


def _own_autogroup() -> Optional[str]:
    """The autogroup this process runs in ("autogroup-7"), None for the root group: the
    init session's, or any while autogroup is off. /proc/PID/autogroup is empty then."""
    text = _host.read_text("/proc/self/autogroup")
    return text.split()[0].lstrip("/") if text else None


def _sessionless_autogroup(host: _host.Host) -> Optional[str]:
    """The autogroup the tasks without a session run in, None for the root group: this
    process's, where autogroup is on and it cannot be turned off for their fork."""
    own = _own_autogroup()
    if not host.autogroup or own is None or os.access(AUTOGROUP_SYSCTL, os.W_OK):
        return None
    return own


def _prctl_pdeathsig() -> None:
    # Die with the parent, so that a driver killed outright leaves no worker spinning.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _spawn(
    argvs: list[list[str]], new_session: bool
) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Start the workers argvs in one process group led by a small holder (in a new session
    when asked: setsid gives the session its autogroup); returns the holder's pid, the
    descriptor whose closing lets it reap its workers and exit, and each worker's (pid,
    stdin, stdout) descriptors. Until then an exited worker stays a zombie, so that its
    /proc/PID files still show its final figures at the window's end."""
    pipes = [(os.pipe(), os.pipe()) for _ in argvs]
    report_r, report_w = os.pipe()
    release_r, release_w = os.pipe()
    holder = os.fork()
    if holder == 0:  # the holder: fork the workers, tell their pids, reap them
        try:
            own = {report_w, release_r} | {fd for pair in pipes for p in pair for fd in p}
            for fd in map(int, os.listdir("/proc/self/fd")):
                if fd > 2 and fd not in own:  # other workers' pipes, inherited
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            _prctl_pdeathsig()
            if new_session:
                os.setsid()
            pids = []
            for argv, ((in_r, _), (_, out_w)) in zip(argvs, pipes):
                pid = os.fork()
                if pid == 0:
                    _prctl_pdeathsig()
                    os.dup2(in_r, 0)
                    os.dup2(out_w, 1)
                    os.closerange(3, 1 << 16)
                    os.execv(argv[0], argv)
                pids.append(pid)
            for (in_r, in_w), (out_r, out_w) in pipes:
                for fd in (in_r, in_w, out_r, out_w):
                    os.close(fd)
            os.write(report_w, (" ".join(map(str, pids)) + "\n").encode())
            os.close(report_w)
            os.read(release_r, 1)  # EOF: the driver is done, or gone
            for _ in pids:
                os.wait()
        finally:
            os._exit(0)
    os.close(report_w)
    os.close(release_r)
    with os.fdopen(report_r) as f:
        pids = [int(p) for p in f.read().split()]
    out = []
    for pid, ((in_r, in_w), (out_r, out_w)) in zip(pids, pipes):
        os.close(in_r)
        os.close(out_w)
        out.append((pid, in_w, out_r))
    return holder, release_w, out


def _proc_stat(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): utime is field 14, stime 15, processor 39.
    return {"utime": int(fields[11]), "stime": int(fields[12]), "cpu": int(fields[36])}


def _proc_sched(pid: int) -> dict[str, int]:
    wanted = {
        "se.sum_exec_runtime": "runtime",
        "se.nr_migrations": "migrations",
        "nr_voluntary_switches": "nvcsw",
        "nr_involuntary_switches": "nivcsw",
    }
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/sched", encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key in wanted:
                if key == "se.sum_exec_runtime":  # ms with six decimals: ns exactly
                    whole, _, frac = value.partition(".")
                    out["runtime"] = int(whole) * 1_000_000 + int((frac + "000000")[:6])
                else:
                    out[wanted[key]] = int(value)
    return out


def _proc_schedstat(pid: int) -> dict[str, int]:
    # sched_info: time on the CPU, time waiting on a run queue, arrivals on the CPU.
    with open(f"/proc/{pid}/schedstat", encoding="utf-8") as f:
        _, run_delay, pcount = (int(v) for v in f.read().split())
    return {"run_delay": run_delay, "pcount": pcount}


def _sample(worker: _Worker) -> dict[str, int]:
    # se.sum_exec_runtime as /proc/PID/sched shows it: for a task running on another CPU,
    # as of its last update (up to a tick old), as for any reader outside the task.
    return {
        **_proc_stat(worker.pid),
        **_proc_sched(worker.pid),
        **_proc_schedstat(worker.pid),
    }


def _thread_times(skip: set[int]) -> dict[int, tuple[int, int, int]]:
    """tid -> (pid, time on a CPU in ns, runs on a CPU) of every thread on the host but
    those in ``skip``, from /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO); empty
    without it."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # exited meanwhile
        for tid in tids:
            if int(tid) in skip:
                continue
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="utf-8") as f:
                    run, _, pcount = (int(v) for v in f.read().split())
            except (OSError, ValueError):
                continue
            out[int(tid)] = (int(pid), run, pcount)
    return out


def _thread_identity(pid: int, tid: int) -> dict[str, Any]:
    """A thread's comm, nice and policy from /proc/PID/task/TID/stat (None once it exited)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {"comm": None, "nice": None, "policy": None, "rt_priority": None}
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text.rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): nice is field 19, rt_priority 40, policy 41.
    policy = POLICY_NAMES.get(int(fields[38]), fields[38])
    return {
        "comm": comm,
        "nice": int(fields[16]) if policy in FAIR_POLICIES else None,
        "policy": policy,
        "rt_priority": int(fields[37]),
    }


def _other_work(
    start: dict[int, tuple[int, int, int]], end: dict[int, tuple[int, int, int]], top: int
) -> dict[str, Any]:
    """What the host's other threads ran between two _thread_times(): in all, and the
    ``top`` threads that ran longest. A thread born meanwhile counts from zero; one that
    exited meanwhile cannot be read and is missing."""
    ran = []
    for tid, (pid, run, runs) in end.items():
        _, run0, runs0 = start.get(tid, (pid, 0, 0))
        if run > run0:
            ran.append((run - run0, runs - runs0, pid, tid))
    ran.sort(key=lambda r: (-r[0], r[3]))
    return {
        "window_runtime": sum(r[0] for r in ran),
        "threads": len(ran),
        "top": [
            {
                "pid": pid,
                "tid": tid,
                **_thread_identity(pid, tid),
                "window_runtime": run,
                "window_runs": runs,
            }
            for run, runs, pid, tid in ran[:top]
        ],
    }


def _cpu_times(host_cpus: list[int]) -> dict[int, tuple[int, int]]:
    """(busy, idle) ns of each CPU from /proc/stat (USER_HZ ticks)."""
    out = {}
    with open("/proc/stat", encoding="utf-8") as f:
        for line in f:
            name, *values = line.split()
            if not name.startswith("cpu") or name == "cpu":
                continue
            cpu = int(name[3:])
            if cpu in host_cpus:
                v = [int(x) for x in values]
                idle = v[3] + v[4]
                busy = sum(v[:8]) - idle
                out[cpu] = (busy * 1_000_000_000 // USER_HZ, idle * 1_000_000_000 // USER_HZ)
    return out


_CPU_STAT_KEYS = {
    "nr_periods": 1,
    "nr_throttled": 1,
    "throttled_time": 1,
    "throttled_usec": 1000,
    "nr_bursts": 1,
    "burst_time": 1,
    "burst_usec": 1000,
}


def _cpu_stat(path: str) -> dict[str, int]:
    out = dict.fromkeys(
        ("nr_periods", "nr_throttled", "throttled_time", "nr_bursts", "burst_time"), 0
    )
    for line in (_host.read_text(os.path.join(path, "cpu.stat")) or "").splitlines():
        key, _, value = line.partition(" ")
        if key in _CPU_STAT_KEYS:
            out[key.replace("_usec", "_time")] = int(value) * _CPU_STAT_KEYS[key]
    return out


def _write(path: str, value: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(value)


class _Cgroups:
    """The scenario's cgroups; remove() undoes them. Each top-level group sits at the top of
    the hierarchy, beside the tasks that have no group, as in the model (under a common
    parent those tasks would face the parent's one weight instead of each group's), named
    with a prefix fresh for the run."""

    def __init__(self, mount: _host.CgroupMount) -> None:
        self.mount = mount
        self.prefix = GROUP_PREFIX + os.urandom(4).hex() + "-"
        self.made: list[str] = []

    def path(self, name: str) -> str:
        return os.path.join(self.mount.path, self.prefix + name)

    def create(self, groups: list[dict[str, Any]]) -> None:
        v2 = self.mount.version == 2
        for g in groups:
            path = self.path(g["name"])
            parent = os.path.dirname(path)
            if v2 and parent != self.mount.path:  # a parent group hands the controller down
                _write(os.path.join(parent, "cgroup.subtree_control"), "+cpu")
            self._mkdir(path)
            if v2:
                # cpu.weight from tg->shares, as sched_weight_to_cgroup() reads it back.
                _write(
                    os.path.join(path, "cpu.weight"),
                    str(max(1, min(10000, (g["shares"] * 100 + 512) // 1024))),
                )
            else:
                _write(os.path.join(path, "cpu.shares"), str(g["shares"]))
            if g["quota"] is not None:
                period_us = (g["period"] or 100_000_000) // 1000
                if v2:
                    _write(os.path.join(path, "cpu.max"), f"{g['quota'] // 1000} {period_us}")
                else:
                    _write(os.path.join(path, "cpu.cfs_period_us"), str(period_us))
                    _write(os.path.join(path, "cpu.cfs_quota_us"), str(g["quota"] // 1000))
            if g["burst"]:
                _write(
                    os.path.join(path, "cpu.max.burst" if v2 else "cpu.cfs_burst_us"),
                    str(g["burst"] // 1000),
                )
            if g["idle"]:
                _write(os.path.join(path, "cpu.idle"), "1")

    def _mkdir(self, path: str) -> None:
        os.mkdir(path)
        self.made.append(path)

    def remove(self) -> None:
        for path in reversed(self.made):  # children first
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last exiting task leaves
                    time.sleep(0.02)
        self.made.clear()


def _now() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


@contextlib.contextmanager
def _on_time() -> Iterator[None]:
    """The driver as SCHED_FIFO 1 where it may be (root, CAP_SYS_NICE or RLIMIT_RTPRIO):
    it then wakes for a window's reads at once (no timer slack, no wait behind other
    work on its CPU), so the window is the scenario's to within microseconds. It sleeps
    between its reads, so the workers lose next to nothing."""
    before = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.sched_setscheduler(0, before[0], before[1])


def _sleep_until(at: int) -> None:
    while (left := at - _now()) > 0:
        time.sleep(left / 1e9)


def _worker_argv(plan: dict[str, Any], task: dict[str, Any], start: int, seed: int) -> list[str]:
    length = plan["length"]
    stop = length
    if task["lifetime"] is not None:
        stop = min(stop, start + task["lifetime"])
    if task["exit_at"] is not None:
        stop = min(stop, task["exit_at"])
    b = task["behaviour"]
    reads = task["cpu_clock_reads"] or 0
    argv = [WORKER, str(start), str(stop), str(plan["window_start"]), str(plan["window_end"])]
    argv += [str(reads), str(task["timer_slack"])]
    if b["type"] == "burner":
        return [*argv, "burner"]
    if b["type"] == "periodic":
        if b["period"] is not None:
            return [*argv, "timer", str(b["run"]), str(b["period"])]
        return [*argv, "periodic", str(b["run"]), str(b["sleep"])]

    def dist(d: dict[str, Any]) -> str:
        return f"uniform:{d['a']}:{d['b']}" if d["kind"] == "uniform" else f"{d['kind']}:{d['a']}"

    return [*argv, "random", str(seed), dist(b["run_dist"]), dist(b["sleep_dist"])]


class _Run:
    """One repetition: spawn, place, release, sample, reap; close() undoes everything."""

    def __init__(
        self, plan: dict[str, Any], host: _host.Host, repetition: int, tick_phase: Optional[int]
    ) -> None:
        self.plan, self.host, self.repetition = plan, host, repetition
        self.tick_phase = tick_phase
        self.cpus = host.online[: plan["machine"]["cpus"]]
        self.workers: list[_Worker] = []
        self.holders: list[tuple[int, int]] = []  # pid, release descriptor
        self.cgroups = _Cgroups(host.cgroup) if plan["cgroups"] and host.cgroup else None
        self.autogroup_before: Optional[int] = None  # the host's, while changed
        self.autogroup_now = host.autogroup
        self.driver_affinity = os.sched_getaffinity(0)

    def host_cpus(self, cpus: list[int]) -> set[int]:
        return {self.cpus[c] for c in cpus} if cpus else set(self.cpus)

    def start(self) -> None:
        plan = self.plan
        if self.cgroups:
            self.cgroups.create(plan["cgroups"])
        # Keep the driver off the workers' CPUs when they leave one free.
        used: set[int] = set()
        for t in plan["tasks"]:
            used |= self.host_cpus(t["cpus"])
            for change in t["set_affinity"]:
                used |= self.host_cpus(change["cpus"])
        free = set(self.driver_affinity) - used
        if free:
            os.sched_setaffinity(0, free)
        forks = plan["forks"][self.repetition]
        by_session: dict[str, list[tuple[_Worker, list[str]]]] = {}
        for e, t in enumerate(plan["tasks"]):
            for i, at in enumerate(forks[e]):
                if at > plan["length"]:
                    continue  # forks after the end never start, as in the model
                name = t["name"] if t["count"] == 1 else f"{t['name']}.{i}"
                w = _Worker(name, e, nice=t["nice_clamped"])
                seed = plan["seed"] + self.repetition + len(self.workers) + 1
                by_session.setdefault(t["session"], []).append((w, _worker_argv(plan, t, at, seed)))
                self.workers.append(w)
        # The session-less first: the model runs them in the root group, but a fork joins its
        # parent's autogroup unless autogroup is off (autogroup_task_group()).
        for session, members in sorted(by_session.items(), key=lambda kv: bool(kv[0])):
            if session:
                self.fork_autogroup(int(plan["machine"]["autogroup"]))
            elif _own_autogroup() is not None:
                self.fork_autogroup(0)
            holder, release, started = _spawn(
                [argv for _, argv in members], new_session=bool(session)
            )
            self.holders.append((holder, release))
            for (w, _), (pid, stdin, stdout) in zip(members, started):
                w.pid, w.stdin, w.stdout = pid, stdin, stdout
        for w in self.workers:
            self.place(w)

    def fork_autogroup(self, wanted: int) -> None:
        """sched_autogroup_enabled as the next workers' fork needs it: the scenario's for a new
        session's, off for the session-less if this process is in an autogroup; close()
        restores the host's. Left as it is where it cannot be written (_check() said so)."""
        if self.autogroup_now in (None, wanted) or not os.access(AUTOGROUP_SYSCTL, os.W_OK):
            return
        if self.autogroup_before is None:
            self.autogroup_before = self.host.autogroup
        _write(AUTOGROUP_SYSCTL, str(wanted))
        self.autogroup_now = wanted

    def place(self, w: _Worker) -> None:
        t = self.plan["tasks"][w.entry]
        if t["cgroup"] and self.cgroups:
            _write(os.path.join(self.cgroups.path(t["cgroup"]), "cgroup.procs"), str(w.pid))
        os.sched_setaffinity(w.pid, self.host_cpus(t["cpus"]))
        policy = {
            "normal": os.SCHED_OTHER,
            "batch": os.SCHED_BATCH,
            "idle": os.SCHED_IDLE,
            "fifo": os.SCHED_FIFO,
            "rr": os.SCHED_RR,
        }[t["policy"]]
        os.sched_setscheduler(w.pid, policy, os.sched_param(t["rt_priority"]))
        os.setpriority(os.PRIO_PROCESS, w.pid, w.nice)
        if t["slice"] is not None:
            # Last: sched_setscheduler() above resets a custom slice to the base slice.
            kept = set_fair_slice(w.pid, t["policy"], w.nice, t["slice"])
            if kept != t["slice"]:
                raise MeasureError(
                    f"tasks[{w.entry}].slice",
                    f"the host kernel kept a slice of {kept} ns where {t['slice']} was asked",
                )
        if t["session"]:
            nice = self.plan["sessions"].get(t["session"], 0)
            if nice:
                _write(f"/proc/{w.pid}/autogroup", str(nice))
            text = _host.read_text(f"/proc/{w.pid}/autogroup") or ""
            w.autogroup = text.split()[0].lstrip("/") if text else None

    def events(self) -> Iterator[tuple[int, Callable[[], None]]]:
        plan = self.plan
        for w in self.workers:
            t = plan["tasks"][w.entry]
            for r in t["renice"]:
                nice = max(-20, min(19, r["nice"]))
                yield r["at"], functools.partial(self.renice, w, nice)
            for c in t["set_affinity"]:
                cpus = self.host_cpus(c["cpus"])
                yield c["at"], functools.partial(self.set_affinity, w, cpus)
        yield plan["window_start"], functools.partial(self.sample, "start")
        yield plan["window_end"], functools.partial(self.sample, "end")

    def set_affinity(self, w: _Worker, cpus: set[int]) -> None:
        os.sched_setaffinity(w.pid, cpus)

    def renice(self, w: _Worker, nice: int) -> None:
        os.setpriority(os.PRIO_PROCESS, w.pid, nice)
        w.nice = nice

    def sample(self, which: str) -> None:
        for w in self.workers:
            w.samples[which] = _sample(w)
        self.cpu_samples[which] = _cpu_times(self.cpus)
        self.group_samples[which] = self.group_stats()
        self.thread_samples[which] = _thread_times({w.pid for w in self.workers})

    def other_work(self) -> Optional[dict[str, Any]]:
        """The host's other threads in the window (provenance.other_work); None where no
        thread's schedstat could be read (a kernel without CONFIG_SCHED_INFO)."""
        start, end = self.thread_samples["start"], self.thread_samples["end"]
        if not start:
            return None
        return _other_work(start, end, OTHER_WORK_TOP)

    def group_stats(self) -> dict[str, dict[str, int]]:
        if not self.cgroups:
            return {}
        return {
            g["name"]: _cpu_stat(self.cgroups.path(g["name"]))
            for g in self.plan["cgroups"]
            if g["quota"] is not None
        }

    def run(self) -> dict[str, Any]:
        self.cpu_samples: dict[str, dict[int, tuple[int, int]]] = {}
        self.group_samples: dict[str, dict[str, dict[str, int]]] = {}
        self.thread_samples: dict[str, dict[int, tuple[int, int, int]]] = {}
        zero = _now() + SETUP_MARGIN_NS
        if self.host.hz is not None and self.tick_phase is not None:
            # On a tick, as the model's ticks count from time zero.
            zero += (self.tick_phase - zero) % _host.tick_nsec(self.host.hz)
        self.cpu_samples["zero"] = _cpu_times(self.cpus)
        for w in self.workers:
            os.write(w.stdin, f"{zero}\n".encode())
            os.close(w.stdin)
            w.stdin = -1
        with _on_time():
            for at, action in sorted(self.events(), key=lambda e: e[0]):
                _sleep_until(zero + at)
                action()
            _sleep_until(zero + self.plan["length"])
        self.cpu_samples["stop"] = _cpu_times(self.cpus)
        self.group_samples["stop"] = self.group_stats()
        self.collect()
        return self.repetition_json()

    def collect(self) -> None:
        """Each worker's report line; one that does not report in time is killed."""
        deadline = time.monotonic() + EXIT_GRACE_S
        pending = {w.stdout: w for w in self.workers}
        chunks: dict[int, bytes] = dict.fromkeys(pending, b"")
        while pending and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select(list(pending), [], [], left)
            for fd in ready:
                data = os.read(fd, 65536)
                chunks[fd] += data
                if not data:
                    w = pending.pop(fd)
                    text = chunks[fd].decode().strip()
                    w.report = json.loads(text) if text else None
        for w in self.workers:
            if w.report is None:
                raise RuntimeError(
                    f"libsched.measure: worker {w.name} (pid {w.pid}) did not report"
                )

    def repetition_json(self) -> dict[str, Any]:
        plan = self.plan
        tasks = []
        for w in self.workers:
            t, r, s0, s1 = plan["tasks"][w.entry], w.report, w.samples["start"], w.samples["end"]
            assert r is not None
            tasks.append(
                {
                    "name": w.name,
                    "entry": t["name"],
                    "pid": w.pid,
                    "cpu": self.cpus.index(s1["cpu"]) if s1["cpu"] in self.cpus else s1["cpu"],
                    "nice": w.nice,
                    "nice_clamped": t["nice_clamped"] != t["nice"],
                    "policy": t["policy"],
                    "rt_priority": t["rt_priority"],
                    "sum_exec_runtime": r["sum_exec_runtime"],
                    "window_runtime": s1["runtime"] - s0["runtime"],
                    "stat_utime_start": s0["utime"],
                    "stat_utime_end": s1["utime"],
                    "stat_stime_start": s0["stime"],
                    "stat_stime_end": s1["stime"],
                    "ru_utime_us": r["ru_utime_us"],
                    "ru_stime_us": r["ru_stime_us"],
                    "nvcsw": r["nvcsw"],
                    "nivcsw": r["nivcsw"],
                    "window_nvcsw": s1["nvcsw"] - s0["nvcsw"],
                    "window_nivcsw": s1["nivcsw"] - s0["nivcsw"],
                    "nr_migrations": r["nr_migrations"],
                    "window_nr_migrations": s1["migrations"] - s0["migrations"],
                    "lateness": r["lateness"],
                    "run_delay": {
                        "count": s1["pcount"] - s0["pcount"],
                        "sum": s1["run_delay"] - s0["run_delay"],
                    },
                    "started": r["started"],
                    "exited": r["exited"] if r["exited"] < plan["length"] else None,
                }
            )
        cpus = []
        for i, c in enumerate(self.cpus):
            z, a, b, e = (self.cpu_samples[k][c] for k in ("zero", "start", "end", "stop"))
            cpus.append(
                {
                    "cpu": i,
                    "busy": e[0] - z[0],
                    "idle": e[1] - z[1],
                    "window_busy": b[0] - a[0],
                    "window_idle": b[1] - a[1],
                }
            )
        return {"tasks": tasks, "cpus": cpus, "task_groups": self.task_groups(tasks)}

    def task_groups(self, tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        plan, out = self.plan, []

        def totals(members: list[int], own: int) -> dict[str, int]:
            return {
                "nr_tasks": own,
                "sum_exec_runtime": sum(tasks[i]["sum_exec_runtime"] for i in members),
                "window_runtime": sum(tasks[i]["window_runtime"] for i in members),
            }

        for g in plan["cgroups"]:
            name = g["name"]
            cg = [plan["tasks"][w.entry]["cgroup"] for w in self.workers]
            members = [i for i, c in enumerate(cg) if c == name or c.startswith(name + "/")]
            group: dict[str, Any] = {
                "name": name,
                "autogroup": False,
                "session": "",
                "shares": g["shares"],
                **totals(members, sum(c == name for c in cg)),
            }
            if g["quota"] is not None:
                a, b = self.group_samples["start"][name], self.group_samples["end"][name]
                group["bandwidth"] = {
                    "quota": g["quota"],
                    "period": g["period"] or 100_000_000,
                    "burst": g["burst"] or 0,
                    "cpu_stat": self.group_samples["stop"][name],
                    "window_cpu_stat": {k: b[k] - a[k] for k in b},
                }
            out.append(group)
        if plan["machine"]["autogroup"]:
            sessions: dict[str, list[int]] = {}
            for i, w in enumerate(self.workers):
                t = plan["tasks"][w.entry]
                if t["session"] and not t["cgroup"]:
                    sessions.setdefault(t["session"], []).append(i)
            for session, members in sessions.items():
                nice = plan["sessions"].get(session, 0)
                out.append(
                    {
                        "name": self.workers[members[0]].autogroup or "autogroup",
                        "autogroup": True,
                        "session": session,
                        "shares": _core.weight.nice_to_weight(nice),
                        **totals(members, len(members)),
                    }
                )
        return out

    def close(self) -> None:
        for w in self.workers:
            for fd in (w.stdin, w.stdout):
                if fd >= 0:
                    os.close(fd)
            w.stdin = w.stdout = -1
            if w.pid:
                try:
                    os.kill(w.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for holder, release in self.holders:
            os.close(release)
            os.waitpid(holder, 0)
        self.holders.clear()
        if self.cgroups:
            self.cgroups.remove()
        if self.autogroup_before is not None:
            _write(AUTOGROUP_SYSCTL, str(self.autogroup_before))
            self.autogroup_before = None
            self.autogroup_now = self.host.autogroup
        os.sched_setaffinity(0, self.driver_affinity)


# --- the document ---------------------------------------------------------------------------


def _tick_phase(plan: dict[str, Any], host: _host.Host) -> Optional[int]:
    if host.hz is None:
        return None
    return _host.tick_phase(host.online[: plan["machine"]["cpus"]], _host.tick_nsec(host.hz))


def _provenance(
    plan: dict[str, Any], host: _host.Host, tick_phase: Optional[int]
) -> dict[str, Any]:
    from . import __version__

    tunables = host.tunables()
    features, why = _host.debugfs_features()
    if features is None:
        host.unreadable["features"] = f"{_host.DEBUG_SCHED}/features: {why}"
    series = f"{host.series[0]}.{host.series[1]}"
    return {
        "source": "measured",
        "producer": "libsched",
        "producer_version": __version__,
        "kernel": series,
        "scheduler": "eevdf" if host.eevdf else "cfs",
        "hz": host.hz,
        "hz_source": host.hz_source,
        "cpus": plan["machine"]["cpus"],
        "online_cpus": len(host.online),
        "tunables": tunables,
        "features": features,
        "irq_time_accounting": host.config_flag("CONFIG_IRQ_TIME_ACCOUNTING"),
        "nohz_idle": host.config_flag("CONFIG_NO_HZ_COMMON"),
        "preempt": host.preempt(),
        "host_name": host.name,
        "host_release": host.release,
        "cgroup_version": host.cgroup.version if host.cgroup else None,
        "autogroup": host.autogroup,
        "session_less_autogroup": _sessionless_autogroup(host),
        "time_zero_on_tick": tick_phase is not None,
        "unreadable": dict(sorted(host.unreadable.items())),
        "model": None,
    }


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same cleanup runs."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated(f"signal {signum}")


def measure(
    scenario: Union[str, os.PathLike[str], Any],
    repetitions: Optional[int] = None,
    out: Union[str, os.PathLike[str], None] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]:
    """Run ``scenario`` on this Linux host and return the result document, in the schema of
    ``libsched.run`` with ``provenance.source = "measured"``.

    ``scenario`` is a path or a ``libsched.Scenario``; ``repetitions`` overrides the
    scenario's. ``out`` also writes the JSON document to that path; ``progress(r, n)`` is
    called before repetition r (0-based) of n. Raises ``MeasureError`` naming the field
    when the host cannot do what the scenario asks (a privilege, more CPUs than online, a
    topology that is not the host's), ``ScenarioError`` for an invalid scenario; what the
    host does differently (another kernel or HZ) is a ``ScenarioWarning``. Every process,
    cgroup and sysctl change it makes is undone on return, error, Ctrl-C and SIGTERM.
    """
    text, origin = scenario_source(scenario, "measure")
    if repetitions is not None and (
        isinstance(repetitions, bool) or not isinstance(repetitions, int)
    ):
        raise TypeError(
            "libsched.measure: repetitions must be an int or None, not "
            f"{type(repetitions).__name__}"
        )
    if repetitions is not None and repetitions < 1:
        raise ValueError(f"libsched.measure: repetitions must be >= 1, got {repetitions}")
    if not sys.platform.startswith("linux"):
        raise MeasureError("machine", "measuring needs a Linux host")
    plan_text, scenario_warnings = _core.measure.scenario_plan(text, origin, repetitions)
    from . import ScenarioWarning

    for message in scenario_warnings:
        warnings.warn(message, ScenarioWarning, stacklevel=2)
    plan = json.loads(plan_text)
    host = _host.read_host()
    _check(plan, host)
    if not os.access(WORKER, os.X_OK):
        raise MeasureError("tasks", f"the worker program {WORKER} is missing; reinstall libsched")

    main_thread = __import__("threading").current_thread() is __import__("threading").main_thread()
    old_term = signal.signal(signal.SIGTERM, _raise_terminated) if main_thread else None
    tick_phase = _tick_phase(plan, host)
    if tick_phase is None:
        host.unreadable["tick"] = "time zero is not put on a tick: " + (
            "HZ is unknown"
            if host.hz is None
            else "/proc/timer_list (root only) shows no common last_tick for the CPUs"
        )
    reps: list[dict[str, Any]] = []
    others: list[Optional[dict[str, Any]]] = []
    try:
        for r in range(plan["repetitions"]):
            if progress:
                progress(r, plan["repetitions"])
            run = _Run(plan, host, r, tick_phase)
            try:
                run.start()
                reps.append(run.run())
                others.append(run.other_work())
            finally:
                run.close()
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, old_term)
    provenance = _provenance(plan, host, tick_phase)
    provenance["other_work"] = others
    if None in others:
        provenance["unreadable"]["other_work"] = (
            "/proc/PID/task/TID/schedstat: not readable (a kernel without CONFIG_SCHED_INFO)"
        )
    measured = {"provenance": provenance, "repetitions": reps}
    result: dict[str, Any] = json.loads(
        _core.measure.measured_document(text, origin, json.dumps(measured))
    )
    if out is not None:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2, sort_keys=True)
            f.write("\n")
    return result


def other_work_tasks(measured: dict[str, Any], min_share: float = 0.0005) -> list[dict[str, Any]]:
    """The host's other threads of a measurement (``provenance.other_work``) as scenario
    tasks, to add to the scenario for a what-if with the host's own work: each thread that
    ran at least ``min_share`` of one CPU in the window of the repetition whose other work
    is the median, with its nice or RT policy, on its CPU if it is a per-CPU kernel thread,
    running and sleeping for exponential times whose means give its runs and its CPU time
    (a run is a turn on a CPU, as schedstat counts them). The stoppers (migration/N) and
    SCHED_DEADLINE threads are left out, and so are threads bound to a CPU the scenario does
    not have."""
    others = [o for o in measured["provenance"].get("other_work") or [] if o is not None]
    if not others:
        raise ValueError(
            "libsched.other_work_tasks: the document has no provenance.other_work (a "
            "measurement by this version of libsched.measure on a kernel with "
            "CONFIG_SCHED_INFO has it)"
        )
    window = measured["window"]["end"] - measured["window"]["start"]
    cpus = measured["provenance"]["cpus"]
    ranked = sorted(others, key=lambda o: o["window_runtime"])
    chosen = ranked[(len(ranked) - 1) // 2]
    tasks = []
    for t in chosen["top"]:
        comm = t["comm"] or "thread"
        if t["window_runtime"] < min_share * window or t["window_runs"] < 1:
            continue
        if is_stopper(comm) or t["policy"] not in FAIR_POLICIES + RT_POLICIES:
            continue
        run = t["window_runtime"] / t["window_runs"]
        task: dict[str, Any] = {"name": entry_name(comm, t["tid"])}
        if t["policy"] in RT_POLICIES:
            task["policy"], task["rt_priority"] = t["policy"], t["rt_priority"]
        else:
            task["nice"] = t["nice"]
            if t["policy"] != "normal":
                task["policy"] = t["policy"]
        cpu = per_cpu_kthread_cpu(comm)
        if cpu is not None:
            if cpu >= cpus:
                continue
            task["affinity"] = [cpu]
        task["behaviour"] = {
            "type": "random",
            "run": {"dist": "exponential", "mean": f"{max(round(run), 1)}ns"},
            "sleep": {
                "dist": "exponential",
                "mean": f"{max(round(window / t['window_runs'] - run), 1)}ns",
            },
        }
        tasks.append(task)
    return tasks


def host_machine() -> dict[str, Any]:
    """The host as a scenario's ``[machine]`` table: ``cpus``, ``topology`` (a shape, or
    ``"host"`` when no shape gives it), ``kernel`` (the release with its patch level, whose
    stable fixes the model then has), ``hz``, ``cgroup_version`` and ``autogroup`` where
    the host shows them; ``irq_time_accounting`` and ``nohz_idle`` from the kernel
    configuration where it is readable; ``preempt`` where debugfs, the boot options or the
    configuration show it; ``rt_group_sched`` when RT group scheduling is on,
    and ``sched_rt_runtime`` / ``sched_rt_period`` when the root group's RT bandwidth is not
    the default 950 ms per 1 s."""
    host = _host.read_host()
    machine: dict[str, Any] = {"cpus": len(host.online)}
    shape = host.topology["shape"]
    machine["topology"] = {k: v for k, v in shape.items()} if shape else "host"
    machine["kernel"] = _host.kernel_version(host.release)
    if host.hz is not None:
        machine["hz"] = host.hz
    if host.cgroup is not None:
        machine["cgroup_version"] = host.cgroup.version
    if host.autogroup is not None:
        machine["autogroup"] = bool(host.autogroup)
    if host.config is not None:
        machine["irq_time_accounting"] = bool(host.config_flag("CONFIG_IRQ_TIME_ACCOUNTING"))
        machine["nohz_idle"] = bool(host.config_flag("CONFIG_NO_HZ_COMMON"))
    preempt = host.preempt()
    if preempt is not None:
        machine["preempt"] = preempt
    group_sched, runtime, period = host.rt_bandwidth()
    if group_sched:
        machine["rt_group_sched"] = True
    if runtime is not None and period is not None and (runtime, period) != (950_000, 1_000_000):
        machine["sched_rt_runtime"] = "unlimited" if runtime < 0 else f"{runtime}us"
        machine["sched_rt_period"] = f"{period}us"
    return machine


def machine_toml(machine: dict[str, Any]) -> str:
    """A ``[machine]`` table as TOML text."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)

    return "[machine]\n" + "".join(f"{k} = {value(v)}\n" for k, v in machine.items())


def _table(doc: dict[str, Any]) -> str:
    rows: list[tuple[str, ...]] = [("entry", "share %", "ratio", "jiffies", "vcsw/s", "ivcsw/s")]
    for s in doc["summary"]:
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
        rows.append(
            (
                s["entry"],
                f"{100 * s['share']:.2f}",
                ratio,
                f"{s['jiffies']:.0f}",
                f"{s['nvcsw_per_s']:.1f}",
                f"{s['nivcsw_per_s']:.1f}",
            )
        )
    text = _aligned(rows, free_last=False)
    others = doc["provenance"].get("other_work")
    if others and None not in others:
        window = doc["window"]["end"] - doc["window"]["start"]
        capacity = window * doc["provenance"]["cpus"]
        rows = [("rep", "ms", "% of CPUs", "threads", "longest")]
        for r, o in enumerate(others):
            longest = ", ".join(
                f"{t['comm'] or t['tid']} ({_policy_text(t)}) {t['window_runtime'] / 1e6:.1f} ms "
                f"in {t['window_runs']} runs"
                for t in o["top"][:3]
            )
            rows.append(
                (
                    str(r + 1),
                    f"{o['window_runtime'] / 1e6:.1f}",
                    f"{100 * o['window_runtime'] / capacity:.2f}",
                    str(o["threads"]),
                    longest,
                )
            )
        text += "\n\nthe host's other threads in the window (not the scenario's tasks)\n"
        text += _aligned(rows, free_last=True)
    return text


def _policy_text(thread: dict[str, Any]) -> str:
    if thread["nice"] is not None:
        return f"nice {thread['nice']}"
    return f"{thread['policy']} {thread['rt_priority']}"


def _aligned(rows: list[tuple[str, ...]], free_last: bool) -> str:
    """Rows as a table: the first column left-aligned, the others right-aligned; with
    ``free_last`` the last column (free text) as it is."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    last = len(widths) - 1

    def cell(i: int, c: str, w: int) -> str:
        if i == 0:
            return c.ljust(w)
        return c if free_last and i == last else c.rjust(w)

    return "\n".join(
        "  ".join(cell(i, c, w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows
    )


def main(args: list[str]) -> int:
    """``libsched measure``: run scenarios on this host (exit 0, 1 on a refusal or a
    scenario error, 2 on a usage error, 130 on Ctrl-C)."""
    from . import ScenarioError

    parser = argparse.ArgumentParser(
        prog="libsched measure",
        description="Run a scenario on this Linux host and report it as libsched run does.",
    )
    parser.add_argument("scenario", nargs="?", help="the scenario file")
    parser.add_argument("--reps", type=int, help="repetitions (default: the scenario's)")
    parser.add_argument("--out", help="also write the JSON document to this file")
    parser.add_argument(
        "--json", action="store_true", help="print the JSON document, not the table"
    )
    parser.add_argument(
        "--host", action="store_true", help="print this host as a [machine] table and exit"
    )
    parser.add_argument(
        "--with-other-work",
        metavar="FILE",
        help="also write the scenario with the host's other threads in the window added as "
        "tasks (libsched.other_work_tasks) to FILE, for a what-if",
    )
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
            print(
                f"libsched: {opts.scenario}: interrupted; everything started was stopped and "
                "removed",
                file=sys.stderr,
            )
            return 130
        finally:
            for w in seen:
                print(f"libsched: {opts.scenario}: warning: {w.message}", file=sys.stderr)
    print(json.dumps(doc, indent=2, sort_keys=True) if opts.json else _table(doc))
    if opts.with_other_work:
        from .scenario import Scenario

        what_if = Scenario.from_file(opts.scenario)
        try:
            what_if.set("tasks", what_if.get("tasks") + other_work_tasks(doc))
        except ValueError as err:
            print(f"libsched: {opts.scenario}: {err}", file=sys.stderr)
            return 1
        with open(opts.with_other_work, "w", encoding="utf-8") as f:
            f.write(what_if.to_toml())
    return 0
