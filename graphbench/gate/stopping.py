"""When to stop sampling: a fixed round count, or a noise target with a
minimum round count and a time budget (nvbench's rule), applied to what the
run is for: the graph speedup, or in an A/B run the paired ratios its gate
judges.

The target applies to the figure the run states: its rounds as measured.
No model of the host's speed adjusts them (a host phase is part of what a
figure on that host is); in an A/B pair a host phase moves both sides of
each ratio alike.

The noise figure is graphbench.stats.noise's: the median's half-width or
the drift beyond it, whichever is larger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from graphbench.gate.ab import default_wall_thresholds, ratio_change
from graphbench.stats.intervals import MIN_ROUNDS
from graphbench.stats.noise import ab_candidates, headline_noise
from graphbench.ladder import BASE_SUFFIX
from graphbench.sampling import StopRule

FIXED = "fixed-rounds"
NOISE_TARGET = "noise-target"
TIME_BUDGET = "time-budget"
# An A/B gate needs 8 independent pairs at 99% (graphbench.gate.ab); its
# wall ratios reach a 1% noise target within 10 rounds, but busy readings at
# 2^24 are so correlated that ten can be worth under one independent pair
# (docs/gate.md#measured). And from 30
# pairs the autocorrelation is read too roughly: in simulation, of 30-pair
# series with lag-1 0.9 that read as gateable, 93-96% caught a change equal
# to the threshold; from 60 pairs 99% (tests/test_gate_calibration.py).
AB_MIN_ROUNDS = 60


def ab_gateable(walls: Mapping[str, Sequence[float]]) -> bool:
    """An A/B run's every paired wall and speedup can be judged at its
    default threshold (graphbench.gate.ab): the run is for that verdict,
    so it samples on until the verdict can be given or the budget ends. A
    run that is not A/B: True."""
    pairs = ab_candidates(walls)
    if not pairs:
        return True
    return all(ratio_change(ratios).detectable <= threshold
               for ratios, threshold in default_wall_thresholds(walls, pairs))


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
