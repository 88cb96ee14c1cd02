"""Charts of a sweep: speedup and wall time against elements (log2 axis),
one line per depth (and launch shape). The terminal chart and the SVG need nothing beyond the
base install; PNG uses matplotlib, an optional dependency."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from pathlib import Path

from graphbench.analyze.summary import summarize_run
from graphbench.analyze.sweeps import points_at, several_shapes, short_shape
from graphbench.counts import power_label
from graphbench.errors import UsageError
from graphbench.ladder import BASELINE, DEFAULT_MODES, HEADLINE, ladder_order
from graphbench.launch_shape import shape_name
from graphbench.record.model import SweepRecord

MARKERS = "*o+x#@%&"
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


@dataclass(frozen=True)
class Series:
    label: str
    xs: tuple[float, ...]  # element counts
    ys: tuple[float, ...]


@dataclass(frozen=True)
class Panel:
    title: str
    ylabel: str
    series: tuple[Series, ...]
    reference_y: float | None = None  # a horizontal line, e.g. the speedup threshold


def sweep_panels(sweep: SweepRecord) -> list[Panel]:
    """Speedup and wall panels: a series per depth (and per launch shape,
    when the sweep ran several), then the ladder's panels."""
    speedups, walls = [], []
    for shape in sweep.config.shapes:
        named = f" {short_shape(shape)}" if several_shapes(sweep) else ""
        for depth in sweep.config.depths:
            points = sorted(points_at(sweep, depth, shape), key=lambda p: p.config.elements)
            summaries = [(p.config.elements, summarize_run(p)) for p in points]
            with_speedup = [(n, s.speedup[HEADLINE].stats.median) for n, s in summaries
                            if HEADLINE in s.speedup]
            if with_speedup:
                label = f"d{depth}{named}" if named else f"depth {depth}"
                speedups.append(Series(label, *map(tuple, zip(*with_speedup))))
            for mode in (BASELINE, HEADLINE):
                with_mode = [(n, s.modes[mode].wall.median) for n, s in summaries
                             if mode in s.modes]
                if with_mode:
                    walls.append(Series(f"{mode} d{depth}{named}", *map(tuple, zip(*with_mode))))
    return [Panel("graph speedup (individual / graph wall)", "speedup", tuple(speedups),
                  sweep.config.threshold),
            Panel("wall time per iteration", "us", tuple(walls))] + ladder_panels(sweep)


def ladder_panels(sweep: SweepRecord) -> list[Panel]:
    """One panel per depth with every rung's wall time against elements,
    when the sweep ran more rungs than individual, graph and fused."""
    modes = ladder_order({m for p in sweep.points for m in p.mode_names})
    if set(modes) <= set(DEFAULT_MODES):
        return []
    panels = []
    for shape, depth in ((s, d) for s in sweep.config.shapes for d in sweep.config.depths):
        summaries = sorted(((p.config.elements, summarize_run(p))
                            for p in points_at(sweep, depth, shape)), key=lambda pair: pair[0])
        series = []
        for mode in modes:
            points = [(n, s.modes[mode].wall.median) for n, s in summaries if mode in s.modes]
            if points:
                series.append(Series(mode, *map(tuple, zip(*points))))
        if series:
            named = f", {shape_name(*shape)}" if several_shapes(sweep) else ""
            panels.append(Panel(f"every rung, depth {depth}{named}: wall per iteration", "us",
                                tuple(series)))
    return panels


