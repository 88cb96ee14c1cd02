"""Turn records into rich renderables and text. Pure functions of a record:
the live run and a saved file render the same."""

from __future__ import annotations

import io
import math

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

def _us(value: float) -> str:
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


STOP_TEXT = {"fixed-rounds": "fixed round count", "noise-target": "noise target reached",
             "time-budget": "TIME BUDGET RAN OUT before the noise target"}


def header(record: dict) -> Text:
    dev, cfg, sampling = record["device"], record["config"], record["sampling"]
    text = Text.assemble(
        ("graphbench ", "bold"), (record["tool"]["version"], "dim"), "  ",
        (f"{dev['name']}", "bold cyan"), f" (cc {dev['compute_capability']}, device {dev['index']})",
        f"\n{cfg['elements']:,} elements  x  {cfg['iters']:,} iterations  x  "
        f"{sampling['rounds']} rounds")
    if sampling.get("processes", 1) > 1:
        text.append(f" from {sampling['processes']} processes")
    if "noise" in sampling:
        stop = STOP_TEXT.get(sampling["stop_reason"], sampling["stop_reason"])
        text.append(f"\nstopped: {stop}; noise {float(sampling['noise']):.1%} "
                    f"(target {sampling['max_noise']:.1%})",
                    style="yellow" if sampling["stop_reason"] == "time-budget" else "")
    return text


def timing_table(record: dict) -> Table:
    table = Table(title="us per iteration: median over rounds (IQR, min, max of wall)",
                  title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="wall: host clock, synced  submit: host enqueue  device: CUDA events",
                  caption_justify="left")
    for column in ("mode", "wall", "IQR", "min", "max", "submit", "device", "CV", "speedup"):
        table.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    speedups = record.get("speedup", {})
    for name, entry in record["modes"].items():
        st = entry["stats"]
        wall = st["wall"]
        speed = speedups.get(name)
        table.add_row(name, _us(wall["median"]), _us(wall["iqr"]), _us(wall["min"]),
                      _us(wall["max"]), _us(st["submit"]["median"]), _us(st["device"]["median"]),
                      f"{wall['cv']:.1%}",
                      f"{speed['median']:.2f}x" if speed else "1.00x" if name == "individual" else "")
    return table


def speedup_line(record: dict) -> Text | None:
    entry = record.get("speedup", {}).get("graph")
    if not entry:
        return None
    low, high = entry["ci95"]
    return Text.assemble(
        ("graph speedup ", "bold"), (f"{entry['median']:.2f}x", "bold green"),
        f"  95% CI {low:.2f}..{high:.2f}, IQR {entry['q1']:.2f}..{entry['q3']:.2f} "
        f"over {entry['n']} paired rounds")


def verification_lines(record: dict) -> Text:
    verification, cfg = record["verification"], record["config"]
    checks = verification["checks"]
    if verification["passed"]:
        return Text(f"verified: {len(checks)} checks passed against the CuPy reference "
                    f"(rtol {cfg['rtol']:g}, atol {cfg['atol']:g})", style="green")
    lines = Text("VERIFICATION FAILED", style="bold red")
    for check in checks:
        if not check["passed"]:
            lines.append(f"\n  {failure_text(check)}", style="red")
    return lines


def failure_text(check: dict) -> str:
    return (f"{check['name']}: {check['bad_elements']} of {check['elements']} elements wrong, "
            f"max abs error {float(check['max_abs_error']):.3g}, "
            f"first bad index {check['first_bad_index']}")


def _median(entry: dict, key: str) -> float:
    return entry[key]["median"]


def summary_lines(record: dict) -> Text:
    """Launch floor, graph build cost and payback, update cost, cache state."""
    lines = Text()
    floor = record.get("launch_floor")
    if floor:
        lines.append(f"launch floor: empty kernel {_median(floor, 'kernel_launch_us'):.2f} us, "
                     f"one-node graph replay {_median(floor, 'graph_replay_us'):.2f} us\n")
    life = record.get("graph_lifecycle")
    if life:
        payback = life["break_even_iterations"]
        pays = f"pays off after {payback:,.0f} iterations" if payback is not None \
            else "never pays off (replay is not faster)"
        lines.append(f"graph build {life['build_us']:,.1f} us (capture "
                     f"{_median(life, 'capture_us'):,.1f}, instantiate "
                     f"{_median(life, 'instantiate_us'):,.1f}, upload "
                     f"{_median(life, 'upload_us'):,.1f}): {pays}\n")
    update = record.get("graph_update")
    if update:
        lines.append(f"graph re-pointed at new buffers: {_median(update, 'node_update_us'):,.1f} us "
                     f"by node, {_median(update, 'whole_graph_update_us'):,.1f} us whole; anew "
                     f"{_median(update, 'recapture_instantiate_us'):,.1f} us\n")
    cache = record.get("cache")
    if cache and cache.get("l2_bytes"):
        where = "flushed before every round" if cache["flush_l2"] else (
            "fits in L2" if cache["l2_resident"] else "larger than L2")
        lines.append(f"working set {_bytes(cache['working_set_bytes'])} per iteration, "
                     f"L2 {_bytes(cache['l2_bytes'])}: {where}")
    return lines


