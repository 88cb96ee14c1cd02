"""Shared table builders and number formats."""

from __future__ import annotations

import io
import math

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

LEFT_COLUMNS = ("gate", "verdict", "note", "status", "fits in L2")


def us(value: float) -> str:
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


def byte_size(count: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"


def elements_text(count: float) -> str:
    exponent = math.log2(count) if count > 0 else 0
    return f"2^{exponent:.0f}" if exponent == int(exponent) else f"{count:,.0f}"


def simple_table(title: str, columns, rows, wrap=(), compact: bool = False) -> Table:
    """compact: no padding at the table's edges and one space between
    columns, for tables that must fit 80 columns without cutting a number."""
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD,
                  pad_edge=not compact, collapse_padding=compact)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 or column in LEFT_COLUMNS else "right",
                         no_wrap=column not in wrap)
    for row in rows:
        table.add_row(*row)
    return table


def markdown_table(columns, rows) -> str:
    def cell(value) -> str:
        return str(value.plain if isinstance(value, Text) else value).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def to_text(renderable, width: int = 100) -> str:
    """Plain text of a renderable, for tests and files."""
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(renderable)
    return console.file.getvalue()
