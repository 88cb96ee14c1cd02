"""graphbench.stats.intervals at the edges: tiny, constant, negative and
extreme series, speed, import cost, and its Student quantile against scipy."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import graphbench.stats.intervals as I
from graphbench.stats.intervals import (_median_intervals, hill_t_quantile, lag1_autocorrelation,
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


def test_the_vectorised_form_allows_for_host_phases_unless_told_they_are_shared():
    """Independent rounds, 25 of them: tau is the host-phase floor, as in median_interval,
    and only shared_phases drops it."""
    matrix = np.random.default_rng(3).normal(10, 1, (20, 25))
    _, low, high, effective, _, _ = _median_intervals(matrix, 0.95)
    assert np.allclose(effective, 25 / I.phase_tau(25))
    for row in range(20):
        one = median_interval(matrix[row], 0.95)
        assert (one.low, one.high, one.effective_n) == (low[row], high[row], effective[row])
    assert np.all(_median_intervals(matrix, 0.95, True)[3] > effective)


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
    assert hill_t_quantile(probability, df) == pytest.approx(stats.t.ppf(probability, df), rel=3e-4)


def test_importing_it_leaves_scipy_out():
    code = ("import sys, graphbench.stats.intervals as m; m.median_interval([1., 2., 3., 4.]); "
            "print(any(name.startswith('scipy') for name in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False"


# --- robust spread and the readings' tick ---------------------------------------

def test_robust_scale_reads_a_gaussian_sd_and_ignores_one_outlier():
    from graphbench.stats.intervals import robust_scale

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
    from graphbench.stats.intervals import reading_quantum

    rng = np.random.default_rng(3)
    ticks = 0.5 * np.floor(20 + 3 * rng.random(60)) / 10  # per iteration, 10 per round
    assert reading_quantum(ticks) == pytest.approx(0.05)
    # float32 milliseconds of the same tick count are ties, not a finer grid
    assert reading_quantum(ticks * (1 + 1e-8 * rng.standard_normal(60))) == pytest.approx(
        0.05, rel=1e-6)
    assert reading_quantum(10 + rng.standard_normal(60)) < 0.01
    assert reading_quantum([3.0] * 5) == 0.0 and reading_quantum([3.0]) == 0.0


def _reference_interval(x, confidence, own_parts=False, shared_phases=False):
    """The module docstring's interval, written out plainly, one series at a
    time, with scipy's t quantile and the exact arcsin sum (own_parts: with
    the module's t quantile and tau table, to compare to rounding error;
    shared_phases: without the host-phase floor)."""
    from scipy import stats
    from statistics import NormalDist

    x = [float(v) for v in x]
    n, ordered = len(x), sorted(x)

    def quantile(p):
        position = min(max((n + 1) * p - 1, 0), n - 1)
        below = min(int(np.floor(position)), n - 1)
        above = min(below + 1, n - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (position - below)

    middle = quantile(0.5)
    if n >= 3:
        mean = sum(x) / n
        total = sum((v - mean) ** 2 for v in x)
        steps = sum((b - a) ** 2 for a, b in zip(x, x[1:]))
        rho_hat = 1 - steps / (2 * total) if total > 0 and max(x) > min(x) else 0.0
        z = [NormalDist().inv_cdf(1 - (1 - p) / 2) for p in (0.95, 0.99, confidence)]
        k = max(0.0, 10 + 50 * (z[2] - z[0]) / (z[1] - z[0]))
        rho = (rho_hat + 1 / n) / max(1 - 3 / n, 1 / n) + k / n ** 2
        rho = min(max(rho, 0.0), 0.99)
        tau = 1 + 4 / np.pi * float(np.arcsin(rho ** np.arange(1, 5000)).sum())
        if own_parts:
            tau = float(np.interp(rho, *I._sign_table()))
        if not shared_phases:  # 2.5 up to 60 rounds, then falling linearly to 1 at 150
            tau = max(tau, 2.5 if n <= 60 else 1.0 if n >= 150 else 2.5 - 1.5 * (n - 60) / 90)
        effective = n / tau
    else:
        effective = 0.0
    df = max(effective - 1, 2.0)
    t = float(I.hill_t_quantile(1 - (1 - confidence) / 2, np.array([df]))[0]) if own_parts else \
        stats.t.ppf(1 - (1 - confidence) / 2, df)
    offset = t / (2 * np.sqrt(max(effective, 1.0)))

    def bound(p):
        if n < 2:
            return middle
        edge = 1 / (n + 1)
        reach = abs(p - 0.5) / (0.5 - edge)
        if reach > 1:
            return middle + ((ordered[0] if p < 0.5 else ordered[-1]) - middle) * reach
        return quantile(min(max(p, edge), 1 - edge))

    valid = n >= 20
    low, high = (bound(0.5 - offset), bound(0.5 + offset)) if valid else (-np.inf, np.inf)
    if valid and min(x) >= 0:  # the median of data of one sign has that sign
        low = max(low, 0.0)
    if valid and max(x) <= 0:
        high = min(high, 0.0)
    return middle, low, high, effective, valid


def _series():
    rng = np.random.default_rng(11)
    out = [[5.0, 1.0, 3.0], [2.02, -1.06, 0.37],  # the second: 1.7 effective rounds, valid at 0.8
           [2.0, 9.0, 4.0, 4.5], [1.0, 2.0], [7.0], [3.0] * 6,
           [1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0], list(range(12)), [4.0, 1.0] * 7,
           [4.0, 1.0] * 12, [3.0] * 22, [1.0] * 10 + [2.0] + [1.0] * 10,
           [float(v) for v in range(25)],             # a trend: the bounds extrapolate
           [0.01 * v for v in range(1, 21)],          # positive: the low bound stops at 0
           [-0.01 * v for v in range(1, 21)],         # negative: the high bound stops at 0
           [float(v) for v in range(-10, 12)]]        # both signs: neither stops
    for n, rho in ((5, 0.0), (9, 0.3), (16, 0.6), (40, 0.9), (120, 0.5), (60, -0.4),
                   (20, 0.95), (30, 0.0), (25, 0.7)):
        e, v = rng.standard_normal(n), [0.0]
        for i in range(n):
            v.append(rho * v[-1] + e[i])
        out.append([100.0 + 3.0 * a for a in v[1:]])
    return out


def _hill(p, df):
    """Hill (1970), Algorithm 396, as the module's docstring names it, one value."""
    from statistics import NormalDist

    tail = 2 * (1 - p)
    if abs(df - 2) < 1e-12:
        return math.sqrt(2 / (tail * (2 - tail)) - 2)
    a = 1 / (df - 0.5)
    b = 48 / (a * a)
    c = ((20700 * a / b - 98) * a - 16) * a + 96.36
    d = ((94.5 / (b + c) - 3) / b + 1) * math.sqrt(a * math.pi / 2) * df
    y = (d * tail) ** (2 / df)
    if y > 0.05 + a:
        x = NormalDist().inv_cdf(1 - tail / 2)
        if df < 5:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c
        y = (((((0.4 * x * x + 6.3) * x * x + 36) * x * x + 94.5) / c - x * x - 3) / b + 1) * x
        y = math.expm1(a * y * y)
    else:
        y = ((1 / (((df + 6) / (df * y) - 0.089 * d - 0.822) * (df + 2) * 3) + 0.5 / (df + 4))
             * y - 1) * (df + 1) / (df + 2) + 1 / y
    return math.sqrt(df * y)


