"""The trend page (`graphbench history html DIR`): the stored run records of
one series (a pipeline on one machine class in one configuration,
graphbench.history.series) as a static page; an index page links the pages.

For every metric of the default gate (graphbench.gate.specs) a chart
(inline SVG) of each record's level and 95% interval in time order, the
series' step model drawn over it (each segment's level, and the threshold
band around it), and a table of the records. The steps are the series'
own (graphbench.gate.series, by decide's rule at the metric's
threshold): the page decides nothing itself. A step `slower` on a gated
metric marks the commit where a regression starts; such metrics come first.
A metric the series cannot judge says why, and the page never says "no
step" of a metric it did not judge. A point's interval: between the
processes' medians with 3 or more processes (as the run report states a
speedup's), else the median interval of its one process's rounds.

Pure: keys and records in, HTML text out. Every string from a record or a
key is made printable, then escaped: a stored record is untrusted. No
script, no external file: the pages open from disk with no server."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from graphbench.gate.ab import is_ab
from graphbench.gate.compare import point_at
from graphbench.gate.decide import SLOWER
from graphbench.stats.intervals import median_interval
from graphbench.stats.metrics import process_values
from graphbench.gate.series import Figure, figures
from graphbench.gate.specs import FailSpec
from graphbench.gate.steps import END_SEGMENT, Step
from graphbench.stats.summary import between_process_interval
from graphbench.history.keys import Key
from graphbench.history.series import SeriesKey, grouped
from graphbench.limits import MIN_PROCESSES
from graphbench.record.model import RunRecord
from graphbench.record.printable import printable
from graphbench.report.figures import nice_ticks, tick_text

INDEX = "index.html"
PAGE_DIGITS = 16  # of the hash that names a page: 2^64 names, no two pages on one
PAGE_NAME = re.compile(rf"trend-[0-9a-f]{{{PAGE_DIGITS}}}\.html")  # every page's, and only
COMMIT_DIGITS = 8
MAX_LABELS = 14  # commits named under a chart; every commit where a step starts too
Scale = Callable[[float], float]
Run = tuple[Key, RunRecord]
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 230, 70, 20, 28, 46
POINT, REGRESSION, FASTER, LEVEL = "#1f77b4", "#d62728", "#2ca02c", "#555"
STYLE = ("body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222}"
         "table{border-collapse:collapse;margin:6px 0 28px;font-size:13px}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
         "tr.regression td{background:#fde2e2;font-weight:bold}.dim{color:#666}"
         "tr.step td{background:#e2f5e2}.mark{color:#d62728;font-weight:bold}")


@dataclass(frozen=True)
class Point:
    """One record on one metric's trend."""

    key: Key
    median: float | None          # the record's level: the mean of its processes' medians
    low: float | None             # the 95% interval; None where none is stated
    high: float | None
    level: float | None = None    # of its segment in the step model
    step: Step | None = None      # the step that starts at this record

    @property
    def starts_regression(self) -> bool:
        return self.step is not None and self.step.verdict == SLOWER


@dataclass(frozen=True)
class Trend:
    metric: str                   # the spec's name: individual.busy@2^20
    gated: bool
    threshold: str
    points: tuple[Point, ...]
    figure: Figure

    @property
    def starts_regression(self) -> bool:
        return self.gated and any(p.starts_regression for p in self.points)


def text(value: object) -> str:
    """Any string from a record or a key, as HTML text."""
    return escape(printable(str(value)), quote=True)


