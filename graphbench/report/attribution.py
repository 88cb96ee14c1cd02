"""run --attribute as the terminal shows it: per rung, a table of its stages
(kernel time, the idle GPU before each, its share of the iteration), the
cross-check against the timed busy time, kernel counts, PDL overlap, the
loop's conditional cost, what tracing cost; then one iteration of every
rung on one time axis. One line says which process took the trace."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from graphbench.stats.attribution import RungFigures
from graphbench.stats.stage_figures import (Timeline, all_rung_figures, busy_us, device_loop,
                                            record_attribution, record_rung_is_graph, timelines)
from graphbench.record.model import RunRecord
from graphbench.record.trace import FRESH
from graphbench.report.tables import simple_table, us

STAGE_STYLES = ("bold white on blue", "bold white on red", "bold white on green",
                "bold white on magenta", "bold black on yellow", "bold white on dark_orange3",
                "bold black on cyan", "bold white on purple4")
LOOP_STYLE = "bold black on grey70"
NAME_WIDTH = 36  # torch's kernel names run to hundreds of characters


def glyph(stage: int) -> str:
    """A stage's mark in the timeline: 1-9, then a-z; L for the loop's kernels."""
    return "L" if stage < 0 else "123456789abcdefghijklmnopqrstuvwxyz"[stage % 35]


def short(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[:NAME_WIDTH - 3] + "..."


def stage_table(figures: RungFigures):
    rows = [[str(s.index), short(", ".join(s.kernels) or s.stage), us(s.gpu_us),
             "" if s.gap_us is None else us(s.gap_us), f"{s.share:.0%}"] +
            ([us(s.overlap_us) if s.overlap_us else ""] if _has_overlap(figures) else [])
            for s in figures.stages]
    columns = ["stage", "kernel", "GPU us", "gap before us", "share"] + \
        (["PDL overlap us"] if _has_overlap(figures) else [])
    return simple_table(f"{figures.mode}: per stage, median of {figures.iterations} traced "
                        f"iterations", columns, rows)


def _has_overlap(figures: RungFigures) -> bool:
    return any(s.overlap_us > 0 for s in figures.stages)


def one_launch_per_iteration(mode: str) -> bool:
    """A graph replayed from the host once per iteration (graph, graph-pdl)."""
    from graphbench.ladder import rung

    found = rung(mode)
    return bool(found) and found.launches == "one"


def rung_lines(record: RunRecord, figures: RungFigures) -> Text:
    text = Text()
    count = f"{figures.kernels_per_iteration:g} kernels per iteration"
    if figures.expected_kernels:
        count += f" (its stages alone launch {figures.expected_kernels})"
    if not figures.stages:  # no table above says which rung this is
        count = f"{figures.mode}: {count}; no per-stage figures: " + (
            "CUPTI listed the device loop's body fewer times than it ran"
            if device_loop(figures.mode) and not figures.escape
            else "its traced kernels do not split into whole iterations")
    text.append(count)
    if figures.period_us is not None:
        busy = busy_us(record, figures.mode)
        line = f"\nstages + gaps {us(figures.accounted_us)} us per iteration"
        if busy and record_rung_is_graph(figures.mode):
            inside = figures.inside_us if one_launch_per_iteration(figures.mode) \
                else figures.accounted_us
            line += (f"; inside the graph {us(inside)} us against busy {us(busy)} us "
                     f"({inside / busy - 1:+.0%})")
        elif busy:  # launched from the host: its gaps are the host's, busy has none
            line += f" (busy {us(busy)} us: the same GPU work replayed back to back)"
        text.append(line)
    if figures.loop_us is not None and figures.loop_from_events:
        if figures.stages:
            text.append("\nCUPTI listed the device loop's body once per launch: the stage "
                        "times are those iterations'; their gaps are the conditional's")
        text.append(f"\nloop conditional: {us(figures.loop_us)} us per iteration (the loop's "
                    f"device time per iteration in the timed rounds, less its body's kernels)")
    elif figures.loop_us is not None:
        text.append(f"\nloop conditional (loop_count and the gaps around it): "
                    f"{us(figures.loop_us)} us per iteration")
    return text + trace_lines(figures)


def trace_lines(figures: RungFigures) -> Text:
    """What tracing cost the rung, and what its replay lacked (a failed
    check) or added (a difference, not a failure)."""
    text = Text()
    if figures.untraced_wall_us and figures.traced_wall_us:
        text.append(f"\ntracing cost: wall {us(figures.untraced_wall_us)} -> "
                    f"{us(figures.traced_wall_us)} us per iteration "
                    f"({figures.traced_wall_us / figures.untraced_wall_us - 1:+.0%})", style="dim")
    if figures.escape and figures.escape.fails:
        text.append(f"\nCAPTURE ESCAPE: {figures.escape.lacks_text()}", style="bold red")
    if figures.escape and figures.escape.extra:
        text.append(f"\n{figures.escape.adds_text()}: kernels its stages did not launch alone "
                    "(under capture a library may choose other kernels)", style="yellow")
    return text


def timeline_text(found: list[Timeline], width: int = 72) -> Text:
    """One iteration per rung on one axis: a stage's kernels as its coloured
    number, idle GPU as space; each column is the same slice of time."""
    if not found:
        return Text("timeline: no rung split into whole iterations")
    label = max(len(t.mode) for t in found) + 1
    plot = max(20, width - label - 12)
    longest = max(t.period_us for t in found)
    scale = longest / plot
    text = Text(f"one iteration per rung, from the end of the one before "
                f"(1 column = {scale:.3g} us)\n", style="bold")
    for t in found:
        text.append(t.mode.ljust(label))
        cells = _cells(t, scale, plot)
        for cell in cells:
            text.append(glyph(cell) if cell is not None else " ",
                        style=(LOOP_STYLE if cell == -1 else STAGE_STYLES[cell % 8])
                        if cell is not None else "")
        text.append(f"{' ' * (plot - len(cells))} {us(t.period_us)} us\n")
    return text


def _cells(t: Timeline, scale: float, plot: int) -> list[int | None]:
    """The stage drawn in each column: the one covering its middle, or one
    shorter than a column that lies inside it (every kernel shows)."""
    count = min(plot, max(1, round(t.period_us / scale)))
    cells: list[int | None] = [None] * count
    for column in range(count):
        middle = (column + 0.5) * scale
        cells[column] = next((s.stage for s in t.segments
                              if s.start_us <= middle < s.end_us), None)
    for s in t.segments:
        column = min(count - 1, int(s.start_us / scale))
        if s.stage not in cells[max(0, column - 1):column + 2] and cells[column] is None:
            cells[column] = s.stage
    return cells


def stage_names(record: RunRecord) -> dict[int, str]:
    """Each stage position's name(s) over every rung (0-based)."""
    names: dict[int, set] = {}
    for figures in all_rung_figures(record):
        for s in figures.stages:
            names.setdefault(s.index - 1, set()).add(s.stage)
    return {stage: short(" / ".join(sorted(found))) for stage, found in names.items()}