def test_interval_of_no_rounds_and_of_non_finite_values():
    empty = I.median_interval([], 0.9)
    assert np.isnan(empty.estimate) and (empty.low, empty.high) == (-np.inf, np.inf)
    assert (empty.confidence, empty.n, empty.effective_n, empty.autocorrelation) == (0.9, 0, 0.0,
                                                                                     0.0)
    assert empty.valid is False and empty.reason == "no rounds"
    assert empty.relative_half_width == np.inf
    bad = I.median_interval([1.0, np.nan, 2.0, 3.0], 0.95)
    assert np.isnan(bad.estimate) and (bad.low, bad.high) == (-np.inf, np.inf)
    assert (bad.confidence, bad.n, bad.effective_n, bad.autocorrelation) == (0.95, 4, 0.0, 0.0)
    assert bad.valid is False and bad.reason == "non-finite values"
    assert I.median_interval([1.0, np.inf, 2.0]).reason == "non-finite values"


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.1])
def test_confidence_must_be_strictly_between_0_and_1(confidence):
    with pytest.raises(ValueError, match=rf"confidence must be in \(0, 1\), got {confidence}"):
        I.median_interval([1.0, 2.0, 3.0], confidence)


def test_lag1_needs_finite_values():
    with pytest.raises(ValueError, match="^lag-1 autocorrelation needs finite values$"):
        I.lag1_autocorrelation([1.0, np.nan, 2.0])


