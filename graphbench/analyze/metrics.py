"""The gate's metrics: which samples a metric such as `graph.wall` or
`speedup` is judged on, and how they spread between processes."""

from __future__ import annotations

from dataclasses import replace

from graphbench.analyze.stats import median
from graphbench.analyze.summary import speedups
from graphbench.record.model import RunRecord


def process_medians(record: RunRecord, metric: str) -> list[float]:
    """A gate metric's median in each process of the record (one value for a
    one-process record): how far processes of the same code land apart."""
    if record.legacy_processes is not None:
        return list(record.legacy_processes.medians.get(metric, ()))
    values = [metric_values(replace(record, runs=(run,)), metric)
              for run in record.runs]
    return [median(v) for v in values if v]


def metric_values(record: RunRecord, metric: str) -> tuple[float, ...]:
    """The per-round samples a gate metric is judged on ('speedup',
    'speedup.fused', 'graph.wall', ...); empty when the record lacks it."""
    if metric.startswith("speedup"):
        other = "fused" if metric == "speedup.fused" else "graph"
        walls = {m: record.samples(m, "wall") for m in ("individual", other)
                 if m in record.mode_names}
        entry = speedups(walls).get(other)
        return entry.per_round if entry else ()
    mode, _, field = metric.partition(".")
    return record.samples(mode, field) if mode in record.mode_names else ()