def _bytes(count: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"


def breakdown_table(record: dict) -> Table:
    table = Table(title="where the time goes, us per iteration", title_justify="left",
                  header_style="bold")
    for column in ("mode", "launches", "submit/launch", "wall", "GPU busy", "GPU idle", "bound"):
        table.add_column(column, justify="left" if column in ("mode", "bound") else "right")
    for name, row in record["breakdown"].items():
        wall = record["modes"][name]["stats"]["wall"]["median"]
        busy = row["busy_us"]
        table.add_row(name, str(row["launches_per_iteration"]), _us(row["submit_per_launch_us"]),
                      _us(wall), _us(busy) if busy is not None else "-",
                      _us(row["idle_gap_us"]) if busy is not None else "-",
                      "launch" if row["launch_bound"] else "GPU")
    return table


def details_table(record: dict) -> Table:
    table = Table(title="one-off costs, us (median, min..max)", title_justify="left",
                  header_style="bold")
    for column in ("what", "median", "min", "max", "n"):
        table.add_column(column, justify="left" if column == "what" else "right")
    for section in ("launch_floor", "graph_lifecycle", "graph_update"):
        for key, entry in record.get(section, {}).items():
            if isinstance(entry, dict):
                table.add_row(f"{section.replace('_', ' ')}: "
                              f"{key.removesuffix('_us').replace('_', ' ')}",
                              _us(entry["median"]), _us(entry["min"]), _us(entry["max"]),
                              str(entry["n"]))
    return table


def warning_lines(record: dict) -> Text:
    lines = Text()
    for warning in record.get("warnings", []):
        lines.append(f"warning: {warning['message']}", style="yellow")
        lines.append(f"\n  -> {warning['remedy']}\n", style="dim")
    return lines


def run_report(record: dict, verbose: bool = False) -> Group:
    parts = [header(record)]
    if record["modes"]:
        parts.append(timing_table(record))
    line = speedup_line(record)
    if line:
        parts.append(line)
    summary = summary_lines(record)
    if summary:
        parts.append(summary)
    if verbose and record.get("breakdown"):
        parts += [breakdown_table(record), details_table(record)]
    parts.append(verification_lines(record))
    warnings = warning_lines(record)
    if warnings:
        parts.append(warnings)
    return Group(*parts)


def to_text(renderable, width: int = 100) -> str:
    """Plain text of a renderable, for tests and files."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable)
    return console.file.getvalue()


# --- comparisons ---------------------------------------------------------------

VERDICT_STYLE = {"faster": "green", "same": "", "slower": "bold red", "ambiguous": "yellow",
                 "incompatible": "bold red", "missing": "dim"}


def _value(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if metric.startswith("speedup") else _us(value)


def comparison_rows(comparison) -> list[list[str]]:
    rows = []
    for v in comparison.verdicts:
        change = "-" if v.change is None else f"{v.change:+.1%}"
        gate = v.threshold if v.gated else f"({v.threshold})"
        rows.append([v.metric, _value(v.metric, v.baseline), _value(v.metric, v.current), change,
                     gate, v.verdict, v.note])
    return rows


COMPARISON_COLUMNS = ("metric", "baseline", "current", "change", "gate", "verdict", "note")


def decision_line(comparison) -> str:
    if comparison.incompatible:
        return "INCOMPATIBLE: " + "; ".join(comparison.incompatible)
    if comparison.regressions:
        return "FAIL: regression in " + ", ".join(v.metric for v in comparison.regressions)
    return "PASS: no gated metric is slower"


def comparison_report(comparison) -> Group:
    rows = [row[:5] + [Text(row[5], style=VERDICT_STYLE[row[5]]), row[6]]
            for row in comparison_rows(comparison)]
    table = simple_table("baseline vs current: medians over rounds (times in us)",
                         COMPARISON_COLUMNS, rows, wrap=("note",))
    parts = [table] + [Text(f"note: {note}", style="dim") for note in comparison.notes]
    style = "bold green" if comparison.passed else "bold red"
    parts.append(Text(decision_line(comparison), style=style))
    return Group(*parts)


def comparison_markdown(comparison, baseline_name: str, current_name: str) -> str:
    lines = [f"### graphbench: `{current_name}` vs baseline `{baseline_name}`", "",
             f"**{decision_line(comparison)}**", "",
             markdown_table(COMPARISON_COLUMNS, comparison_rows(comparison)), ""]
    lines += [f"- {note}" for note in comparison.notes]
    return "\n".join(lines).rstrip() + "\n"


# --- shared table builders -------------------------------------------------------

NUMERIC_HINTS = ("baseline", "current", "change", "speedup", "wall", "us", "elements", "x")


def simple_table(title: str, columns, rows, wrap=()) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 or column in ("gate", "verdict", "note",
                                                                         "status", "fits in L2")
                         else "right", no_wrap=column not in wrap)
    for row in rows:
        table.add_row(*row)
    return table


def markdown_table(columns, rows) -> str:
    def cell(value) -> str:
        return str(value.plain if isinstance(value, Text) else value).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# --- sweeps and several runs --------------------------------------------------------

def _elements(count: float) -> str:
    exponent = math.log2(count) if count > 0 else 0
    return f"2^{exponent:.0f}" if exponent == int(exponent) else f"{count:,.0f}"


def sweep_rows(sweep: dict) -> tuple[list[str], list[list[str]]]:
    depths = sweep["config"]["depths"]
    columns = ["elements"] + [f"depth {d}" for d in depths] + ["fits in L2"]
    rows = []
    for elements in sweep["config"]["elements"]:
        row, fitting = [_elements(elements)], []
        for depth in depths:
            point = next((p for p in sweep["points"] if p["config"]["elements"] == elements
                          and p["config"]["depth"] == depth), None)
            row.append(_sweep_cell(point))
            if point and point.get("cache", {}).get("l2_resident"):
                fitting.append(f"d{depth}")
        every = len(fitting) == len(depths)
        rows.append(row + ["all" if every else " ".join(fitting) or "none"])
    return columns, rows


def _sweep_cell(point: dict | None) -> str:
    if point is None:
        return "not run"
    if not point["verification"]["passed"]:
        return "FAILED"
    speedup = point.get("speedup", {}).get("graph")
    graph = point["modes"].get("graph")
    if not speedup or not graph:
        return "-"
    return f"{speedup['median']:.2f}x {_us(graph['stats']['wall']['median'])}"


CROSSOVER_TEXT = {"crossover": "", "below-at-smallest": "below at the smallest size",
                  "none-in-range": "stays above in this range"}


def crossover_rows(sweep: dict) -> tuple[list[str], list[list[str]]]:
    columns = ["depth", "crossover at", "between", "fits in L2", "status"]
    rows = []
    for row in sweep["crossover"]:
        at = "-" if row["elements"] is None else f"{row['elements']:,.0f}"
        between = "-" if not row["between"] else " .. ".join(_elements(n) for n in row["between"])
        fits = "-" if row["fits_in_l2"] is None else ("yes" if row["fits_in_l2"] else "no")
        rows.append([str(row["depth"]), at, between, fits, CROSSOVER_TEXT[row["status"]]])
    return columns, rows


def sweep_report(sweep: dict, width: int = 80) -> Group:
    from graphbench.chart import sweep_panels, terminal_chart

    device = sweep.get("device") or {}
    threshold = sweep["config"]["threshold"]
    done = len(sweep["points"])
    total = len(sweep["config"]["elements"]) * len(sweep["config"]["depths"])
    head = Text.assemble(("graphbench sweep ", "bold"), (device.get("name") or "?", "bold cyan"),
                         f"  {done} of {total} points" + ("" if sweep["complete"] else
                                                          " (incomplete)"))
    columns, rows = sweep_rows(sweep)
    parts = [head, simple_table("graph speedup and graph wall us/iter", columns, rows)]
    columns, rows = crossover_rows(sweep)
    parts.append(simple_table(f"where the speedup falls below {threshold:g}x", columns, rows))
    speedup_panel = sweep_panels(sweep)[0]
    parts.append(Text(terminal_chart(speedup_panel, width=min(width, 100))))
    return Group(*parts)


def sweep_markdown(sweep: dict) -> str:
    device = (sweep.get("device") or {}).get("name", "?")
    parts = [f"### graphbench sweep on {device}", "", markdown_table(*sweep_rows(sweep)), "",
             f"Speedup below {sweep['config']['threshold']:g}x:", "",
             markdown_table(*crossover_rows(sweep))]
    return "\n".join(parts) + "\n"


RUN_ROWS = (("device", lambda r: f"{r['device']['name']} #{r['device']['index']}"),
            ("elements", lambda r: f"{r['config']['elements']:,}"),
            ("depth", lambda r: str(r["config"].get("depth", 1))),
            ("individual wall us", lambda r: _mode_wall(r, "individual")),
            ("graph wall us", lambda r: _mode_wall(r, "graph")),
            ("fused wall us", lambda r: _mode_wall(r, "fused")),
            ("graph speedup", lambda r: _speedup(r)),
            ("noise", lambda r: f"{float(r['sampling'].get('noise', 0)):.1%}"),
            ("verified", lambda r: "yes" if r["verification"]["passed"] else "NO"),
            ("warnings", lambda r: str(len(r.get("warnings", [])))))


def _mode_wall(record: dict, mode: str) -> str:
    entry = record["modes"].get(mode)
    return _us(entry["stats"]["wall"]["median"]) if entry else "-"


def _speedup(record: dict) -> str:
    entry = record.get("speedup", {}).get("graph")
    return f"{entry['median']:.2f}x" if entry else "-"


def runs_side_by_side(records: list[dict], names: list[str]) -> tuple[list[str], list[list[str]]]:
    columns = [""] + names
    rows = [[label] + [get(record) for record in records] for label, get in RUN_ROWS]
    return columns, rows
