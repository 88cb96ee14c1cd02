"""The trend page (`graphbench history html DIR`): the stored run records of
one pipeline and machine as a static page; an index page links the pages.

For every metric of the default gate (graphbench.analyze.specs) a chart
(inline SVG) of each record's median and 95% interval in time order, and a
table of each step's verdict against the record before it: compare_records'
own on that pair, so the page decides nothing itself. A step `slower` on a
gated metric (a regression, as compare counts one) marks the commit where
the regression starts; such metrics come first. A point's interval: between
the processes' medians with 3 or more processes (as the run report states a
speedup's), else the median interval of its one process's rounds.

Pure: keys and records in, HTML text out. Every string from a record or a
key is made printable, then escaped: a stored record is untrusted. No
script, no external file: the pages open from disk with no server."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from graphbench.analyze.ab import is_ab
from graphbench.analyze.compare import compare_records, point_at
from graphbench.analyze.intervals import median_interval
from graphbench.analyze.metrics import process_values
from graphbench.analyze.specs import FailSpec, default_specs
from graphbench.analyze.summary import between_process_interval
from graphbench.history.keys import Key
from graphbench.limits import MIN_PROCESSES
from graphbench.record.model import RunRecord, Verdict
from graphbench.record.printable import printable
from graphbench.report.figures import nice_ticks, tick_text

INDEX = "index.html"
PAGE_DIGITS = 16  # of the hash that names a page: 2^64 names, no two pages on one
PAGE_NAME = re.compile(rf"trend-[0-9a-f]{{{PAGE_DIGITS}}}\.html")  # every page's, and only
COMMIT_DIGITS = 8
MAX_LABELS = 14  # commits named under a chart; every commit where a regression starts too
Scale = Callable[[float], float]
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 230, 70, 20, 28, 46
POINT, REGRESSION, FASTER = "#1f77b4", "#d62728", "#2ca02c"
STYLE = ("body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222}"
         "table{border-collapse:collapse;margin:6px 0 28px;font-size:13px}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
         "tr.regression td{background:#fde2e2;font-weight:bold}.dim{color:#666}"
         ".mark{color:#d62728;font-weight:bold}")


@dataclass(frozen=True)
class Point:
    """One record on one metric's trend."""

    key: Key
    median: float | None
    low: float | None             # the 95% interval; None where none is stated
    high: float | None
    verdict: Verdict | None       # against the record before; None for the first

    @property
    def starts_regression(self) -> bool:
        return bool(self.verdict and self.verdict.gated and self.verdict.verdict == "slower")


@dataclass(frozen=True)
class Trend:
    metric: str                   # the spec's name: individual.busy@2^20
    gated: bool
    threshold: str
    points: tuple[Point, ...]


def text(value: object) -> str:
    """Any string from a record or a key, as HTML text."""
    return escape(printable(str(value)), quote=True)


