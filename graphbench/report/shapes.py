"""What a launch shape costs next to what the rungs save: one row per
shape of a run with several --grid/--block values (graphbench.launch_shape).
With --attribute, each shape's per-stage GPU time of the graph and individual
rungs sits next to them: a shape changes the kernels' own time, the rungs
change what lies between the kernels, and the table shows both."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from graphbench.analyze.summary import summarize_run
from graphbench.launch_shape import shape_name
from graphbench.report.tables import simple_table, us


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


ATTRIBUTED = ("graph", "individual")  # the rung the shape is for, and the one it saves over
MOST_STAGES_SHOWN = 4  # beyond this (depth > 1) a cell gives the sum, not every stage


def stage_gpu(record, mode: str) -> tuple[float, ...] | None:
    """Each stage's GPU time in `mode` from the record's --attribute trace
    (None: no trace of that rung, or its kernels could not be assigned)."""
    from graphbench.analyze.stage_figures import record_attribution, rung_figures

    attribution = record_attribution(record)
    if attribution is None or mode not in attribution.rungs:
        return None
    return tuple(s.gpu_us for s in rung_figures(record, mode).stages) or None


def stage_cell(times: tuple[float, ...] | None) -> str:
    """'2.98 = 0.96/0.96/1.06': the stages' sum, then each (a shape changes
    the kernels' own time; the rungs change what lies between them)."""
    if not times:
        return "-"
    each = "/".join(f"{t:.2f}" for t in times) if len(times) <= MOST_STAGES_SHOWN \
        else f"{len(times)} stages"
    return f"{sum(times):.2f} = {each}"


def shape_row(record, traced: bool) -> list[str]:
    summary = summarize_run(record)
    busy = summary.modes.get("individual") and summary.modes["individual"].busy
    graph = summary.modes.get("graph")
    speedup = summary.speedup.get("graph")
    stages = [stage_cell(stage_gpu(record, mode)) for mode in ATTRIBUTED] if traced else []
    return [f"{shape_name(record.config.grid, record.config.block)}",
            f"{'x'.join(map(str, record.pipeline.grid))}x"
            f"{'x'.join(map(str, record.pipeline.block))}",
            f"device {record.device.index}", *stages,
            us(busy.median) if busy else "-",
            us(graph.wall.median) if graph else "-",
            f"{speedup.stats.median:.2f}x" if speedup else "-"]


def shapes_table(records) -> Group:
    """Shape, per-stage GPU time of the graph and individual rungs (with
    --attribute), the stages' GPU busy time, graph wall and speedup, per
    record; without a trace, a line on how to get the per-stage figures."""
    from graphbench.analyze.stage_figures import record_attribution

    traced = any(record_attribution(r) is not None for r in records)
    stage_columns = [f"{mode} stages GPU" for mode in ATTRIBUTED] if traced else []
    table = simple_table("launch shapes side by side, us per iteration",
                         ("shape", "launched", "device", *stage_columns, "GPU busy",
                          "graph wall", "graph speedup"),
                         [shape_row(record, traced) for record in records])
    if traced:
        order = "/".join(records[0].config.stages)
        note = f"stages GPU: the --attribute trace's kernel time per iteration, the sum = " \
               f"each stage ({order}, in chain order)"
    else:
        note = "per-stage GPU time per shape needs --attribute (a CUPTI trace of each rung)"
    return Group(table, Text(note, style="dim"))
