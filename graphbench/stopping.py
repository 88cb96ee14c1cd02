"""When to stop sampling: a fixed round count, or a noise target with a
minimum round count and a time budget (nvbench's rule, applied to the figure
users read: the graph speedup)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from graphbench.stats import block_spread, paired_ratios, relative_ci_halfwidth

FIXED = "fixed-rounds"
NOISE_TARGET = "noise-target"
TIME_BUDGET = "time-budget"


class StopRule(Protocol):
    def reason_to_stop(self, rounds_done: int, elapsed_s: float,
                       samples: Mapping[str, Sequence]) -> str | None: ...


def _walls(mode_samples: Sequence) -> list[float]:
    return [sample.wall_s for sample in mode_samples]


def series_noise(values: Sequence[float]) -> float:
    """The larger of the median's relative 95% CI half-width, which assumes
    independent rounds, and half the spread between medians of consecutive
    blocks of rounds, which catches a machine that changes speed for longer
    than a round (rounds are then not independent, and the CI alone is too
    narrow: runs of the same code would disagree far beyond it)."""
    return max(relative_ci_halfwidth(values), block_spread(values) / 2)


def noise(samples: Mapping[str, Sequence]) -> float:
    """The headline figure's noise: the speedup's when both individual and
    graph run, else the noisiest mode's wall."""
    if "individual" in samples and "graph" in samples:
        return series_noise(paired_ratios(_walls(samples["individual"]),
                                          _walls(samples["graph"])))
    return max(series_noise(_walls(s)) for s in samples.values())


@dataclass(frozen=True)
class FixedRounds:
    rounds: int

    def reason_to_stop(self, rounds_done, elapsed_s, samples):
        return FIXED if rounds_done >= self.rounds else None


@dataclass(frozen=True)
class NoiseTarget:
    max_noise: float = 0.01
    min_rounds: int = 10
    max_time_s: float = 2.0

    def reason_to_stop(self, rounds_done, elapsed_s, samples):
        if rounds_done < self.min_rounds:
            return None
        if noise(samples) <= self.max_noise:
            return NOISE_TARGET
        if elapsed_s >= self.max_time_s:
            return TIME_BUDGET
        return None