def anchor(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", metric)


def commit_label(key: Key) -> str:
    return key.git_commit[:COMMIT_DIGITS] if key.git_commit else "no commit"


def trends(runs: Sequence[Run]) -> list[Trend]:
    """Every default-gate metric of the series' newest record over its runs
    (oldest first), with the series' steps."""
    runs = sorted(runs, key=lambda run: (run[0].created, run[0].saved, run[0].id))
    found = figures([record for _, record in runs], [key.git_commit for key, _ in runs])
    return [Trend(f.spec.name, f.spec.gated, f.spec.text, _points(runs, f), f) for f in found]


def _points(runs: Sequence[Run], found: Figure) -> tuple[Point, ...]:
    levels: dict[int, float] = {}
    steps: dict[int, Step] = {}
    if found.found is not None:
        model = found.found.fit
        for s, start in enumerate(model.starts):
            for i in range(*model.segment(s)):
                levels[found.indices[i]] = model.levels[s]
        steps = {found.indices[step.index]: step for step in found.found.steps}
    values = dict(zip(found.indices, found.values))
    return tuple(Point(key, values.get(i), *interval(record, found.spec),
                       level=levels.get(i), step=steps.get(i))
                 for i, (key, record) in enumerate(runs))


def interval(record: RunRecord, spec: FailSpec) -> tuple[float | None, float | None]:
    """The 95% interval of the metric's values as compare reads them."""
    point = point_at(record, spec.size)
    values = process_values(point, spec.metric) if point else []
    pooled = [x for v in values for x in v]
    if not pooled:
        return None, None
    found = median_interval(pooled, 0.95)
    bounds = (found.low, found.high) if found.valid else None
    if len(values) >= MIN_PROCESSES and min(pooled) > 0 and record.legacy_processes is None:
        bounds = between_process_interval([float(np.median(v)) for v in values],
                                          bounds)["interval"]
    return (bounds[0], bounds[1]) if bounds else (None, None)


def chart(trend: Trend) -> str:
    """The trend as inline SVG: levels joined, intervals as bars, the step
    model's levels and threshold bands, each step's first commit marked."""
    shown = [v for p in trend.points for v in (p.median, p.low, p.high) if v is not None]
    if not shown:
        return '<p class="dim">no record holds this metric</p>'
    limit = trend.figure.threshold if math.isfinite(trend.figure.threshold) else 0.0
    shown += [p.level * (1 + sign * limit) for p in trend.points if p.level
              for sign in (-1, 1)]
    low, high = min(shown), max(shown)
    pad = (high - low) * 0.08 or abs(high) * 0.02 or 1.0
    low, high = low - pad, high + pad
    step = (W - LEFT - RIGHT) / max(len(trend.points), 1)

    def px(i: float) -> float:
        return LEFT + step * (i + 0.5)

    def py(v: float) -> float:
        return TOP + (high - v) / (high - low) * (H - TOP - BOTTOM)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'font-family="sans-serif" font-size="11" role="img" '
             f'aria-label="{text(trend.metric)} by commit">',
             f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" '
             f'height="{H - TOP - BOTTOM}" fill="white" stroke="#999"/>']
    parts += _axes(trend, low, high, px, py)
    parts += _bands(trend, limit, step, px, py)
    parts += _marks(trend, px, py)
    return "\n".join([*parts, "</svg>"])


def _axes(trend: Trend, low: float, high: float, px: Scale, py: Scale) -> list[str]:
    unit = "x" if trend.metric.startswith("speedup") else "us"
    out = [f'<text x="{LEFT}" y="16" font-weight="bold">{text(trend.metric)} ({unit}), '
           f'each record and its 95% interval</text>']
    for tick in nice_ticks(low, high, False):
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(tick):.1f}" '
                   f'y2="{py(tick):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">'
                   f'{tick_text(tick)}</text>')
    every = math.ceil(len(trend.points) / MAX_LABELS)
    for i, point in enumerate(trend.points):
        if i % every and point.step is None:
            continue
        out.append(f'<text x="{px(i):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">'
                   f'{text(commit_label(point.key))}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 8}" text-anchor="middle">'
               'commit, oldest first</text>')
    return out


def _bands(trend: Trend, limit: float, step: float, px: Scale, py: Scale) -> list[str]:
    """Each segment's level as a line, the threshold band around it shaded."""
    out, i, points = [], 0, trend.points
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1].step is None and \
                points[j + 1].level == points[i].level:
            j += 1
        level = points[i].level
        if level is not None:
            x0, x1 = px(i) - step / 2, px(j) + step / 2
            out.append(f'<rect class="band" x="{x0:.1f}" width="{x1 - x0:.1f}" '
                       f'y="{py(level * (1 + limit)):.1f}" height="'
                       f'{py(level * (1 - limit)) - py(level * (1 + limit)):.1f}" '
                       f'fill="#888" fill-opacity="0.12"/>')
            out.append(f'<line class="level" x1="{x0:.1f}" x2="{x1:.1f}" y1="{py(level):.1f}" '
                       f'y2="{py(level):.1f}" stroke="{LEVEL}" stroke-dasharray="6 3"/>')
        i = j + 1
    return out


