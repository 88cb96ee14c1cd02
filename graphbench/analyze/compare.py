"""Two run records -> per-metric verdicts -> a gate decision. Pure: no GPU.

A metric is `slower` only when its change is past the threshold in the bad
direction, statistically significant on the per-round samples (Mann-Whitney
U, or non-overlapping median CIs with few rounds), and larger than the noise
of both records. Improvements never fail the gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from graphbench.analyze.stats import (mann_whitney_p, median, median_ci, prediction_noise,
                                      series_noise)
from graphbench.analyze.metrics import metric_values, process_medians
from graphbench.errors import UsageError
from graphbench.record.model import TIME_METRICS, Comparison, RunRecord, Verdict

FASTER, SAME, SLOWER = "faster", "same", "slower"
AMBIGUOUS, INCOMPATIBLE, MISSING = "ambiguous", "incompatible", "missing"
HOST_BOUND = ("wall", "submit", "device")  # figures that move with the host CPU's speed
CONFIG_KEYS = ("elements", "iters", "flush_l2", "stages", "depth")
ALPHA = 0.05
MIN_RANK_TEST_ROUNDS = 8
HOST_PROBE_TOLERANCE = 0.10
DEFAULT_SPECS = ("speedup:5%",)
DEFAULT_WALL_SPEC, DEFAULT_BUSY_SPEC = "{mode}.wall:10%", "{mode}.busy:5%"


@dataclass(frozen=True)
class FailSpec:
    metric: str
    threshold: float
    relative: bool

    @property
    def text(self) -> str:
        unit = "x" if self.metric.startswith("speedup") else "us"
        return f"{self.threshold:.0%}" if self.relative else f"{self.threshold:g}{unit}"


_SPEC = re.compile(r"^([a-z_.]+):(\d+(?:\.\d+)?)(%|us|x)$")


def parse_spec(text: str) -> FailSpec:
    match = _SPEC.match(text.strip())
    if not match:
        raise UsageError(f"--fail-on {text!r} is not METRIC:THRESHOLD",
                         "e.g. speedup:5%, graph.wall:10%, individual.wall:0.5us")
    metric, number, unit = match.groups()
    check_metric_name(metric)
    speedup = metric.startswith("speedup")
    if (speedup and unit == "us") or (not speedup and unit == "x"):
        raise UsageError(f"--fail-on {text!r}: {metric} takes % or {'x' if speedup else 'us'}")
    return FailSpec(metric, float(number) / 100 if unit == "%" else float(number), unit == "%")


def check_metric_name(metric: str) -> None:
    if metric in ("speedup", "speedup.fused"):
        return
    mode, _, field = metric.partition(".")
    if not mode or field not in TIME_METRICS:
        raise UsageError(f"unknown metric {metric!r}",
                         f"use speedup, speedup.fused or MODE.{{{','.join(TIME_METRICS)}}}")


def lower_is_better(metric: str) -> bool:
    return not metric.startswith("speedup")


def significant(base, cur) -> tuple[bool, float | None]:
    if min(len(base), len(cur)) >= MIN_RANK_TEST_ROUNDS:
        p = mann_whitney_p(base, cur)
        return p < ALPHA, p
    (b_low, b_high), (c_low, c_high) = median_ci(base), median_ci(cur)
    return c_low > b_high or c_high < b_low, None


def judge(spec: FailSpec, base, cur, gated: bool, note: str = "",
          between_processes: float = 0.0) -> Verdict:
    """`between_processes`: the noise a new process adds beyond a record's
    own, known when a record merges several processes (0 otherwise)."""
    b, c = median(base), median(cur)
    change = (c - b) / b
    delta = abs(change) if spec.relative else abs(c - b)
    noise = max(series_noise(base), series_noise(cur), between_processes)
    is_significant, p = significant(base, cur)
    worse = change > 0 if lower_is_better(spec.metric) else change < 0
    if delta <= spec.threshold:
        verdict = SAME
    elif is_significant and abs(change) > noise:
        verdict = SLOWER if worse else FASTER
    else:
        verdict = AMBIGUOUS
        note = note or (f"p={p:.2g}: not significant" if p is not None and not is_significant
                        else f"within noise {noise:.1%}")
    return Verdict(spec.metric, verdict, gated, spec.text, b, c, change, p, noise, note)


def config_mismatch(baseline: RunRecord, current: RunRecord) -> list[str]:
    out = []
    for key in CONFIG_KEYS:
        b, c = getattr(baseline.config, key), getattr(current.config, key)
        if b != c:
            shown = (",".join(b), ",".join(c)) if isinstance(b, tuple) else (b, c)
            out.append(f"{key} {shown[0]} vs {shown[1]}")
    return out


def same_hardware(baseline: RunRecord, current: RunRecord) -> bool:
    return (baseline.device.name, baseline.device.driver_version) == \
        (current.device.name, current.device.driver_version)


def process_noise(record: RunRecord, metric: str) -> float:
    """How far one more process may land from a merged record's processes."""
    return prediction_noise(process_medians(record, metric)) if record.process_count > 1 else 0.0


