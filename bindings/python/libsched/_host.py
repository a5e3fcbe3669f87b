"""What the Linux host says about itself: kernel, HZ, CPUs, topology, tunables, features,
the cgroup hierarchy of the cpu controller and the caller's scheduling privileges. Each
reader returns ``None`` for what it cannot read; nothing here changes the host."""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import resource
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from . import _core

CAP_SYS_NICE = 23
DEBUG_SCHED = "/sys/kernel/debug/sched"
PROC_SYS_KERNEL = "/proc/sys/kernel"
HZ_CHOICES = (100, 250, 300, 1000)
# The Kconfig preemption model, which a PREEMPT_DYNAMIC kernel boots with unless preempt=.
PREEMPT_CONFIG = (
    ("CONFIG_PREEMPT_LAZY", "lazy"),
    ("CONFIG_PREEMPT", "full"),
    ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"),
    ("CONFIG_PREEMPT_NONE", "none"),
)
PREEMPT_MODES = ("none", "voluntary", "full", "lazy")


def read_text(path: str) -> Optional[str]:
    """The file's text without surrounding white space, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def read_int(path: str) -> Optional[int]:
    text = read_text(path)
    try:
        return None if text is None else int(text.split()[0])
    except (ValueError, IndexError):
        return None


def kernel_config() -> tuple[Optional[dict[str, str]], Optional[str]]:
    """The running kernel's build configuration and where it came from: /proc/config.gz,
    else /boot/config-RELEASE; (None, None) when neither is readable."""
    release = os.uname().release
    for path, opener in (("/proc/config.gz", gzip.open), (f"/boot/config-{release}", open)):
        try:
            with opener(path, "rt", encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        config = {}
        for line in lines:
            if line.startswith("CONFIG_") and "=" in line:
                key, value = line.split("=", 1)
                config[key] = value
        return config, path
    return None, None


def _jiffies() -> Optional[int]:
    text = read_text("/proc/timer_list")
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("jiffies:"):
            return int(line.split()[1])
    return None


def kernel_hz(
    config: Optional[dict[str, str]], config_source: Optional[str]
) -> tuple[Optional[int], str]:
    """CONFIG_HZ and how it was found: the kernel configuration, or the jiffies counter of
    /proc/timer_list over 200 ms of CLOCK_MONOTONIC, rounded to the nearest HZ choice."""
    if config and "CONFIG_HZ" in config:
        return int(config["CONFIG_HZ"]), f"CONFIG_HZ in {config_source}"
    j0, t0 = _jiffies(), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if j0 is None:
        return None, "unknown: no kernel configuration and no /proc/timer_list"
    time.sleep(0.2)
    j1, t1 = _jiffies(), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert j1 is not None
    rate = (j1 - j0) * 1e9 / (t1 - t0)
    return min(
        HZ_CHOICES, key=lambda hz: abs(hz - rate)
    ), "jiffies of /proc/timer_list over CLOCK_MONOTONIC"


def tick_nsec(hz: int) -> int:
    """TICK_NSEC: the tick period in ns, (NSEC_PER_SEC + HZ / 2) / HZ."""
    return (1_000_000_000 + hz // 2) // hz


def tick_phase(cpus: list[int], period: int) -> Optional[int]:
    """Where the periodic tick falls on CLOCK_MONOTONIC, in [0, period): each listed CPU's
    last tick (tick_sched's last_tick in /proc/timer_list, readable by root) modulo the
    period. The ticks of all CPUs share one grid (tick_setup_sched_timer() starts them on
    the jiffies update, and a stopped tick restarts on it), unless skew_tick shifts them;
    None when the file cannot be read or the CPUs disagree."""
    text = read_text("/proc/timer_list")
    if text is None:
        return None
    cpu, phases = None, {}
    for line in text.splitlines():
        if line.startswith("cpu: "):
            cpu = int(line.split()[1])
        elif line.strip().startswith(".last_tick") and cpu in cpus:
            phases[cpu] = int(line.split(":")[1].split()[0]) % period
    found = set(phases.values())
    return found.pop() if len(found) == 1 and len(phases) == len(cpus) else None


def online_cpus() -> list[int]:
    """The online CPUs' kernel numbers, in order."""
    text = read_text("/sys/devices/system/cpu/online")
    if text is None:
        return sorted(os.sched_getaffinity(0))
    cpus: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        cpus.extend(range(int(low), int(high or low) + 1))
    return cpus


def kernel_series(release: str) -> tuple[int, int]:
    """(major, minor) of a release string such as "6.18.4-generic"."""
    parts = release.split("-")[0].split(".")
    return int(parts[0]), int(parts[1])


def kernel_version(release: str) -> str:
    """The release as the model names one: "6.18.4" of "6.18.4-generic", "6.18" of
    "6.18.0-rc2"; the patch level selects the stable fixes the release carries."""
    numbers = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", release)
    if numbers is None:
        raise ValueError(f"{release!r} is no kernel release")
    major, minor, patch = numbers.groups()
    return f"{major}.{minor}" + (f".{patch}" if patch and int(patch) > 0 else "")


@dataclass
class CgroupMount:
    """Where the cpu controller is mounted, and on which cgroup version."""

    version: int
    path: str


def cpu_cgroup_mount() -> Optional[CgroupMount]:
    """The cpu controller's hierarchy: a v1 mount with the cpu option, else the v2 mount
    whose cgroup.controllers lists cpu."""
    text = read_text("/proc/self/mountinfo") or ""
    v2 = None
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) < 5 or len(rest) < 3:
            continue
        mount_point, fstype, options = fields[4], rest[0], rest[2].split(",")
        if fstype == "cgroup" and "cpu" in options:
            return CgroupMount(1, mount_point)
        if fstype == "cgroup2" and v2 is None:
            controllers = (read_text(os.path.join(mount_point, "cgroup.controllers")) or "").split()
            if "cpu" in controllers:
                v2 = CgroupMount(2, mount_point)
    return v2


