"""libsched.features and libsched.tunables against the kernel's defaults."""

from __future__ import annotations

import pytest

import libsched


def test_features_follow_the_release() -> None:
    eevdf = libsched.features("6.12")
    assert eevdf["delay_dequeue"] is True
    assert eevdf["run_to_parity"] is True
    assert eevdf["next_buddy"] is False
    assert "gentle_fair_sleepers" not in eevdf
    cfs = libsched.features("5.15.0-190-generic")
    assert cfs["gentle_fair_sleepers"] is True
    assert "place_lag" not in cfs
    assert "delay_dequeue" not in libsched.features("6.6")


def test_a_stable_update_can_change_a_default() -> None:
    # dd29c017aed6 turned RT_PUSH_IPI off in 6.12.96 (and other point releases).
    assert libsched.features("6.12.95")["rt_push_ipi"] is True
    assert libsched.features("6.12.96")["rt_push_ipi"] is False


def test_a_stable_update_can_add_a_feature() -> None:
    # 33cf66d88306 brought NI_RANDOM to 6.18.5 (and other point releases) from 6.19.
    assert "ni_random" not in libsched.features("6.18.4")
    assert libsched.features("6.18.5")["ni_random"] is True
    assert libsched.features("6.19")["ni_random"] is True


@pytest.mark.parametrize(
    ("kernel", "cpus", "base_slice"),
    [("6.6", 1, 750_000), ("6.6", 8, 3_000_000), ("6.15", 8, 2_800_000), ("6.12", 4, 2_250_000)],
)
def test_base_slice_scales_with_log2_of_the_cpus(kernel: str, cpus: int, base_slice: int) -> None:
    assert libsched.tunables(kernel, online_cpus=cpus)["base_slice_ns"] == base_slice


def test_old_cfs_tunables() -> None:
    t = libsched.tunables("5.15", online_cpus=16, hz=1000)  # factor capped at 1 + log2(8)
    assert t["factor"] == 4
    assert t["latency_ns"] == 24_000_000
    assert t["min_granularity_ns"] == 3_000_000
    assert t["wakeup_granularity_ns"] == 4_000_000
    assert t["sched_nr_latency"] == 8
    assert t["tick_nsec"] == 1_000_000


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: libsched.features("banana"), "kernel"),
        (lambda: libsched.features("4.19"), "kernel"),
        (lambda: libsched.tunables("6.6", online_cpus=0), "online_cpus"),
        (lambda: libsched.tunables("6.6", hz=123), "hz"),
    ],
)
def test_bad_arguments_name_the_field(call: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("call", "machine"),
    [
        (lambda: libsched.tunables("6.6", hz=123), "hz = 123"),
        (lambda: libsched.features("4.19"), 'kernel = "4.19"'),
        (lambda: libsched.tunables("banana"), 'kernel = "banana"'),
    ],
)
def test_bad_arguments_get_the_reason_a_scenario_file_gets(call: object, machine: str) -> None:
    with pytest.raises(libsched.ScenarioError) as in_file:
        libsched.run_text(f'[machine]\n{machine}\n[[tasks]]\nname = "a"\n')
    reason = in_file.value.reason.removesuffix(" (line 2)")
    with pytest.raises(ValueError) as in_call:
        call()  # type: ignore[operator]
    assert str(in_call.value).split(": ", 1)[1] == reason
