"""The attribution timeline as a file: one iteration per rung on one time
axis, stages as coloured bars and idle GPU as white space. SVG is written by
hand (no dependency, as graphbench.report.chart's); PNG uses matplotlib."""

from __future__ import annotations

from html import escape
from pathlib import Path

from graphbench.stats.stage_figures import Timeline
from graphbench.errors import UsageError
from graphbench.report.chart_files import COLORS
from graphbench.report.figures import check_figure_path, save_png

LOOP_COLOR = "#999999"
ROW, LEFT, RIGHT, TOP = 26, 90, 70, 34


def color(stage: int) -> str:
    return LOOP_COLOR if stage < 0 else COLORS[stage % len(COLORS)]


def svg_timeline(found: list[Timeline], stages: dict[int, str], width: int = 720) -> str:
    longest = max((t.period_us for t in found), default=1.0) or 1.0
    plot = width - LEFT - RIGHT
    height = TOP + ROW * len(found) + 60
    x = lambda us: LEFT + us / longest * plot  # noqa: E731 - one scale for every row
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{LEFT}" y="18" font-weight="bold">one iteration per rung, from the end '
           'of the one before (us)</text>']
    for row, t in enumerate(found):
        y = TOP + row * ROW
        out.append(f'<text x="{LEFT - 6}" y="{y + 15}" text-anchor="end">{escape(t.mode)}</text>')
        out += [f'<rect x="{x(s.start_us):.1f}" y="{y + 3}" width="{max(x(s.end_us) - x(s.start_us), 0.5):.1f}" '
                f'height="{ROW - 8}" fill="{color(s.stage)}"/>' for s in t.segments]
        out.append(f'<text x="{x(t.period_us) + 4:.1f}" y="{y + 15}">{t.period_us:.2f}</text>')
    axis = TOP + ROW * len(found) + 4
    out.append(f'<line x1="{LEFT}" x2="{LEFT + plot}" y1="{axis}" y2="{axis}" stroke="#888"/>')
    for i in range(6):
        value = longest * i / 5
        out.append(f'<text x="{x(value):.1f}" y="{axis + 14}" text-anchor="middle">'
                   f'{value:.3g}</text>')
    out += _svg_legend(stages, LEFT, axis + 34)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_legend(stages: dict[int, str], left: int, y: int) -> list[str]:
    out, at = [], left
    for stage, name in sorted(stages.items()) + [(-1, "loop kernels")]:
        out.append(f'<rect x="{at}" y="{y - 9}" width="10" height="10" fill="{color(stage)}"/>')
        out.append(f'<text x="{at + 14}" y="{y}">{escape(name)}</text>')
        at += 24 + 6 * len(name)
    return out


def png_timeline(found: list[Timeline], stages: dict[int, str], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        raise UsageError("PNG timelines need matplotlib",
                         "pip install matplotlib, or write an .svg instead") from None
    figure, axis = plt.subplots(figsize=(9, 0.5 * len(found) + 1.6))
    for row, t in enumerate(found):
        axis.broken_barh([(s.start_us, s.end_us - s.start_us) for s in t.segments],
                         (row - 0.35, 0.7), facecolors=[color(s.stage) for s in t.segments])
    axis.set_yticks(range(len(found)), [t.mode for t in found])
    axis.invert_yaxis()
    axis.set(xlabel="us from the end of the iteration before",
             title="one iteration per rung")
    handles = [Patch(color=color(s), label=n) for s, n in sorted(stages.items())]
    axis.legend(handles=handles + [Patch(color=LOOP_COLOR, label="loop kernels")],
                fontsize="small", loc="lower right")
    figure.tight_layout()
    save_png(figure, path)


def check_timeline_path(path: str) -> None:
    """UsageError now, before any GPU work, for a file that could not be written later."""
    check_figure_path(path, "--timeline", "timelines")


def write_timeline(path: str, found: list[Timeline], stages: dict[int, str]) -> Path:
    check_timeline_path(path)
    target = Path(path)
    if target.suffix.lower() == ".svg":
        from graphbench.record.files import write_text_atomic

        write_text_atomic(target, svg_timeline(found, stages))
    else:
        png_timeline(found, stages, target)
    return target
