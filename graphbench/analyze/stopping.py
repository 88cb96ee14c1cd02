"""When to stop sampling: a fixed round count, or a noise target with a
minimum round count and a time budget (nvbench's rule), applied to what the
run is for: the graph speedup, or in an A/B run the paired ratios its gate
judges.

The target applies to the figure the run states: its rounds as measured.
No model of the host's speed adjusts them (a host phase is part of what a
figure on that host is); in an A/B pair a host phase moves both sides of
each ratio alike.

The noise figure is the larger of the median's relative 95% half-width
(graphbench.analyze.intervals, valid for correlated rounds; infinite while
too few rounds support one) and the drift the rounds contain beyond what
their spread explains: how far the median of the last third of the rounds
lies from that of the first third, less the 95% bound of that distance for
rounds without drift (each third's median is sqrt(3) times as uncertain as
the whole's, so their difference sqrt(6) times). A trend or a level shift
therefore raises the noise, while the drift of chance alone does not (how
large that drift reads raw: docs/measurement.md#sampling-when-a-run-stops).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from graphbench.analyze.ab import default_wall_thresholds, ratio_change
from graphbench.analyze.intervals import MIN_ROUNDS, median_interval
from graphbench.analyze.stats import paired_ratios
from graphbench.ladder import BASELINE, BASE_SUFFIX, HEADLINE
from graphbench.sampling import StopRule

FIXED = "fixed-rounds"
NOISE_TARGET = "noise-target"
TIME_BUDGET = "time-budget"
MIN_DRIFT_ROUNDS = 6  # thirds of at least two rounds each
# the 95% bound of the outer thirds' medians' distance in the whole median's
# 95% half-widths, for rounds without drift (the module docstring)
DRIFT_ALLOWANCE = math.sqrt(6)
# An A/B gate needs 8 independent pairs at 99% (graphbench.analyze.ab); its
# wall ratios reach a 1% noise target within 10 rounds, but busy readings at
# 2^24 are so correlated that ten can be worth under one independent pair
# (docs/gate.md#measured). And from 30
# pairs the autocorrelation is read too roughly: in simulation, of 30-pair
# series with lag-1 0.9 that read as gateable, 93-96% caught a change equal
# to the threshold; from 60 pairs 99% (tests/test_gate_calibration.py).
AB_MIN_ROUNDS = 60


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


def _ab_candidates(walls: Mapping[str, Sequence[float]]) -> list[str]:
    return [m for m in walls if not m.endswith(BASE_SUFFIX) and m + BASE_SUFFIX in walls]


def ab_gateable(walls: Mapping[str, Sequence[float]]) -> bool:
    """An A/B run's every paired wall and speedup can be judged at its
    default threshold (graphbench.analyze.ab): the run is for that verdict,
    so it samples on until the verdict can be given or the budget ends. A
    run that is not A/B: True."""
    pairs = _ab_candidates(walls)
    if not pairs:
        return True
    return all(ratio_change(ratios).detectable <= threshold
               for ratios, threshold in default_wall_thresholds(walls, pairs))


def watched_series(walls: Mapping[str, Sequence[float]]) -> list[list[float]]:
    """What the run is for: each A/B pair's ratios, else the graph speedup's
    ratios, else every mode's wall times."""
    pairs = _ab_candidates(walls)
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
    shared = bool(_ab_candidates(walls))
    return max((noise_parts(series, shared) for series in watched_series(walls)), key=max)


@dataclass(frozen=True)
class FixedRounds:
    rounds: int

    def reason_to_stop(self, rounds_done, elapsed_s, walls):
        return FIXED if rounds_done >= self.rounds else None


@dataclass(frozen=True)
class NoiseTarget:
    max_noise: float = 0.01
    min_rounds: int = MIN_ROUNDS
    max_time_s: float = 3.0

    def reason_to_stop(self, rounds_done, elapsed_s, walls):
        if rounds_done < self.min_rounds:
            return None
        if headline_noise(walls) <= self.max_noise and ab_gateable(walls):
            return NOISE_TARGET
        if elapsed_s >= self.max_time_s:
            return TIME_BUDGET
        return None


# --max-time is the budget of the default ladder's three rungs: a run of more
# rungs gets it per three, so that each rung samples about as long (with every
# rung on one budget, --modes all gave each only a few rounds:
# docs/measurement.md#sampling-budgets)
BUDGET_RUNGS = 3


def stop_rule(config) -> StopRule:
    """A gate size's point (config.gate_point) runs its least rounds: the gate
    reads only its GPU busy time there, which is not host-bound and quiet
    from the fewest rounds, while the headline a noise target would judge
    is host-bound, and would often run the whole budget
    (docs/measurement.md#sampling-budgets)."""
    if config.rounds is not None:
        return FixedRounds(config.rounds)
    least = max(config.min_rounds, AB_MIN_ROUNDS) if config.ab_source else config.min_rounds
    if getattr(config, "gate_point", False):
        return FixedRounds(least)
    rungs = len([m for m in getattr(config, "modes", None) or () if not m.endswith(BASE_SUFFIX)])
    builds = 2 if config.ab_source else 1  # an A/B rung's pair gets a plain rung's time each
    return NoiseTarget(config.max_noise, least,
                       builds * config.max_time * max(1.0, rungs / BUDGET_RUNGS))
