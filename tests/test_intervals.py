"""graphbench.analyze.intervals at the edges: tiny, constant, negative and
extreme series, speed, import cost, and its Student quantile against scipy."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from graphbench.analyze.intervals import (_median_intervals, _t_quantile, lag1_autocorrelation,
                                          median_interval)

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


@pytest.mark.parametrize("values", [[], [3.0], [3.0, 4.0]])
def test_fewer_than_three_rounds_is_invalid(values):
    interval = median_interval(values)
    assert not interval.valid and interval.reason
    assert (interval.low, interval.high) == (-math.inf, math.inf)
    assert interval.relative_half_width == math.inf
    assert interval.n == len(values)


def test_non_finite_values_are_invalid():
    interval = median_interval([1.0, math.nan, 2.0, 3.0])
    assert not interval.valid and "finite" in interval.reason


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5])
def test_confidence_outside_zero_one_is_refused(level):
    with pytest.raises(ValueError):
        median_interval([1.0, 2.0, 3.0], level)


def test_constant_series_has_zero_width():
    interval = median_interval([0.1] * 40)
    assert interval.valid and interval.low == interval.high == interval.estimate == 0.1
    assert interval.relative_half_width == 0 and interval.autocorrelation == 0


def test_negative_values_mirror_positive_ones():
    values = np.random.default_rng(3).normal(10, 1, 50)
    plus, minus = median_interval(values), median_interval(-values)
    assert minus.estimate == -plus.estimate
    assert minus.low == pytest.approx(-plus.high) and minus.high == pytest.approx(-plus.low)


@pytest.mark.parametrize("values", [[1e308, -1e308] * 20, [1.7e308] * 30,
                                    list(np.linspace(1e308, 1.7e308, 40)),
                                    list(np.random.default_rng(0).normal(0, 1e307, 60)),
                                    [5e-324, 1e-320] * 20])
def test_extreme_values_raise_no_warning(values):
    interval = median_interval(values)
    assert interval.estimate == pytest.approx(float(np.median(np.asarray(values) / 2) * 2))
    assert interval.low <= interval.estimate <= interval.high
    assert -1 <= lag1_autocorrelation(values) <= 1


def test_an_interval_of_independent_rounds_is_close_to_the_order_statistic_one():
    values = np.random.default_rng(5).normal(10, 0.3, 30)
    from scipy import stats

    exact = stats.quantile_test(values, q=float(np.median(values))).confidence_interval(0.95)
    interval = median_interval(values, shared_phases=True)
    low, high = exact.low, exact.high
    assert interval.valid and interval.low <= interval.estimate <= interval.high
    assert 0.7 < (interval.high - interval.low) / (high - low) < 1.5


def test_the_host_phase_allowance_widens_short_runs_only():
    from scipy import stats

    values = np.random.default_rng(5).normal(10, 0.3, 200)
    ratios = []
    for n in (30, 200):
        exact = stats.quantile_test(values[:n], q=float(np.median(values[:n])))
        exact = exact.confidence_interval(0.95)
        interval = median_interval(values[:n])
        assert interval.valid
        ratios.append((interval.high - interval.low) / (exact.high - exact.low))
    assert 1.3 < ratios[0] < 2.5 and 0.7 < ratios[1] < 1.3


def test_correlated_rounds_widen_and_can_leave_the_data_range():
    rng = np.random.default_rng(8)
    walk = 10 + np.cumsum(rng.normal(0, 0.1, 30))
    interval = median_interval(walk)
    assert interval.autocorrelation > 0.7
    assert not interval.valid or interval.high - interval.low > np.ptp(walk) / 2


def test_lag1_autocorrelation():
    assert lag1_autocorrelation([1.0, 2.0]) == 0.0
    assert lag1_autocorrelation([4.0] * 10) == 0.0
    assert lag1_autocorrelation([1.0, -1.0] * 10) == pytest.approx(-0.95)
    values = np.random.default_rng(1).normal(size=200)
    d = values - values.mean()
    assert lag1_autocorrelation(values) == pytest.approx(np.sum(d[1:] * d[:-1]) / np.sum(d * d))


def test_the_vectorised_form_gives_the_public_results():
    matrix = np.random.default_rng(2).normal(10, 1, (50, 25)).cumsum(axis=1) * 0.2
    estimate, low, high, effective, r, valid = _median_intervals(matrix, 0.99)
    for row in range(50):
        one = median_interval(matrix[row], 0.99)
        assert (one.estimate, one.low, one.high, one.effective_n, one.autocorrelation,
                one.valid) == (estimate[row], low[row], high[row], effective[row], r[row],
                               valid[row])


def test_twenty_thousand_rounds_in_under_50_ms():
    values = np.random.default_rng(4).normal(10, 0.3, 20_000)
    median_interval(values)
    start = time.perf_counter()
    interval = median_interval(values)
    assert time.perf_counter() - start < 0.05
    assert interval.valid and interval.relative_half_width < 1e-3


@pytest.mark.parametrize("probability", [0.9, 0.975, 0.995])
def test_student_quantile_matches_scipy(probability):
    from scipy import stats

    df = np.array([2, 2.5, 3, 4, 5, 7.3, 10, 29, 100, 1e4])
    assert _t_quantile(probability, df) == pytest.approx(stats.t.ppf(probability, df), rel=3e-4)


def test_importing_it_leaves_scipy_out():
    code = ("import sys, graphbench.analyze.intervals as m; m.median_interval([1., 2., 3., 4.]); "
            "print(any(name.startswith('scipy') for name in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False"


# --- robust spread and the readings' tick ---------------------------------------

def test_robust_scale_reads_a_gaussian_sd_and_ignores_one_outlier():
    from graphbench.analyze.intervals import robust_scale

    rng = np.random.default_rng(2)
    scales = [robust_scale(rng.normal(0, 2.0, 5)) for _ in range(20000)]
    assert np.mean(scales) == pytest.approx(2.0, rel=0.03)  # unbiased at 5 values
    data = rng.normal(10.0, 0.1, 100)
    spiked = data.copy()
    spiked[40] *= 3
    assert robust_scale(spiked) == pytest.approx(robust_scale(data), rel=0.03)
    assert np.std(spiked) > 10 * np.std(data)  # the sd is not
    assert robust_scale([4.0]) == 0.0 and robust_scale([4.0] * 9) == 0.0


def test_reading_quantum_is_the_timers_tick_or_next_to_nothing():
    from graphbench.analyze.intervals import reading_quantum

    rng = np.random.default_rng(3)
    ticks = 0.5 * np.floor(20 + 3 * rng.random(60)) / 10  # per iteration, 10 per round
    assert reading_quantum(ticks) == pytest.approx(0.05)
    # float32 milliseconds of the same tick count are ties, not a finer grid
    assert reading_quantum(ticks * (1 + 1e-8 * rng.standard_normal(60))) == pytest.approx(
        0.05, rel=1e-6)
    assert reading_quantum(10 + rng.standard_normal(60)) < 0.01
    assert reading_quantum([3.0] * 5) == 0.0 and reading_quantum([3.0]) == 0.0
