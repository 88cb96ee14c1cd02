"""A/B: two builds timed side by side in one process (graphbench run --ab).

Their rounds alternate on the same buffers and stream, so host drift hits
both alike, and each metric is judged on paired ratios: candidate round i
over base round i (for busy time, reading i over reading i). That gates
host-bound figures too, which a stored baseline on a shared host cannot.

The change is a mean, not a median. Readings are quantized by the timer
(an event's 0.5 us tick per round), and a median of quantized ratios
freezes: most pairs read the same tick count, the median sits at exactly 1,
neither moves with a real change smaller than a tick (a real +2% was never
judged slower in simulation) nor has any width. A mean moves, since a
reading of random phase against the tick is right on average. So the change
is the mean of the pairs' log ratios, after dropping those beyond
OUTLIER_CUT robust sds of their median (one outlier moves a mean without
bound), its spread floored at the ticks' own rounding error (tick / sqrt(12)
per reading), and its standard error stretched by the autocorrelation time
of an AR(1) mean (`mean_tau`). graphbench.gate.decide gives the verdict,
as for a stored baseline; a `changed` needs more than AB_RESOLUTION, what
identical builds reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from graphbench.gate.decide import (BOUND_LEVEL, GATE_LEVEL, MISSING, POWER, RESOLUTION, Change,
                                    decide, noise_margin, one_sided_widths, unjudgeable)
from graphbench.stats.intervals import (_R_MAX, MIN_ROUNDS, _invalid_reason, _scaled, _von_neumann,
                                        hill_t_quantile, reading_quantum, robust_scale)
from graphbench.gate.specs import (SPEEDUP_METRICS, FailSpec, check_specs, first_mode_per_workload,
                                   parse_spec)
from graphbench.stats.stats import median
from graphbench.ladder import BASE_SUFFIX, BASELINE, HEADLINE
from graphbench.limits import MIN_EFFECTIVE_ROUNDS
from graphbench.record.model import Comparison, RunRecord, Verdict

AB_WALL, AB_BUSY, AB_SPEEDUP = "{mode}.wall:5%", "{mode}.busy:2%", "{metric}:5%"
# Below this many independent pairs the autocorrelation behind the standard
# error is read too roughly: such series are short against their own
# correlation, and those of them that read as gateable mostly read it low.
MIN_EFFECTIVE_PAIRS = MIN_EFFECTIVE_ROUNDS
# What identical builds reach (A/A: a probe's order, the buffers' placement;
# docs/gate.md#the-verdicts): a paired change smaller than this is no evidence
# of a code change, however narrow its interval.
AB_RESOLUTION = 1e-3
MAX_PAIRS = 100_000  # the most pairs a note suggests
OUTLIER_CUT = 5.0    # robust sds from the median beyond which a log ratio is an outlier


def is_ab(record: RunRecord) -> bool:
    return any(name.endswith(BASE_SUFFIX) for name in record.mode_names)


def candidate_modes(record: RunRecord) -> list[str]:
    names = record.mode_names
    return [m for m in names if not m.endswith(BASE_SUFFIX) and m + BASE_SUFFIX in names]


def default_ab_specs(record: RunRecord) -> list[FailSpec]:
    """Every paired rung's wall, each GPU workload's busy time and every
    speedup both builds have: a paired speedup needs no host model, so it is
    gated here as it is nowhere else."""
    specs = [parse_spec(AB_SPEEDUP.format(metric=metric)) for metric in SPEEDUP_METRICS
             if paired_speedups(record, metric, "") and paired_speedups(record, metric,
                                                                        BASE_SUFFIX)]
    specs += [parse_spec(AB_WALL.format(mode=mode)) for mode in candidate_modes(record)]
    specs += [parse_spec(AB_BUSY.format(mode=mode)) for mode in first_mode_per_workload(record)
              if mode in candidate_modes(record)]
    return specs


def ratio_change(ratios: list[float], quantum: float = 0.0) -> Change:
    """The relative change candidate/base - 1 from the paired ratios.
    `quantum`: the relative resolution of one ratio's two readings together,
    hypot(base tick, candidate tick) / value (0 for continuous readings)."""
    if any(not math.isfinite(r) for r in ratios):
        return unjudgeable("a base round took no time: the ratio cannot be formed")
    if any(r <= 0 for r in ratios):
        return unjudgeable("a candidate round took no time: the ratio cannot be judged")
    n = len(ratios)
    if n < MIN_ROUNDS:
        return unjudgeable(f"{n} pairs: {_invalid_reason(n)}",
                           median(ratios) - 1 if ratios else math.nan)
    logs = [math.log(r) for r in ratios]
    # a reading on a timer's grid is off by up to half a tick, uniformly
    location = paired_location(logs, max(quantum / math.sqrt(12), RESOLUTION))
    scale = math.exp(location.estimate)
    estimate = scale - 1
    if location.effective_n < MIN_EFFECTIVE_PAIRS:
        return unjudgeable(f"{n} pairs are worth only {location.effective_n:.1f} independent "
                           f"ones (correlated rounds): run longer (--max-time) or more rounds",
                           estimate)
    se = location.se * scale  # relative, to first order
    df = location.effective_n - 1
    widths = _widths(se, df)
    half = float(hill_t_quantile(0.5 + GATE_LEVEL / 2, df)) * se
    dropped = f", {location.dropped} outlier(s) left out" if location.dropped else ""
    return Change(estimate, estimate - half, estimate + half, 2 * sum(widths),
                  scope=f"within one process, {n} pairs{dropped}", bound=widths[0],
                  floor=AB_RESOLUTION, advice=_more_pairs(n, location.effective_n, se))


def _widths(se: float, df: float) -> tuple[float, float]:
    wide = se * noise_margin(df)
    return one_sided_widths(wide, float(hill_t_quantile(BOUND_LEVEL, df)),
                            float(hill_t_quantile(POWER, df)))


def _more_pairs(n: int, effective_n: float, se: float):
    """The note's advice: how many pairs would make the metric gateable at a
    threshold, the standard error falling as 1/sqrt(pairs) at the same
    autocorrelation."""
    def advice(threshold: float) -> str:
        pairs = n
        while pairs < MAX_PAIRS:
            pairs = min(MAX_PAIRS, max(pairs + 1, math.ceil(pairs * 1.1)))
            scale = math.sqrt(n / pairs)
            if 2 * sum(_widths(se * scale, effective_n * pairs / n - 1)) <= threshold:
                return (f"about {pairs} pairs would make it gateable (more rounds: "
                        f"--min-rounds {pairs} or a longer --max-time)")
        return f"not even {MAX_PAIRS} pairs would make it gateable"
    return advice


@dataclass(frozen=True)
class Location:
    """The mean of a series (of log ratios) without its outliers, and its
    standard error for correlated rounds."""

    estimate: float
    se: float
    n: int              # values kept
    effective_n: float  # their worth in independent values
    dropped: int        # outliers left out


def paired_location(values: Sequence[float], spread_floor: float = 0.0) -> Location:
    """The mean of `values` (in round order) without those beyond OUTLIER_CUT
    robust sds of the median; its standard error from their sd, never below
    `spread_floor` (the least sd one value can have, e.g. its ticks'
    rounding error), stretched for autocorrelation. Needs 3 or more values."""
    data = np.asarray(values, dtype=float).reshape(-1)
    if data.size < 3 or not np.all(np.isfinite(data)):
        raise ValueError("a location needs 3 or more finite values")
    middle = float(np.median(data))
    scale = max(robust_scale(data), spread_floor)
    kept = data[np.abs(data - middle) <= OUTLIER_CUT * scale] if scale > 0 else data
    n = int(kept.size)
    sd = max(float(np.std(kept, ddof=1)) if n > 1 else 0.0, spread_floor)
    tau = mean_tau(kept)
    return Location(float(np.mean(kept)), sd * math.sqrt(tau / n), n, n / tau,
                    int(data.size) - n)


def mean_tau(values: Sequence[float]) -> float:
    """The integrated autocorrelation time of the mean of an AR(1) series,
    (1 + rho) / (1 - rho), at its lag-1 coefficient read by the von Neumann
    ratio, corrected for its bias (1 + 3 rho) / n as the median's intervals
    do, plus one sd of that estimate, sqrt((1 - rho^2) / n): a series that
    happened to read as less correlated than it is would otherwise be
    trusted as worth more pairs than it is. At 60 AR(1) pairs of lag-1 0.7,
    the one-sided 95% bounds (widened) of the series worth 8 or more pairs
    missed 2.9% of the time on each side with that sd, 3.9% without it.
    1 for fewer than 3 values."""
    data = np.asarray(values, dtype=float).reshape(1, -1)
    n = data.shape[1]
    if n < 3:
        return 1.0
    rho_hat = float(_von_neumann(_scaled(data)[0])[0])
    shrink = max(1 - 3 / n, 1 / n)
    rho = min(max((rho_hat + 1 / n) / shrink, 0.0), 1.0)
    rho = min(rho + math.sqrt((1 - rho * rho) / n), _R_MAX)
    return (1 + rho) / (1 - rho)


def judge_ratios(spec: FailSpec, ratios: list[float], base_median: float,
                 candidate_median: float, quantum: float = 0.0,
                 higher_is_better: bool = False) -> Verdict:
    change = ratio_change(ratios, quantum)
    verdict, note = decide(change, spec.threshold, higher_is_better=higher_is_better)
    if change.valid:
        note = note or (f"paired ratio {change.estimate + 1:.3f} ({GATE_LEVEL:.0%} interval "
                        f"{change.low + 1:.3f}..{change.high + 1:.3f}, {len(ratios)} pairs)")
    finite = change.valid
    return Verdict(spec.name, verdict, True, spec.text, base_median, candidate_median,
                   change.estimate if math.isfinite(change.estimate) else None, None,
                   change.detectable if finite else None, note,
                   change.low if finite else None, change.high if finite else None, change.scope,
                   change.floor if finite else None)


def ratio_quantum(base, candidate) -> float:
    """The relative resolution of a ratio of one base and one candidate
    reading: each side's tick over its median, in quadrature."""
    b, c = median(base), median(candidate)
    if not b or not c:
        return 0.0
    return math.hypot(reading_quantum(base) / abs(b), reading_quantum(candidate) / abs(c))


