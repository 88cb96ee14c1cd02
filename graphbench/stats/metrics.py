"""The gate's metrics: which samples a metric such as `graph.wall` or
`speedup` is judged on, process by process."""

from __future__ import annotations

from dataclasses import replace

from graphbench.stats.host_readings import FLOOR_METRICS, floor_values
from graphbench.stats.summary import speedups
from graphbench.ladder import BASELINE, HEADLINE
from graphbench.record.model import RunRecord


def process_values(record: RunRecord, metric: str) -> list[tuple[float, ...]]:
    """A gate metric's samples in each process of the record (a version-1
    merged record kept only its processes' medians: one value each)."""
    if record.legacy_processes is not None:
        return [(m,) for m in record.legacy_processes.medians.get(metric, ())]
    values = [metric_values(replace(record, runs=(run,)), metric) for run in record.runs]
    return [v for v in values if v]


def metric_values(record: RunRecord, metric: str) -> tuple[float, ...]:
    """The per-round samples a gate metric is judged on ('speedup',
    'speedup.fused', 'graph.wall', 'graph.cycles', ...); empty when the
    record lacks it."""
    if metric.startswith("speedup"):
        other = "fused" if metric == "speedup.fused" else HEADLINE
        walls = {m: record.samples(m, "wall") for m in (BASELINE, other)
                 if m in record.mode_names}
        entry = speedups(walls).get(other)
        return entry.per_round if entry else ()
    if metric in FLOOR_METRICS and len(record.runs) == 1:
        return floor_values(record.runs[0], metric)
    mode, _, field = metric.partition(".")
    return record.samples(mode, field) if mode in record.mode_names else ()
