"""A comparison (the gate's verdicts) as a table, a decision line and markdown."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from graphbench.record.model import Comparison
from graphbench.report.tables import markdown_table, simple_table, us

VERDICT_STYLE = {"faster": "green", "same": "", "changed": "yellow", "slower": "bold red",
                 "incompatible": "bold red", "missing": "bold red", "not gateable": "yellow"}
COMPARISON_COLUMNS = ("metric", "baseline", "current", "change", "detects", "gate", "verdict",
                      "note")
TERMINAL_COLUMNS = ("metric", "base", "current", "change", "detect", "gate", "verdict")


def _value(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if metric.startswith("speedup") else us(value)


def comparison_rows(comparison: Comparison) -> list[list[str]]:
    rows = []
    for v in comparison.verdicts:
        change = "-" if v.change is None else f"{v.change:+.1%}"
        detects = "-" if v.detectable is None else f"{v.detectable:.1%}"
        gate = v.threshold if v.gated else f"({v.threshold})"
        rows.append([v.metric, _value(v.metric, v.baseline), _value(v.metric, v.current), change,
                     detects, gate, v.verdict, v.note])
    return rows


def verdict_lines(v) -> list[str]:
    """What is worth saying under a verdict: its interval and its note."""
    lines = []
    if v.change_low is not None and v.verdict in ("changed", "slower", "faster"):
        lines.append(f"{v.change:+.1%}, 99% interval {v.change_low:+.1%}..{v.change_high:+.1%} "
                     f"{v.scope}")
    return lines + ([v.note] if v.note else [])


def decision_line(comparison: Comparison) -> str:
    if comparison.incompatible:
        return "INCOMPATIBLE: " + "; ".join(comparison.incompatible)
    if comparison.unjudged:
        return "ERROR: cannot judge " + ", ".join(v.metric for v in comparison.unjudged)
    if comparison.regressions:
        return "FAIL: regression in " + ", ".join(v.metric for v in comparison.regressions)
    unable = [v.metric for v in comparison.verdicts if v.gated and v.verdict == "not gateable"]
    if not comparison.judged:
        return "ERROR: no gated metric could be judged" + (f" ({', '.join(unable)})" if unable
                                                            else "")
    changed = [v.metric for v in comparison.judged if v.verdict == "changed"]
    tail = f"; changed within the threshold: {', '.join(changed)}" if changed else ""
    tail += f"; not gateable on this pair: {', '.join(unable)}" if unable else ""
    return f"PASS: none of {len(comparison.judged)} judged metrics is slower{tail}"


def comparison_report(comparison: Comparison) -> Group:
    """The verdicts as a table that fits 80 columns; each metric's note is a
    line under it rather than a column, so no number is ever cut short."""
    rows = [row[:6] + [Text(row[6], style=VERDICT_STYLE[row[6]])]
            for row in comparison_rows(comparison)]
    table = simple_table("baseline vs current: medians, times in us (detects: the smallest "
                         "change this pair catches 95% of the time)", TERMINAL_COLUMNS, rows,
                         compact=True)
    parts = [table] + [Text(f"  {v.metric}: {line}", style="dim")
                       for v in comparison.verdicts for line in verdict_lines(v)]
    parts += [Text(f"note: {note}", style="dim") for note in comparison.notes]
    style = "bold green" if comparison.passed else "bold red"
    parts.append(Text(decision_line(comparison), style=style))
    return Group(*parts)


def comparison_markdown(comparison: Comparison, baseline_name: str, current_name: str) -> str:
    lines = [f"### graphbench: `{current_name}` vs baseline `{baseline_name}`", "",
             f"**{decision_line(comparison)}**", "",
             markdown_table(COMPARISON_COLUMNS, comparison_rows(comparison)), ""]
    lines += [f"- {note}" for note in comparison.notes]
    return "\n".join(lines).rstrip() + "\n"