def _marks(trend: Trend, px: Scale, py: Scale) -> list[str]:
    out, line = [], []
    for i, point in enumerate(trend.points):
        if point.median is None:
            continue
        colour = POINT if point.step is None else \
            REGRESSION if point.starts_regression else FASTER
        if point.step is not None:
            out.append(_start_mark(point, px(i), trend.gated))
        if point.low is not None and point.high is not None:
            out.append(f'<line x1="{px(i):.1f}" x2="{px(i):.1f}" y1="{py(point.low):.1f}" '
                       f'y2="{py(point.high):.1f}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<circle cx="{px(i):.1f}" cy="{py(point.median):.1f}" r="4" '
                   f'fill="{colour}"><title>{text(commit_label(point.key))}: '
                   f'{point.median:.4g}</title></circle>')
        line.append(f"{px(i):.1f},{py(point.median):.1f}")
    return [f'<polyline points="{" ".join(line)}" fill="none" stroke="#aaa"/>', *out]


def _start_mark(point: Point, x: float, gated: bool) -> str:
    """A step's first commit: a regression where it is slower on a gated metric."""
    assert point.step is not None
    kind = "regression-start" if point.starts_regression and gated else "step-start"
    colour = REGRESSION if point.starts_regression else FASTER
    words = "regression starts" if kind == "regression-start" else "step"
    return (f'<g class="{kind}" data-commit="{text(point.key.git_commit or "")}">'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{H - BOTTOM}" '
            f'stroke="{colour}" stroke-dasharray="4 3"/><text x="{x + 4:.1f}" '
            f'y="{TOP + 12}" fill="{colour}">{words} {point.step.change.estimate:+.1%}</text></g>')


