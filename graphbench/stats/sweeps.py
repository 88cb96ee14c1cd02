"""Derived figures of a sweep: each point's speedup and where it fades."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.stats.derived import Crossover, crossover
from graphbench.stats.summary import summarize_run, working_set
from graphbench.config.params import params_text
from graphbench.ladder import ladder_order
from graphbench.record.model import RunRecord, SweepRecord


Shape = tuple[str, "int | None"]  # (grid, block) as RunConfig holds them
Values = dict  # one value of each parameter axis, by name (stored texts); {}: no axis


@dataclass(frozen=True)
class CrossoverRow:
    depth: int
    mode: str
    crossover: Crossover
    fits_in_l2: bool | None
    shape: Shape = ("auto", None)
    params: tuple[tuple[str, str], ...] = ()  # the parameter axes' values, by name


def several_shapes(sweep: SweepRecord) -> bool:
    """A sweep over launch shapes: its reports name each point's shape (a
    sweep of one shape, every sweep before --grid/--block, reads as before)."""
    return len(sweep.config.shapes) > 1


def short_shape(shape: Shape) -> str:
    """'1056x256' (grid x block), short enough for a chart's legend."""
    from graphbench.launch_shape import DEFAULT_BLOCK

    return f"{shape[0]}x{shape[1] or DEFAULT_BLOCK[0]}"


def variants(sweep: SweepRecord) -> list[tuple[Shape, Values]]:
    """Every launch shape and combination of parameter values, in the order
    the points ran (one, ((auto, None), {}), for a sweep of neither)."""
    return [(shape, values) for shape in sweep.config.shapes
            for values in sweep.config.param_points]


def variant_label(sweep: SweepRecord, shape: Shape, values: Values, long: bool = False) -> str:
    """'1056x256 cols=256': what tells a variant's points apart ('' for one);
    `long`: the shape as the tables name it."""
    from graphbench.launch_shape import shape_name

    named = shape_name(*shape) if long else short_shape(shape)
    return (", " if long else " ").join(([named] if several_shapes(sweep) else []) +
                                        ([params_text(values)] if values else []))


def points_at(sweep: SweepRecord, depth: int, shape: Shape,
              values: Values | None = None) -> list[RunRecord]:
    """The points of one depth, launch shape and parameter values, in the order they ran."""
    return [p for p in sweep.points if p.config.depth == depth
            and (p.config.grid, p.config.block) == shape
            and all(p.config.params.get(name) == text for name, text in (values or {}).items())]


def point_at(sweep: SweepRecord, elements: int, depth: int, shape: Shape,
             values: Values | None = None) -> RunRecord | None:
    return next((p for p in points_at(sweep, depth, shape, values)
                 if p.config.elements == elements), None)


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
    for shape, values in variants(sweep):
        for depth in sweep.config.depths:
            at_depth = points_at(sweep, depth, shape, values)
            for mode in ladder_order({m for p in at_depth for m in speedups[id(p)]}):
                series = [(p.config.elements, speedups[id(p)][mode]) for p in at_depth
                          if mode in speedups[id(p)]]
                found = crossover(series, sweep.config.threshold)
                fits = None if found.elements is None or l2 is None or not at_depth else \
                    bytes_per_element(at_depth[0]) * found.elements <= l2
                rows.append(CrossoverRow(depth, mode, found, fits, shape, tuple(values.items())))
    return rows
