"""A sweep record as tables, a terminal chart and markdown."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from graphbench.stats.summary import summarize_run
from graphbench.stats.sweeps import crossover_table, point_at, several_shapes, variants
from graphbench.config.params import shown
from graphbench.ladder import HEADLINE
from graphbench.launch_shape import shape_name
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.report.chart import sweep_panels, terminal_chart
from graphbench.report.shapes import default_against_per_element
from graphbench.report.tables import elements_text, markdown_table, simple_table, us

CROSSOVER_TEXT = {"crossover": "", "below-at-smallest": "below at the smallest size",
                  "none-in-range": "stays above in this range"}


def variant_columns(sweep: SweepRecord) -> list[str]:
    """A shape column when the sweep ran several launch shapes, and one per
    parameter axis (each named by its parameter)."""
    return ["shape"] * several_shapes(sweep) + list(sweep.config.params)


def variant_cells(sweep: SweepRecord, shape, values) -> list[str]:
    return [shape_name(*shape)] * several_shapes(sweep) + [shown(v) for v in values.values()]


def sweep_rows(sweep: SweepRecord) -> tuple[list[str], list[list[str]]]:
    """A row per element count (per shape, parameter values and element
    count, with their columns, when the sweep ran several)."""
    depths = sweep.config.depths
    columns = variant_columns(sweep) + ["elements"] + [f"depth {d}" for d in depths] + \
        ["fits in L2"]
    rows = []
    for shape, values in variants(sweep):
        for elements in sweep.config.elements:
            row, fitting = variant_cells(sweep, shape, values) + [elements_text(elements)], []
            for depth in depths:
                point = point_at(sweep, elements, depth, shape, values)
                row.append(_sweep_cell(point))
                if point and summarize_run(point).cache.l2_resident:
                    fitting.append(f"d{depth}")
            every = len(fitting) == len(depths)
            rows.append(row + ["all" if every else " ".join(fitting) or "none"])
    return columns, rows


def _sweep_cell(point: RunRecord | None) -> str:
    if point is None:
        return "not run"
    if not point.verified:
        return "FAILED"
    summary = summarize_run(point)
    speedup, graph = summary.speedup.get(HEADLINE), summary.modes.get(HEADLINE)
    if not speedup or not graph:
        return "-"
    return f"{speedup.stats.median:.2f}x {us(graph.wall.median)}"


def crossover_rows(sweep: SweepRecord) -> tuple[list[str], list[list[str]]]:
    columns = variant_columns(sweep) + ["depth", "mode", "crossover at", "between",
                                        "fits in L2", "status"]
    rows = []
    for row in crossover_table(sweep):
        found = row.crossover
        at = "-" if found.elements is None else f"{found.elements:,.0f}"
        between = "-" if not found.between else " .. ".join(elements_text(n) for n in found.between)
        fits = "-" if row.fits_in_l2 is None else ("yes" if row.fits_in_l2 else "no")
        rows.append(variant_cells(sweep, row.shape, dict(row.params)) +
                    [str(row.depth), row.mode, at, between, fits, CROSSOVER_TEXT[found.status]])
    return columns, rows


def sweep_report(sweep: SweepRecord, width: int = 80) -> Group:
    name = sweep.device.name if sweep.device else "?"
    config = sweep.config
    total = len(config.elements) * len(config.depths) * len(config.shapes) * \
        len(config.param_points)
    head = Text.assemble(("graphbench sweep ", "bold"), (name, "bold cyan"),
                         f"  {len(sweep.points)} of {total} points" +
                         ("" if sweep.complete else " (incomplete)") + _pipeline_line(sweep))
    parts = [head, simple_table("graph speedup and graph wall us/iter", *sweep_rows(sweep))]
    parts.append(simple_table(f"where each rung's speedup over individual falls below "
                              f"{sweep.config.threshold:g}x", *crossover_rows(sweep)))
    parts += [Text(line, style="bold") for line in default_against_per_element(sweep.points)]
    parts.append(FittedChart(sweep_panels(sweep)[0], most=min(width, 100)))
    return Group(*parts)


def _pipeline_line(sweep: SweepRecord) -> str:
    """The pipeline and its swept parameters, for a sweep over parameters
    (every other sweep's head reads as it did)."""
    if not sweep.config.params or not sweep.points:
        return ""
    pipe = sweep.points[0].pipeline
    axes = "; ".join(f"{name} = {', '.join(shown(v) for v in values)}"
                     for name, values in sweep.config.params.items())
    return f"\npipeline {pipe.name} ({pipe.file}), swept: {axes}"


class FittedChart:
    """The terminal chart drawn to the terminal's width (at most `most`)."""

    MIN_WIDTH = 30

    def __init__(self, panel, most: int) -> None:
        self.panel, self.most = panel, most

    def __rich_console__(self, console, options):
        width = min(options.max_width, self.most)
        if width < self.MIN_WIDTH:
            yield Text(f"({self.panel.title}: the chart needs {self.MIN_WIDTH} columns)")
            return
        yield Text(terminal_chart(self.panel, width=width))


def sweep_markdown(sweep: SweepRecord) -> str:
    name = sweep.device.name if sweep.device else "?"
    parts = [f"### graphbench sweep on {name}", "", markdown_table(*sweep_rows(sweep)), "",
             f"Speedup over individual below {sweep.config.threshold:g}x:", "",
             markdown_table(*crossover_rows(sweep))]
    differences = default_against_per_element(sweep.points)
    parts += ["", *(f"- {line}" for line in differences)] if differences else []
    return "\n".join(parts) + "\n"
