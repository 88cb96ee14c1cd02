"""A grid of runs (elements x depth), one record for the whole sweep, saved
after every point so an interrupted sweep keeps what it measured."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from graphbench import provenance
from graphbench.analysis import crossover, working_set_bytes
from graphbench.config import RunConfig
from graphbench.errors import UsageError
from graphbench.record import RUN_SCHEMA, SCHEMA_VERSION, validate_record
from graphbench.stages import expand

SWEEP_SCHEMA = "graphbench/sweep"
DEFAULT_THRESHOLD = 1.1


@dataclass(frozen=True)
class SweepConfig:
    elements: tuple[int, ...]
    depths: tuple[int, ...]
    base: RunConfig
    threshold: float = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if not self.threshold > 0:
            raise UsageError(f"--threshold must be positive, got {self.threshold}")

    def points(self) -> list[RunConfig]:
        return [replace(self.base, elements=n, depth=d) for d in self.depths for n in self.elements]

    def to_dict(self) -> dict:
        return {"elements": list(self.elements), "depths": list(self.depths),
                "threshold": self.threshold, "run": self.base.to_dict()}


def new_sweep_record(config: SweepConfig) -> dict:
    return {"schema": SWEEP_SCHEMA, "schema_version": SCHEMA_VERSION,
            "tool": provenance.tool_info(), "created": provenance.utc_timestamp(),
            "host": provenance.host_info(), "config": config.to_dict(), "device": None,
            "points": [], "crossover": [], "complete": False}


def point_speedup(point: dict) -> float | None:
    entry = point.get("speedup", {}).get("graph")
    return entry["median"] if entry else None


def crossover_table(sweep: dict) -> list[dict]:
    """Per depth: where the graph speedup falls below the threshold, and
    whether a working set of that size still fits in L2."""
    threshold, rows = sweep["config"]["threshold"], []
    l2 = (sweep.get("device") or {}).get("l2_bytes")
    stages = sweep["config"]["run"]["stages"]
    for depth in sweep["config"]["depths"]:
        series = [(p["config"]["elements"], point_speedup(p)) for p in sweep["points"]
                  if p["config"]["depth"] == depth and point_speedup(p) is not None]
        if not series:
            continue
        found = crossover(series, threshold)
        at = found["elements"]
        fits = None if at is None or l2 is None else \
            working_set_bytes(int(at), expand(stages, depth)) <= l2
        rows.append({"depth": depth, **found, "fits_in_l2": fits})
    return rows


def run_sweep(config: SweepConfig, run_point: Callable[[RunConfig], dict],
              save: Callable[[dict], None] | None = None,
              on_point: Callable[[int, int, RunConfig], None] | None = None) -> dict:
    """Run every point; `save` is called with the sweep record after each one."""
    sweep = new_sweep_record(config)
    points = config.points()
    for index, point in enumerate(points):
        if on_point:
            on_point(index, len(points), point)
        record = run_point(point)
        sweep["device"] = sweep["device"] or record["device"]
        sweep["points"].append(record)
        sweep["crossover"] = crossover_table(sweep)
        sweep["complete"] = index == len(points) - 1
        if save:
            save(sweep)
    return sweep


def validate_sweep(data: dict, source: str) -> dict:
    validate_record(data, SWEEP_SCHEMA, source, required=("config", "points", "crossover"))
    for i, point in enumerate(data["points"]):
        validate_record(point, RUN_SCHEMA, f"{source} point {i}")
    return data
