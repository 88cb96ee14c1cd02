"""Every statistic graphbench reports or decides on, in one place. Pure: no
GPU, no I/O.

scipy.stats gives the tests and quantiles (Mann-Whitney U, Student's t). It
is imported where those are used, the gate, and not at start-up: importing
it takes 0.8 s, which made every default run that much slower on the H200.
The one statistic every run needs, the median's order-statistic interval,
needs only the binomial distribution's CDF at p = 1/2, which exact integer
arithmetic gives (tests check it against scipy.stats.binom and
scipy.stats.quantile_test).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class Summary:
    """Median with its spread. CV uses the sample standard deviation (ddof=1)."""

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    min: float
    max: float
    mean: float
    stdev: float
    cv: float


def summarize(values: Sequence[float]) -> Summary:
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("cannot summarize an empty sample")
    q1, median, q3 = np.percentile(data, [25, 50, 75])
    mean = float(data.mean())
    stdev = float(data.std(ddof=1)) if data.size > 1 else 0.0
    return Summary(n=int(data.size), median=float(median), q1=float(q1), q3=float(q3),
                   iqr=float(q3 - q1), min=float(data.min()), max=float(data.max()), mean=mean,
                   stdev=stdev, cv=stdev / mean if mean else float("nan"))


def median(values: Sequence[float]) -> float:
    return float(np.median(np.asarray(values, dtype=float)))


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Round-by-round ratios. Rounds of the modes are interleaved, so pairing
    round i of one mode with round i of the other cancels slow machine drift."""
    if len(numerators) != len(denominators):
        raise ValueError("paired samples must have the same length")
    return [n / d for n, d in zip(numerators, denominators)]


@functools.lru_cache(maxsize=4096)
def median_ci_rank(n: int, confidence: float = 0.95) -> int:
    """The 0-based rank j of the distribution-free CI of the median, [x(j), x(n-1-j)].

    The count of samples below the true median is Binomial(n, 1/2), so that
    interval covers it with probability 1 - 2 P(B <= j). j is the largest
    rank whose coverage reaches `confidence`; 0 (the whole range, whose
    coverage is then lower) when none does."""
    alpha, total = 1 - confidence, 2 ** n
    term = cumulative = 1  # C(n, 0): integers, so the CDF is exact at any n
    j = 0
    for k in range(1, (n - 1) // 2 + 1):
        term = term * (n - k + 1) // k
        cumulative += term  # sum of C(n, i) for i <= k
        if 2 * cumulative / total > alpha:
            break
        j = k
    return j


def median_ci_coverage(n: int, confidence: float = 0.95) -> float:
    """The probability that median_ci's interval covers the true median:
    `confidence` or a little more, except for n <= 5, where even the whole
    range covers it less often (50% at n = 2, 94% at n = 5)."""
    if n == 0:
        return 0.0
    j = median_ci_rank(n, confidence)
    return 1 - 2 * sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of the median from order statistics: exact and
    deterministic, unlike a bootstrap."""
    data = np.sort(np.asarray(values, dtype=float))
    if data.size == 0:
        return float("nan"), float("nan")
    j = median_ci_rank(data.size, confidence)
    return float(data[j]), float(data[data.size - 1 - j])


def relative_ci_halfwidth(values: Sequence[float], confidence: float = 0.95) -> float:
    """Half the median's CI width relative to the median: the noise figure."""
    low, high = median_ci(values, confidence)
    mid = median(values)
    return (high - low) / 2 / abs(mid) if mid else float("inf")


def block_spread(values: Sequence[float], blocks: int = 4) -> float:
    """(max - min) of the medians of `blocks` consecutive blocks, relative to
    the overall median; 0 when there are too few values to form the blocks."""
    data = np.asarray(values, dtype=float)
    if data.size < 2 * blocks:
        return 0.0
    medians = [float(np.median(part)) for part in np.array_split(data, blocks)]
    overall = float(np.median(data))
    return (max(medians) - min(medians)) / abs(overall) if overall else float("inf")


def series_noise(values: Sequence[float]) -> float:
    """The larger of the median's relative 95% CI half-width, which assumes
    independent rounds, and half the spread between medians of consecutive
    blocks of rounds, which catches a machine that changes speed for longer
    than a round (rounds are then not independent, and the CI alone is too
    narrow: runs of the same code would disagree far beyond it)."""
    return max(relative_ci_halfwidth(values), block_spread(values) / 2)


def t_quantile(probability: float, df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(probability, df))


def prediction_noise(medians: Sequence[float], confidence: float = 0.99) -> float:
    """Relative half-width of the prediction interval for one more process's
    median, given the medians of earlier processes: how far a new process
    may land from them by chance alone. 0 with fewer than 3."""
    data = np.asarray(medians, dtype=float)
    if data.size < 3:
        return 0.0
    mean = float(data.mean())
    spread = float(data.std(ddof=1)) * math.sqrt(1 + 1 / data.size)
    quantile = t_quantile(1 - (1 - confidence) / 2, data.size - 1)
    return quantile * spread / abs(mean) if mean else float("inf")


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Mann-Whitney U p-value: exact for small samples without ties,
    else the normal approximation with tie and continuity corrections."""
    if np.ptp(np.concatenate([np.asarray(a, float), np.asarray(b, float)])) == 0:
        return 1.0  # every value equal: no evidence of any difference
    from scipy import stats

    return float(stats.mannwhitneyu(a, b, alternative="two-sided", method="auto").pvalue)
