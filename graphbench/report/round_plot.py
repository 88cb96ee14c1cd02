"""A run record's rounds as a picture (`report --plot FILE` on a run
record): each mode's wall time per round as a strip of dots over a box (the
middle half, the median, whiskers to the 5th and 95th percentiles), and a
second panel of the paired per-round ratios the record's headline rests on
(each A/B candidate over its base build, else the baseline rung over each
graph rung). SVG by hand, PNG by matplotlib, sharing ticks and titles
(graphbench.report.figures)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import numpy as np

from graphbench.ladder import BASE_SUFFIX, BASELINE
from graphbench.record.model import RunRecord
from graphbench.report.figures import nice_ticks, save_png, tick_text, write_figure

MAX_DOTS = 1500  # per strip: evenly spaced in round order, so a long run stays a small file
WIDTH, ROW, TOP, BOTTOM, LEFT, RIGHT = 680, 34, 34, 42, 130, 30
DOT, BOX = "#1f77b4", "#333333"


@dataclass(frozen=True)
class Strip:
    label: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class StripPanel:
    title: str
    axis: str                  # the x axis's label
    strips: tuple[Strip, ...]
    reference: float | None = None  # a ratio of 1: no change


def round_panels(record: RunRecord) -> list[StripPanel]:
    """The wall rounds of every mode, and the paired ratios where there are any."""
    walls = {m: record.samples(m, "wall") for m in record.mode_names}
    strips = tuple(Strip(m, tuple(v)) for m, v in walls.items() if v)
    rounds = max((len(s.values) for s in strips), default=0)
    panels = [StripPanel(f"wall time per round ({rounds} rounds, {record.process_count} "
                         f"process{'es' if record.process_count != 1 else ''})",
                         "us per iteration", strips)]
    pairs = _ratio_pairs(list(walls))
    if pairs:
        ratios = tuple(Strip(label, tuple(np.asarray(walls[a], float) / np.asarray(walls[b], float)))
                       for label, a, b in pairs if len(walls[a]) == len(walls[b]) > 0)
        if ratios:
            panels.append(StripPanel("paired ratios per round", "ratio (x)", ratios, 1.0))
    return panels


def _ratio_pairs(modes: list[str]) -> list[tuple[str, str, str]]:
    """(label, numerator, denominator): A/B candidates over their base, else speedups."""
    ab = [m for m in modes if not m.endswith(BASE_SUFFIX) and m + BASE_SUFFIX in modes]
    if ab:
        return [(f"{m} / {m}{BASE_SUFFIX}", m, m + BASE_SUFFIX) for m in ab]
    if BASELINE not in modes:
        return []
    return [(f"{BASELINE} / {m}", BASELINE, m) for m in modes if m != BASELINE]


def _box(values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in np.percentile(values, [5, 25, 50, 75, 95]))


def _shown(values: tuple[float, ...]) -> np.ndarray:
    data = np.asarray(values, dtype=float)
    data = data[np.isfinite(data)]
    if data.size > MAX_DOTS:
        data = data[np.linspace(0, data.size - 1, MAX_DOTS).astype(int)]
    return data


def _range(panel: StripPanel) -> tuple[float, float, list[float]]:
    data = np.concatenate([_shown(s.values) for s in panel.strips] or [np.zeros(1)])
    low, high = float(data.min()), float(data.max())
    if panel.reference is not None:
        low, high = min(low, panel.reference), max(high, panel.reference)
    pad = (high - low) * 0.05 or abs(high) * 0.05 or 1.0
    ticks = nice_ticks(low - pad, high + pad, False)
    return low - pad, high + pad, ticks


def svg_rounds(panels: list[StripPanel]) -> str:
    heights = [TOP + BOTTOM + ROW * len(p.strips) for p in panels]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{sum(heights)}" '
             'font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    for panel, top in zip(panels, np.cumsum([0, *heights[:-1]])):
        parts += _svg_panel(panel, float(top))
    return "\n".join([*parts, "</svg>"]) + "\n"


def _svg_panel(panel: StripPanel, top: float) -> list[str]:
    low, high, ticks = _range(panel)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, ROW * len(panel.strips)

    def px(x: float) -> float:
        return LEFT + (x - low) / (high - low) * plot_w

    bottom = top + TOP + plot_h
    out = [f'<text x="{LEFT}" y="{top + 18}" font-weight="bold">{escape(panel.title)}</text>',
           f'<rect x="{LEFT}" y="{top + TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
           'stroke="#888"/>',
           f'<text x="{LEFT + plot_w / 2}" y="{bottom + 32}" text-anchor="middle">'
           f'{escape(panel.axis)}</text>']
    out += [f'<text x="{px(t):.1f}" y="{bottom + 15}" text-anchor="middle">{tick_text(t)}</text>'
            for t in ticks]
    if panel.reference is not None:
        out.append(f'<line x1="{px(panel.reference):.1f}" x2="{px(panel.reference):.1f}" '
                   f'y1="{top + TOP}" y2="{bottom}" stroke="#999" stroke-dasharray="4 3"/>')
    for row, strip in enumerate(panel.strips):
        out += _svg_strip(strip, top + TOP + ROW * row + ROW / 2, px)
    return out


def _svg_strip(strip: Strip, middle: float, px) -> list[str]:
    data = _shown(strip.values)
    out = [f'<text x="{LEFT - 6}" y="{middle + 4:.1f}" text-anchor="end">{escape(strip.label)}</text>']
    if not data.size:
        return out
    jitter = np.random.default_rng(0).uniform(-ROW * 0.3, ROW * 0.3, data.size)
    out += [f'<circle cx="{px(x):.1f}" cy="{middle + j:.1f}" r="1.6" fill="{DOT}" '
            'fill-opacity="0.45"/>' for x, j in zip(data, jitter)]
    p5, q1, median, q3, p95 = _box(data)
    half = ROW * 0.35
    out += [f'<rect x="{px(q1):.1f}" y="{middle - half:.1f}" width="{max(px(q3) - px(q1), 1):.1f}" '
            f'height="{2 * half:.1f}" fill="none" stroke="{BOX}"/>',
            f'<line x1="{px(median):.1f}" x2="{px(median):.1f}" y1="{middle - half:.1f}" '
            f'y2="{middle + half:.1f}" stroke="{BOX}" stroke-width="2"/>',
            f'<line x1="{px(p5):.1f}" x2="{px(q1):.1f}" y1="{middle:.1f}" y2="{middle:.1f}" '
            f'stroke="{BOX}"/>',
            f'<line x1="{px(q3):.1f}" x2="{px(p95):.1f}" y1="{middle:.1f}" y2="{middle:.1f}" '
            f'stroke="{BOX}"/>']
    return out


def png_rounds(panels: list[StripPanel], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [len(p.strips) for p in panels]
    figure, axes = plt.subplots(len(panels), 1, squeeze=False,
                                figsize=(8, sum(0.5 * r + 1.2 for r in rows)),
                                gridspec_kw={"height_ratios": [r + 1 for r in rows]})
    for axis, panel in zip(axes[:, 0], panels):
        _png_panel(axis, panel)
    figure.tight_layout()
    save_png(figure, path)


def _png_panel(axis, panel: StripPanel) -> None:
    low, high, ticks = _range(panel)
    rng = np.random.default_rng(0)
    for row, strip in enumerate(reversed(panel.strips)):
        data = _shown(strip.values)
        if data.size:
            axis.scatter(data, row + rng.uniform(-0.3, 0.3, data.size), s=3, alpha=0.45, color=DOT)
            p5, q1, median, q3, p95 = _box(data)
            _horizontal_box(axis, {"whislo": p5, "q1": q1, "med": median, "q3": q3,
                                   "whishi": p95, "fliers": []}, row)
    if panel.reference is not None:
        axis.axvline(panel.reference, color="grey", linestyle="--")
    axis.set_yticks(range(len(panel.strips)), [s.label for s in reversed(panel.strips)])
    axis.set_xlim(low, high)
    axis.set_xticks(ticks, [tick_text(t) for t in ticks])
    axis.set(title=panel.title, xlabel=panel.axis)
    axis.grid(True, axis="x", alpha=0.3)


def _horizontal_box(axis, stats: dict, row: int) -> None:
    # matplotlib 3.10 names the direction `orientation`; older ones take `vert`
    try:
        axis.bxp([stats], positions=[row], orientation="horizontal", widths=0.7,
                 showfliers=False)
    except TypeError:
        axis.bxp([stats], positions=[row], vert=False, widths=0.7, showfliers=False)


def write_round_plot(path: str, panels: list[StripPanel]) -> Path:
    """The picture as SVG or PNG, by the file's suffix (checked before, as
    every picture's path is: graphbench.report.figures.check_figure_path)."""
    return write_figure(path, lambda: svg_rounds(panels), lambda target: png_rounds(panels, target))
