"""The `graphbench kernels` table: registers and spills per kernel."""

from __future__ import annotations

from rich.table import Table


def kernels_table(resources, arch: str) -> Table:
    table = Table(title=f"kernels compiled for {arch} (NVRTC, no GPU needed)",
                  title_justify="left")
    for column in ("kernel", "registers", "spill stores (B)", "spill loads (B)", "stack (B)"):
        table.add_column(column, justify="left" if column == "kernel" else "right")
    for k in sorted(resources, key=lambda r: r.name):
        table.add_row(k.name, str(k.registers), str(k.spill_stores), str(k.spill_loads),
                      str(k.stack_bytes))
    return table
