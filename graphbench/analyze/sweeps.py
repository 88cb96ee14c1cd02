"""Derived figures of a sweep: each point's speedup and where it fades."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.analyze.derived import Crossover, crossover
from graphbench.analyze.summary import summarize_run, working_set
from graphbench.ladder import ladder_order
from graphbench.record.model import RunRecord, SweepRecord


Shape = tuple[str, "int | None"]  # (grid, block) as RunConfig holds them


@dataclass(frozen=True)
class CrossoverRow:
    depth: int
    mode: str
    crossover: Crossover
    fits_in_l2: bool | None
    shape: Shape = ("auto", None)


def several_shapes(sweep: SweepRecord) -> bool:
    """A sweep over launch shapes: its reports name each point's shape (a
    sweep of one shape, every sweep before --grid/--block, reads as before)."""
    return len(sweep.config.shapes) > 1


def short_shape(shape: Shape) -> str:
    """'1056x256' (grid x block), short enough for a chart's legend."""
    from graphbench.launch_shape import DEFAULT_BLOCK

    return f"{shape[0]}x{shape[1] or DEFAULT_BLOCK[0]}"


def points_at(sweep: SweepRecord, depth: int, shape: Shape) -> list[RunRecord]:
    """The points of one depth and launch shape, in the order they ran."""
    return [p for p in sweep.points if p.config.depth == depth
            and (p.config.grid, p.config.block) == shape]


def point_speedups(point: RunRecord) -> dict[str, float]:
    """Each rung's median speedup over individual launches at one point."""
    return {mode: entry.stats.median for mode, entry in summarize_run(point).speedup.items()}


def bytes_per_element(point: RunRecord) -> float:
    """The pipeline's working set per element (it grows linearly with n)."""
    return working_set(point) / point.config.elements


def crossover_table(sweep: SweepRecord) -> list[CrossoverRow]:
    """Per launch shape, depth and rung: where the rung's speedup over individual launches
    falls below the threshold, and whether a working set of that size still
    fits in L2."""
    l2 = sweep.device.l2_bytes if sweep.device else None
    speedups = {id(p): point_speedups(p) for p in sweep.points}
    rows = []
    for shape in sweep.config.shapes:
        for depth in sweep.config.depths:
            at_depth = points_at(sweep, depth, shape)
            for mode in ladder_order({m for p in at_depth for m in speedups[id(p)]}):
                series = [(p.config.elements, speedups[id(p)][mode]) for p in at_depth
                          if mode in speedups[id(p)]]
                found = crossover(series, sweep.config.threshold)
                fits = None if found.elements is None or l2 is None or not at_depth else \
                    bytes_per_element(at_depth[0]) * found.elements <= l2
                rows.append(CrossoverRow(depth, mode, found, fits, shape))
    return rows
