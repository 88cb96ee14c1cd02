"""Several launch shapes (--grid and --block lists) in one `run`: one run,
and one record, per shape, then a table of what each shape costs next to
what the rungs save. A record's file gets the shape in its name, as a
device's does: out.block256.grid1056.json."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path

from graphbench.cli.progress import console
from graphbench.errors import UsageError
from graphbench.launch_shape import shape_suffix


def shapes_of(args) -> list[tuple[str, int | None]]:
    """Every (grid, block) asked for, blocks outermost."""
    grid, block = getattr(args, "grid", "auto"), getattr(args, "block", None)  # sweep: none
    grids = grid if isinstance(grid, tuple) else (grid,)
    blocks = block if isinstance(block, tuple) else (block,)
    return [(grid, block) for block, grid in itertools.product(blocks, grids)]


def first_shape(args) -> dict:
    grid, block = shapes_of(args)[0]
    return {"grid": grid, "block": block}


def per_shape_path(path: str, grid: str, block: int | None) -> str:
    target = Path(path)
    return str(target.with_name(f"{target.stem}.{shape_suffix(grid, block)}{target.suffix}"))


def shape_args(args, grid: str, block: int | None, several: bool):
    """`args` for one shape: that shape alone, and its own output files
    (every output the run was given)."""
    from graphbench.record.output_paths import check_splittable
    from graphbench.report.outputs import OUTPUTS

    one = copy.copy(args)
    one.grid, one.block = (grid,), (block,)
    for output in OUTPUTS.values() if several else ():
        path = getattr(args, output.name, None)
        if path:
            check_splittable(output.flag, path, "several launch shapes", "each shape gets "
                             "its own (out.block256.grid1056.json, ...)")
            setattr(one, output.name, per_shape_path(path, grid, block))
    return one


def run_shapes(args, run_each) -> int:
    """`run_each(args) -> (records, exit code)` once per shape; with several,
    every shape's output paths are checked first, and the shapes are shown
    side by side at the end."""
    from graphbench.cli.outputs import check_outputs

    shapes = shapes_of(args)
    several = len(shapes) > 1
    runs = [shape_args(args, grid, block, several) for grid, block in shapes]
    if several and args.baseline:
        raise UsageError("--baseline gates one launch shape", "give one --grid and --block")
    for one in runs if several else ():
        check_outputs(one, None if one.device == "all" else one.device)
    records, exit_code = [], 0
    for one in runs:
        done, code = run_each(one)
        records += done
        exit_code = max(exit_code, code)
    if several:
        show_shapes(records)
    return exit_code


def show_shapes(records) -> None:
    from graphbench.report.shapes import shapes_table

    console().print(shapes_table(records))
