"""--grid and --block: the launch shape of a kernel pipeline's grid-stride
stages, as an axis of a run.

A stage whose grid is "auto" and whose block is the default (256 threads,
graphbench.pipeline.spec.Stage) is a grid-stride kernel that any shape computes
correctly; --grid and --block replace its shape. A stage that fixes its own
grid, or its own block, keeps both: its kernel may depend on them (a
reduction's partial sums, a row per block). The shape can move GPU time a
lot at some sizes and hardly at others (docs/profiling.md).

grid: "auto" (the pipeline's own rule: one thread per element, at most 32
blocks per SM), "per-element" (one thread per element, uncapped: the shape
NVIDIA's cuda-samples cudaGraphs launches, (N + 255) / 256 blocks of 256), a
block count ("1056"), or blocks per SM ("8/sm" or "8x"). "auto" and
"per-element" launch the same grid until auto's cap binds (32 blocks per SM
at 256 threads: about 2^20 elements on a 132-SM GPU); beyond it they are two
different workloads, and their GPU time differs (docs/profiling.md).
Pure: no GPU; the per-SM count is resolved when the launches are built."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from graphbench.counts import parse_count
from graphbench.errors import UsageError

AUTO = "auto"  # a grid-stride stage's grid sized from its work (graphbench.pipeline.spec.Stage)

PER_ELEMENT = "per-element"
AUTO_BLOCKS_PER_SM = 32      # auto's cap (graphbench.measure.pipeline.GRID_BLOCKS_PER_SM)
DEFAULT_BLOCK = (256,)
MAX_BLOCK_THREADS = 1024     # CUDA's limit on every GPU
MAX_GRID_BLOCKS = 2**31 - 1  # grid x
MAX_BLOCKS_PER_SM = 64       # more would be queued blocks, not a shape


class ShapeError(ValueError):
    """A grid or block text that is no launch shape; the message says why,
    `remedy` what to give instead where the text alone does not say it."""

    remedy = ""


@dataclass(frozen=True)
class GridRule:
    """A grid asked for by --grid: `blocks` in all, or `per_sm` per SM."""

    blocks: int | None = None
    per_sm: int | None = None

    def resolve(self, multiprocessors: int | None) -> int:
        if self.blocks is not None:
            return self.blocks
        if not multiprocessors:
            raise ShapeError(f"--grid {self.per_sm}/sm needs the device's SM count, which "
                             "the driver did not give")
        return self.per_sm * multiprocessors


NAMED_GRIDS = (AUTO, PER_ELEMENT)


def normal_grid(text: str) -> str:
    """'auto', 'per-element', 'N' or 'N/sm', checked; ShapeError otherwise."""
    text = str(text).strip().lower()
    if text in NAMED_GRIDS:
        return text
    per_sm = text.endswith(("/sm", "x"))
    try:  # a block count in every form --block and --elements take: 1056, 2^10, 1e3
        value = parse_count(text.removesuffix("/sm").removesuffix("x"), "grid")
    except UsageError:
        raise ShapeError(f"grid {text!r} is not auto, per-element, a block count or N/sm") \
            from None
    limit = MAX_BLOCKS_PER_SM if per_sm else MAX_GRID_BLOCKS
    if not 0 < value <= limit:
        raise ShapeError(f"grid {text} must be from 1 to {limit:,} "
                         f"{'blocks per SM' if per_sm else 'blocks'}")
    return f"{value}/sm" if per_sm else str(value)


def check_block(block: int | None) -> None:
    if block is not None and (isinstance(block, bool) or not 0 < block <= MAX_BLOCK_THREADS):
        raise ShapeError(f"block must be from 1 to {MAX_BLOCK_THREADS} threads (CUDA's limit "
                         f"on every GPU), got {block}")


def per_element_blocks(work: int, block: int) -> int:
    """One thread per element, as NVIDIA's sample launches: ceil(work / block)
    blocks, uncapped. ShapeError beyond CUDA's grid-x limit, which the launch
    would otherwise fail on after the GPU work had begun."""
    blocks = max(1, -(-int(work) // int(block)))
    if blocks > MAX_GRID_BLOCKS:
        error = ShapeError(f"grid per-element at {work:,} elements needs {blocks:,} blocks "
                           f"of {block}, more than CUDA's grid-x limit {MAX_GRID_BLOCKS:,}")
        error.remedy = "use a larger --block, or --grid auto (at most 32 blocks per SM)"
        raise error
    return blocks


def check_grid(grid: str, elements: int, block: int | None) -> None:
    """A normal grid that cannot launch at `elements` (per-element beyond
    CUDA's limit): ShapeError. A grid-stride stage loops over the elements; a
    stage whose work is another count is checked again at its plan."""
    if grid == PER_ELEMENT:
        per_element_blocks(elements, block or DEFAULT_BLOCK[0])


def grid_rule(grid: str):
    """AUTO, PER_ELEMENT, or the GridRule a normal grid text names."""
    if grid in NAMED_GRIDS:
        return grid
    return GridRule(per_sm=int(grid[:-3])) if grid.endswith("/sm") else GridRule(int(grid))


def shapeable(stage) -> bool:
    return stage.grid == AUTO and tuple(stage.block) == DEFAULT_BLOCK


def with_launch_shape(plan, grid: str = AUTO, block: int | None = None):
    """`plan` with its shapeable stages launched at `grid` x `block`, and how
    many stages (of the plan's and its fused stage's) took the shape."""
    if grid == AUTO and block is None:
        return plan, None
    rule, threads = grid_rule(grid), (block,) if block else DEFAULT_BLOCK

    def shaped(stage):
        if not shapeable(stage):
            return stage
        # per-element is a fixed count once the stage's work is known: the
        # launches resolve it as they resolve any block count
        launched = GridRule(per_element_blocks(stage.work, threads[0])) \
            if rule == PER_ELEMENT else rule
        return dataclasses.replace(stage, grid=launched, block=threads)
    try:
        stages = tuple(shaped(s) for s in plan.stages)
        fused = shaped(plan.fused) if plan.fused else None
    except ShapeError as exc:  # a stage's own work past the limit: still before any GPU work
        raise UsageError(f"--{exc}", exc.remedy) from None
    count = sum(shapeable(s) for s in (*plan.stages, *([plan.fused] if plan.fused else [])))
    if not count:  # the shape would be ignored: a record would name a shape that never ran
        given = " and ".join([f"--grid {grid}"] * (grid != AUTO) + [f"--block {block}"] * bool(block))
        raise UsageError(f"{given} shape the grid-stride stages (grid auto, block "
                         f"{DEFAULT_BLOCK[0]}); the {plan.name} pipeline has none",
                         "leave out --grid and --block")
    return dataclasses.replace(plan, stages=stages, fused=fused), count


def shape_name(grid: str, block: int | None) -> str:
    """'grid 1056 x block 256', as reports and file names say it."""
    return f"grid {grid} x block {block or DEFAULT_BLOCK[0]}"


def shape_suffix(grid: str, block: int | None) -> str:
    """'block256.grid1056' for out.block256.grid1056.json."""
    return f"block{block or DEFAULT_BLOCK[0]}.grid{grid.replace('/', '-')}"
