"""Covers graphbench/limits.py."""

import math

import numpy as np
import pytest

from graphbench.gate.decide import (CHANGED, FASTER, NOT_GATEABLE, SAME, SLOWER, Change, decide,
                                    unjudgeable)
from graphbench.stats.stats import (SORTED_FROM, SORTED_KEPT, block_counts, block_medians, chi2_sf,
                                    dense_codes, dot, holm, in_order, median, paired_ratios,
                                    summarize)
from graphbench.stats.noise import drift, headline_noise, noise_parts


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


# --- the decision rule ------------------------------------------------------------

def change(estimate, half, detectable=None):
    return Change(estimate, estimate - half, estimate + half,
                  detectable if detectable is not None else 1.6 * half)


@pytest.mark.parametrize("estimate, half, expected", [
    (0.0, 0.01, SAME),            # interval holds zero
    (0.004, 0.01, SAME),
    (0.03, 0.01, CHANGED),        # significant, wholly within a 5% threshold
    (0.045, 0.01, SLOWER),        # significant and reaching the threshold
    (0.049, 0.002, SLOWER),       # a real +4.9% at a 5% gate is never `same`
    (0.08, 0.01, SLOWER),
    (-0.03, 0.01, CHANGED),
    (-0.045, 0.01, FASTER),
])
def test_verdicts_at_a_5_percent_threshold(estimate, half, expected):
    assert decide(change(estimate, half), 0.05)[0] == expected


def test_a_pair_that_cannot_resolve_its_threshold_is_not_gateable():
    verdict, note = decide(change(0.04, 0.04, detectable=0.064), 0.05)  # 0..8%: not clear
    assert verdict == NOT_GATEABLE and "detects 6.4%" in note
    assert decide(change(0.2, 0.04, detectable=0.05), 0.05)[0] == SLOWER  # detects == threshold
    assert decide(unjudgeable("too few rounds"), 0.05) == (NOT_GATEABLE, "too few rounds")


def test_higher_is_better_flips_the_direction():
    assert decide(change(-0.08, 0.01), 0.05, higher_is_better=True)[0] == SLOWER
    assert decide(change(0.08, 0.01), 0.05, higher_is_better=True)[0] == FASTER


# --- the stop rule's noise ----------------------------------------------------------

def test_drift_sees_a_trend_and_a_level_shift():
    steady = 10 + 0.01 * np.random.default_rng(0).standard_normal(30)
    trend = np.linspace(10.0, 10.4, 30)        # +4% over the rounds
    shifted = np.r_[np.full(15, 10.0), np.full(15, 11.0)]
    assert drift(steady) < 0.005
    assert drift(trend) == pytest.approx(0.04 * 2 / 3 + 0.4 / 29 / 10 * 0, abs=0.01)
    assert drift(shifted) == pytest.approx(0.1 / 1.05, rel=0.05)
    assert drift([1.0, 2.0, 3.0]) == 0.0  # too few rounds for thirds


def test_a_run_never_claims_less_noise_than_the_drift_it_contains():
    trend = 10 * (1 + np.linspace(0, 0.04, 30)) * (1 + 0.001 * np.random.default_rng(1)
                                                     .standard_normal(30))
    assert max(noise_parts(trend)) >= drift(trend) > 0.02


def test_too_few_rounds_have_infinite_noise_and_never_stop_the_run():
    assert math.isinf(max(noise_parts([10.0])))
    assert math.isinf(max(noise_parts([10.0, 10.1])))


def test_an_ab_run_watches_the_ratios_it_gates():
    rng = np.random.default_rng(2)
    drifting = list(10 * (1 + 0.2 * np.sin(np.arange(40) / 3)))  # shared host drift
    walls = {"graph": [w * (1 + 0.001 * e) for w, e in zip(drifting, rng.standard_normal(40))],
             "graph@base": drifting}
    assert headline_noise(walls) < 0.005  # the paired ratios cancel the shared drift
    assert max(noise_parts(walls["graph"])) > 0.05


def test_an_ab_run_samples_at_least_60_rounds():
    from graphbench.gate.stopping import stop_rule
    from graphbench.config import RunConfig

    assert stop_rule(RunConfig()).min_rounds == 20
    from graphbench.stats.intervals import MIN_ROUNDS
    from graphbench.config import DEFAULT_MIN_ROUNDS  # config stays free of numpy, so two names
    assert DEFAULT_MIN_ROUNDS == MIN_ROUNDS  # the default waits for the first stated interval
    assert stop_rule(RunConfig(min_rounds=10)).min_rounds == 10  # records of older runs
    assert stop_rule(RunConfig(ab_source="base.cu")).min_rounds == 60
    assert stop_rule(RunConfig(ab_source="base.cu", min_rounds=80)).min_rounds == 80


def test_summarize_every_field():
    s = summarize([1.0, 2.0, 3.0, 4.0, 10.0])
    assert (s.n, s.median, s.q1, s.q3, s.iqr, s.min, s.max) == (5, 3.0, 2.0, 4.0, 2.0, 1.0, 10.0)
    assert s.mean == 4.0
    assert s.stdev == pytest.approx(float(np.std([1, 2, 3, 4, 10], ddof=1)))
    assert s.cv == pytest.approx(s.stdev / 4.0)
    one = summarize([7.0])
    assert one.stdev == 0.0 and one.cv == 0.0 and one.n == 1
    assert math.isnan(summarize([0.0, 0.0]).cv)
    with pytest.raises(ValueError, match="^cannot summarize an empty sample$"):
        summarize([])


