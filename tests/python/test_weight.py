"""libsched.weight against facts that do not come from the table: the 1.25 step between
nice levels, 2**32 / weight for the inverses, nice 0 = 1024, SCHED_IDLE = 3."""

from __future__ import annotations

from fractions import Fraction

import pytest

import libsched
from libsched import weight


def test_table_spans_nice_minus_20_to_19_with_nice_0_at_1024() -> None:
    assert len(weight.sched_prio_to_weight) == 40
    assert len(weight.sched_prio_to_wmult) == 40
    assert weight.sched_prio_to_weight[20] == 1024
    assert libsched.nice_to_weight(0) == 1024
    assert weight.nice_0_load == 1024 << 10


@pytest.mark.parametrize("nice", range(-20, 19))
def test_each_level_is_about_1_25_times_the_next(nice: int) -> None:
    # within 3%, allowing one unit of integer rounding for the small weights
    heavier = libsched.nice_to_weight(nice)
    lighter = libsched.nice_to_weight(nice + 1)
    assert (
        abs(heavier - Fraction(5, 4) * lighter) <= Fraction(3, 100) * Fraction(5, 4) * lighter + 1
    )


def test_every_wmult_is_2_pow_32_over_weight() -> None:
    # rounded, except nice 13, 14, 16, 17 where the kernel's table holds the floor
    for w, wmult in zip(weight.sched_prio_to_weight, weight.sched_prio_to_wmult):
        assert abs(wmult * w - 2**32) < w, (w, wmult)


@pytest.mark.parametrize(
    ("requested", "expected"),
    [(20, (19, True)), (-21, (-20, True)), (19, (19, False)), (-20, (-20, False)), (5, (5, False))],
)
def test_clamp_nice(requested: int, expected: tuple[int, bool]) -> None:
    assert libsched.clamp_nice(requested) == expected


def test_sched_idle_weight_is_3() -> None:
    assert weight.weight_idleprio == 3


@pytest.mark.parametrize(
    ("nice", "vdelta"),
    [
        (-20, 11536),
        (-10, 107247),
        (-5, 328099),
        (-1, 801879),
        (0, 1000000),
        (1, 1248780),
        (5, 3056716),
        (10, 9309090),
        (19, 68266666),
    ],
)
def test_calc_delta_fair_of_1_ms(nice: int, vdelta: int) -> None:
    assert vdelta == 1_000_000 * 1024 // libsched.nice_to_weight(nice)
    assert libsched.calc_delta_fair(1_000_000, nice) == vdelta
    assert libsched.calc_delta_fair(1_000_000, nice, exact=True) == vdelta


def test_inverse_multiply_and_exact_division_can_differ() -> None:
    # nice 1: 17398977 * 1024 / 820 = 21727502.4..., the inverse weight rounds up
    assert libsched.calc_delta_fair(17_398_977, 1, exact=True) == 21_727_502
    assert libsched.calc_delta_fair(17_398_977, 1) == 21_727_503


@pytest.mark.parametrize("nice", [-21, 20])
def test_out_of_range_nice_is_rejected_by_name(nice: int) -> None:
    with pytest.raises(ValueError, match="nice"):
        libsched.nice_to_weight(nice)
    with pytest.raises(ValueError, match="nice"):
        libsched.calc_delta_fair(1000, nice)


def test_negative_delta_is_rejected_by_name() -> None:
    with pytest.raises(ValueError, match="delta_ns"):
        libsched.calc_delta_fair(-1, 0)
