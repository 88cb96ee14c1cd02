"""Descriptive statistics of a series: its median with its spread. Pure: no
GPU, no I/O. Intervals that hold for correlated rounds are in
graphbench.analyze.intervals, and the gate's decision rule in
graphbench.analyze.decide.
"""

from __future__ import annotations

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
