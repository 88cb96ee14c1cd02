"""Pure statistics over per-round samples. No GPU, no I/O: numpy only."""

from __future__ import annotations

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


def bootstrap_median_ci(values: Sequence[float], confidence: float = 0.95,
                        resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval of the median."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        value = float(data[0]) if data.size else float("nan")
        return value, value
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(resamples, data.size))
    medians = np.median(data[picks], axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return float(low), float(high)


def relative_ci_halfwidth(values: Sequence[float], **kwargs) -> float:
    """Half the CI width of the median, relative to the median: the noise figure."""
    low, high = bootstrap_median_ci(values, **kwargs)
    median = float(np.median(values))
    return (high - low) / 2 / abs(median) if median else float("inf")