def _bounds(panel: Panel, log_y: bool) -> tuple[float, float, float, float]:
    xs = [x for s in panel.series for x in s.xs]
    ys = [y for s in panel.series for y in s.ys] + (
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


def svg_chart(panels: list[Panel], width: int = 640, height: int = 320) -> str:
    """Panels stacked vertically as one standalone SVG document."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height * len(panels)}" font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    for index, panel in enumerate(panels):
        parts.append(_svg_panel(panel, 0, index * height, width, height,
                                log_y=panel.ylabel == "us"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _svg_panel(panel: Panel, left: int, top: int, width: int, height: int, log_y: bool) -> str:
    if not panel.series:
        return ""
    margin_l, margin_r, margin_t, margin_b = 60, 150, 30, 40
    plot_w, plot_h = width - margin_l - margin_r, height - margin_t - margin_b
    x0, x1, y0, y1 = _bounds(panel, log_y)

    def px(x: float) -> float:
        return left + margin_l + (math.log2(x) - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        value = math.log10(max(y, 1e-9)) if log_y else y
        return top + margin_t + (y1 - value) / (y1 - y0) * plot_h

    out = [f'<text x="{left + margin_l}" y="{top + 18}" font-weight="bold">'
           f'{escape(panel.title)}{" (log scale)" if log_y else ""}</text>',
           f'<rect x="{left + margin_l}" y="{top + margin_t}" width="{plot_w}" height="{plot_h}" '
           f'fill="none" stroke="#888"/>']
    for exponent in range(math.ceil(x0), math.floor(x1) + 1, 2):
        x = px(2.0 ** exponent)
        out.append(f'<text x="{x:.1f}" y="{top + margin_t + plot_h + 15}" text-anchor="middle">'
                   f'2^{exponent}</text>')
    for i in range(5):
        value = y0 + (y1 - y0) * i / 4
        shown = 10 ** value if log_y else value
        y = top + margin_t + plot_h - plot_h * i / 4
        out.append(f'<text x="{left + margin_l - 5}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{shown:.3g}</text>')
    out.append(f'<text x="{left + margin_l + plot_w / 2}" y="{top + height - 5}" '
               f'text-anchor="middle">elements</text>')
    if panel.reference_y is not None:
        y = py(panel.reference_y)
        out.append(f'<line x1="{left + margin_l}" x2="{left + margin_l + plot_w}" y1="{y:.1f}" '
                   f'y2="{y:.1f}" stroke="#999" stroke-dasharray="4 3"/>')
    out += _svg_series(panel, px, py, legend_x=left + margin_l + plot_w + 10,
                       legend_y=top + margin_t + 8)
    return "\n".join(out)


def _svg_series(panel: Panel, px, py, legend_x: float, legend_y: float) -> list[str]:
    """Each series as a line with its points, and its label in the legend."""
    out = []
    for i, series in enumerate(panel.series):
        color = COLORS[i % len(COLORS)]
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(series.xs, series.ys))
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>'
                for x, y in zip(series.xs, series.ys)]
        out.append(f'<text x="{legend_x}" y="{legend_y + 14 * i}" fill="{color}">'
                   f'{escape(series.label)}</text>')
    return out


def png_chart(panels: list[Panel], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("PNG charts need matplotlib",
                         'pip install matplotlib, or write an .svg instead') from None
    figure, axes = plt.subplots(len(panels), 1, figsize=(8, 4 * len(panels)))
    for axis, panel in zip(list(axes) if len(panels) > 1 else [axes], panels):
        for series in panel.series:
            axis.plot(series.xs, series.ys, marker="o", label=series.label)
        if panel.reference_y is not None:
            axis.axhline(panel.reference_y, color="grey", linestyle="--", label="threshold")
        axis.set_xscale("log", base=2)
        if panel.ylabel == "us":
            axis.set_yscale("log")
        axis.set(title=panel.title, xlabel="elements", ylabel=panel.ylabel)
        axis.legend(fontsize="small")
        axis.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def check_chart_path(path: str) -> None:
    """UsageError now for a chart that could not be written later."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".svg", ".png"):
        raise UsageError(f"--plot {path}: the file must end in .svg or .png")
    if suffix == ".png":
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("PNG charts need matplotlib",
                             "pip install matplotlib, or write an .svg instead") from None


def write_chart(path: str, panels: list[Panel]) -> Path:
    """Write the chart as SVG or PNG, chosen by the file's suffix."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise UsageError(f"--plot {path}: the file must end in .svg or .png")
    target.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".svg":
        from graphbench.record.files import write_text_atomic

        write_text_atomic(target, svg_chart(panels))
    else:
        png_chart(panels, target)
    return target
