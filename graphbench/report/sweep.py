"""A sweep record as tables, a terminal chart and markdown."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from graphbench.analyze.summary import summarize_run
from graphbench.analyze.sweeps import crossover_table, several_shapes
from graphbench.ladder import HEADLINE
from graphbench.launch_shape import shape_name
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.report.chart import sweep_panels, terminal_chart
from graphbench.report.shapes import default_against_per_element
from graphbench.report.tables import elements_text, markdown_table, simple_table, us

CROSSOVER_TEXT = {"crossover": "", "below-at-smallest": "below at the smallest size",
                  "none-in-range": "stays above in this range"}


def sweep_rows(sweep: SweepRecord) -> tuple[list[str], list[list[str]]]:
    """A row per element count (per shape and element count, with a shape
    column, when the sweep ran several launch shapes)."""
    depths, several = sweep.config.depths, several_shapes(sweep)
    columns = ["shape"] * several + ["elements"] + [f"depth {d}" for d in depths] + \
        ["fits in L2"]
    rows = []
    for shape in sweep.config.shapes:
        for elements in sweep.config.elements:
            row, fitting = [shape_name(*shape)] * several + [elements_text(elements)], []
            for depth in depths:
                point = sweep.point(elements, depth, shape)
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
    several = several_shapes(sweep)
    columns = ["shape"] * several + ["depth", "mode", "crossover at", "between", "fits in L2",
                                     "status"]
    rows = []
    for row in crossover_table(sweep):
        found = row.crossover
        at = "-" if found.elements is None else f"{found.elements:,.0f}"
        between = "-" if not found.between else " .. ".join(elements_text(n) for n in found.between)
        fits = "-" if row.fits_in_l2 is None else ("yes" if row.fits_in_l2 else "no")
        rows.append([shape_name(*row.shape)] * several +
                    [str(row.depth), row.mode, at, between, fits, CROSSOVER_TEXT[found.status]])
    return columns, rows


def sweep_report(sweep: SweepRecord, width: int = 80) -> Group:
    name = sweep.device.name if sweep.device else "?"
    total = len(sweep.config.elements) * len(sweep.config.depths) * len(sweep.config.shapes)
    head = Text.assemble(("graphbench sweep ", "bold"), (name, "bold cyan"),
                         f"  {len(sweep.points)} of {total} points" +
                         ("" if sweep.complete else " (incomplete)"))
    parts = [head, simple_table("graph speedup and graph wall us/iter", *sweep_rows(sweep))]
    parts.append(simple_table(f"where each rung's speedup over individual falls below "
                              f"{sweep.config.threshold:g}x", *crossover_rows(sweep)))
    parts += [Text(line, style="bold") for line in default_against_per_element(sweep.points)]
    parts.append(FittedChart(sweep_panels(sweep)[0], most=min(width, 100)))
    return Group(*parts)


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
