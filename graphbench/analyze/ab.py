"""A/B: two builds timed side by side in one process (graphbench run --ab).

Their rounds alternate on the same buffers and stream, so host drift hits
both alike, and each metric is judged on paired ratios: candidate round i
over base round i (for busy time, reading i over reading i). That gates
host-bound figures too, which a stored baseline on a shared host cannot.
A change is `slower` when the median ratio is past the threshold and its
confidence interval excludes 1; `not gateable` when the interval is wider
than the threshold.
"""

from __future__ import annotations

from graphbench.analyze.specs import FailSpec, first_mode_per_workload, parse_spec
from graphbench.analyze.stats import median, median_ci, paired_ratios
from graphbench.record.model import Comparison, RunRecord, Verdict

BASE = "@base"
AB_WALL, AB_BUSY = "{mode}.wall:5%", "{mode}.busy:2%"
FASTER, SAME, SLOWER, AMBIGUOUS = "faster", "same", "slower", "ambiguous"
NOT_GATEABLE, MISSING = "not gateable", "missing"


def is_ab(record: RunRecord) -> bool:
    return any(name.endswith(BASE) for name in record.mode_names)


def candidate_modes(record: RunRecord) -> list[str]:
    return [m for m in record.mode_names if not m.endswith(BASE) and m + BASE in record.mode_names]


def default_ab_specs(record: RunRecord) -> list[FailSpec]:
    specs = [parse_spec(AB_WALL.format(mode=mode)) for mode in candidate_modes(record)]
    specs += [parse_spec(AB_BUSY.format(mode=mode)) for mode in first_mode_per_workload(record)
              if mode in candidate_modes(record)]
    return specs


def judge_ratios(spec: FailSpec, ratios: list[float], base_median: float,
                 candidate_median: float) -> Verdict:
    ratio, (low, high) = median(ratios), median_ci(ratios)
    change, half_width = ratio - 1, (high - low) / 2
    if half_width > spec.threshold:
        verdict = NOT_GATEABLE
    elif abs(change) <= spec.threshold:
        verdict = SAME
    elif low > 1:
        verdict = SLOWER
    elif high < 1:
        verdict = FASTER
    else:
        verdict = AMBIGUOUS
    note = f"paired ratio {ratio:.3f} (95% CI {low:.3f}..{high:.3f}, {len(ratios)} pairs)"
    return Verdict(spec.name, verdict, verdict != NOT_GATEABLE, spec.text, base_median,
                   candidate_median, change, None, half_width, note)


def compare_ab(record: RunRecord, specs: list[FailSpec] | None = None) -> Comparison:
    """The candidate build against the base build of one A/B record."""
    verdicts = []
    for spec in specs or default_ab_specs(record):
        mode, _, field = spec.metric.partition(".")
        candidate, base = record.samples(mode, field), record.samples(mode + BASE, field)
        if not spec.relative or not candidate or len(candidate) != len(base):
            verdicts.append(Verdict(spec.name, MISSING, True, spec.text,
                                    note="not paired in this A/B record (relative specs only)"))
            continue
        verdicts.append(judge_ratios(spec, paired_ratios(candidate, base), median(base),
                                     median(candidate)))
    notes = (f"A/B in one process: {record.pipeline.kernel_source} against base "
             f"{record.pipeline.ab_source}, rounds alternating on the same buffers",)
    return Comparison(tuple(verdicts), notes, ())
