"""Descriptive statistics of a series: its median with its spread, its
ranks, and the chi-square tail the interleaving test reads. Pure: no
GPU, no I/O. Intervals that hold for correlated rounds are in
graphbench.analyze.intervals, and the gate's decision rule in
graphbench.analyze.decide.
"""

from __future__ import annotations

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


def mean_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their mean: (first + last + 1) / 2 of each
    run of equal values, 0-based, found from one sort."""
    if not values.size:
        return np.empty(0)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], values.size)  # one past each run
    ranks = np.empty(values.size)
    ranks[order] = ((firsts + lasts + 1) / 2)[np.cumsum(new) - 1]
    return ranks


def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with whole `df` > x): the regularized upper gamma
    Q(df/2, x/2) by Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1), from
    Q(1/2, y) = erfc(sqrt y) or Q(0, y) = 0 (scipy costs a plain run 0.8 s)."""
    y = x / 2
    if y <= 0:
        return 1.0
    shape, total = (0.5, math.erfc(math.sqrt(y))) if df % 2 else (0.0, 0.0)
    while shape < df / 2:
        total += math.exp(shape * math.log(y) - y - math.lgamma(shape + 1))
        shape += 1
    return min(total, 1.0)
