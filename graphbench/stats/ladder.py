"""The launch ladder's verdict: how far each rung is from the GPU floor, the
fastest rung that needs no kernel change, and the fastest overall."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.ladder import BASELINE, RUNG, kind, ladder_order


@dataclass(frozen=True)
class LadderRow:
    mode: str
    wall_us: float
    submit_us: float
    busy_us: float | None
    idle_gap_us: float | None
    speedup: float | None    # individual wall / this rung's wall, paired by round
    from_floor: float | None  # wall / the GPU floor: 1.0 is the floor itself


@dataclass(frozen=True)
class Ladder:
    rows: tuple[LadderRow, ...]
    floor_us: float | None          # GPU busy time of the pipeline's own kernels
    fastest_unchanged: str | None   # fastest rung that runs the pipeline's kernels as they are
    fastest: str | None


def gpu_floor(summary) -> float | None:
    """The stage kernels' own GPU time per iteration: the busy time of the
    workload individual, graph and the other unchanged rungs share."""
    for name, mode in summary.modes.items():
        if kind(name) == name and RUNG.get(name) and not RUNG[name].kernel_change and mode.busy:
            return mode.busy.median
    return None


def ladder(summary) -> Ladder:
    floor = gpu_floor(summary)
    rows = []
    for name in ladder_order(summary.modes):
        mode, gap = summary.modes[name], summary.breakdown.get(name)
        speed = summary.speedup.get(name)
        rows.append(LadderRow(
            name, mode.wall.median, mode.launch_cost.median,
            mode.busy.median if mode.busy else None, gap.idle_gap_us if gap else None,
            1.0 if name == BASELINE else speed.stats.median if speed else None,
            mode.wall.median / floor if floor else None))
    own = [r for r in rows if RUNG.get(r.mode)]  # not the A/B base build's modes
    unchanged = [r for r in own if not RUNG[r.mode].kernel_change]
    return Ladder(tuple(rows), floor, _fastest(unchanged), _fastest(own))


def _fastest(rows) -> str | None:
    return min(rows, key=lambda r: r.wall_us).mode if rows else None
