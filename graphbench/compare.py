"""Two run records -> per-metric verdicts -> a gate decision. Pure: no GPU.

A metric is `slower` only when its change is past the threshold in the bad
direction, statistically significant on the per-round samples (Mann-Whitney
U, or non-overlapping median CIs with few rounds), and larger than the noise
of both records. Improvements never fail the gate.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from statistics import median

import numpy as np

from graphbench.errors import UsageError
from graphbench.stats import median_ci, prediction_noise
from graphbench.stopping import series_noise

FASTER, SAME, SLOWER = "faster", "same", "slower"
AMBIGUOUS, INCOMPATIBLE, MISSING = "ambiguous", "incompatible", "missing"
TIME_FIELDS = ("wall", "submit", "device", "busy")
HOST_BOUND = ("wall", "submit", "device")  # figures that move with the host CPU's speed
CONFIG_KEYS = ("elements", "iters", "flush_l2", "stages", "depth")
ALPHA = 0.05
MIN_RANK_TEST_ROUNDS = 8
HOST_PROBE_TOLERANCE = 0.10
DEFAULT_SPECS = ("speedup:5%",)
DEFAULT_TIME_SPECS = ("{mode}.wall:10%", "{mode}.busy:5%")


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
    if metric.startswith("speedup") and unit == "us" or not metric.startswith("speedup") and unit == "x":
        raise UsageError(f"--fail-on {text!r}: {metric} takes % or "
                         f"{'x' if metric.startswith('speedup') else 'us'}")
    return FailSpec(metric, float(number) / 100 if unit == "%" else float(number), unit == "%")


def check_metric_name(metric: str) -> None:
    if metric in ("speedup", "speedup.fused"):
        return
    mode, _, field = metric.partition(".")
    if not mode or field not in TIME_FIELDS:
        raise UsageError(f"unknown metric {metric!r}",
                         f"use speedup, speedup.fused or MODE.{{{','.join(TIME_FIELDS)}}}")


def lower_is_better(metric: str) -> bool:
    return not metric.startswith("speedup")


def metric_samples(record: dict, metric: str) -> list[float] | None:
    if metric.startswith("speedup"):
        other = "fused" if metric == "speedup.fused" else "graph"
        entry = record.get("speedup", {}).get(other)
        return entry["per_round"] if entry else None
    mode, _, field = metric.partition(".")
    return record.get("modes", {}).get(mode, {}).get("samples", {}).get(f"{field}_us")


@dataclass(frozen=True)
class Verdict:
    metric: str
    verdict: str
    gated: bool
    threshold: str
    baseline: float | None = None
    current: float | None = None
    change: float | None = None       # relative, current vs baseline
    p_value: float | None = None
    noise: float | None = None        # the larger of the two records' noise
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def mann_whitney_p(a, b) -> float:
    """Two-sided Mann-Whitney U p-value, normal approximation with tie and
    continuity corrections (good from about 8 samples a side)."""
    x, y = np.asarray(a, float), np.asarray(b, float)
    n1, n2 = x.size, y.size
    both = np.concatenate([x, y])
    ranks = _average_ranks(both)
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    _, counts = np.unique(both, return_counts=True)
    n = n1 + n2
    tie = (counts ** 3 - counts).sum() / (n * (n - 1))
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie))
    if sigma == 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / sigma
    return float(math.erfc(max(z, 0.0) / math.sqrt(2)))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    order = values.argsort(kind="mergesort")
    ranks = np.empty(values.size)
    ranks[order] = np.arange(1, values.size + 1)
    for value in np.unique(values):  # ties share their average rank
        tied = values == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def significant(base, cur) -> tuple[bool, float | None]:
    if min(len(base), len(cur)) >= MIN_RANK_TEST_ROUNDS:
        p = mann_whitney_p(base, cur)
        return p < ALPHA, p
    (b_low, b_high), (c_low, c_high) = median_ci(base), median_ci(cur)
    return c_low > b_high or c_high < b_low, None


def judge(spec: FailSpec, base: list[float], cur: list[float], gated: bool, note: str = "",
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


def config_mismatch(baseline: dict, current: dict) -> list[str]:
    out = []
    for key in CONFIG_KEYS:
        b, c = baseline["config"].get(key), current["config"].get(key)
        if b != c:
            out.append(f"{key} {b} vs {c}")
    return out


def same_hardware(baseline: dict, current: dict) -> bool:
    keys = ("name", "driver_version")
    return all(baseline["device"].get(k) == current["device"].get(k) for k in keys)


def process_noise(record: dict, metric: str) -> float:
    """How far one more process may land from a merged record's processes."""
    medians = record.get("sampling", {}).get("per_process_medians", {}).get(metric)
    return prediction_noise(medians) if medians else 0.0


