"""Derived figures of a sweep: each point's speedup and where it fades."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.analyze.derived import Crossover, crossover, working_set_bytes
from graphbench.analyze.summary import summarize_run
from graphbench.measure.stages import expand
from graphbench.record.model import RunRecord, SweepRecord


@dataclass(frozen=True)
class CrossoverRow:
    depth: int
    crossover: Crossover
    fits_in_l2: bool | None


def point_speedup(point: RunRecord) -> float | None:
    entry = summarize_run(point).speedup.get("graph")
    return entry.stats.median if entry else None


def crossover_table(sweep: SweepRecord) -> list[CrossoverRow]:
    """Per depth: where the graph speedup falls below the threshold, and
    whether a working set of that size still fits in L2."""
    l2 = sweep.device.l2_bytes if sweep.device else None
    speedups = {id(p): point_speedup(p) for p in sweep.points}
    rows = []
    for depth in sweep.config.depths:
        series = [(p.config.elements, speedups[id(p)]) for p in sweep.points
                  if p.config.depth == depth and speedups[id(p)] is not None]
        if not series:
            continue
        found = crossover(series, sweep.config.threshold)
        fits = None if found.elements is None or l2 is None else \
            working_set_bytes(int(found.elements), expand(sweep.config.base.stages, depth)) <= l2
        rows.append(CrossoverRow(depth, found, fits))
    return rows
