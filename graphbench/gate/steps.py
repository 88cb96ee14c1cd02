"""Steps in a series: where the level of a figure moves between commits.

A series is one figure of records of one machine class and configuration
(graphbench.history.series), oldest first, each record one observation (its
level: the mean of its processes' medians, as compare forms a side's). The
model is a step function: segments of at least MIN_SEGMENT records (at
either end of the series, END_SEGMENT), each at its own level, every record
scattering around its segment's level by one
relative spread that the series itself gives (the spread between runs: the
GPU of the class it landed on, the process, the moment).

The steps are found in two passes, as asv's step detection does (its idea,
not its code):
1. proposed: the segmentation that minimises the squared residuals of the
   records' logarithms plus a penalty for each segment, found exactly by
   dynamic programming over the places a step may start (where the commit
   changes); the penalty (PENALTY) is low, so that a real step is always
   proposed and a few noise steps are too;
2. judged: every proposed step is the change between the two segments'
   levels, its standard error from the model's spread (pooled over every
   segment, Student's t on its degrees of freedom: records less segments),
   and its verdict graphbench.gate.decide's at the metric's threshold.
   The weakest step that is not `slower` or `faster` is merged away and the
   rest judged again, until every step left is one.

The spread is robust: each record is first pulled in to CLIP robust scales
(the median absolute deviation around its segment's median, corrected for
few records) of its segment's median, so one record off by far (a throttled
GPU) neither moves a level nor swells the spread much.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from graphbench.gate.compare import t_quantile
from graphbench.gate.decide import (BOUND_LEVEL, FASTER, GATE_LEVEL, POWER, RESOLUTION, SLOWER,
                                    Change, decide, noise_margin, one_sided_widths, unjudgeable)
from graphbench.stats.intervals import robust_scale

# The fewest records of a segment inside the series: a level its records'
# majority sets, so that two wild records in a row (a throttled GPU twice)
# cannot make one. A/A series of 12-40 records 0.2% apart, 5% of them 4%
# off, with END_SEGMENT below: a step in 0.9-1.9% of simulated series with
# 3, in 0.2-0.4% with 4 (tests/test_series_steps.py).
MIN_SEGMENT = 4
# The fewest records of a segment at either end of the series: a step is
# named once two records at the new level are stored (the newest records
# are where a step has just landed), and the oldest records may be a level
# of their own. The price: two wild records in a row at an end, the same
# way (5% of records 4% off: about 0.05^2 / 2 a series end) can make one.
END_SEGMENT = 2
# Robust scales from its segment's median a record is pulled in to. With 5
# and 8 earlier records 0.2% apart, 5% of them 4% off, one record was not
# gateable against 14% and 4% of simulated series pulled in to 4 scales,
# 18% and 11% to 6, 23% and 33% not pulled in at all; the price, with 5
# records, is an interval a little narrow: identical code `changed` in 1.8%
# of them, where 1% is its due, and never `slower` (tests/test_series_steps.py)
CLIP = 4.0
# The proposal's cost of a segment, in units of the records' variance times
# log(records): low, so that every step of the threshold is proposed (the
# judgement, not the proposal, keeps noise out)
PENALTY = 2.0
MAX_ADVICE = 200  # the most records a note suggests


@dataclass(frozen=True)
class Fit:
    """A step model of a series: where each segment starts (the first at 0),
    the records as the model reads them (each pulled in to CLIP robust scales
    of its segment's median), each segment's level, the relative spread of
    one record around its level and the spread's degrees of freedom."""

    starts: tuple[int, ...]
    values: tuple[float, ...]
    levels: tuple[float, ...]
    spread: float
    df: int

    def segment(self, i: int) -> tuple[int, int]:
        """The records of segment i: [start, end)."""
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.values)
        return self.starts[i], end

    def size(self, i: int) -> int:
        start, end = self.segment(i)
        return end - start


@dataclass(frozen=True)
class Step:
    """A step the judgement kept: it starts at record `index`."""

    index: int
    verdict: str      # slower or faster
    change: Change    # of the level after against the level before


@dataclass(frozen=True)
class Steps:
    fit: Fit
    steps: tuple[Step, ...]
    detects: float    # the smallest step the series can judge, split in its middle


def fit(values: Sequence[float], starts: Sequence[int]) -> Fit:
    """The step model with segments starting at `starts` (the first 0)."""
    data = np.asarray(values, dtype=float)
    bounds = list(zip(starts, [*starts[1:], data.size]))
    medians = [float(np.median(data[a:b])) for a, b in bounds]
    relative = np.concatenate([data[a:b] / m - 1 for (a, b), m in zip(bounds, medians)])
    scale = max(robust_scale(relative), RESOLUTION)
    pulled = np.concatenate([np.clip(data[a:b], m * (1 - CLIP * scale), m * (1 + CLIP * scale))
                             for (a, b), m in zip(bounds, medians)])
    levels = [float(np.mean(pulled[a:b])) for a, b in bounds]
    residuals = np.concatenate([pulled[a:b] / level - 1
                                for (a, b), level in zip(bounds, levels)])
    df = data.size - len(bounds)
    spread = math.sqrt(float(np.sum(residuals ** 2)) / df) if df > 0 else math.inf
    return Fit(tuple(int(s) for s in starts), tuple(float(x) for x in pulled), tuple(levels),
               max(spread, RESOLUTION), df)


