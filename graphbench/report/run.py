"""A run record as the terminal shows it: header, timing table, speedup,
one-off costs, verification and warnings; several runs side by side."""

from __future__ import annotations

from dataclasses import fields

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from graphbench.stats.ladder import ladder
from graphbench.stats.stats import Summary
from graphbench.stats.summary import RunSummary, summarize_run
from graphbench.ladder import HEADLINE
from graphbench.limits import MIN_EFFECTIVE_ROUNDS
from graphbench.record.model import Check, RunRecord
from graphbench.report.graph_costs import memory_text, node_cost_line
from graphbench.report.header import header
from graphbench.report.host import host_lines, seek_line
from graphbench.report.interleaving import interleaving_lines
from graphbench.report.shapes import shape_line
from graphbench.report.tables import Responsive, byte_size, responsive, us

def timing_table(summary: RunSummary) -> Responsive:
    """The launch ladder: one row per rung, most host work first."""
    table = Table(title="the launch ladder, us per iteration (median over rounds)",
                  title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption=caption(summary), caption_justify="left")
    columns = ("mode", "wall", "IQR", "submit", "busy", "idle", "speedup", "x floor")
    for column in columns:
        table.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    rows = []
    for row in ladder(summary).rows:
        rows.append([row.mode, us(row.wall_us), us(summary.modes[row.mode].wall.iqr),
                     us(row.submit_us), _maybe(row.busy_us), _maybe(row.idle_gap_us),
                     f"{row.speedup:.2f}x" if row.speedup is not None else "",
                     f"{row.from_floor:.2f}" if row.from_floor is not None else ""])
        table.add_row(*rows[-1])
    return responsive(table, columns, rows)


def _maybe(value: float | None) -> str:
    return us(value) if value is not None else "-"


def caption(summary: RunSummary) -> str:
    held = any(m.held_submit for m in summary.modes.values())
    submit = "host enqueue behind a hold" if held else "host enqueue"
    return (f"wall: host clock, synced  submit: {submit}\nbusy: GPU time  idle: wall - busy  "
            "x floor: wall / the stage kernels' GPU time")


def ladder_verdict(summary: RunSummary) -> Text | None:
    """The fastest rung that needs no kernel change, and the fastest of all."""
    result = ladder(summary)
    if len(result.rows) < 3 or not result.fastest:
        return None
    walls = {row.mode: row for row in result.rows}
    parts = []
    for label, name in (("fastest with the kernels as they are", result.fastest_unchanged),
                        ("fastest overall", result.fastest)):
        if name:
            row = walls[name]
            speed = f", {row.speedup:.2f}x individual" if row.speedup is not None else ""
            parts.append(f"{label}: {name} {us(row.wall_us)} us{speed}")
    return Text("; ".join(parts), style="bold")


def unavailable_lines(summary: RunSummary) -> Text | None:
    if not summary.unavailable:
        return None
    return Text("\n".join(f"unavailable: {mode}: {why}"
                          for mode, why in summary.unavailable.items()), style="dim")


FEW_EFFECTIVE_ROUNDS = MIN_EFFECTIVE_ROUNDS  # below: the interval is mostly the rounds' correlation


def speedup_line(summary: RunSummary) -> Text | None:
    """The headline: the median speedup, and what its interval covers."""
    entry = summary.speedup.get(HEADLINE)
    if not entry:
        return None
    s = entry.stats
    line = Text.assemble(("graph speedup ", "bold"), (f"{s.median:.2f}x", "bold green"),
                         f"  median of {s.n} paired rounds, IQR {s.q1:.2f}..{s.q3:.2f}\n")
    if entry.interval is None:
        line.append(f"  no 95% interval: {entry.why or 'too few rounds'}", style="yellow")
        return line
    low, high = entry.interval
    line.append(f"  95% interval {low:.2f}..{high:.2f} {entry.scope}")
    if entry.scope.startswith("within one process"):
        line.append(" (this run's time only: the host's speed moves between runs, so "
                    "another may land outside it; --processes 3 or more)", style="dim")
    few = entry.effective_rounds
    if few is not None and few < FEW_EFFECTIVE_ROUNDS and entry.scope.startswith("within"):
        line.append(f"\n  wide: the {s.n} rounds are worth {few:.1f} independent ones (they "
                    "drift or stay slow together): run longer (--max-time)", style="yellow")
    return line