def host_probe_median(record: RunRecord) -> float | None:
    probes = [c.host_probe_us for c in record.conditions if c.host_probe_us]
    return median(probes) if probes else None


def host_speed_note(baseline: RunRecord, current: RunRecord) -> str:
    """Non-empty when the host CPU ran at a different speed in the two records."""
    b, c = host_probe_median(baseline), host_probe_median(current)
    if b and c and abs(c - b) / b > HOST_PROBE_TOLERANCE:
        return f"host CPU speed differs (probe {b:.0f} vs {c:.0f} us)"
    return ""


def default_specs(baseline: RunRecord, current: RunRecord) -> list[FailSpec]:
    """Wall time per mode, and busy time once per GPU workload: individual
    and graph modes share one busy series, so a slower kernel is one
    regression, not two."""
    specs, gated_workloads = [parse_spec(text) for text in DEFAULT_SPECS], set()
    for mode in (m for m in baseline.mode_names if m in current.mode_names):
        specs.append(parse_spec(DEFAULT_WALL_SPEC.format(mode=mode)))
        if current.workload(mode) not in gated_workloads:
            gated_workloads.add(current.workload(mode))
            specs.append(parse_spec(DEFAULT_BUSY_SPEC.format(mode=mode)))
    return specs


def shared_busy_note(record: RunRecord, metric: str) -> str:
    mode, _, field = metric.partition(".")
    sharing = record.modes_sharing_busy(mode) if field == "busy" else ()
    return f"GPU time of {', '.join(sharing)} (one series)" if len(sharing) > 1 else ""


def compare_records(baseline: RunRecord, current: RunRecord,
                    specs: list[FailSpec] | None = None) -> Comparison:
    specs = specs or default_specs(baseline, current)
    mismatch = config_mismatch(baseline, current)
    hardware_ok = same_hardware(baseline, current)
    host_note = host_speed_note(baseline, current)
    notes = []
    if not hardware_ok:
        b, c = baseline.device, current.device
        notes.append(f"different device or driver ({b.name} {b.driver_version} vs {c.name} "
                     f"{c.driver_version}): absolute times are shown, not gated; only the "
                     "speedups are")
    if host_note:
        notes.append(f"{host_note}: host-bound changes beyond the threshold are ambiguous")
    verdicts = [verdict_for(spec, baseline, current, mismatch, hardware_ok, host_note)
                for spec in specs]
    return Comparison(tuple(verdicts), tuple(notes), tuple(mismatch))


def verdict_for(spec: FailSpec, baseline: RunRecord, current: RunRecord, mismatch: list[str],
                hardware_ok: bool, host_note: str) -> Verdict:
    if mismatch:
        return Verdict(spec.metric, INCOMPATIBLE, True, spec.text, note="; ".join(mismatch))
    base, cur = metric_values(baseline, spec.metric), metric_values(current, spec.metric)
    if not base or not cur:
        side = "baseline" if not base else "current"
        return Verdict(spec.metric, MISSING, False, spec.text, note=f"not in the {side} record")
    gated = hardware_ok or spec.metric.startswith("speedup")
    between = max(process_noise(baseline, spec.metric), process_noise(current, spec.metric))
    verdict = judge(spec, base, cur, gated, "" if gated else "different hardware: not gated",
                    between)
    shared = shared_busy_note(current, spec.metric)
    if shared and not verdict.note:
        verdict = replace(verdict, note=shared)
    host_bound = spec.metric.startswith("speedup") or spec.metric.split(".")[-1] in HOST_BOUND
    if verdict.verdict in (SLOWER, FASTER) and host_bound and host_note:
        return replace(verdict, verdict=AMBIGUOUS, note=host_note)
    return verdict
