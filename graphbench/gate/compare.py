"""Two run records -> per-metric verdicts -> a gate decision. Pure: no GPU.

The unit of a stored-baseline comparison is the process: rounds inside one process are
correlated, and processes of the same code land apart by more than their rounds suggest (host
placement, the GPU's state). Each side's process medians give the change and its standard error
(graphbench.gate.decide turns them into a verdict):
- the change is mean(current medians) / mean(baseline medians) - 1;
- its spread is the baseline's between-process spread (pooled with the current's when it has 2
  or more processes), never below a side's medians' own within-process noise (a robust one: a
  single outlier round does not inflate it), so identical medians cannot make any difference
  significant and a noisy current process is not trusted as a quiet one; Student's t with the
  pooled degrees of freedom;
- known systematic errors are added in quadrature with normal quantiles: when the two records
  ran on different physical GPUs, the spread of GPU time between GPUs of their model
  (graphbench.gate.gpu_spread), and whatever the caller passes as `systematic`;
- a baseline of fewer than MIN_PROCESSES processes cannot estimate the between-process spread,
  and a current process of fewer than MIN_CURRENT_ROUNDS rounds has a median noisier than any
  measure of its own: not gateable.
A verdict on GPU time must also hold in SM cycles when the records' measured clocks differ
(nvbench's robust compare): a clock change is not a code change.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np

from graphbench.gate.context import (config_mismatch, device_notes, difference_notes,
                                     measured_clock, same_hardware, same_physical_gpu)
from graphbench.gate.gpu_spread import UNMEASURED, Spread, spread_of
from graphbench.gate.host_match import host_mismatch, in_current_state, is_host_bound
from graphbench.gate.decide import (BOUND_LEVEL, FASTER, GATE_LEVEL, INCOMPATIBLE, MISSING,
                                    NOT_GATEABLE, POWER, RESOLUTION, SAME, TOO_FEW,
                                    WORSE_AS_MEASURED, Z_BOUND, Z_POWER, Change, decide,
                                    noise_margin, one_sided_widths, unjudgeable)
from graphbench.stats.intervals import lag1_autocorrelation, reading_quantum, robust_scale
from graphbench.stats.metrics import process_values
from graphbench.gate.specs import FailSpec, check_specs, default_specs
from graphbench.limits import MIN_PROCESSES
from graphbench.record.model import Comparison, RunRecord, Verdict

# A median of 1 or 2 rounds scatters by the rounds' own spread, which no
# figure of that process can measure: identical code read from 1-2 round
# currents was judged slower 5.3% of the time in simulation.
MIN_CURRENT_ROUNDS = 3
Z_GATE = 2.5758  # the normal quantile at (1 + GATE_LEVEL) / 2
CLOCK_AGREEMENT = 0.01
MAX_PROCESSES = 64  # the most processes a note suggests


@functools.lru_cache(maxsize=4096)
def t_quantile(probability: float, df: int) -> float:
    from scipy import stats  # the gate's own import: 0.8 s, not paid by a plain run

    return float(stats.t.ppf(probability, df))


def median_noise(values) -> float:
    """The standard error of one process's median from its own rounds: the
    independent-rounds figure (1.2533 sd / sqrt(n)) stretched by the rounds'
    autocorrelation time, the sd read robustly (from the median absolute
    deviation: with the sd, one 3x outlier in 100 rounds made 43-46% of pairs
    not gateable) and the autocorrelation from rounds clipped to 4 such sds.
    Never below the readings' tick / sqrt(12): a median of readings on a
    timer's grid is itself on the grid, off by up to half a tick. A point
    estimate, not an interval: it is the floor under the between-process
    spread, not a verdict (0 for fewer than 3 rounds, as a version-1 record's
    process, which kept only its median)."""
    data = np.asarray(values, dtype=float)
    if data.size < 3:
        return 0.0
    scale, middle = robust_scale(data), float(np.median(data))
    clipped = np.clip(data, middle - 4 * scale, middle + 4 * scale)
    rho = min(max(lag1_autocorrelation(clipped), 0.0), 0.95)
    noise = 1.2533 * scale * math.sqrt((1 + rho) / (1 - rho) / data.size)
    return max(noise, reading_quantum(data) / math.sqrt(12))


def between_processes(base: list[tuple[float, ...]], cur: list[tuple[float, ...]],
                      other_gpu: bool, systematic: float = 0.0,
                      medians_only: bool = False, gpu_spread: float = UNMEASURED.busy) -> Change:
    """The relative change between process medians, as the module docstring says.
    systematic: the relative sd of a known systematic error of this pair, added in
    quadrature with normal quantiles as gpu_spread (per GPU) is when other_gpu.
    medians_only: each current value is already a process's median (a
    version-1 record), so the rounds' count says nothing."""
    if len(base) < MIN_PROCESSES:
        return unjudgeable(f"{TOO_FEW}: {len(base)} process(es) cannot tell "
                           f"a change from the spread between processes; make it with "
                           f"--processes {MIN_PROCESSES} or more (5 is better)")
    b, c = [float(np.median(v)) for v in base], [float(np.median(v)) for v in cur]
    b_mean, c_mean = float(np.mean(b)), float(np.mean(c))
    rounds = min(len(v) for v in cur)
    if rounds < MIN_CURRENT_ROUNDS and not medians_only:
        return unjudgeable(f"a current process of {rounds} round(s): its median scatters by "
                           f"more than it can show; run {MIN_CURRENT_ROUNDS} or more rounds",
                           c_mean / b_mean - 1 if b_mean else math.nan)
    if b_mean == 0:
        return unjudgeable("the baseline's median is 0: a relative change cannot be formed")
    squares = (len(b) - 1) * np.var(b, ddof=1) + ((len(c) - 1) * np.var(c, ddof=1)
                                                 if len(c) > 1 else 0.0)
    df = len(b) - 1 + max(0, len(c) - 1)
    between = max(squares / df, (RESOLUTION * b_mean) ** 2)
    # a side's medians scatter at least as much as its own rounds say they do
    own = [float(np.mean([median_noise(v) ** 2 for v in side])) for side in (base, cur)]
    per_process = (max(between, own[0]) / b_mean ** 2, max(between, own[1]) / b_mean ** 2)
    se = math.sqrt(per_process[0] / len(b) + per_process[1] / len(c))
    # the spread between GPUs is known from earlier measurements, not estimated
    # from these few processes: normal quantiles for it, Student's t for the rest
    known = math.hypot(math.sqrt(2) * gpu_spread if other_gpu else 0.0, systematic)
    estimate = c_mean / b_mean - 1
    half = math.hypot(t_quantile(0.5 + GATE_LEVEL / 2, df) * se, Z_GATE * known)
    widths = _widths(se, df, known)
    scope = f"between {len(b)} baseline and {len(c)} current process(es)"
    return Change(estimate, estimate - half, estimate + half, 2 * sum(widths),
                  scope=scope + (", two physical GPUs" if other_gpu else ""), bound=widths[0],
                  floor=RESOLUTION, advice=_more_processes(per_process, len(b), len(c), known,
                                                           other_gpu))