def anchor(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", metric)


def commit_label(key: Key) -> str:
    return key.git_commit[:COMMIT_DIGITS] if key.git_commit else "no commit"


def trends(runs: Sequence[tuple[Key, RunRecord]]) -> list[Trend]:
    """Every default-gate metric of the runs (in time order), each point
    judged against the one before by compare_records."""
    runs = sorted(runs, key=lambda run: (run[0].created, run[0].saved, run[0].id))
    comparisons = [None] + [compare_records(a[1], b[1]) for a, b in zip(runs, runs[1:])]
    specs: dict[str, FailSpec] = {}
    for _, record in runs:
        for spec in default_specs(record):
            specs.setdefault(spec.name, spec)
    found = []
    for name, spec in specs.items():
        points = tuple(Point(key, *figures(record, spec), verdict=next(
            (v for v in compared.verdicts if v.metric == name), None) if compared else None)
                       for (key, record), compared in zip(runs, comparisons))
        found.append(Trend(name, spec.gated, spec.text, points))
    return found


def figures(record: RunRecord, spec: FailSpec) -> tuple[float | None, float | None,
                                                        float | None]:
    """(median, low, high) of the metric's values as compare reads them."""
    point = point_at(record, spec.size)
    values = process_values(point, spec.metric) if point else []
    pooled = [x for v in values for x in v]
    if not pooled:
        return None, None, None
    median = float(np.median(pooled))
    interval = median_interval(pooled, 0.95)
    bounds = (interval.low, interval.high) if interval.valid else None
    if len(values) >= MIN_PROCESSES and min(pooled) > 0 and record.legacy_processes is None:
        bounds = between_process_interval([float(np.median(v)) for v in values],
                                          bounds)["interval"]
    return (median, bounds[0], bounds[1]) if bounds else (median, None, None)


def chart(trend: Trend) -> str:
    """The trend as inline SVG: medians joined, intervals as bars, each
    regression's first commit marked."""
    shown = [v for p in trend.points for v in (p.median, p.low, p.high) if v is not None]
    if not shown:
        return '<p class="dim">no record holds this metric</p>'
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
    parts += _marks(trend, px, py)
    return "\n".join([*parts, "</svg>"])


def _axes(trend: Trend, low: float, high: float, px: Scale, py: Scale) -> list[str]:
    unit = "x" if trend.metric.startswith("speedup") else "us"
    out = [f'<text x="{LEFT}" y="16" font-weight="bold">{text(trend.metric)} ({unit}), '
           f'median and 95% interval</text>']
    for tick in nice_ticks(low, high, False):
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py(tick):.1f}" '
                   f'y2="{py(tick):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(tick) + 4:.1f}" text-anchor="end">'
                   f'{tick_text(tick)}</text>')
    every = math.ceil(len(trend.points) / MAX_LABELS)
    for i, point in enumerate(trend.points):
        if i % every and not point.starts_regression:
            continue
        out.append(f'<text x="{px(i):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">'
                   f'{text(commit_label(point.key))}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 8}" text-anchor="middle">'
               'commit, oldest first</text>')
    return out


def _marks(trend: Trend, px: Scale, py: Scale) -> list[str]:
    out, line = [], []
    for i, point in enumerate(trend.points):
        if point.median is None:
            continue
        colour = REGRESSION if point.starts_regression else FASTER if (
            point.verdict and point.verdict.verdict == "faster") else POINT
        if point.starts_regression:
            out.append(_start_mark(point, px(i)))
        if point.low is not None and point.high is not None:
            out.append(f'<line x1="{px(i):.1f}" x2="{px(i):.1f}" y1="{py(point.low):.1f}" '
                       f'y2="{py(point.high):.1f}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<circle cx="{px(i):.1f}" cy="{py(point.median):.1f}" r="4" '
                   f'fill="{colour}"><title>{text(commit_label(point.key))}: '
                   f'{point.median:.4g}</title></circle>')
        line.append(f"{px(i):.1f},{py(point.median):.1f}")
    return [f'<polyline points="{" ".join(line)}" fill="none" stroke="#aaa"/>', *out]


def _start_mark(point: Point, x: float) -> str:
    return (f'<g class="regression-start" data-commit="{text(point.key.git_commit or "")}">'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{H - BOTTOM}" '
            f'stroke="{REGRESSION}" stroke-dasharray="4 3"/><text x="{x + 4:.1f}" '
            f'y="{TOP + 12}" fill="{REGRESSION}">regression starts</text></g>')


