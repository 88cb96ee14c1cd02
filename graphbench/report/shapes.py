"""What a launch shape costs next to what the rungs save: one row per
shape of a run with several --grid/--block values (graphbench.launch_shape).
With --attribute, each shape's per-stage GPU time of the graph and individual
rungs sits next to them: a shape changes the kernels' own time, the rungs
change what lies between the kernels, and the table shows both.

Every run report names the shape that ran: auto's cap of 32 blocks per SM
makes a different workload from NVIDIA's cudaGraphs sample (one thread per
element, uncapped) beyond about 2^20 elements, and a reader comparing the two
needs to see which one a figure is of. Where both auto and per-element were
measured, the busy-time difference between them is stated."""

from __future__ import annotations

import math

from rich.console import Group
from rich.text import Text

from graphbench.stats.summary import summarize_run
from graphbench.ladder import BASELINE, HEADLINE
from graphbench.launch_shape import AUTO_BLOCKS_PER_SM, DEFAULT_BLOCK, PER_ELEMENT, shape_name
from graphbench.pipeline.spec import AUTO
from graphbench.report.tables import elements_text, simple_table, us

KERNELS = "cuda.core"  # callables (torch, CuPy) launch their own kernels: no shape to state
RULES = {AUTO: f"one thread per element, at most {AUTO_BLOCKS_PER_SM} blocks per SM",
         PER_ELEMENT: "one thread per element, uncapped, as NVIDIA's cudaGraphs sample"}


def _blocks(dims) -> int:
    return math.prod(dims) if dims else 0


def shape_text(record) -> str:
    """'per-element (one thread per element, ...), 65,536 blocks of 256', or ''
    for a record whose stages are no CUDA kernels of graphbench's launching.
    The record holds the first stage's launch only: for a pipeline file, whose
    stages may fix their own grids, it is named as the first stage's."""
    config, pipeline = record.config, record.pipeline
    if pipeline.framework != KERNELS or not pipeline.grid:
        return ""
    blocks, threads = _blocks(pipeline.grid), _blocks(pipeline.block)
    launched = f"{blocks:,} blocks of {threads}"
    rule = RULES.get(config.grid)
    named = f"{config.grid} ({rule})" if rule else f"grid {config.grid}"
    sms = record.device.multiprocessors
    cap = AUTO_BLOCKS_PER_SM * sms if sms else None
    took = f"{pipeline.shaped_stages} grid-stride kernels took it (stages and any fused " \
        "kernel)" if pipeline.shaped_stages else ""
    if pipeline.file == "built-in":  # every stage grid-stride: the first stage's is every one's
        text = f"{named}, {launched}"
        if config.grid == AUTO and blocks == cap:
            text += f": the cap ({AUTO_BLOCKS_PER_SM} x {sms} SMs); --grid per-element " \
                    "launches uncapped, as NVIDIA's cudaGraphs sample does"
        return f"{text}; {took}" if took else text
    text = f"the first stage launched {launched}"
    if config.grid == AUTO and cap and blocks > cap:
        text += ", its own grid (more than auto gives)"
    if pipeline.shaped_stages == 0:
        return f"{text}; {shape_name(config.grid, config.block)} asked, but no stage is " \
               "grid-stride: each kept its own grid and block"
    return f"{text}; grid-stride stages: {named}{'; ' + took if took else ''}; a stage that " \
           "fixes its own grid or block keeps it"


def shape_line(record) -> Text | None:
    """The run report's line on the launch shape that ran."""
    text = shape_text(record)
    return Text(f"launch shape: {text}", style="dim") if text else None


def stage_busy(record) -> float | None:
    """The stage kernels' GPU busy time per iteration (individual and graph
    share this workload), the figure a launch shape changes."""
    modes = summarize_run(record).modes
    for name in (BASELINE, HEADLINE):
        if modes.get(name) and modes[name].busy:
            return modes[name].busy.median
    return None


def _order(record) -> tuple:
    """Device, block, depth, then size, as a sweep's rows run."""
    c = record.config
    return record.device.index, c.block or DEFAULT_BLOCK[0], c.depth, c.elements


def default_against_per_element(records) -> list[str]:
    """For each point measured with both auto and per-element (same device,
    size, depth and block): how much less (or more) busy time auto took. A
    point where both launched the same grid (auto's cap not reached) is the
    same workload twice, so it is counted, not compared."""
    def key(record):
        c = record.config
        return record.device.index, c.elements, c.depth, c.block or DEFAULT_BLOCK[0]
    autos = {key(r): r for r in records if r.config.grid == AUTO}
    pairs = [(autos[key(r)], r) for r in records
             if r.config.grid == PER_ELEMENT and key(r) in autos]
    # wrong results are no workload to time; a record without busy readings has no figure
    pairs = [(a, p) for a, p in pairs if a.verified and p.verified and stage_busy(a)
             and stage_busy(p)]
    devices = len({a.device.index for a, _ in pairs}) > 1
    depths = any(a.config.depth != 1 for a, _ in pairs)
    blocks = len({a.config.block or DEFAULT_BLOCK[0] for a, _ in pairs}) > 1
    lines, same = [], 0
    for auto, per in sorted(pairs, key=lambda pair: _order(pair[0])):
        if _blocks(auto.pipeline.grid) == _blocks(per.pipeline.grid):
            same += 1
            continue
        a, b = stage_busy(auto), stage_busy(per)
        where = f"{elements_text(auto.config.elements)} elements" + \
            (f", depth {auto.config.depth}" if depths else "") + \
            (f", block {auto.config.block or DEFAULT_BLOCK[0]}" if blocks else "") + \
            (f", device {auto.device.index}" if devices else "")
        lines.append(f"auto takes {abs(a / b - 1):.1%} {'less' if a < b else 'more'} GPU busy "
                     f"time than per-element at {where}: {a:,.2f} vs {b:,.2f} us per "
                     f"iteration ({_blocks(auto.pipeline.grid):,} vs "
                     f"{_blocks(per.pipeline.grid):,} blocks)")
    if same and not lines:
        lines.append("auto and per-element launched the same grid at every point both ran: "
                     f"auto's cap of {AUTO_BLOCKS_PER_SM} blocks per SM was not reached, so "
                     "they are one workload")
    elif same:
        lines.append(f"at {same} other {'point' if same == 1 else 'points'} the two launched "
                     f"the same grid (auto's cap of {AUTO_BLOCKS_PER_SM} blocks per SM not "
                     "reached)")
    return lines


ATTRIBUTED = (HEADLINE, BASELINE)  # the rung the shape is for, and the one it saves over
MOST_STAGES_SHOWN = 4  # beyond this (depth > 1) a cell gives the sum, not every stage


def stage_gpu(record, mode: str) -> tuple[float, ...] | None:
    """Each stage's GPU time in `mode` from the record's --attribute trace
    (None: no trace of that rung, or its kernels could not be assigned)."""
    from graphbench.stats.stage_figures import record_attribution, rung_figures

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
    busy = summary.modes.get(BASELINE) and summary.modes[BASELINE].busy
    graph = summary.modes.get(HEADLINE)
    speedup = summary.speedup.get(HEADLINE)
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
    from graphbench.stats.stage_figures import record_attribution

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
    differences = [Text(line, style="bold") for line in default_against_per_element(records)]
    return Group(table, Text(note, style="dim"), *differences)
