"""A sweep's chart as a file: a standalone SVG (no dependency) or a PNG
(matplotlib). Both draw the same panels with the same title, axis labels,
tick values (graphbench.report.figures), bands and threshold line."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from graphbench.counts import power_label
from graphbench.errors import UsageError
from graphbench.report.chart import Panel, _bounds, check_chart_path
from graphbench.report.figures import nice_ticks, save_png, tick_text, write_figure, y_label

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT = 640, 320                 # SVG pixels per panel
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 70, 160, 30, 40


def x_ticks(panel: Panel) -> list[int]:
    """Every other power of two across the panel's element counts."""
    x0, x1, _, _ = _bounds(panel, panel.log_y, bands=True)
    return [2 ** e for e in range(math.ceil(x0), math.floor(x1) + 1, 2)]


def y_ticks(panel: Panel) -> list[float]:
    _, _, y0, y1 = _bounds(panel, panel.log_y, bands=True)
    low, high = (10 ** y0, 10 ** y1) if panel.log_y else (y0, y1)
    return nice_ticks(low, high, panel.log_y)


def svg_chart(panels: list[Panel]) -> str:
    """Panels stacked vertically as one standalone SVG document."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
             f'height="{HEIGHT * len(panels)}" font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    parts += [_svg_panel(panel, index * HEIGHT) for index, panel in enumerate(panels)]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _svg_panel(panel: Panel, top: int) -> str:
    if not panel.series:
        return ""
    plot_w, plot_h = WIDTH - MARGIN_L - MARGIN_R, HEIGHT - MARGIN_T - MARGIN_B
    x0, x1, y0, y1 = _bounds(panel, panel.log_y, bands=True)

    def px(x: float) -> float:
        return MARGIN_L + (math.log2(x) - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        value = math.log10(max(y, 1e-9)) if panel.log_y else y
        return top + MARGIN_T + (y1 - value) / (y1 - y0) * plot_h

    bottom = top + MARGIN_T + plot_h
    out = [f'<text x="{MARGIN_L}" y="{top + 18}" font-weight="bold">{escape(panel.title)}</text>',
           f'<rect x="{MARGIN_L}" y="{top + MARGIN_T}" width="{plot_w}" height="{plot_h}" '
           f'fill="none" stroke="#888"/>',
           f'<text x="{MARGIN_L + plot_w / 2}" y="{top + HEIGHT - 5}" '
           f'text-anchor="middle">elements</text>',
           f'<text transform="translate(14 {top + MARGIN_T + plot_h / 2}) rotate(-90)" '
           f'text-anchor="middle">{escape(y_label(panel.ylabel, panel.log_y))}</text>']
    out += [f'<text x="{px(x):.1f}" y="{bottom + 15}" text-anchor="middle">{power_label(x)}</text>'
            for x in x_ticks(panel)]
    out += [f'<text x="{MARGIN_L - 5}" y="{py(y) + 4:.1f}" text-anchor="end">{tick_text(y)}</text>'
            for y in y_ticks(panel)]
    if panel.reference_y is not None:
        y = py(panel.reference_y)
        out.append(f'<line x1="{MARGIN_L}" x2="{MARGIN_L + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="#999" stroke-dasharray="4 3"/>')
    return "\n".join(out + _svg_series(panel, px, py, MARGIN_L + plot_w + 10, top + MARGIN_T + 8))


def _svg_series(panel: Panel, px, py, legend_x: float, legend_y: float) -> list[str]:
    """Each series as its band, a line with its points, and its label in the legend."""
    out = []
    for i, series in enumerate(panel.series):
        color = COLORS[i % len(COLORS)]
        if series.lows:
            edge = [f"{px(x):.1f},{py(y):.1f}" for x, y in zip(series.xs, series.highs)] + \
                [f"{px(x):.1f},{py(y):.1f}" for x, y in reversed(list(zip(series.xs, series.lows)))]
            out.append(f'<polygon points="{" ".join(edge)}" fill="{color}" fill-opacity="0.15" '
                       f'stroke="none"/>')
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(series.xs, series.ys))
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>'
                for x, y in zip(series.xs, series.ys)]
        out.append(f'<text x="{legend_x}" y="{legend_y + 14 * i}" fill="{color}">'
                   f'{escape(series.label)}</text>')
    if panel.band:
        out.append(f'<text x="{legend_x}" y="{legend_y + 14 * len(panel.series) + 6}" '
                   f'fill="#666">{escape(panel.band)}</text>')
    return out


def png_chart(panels: list[Panel], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("PNG charts need matplotlib",
                         'pip install matplotlib, or write an .svg instead') from None
    figure, axes = plt.subplots(len(panels), 1, figsize=(8, 4 * len(panels)), squeeze=False)
    for axis, panel in zip(axes[:, 0], panels):
        for i, series in enumerate(panel.series):
            color = COLORS[i % len(COLORS)]
            if series.lows:
                axis.fill_between(series.xs, series.lows, series.highs, color=color, alpha=0.15,
                                  linewidth=0)
            axis.plot(series.xs, series.ys, marker="o", color=color, label=series.label)
        if panel.reference_y is not None:
            axis.axhline(panel.reference_y, color="grey", linestyle="--", label="threshold")
        axis.set_xscale("log", base=2)
        if panel.log_y:
            axis.set_yscale("log")
        axis.set_xticks(x_ticks(panel), [power_label(x) for x in x_ticks(panel)])
        axis.set_yticks(y_ticks(panel), [tick_text(y) for y in y_ticks(panel)])
        axis.minorticks_off()
        axis.set(title=panel.title, xlabel="elements", ylabel=y_label(panel.ylabel, panel.log_y))
        axis.legend(fontsize="small", title=panel.band or None, title_fontsize="small")
        axis.grid(True, alpha=0.3)
    figure.tight_layout()
    save_png(figure, path)


def write_chart(path: str, panels: list[Panel]) -> Path:
    """Write the chart as SVG or PNG, chosen by the file's suffix."""
    check_chart_path(path)
    return write_figure(path, lambda: svg_chart(panels), lambda target: png_chart(panels, target))
