"""The host's own readings in a record: the CPU probe (a fixed pure-Python
loop that launches nothing, read after every set of rounds) and the launch
floor (an empty kernel's launch, a one-node graph's replay)."""

from __future__ import annotations

import numpy as np

from graphbench.record.machine import LAUNCH_PROBE, LAUNCH_PROBE_UNIT
from graphbench.record.model import RunRecord

FLOOR_METRICS = ("floor.launch", "floor.replay")  # an empty kernel's launch, a one-node replay


def floor_values(run, metric: str) -> tuple[float, ...]:
    """floor.launch: an empty kernel's launch, us each, as the launch probe
    read it after every set of rounds (many readings a process, through the
    whole sampling); floor.replay: a one-node graph's replay, from the
    launch floor measured after the rounds."""
    if metric == "floor.launch":
        if run.environment.host_probe != LAUNCH_PROBE:
            return ()
        return tuple(c.host_probe_us / LAUNCH_PROBE_UNIT for c in run.conditions
                     if c.host_probe_us)
    return run.launch_floor.graph_replay_us if run.launch_floor else ()


def cpu_probe_median(record: RunRecord) -> float | None:
    readings = [c.cpu_probe_us for run in record.runs for c in run.conditions
                if c.cpu_probe_us is not None]
    return float(np.median(readings)) if readings else None
