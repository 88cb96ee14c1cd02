"""Two run records -> per-metric verdicts -> a gate decision. Pure: no GPU.

It fails closed: a gated metric that one record lacks cannot be judged, and
the CLI turns that into an error, never a pass. A metric is `slower` only
when its change is past the threshold in the bad direction, significant, and
the pair can detect a change of that size at all:
- with a baseline of 3 or more processes the unit is the process: each
  process's median, and the test asks whether the current one lies outside
  where a new process of the baseline's code would land (a t prediction
  interval; Welch's t-test when both sides have 3 or more processes);
  rounds inside one process are correlated, and a rank test on them gave
  p = 1e-16 for identical code in two processes;
- with a one-process baseline, Mann-Whitney U on the rounds, or
  non-overlapping median CIs with few rounds.
A metric whose smallest detectable change exceeds its threshold is reported
"not gateable on this pair" instead of a quiet ambiguous.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from graphbench.analyze.context import (config_mismatch, difference_notes, host_speed_note,
                                        same_hardware)
from graphbench.analyze.metrics import metric_values, process_medians
from graphbench.analyze.specs import FailSpec, default_specs
from graphbench.analyze.stats import (mann_whitney_p, median, median_ci, prediction_noise,
                                      series_noise)
from graphbench.record.model import Comparison, RunRecord, Verdict

FASTER, SAME, SLOWER = "faster", "same", "slower"
AMBIGUOUS, INCOMPATIBLE, MISSING = "ambiguous", "incompatible", "missing"
NOT_GATEABLE = "not gateable"
HOST_BOUND = ("wall", "submit", "device")  # figures that move with the host CPU's speed
ALPHA = 0.05
MIN_RANK_TEST_ROUNDS = 8
MIN_PROCESSES = 3


def between_process_p(base_medians: list[float], cur_medians: list[float]) -> float:
    from scipy import stats

    if len(cur_medians) >= MIN_PROCESSES:
        return float(stats.ttest_ind(base_medians, cur_medians, equal_var=False).pvalue)
    data = np.asarray(base_medians, float)
    spread = float(data.std(ddof=1)) * math.sqrt(1 + 1 / data.size)
    if spread == 0:
        return 1.0 if median(cur_medians) == data.mean() else 0.0
    t = (median(cur_medians) - data.mean()) / spread
    return float(2 * stats.t.sf(abs(t), data.size - 1))


def significant(base, cur, base_medians=(), cur_medians=()) -> tuple[bool, float | None]:
    if len(base_medians) >= MIN_PROCESSES and cur_medians:
        p = between_process_p(list(base_medians), list(cur_medians))
        return p < ALPHA, p
    if min(len(base), len(cur)) >= MIN_RANK_TEST_ROUNDS:
        p = mann_whitney_p(base, cur)
        return p < ALPHA, p
    (b_low, b_high), (c_low, c_high) = median_ci(base), median_ci(cur)
    return c_low > b_high or c_high < b_low, None


def detectable_change(base, cur, base_medians=()) -> float:
    """The smallest relative change this pair can tell from noise."""
    if len(base_medians) >= MIN_PROCESSES:
        return prediction_noise(base_medians)
    return max(series_noise(base), series_noise(cur))


def judge(spec: FailSpec, base, cur, gated: bool = True, note: str = "", base_medians=(),
          cur_medians=()) -> Verdict:
    b, c = median(base), median(cur)
    change = (c - b) / b
    delta = abs(change) if spec.relative else abs(c - b)
    detectable = detectable_change(base, cur, base_medians)
    limit = spec.threshold if spec.relative else spec.threshold / abs(b)
    is_significant, p = significant(base, cur, base_medians, cur_medians)
    worse = change > 0 if not spec.metric.startswith("speedup") else change < 0
    if detectable > limit:
        verdict, gated = NOT_GATEABLE, False
        note = note or f"not gateable on this pair: smallest detectable change {detectable:.1%}"
    elif delta <= spec.threshold:
        verdict = SAME
    elif is_significant:
        verdict = SLOWER if worse else FASTER
    else:
        verdict = AMBIGUOUS
        note = note or (f"p={p:.2g}: not significant" if p is not None else "CIs overlap")
    return Verdict(spec.name, verdict, gated, spec.text, b, c, change, p, detectable, note)


def point_at(record: RunRecord, size: int | None) -> RunRecord | None:
    if size is None:
        return record
    return next((p for p in record.gate_points if p.config.elements == size), None)


def compare_records(baseline: RunRecord, current: RunRecord,
                    specs: list[FailSpec] | None = None) -> Comparison:
    specs = specs or default_specs(baseline)
    mismatch = config_mismatch(baseline, current)
    hardware_ok = same_hardware(baseline, current)
    host_note = host_speed_note(baseline, current)
    notes = difference_notes(baseline, current)
    if not hardware_ok:
        b, c = baseline.device, current.device
        notes.append(f"different device or driver ({b.name} {b.driver_version} vs {c.name} "
                     f"{c.driver_version}): absolute times are shown, not gated")
    if host_note:
        notes.append(f"{host_note}: host-bound changes beyond the threshold are ambiguous")
    if baseline.process_count < MIN_PROCESSES:
        notes.append("one-process baseline: its rounds are correlated, so significance is "
                     f"optimistic; make baselines with --processes {MIN_PROCESSES} or more")
    verdicts = [verdict_for(spec, baseline, current, mismatch, hardware_ok, host_note)
                for spec in specs]
    return Comparison(tuple(verdicts), tuple(notes), tuple(mismatch))


def verdict_for(spec: FailSpec, baseline: RunRecord, current: RunRecord, mismatch: list[str],
                hardware_ok: bool, host_note: str) -> Verdict:
    if mismatch:
        return Verdict(spec.name, INCOMPATIBLE, True, spec.text, note="; ".join(mismatch))
    base_point, cur_point = point_at(baseline, spec.size), point_at(current, spec.size)
    base = metric_values(base_point, spec.metric) if base_point else ()
    cur = metric_values(cur_point, spec.metric) if cur_point else ()
    if not base or not cur:
        side = "baseline" if not base else "current"
        return Verdict(spec.name, MISSING, spec.gated, spec.text,
                       note=f"not in the {side} record")
    gated = spec.gated and (hardware_ok or spec.metric.startswith("speedup"))
    note = "" if hardware_ok or not spec.gated else "different hardware: not gated"
    verdict = judge(spec, base, cur, gated, note, process_medians(base_point, spec.metric),
                    process_medians(cur_point, spec.metric))
    host_bound = spec.metric.startswith("speedup") or spec.metric.split(".")[-1] in HOST_BOUND
    if verdict.verdict in (SLOWER, FASTER) and host_bound and host_note:
        return replace(verdict, verdict=AMBIGUOUS, note=host_note)
    shared = shared_busy_note(cur_point, spec.metric)
    return replace(verdict, note=shared) if shared and not verdict.note else verdict


def shared_busy_note(record: RunRecord, metric: str) -> str:
    mode, _, field = metric.partition(".")
    sharing = record.modes_sharing_busy(mode) if field == "busy" else ()
    return f"GPU time of {', '.join(sharing)} (one series)" if len(sharing) > 1 else ""