def test_single_precision_samples_are_summarized_in_double():
    values = np.array([1.0, 1 + 2**-23, 1 + 2**-22, 1.0], dtype=np.float32)
    assert summarize(values) == summarize(values.astype(np.float64))
    assert summarize(values).median == 1 + 2**-24


def test_median_and_paired_ratios():
    assert median([3, 1, 2, 10]) == 2.5
    assert paired_ratios([4.0, 9.0], [2.0, 3.0]) == [2.0, 3.0]
    with pytest.raises(ValueError, match="^paired samples must have the same length$"):
        paired_ratios([1.0], [1.0, 2.0])


def test_block_counts_are_the_one_hot_rows_summed_block_by_block():
    rng = np.random.default_rng(3)
    sizes = np.array([5, 1, 7, 3])
    codes = rng.integers(0, 4, int(sizes.sum()))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    expected = np.add.reduceat(np.eye(4)[codes], starts)
    assert block_counts(codes, sizes).dtype == float
    assert block_counts(codes, sizes).tolist() == expected.tolist()


def test_order_statistics_of_a_long_series_are_numpys_whatever_it_is():
    rng = np.random.default_rng(4)
    series = rng.standard_normal(20_001) * 0.01 + 5
    frozen = series.copy()
    frozen.flags.writeable = False
    for data in (series, frozen, frozen, series[::2]):
        assert summarize(data) == summarize(data.tolist())
        assert median(data) == float(np.median(np.asarray(data.tolist())))
        assert np.percentile(in_order(data), [25, 50, 75]).tolist() == \
            np.percentile(data, [25, 50, 75]).tolist()
    assert in_order(frozen) is in_order(frozen)  # a read-only series is sorted once
    short = series[:100]
    assert in_order(short) is short  # a short one is read as it is


def test_two_samples_have_their_sample_deviation_and_a_float32_median_is_taken_in_double():
    assert summarize([1.0, 3.0]).stdev == pytest.approx(math.sqrt(2))
    assert median(np.array([1.0, 1 + 2**-23], dtype=np.float32)) == 1 + 2**-24


def test_a_long_writable_series_is_sorted_afresh_and_the_kept_sorted_copies_are_bounded():
    rng = np.random.default_rng(5)
    series = rng.standard_normal(SORTED_FROM + 1)
    assert median(series) == float(np.median(series))
    series[:] = np.arange(series.size)  # changed in place: its old order must not be reused
    assert median(series) == SORTED_FROM / 2
    from graphbench.stats import stats

    for i in range(SORTED_KEPT + 3):
        frozen = np.full(SORTED_FROM, float(i))
        frozen.flags.writeable = False
        assert median(frozen) == float(i)
        assert len(stats._SORTED) <= SORTED_KEPT


def test_long_paired_ratios_are_python_s_quotients_and_a_zero_still_raises():
    tops, bottoms = [float(i) for i in range(1, 201)], [3.0] * 200
    assert paired_ratios(tops, bottoms) == [t / 3.0 for t in tops]
    with pytest.raises(ZeroDivisionError):
        paired_ratios(tops, [3.0] * 199 + [0.0])


@pytest.mark.parametrize("shapes", [((20_001,), (20_001,)), ((3, 20_001), (20_001,)),
                                    ((20_001,), (20_001, 2)), ((3, 20_001), (20_001, 2))])
def test_a_long_dot_product_is_the_matrix_product_to_rounding(shapes):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    product = dot(a, b)
    assert np.shape(product) == np.shape(a @ b)
    assert np.allclose(product, a @ b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("sizes", [[1, 2, 3, 4, 5, 6], [3000, 1, 1, 1, 1, 2, 1]])
def test_block_medians_are_each_block_s_median(sizes):
    """Even and odd blocks; the second, of very uneven lengths, is read from one sort."""
    rng = np.random.default_rng(7)
    sizes = np.array(sizes)
    values = rng.standard_normal(int(sizes.sum()))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    blocks = np.repeat(np.arange(sizes.size), sizes)
    expected = [float(np.median(values[s:s + n])) for s, n in zip(starts, sizes)]
    assert block_medians(values, blocks, starts, sizes).tolist() == pytest.approx(expected)
    none = np.array([], dtype=int)
    assert block_medians(np.array([]), none, none, none).tolist() == []  # no blocks


@pytest.mark.parametrize("labels", [[5, 0, 5, 9, 2], [3, 1, 2], [-4, 7, -4], [10**7, 1, 10**7],
                                    [2.5, -1.0, 2.5], []])
def test_dense_codes_number_the_labels_in_their_sorted_order(labels):
    labels = np.array(labels, dtype=float if any(isinstance(x, float) for x in labels) else int)
    assert dense_codes(labels).tolist() == np.unique(labels, return_inverse=True)[1].tolist()


def test_holm_rejects_step_down_at_5_percent_by_default():
    assert holm([0.02, 0.2]) == [True, False]
    assert holm([0.05, 0.025]) == [True, True]  # each p equal to its step's level is rejected
    assert holm([0.2, 0.01, 0.03]) == [False, True, False]


def test_the_chi_square_tail_is_a_probability_even_where_its_terms_round_above_1():
    assert chi2_sf(0.005, 12) == 1.0 and chi2_sf(0.0, 3) == 1.0
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05)
    assert chi2_sf(5.991464547107979, 2) == pytest.approx(0.05)