def _widths(se: float, df: int, known: float) -> tuple[float, float]:
    """The contract's one-sided widths: the estimated part widened for its own
    error, Student's t for it, normal quantiles for the known part."""
    return one_sided_widths(se * noise_margin(df), t_quantile(BOUND_LEVEL, df),
                            t_quantile(POWER, df), known)


def _more_processes(per_process: tuple[float, float], n_base: int, n_cur: int, known: float,
                    other_gpu: bool):
    """The note's advice: how many processes would make the metric gateable
    at a threshold, each side's variance falling as 1/processes."""
    def detects(nb: int, nc: int) -> float:
        se = math.sqrt(per_process[0] / nb + per_process[1] / nc)
        return 2 * sum(_widths(se, nb - 1 + nc - 1, known))

    def advice(threshold: float) -> str:
        floor = 2 * (Z_BOUND + Z_POWER) * known
        if floor >= threshold:
            what = "the spread between two physical GPUs" if other_gpu else "its known " \
                "systematic error"
            return (f"no number of processes can make it gateable: {what} alone detects "
                    f"{floor:.1%}" + (" (compare on the baseline's GPU)" if other_gpu else ""))
        for nb in range(n_base + 1, MAX_PROCESSES + 1):
            if detects(nb, n_cur) <= threshold:
                return f"a baseline of {nb} processes (--processes {nb}) would make it gateable"
        for nc in range(n_cur + 1, MAX_PROCESSES + 1):
            nb = max(n_base, nc)
            if detects(nb, nc) <= threshold:
                return (f"a current of {nc} processes against a baseline of {nb} "
                        f"(--processes) would make it gateable")
        return f"not even {MAX_PROCESSES} processes on each side would make it gateable"
    return advice