def record_table(trend: Trend) -> str:
    rows = ["<tr><th>commit</th><th>created (UTC)</th><th>level [95% interval]</th>"
            "<th>segment's level</th><th>step [99% interval]</th></tr>"]
    for point in trend.points:
        cells = [text(commit_label(point.key)), text(point.key.created[:19].replace("T", " ")),
                 _value(point), "-" if point.level is None else f"{point.level:.4g}",
                 _step_text(point, trend.gated)]
        marked = ' class="regression"' if point.starts_regression and trend.gated else \
            ' class="step"' if point.step is not None else ""
        rows.append(f"<tr{marked}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _value(point: Point) -> str:
    interval_text = f" [{point.low:.4g}, {point.high:.4g}]" if point.low is not None else ""
    return "-" if point.median is None else f"{point.median:.4g}{interval_text}"


def _step_text(point: Point, gated: bool) -> str:
    if point.step is None:
        return ""
    change = point.step.change
    shown = (f"{text(point.step.verdict)} {change.estimate:+.1%} "
             f"[{change.low:+.1%}, {change.high:+.1%}]")
    if point.starts_regression and gated:
        return shown + ' <span class="mark">regression starts</span>'
    return shown + ("" if gated else " (shown, not gated)")


def unjudged(trend: Trend) -> str:
    """Why the series cannot judge the metric ("" where it can)."""
    found, n = trend.figure.found, len(trend.figure.values)
    if found is None:
        return trend.figure.why
    if found.steps:
        return ""
    if not math.isfinite(found.detects):
        return f"{n} records, too few to place a step between two segments of {END_SEGMENT}"
    if found.detects > trend.figure.threshold:
        return (f"{spread(trend)}; the series detects steps of {found.detects:.1%}, the "
                f"threshold is {trend.figure.threshold:.1%}")
    return ""


def spread(trend: Trend) -> str:
    model = trend.figure.found.fit if trend.figure.found else None
    return "" if model is None else (f"{len(trend.figure.values)} records, one record "
                                     f"{model.spread:.2%} from its level ({model.df} degrees "
                                     "of freedom)")


def status(trend: Trend) -> str:
    """What the series says of the metric, in one line: its steps, or why none
    is sought; never "no step" of a metric it could not judge."""
    why, found = unjudged(trend), trend.figure.found
    if why or found is None:
        return f"not gateable: {text(why)}"
    if found.steps:
        return f"{len(found.steps)} step(s); {spread(trend)}"
    return f"no step; {spread(trend)}; detects {found.detects:.1%} in its middle"


def step_starts(found: list[Trend]) -> list[tuple[Trend, Point]]:
    """Every step of the page's metrics, regressions of gated metrics first."""
    starts = [(t, p) for t in found for p in t.points if p.step is not None]
    return sorted(starts, key=lambda tp: not (tp[0].gated and tp[1].starts_regression))


def summary(found: list[Trend]) -> str:
    """The page's first list: each step's first commit; or, without steps,
    how many gated metrics were judged and found none, and which were not."""
    starts = step_starts(found)
    items = [f'<li>{text(commit_label(p.key))}: <a href="#{anchor(t.metric)}">'
             f"{text(t.metric)}</a> {text(p.step.verdict)} {p.step.change.estimate:+.1%}"
             f"{' (regression)' if t.gated and p.starts_regression else ''}"
             f"{'' if t.gated else ' (shown, not gated)'}</li>"
             for t, p in starts if p.step is not None]
    gated = [t for t in found if t.gated]
    judged = [t for t in gated if not unjudged(t)]
    unable = [t.metric for t in gated if t not in judged]
    lines = [f"<ul>{''.join(items)}</ul>" if items else
             f"<p>no step in the {len(judged)} gated metric(s) the series can judge</p>"
             if judged else "<p>no gated metric can be judged on this series yet</p>"]
    if unable:
        lines.append(f'<p class="dim">not gateable on this series: '
                     f'{text(", ".join(unable))} (each metric says why)</p>')
    return "\n".join(lines)


def page(series: SeriesKey, runs: Sequence[Run], found: list[Trend]) -> str:
    """One series' page, of its runs' trends."""
    gpus = len({key.gpu_uuid for key, _ in runs})
    body = [f"<h1>{text(series.pipeline)} on {text(series.gpu_name or 'no GPU')}</h1>",
            f'<p class="dim">series {text(series.id)}: pipeline file '
            f'{text(series.pipeline_file)}; machine class {text(series.machine_class)} '
            f'({gpus} physical GPU(s)); configuration {text(series.configuration_text)}; '
            f'{len(runs)} records, oldest first. Steps are the series\' own: each judged by '
            "compare's rule at the metric's threshold, from the spread of the series' "
            "records around its levels; the band around a level is the threshold.</p>",
            "<h2>Steps start at</h2>", summary(found)]
    for trend in sorted(found, key=lambda t: not t.starts_regression):
        gate = f"gated at {trend.threshold}" if trend.gated else "shown, not gated"
        body += [f'<h2 id="{anchor(trend.metric)}">{text(trend.metric)} '
                 f'<span class="dim">({gate})</span></h2>',
                 f'<p class="dim">{status(trend)}</p>', chart(trend), record_table(trend)]
    return document(f"{series.pipeline} trend",
                    [*body, f'<p><a href="{INDEX}">all series</a></p>'])


def document(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def page_name(series: SeriesKey) -> str:
    """The file name of a series' page, from a hash alone: a stored key's
    text (a pipeline of /../../x) never names a path."""
    return f"trend-{series.digest[:PAGE_DIGITS]}.html"


def site(runs: Sequence[Run]) -> dict[str, str]:
    """Every page, by file name: one per series, and the index. A/B records
    are judged on their own, not along a trend: left out."""
    groups = {page_name(series): (series, group)
              for series, group in grouped([r for r in runs if not is_ab(r[1])]).items()}
    found = {name: trends(group) for name, (_, group) in sorted(groups.items())}
    pages = {name: page(*groups[name], found[name]) for name in found}
    return {**pages, INDEX: index(groups, found)}


def index(groups: dict[str, tuple[SeriesKey, list[Run]]], found: dict[str, list[Trend]]) -> str:
    rows = ["<tr><th>pipeline</th><th>file</th><th>machine class</th><th>configuration</th>"
            "<th>records</th><th>newest</th><th>regressions start at</th></tr>"]
    for name in found:
        series, group = groups[name]
        newest = max(key.created for key, _ in group)
        starts = dict.fromkeys(commit_label(p.key) for t, p in step_starts(found[name])
                               if t.gated and p.starts_regression)
        rows.append(f'<tr><td><a href="{escape(name)}">{text(series.pipeline)}</a></td>'
                    f"<td>{text(series.pipeline_file)}</td><td>{text(series.machine_class)}</td>"
                    f"<td>{text(series.configuration_text)}</td><td>{len(group)}</td>"
                    f"<td>{text(newest[:19].replace('T', ' '))}</td>"
                    f"<td>{text(', '.join(starts) or '-')}</td></tr>")
    return document("graphbench trends", [
        "<h1>graphbench trends</h1>",
        '<p class="dim">one page per series: a pipeline on one machine class (GPU model, '
        "driver, CPU) in one configuration; every default-gate metric over its stored "
        "records, and the steps the series shows.</p>",
        "<table>" + "\n".join(rows) + "</table>" if groups else "<p>no run records</p>"])
