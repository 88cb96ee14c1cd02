"""How noisy a run's headline is, as the stop rule and the summary read it:
the median's relative 95% half-width (graphbench.stats.intervals, valid
for correlated rounds; infinite while too few rounds support one) and the
drift the rounds contain beyond what their spread explains: how far the
median of the last third of the rounds lies from that of the first third,
less the 95% bound of that distance for rounds without drift (each third's
median is sqrt(3) times as uncertain as the whole's, so their difference
sqrt(6) times). A trend or a level shift therefore raises the noise, while
the drift of chance alone does not (how large that drift reads raw:
docs/measurement.md#sampling-when-a-run-stops)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from graphbench.stats.intervals import median_interval
from graphbench.stats.stats import paired_ratios
from graphbench.ladder import BASELINE, BASE_SUFFIX, HEADLINE

MIN_DRIFT_ROUNDS = 6  # thirds of at least two rounds each
# the 95% bound of the outer thirds' medians' distance in the whole median's
# 95% half-widths, for rounds without drift (the module docstring)
DRIFT_ALLOWANCE = math.sqrt(6)


def drift(values: Sequence[float]) -> float:
    """|median of the last third - median of the first third| / overall median."""
    data = np.asarray(values, dtype=float)
    if data.size < MIN_DRIFT_ROUNDS:
        return 0.0
    third = data.size // 3
    middle = float(np.median(data))
    if middle == 0:
        return math.inf
    return abs(float(np.median(data[-third:])) - float(np.median(data[:third]))) / abs(middle)


def noise_parts(values: Sequence[float], shared_phases: bool = False) -> tuple[float, float]:
    """The two parts of a series' noise: the median's relative 95% half-width
    and the drift beyond what the spread explains."""
    half_width = median_interval(values, 0.95, shared_phases).relative_half_width
    return half_width, excess_drift(values, half_width)


def excess_drift(values: Sequence[float], half_width: float) -> float:
    """drift(values) less DRIFT_ALLOWANCE half-widths of the median, at least 0."""
    if not math.isfinite(half_width):
        return drift(values)
    return max(0.0, drift(values) - DRIFT_ALLOWANCE * half_width)


def ab_candidates(walls: Mapping[str, Sequence[float]]) -> list[str]:
    return [m for m in walls if not m.endswith(BASE_SUFFIX) and m + BASE_SUFFIX in walls]


def watched_series(walls: Mapping[str, Sequence[float]]) -> list[list[float]]:
    """What the run is for: each A/B pair's ratios, else the graph speedup's
    ratios, else every mode's wall times."""
    pairs = ab_candidates(walls)
    if pairs:
        return [paired_ratios(walls[m], walls[m + BASE_SUFFIX]) for m in pairs]
    if BASELINE in walls and HEADLINE in walls:
        return [paired_ratios(walls[BASELINE], walls[HEADLINE])]
    return [list(values) for values in walls.values()]


def headline_noise(walls: Mapping[str, Sequence[float]]) -> float:
    return max(headline_noise_parts(walls))


def headline_noise_parts(walls: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """The headline series' (the noisiest's) half-width and drift, of the
    rounds as measured (an A/B run's ratios: their host phases shared)."""
    shared = bool(ab_candidates(walls))
    return max((noise_parts(series, shared) for series in watched_series(walls)), key=max)
