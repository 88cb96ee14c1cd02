"""Charts of a sweep: speedup and wall time against elements (log2 axis),
one line per depth (and launch shape), each with its band. The panels are
built here once; the terminal chart is drawn here, the SVG and the PNG
(matplotlib, an optional dependency) in graphbench.report.chart_files."""

from __future__ import annotations

import math
from dataclasses import dataclass

from graphbench.stats.summary import summarize_run
from graphbench.stats.sweeps import points_at, variant_label, variants
from graphbench.counts import power_label
from graphbench.ladder import BASELINE, DEFAULT_MODES, HEADLINE, ladder_order
from graphbench.record.model import SweepRecord
from graphbench.report.figures import check_figure_path

MARKERS = "*o+x#@%&"


@dataclass(frozen=True)
class Series:
    label: str
    xs: tuple[float, ...]  # element counts
    ys: tuple[float, ...]
    lows: tuple[float, ...] = ()   # each point's band (Panel.band says what it is), if any
    highs: tuple[float, ...] = ()


@dataclass(frozen=True)
class Panel:
    title: str
    ylabel: str  # "speedup" or "us"
    series: tuple[Series, ...]
    reference_y: float | None = None  # a horizontal line, e.g. the speedup threshold
    band: str = ""  # what the series' bands show

    @property
    def log_y(self) -> bool:
        return self.ylabel == "us"  # wall times span decades over a sweep


def sweep_panels(sweep: SweepRecord) -> list[Panel]:
    """Speedup and wall panels: a series per depth (and per launch shape and
    parameter value, when the sweep ran several), then the ladder's panels."""
    speedups, walls = [], []
    for shape, values in variants(sweep):
        named = f" {label}" if (label := variant_label(sweep, shape, values)) else ""
        for depth in sweep.config.depths:
            points = sorted(points_at(sweep, depth, shape, values),
                            key=lambda p: p.config.elements)
            summaries = [(p.config.elements, summarize_run(p)) for p in points]
            with_speedup = [(n, s.speedup[HEADLINE]) for n, s in summaries
                            if HEADLINE in s.speedup]
            if with_speedup:
                label = f"d{depth}{named}" if named else f"depth {depth}"
                speedups.append(_banded(label, [(n, e.stats.median, e.interval or
                                                 (e.stats.median,) * 2) for n, e in with_speedup]))
            for mode in (BASELINE, HEADLINE):
                walls_at = [(n, s.modes[mode].wall) for n, s in summaries if mode in s.modes]
                if walls_at:
                    walls.append(_banded(f"{mode} d{depth}{named}",
                                         [(n, w.median, (w.q1, w.q3)) for n, w in walls_at]))
    return [Panel(f"{HEADLINE} speedup ({BASELINE} / {HEADLINE} wall)", "speedup",
                  tuple(speedups), sweep.config.threshold, band="band: 95% interval"),
            Panel("wall time per iteration", "us", tuple(walls),
                  band="band: middle half of the rounds")] + ladder_panels(sweep)


def _banded(label: str, points: list[tuple[int, float, tuple[float, float]]]) -> Series:
    """A series from (elements, value, (low, high)) points."""
    return Series(label, tuple(float(n) for n, _, _ in points), tuple(v for _, v, _ in points),
                  tuple(b[0] for _, _, b in points), tuple(b[1] for _, _, b in points))


def ladder_panels(sweep: SweepRecord) -> list[Panel]:
    """One panel per depth with every rung's wall time against elements,
    when the sweep ran more rungs than individual, graph and fused."""
    modes = ladder_order({m for p in sweep.points for m in p.mode_names})
    if set(modes) <= set(DEFAULT_MODES):
        return []
    panels = []
    for (shape, values), depth in ((v, d) for v in variants(sweep) for d in sweep.config.depths):
        summaries = sorted(((p.config.elements, summarize_run(p))
                            for p in points_at(sweep, depth, shape, values)),
                           key=lambda pair: pair[0])
        series = []
        for mode in modes:
            points = [(n, s.modes[mode].wall.median) for n, s in summaries if mode in s.modes]
            if points:
                series.append(Series(mode, *map(tuple, zip(*points))))
        if series:
            named = f", {label}" if (label := variant_label(sweep, shape, values, long=True)) \
                else ""
            panels.append(Panel(f"every rung, depth {depth}{named}: wall per iteration", "us",
                                tuple(series)))
    return panels


