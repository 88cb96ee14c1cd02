"""Two run records -> per-metric verdicts -> a gate decision. Pure: no GPU.

The unit of a stored-baseline comparison is the process: rounds inside one
process are correlated, and processes of the same code land apart by more
than their rounds suggest (host placement, the GPU's state). Each side's
process medians give the change and its interval (graphbench.analyze.decide
turns that into a verdict):
- the change is mean(current medians) / mean(baseline medians) - 1;
- its spread is the baseline's between-process spread (pooled with the
  current's when it has 2 or more processes), never below a side's medians'
  own within-process noise, so identical medians cannot make any difference
  significant and a noisy current process is not trusted as a quiet one;
  Student's t with the pooled degrees of freedom;
- when the two records ran on different physical GPUs, the spread of GPU
  time between GPUs of one model (DEVICE_SPREAD, measured on the H200) is
  added;
- a baseline of fewer than MIN_PROCESSES processes cannot estimate the
  between-process spread: its metrics are not gateable.
A verdict on GPU time must also hold in SM cycles when the records' measured
clocks differ (nvbench's robust compare): a clock change is not a code change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from graphbench.analyze.context import (config_mismatch, device_notes, difference_notes,
                                        host_speed_note, measured_clock, same_hardware,
                                        same_physical_gpu)
from graphbench.analyze.decide import (GATE_LEVEL, MISSING, NOT_GATEABLE, POWER, Change,
                                       INCOMPATIBLE, decide, noise_margin, unjudgeable)
from graphbench.analyze.intervals import lag1_autocorrelation
from graphbench.analyze.metrics import process_values
from graphbench.analyze.specs import FailSpec, check_specs, default_specs
from graphbench.record.model import Comparison, RunRecord, Verdict

HOST_BOUND = ("wall", "submit", "device")  # figures that move with the host CPU's speed
MIN_PROCESSES = 3
# Busy time of the same code on two physical H200s differed by up to 1.3% at
# 2^24 elements (and 0.2-1.2% between five others in committed records):
# a relative sd of 0.75% per GPU, so 1.06% for the difference of two.
DEVICE_SPREAD = 0.0075
RESOLUTION = 1e-4  # relative: no spread below this, whatever the data say
Z_GATE, Z_POWER = 2.5758, 1.6449  # normal quantiles at (1 + GATE_LEVEL) / 2 and POWER
CLOCK_AGREEMENT = 0.01


def t_quantile(probability: float, df: int) -> float:
    from scipy import stats  # the gate's own import: 0.8 s, not paid by a plain run

    return float(stats.t.ppf(probability, df))


def median_noise(values) -> float:
    """The standard error of one process's median from its own rounds: the
    independent-rounds figure (1.2533 sd / sqrt(n)) stretched by the rounds'
    autocorrelation time. A point estimate, not an interval: it is the floor
    under the between-process spread, not a verdict (0 for fewer than 3
    rounds, as a version-1 record's process, which kept only its median)."""
    data = np.asarray(values, dtype=float)
    if data.size < 3:
        return 0.0
    rho = min(max(lag1_autocorrelation(data), 0.0), 0.95)
    return 1.2533 * float(np.std(data, ddof=1)) * math.sqrt((1 + rho) / (1 - rho) / data.size)


def between_processes(base: list[tuple[float, ...]], cur: list[tuple[float, ...]],
                      other_gpu: bool) -> Change:
    """The relative change between process medians, as the module docstring says."""
    if len(base) < MIN_PROCESSES:
        return unjudgeable(f"a baseline of {len(base)} process(es) cannot tell a change from "
                           f"the spread between processes: make it with --processes "
                           f"{MIN_PROCESSES} or more (5 is better)")
    b, c = [float(np.median(v)) for v in base], [float(np.median(v)) for v in cur]
    b_mean, c_mean = float(np.mean(b)), float(np.mean(c))
    if b_mean == 0:
        return unjudgeable("the baseline's median is 0: a relative change cannot be formed")
    squares = (len(b) - 1) * np.var(b, ddof=1) + ((len(c) - 1) * np.var(c, ddof=1)
                                                 if len(c) > 1 else 0.0)
    df = len(b) - 1 + max(0, len(c) - 1)
    between = max(squares / df, (RESOLUTION * b_mean) ** 2)
    # a side's medians scatter at least as much as its own rounds say they do
    own = [float(np.mean([median_noise(v) ** 2 for v in side])) for side in (base, cur)]
    se = math.sqrt(max(between, own[0]) / len(b) + max(between, own[1]) / len(c)) / abs(b_mean)
    # the spread between GPUs is known from earlier measurements, not estimated
    # from these few processes: normal quantiles for it, Student's t for the rest
    gpu = math.sqrt(2) * DEVICE_SPREAD if other_gpu else 0.0
    estimate = c_mean / b_mean - 1
    half = math.hypot(t_quantile(0.5 + GATE_LEVEL / 2, df) * se, Z_GATE * gpu)
    # noise read low must neither make a pair gateable nor stop a change reaching
    # the threshold: both use the spread widened for its own estimate's error
    wide = se * noise_margin(df)
    reach = math.hypot(t_quantile(0.5 + GATE_LEVEL / 2, df) * wide, Z_GATE * gpu)
    detectable = reach + math.hypot(t_quantile(POWER, df) * wide, Z_POWER * gpu)
    return Change(estimate, estimate - half, estimate + half, detectable,
                  scope=f"between {len(b)} baseline and {len(c)} current process(es)"
                  + (", two physical GPUs" if other_gpu else ""),
                  margin=reach / half if half > 0 else 1.0)


@dataclass(frozen=True)
class Pair:
    """What the two records' circumstances say about judging them."""

    same_model: bool   # same device model and driver: times are gated
    other_gpu: bool    # different physical GPUs: their spread joins the noise
    host_note: str     # non-empty when the host ran at another speed


def compare_records(baseline: RunRecord, current: RunRecord,
                    specs: list[FailSpec] | None = None) -> Comparison:
    specs = check_specs(specs) if specs else default_specs(baseline)
    mismatch = config_mismatch(baseline, current)
    context = Pair(same_hardware(baseline, current), not same_physical_gpu(baseline, current),
                   host_speed_note(baseline, current))
    notes = difference_notes(baseline, current) + device_notes(baseline, current)
    if context.host_note:
        notes.append(f"{context.host_note}: host-bound figures are not gateable on this pair")
    if baseline.process_count < MIN_PROCESSES:
        notes.append(f"the baseline has {baseline.process_count} process(es): nothing can be "
                     f"gated between processes; make it with --processes {MIN_PROCESSES} or "
                     "more")
    verdicts = [verdict_for(spec, baseline, current, mismatch, context) for spec in specs]
    return Comparison(tuple(verdicts), tuple(notes), tuple(mismatch))


def point_at(record: RunRecord, size: int | None) -> RunRecord | None:
    if size is None:
        return record
    return next((p for p in record.gate_points if p.config.elements == size), None)


def verdict_for(spec: FailSpec, baseline: RunRecord, current: RunRecord, mismatch: list[str],
                context: Pair) -> Verdict:
    if mismatch:
        return Verdict(spec.name, INCOMPATIBLE, True, spec.text, note="; ".join(mismatch))
    base_point, cur_point = point_at(baseline, spec.size), point_at(current, spec.size)
    base = process_values(base_point, spec.metric) if base_point else []
    cur = process_values(cur_point, spec.metric) if cur_point else []
    if not base or not cur:
        side = "baseline" if not base else "current"
        return Verdict(spec.name, MISSING, spec.gated, spec.text,
                       note=f"not in the {side} record")
    gated = spec.gated and (context.same_model or spec.metric.startswith("speedup"))
    field = spec.metric.split(".")[-1]
    host_bound = spec.metric.startswith("speedup") or field in HOST_BOUND
    if host_bound and context.host_note:
        change = unjudgeable(context.host_note)
    else:
        change = between_processes(base, cur, context.other_gpu and not host_bound)
    verdict = verdict_on(spec, change, base, cur, gated)
    if not context.same_model and spec.gated and not verdict.note:
        verdict = replace(verdict, note="different hardware: shown, not gated")
    if field == "busy" and verdict.verdict != NOT_GATEABLE:
        verdict = cycles_check(spec, verdict, base_point, cur_point, context)
    shared = shared_busy_note(cur_point, spec.metric)
    return replace(verdict, note=shared) if shared and not verdict.note else verdict


def verdict_on(spec: FailSpec, change: Change, base, cur, gated: bool) -> Verdict:
    """The verdict on `change` under `spec` (an absolute threshold is made relative)."""
    b = float(np.median([x for v in base for x in v]))
    c = float(np.median([x for v in cur for x in v]))
    limit = spec.threshold if spec.relative else spec.threshold / abs(b) if b else math.inf
    verdict, note = decide(change, limit, higher_is_better=spec.metric.startswith("speedup"))
    finite = change.valid and math.isfinite(change.low)
    return Verdict(spec.name, verdict, gated, spec.text, b, c,
                   change.estimate if change.valid else (c - b) / b if b else None, None,
                   change.detectable if math.isfinite(change.detectable) else None, note,
                   change.low if finite else None, change.high if finite else None,
                   change.scope)


def cycles_check(spec: FailSpec, verdict: Verdict, base_point: RunRecord,
                 cur_point: RunRecord, context: Pair) -> Verdict:
    """When the measured SM clocks differ, GPU time and GPU cycles must agree."""
    clocks = measured_clock(base_point), measured_clock(cur_point)
    if not all(clocks) or abs(clocks[1] / clocks[0] - 1) <= CLOCK_AGREEMENT:
        return verdict
    metric = spec.metric.replace(".busy", ".cycles")
    base, cur = process_values(base_point, metric), process_values(cur_point, metric)
    in_cycles = verdict_on(replace(spec, metric=metric), between_processes(
        base, cur, context.other_gpu), base, cur, verdict.gated)
    if in_cycles.verdict == verdict.verdict:
        return verdict
    return replace(verdict, verdict=NOT_GATEABLE, note=(
        f"SM clock differs ({clocks[0]:.0f} vs {clocks[1]:.0f} MHz): {verdict.verdict} in time "
        f"but {in_cycles.verdict} in cycles ({in_cycles.change:+.1%})"))


def shared_busy_note(record: RunRecord, metric: str) -> str:
    mode, _, field = metric.partition(".")
    sharing = record.modes_sharing_busy(mode) if field == "busy" else ()
    return f"GPU time of {', '.join(sharing)} (one series)" if len(sharing) > 1 else ""

