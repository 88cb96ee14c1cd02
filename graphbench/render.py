"""Turn records into rich renderables and text. Pure functions of a record:
the live run and a saved file render the same."""

from __future__ import annotations

import io

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
    if "noise" in sampling:
        stop = STOP_TEXT.get(sampling["stop_reason"], sampling["stop_reason"])
        text.append(f"\nstopped: {stop}; noise {float(sampling['noise']):.1%} "
                    f"(target {sampling['max_noise']:.1%})",
                    style="yellow" if sampling["stop_reason"] == "time-budget" else "")
    return text


def timing_table(record: dict) -> Table:
    table = Table(title="us per iteration: median over rounds (IQR, min, max of wall)",
                  title_justify="left", header_style="bold",
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
    table = Table(title="baseline vs current: medians over rounds (times in us)",
                  title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for column in COMPARISON_COLUMNS:
        table.add_column(column, justify="right" if column in ("baseline", "current", "change")
                         else "left", no_wrap=column != "note")
    for row in comparison_rows(comparison):
        table.add_row(*row[:5], Text(row[5], style=VERDICT_STYLE[row[5]]), row[6])
    parts = [table] + [Text(f"note: {note}", style="dim") for note in comparison.notes]
    style = "bold green" if comparison.passed else "bold red"
    parts.append(Text(decision_line(comparison), style=style))
    return Group(*parts)


def comparison_markdown(comparison, baseline_name: str, current_name: str) -> str:
    lines = [f"### graphbench: `{current_name}` vs baseline `{baseline_name}`", "",
             f"**{decision_line(comparison)}**", "",
             "| " + " | ".join(COMPARISON_COLUMNS) + " |",
             "|" + "---|" * len(COMPARISON_COLUMNS)]
    for row in comparison_rows(comparison):
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    lines += [""] + [f"- {note}" for note in comparison.notes]
    return "\n".join(lines).rstrip() + "\n"