def default_wall_thresholds(walls, pairs: list[str]) -> list[tuple[list[float], float]]:
    """(paired ratios, threshold) of each default A/B metric that walls alone
    give: every paired rung's wall, and each speedup both builds have."""
    wall = parse_spec(AB_WALL.format(mode="graph")).threshold
    speedup = parse_spec(AB_SPEEDUP.format(metric="speedup")).threshold
    out = [([c / b if b else math.inf for c, b in zip(walls[m], walls[m + BASE_SUFFIX])], wall)
           for m in pairs]
    for other in ("fused", HEADLINE):
        names = (BASELINE, other, BASELINE + BASE_SUFFIX, other + BASE_SUFFIX)
        if all(name in walls for name in names):
            ind, oth, ind_b, oth_b = (walls[name] for name in names)
            out.append(([i * ob / (o * ib) if o and ib else math.inf
                         for i, o, ib, ob in zip(ind, oth, ind_b, oth_b)], speedup))
    return out


def paired_speedups(record: RunRecord, metric: str, suffix: str) -> list[float]:
    """A speedup's per-round values for one build (`suffix`: "" for the
    candidate, BASE_SUFFIX for the base): individual wall over the other
    rung's wall of the same round."""
    other = "fused" if metric == "speedup.fused" else HEADLINE
    individual = record.samples(BASELINE + suffix, "wall")
    against = record.samples(other + suffix, "wall")
    if not individual or len(individual) != len(against):
        return []
    return [i / o if o else math.inf for i, o in zip(individual, against)]


