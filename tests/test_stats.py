import numpy as np
import pytest

from graphbench.analyze.stats import (block_spread, median_ci, paired_ratios,
                                      relative_ci_halfwidth, summarize)


def test_summary_of_known_values():
    s = summarize([1, 2, 3, 4, 100])
    assert s.median == 3 and s.min == 1 and s.max == 100
    assert s.q1 == 2 and s.q3 == 4 and s.iqr == 2
    assert s.n == 5
    assert s.cv == pytest.approx(np.std([1, 2, 3, 4, 100], ddof=1) / 22)


def test_single_sample_has_zero_spread_and_empty_is_an_error():
    assert summarize([5.0]).stdev == 0.0
    with pytest.raises(ValueError):
        summarize([])


def test_paired_ratios_pair_round_by_round():
    assert paired_ratios([10, 20], [5, 4]) == [2, 5]
    with pytest.raises(ValueError):
        paired_ratios([1, 2], [1])


def test_median_ci_brackets_the_median_and_narrows_with_less_noise():
    rng = np.random.default_rng(1)
    noisy = 3 + 0.3 * rng.standard_normal(30)
    quiet = 3 + 0.01 * rng.standard_normal(30)
    low, high = median_ci(noisy)
    assert low <= np.median(noisy) <= high
    assert relative_ci_halfwidth(quiet) < relative_ci_halfwidth(noisy) / 5


def test_median_ci_uses_the_binomial_order_statistics():
    values = list(range(1, 11))  # n = 10: the 95% interval is (x(2), x(9))
    assert median_ci(values) == (2.0, 9.0)
    assert median_ci(list(range(1, 101))) == (40.0, 61.0)  # n = 100: (x(40), x(61))


def test_median_ci_covers_the_true_median_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(400):
        low, high = median_ci(rng.exponential(1.0, 25))
        hits += low <= np.log(2) <= high
    assert 0.92 <= hits / 400 <= 0.995


def test_block_spread_sees_a_shift_the_overall_spread_hides():
    steady = [10.0, 10.1, 9.9, 10.0] * 5
    shifted = [10.0] * 10 + [14.0] * 10
    assert block_spread(steady) < 0.03
    assert block_spread(shifted) == pytest.approx(0.4 / 1.2, rel=0.01)  # (14 - 10) / median 12
    assert block_spread([1.0, 2.0]) == 0.0  # too few rounds to form blocks
