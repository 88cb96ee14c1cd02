"""What a launch shape costs next to what the rungs save: one row per
shape of a run with several --grid/--block values (graphbench.launch_shape)."""

from __future__ import annotations

from rich.text import Text

from graphbench.analyze.summary import summarize_run
from graphbench.launch_shape import shape_name
from graphbench.report.tables import Responsive, simple_table, us


def shape_text(record) -> str:
    """'grid 1056 x block 256 (3 of 3 stages; 1056 blocks)', or '' for the pipeline's own."""
    config, pipeline = record.config, record.pipeline
    if pipeline.shaped_stages is None:
        return ""
    launched = "x".join(map(str, pipeline.grid))
    return f"{shape_name(config.grid, config.block)} ({pipeline.shaped_stages} grid-stride " \
           f"kernels took it, the fused one included; the first stage launched {launched} blocks)"


def shape_line(record) -> Text | None:
    """The run report's line on the launch shape; stages that fix their own keep it."""
    text = shape_text(record)
    if not text:
        return None
    return Text(f"launch shape {text}; a stage that fixes its own grid or block keeps it",
                style="dim")


def shapes_table(records) -> Responsive:
    """Shape, the stages' GPU busy time, graph wall and speedup, per record."""
    rows = []
    for record in records:
        summary = summarize_run(record)
        busy = summary.modes.get("individual") and summary.modes["individual"].busy
        graph = summary.modes.get("graph")
        speedup = summary.speedup.get("graph")
        rows.append([f"{shape_name(record.config.grid, record.config.block)}",
                     f"{'x'.join(map(str, record.pipeline.grid))}x"
                     f"{'x'.join(map(str, record.pipeline.block))}",
                     f"device {record.device.index}",
                     us(busy.median) if busy else "-",
                     us(graph.wall.median) if graph else "-",
                     f"{speedup.stats.median:.2f}x" if speedup else "-"])
    return simple_table("launch shapes side by side, us per iteration",
                        ("shape", "launched", "device", "GPU busy", "graph wall",
                         "graph speedup"), rows)