def test_single_precision_samples_are_analysed_in_double():
    rng = np.random.default_rng(7)
    values = (10 + np.cumsum(rng.standard_normal(40)) * 0.1).astype(np.float32)
    as_double = values.astype(np.float64)
    assert I.lag1_autocorrelation(values) == I.lag1_autocorrelation(as_double)
    single, double = I.median_interval(values), I.median_interval(as_double)
    assert (single.estimate, single.low, single.high, single.effective_n) == \
        (double.estimate, double.low, double.high, double.effective_n)
    from graphbench.stats.stats import median

    close = np.array([1.0, 1 + 2**-23], dtype=np.float32)  # their mean needs double precision
    assert median(close) == 1 + 2**-24


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99, 0.999])
def test_the_interval_is_the_documented_one(confidence, shared):
    for values in _series():
        found = I.median_interval(values, confidence, shared_phases=shared)
        middle, low, high, effective, valid = _reference_interval(values, confidence,
                                                                  shared_phases=shared)
        where = f"{len(values)} values at {confidence}: {values[:4]}"
        assert found.estimate == pytest.approx(middle, rel=1e-12), where
        assert found.valid is valid, where
        assert found.effective_n == pytest.approx(effective, rel=2e-3, abs=1e-12), where
        assert found.low == pytest.approx(low, rel=1e-3, abs=1e-9), where
        assert found.high == pytest.approx(high, rel=1e-3, abs=1e-9), where
        assert found.n == len(values) and found.confidence == confidence
        assert found.autocorrelation == pytest.approx(
            I.lag1_autocorrelation(values), abs=1e-12), where


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_the_interval_is_the_documented_one_to_rounding(confidence, shared):
    for values in _series():
        found = I.median_interval(values, confidence, shared_phases=shared)
        middle, low, high, effective, valid = _reference_interval(values, confidence, True,
                                                                  shared_phases=shared)
        assert found.valid is valid
        assert found.effective_n == pytest.approx(effective, rel=1e-9, abs=1e-12)
        assert (found.low, found.high) == pytest.approx((low, high), rel=1e-9, abs=1e-9)


def test_few_effective_rounds_give_a_wide_interval_not_none():
    values = [1.0 + 0.01 * v for v in range(20)]  # a trend: about one effective round
    found = I.median_interval(values, 0.95)
    assert found.valid and found.effective_n < 1.5
    assert found.low < min(values) and found.high > max(values)


def test_no_interval_from_fewer_than_20_rounds():
    values = [float(v) for v in np.random.default_rng(3).normal(10, 0.1, 20)]
    assert I.median_interval(values, 0.95).valid
    for shared in (True, False):
        short = I.median_interval(values[:19], 0.95, shared_phases=shared)
        assert not short.valid and short.reason == (
            "19 rounds: under 20, a slow host phase can last the whole run")
        assert (short.low, short.high) == (-math.inf, math.inf)


def test_the_host_phase_floor_on_tau():
    assert [I.phase_tau(n) for n in (3, 60, 105, 150, 1000)] == [2.5, 2.5, 1.75, 1.0, 1.0]
    values = [float(v) for v in np.random.default_rng(4).normal(10, 0.1, 300)]
    for n in (20, 60, 105, 300):
        plain = I.median_interval(values[:n], 0.95, shared_phases=True)
        floored = I.median_interval(values[:n], 0.95)
        assert floored.effective_n == pytest.approx(
            min(plain.effective_n, n / I.phase_tau(n)), rel=1e-12)
    assert I.median_interval([5.0, 1.0], 0.99).reason == (
        "2 rounds: under 20, a slow host phase can last the whole run")


def test_scaling_gives_one_exponent_per_row_even_of_no_values():
    scaled, exponent = I._scaled(np.empty((3, 0)))
    assert scaled.shape == (3, 0) and exponent.tolist() == [0, 0, 0]
    assert exponent.dtype.kind == "i"
    scaled, exponent = I._scaled(np.array([[3.0, -6.0], [0.25, 0.125]]))
    assert exponent.tolist() == [3, -1] and scaled.tolist() == [[0.375, -0.75], [0.5, 0.25]]


def test_the_t_quantile_is_hills_algorithm():
    dfs = [2.0, 2.0000001, 2.3, 2.5, 3.0, 4.0, 4.6, 5.0, 6.0, 10.0, 50.0, 1000.0]
    for p in (0.55, 0.7, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99, 0.9995):
        found = I.hill_t_quantile(p, np.array(dfs))
        for df, q in zip(dfs, found):
            assert q == pytest.approx(_hill(p, df), rel=1e-12), (p, df)


def test_the_lag1_autocorrelation_is_the_plain_one():
    for values in _series():
        x = np.asarray(values, dtype=float)
        if len(x) < 3 or np.ptp(x) == 0:
            expected = 0.0
        else:
            c = x - x.mean()
            expected = float(np.sum(c[1:] * c[:-1]) / np.sum(c * c))
        assert I.lag1_autocorrelation(values) == pytest.approx(expected, abs=1e-12)


def test_the_t_quantile_against_scipy():
    from scipy import stats

    for p in (0.9, 0.975, 0.995, 0.9995):
        for df in (2.0, 2.5, 3.0, 4.4, 4.6, 5.0, 7.5, 12.0, 40.0, 500.0):
            assert float(I.hill_t_quantile(p, np.array([df]))[0]) == pytest.approx(
                stats.t.ppf(p, df), rel=2e-4), (p, df)


