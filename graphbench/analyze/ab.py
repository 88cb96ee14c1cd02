"""A/B: two builds timed side by side in one process (graphbench run --ab).

Their rounds alternate on the same buffers and stream, so host drift hits
both alike, and each metric is judged on paired ratios: candidate round i
over base round i (for busy time, reading i over reading i). That gates
host-bound figures too, which a stored baseline on a shared host cannot.
The ratios are correlated from round to round where drift is not shared,
so their median's interval is the one that holds for correlated rounds
(graphbench.analyze.intervals), and graphbench.analyze.decide gives the
verdict, as for a stored baseline.
"""

from __future__ import annotations

import math

from graphbench.analyze.decide import (GATE_LEVEL, MISSING, POWER_LEVEL, Change, decide,
                                       noise_margin, unjudgeable)
from graphbench.analyze.intervals import median_interval
from graphbench.analyze.specs import FailSpec, check_specs, first_mode_per_workload, parse_spec
from graphbench.analyze.stats import median
from graphbench.record.model import Comparison, RunRecord, Verdict

BASE = "@base"
AB_WALL, AB_BUSY = "{mode}.wall:5%", "{mode}.busy:2%"
# Below this many independent pairs the intervals' own width is too uncertain
# for the power promise: at 30 pairs with autocorrelation 0.9, gating those
# with 2-7 effective pairs caught a change of the threshold 94% of the time.
MIN_EFFECTIVE_PAIRS = 8


def is_ab(record: RunRecord) -> bool:
    return any(name.endswith(BASE) for name in record.mode_names)


def candidate_modes(record: RunRecord) -> list[str]:
    return [m for m in record.mode_names if not m.endswith(BASE) and m + BASE in record.mode_names]


def default_ab_specs(record: RunRecord) -> list[FailSpec]:
    specs = [parse_spec(AB_WALL.format(mode=mode)) for mode in candidate_modes(record)]
    specs += [parse_spec(AB_BUSY.format(mode=mode)) for mode in first_mode_per_workload(record)
              if mode in candidate_modes(record)]
    return specs


def ratio_change(ratios: list[float]) -> Change:
    """The relative change candidate/base - 1 from the paired ratios' median."""
    if any(not math.isfinite(r) for r in ratios):
        return unjudgeable("a base round took no time: the ratio cannot be formed")
    # a pair's two rounds run back to back, so a host phase slows both alike
    gate = median_interval(ratios, GATE_LEVEL, shared_phases=True)
    power = median_interval(ratios, POWER_LEVEL, shared_phases=True)
    if not gate.valid:
        return unjudgeable(f"{len(ratios)} pairs: {gate.reason}", gate.estimate - 1)
    if gate.effective_n < MIN_EFFECTIVE_PAIRS:
        return unjudgeable(f"{len(ratios)} pairs are worth only {gate.effective_n:.1f} "
                           f"independent ones (correlated rounds): run longer (--max-time) or "
                           f"more rounds", gate.estimate - 1)
    margin = noise_margin(gate.effective_n - 1)
    detectable = (max(gate.high - gate.estimate, gate.estimate - gate.low) +
                  max(power.high - power.estimate, power.estimate - power.low)) * margin
    return Change(gate.estimate - 1, gate.low - 1, gate.high - 1, detectable,
                  scope=f"within one process, {len(ratios)} pairs", margin=margin)


def judge_ratios(spec: FailSpec, ratios: list[float], base_median: float,
                 candidate_median: float) -> Verdict:
    change = ratio_change(ratios)
    verdict, note = decide(change, spec.threshold)
    if change.valid:
        note = note or (f"paired ratio {change.estimate + 1:.3f} ({GATE_LEVEL:.0%} interval "
                        f"{change.low + 1:.3f}..{change.high + 1:.3f}, {len(ratios)} pairs)")
    finite = change.valid
    return Verdict(spec.name, verdict, True, spec.text, base_median, candidate_median,
                   change.estimate if math.isfinite(change.estimate) else None, None,
                   change.detectable if finite else None, note,
                   change.low if finite else None, change.high if finite else None, change.scope)


def compare_ab(record: RunRecord, specs: list[FailSpec] | None = None) -> Comparison:
    """The candidate build against the base build of one A/B record."""
    verdicts = []
    for spec in check_specs(specs) if specs else default_ab_specs(record):
        mode, _, field = spec.metric.partition(".")
        candidate, base = record.samples(mode, field), record.samples(mode + BASE, field)
        if not spec.relative or not candidate or len(candidate) != len(base):
            verdicts.append(Verdict(spec.name, MISSING, True, spec.text,
                                    note="not paired in this A/B record (relative specs only)"))
            continue
        ratios = [c / b if b else math.inf for c, b in zip(candidate, base)]
        verdicts.append(judge_ratios(spec, ratios, median(base), median(candidate)))
    notes = (f"A/B in one process: {record.pipeline.kernel_source} against base "
             f"{record.pipeline.ab_source}, rounds alternating on the same buffers",)
    return Comparison(tuple(verdicts), notes, ())

