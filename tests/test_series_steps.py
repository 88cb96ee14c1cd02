"""Steps in a series (graphbench.analyze.steps): the step model's proposal,
its judgement by decide's rule, and its robust spread."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphbench.analyze.decide import FASTER, SLOWER
from graphbench.analyze.steps import (MIN_SEGMENT, detect, fit, level_change, proposed)

T = 0.05


def series(n: int, spread: float = 0.002, seed: int = 0, **steps: float) -> np.ndarray:
    """n records around 100 us scattering by `spread`; steps={"at_K": change}."""
    values = 100 * (1 + spread * np.random.default_rng(seed).standard_normal(n))
    for name, change in steps.items():
        values[int(name.removeprefix("at_")):] *= 1 + change
    return values


@pytest.mark.parametrize("k", [MIN_SEGMENT, 7, 12 - MIN_SEGMENT])
@pytest.mark.parametrize("change, verdict", [(T, SLOWER), (-T, FASTER)])
def test_a_step_of_the_threshold_is_named_at_its_first_record(k, change, verdict):
    found = detect(series(12, **{f"at_{k}": change}), T)
    assert [(s.index, s.verdict) for s in found.steps] == [(k, verdict)]
    assert found.steps[0].change.low < change < found.steps[0].change.high
    assert found.fit.starts == (0, k)


def test_a_flat_series_has_no_step_and_says_what_it_can_detect():
    found = detect(series(12), T)
    assert found.steps == () and found.fit.starts == (0,)
    assert 0 < found.detects < T  # judged, not merely unjudgeable
    assert 0.001 < found.fit.spread < 0.004


def test_too_few_records_place_no_step_and_detect_nothing():
    found = detect(series(2 * MIN_SEGMENT - 1, at_4=0.5), T)
    assert found.steps == () and math.isinf(found.detects)


def test_a_step_below_half_the_threshold_is_never_named():
    assert detect(series(20, at_10=T / 2.5), T).steps == ()


def test_a_regression_and_its_fix_are_both_named():
    found = detect(series(16, at_5=0.1, at_10=-1 / 11), T)
    assert [(s.index, s.verdict) for s in found.steps] == [(5, SLOWER), (10, FASTER)]


def test_a_step_starts_only_where_the_commit_changes():
    values = series(12, at_6=0.1)
    commits = [True] + [i % 2 == 0 for i in range(1, 12)]  # two records a commit...
    commits[6], commits[5] = False, True                     # ...the step inside one of them
    [step] = detect(values, T, breaks=commits).steps
    assert step.index == 5


def test_one_wild_record_neither_makes_a_step_nor_swells_the_spread():
    values = series(12)
    values[6] *= 1.3  # a throttled GPU, once
    found = detect(values, T)
    assert found.steps == () and found.fit.spread < 0.004
    assert found.fit.values[6] < 101  # pulled in to its segment's level


def test_a_noisy_series_is_not_gateable_rather_than_stepless():
    found = detect(series(12, spread=0.02, at_6=T), T)
    assert found.steps == () and found.detects > T


def test_the_proposal_is_the_least_squares_segmentation():
    values = series(12, spread=0.0, at_4=0.2, at_8=0.2)
    assert proposed(values) == [0, 4, 8]
    assert proposed(series(12, spread=0.0)) == [0]


def test_level_change_is_the_relative_change_with_the_series_spread():
    change = level_change(100.0, 8, 110.0, 0.01 ** 2, 0.01, 20)
    assert change.estimate == pytest.approx(0.10)
    assert change.low < 0.10 < change.high and change.detectable > 0
    assert not level_change(100.0, 1, 110.0, 0.0, 0.01, 0).valid


def test_the_fit_reads_levels_and_one_spread_from_every_segment():
    model = fit([1.0, 1.02, 0.98, 1.0, 2.0, 2.04, 1.96, 2.0], [0, 4])
    assert model.levels == pytest.approx((1.0, 2.0))
    assert model.df == 6 and model.spread == pytest.approx(math.sqrt(4 * 0.02 ** 2 / 6))
