"""A grid of runs (elements x depth), one record for the whole sweep, saved
after every point so an interrupted sweep keeps what it measured."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from graphbench.config import RunConfig, SweepConfig
from graphbench.measure import provenance
from graphbench.record.model import RunRecord, SweepRecord


def new_sweep_record(config: SweepConfig) -> SweepRecord:
    return SweepRecord(tool=provenance.tool_info(), created=provenance.utc_timestamp(),
                       host=provenance.host_info(), config=config, device=None, points=(),
                       complete=False)


def run_sweep(config: SweepConfig, run_point: Callable[[RunConfig], RunRecord],
              save: Callable[[SweepRecord], None] | None = None,
              on_point: Callable[[int, int, RunConfig], None] | None = None) -> SweepRecord:
    """Run every point; `save` is called with the sweep record after each one.
    Never before the first: a start that fails (no driver, a missing kernel)
    must leave whatever file the record would go to as it was."""
    sweep = new_sweep_record(config)
    points = config.points()
    for index, point in enumerate(points):
        if on_point:
            on_point(index, len(points), point)
        record = run_point(point)
        sweep = replace(sweep, device=sweep.device or record.device,
                        points=sweep.points + (record,), complete=index == len(points) - 1)
        if save:
            save(sweep)
    return sweep