@dataclass(frozen=True)
class Pair:
    """What the two records' circumstances say about judging them."""

    same_model: bool   # same device model and driver: times are gated
    other_gpu: bool    # different physical GPUs: their spread joins the noise
    spread: Spread     # that spread, for the baseline's model


def compare_records(baseline: RunRecord, current: RunRecord,
                    specs: list[FailSpec] | None = None) -> Comparison:
    specs = check_specs(specs) if specs else default_specs(baseline)
    mismatch = config_mismatch(baseline, current)
    context = Pair(same_hardware(baseline, current), not same_physical_gpu(baseline, current),
                   spread_of(baseline.device.name))
    notes = difference_notes(baseline, current) + device_notes(baseline, current)
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
    medians_only = cur_point.legacy_processes is not None
    if is_host_bound(spec.metric):
        verdict = host_bound_verdict(spec, base_point, cur_point, base, cur, gated)
    elif field == "busy" and context.other_gpu and _relative(base_point, cur_point, spec.metric):
        verdict = relative_verdict(spec, base_point, cur_point, base, cur, gated,
                                   context.spread.reference)
    else:
        verdict = verdict_on(spec, between_processes(base, cur, context.other_gpu,
                                                     medians_only=medians_only,
                                                     gpu_spread=context.spread.busy),
                             base, cur, gated)
    if not context.same_model and spec.gated:
        verdict = with_note(verdict, "different hardware: shown, not gated")
    if field == "busy" and verdict.verdict != NOT_GATEABLE:
        verdict = cycles_check(spec, verdict, base_point, cur_point, context)
    return with_note(verdict, shared_busy_note(cur_point, spec.metric))


def host_bound_verdict(spec: FailSpec, base_point: RunRecord, cur_point: RunRecord, base, cur,
                       gated: bool) -> Verdict:
    """Like with like, as measured (graphbench.gate.host_match): against the
    baseline's processes in the current's CPU speed state where 3 or more
    are, else against the whole baseline where it ran like with like."""
    limit = relative_limit(spec, base)
    in_state = in_current_state(base_point, cur_point, limit)
    kept = process_values(in_state, spec.metric) if in_state is not base_point else []
    note = (f"against the baseline's {len(in_state.runs)} of {len(base_point.runs)} processes "
            "in the current's CPU speed state") if kept else ""
    base = kept or base
    reason = host_mismatch(in_state, cur_point, limit)
    change = unjudgeable(reason) if reason else between_processes(
        base, cur, False, medians_only=cur_point.legacy_processes is not None)
    return with_note(verdict_on(spec, change, base, cur, gated), note)


def with_note(verdict: Verdict, note: str) -> Verdict:
    """The verdict with `note` after its own (a host-bound figure's note on
    how it was judged stays beside the verdict's note on why it reads so)."""
    if not note or note in verdict.note:
        return verdict
    return replace(verdict, note=f"{verdict.note}; {note}" if verdict.note else note)


def _relative(base_point: RunRecord, cur_point: RunRecord, metric: str) -> bool:
    """Both records read the GPU reference beside this busy series."""
    relative = metric.replace(".busy", ".relbusy")
    sides = [process_values(point, relative) for point in (base_point, cur_point)]
    return all(side and all(len(values) >= MIN_CURRENT_ROUNDS for values in side)
               for side in sides)


def relative_verdict(spec: FailSpec, base_point: RunRecord, cur_point: RunRecord, base, cur,
                     gated: bool, spread: float) -> Verdict:
    """Busy time between two physical GPUs, judged over each set's reading of
    the GPU reference (graphbench.measure.reference): the reference moves
    with the GPU, not with the code, so what remains of the spread between
    GPUs is `spread`, that of busy over the reference (Spread.reference), not
    of busy itself. The verdict shows the busy times themselves."""
    metric = spec.metric.replace(".busy", ".relbusy")
    rb, rc = process_values(base_point, metric), process_values(cur_point, metric)
    change = between_processes(rb, rc, False, systematic=math.sqrt(2) * spread,
                               medians_only=cur_point.legacy_processes is not None)
    verdict = verdict_on(replace(spec, metric=metric), change, rb, rc, gated)
    b = float(np.median([x for v in base for x in v]))
    c = float(np.median([x for v in cur for x in v]))
    return with_note(replace(verdict, metric=spec.name, baseline=b, current=c), (
        "two physical GPUs: judged over the GPU reference (busy / stream copy, "
        f"{float(np.median([x for v in rb for x in v])):.4f} vs "
        f"{float(np.median([x for v in rc for x in v])):.4f})"))