def _bounds(panel: Panel, log_y: bool, bands: bool = False) -> tuple[float, float, float, float]:
    """The axes' extent: log2 elements, and y (log10 where log_y); `bands`:
    wide enough for the bands too (the terminal chart draws none)."""
    xs = [x for s in panel.series for x in s.xs]
    ys = [y for s in panel.series for y in s.ys + ((s.lows + s.highs) if bands else ())] + (
        [panel.reference_y] if panel.reference_y is not None else [])
    if log_y:
        ys = [math.log10(max(y, 1e-9)) for y in ys]
    x0, x1 = math.log2(min(xs)), math.log2(max(xs))
    y0, y1 = min(ys), max(ys)
    pad = (y1 - y0) * 0.05 or 0.5
    return x0, max(x1, x0 + 1e-9), y0 - pad, y1 + pad


def terminal_chart(panel: Panel, width: int = 80, height: int = 14, log_y: bool = False) -> str:
    """A text chart that fits in `width` columns: x is log2(elements)."""
    if not panel.series:
        return f"{panel.title}: no data"
    plot_w = width - 10
    x0, x1, y0, y1 = _bounds(panel, log_y)
    grid = [[" "] * plot_w for _ in range(height)]

    def cell(x: float, y: float) -> tuple[int, int]:
        yv = math.log10(max(y, 1e-9)) if log_y else y
        col = round((math.log2(x) - x0) / (x1 - x0) * (plot_w - 1))
        row = round((y1 - yv) / (y1 - y0) * (height - 1))
        return min(max(row, 0), height - 1), min(max(col, 0), plot_w - 1)

    if panel.reference_y is not None:
        row, _ = cell(2 ** x0, panel.reference_y)
        grid[row] = ["-"] * plot_w
    for marker, series in zip(MARKERS, panel.series):
        for x, y in zip(series.xs, series.ys):
            row, col = cell(x, y)
            grid[row][col] = marker

    def label(row: int) -> str:
        value = y1 - (y1 - y0) * row / (height - 1)
        value = 10 ** value if log_y else value
        return f"{value:8.2f} |"

    lines = [panel.title + (" (log y)" if log_y else "")]
    lines += [(label(r) if r % 3 == 0 else " " * 9 + "|") + "".join(grid[r]) for r in range(height)]
    lines.append(" " * 9 + "+" + "-" * plot_w)
    lines.append(" " * 10 + _x_axis_labels(x0, x1, plot_w))
    legend = "   ".join(f"{m} {s.label}" for m, s in zip(MARKERS, panel.series))
    lines.append(" " * 10 + "x: elements   " + legend +
                 ("   - threshold" if panel.reference_y is not None else ""))
    return "\n".join(line.rstrip() for line in lines)


def _x_axis_labels(x0: float, x1: float, width: int) -> str:
    axis = [" "] * width
    for exponent in range(math.ceil(x0), math.floor(x1) + 1, 2):
        text = power_label(2**exponent)
        col = round((exponent - x0) / (x1 - x0) * (width - 1)) if x1 > x0 else 0
        col = min(col, width - len(text))
        if all(c == " " for c in axis[max(col - 1, 0):col + len(text) + 1]):
            axis[col:col + len(text)] = text
    return "".join(axis)


def check_chart_path(path: str) -> None:
    """UsageError now for a chart that could not be written later."""
    check_figure_path(path, "--plot", "charts")