def verification_lines(record: RunRecord) -> Text:
    checks, cfg = record.checks, record.config
    if record.verified:
        return Text(f"verified: {len(checks)} checks passed against the CuPy reference "
                    f"(rtol {cfg.rtol:g}, atol {cfg.atol:g})", style="green")
    lines = Text("VERIFICATION FAILED", style="bold red")
    for check in checks:
        if not check.passed:
            lines.append(f"\n  {failure_text(check)}", style="red")
    return lines


def failure_text(check: Check) -> str:
    if "capture escape" in check.name and check.max_abs_error is None:  # run --attribute's
        return f"{check.name} ({check.bad_elements} of {check.elements} kernels per iteration)"
    error = float("inf") if check.max_abs_error is None else check.max_abs_error
    return (f"{check.name}: {check.bad_elements} of {check.elements} elements wrong, "
            f"max abs error {error:.3g}, first bad index {check.first_bad_index}")


def summary_lines(summary: RunSummary) -> Text:
    """Launch floor, graph build cost and payback, update cost, cache state."""
    lines, floor, update = Text(), summary.launch_floor, summary.update
    if floor:
        lines.append(f"launch floor: empty kernel {floor.kernel_launch_us.median:.2f} us, "
                     f"one-node graph replay {floor.graph_replay_us.median:.2f} us\n")
    for name, life in summary.lifecycles.items():
        payback = life.break_even_iterations
        pays = f"pays off after {payback:,.0f} iterations" if payback is not None \
            else "never pays off (replay is not faster)"
        what = "graph" if name == "graph" else f"{name} graph"
        lines.append(f"{what} build {life.build_us:,.1f} us (capture "
                     f"{life.capture_us.median:,.1f}, instantiate "
                     f"{life.instantiate_us.median:,.1f}, upload "
                     f"{life.upload_us.median:,.1f}): {pays}"
                     f"{memory_text(life.graph_memory_bytes)}\n")
    lines.append(node_cost_line(summary.node_costs))
    if update:
        lines.append(f"graph re-pointed at new buffers: {update.node_update_us.median:,.1f} us "
                     f"by node, {update.whole_graph_update_us.median:,.1f} us whole; anew "
                     f"{update.recapture_instantiate_us.median:,.1f} us\n")
    cache = summary.cache
    if cache.l2_bytes:
        where = "flushed before every round" if cache.flush_l2 else (
            "fits in L2" if cache.l2_resident else "larger than L2")
        lines.append(f"working set {byte_size(cache.working_set_bytes)} per iteration, "
                     f"L2 {byte_size(cache.l2_bytes)}: {where}")
    return lines


def breakdown_table(summary: RunSummary) -> Responsive:
    table = Table(title="where the time goes, us per iteration", title_justify="left",
                  header_style="bold")
    columns = ("mode", "launches", "submit/launch", "wall", "GPU busy", "kcycles", "GPU idle",
               "bound")
    for column in columns:
        table.add_column(column, justify="left" if column in ("mode", "bound") else "right")
    rows = []
    for name, row in summary.breakdown.items():
        busy, cycles = row.busy_us, summary.modes[name].cycles
        rows.append([name, f"{row.launches_per_iteration:g}", us(row.submit_per_launch_us),
                     us(summary.modes[name].wall.median), us(busy) if busy is not None else "-",
                     f"{cycles.median / 1e3:,.2f}" if cycles else "-",
                     us(row.idle_gap_us) if busy is not None else "-", bound_label(row)])
        table.add_row(*rows[-1])
    return responsive(table, columns, rows)


def bound_label(row) -> str:
    label = "launch" if row.launch_bound else "GPU"
    return f"{label}, queue full" if row.back_pressured else label


def details_table(summary: RunSummary) -> Responsive:
    table = Table(title="one-off costs, us (median, min..max)", title_justify="left",
                  header_style="bold")
    columns = ("what", "median", "min", "max", "n")
    for column in columns:
        table.add_column(column, justify="left" if column == "what" else "right")
    rows = []
    sections = (("launch floor", summary.launch_floor),
                *((f"{name} lifecycle", life) for name, life in summary.lifecycles.items()),
                ("graph update", summary.update))
    for section, entry in sections:
        for f in fields(entry) if entry else ():
            s = getattr(entry, f.name)
            if isinstance(s, Summary):  # the lifecycle's build total and payback are not rows
                what = f.name.removesuffix("_us").replace("_", " ")
                rows.append([f"{section}: {what}", us(s.median), us(s.min), us(s.max), str(s.n)])
                table.add_row(*rows[-1])
    return responsive(table, columns, rows)