def _cap_effective() -> int:
    for line in (read_text("/proc/self/status") or "").splitlines():
        if line.startswith("CapEff:"):
            return int(line.split()[1], 16)
    return 0


@dataclass
class Privileges:
    """What this process may do to the scheduling of the processes it starts."""

    cap_sys_nice: bool
    rlimit_nice: int
    rlimit_rtprio: int

    def can_nice(self, nice: int) -> bool:
        """setpriority() to a lower nice than now: can_nice() of kernel/sched/syscalls.c."""
        return self.cap_sys_nice or 20 - nice <= self.rlimit_nice

    def can_rt(self, priority: int) -> bool:
        return self.cap_sys_nice or priority <= self.rlimit_rtprio


def privileges() -> Privileges:
    def soft(which: int) -> int:
        value = resource.getrlimit(which)[0]
        return 1 << 30 if value == resource.RLIM_INFINITY else value

    return Privileges(
        bool(_cap_effective() >> CAP_SYS_NICE & 1),
        soft(resource.RLIMIT_NICE),
        soft(resource.RLIMIT_RTPRIO),
    )


def debugfs_features() -> tuple[Optional[dict[str, bool]], Optional[str]]:
    """The scheduler features of debugfs (NAME on, NO_NAME off) by lower-case name, or the
    reason they cannot be read."""
    try:
        with open(os.path.join(DEBUG_SCHED, "features"), encoding="utf-8") as f:
            words = f.read().split()
    except OSError as err:
        return None, os.strerror(err.errno or errno.EIO)
    return {
        w[3:].lower() if w.startswith("NO_") else w.lower(): not w.startswith("NO_") for w in words
    }, None