def verdict_on(spec: FailSpec, change: Change, base, cur, gated: bool) -> Verdict:
    """The verdict on `change` under `spec` (an absolute threshold is made relative)."""
    b = float(np.median([x for v in base for x in v]))
    c = float(np.median([x for v in cur for x in v]))
    limit = relative_limit(spec, base)
    higher_is_better = spec.metric.startswith("speedup")
    verdict, note = decide(change, limit, higher_is_better=higher_is_better)
    if change.valid:  # a pair not like with like keeps its reason (host_match)
        verdict, note = raw_check(verdict, note, b, c, limit, higher_is_better)
    finite = change.valid and math.isfinite(change.low)
    return Verdict(spec.name, verdict, gated, spec.text, b, c,
                   change.estimate if change.valid else (c - b) / b if b else None, None,
                   change.detectable if math.isfinite(change.detectable) else None, note,
                   change.low if finite else None, change.high if finite else None,
                   change.scope, change.floor if finite else None)


def relative_limit(spec: FailSpec, base) -> float:
    """The spec's threshold as a fraction of the baseline (an absolute one in
    us over the median of the baseline's rounds)."""
    if spec.relative:
        return spec.threshold
    b = float(np.median([x for v in base for x in v])) if base else 0.0
    return spec.threshold / abs(b) if b else math.inf


def raw_check(verdict: str, note: str, base: float, current: float, limit: float,
              higher_is_better: bool) -> tuple[str, str]:
    """Fail closed both ways: where the figures themselves (the medians of
    every round) differ by more than the threshold in the worse direction,
    the verdict is never `same` or `faster`, whatever the model of the
    noise says; and a like-with-like pair too noisy to judge such a change
    is marked WORSE_AS_MEASURED, which the gate does not pass
    (graphbench.gate.judge.check_decidable)."""
    if verdict not in (SAME, FASTER, NOT_GATEABLE) or not base:
        return verdict, note
    worse = (current / base - 1) * (-1 if higher_is_better else 1)
    if worse <= limit:
        return verdict, note
    why = note if verdict == NOT_GATEABLE else f"the processes read {verdict}"
    return NOT_GATEABLE, (f"{WORSE_AS_MEASURED}: the medians differ by {worse:+.1%}, beyond "
                          f"the threshold {limit:.1%}, and the pair cannot judge it ({why})")


def cycles_check(spec: FailSpec, verdict: Verdict, base_point: RunRecord,
                 cur_point: RunRecord, context: Pair) -> Verdict:
    """When the measured SM clocks differ, GPU time and GPU cycles must agree."""
    clocks = measured_clock(base_point), measured_clock(cur_point)
    if not all(clocks) or abs(clocks[1] / clocks[0] - 1) <= CLOCK_AGREEMENT:
        return verdict
    metric = spec.metric.replace(".busy", ".cycles")
    base, cur = process_values(base_point, metric), process_values(cur_point, metric)
    in_cycles = verdict_on(replace(spec, metric=metric), between_processes(
        base, cur, context.other_gpu, medians_only=cur_point.legacy_processes is not None,
        gpu_spread=context.spread.busy), base, cur, verdict.gated)
    if in_cycles.verdict == verdict.verdict:
        return verdict
    return with_note(replace(verdict, verdict=NOT_GATEABLE, note=(
        f"SM clock differs ({clocks[0]:.0f} vs {clocks[1]:.0f} MHz): {verdict.verdict} in time "
        f"but {in_cycles.verdict} in cycles ({in_cycles.change:+.1%})")), verdict.note)


def shared_busy_note(record: RunRecord, metric: str) -> str:
    mode, _, field = metric.partition(".")
    sharing = record.modes_sharing_busy(mode) if field == "busy" else ()
    return f"GPU time of {', '.join(sharing)} (one series)" if len(sharing) > 1 else ""

