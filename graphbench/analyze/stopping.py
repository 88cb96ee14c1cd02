"""When to stop sampling: a fixed round count, or a noise target with a
minimum round count and a time budget (nvbench's rule, applied to the figure
users read: the graph speedup)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from graphbench.analyze.stats import paired_ratios, series_noise

FIXED = "fixed-rounds"
NOISE_TARGET = "noise-target"
TIME_BUDGET = "time-budget"


class StopRule(Protocol):
    def reason_to_stop(self, rounds_done: int, elapsed_s: float,
                       walls: Mapping[str, Sequence[float]]) -> str | None: ...


def headline_noise(walls: Mapping[str, Sequence[float]]) -> float:
    """The headline figure's noise, from each mode's wall times per round:
    the speedup's when both individual and graph ran, else the noisiest
    mode's wall."""
    if "individual" in walls and "graph" in walls:
        return series_noise(paired_ratios(walls["individual"], walls["graph"]))
    return max(series_noise(values) for values in walls.values())


@dataclass(frozen=True)
class FixedRounds:
    rounds: int

    def reason_to_stop(self, rounds_done, elapsed_s, walls):
        return FIXED if rounds_done >= self.rounds else None


@dataclass(frozen=True)
class NoiseTarget:
    max_noise: float = 0.01
    min_rounds: int = 10
    max_time_s: float = 2.0

    def reason_to_stop(self, rounds_done, elapsed_s, walls):
        if rounds_done < self.min_rounds:
            return None
        if headline_noise(walls) <= self.max_noise:
            return NOISE_TARGET
        if elapsed_s >= self.max_time_s:
            return TIME_BUDGET
        return None


def stop_rule(config) -> StopRule:
    if config.rounds is not None:
        return FixedRounds(config.rounds)
    return NoiseTarget(config.max_noise, config.min_rounds, config.max_time)