def test_rows_are_independent_in_the_vector_form():
    rng = np.random.default_rng(5)
    series = []
    for location, scale, rho in ((100.0, 1.0, 0.3), (5.0, 0.01, 0.6), (1e6, 300.0, 0.0),
                                 (0.002, 1e-4, 0.8), (50.0, 5.0, -0.3)):
        e, v = rng.standard_normal(30), [0.0]
        for i in range(30):
            v.append(rho * v[-1] + e[i])
        series.append([location + scale * a for a in v[1:]])
    series.append([1 / 3] * 30)  # constant: no autocorrelation, whatever its rounding
    series.append([float(v) for v in np.linspace(5, 6, 30)[::-1]])
    rows = I._median_intervals(np.array(series), 0.95, True)
    for i, values in enumerate(series):
        one = I.median_interval(values, 0.95, shared_phases=True)
        assert (rows[0][i], rows[1][i], rows[2][i], rows[3][i], rows[4][i], rows[5][i]) == (
            one.estimate, one.low, one.high, one.effective_n, one.autocorrelation, one.valid), i
        middle, low, high, effective, valid = _reference_interval(values, 0.95,
                                                                  shared_phases=True)
        assert one.effective_n == pytest.approx(effective, rel=2e-3) and one.valid is valid, i
        assert (one.low, one.high) == pytest.approx((low, high), rel=1e-3), i
    assert I.lag1_autocorrelation(series[5]) == 0.0


def test_data_whose_largest_value_is_zero_keep_the_high_bound_at_zero():
    values = [0.0] + [-1.0 - i for i in range(19)]
    assert median_interval(values).high == 0.0
    assert median_interval([-v for v in values]).low == 0.0


def test_robust_scale_of_two_values_is_their_half_gap_as_an_sd():
    from graphbench.stats.intervals import robust_scale

    # the median absolute deviation of two values is half their gap; n / (n - 0.8) at 2
    assert robust_scale([1.0, 3.0]) == pytest.approx(1.4826 * 1.0 * 2 / 1.2, rel=1e-12)
    assert robust_scale([3.0, 1.0]) == robust_scale([1.0, 3.0])


def test_robust_scale_of_three_and_four_values_uses_their_own_unbiasing_factors():
    from graphbench.stats.intervals import robust_scale

    assert robust_scale([1.0, 2.0, 4.0]) == pytest.approx(1.4826 * 1.0 * 1.48, rel=1e-12)
    # median 3, deviations 2, 1, 1, 5: their median 1.5
    assert robust_scale([1.0, 2.0, 4.0, 8.0]) == pytest.approx(1.4826 * 1.5 * 1.36, rel=1e-12)
    # median 4, deviations 3, 2, 0, 4, 12: their median 3
    assert robust_scale([1.0, 2.0, 4.0, 8.0, 16.0]) == pytest.approx(1.4826 * 3 * 5 / 4.2,
                                                                     rel=1e-12)


def test_single_precision_readings_give_the_spread_and_tick_of_their_double_values():
    from graphbench.stats.intervals import reading_quantum, robust_scale

    # float32 milliseconds: their median and deviations need double precision
    readings = (0.5 + 0.01 * np.random.default_rng(4).standard_normal(20)).astype(np.float32)
    assert robust_scale(readings) == robust_scale(readings.astype(np.float64))
    # a gap between readings of very different size is rounded in float32
    apart = np.array([0.001, 1.0, 2.0, 3.0], dtype=np.float32)
    assert reading_quantum(apart) == reading_quantum(apart.astype(np.float64)) == \
        1.0 - float(apart[0])


def test_reading_quantum_of_two_readings_is_their_gap():
    from graphbench.stats.intervals import reading_quantum

    assert reading_quantum([1.0, 1.5]) == 0.5
    assert reading_quantum([1.5, 1.0]) == 0.5
    assert reading_quantum([2.0, 2.0]) == 0.0


def test_reading_quantum_counts_ties_relative_to_the_median():
    from graphbench.stats.intervals import reading_quantum

    # about a median of 0 only equal readings are ties
    assert reading_quantum([-1.0, 0.0, 0.0, 0.0, 1.0]) == 1.0
    assert reading_quantum([-0.25, 0.0, 0.0, 0.5]) == 0.25
    # about a median of 1000 a scatter of 1e-4 is under a millionth of it: ties
    ticks = 1000 + 0.5 * np.arange(8)
    scattered = np.concatenate([ticks, ticks + 1e-4])
    assert reading_quantum(scattered) == pytest.approx(0.5, abs=2e-4)