def verdict_table(trend: Trend) -> str:
    rows = ["<tr><th>commit</th><th>created (UTC)</th><th>median [95% interval]</th>"
            "<th>change from the record before [99% interval]</th><th>verdict</th>"
            "<th>note</th></tr>"]
    for point in trend.points:
        verdict = point.verdict
        cells = [text(commit_label(point.key)), text(point.key.created[:19].replace("T", " ")),
                 _value(point), _change(verdict),
                 _verdict_text(point), text(verdict.note) if verdict else ""]
        marked = ' class="regression"' if point.starts_regression else ""
        rows.append(f"<tr{marked}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def _value(point: Point) -> str:
    interval = f" [{point.low:.4g}, {point.high:.4g}]" if point.low is not None else ""
    return "-" if point.median is None else f"{point.median:.4g}{interval}"


def _change(verdict: Verdict | None) -> str:
    if verdict is None or verdict.change is None:
        return "-"
    interval = f" [{verdict.change_low:+.1%}, {verdict.change_high:+.1%}]" \
        if verdict.change_low is not None and verdict.change_high is not None else ""
    return f"{verdict.change:+.1%}{interval}"


def _verdict_text(point: Point) -> str:
    verdict = point.verdict
    if verdict is None:
        return '<span class="dim">first record</span>'
    shown = text(verdict.verdict) + ("" if verdict.gated else " (shown, not gated)")
    return shown + (' <span class="mark">regression starts</span>'
                    if point.starts_regression else "")


def regression_starts(found: list[Trend]) -> list[tuple[str, Point]]:
    return [(t.metric, p) for t in found for p in t.points if p.starts_regression]


def page(runs: Sequence[tuple[Key, RunRecord]], found: list[Trend]) -> str:
    """One pipeline's and machine's page, of its runs' trends."""
    key = runs[0][0]
    starts = regression_starts(found)
    summary = "".join(f'<li>{text(commit_label(p.key))}: <a href="#{anchor(metric)}">'
                      f"{text(metric)}</a> {_change(p.verdict)}</li>" for metric, p in starts)
    body = [f"<h1>{text(key.pipeline)} on {text(key.gpu_name or 'no GPU')}</h1>",
            f'<p class="dim">pipeline file {text(key.pipeline_file)}; machine '
            f'{text(key.machine)} ({text(key.host_cpu)}, GPU {text(key.gpu_uuid)}, driver '
            f'{text(key.driver_version)}); {len(runs)} records, oldest first. Each step is '
            'judged against the record before it by compare\'s rule.</p>',
            '<h2>Regressions start at</h2>',
            f"<ul>{summary}</ul>" if starts else "<p>no regression</p>"]
    for trend in sorted(found, key=lambda t: not any(p.starts_regression for p in t.points)):
        gate = f"gated at {trend.threshold}" if trend.gated else "shown, not gated"
        body += [f'<h2 id="{anchor(trend.metric)}">{text(trend.metric)} '
                 f'<span class="dim">({gate})</span></h2>', chart(trend), verdict_table(trend)]
    return document(f"{key.pipeline} trend",
                    [*body, f'<p><a href="{INDEX}">all pipelines and machines</a></p>'])


def document(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{text(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def page_name(key: Key) -> str:
    """The file name of a pipeline's and machine's page, from a hash alone:
    a stored key's text (a machine of /../../x) never names a path."""
    named = "\x1f".join((key.pipeline, key.pipeline_file, key.machine))
    digest = hashlib.sha256(named.encode("utf-8", "surrogatepass")).hexdigest()
    return f"trend-{digest[:PAGE_DIGITS]}.html"


def site(runs: Sequence[tuple[Key, RunRecord]]) -> dict[str, str]:
    """Every page, by file name: one per pipeline and machine, and the index.
    A/B records are judged on their own, not along a trend: left out."""
    groups: dict[str, list[tuple[Key, RunRecord]]] = {}
    for key, record in runs:
        if not is_ab(record):
            groups.setdefault(page_name(key), []).append((key, record))
    found = {name: trends(group) for name, group in sorted(groups.items())}
    pages = {name: page(groups[name], found[name]) for name in found}
    return {**pages, INDEX: index(groups, found)}


def index(groups: dict[str, list[tuple[Key, RunRecord]]], found: dict[str, list[Trend]]) -> str:
    rows = ["<tr><th>pipeline</th><th>file</th><th>GPU</th><th>machine</th><th>records</th>"
            "<th>newest</th><th>regressions start at</th></tr>"]
    for name in found:
        key = max(groups[name], key=lambda run: run[0].created)[0]
        starts = dict.fromkeys(commit_label(p.key) for _, p in regression_starts(found[name]))
        rows.append(f'<tr><td><a href="{escape(name)}">{text(key.pipeline)}</a></td>'
                    f"<td>{text(key.pipeline_file)}</td><td>{text(key.gpu_name)}</td>"
                    f"<td>{text(key.machine)}</td><td>{len(groups[name])}</td>"
                    f"<td>{text(key.created[:19].replace('T', ' '))}</td>"
                    f"<td>{text(', '.join(starts) or '-')}</td></tr>")
    return document("graphbench trends", [
        "<h1>graphbench trends</h1>",
        '<p class="dim">one page per pipeline and machine: every default-gate metric over '
        "the stored records, each step judged against the record before it.</p>",
        "<table>" + "\n".join(rows) + "</table>" if groups else "<p>no run records</p>"])