@dataclass
class Host:
    """The host's facts, read once."""

    name: str
    release: str
    series: tuple[int, int]
    hz: Optional[int]
    hz_source: str
    config: Optional[dict[str, str]]
    online: list[int]
    topology: dict[str, Any]
    cgroup: Optional[CgroupMount]
    autogroup: Optional[int]
    privileges: Privileges
    unreadable: dict[str, str] = field(default_factory=dict)

    @property
    def eevdf(self) -> bool:
        return self.series >= (6, 6)

    def config_flag(self, name: str) -> Optional[bool]:
        if self.config is None:
            return None
        return self.config.get(name) == "y"

    def debugfs(self, name: str) -> Optional[int]:
        """A debugfs sched value; what cannot be read is noted under its name."""
        path = os.path.join(DEBUG_SCHED, name)
        value = read_int(path)
        if value is None:
            self.unreadable[name] = "not readable (debugfs not mounted, or locked down)"
        return value

    def sysctl(self, name: str) -> Optional[int]:
        value = read_int(os.path.join(PROC_SYS_KERNEL, name))
        if value is None:
            self.unreadable[name] = "not readable"
        return value

    def preempt(self) -> Optional[str]:
        """The preemption model the kernel runs: debugfs sched/preempt's current mode (in
        parentheses) where readable, else a PREEMPT_DYNAMIC kernel's ``preempt=`` boot
        option, else the configured model; None under PREEMPT_RT (not modelled) or when
        nothing says."""
        if self.config_flag("CONFIG_PREEMPT_RT"):
            self.unreadable["preempt"] = "PREEMPT_RT, which the model does not have"
            return None
        shown = re.search(r"\((\w+)\)", read_text(os.path.join(DEBUG_SCHED, "preempt")) or "")
        if shown and shown.group(1) in PREEMPT_MODES:
            return shown.group(1)
        if self.config_flag("CONFIG_PREEMPT_DYNAMIC"):
            kernel_args = (read_text("/proc/cmdline") or "").split(" -- ")[0].split()
            for arg in kernel_args:
                key, _, mode = arg.partition("=")
                if key == "preempt" and mode in PREEMPT_MODES:
                    return mode
        for flag, mode in PREEMPT_CONFIG:
            if self.config_flag(flag):
                return mode
        self.unreadable["preempt"] = "neither debugfs nor the kernel configuration shows it"
        return None

    def rt_bandwidth(self) -> tuple[Optional[bool], Optional[int], Optional[int]]:
        """Whether RT group scheduling is on, and the RT runtime and period (µs; runtime -1:
        unlimited) the root group's RT tasks get. With RT group scheduling the root v1 cpu
        cgroup's cpu.rt_runtime_us / cpu.rt_period_us hold them: the root task group keeps
        its own bandwidth, which writing the sysctls does not change. Otherwise the
        sysctls; whether RT group scheduling is on is then CONFIG_RT_GROUP_SCHED."""
        if self.cgroup is not None and self.cgroup.version == 1:
            runtime = read_int(os.path.join(self.cgroup.path, "cpu.rt_runtime_us"))
            if runtime is not None:
                period = read_int(os.path.join(self.cgroup.path, "cpu.rt_period_us"))
                return True, runtime, period
        return (
            self.config_flag("CONFIG_RT_GROUP_SCHED"),
            self.sysctl("sched_rt_runtime_us"),
            self.sysctl("sched_rt_period_us"),
        )

    def tunables(self) -> dict[str, Any]:
        """The tunables the release's fair class reads, named as in a simulated document's
        provenance; null where the host does not show them."""
        hz = self.hz
        rr_ms = self.sysctl("sched_rr_timeslice_ms")
        runtime = self.sysctl("sched_rt_runtime_us")
        scaling = self.debugfs("tunable_scaling")
        t: dict[str, Any] = {
            "scaling": None if scaling is None else ("none", "log", "linear")[scaling],
            "factor": None,
            "tick_nsec": None if hz is None else (1_000_000_000 + hz // 2) // hz,
            "sched_rt_period_us": self.sysctl("sched_rt_period_us"),
            "sched_rt_runtime_us": runtime,
            "sched_rr_timeslice_jiffies": None
            if rr_ms is None or hz is None
            else -(-rr_ms * hz // 1000),
            "rt_group_sched": self.config_flag("CONFIG_RT_GROUP_SCHED"),
        }
        self.unreadable["factor"] = "the kernel does not show sysctl_sched_tunable_scaling's factor"
        if self.series >= (6, 12):
            t["fair_server_runtime_ns"] = self.debugfs("fair_server/cpu0/runtime")
            t["fair_server_period_ns"] = self.debugfs("fair_server/cpu0/period")
        if self.eevdf:
            t["base_slice_ns"] = self.debugfs("base_slice_ns")
            return t
        for key in ("latency_ns", "min_granularity_ns", "wakeup_granularity_ns"):
            t[key] = self.debugfs(key)
        t["sched_nr_latency"] = None
        t["idle_min_granularity_ns"] = self.debugfs("idle_min_granularity_ns")
        return t


def read_host() -> Host:
    uname = os.uname()
    config, config_source = kernel_config()
    hz, hz_source = kernel_hz(config, config_source)
    return Host(
        name=uname.nodename,
        release=uname.release,
        series=kernel_series(uname.release),
        hz=hz,
        hz_source=hz_source,
        config=config,
        online=online_cpus(),
        topology=json.loads(_core.measure.host_topology()),
        cgroup=cpu_cgroup_mount(),
        autogroup=read_int(os.path.join(PROC_SYS_KERNEL, "sched_autogroup_enabled")),
        privileges=privileges(),
    )