def host_probe_median(record: dict) -> float | None:
    probes = [c.get("host_probe_us") for c in record.get("sampling", {}).get("conditions", [])]
    probes = [p for p in probes if p]
    return median(probes) if probes else None


def host_speed_note(baseline: dict, current: dict) -> str:
    """Non-empty when the host CPU ran at a different speed in the two records."""
    b, c = host_probe_median(baseline), host_probe_median(current)
    if b and c and abs(c - b) / b > HOST_PROBE_TOLERANCE:
        return f"host CPU speed differs (probe {b:.0f} vs {c:.0f} us)"
    return ""


def default_specs(baseline: dict, current: dict) -> list[FailSpec]:
    specs = [parse_spec(text) for text in DEFAULT_SPECS]
    modes = [m for m in baseline.get("modes", {}) if m in current.get("modes", {})]
    for mode in modes:
        specs += [parse_spec(text.format(mode=mode)) for text in DEFAULT_TIME_SPECS]
    return specs


@dataclass(frozen=True)
class Comparison:
    verdicts: list[Verdict]
    notes: list[str]
    incompatible: list[str]

    @property
    def regressions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.gated and v.verdict == SLOWER]

    @property
    def passed(self) -> bool:
        return not self.regressions and not self.incompatible

    def to_dict(self) -> dict:
        return {"schema": "graphbench/compare", "schema_version": 1, "passed": self.passed,
                "regressions": [v.metric for v in self.regressions], "notes": self.notes,
                "incompatible": self.incompatible, "metrics": [v.to_dict() for v in self.verdicts]}


def compare_records(baseline: dict, current: dict, specs: list[FailSpec] | None = None) -> Comparison:
    specs = specs or default_specs(baseline, current)
    mismatch = config_mismatch(baseline, current)
    hardware_ok = same_hardware(baseline, current)
    host_note = host_speed_note(baseline, current)
    notes = []
    if not hardware_ok:
        notes.append(f"different device or driver ({baseline['device'].get('name')} "
                     f"{baseline['device'].get('driver_version')} vs {current['device'].get('name')} "
                     f"{current['device'].get('driver_version')}): absolute times are shown, "
                     f"not gated; only the speedups are")
    if host_note:
        notes.append(f"{host_note}: host-bound changes beyond the threshold are ambiguous")
    verdicts = [verdict_for(spec, baseline, current, mismatch, hardware_ok, host_note)
                for spec in specs]
    return Comparison(verdicts, notes, mismatch)


def verdict_for(spec: FailSpec, baseline: dict, current: dict, mismatch: list[str],
                hardware_ok: bool, host_note: str) -> Verdict:
    if mismatch:
        return Verdict(spec.metric, INCOMPATIBLE, True, spec.text, note="; ".join(mismatch))
    base, cur = metric_samples(baseline, spec.metric), metric_samples(current, spec.metric)
    if not base or not cur:
        side = "baseline" if not base else "current"
        return Verdict(spec.metric, MISSING, False, spec.text, note=f"not in the {side} record")
    absolute_time = not spec.metric.startswith("speedup")
    gated = hardware_ok or not absolute_time
    between = max(process_noise(baseline, spec.metric), process_noise(current, spec.metric))
    verdict = judge(spec, base, cur, gated, "" if gated else "different hardware: not gated",
                    between)
    host_bound = spec.metric.startswith("speedup") or spec.metric.split(".")[-1] in HOST_BOUND
    if verdict.verdict in (SLOWER, FASTER) and host_bound and host_note:
        return Verdict(**{**verdict.to_dict(), "verdict": AMBIGUOUS, "note": host_note})
    return verdict
