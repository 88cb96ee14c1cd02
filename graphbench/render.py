"""Turn records into rich renderables and text. Pure functions of a record:
the live run and a saved file render the same."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

def _us(value: float) -> str:
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


def header(record: dict) -> Text:
    dev, cfg = record["device"], record["config"]
    return Text.assemble(
        ("graphbench ", "bold"), (record["tool"]["version"], "dim"), "  ",
        (f"{dev['name']}", "bold cyan"), f" (cc {dev['compute_capability']}, device {dev['index']})",
        f"\n{cfg['elements']:,} elements  x  {cfg['iters']:,} iterations  x  "
        f"{record['sampling']['rounds']} rounds   (stop: {record['sampling']['stop_reason']})")


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
        f"  (individual wall / graph wall, median of {entry['n']} paired rounds; "
        f"IQR {entry['q1']:.2f}..{entry['q3']:.2f}, 95% CI {low:.2f}..{high:.2f})")


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


def run_report(record: dict) -> Group:
    parts = [header(record)]
    if record["modes"]:
        parts.append(timing_table(record))
    line = speedup_line(record)
    if line:
        parts.append(line)
    parts.append(verification_lines(record))
    return Group(*parts)


def to_text(renderable, width: int = 100) -> str:
    """Plain text of a renderable, for tests and files."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable)
    return console.file.getvalue()
