"""Shared table builders and number formats."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from graphbench.counts import power_label

LEFT_COLUMNS = ("gate", "verdict", "note", "status", "fits in L2")


def us(value: float) -> str:
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


def byte_size(count: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} B"


elements_text = power_label  # a table's element count: 2^20, or 12,288


class Responsive:
    """A table where it fits, else the same figures stacked: one block per
    row, one figure per line. Rich would otherwise squeeze a wide table into
    a narrow terminal by cutting every number to an ellipsis."""

    def __init__(self, table: Table, columns, rows, min_width: int) -> None:
        self.table, self.columns, self.rows, self.min_width = table, columns, rows, min_width

    def __rich_console__(self, console, options):
        if options.max_width >= self.min_width:
            yield self.table
            return
        if self.table.title:
            yield Text(str(self.table.title), style="bold")
        for row in self.rows:
            cells = [cell.plain if isinstance(cell, Text) else str(cell) for cell in row]
            yield Text(cells[0], style="bold")
            for column, cell in zip(self.columns[1:], cells[1:]):
                if cell:
                    yield Text(f"  {column or '-'}: {cell}")
        if self.table.caption:
            yield Text(str(self.table.caption), style="dim")


def measured_width(table: Table) -> int:
    """The width `table` needs to show every cell whole."""
    console = Console(file=io.StringIO(), width=1000, color_system=None)
    return console.measure(table).maximum


def responsive(table: Table, columns, rows) -> Responsive:
    return Responsive(table, columns, rows, measured_width(table))


def simple_table(title: str, columns, rows, wrap=(), compact: bool = False) -> Responsive:
    """compact: no padding at the table's edges and one space between
    columns, for tables that must fit 80 columns without cutting a number.
    Narrower than the table needs, the rows are stacked instead."""
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD,
                  pad_edge=not compact, collapse_padding=compact)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 or column in LEFT_COLUMNS else "right",
                         no_wrap=column not in wrap)
    for row in rows:
        table.add_row(*row)
    return responsive(table, columns, rows)


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