def after_checks_line(summary: RunSummary) -> Text | None:
    """Busy time before the checks (the gate's) and after them: checks
    followed by GPU work can leave a process's kernels slower
    (docs/measurement.md#time-first-verify-after-the-after-checks-state)."""
    if not summary.busy_after_checks:
        return None
    parts = [f"{workload} {before:,.2f} -> {after:,.2f} us ({after / before - 1:+.0%})"
             for workload, (before, after) in summary.busy_after_checks.items()]
    return Text("GPU busy before -> after the checks: " + ", ".join(parts) +
                "\n  (the gate uses the figure before; docs/measurement.md explains the "
                "after-checks state)", style="dim")


def gate_point_lines(record: RunRecord) -> Text:
    """The --gate-sizes points: GPU busy time per iteration and verification."""
    lines = Text("at the gate sizes, GPU busy us per iteration:")
    for point in record.gate_points:
        summary, seen, shown = summarize_run(point), set(), []
        for name, mode in summary.modes.items():
            if mode.busy and point.workload(name) not in seen:  # one figure per GPU workload
                seen.add(point.workload(name))
                shown.append(f"{'/'.join((name, *mode.busy_shared_with))} {mode.busy.median:,.2f}")
        busy = ", ".join(shown)
        lines.append(f"\n  {point.config.elements:,} elements: {busy}; "
                     f"{'verified' if point.verified else 'VERIFICATION FAILED'}")
    return lines


def warning_lines(summary: RunSummary) -> Text:
    lines = Text()
    for warning in summary.warnings:
        lines.append(f"warning: {warning.message}", style="yellow")
        lines.append(f"\n  -> {warning.remedy}\n", style="dim")
    return lines


def run_report(record: RunRecord, verbose: bool = False) -> Group:
    summary = summarize_run(record)
    parts = [header(record, summary)]
    if summary.modes:
        parts.append(timing_table(summary))
    parts += [part for part in (ladder_verdict(summary), unavailable_lines(summary),
                                speedup_line(summary), plain(host_lines(summary)),
                                seek_line(record),
                                summary_lines(summary), after_checks_line(summary),
                                shape_line(record), plain(interleaving_lines(record))) if part]
    if verbose and summary.breakdown:
        parts += [breakdown_table(summary), details_table(summary)]
    if record.gate_points:
        parts.append(gate_point_lines(record))
    parts.append(verification_lines(record))
    warnings = warning_lines(summary)
    if warnings:
        parts.append(warnings)
    return Group(*parts)


def plain(lines: list[str]) -> Text | None:
    return Text("\n".join(lines)) if lines else None


def _mode_wall(summary: RunSummary, mode: str) -> str:
    return us(summary.modes[mode].wall.median) if mode in summary.modes else "-"


def _speedup(summary: RunSummary) -> str:
    entry = summary.speedup.get(HEADLINE)
    return f"{entry.stats.median:.2f}x" if entry else "-"


RUN_ROWS = (("device", lambda r, s: f"{r.device.name} #{r.device.index}"),
            ("elements", lambda r, s: f"{r.config.elements:,}"),
            ("depth", lambda r, s: str(r.config.depth)),
            ("individual wall us", lambda r, s: _mode_wall(s, "individual")),
            ("graph wall us", lambda r, s: _mode_wall(s, "graph")),
            ("fused wall us", lambda r, s: _mode_wall(s, "fused")),
            ("graph speedup", lambda r, s: _speedup(s)),
            ("noise", lambda r, s: f"{s.noise or 0:.1%}"),
            ("verified", lambda r, s: "yes" if r.verified else "NO"),
            ("warnings", lambda r, s: str(len(s.warnings))))


def runs_side_by_side(records: list[RunRecord], names: list[str]) -> tuple[list[str], list[list[str]]]:
    summaries = [summarize_run(r) for r in records]
    rows = [[label] + [get(r, s) for r, s in zip(records, summaries)] for label, get in RUN_ROWS]
    return [""] + names, rows