def level_change(before: float, n_before: int, after: float, after_variance: float,
                 spread: float, df: int, scope: str = "",
                 advice: Callable[[float], str] | None = None) -> Change:
    """The relative change of level `after` against level `before` (the mean
    of n_before records), the records scattering by the relative `spread`
    of `df` degrees of freedom; `after_variance`: the after side's own
    variance relative to its level (spread^2 / its records, or more)."""
    if df < 1 or not math.isfinite(spread):
        return unjudgeable("the series has no spread of its own: too few records")
    if before <= 0 or after <= 0:
        return unjudgeable("a level of 0 or less: a relative change cannot be formed")
    estimate = after / before - 1
    se = math.sqrt(spread ** 2 / n_before + after_variance * (1 + estimate) ** 2)
    bound, power = one_sided_widths(se * noise_margin(df), t_quantile(BOUND_LEVEL, df),
                                    t_quantile(POWER, df))
    half = t_quantile(0.5 + GATE_LEVEL / 2, df) * se
    return Change(estimate, estimate - half, estimate + half, 2 * (bound + power), scope=scope,
                  bound=bound, floor=RESOLUTION, advice=advice)


def between_segments(model: Fit, i: int) -> Change:
    """The step into segment i (i >= 1) from segment i - 1."""
    n_before, n_after = model.size(i - 1), model.size(i)
    return level_change(model.levels[i - 1], n_before, model.levels[i],
                        model.spread ** 2 / n_after, model.spread, model.df,
                        scope=f"between {n_before} and {n_after} records, the spread of "
                        f"{len(model.values)}")


def proposed(values: Sequence[float], breaks: Sequence[bool] | None = None) -> list[int]:
    """The starts of the segments that minimise the squared residuals of
    log(values) plus PENALTY * variance * log(n) per segment, every segment
    MIN_SEGMENT records or more (END_SEGMENT at either end of the series),
    a segment starting only where `breaks` is True (a new commit); exact, by
    dynamic programming."""
    z = np.log(np.asarray(values, dtype=float))
    n = z.size
    may_start = np.ones(n + 1, dtype=bool) if breaks is None else \
        np.append(np.asarray(breaks, dtype=bool), True)
    sums, squares = np.concatenate(([0.0], np.cumsum(z))), np.concatenate(([0.0], np.cumsum(z * z)))
    differences = np.diff(z)
    noise = 1.4826 * float(np.median(np.abs(differences - np.median(differences)))) / math.sqrt(2) \
        if n > 2 else 0.0
    penalty = PENALTY * max(noise, RESOLUTION) ** 2 * math.log(max(n, 2))
    best, back = np.full(n + 1, math.inf), np.zeros(n + 1, dtype=int)
    best[0] = 0.0
    for end in range(END_SEGMENT, n + 1):
        begins = np.arange(0, end - END_SEGMENT + 1)
        counts = end - begins
        shortest = np.where((begins == 0) | (end == n), END_SEGMENT, MIN_SEGMENT)
        usable = (counts >= shortest) & ((begins == 0) | may_start[begins])
        cost = squares[end] - squares[begins] - (sums[end] - sums[begins]) ** 2 / counts
        total = np.where(usable, best[begins] + cost + penalty, math.inf)
        back[end] = int(np.argmin(total))
        best[end] = float(total[back[end]])
    starts, end = [], n
    while end > 0:
        end = int(back[end])
        starts.append(end)
    return sorted(starts) if math.isfinite(best[n]) else [0]


def detect(values: Sequence[float], threshold: float, higher_is_better: bool = False,
           breaks: Sequence[bool] | None = None) -> Steps:
    """The steps of `values` (oldest first) at a relative `threshold`, as
    the module docstring says; none where there are fewer than two segments'
    records."""
    starts = proposed(values, breaks) if len(values) >= 2 * END_SEGMENT else [0]
    while True:
        model = fit(values, starts)
        judged = [(i, between_segments(model, i)) for i in range(1, len(starts))]
        verdicts = {i: decide(change, threshold, higher_is_better)[0] for i, change in judged}
        weak = [(abs(change.estimate) / change.detectable if change.valid else 0.0, i)
                for i, change in judged if verdicts[i] not in (SLOWER, FASTER)]
        if not weak:
            steps = tuple(Step(starts[i], verdicts[i], change) for i, change in judged)
            return Steps(model, steps, middle_detects(model, len(values)))
        starts.pop(min(weak)[1])


def middle_detects(model: Fit, n: int) -> float:
    """The smallest step the series can judge: one in its middle, with the
    model's spread (infinite where no step can be placed)."""
    if n < 2 * END_SEGMENT:
        return math.inf
    half = n // 2
    change = level_change(1.0, half, 1.0, model.spread ** 2 / (n - half), model.spread, model.df)
    return change.detectable if change.valid else math.inf
