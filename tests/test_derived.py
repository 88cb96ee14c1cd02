"""graphbench.stats.derived: break-even, cache state, launch-bound and back-pressure rules, the
time breakdown and the crossover."""

from __future__ import annotations

import pytest

from graphbench.stats.derived import (BACK_PRESSURE, Crossover, back_pressured,
                                      break_even_iterations, cache_state, crossover, launch_bound,
                                      time_breakdown)


def test_break_even():
    assert break_even_iterations(100.0, 14.0, 4.0) == pytest.approx(10.0)
    assert break_even_iterations(100.0, 4.5, 4.0) == pytest.approx(200.0)  # under 1 us saved
    assert break_even_iterations(100.0, 4.0, 4.0) is None
    assert break_even_iterations(100.0, 4.0, 5.0) is None


def test_cache_state():
    assert cache_state(100, 100, False) == type(cache_state(1, 1, False))(100, 100, True, False)
    assert cache_state(101, 100, False).l2_resident is False
    assert cache_state(50, 100, True).l2_resident is False
    unknown = cache_state(50, None, False)
    assert unknown.l2_resident is None and unknown.working_set_bytes == 50
    assert unknown.l2_bytes is None and unknown.flush_l2 is False


def test_launch_bound_rules():
    assert launch_bound(10.0, 5.0, None, True) is None
    assert launch_bound(10.0, 5.0, 4.0, True) is True
    assert launch_bound(10.0, 4.0, 4.0, True) is False   # strictly longer
    assert launch_bound(10.0, 99.0, 5.0, False) is False  # wall, not submit: 10 = 2 x 5
    assert launch_bound(10.1, 0.0, 5.0, False) is True


def test_back_pressure_rule():
    assert back_pressured(3.0, None) is None
    assert back_pressured(BACK_PRESSURE * 2.0, 2.0) is False
    assert back_pressured(3.01, 2.0) is True


def test_time_breakdown_prefers_the_held_submit():
    held = time_breakdown(20.0, 9.0, 7.0, 6.0, 3.0, held_submit_us=3.0)
    assert held.launches_per_iteration == 3.0 and held.submit_per_launch_us == 1.0
    assert held.device_us == 7.0 and held.busy_us == 6.0 and held.idle_gap_us == 14.0
    assert held.launch_bound is False  # held submit 3 < busy 6
    assert held.back_pressured is True  # 9 > 1.5 x 3
    rounds = time_breakdown(20.0, 9.0, 7.0, 6.0, 3.0)
    assert rounds.submit_per_launch_us == 3.0 and rounds.back_pressured is None
    assert rounds.launch_bound is True  # wall 20 > 2 x 6
    none = time_breakdown(5.0, 9.0, 7.0, None, 2.0)
    assert none.idle_gap_us is None and none.launch_bound is None
    assert time_breakdown(5.0, 1.0, 7.0, 6.0, 1.0).idle_gap_us == 0.0


def test_crossover_interpolates_in_log2():
    found = crossover([(1024, 2.0), (256, 3.0), (4096, 0.5)], 1.5)
    # between 1024 (2.0) and 4096 (0.5): a third of the way in log2, 10 + 2/3 * 2
    assert found.status == "crossover" and found.between == (1024, 4096)
    assert found.elements == pytest.approx(2 ** (10 + 2 * (2.0 - 1.5) / (2.0 - 0.5)))
    assert crossover([(256, 1.0), (1024, 0.5)], 1.5) == Crossover("below-at-smallest", 256.0,
                                                                   (256, 256))
    assert crossover([(256, 2.0), (1024, 1.5)], 1.5) == Crossover("none-in-range", None, None)