def legend(record: RunRecord) -> Text:
    text = Text("stages: ")
    for stage, name in sorted(stage_names(record).items()):
        text.append(f" {glyph(stage)} ", style=STAGE_STYLES[stage % 8])
        text.append(f" {name}  ")
    text.append(" L ", style=LOOP_STYLE)
    text.append(" loop_reset, loop_count")
    return text


def process_line(record: RunRecord) -> Text:
    """Which process took the trace: a fresh one, or the measuring one,
    whose gaps read higher (graphbench.measure.attribution)."""
    attribution = record_attribution(record)
    if attribution is not None and attribution.process == FRESH:
        return Text("traced in a fresh process: the same config, seed and inputs, its rungs "
                    "built again", style="dim")
    return Text("traced in the measuring process, after its timed rounds: its gaps read higher "
                "than a fresh one's", style="dim")


def attribution_report(record: RunRecord) -> Group:
    parts = [Text("where the GPU time goes (run --attribute: a CUPTI trace after the timed "
                  "rounds; the tables above are untraced)", style="bold"), process_line(record)]
    for figures in all_rung_figures(record):
        if figures.stages:
            parts.append(stage_table(figures))
        parts.append(rung_lines(record, figures))
    parts += [timeline_text(timelines(record)), legend(record)]
    return Group(*parts)


def write_record_timeline(path: str, record: RunRecord):
    """--timeline: the record's timeline as SVG or PNG."""
    from graphbench.report.timeline import write_timeline

    return write_timeline(path, timelines(record), stage_names(record))
