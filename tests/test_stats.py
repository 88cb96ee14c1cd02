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


# --- every statistic against scipy, on random and on tied data -----------------

from scipy import stats as scipy_stats  # noqa: E402

from graphbench.analyze.stats import (mann_whitney_p, median_ci_rank, prediction_noise,  # noqa: E402
                                      t_quantile)

RNG = np.random.default_rng(42)
SAMPLES = {
    "random": RNG.lognormal(1.0, 0.3, 37),
    "tied": np.round(RNG.normal(10.0, 1.0, 40)),  # whole numbers: many ties
    "small": RNG.normal(5.0, 0.1, 12),
}


@pytest.mark.parametrize("name", SAMPLES)
def test_summary_matches_numpy_and_scipy(name):
    data = SAMPLES[name]
    s = summarize(data)
    assert s.median == pytest.approx(np.median(data))
    assert s.iqr == pytest.approx(scipy_stats.iqr(data))
    assert s.cv == pytest.approx(scipy_stats.variation(data, ddof=1))


@pytest.mark.parametrize("name", SAMPLES)
def test_median_ci_matches_scipys_quantile_test(name):
    data = SAMPLES[name]
    ci = scipy_stats.quantile_test(data, q=np.median(data), p=0.5).confidence_interval(0.95)
    assert median_ci(data) == (ci.low, ci.high)


@pytest.mark.parametrize("n", [6, 9, 10, 20, 33, 77, 200, 1001])
def test_median_ci_rank_is_scipys_binomial_bound(n):
    j = median_ci_rank(n)
    assert 2 * scipy_stats.binom.cdf(j, n, 0.5) <= 0.05           # covers at least 95%
    assert 2 * scipy_stats.binom.cdf(j + 1, n, 0.5) > 0.05         # and is the tightest that does


@pytest.mark.parametrize("df", [1, 4, 11, 61, 500])
def test_t_quantiles_are_scipys(df):
    # df 11 and 61 are where the old hand table was anti-conservative
    assert t_quantile(0.995, df) == pytest.approx(scipy_stats.t.ppf(0.995, df))
    assert t_quantile(0.995, 11) == pytest.approx(3.106, abs=1e-3)


@pytest.mark.parametrize("a, b", [(SAMPLES["random"][:6], SAMPLES["random"][6:12]),   # exact
                                  (SAMPLES["tied"][:20], SAMPLES["tied"][20:]),        # ties
                                  (SAMPLES["random"], SAMPLES["small"])])
def test_mann_whitney_is_scipys(a, b):
    expected = scipy_stats.mannwhitneyu(a, b, alternative="two-sided", method="auto").pvalue
    assert mann_whitney_p(a, b) == pytest.approx(expected)


def test_prediction_noise_uses_the_t_quantile_of_its_degrees_of_freedom():
    medians = SAMPLES["small"][:6]
    sd, mean = np.std(medians, ddof=1), np.mean(medians)
    expected = scipy_stats.t.ppf(0.995, 5) * sd * np.sqrt(1 + 1 / 6) / mean
    assert prediction_noise(medians) == pytest.approx(expected)


def test_the_intervals_real_coverage_is_reported_for_few_rounds():
    from graphbench.analyze.stats import median_ci_coverage

    assert median_ci_coverage(2) == pytest.approx(0.5)      # the range of 2 rounds
    assert median_ci_coverage(5) == pytest.approx(0.9375)   # 1 - 2 / 2^5
    for n in (6, 10, 77, 300):
        j = median_ci_rank(n)
        assert median_ci_coverage(n) == pytest.approx(1 - 2 * scipy_stats.binom.cdf(j, n, 0.5))
        assert median_ci_coverage(n) >= 0.95


def test_few_rounds_say_how_often_their_range_covers_the_median():
    from conftest import make_record

    from graphbench.report.run import run_report
    from graphbench.report.tables import to_text

    text = to_text(run_report(make_record(rounds=4)), width=100)
    assert "88% CI" in text and "only 4 rounds" in text
    assert "95% CI" in to_text(run_report(make_record(rounds=12)), width=100)
