"""Derived figures, pure functions of measured numbers: where the time goes,
when a graph pays for itself, whether the working set lives in L2, and
where a sweep's speedup fades."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence



def break_even_iterations(build_us: float, individual_wall_us: float,
                          graph_wall_us: float) -> float | None:
    """Replays needed before a graph's one-off build cost is paid back by the
    time it saves per iteration; None when replay saves nothing."""
    saving = individual_wall_us - graph_wall_us
    if saving <= 0:
        return None
    return build_us / saving


@dataclass(frozen=True)
class CacheState:
    working_set_bytes: int
    l2_bytes: int | None
    l2_resident: bool | None
    flush_l2: bool


def cache_state(size: int, l2_bytes: int | None, flush_l2: bool) -> CacheState:
    resident = None if l2_bytes is None else (size <= l2_bytes and not flush_l2)
    return CacheState(size, l2_bytes, resident, flush_l2)


BACK_PRESSURE = 1.5  # a round's enqueue this many times the held figure: the queue filled


@dataclass(frozen=True)
class Breakdown:
    """Per iteration: the host's cost per launch call, and the part of the
    wall time the GPU spent idle (waiting for launches) rather than computing."""

    launches_per_iteration: float
    submit_per_launch_us: float
    device_us: float
    busy_us: float | None
    idle_gap_us: float | None
    launch_bound: bool | None
    back_pressured: bool | None = None  # the rounds' enqueue waited for room in the queue


def launch_bound(wall_us: float, submit_us: float, busy_us: float | None,
                 held_submit: bool) -> bool | None:
    """Launch-bound when the host needs longer to enqueue an iteration than
    the GPU needs to run it. That takes a submit figure free of back-pressure
    (the held probe); records made before it existed fall back to wall time
    over twice the busy time."""
    if busy_us is None:
        return None
    return submit_us > busy_us if held_submit else wall_us > 2 * busy_us


def back_pressured(round_submit_us: float, held_submit_us: float | None) -> bool | None:
    """A round's enqueue time includes waiting for the queue when it is far
    above the cost of enqueueing while the queue cannot fill."""
    if held_submit_us is None:
        return None
    return round_submit_us > BACK_PRESSURE * held_submit_us


def time_breakdown(wall_us: float, round_submit_us: float, device_us: float,
                   busy_us: float | None, launches: float,
                   held_submit_us: float | None = None) -> Breakdown:
    submit = held_submit_us if held_submit_us is not None else round_submit_us
    return Breakdown(launches, submit / launches, device_us, busy_us,
                     None if busy_us is None else max(wall_us - busy_us, 0.0),
                     launch_bound(wall_us, submit, busy_us, held_submit_us is not None),
                     back_pressured(round_submit_us, held_submit_us))


@dataclass(frozen=True)
class Crossover:
    """Where the speedup falls below the threshold. status: "crossover"
    (between two points), "below-at-smallest" or "none-in-range"."""

    status: str
    elements: float | None
    between: tuple[int, int] | None


def crossover(points: Sequence[tuple[int, float]], threshold: float) -> Crossover:
    """Smallest element count at which the speedup falls below `threshold`,
    interpolated linearly in log2(elements) between the grid points around it."""
    ordered = sorted(points)
    for i, (elements, speedup) in enumerate(ordered):
        if speedup >= threshold:
            continue
        if i == 0:
            return Crossover("below-at-smallest", float(elements), (elements, elements))
        (n0, s0), x1 = ordered[i - 1], math.log2(elements)
        x0 = math.log2(n0)
        x = x0 + (s0 - threshold) / (s0 - speedup) * (x1 - x0)
        return Crossover("crossover", 2.0 ** x, (n0, elements))
    return Crossover("none-in-range", None, None)
