"""Derived figures, pure functions of measured numbers: where the time goes,
when a graph pays for itself, and whether the working set lives in L2."""

from __future__ import annotations

import math
from typing import Sequence

FLOAT_BYTES = 4


def break_even_iterations(build_us: float, individual_wall_us: float,
                          graph_wall_us: float) -> float | None:
    """Replays needed before a graph's one-off build cost is paid back by the
    time it saves per iteration; None when replay saves nothing."""
    saving = individual_wall_us - graph_wall_us
    if saving <= 0:
        return None
    return build_us / saving


def working_set_bytes(elements: int, stages: Sequence) -> int:
    """Distinct bytes one iteration touches: every input read and every
    stage's output written (each vector counted once)."""
    inputs = {"a"} | {stage.operand for stage in stages}
    return (len(inputs) + len(stages)) * elements * FLOAT_BYTES


def cache_state(elements: int, stages: Sequence, l2_bytes: int | None, flush_l2: bool) -> dict:
    size = working_set_bytes(elements, stages)
    return {"working_set_bytes": size, "l2_bytes": l2_bytes,
            "l2_resident": None if l2_bytes is None else (size <= l2_bytes and not flush_l2),
            "flush_l2": flush_l2}


def time_breakdown(wall_us: float, submit_us: float, device_us: float, busy_us: float | None,
                   launches: int) -> dict:
    """Per iteration: the host's cost per launch call, and the part of the wall
    time the GPU spent idle (waiting for launches) rather than computing."""
    return {
        "launches_per_iteration": launches,
        "submit_per_launch_us": submit_us / launches,
        "device_us": device_us,
        "busy_us": busy_us,
        "idle_gap_us": None if busy_us is None else max(wall_us - busy_us, 0.0),
        "launch_bound": None if busy_us is None else wall_us > 2 * busy_us,
    }


def crossover(points: Sequence[tuple[int, float]], threshold: float) -> dict:
    """Smallest element count at which the speedup falls below `threshold`,
    interpolated linearly in log2(elements) between the grid points around it.

    status: "crossover" (between two points), "below-at-smallest" (the first
    point is already below) or "none-in-range" (never below)."""
    ordered = sorted(points)
    for i, (elements, speedup) in enumerate(ordered):
        if speedup >= threshold:
            continue
        if i == 0:
            return {"status": "below-at-smallest", "elements": float(elements),
                    "between": [elements, elements]}
        (n0, s0), x1 = ordered[i - 1], math.log2(elements)
        x0 = math.log2(n0)
        x = x0 + (s0 - threshold) / (s0 - speedup) * (x1 - x0)
        return {"status": "crossover", "elements": 2.0 ** x, "between": [n0, elements]}
    return {"status": "none-in-range", "elements": None, "between": None}
