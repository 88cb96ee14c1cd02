"""Pure statistics over per-round samples. No GPU, no I/O: numpy only."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def summarize(values: Sequence[float]) -> dict:
    """Median with its spread. CV uses the sample standard deviation (ddof=1)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("cannot summarize an empty sample")
    q1, median, q3 = np.percentile(data, [25, 50, 75])
    mean = float(data.mean())
    stdev = float(data.std(ddof=1)) if data.size > 1 else 0.0
    return {
        "n": int(data.size),
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "iqr": float(q3 - q1),
        "min": float(data.min()),
        "max": float(data.max()),
        "mean": mean,
        "stdev": stdev,
        "cv": stdev / mean if mean else float("nan"),
    }


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Round-by-round ratios. Rounds of the modes are interleaved, so pairing
    round i of one mode with round i of the other cancels slow machine drift."""
    if len(numerators) != len(denominators):
        raise ValueError("paired samples must have the same length")
    return [n / d for n, d in zip(numerators, denominators)]


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free confidence interval of the median from order statistics.

    The number of samples below the true median is Binomial(n, 1/2), so the
    interval between the j-th and (n-j+1)-th smallest values covers the median
    with probability 1 - 2 P(B < j). Deterministic and exact, unlike a bootstrap."""
    data = np.sort(np.asarray(values, dtype=float))
    n = data.size
    if n == 0:
        return float("nan"), float("nan")
    j = _lower_rank(n, 1 - confidence)
    return float(data[j]), float(data[n - 1 - j])


def _lower_rank(n: int, alpha: float) -> int:
    """Largest 0-based rank j with 2 * P(Binomial(n, 1/2) <= j) <= alpha (0 if none)."""
    log_half_n = n * math.log(0.5)
    cdf, best = 0.0, 0
    for j in range(n // 2):
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
                        + log_half_n)
        if 2 * cdf > alpha:
            break
        best = j
    return best


def relative_ci_halfwidth(values: Sequence[float], confidence: float = 0.95) -> float:
    """Half the median's CI width relative to the median: the noise figure."""
    low, high = median_ci(values, confidence)
    median = float(np.median(values))
    return (high - low) / 2 / abs(median) if median else float("inf")


def block_spread(values: Sequence[float], blocks: int = 4) -> float:
    """(max - min) of the medians of `blocks` consecutive blocks, relative to
    the overall median; 0 when there are too few values to form the blocks."""
    data = np.asarray(values, dtype=float)
    if data.size < 2 * blocks:
        return 0.0
    medians = [float(np.median(part)) for part in np.array_split(data, blocks)]
    overall = float(np.median(data))
    return (max(medians) - min(medians)) / abs(overall) if overall else float("inf")


# Two-sided 99% Student t quantiles, t(0.995, df), for small df.
_T995 = {1: 63.657, 2: 9.925, 3: 5.841, 4: 4.604, 5: 4.032, 6: 3.707, 7: 3.499, 8: 3.355,
         9: 3.250, 10: 3.169, 12: 3.055, 15: 2.947, 20: 2.845, 30: 2.750, 60: 2.660}


def t995(df: int) -> float:
    """t(0.995, df), rounded up to the next tabulated df (conservative)."""
    for key in sorted(_T995):
        if df <= key:
            return _T995[key]
    return 2.576


def prediction_noise(medians: Sequence[float]) -> float:
    """Relative half-width of the 99% prediction interval for one more
    process's median, given the medians of earlier processes: how far a new
    process may land from them by chance alone. 0 with fewer than 3."""
    data = np.asarray(medians, dtype=float)
    if data.size < 3:
        return 0.0
    mean = float(data.mean())
    spread = float(data.std(ddof=1)) * math.sqrt(1 + 1 / data.size)
    return t995(data.size - 1) * spread / abs(mean) if mean else float("inf")