def paired_series(record: RunRecord, metric: str) -> tuple[list[float], list[float]]:
    """(candidate, base) per-round values of a metric, in round order."""
    if metric in SPEEDUP_METRICS:
        return (paired_speedups(record, metric, ""),
                paired_speedups(record, metric, BASE_SUFFIX))
    mode, _, field = metric.partition(".")
    return list(record.samples(mode, field)), list(record.samples(mode + BASE_SUFFIX, field))


def compare_ab(record: RunRecord, specs: list[FailSpec] | None = None) -> Comparison:
    """The candidate build against the base build of one A/B record."""
    verdicts = []
    for spec in check_specs(specs) if specs else default_ab_specs(record):
        candidate, base = paired_series(record, spec.metric)
        if not spec.relative or not candidate or len(candidate) != len(base):
            verdicts.append(Verdict(spec.name, MISSING, True, spec.text,
                                    note="not paired in this A/B record (relative specs only)"))
            continue
        ratios = [c / b if b else math.inf for c, b in zip(candidate, base)]
        verdicts.append(judge_ratios(spec, ratios, median(base), median(candidate),
                                     ratio_quantum(base, candidate),
                                     higher_is_better=spec.metric in SPEEDUP_METRICS))
    notes = (f"A/B in one process: {record.pipeline.kernel_source} against base "
             f"{record.pipeline.ab_source}, rounds alternating on the same buffers",)
    return Comparison(tuple(verdicts), notes, ())

