"""The typed records. Raw measurements and the configuration are the truth;
every statistic is derived from them (graphbench.stats.summary), never stored
here or read back. A run record holds one ProcessRun per process that measured
it; merging is a key check then concatenating runs. Only record.codec spells them."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Callable, Iterable, TypeVar

import numpy as np

from graphbench.config import RunConfig, SweepConfig
from graphbench.metrics import ROUND_METRICS, STAGES
from graphbench.record.columns import (Columns, busy_array, frozen, joined, relative_busy,
                                       round_array, run_columns)
from graphbench.record.comparison import Comparison, Verdict  # noqa: F401 - part of the model
from graphbench.record.trace import Attribution
from graphbench.record.graph_costs import LifecycleSamples, NodeCostSamples  # noqa: F401 - too
from graphbench.record.machine import (DeviceInfo, Environment, HostInfo,  # noqa: F401 - and these
                                       ToolInfo)
from graphbench.record.readings import BusyReading, Condition, SubmitReading  # noqa: F401 - too

TIME_METRICS = ROUND_METRICS + ("busy",)  # the times a mode summary states (busy: once per set)
REFERENCE_WORKLOAD = "stream"  # what relative busy time is over (graphbench.measure.reference)


@dataclass(frozen=True)
class Check:
    name: str            # e.g. "graph", "graph: replay with new data"
    passed: bool
    elements: int
    bad_elements: int
    max_abs_error: float | None  # None: a NaN or infinite element (JSON has neither)
    first_bad_index: int | None


@dataclass(frozen=True)
class ModeSamples:
    """Per-iteration microseconds of one mode, one value per timed round.

    `workload` names the GPU work the mode runs ("stages" or "fused"):
    modes with the same workload share one series of busy readings, since
    the GPU does the same work for them."""

    wall_us: tuple[float, ...]
    submit_us: tuple[float, ...]   # enqueue time of the whole round (can back-pressure)
    device_us: tuple[float, ...]
    workload: str = STAGES
    # the host probe right before and right after each round (older records: empty)
    probe_before_us: tuple[float, ...] = ()
    probe_after_us: tuple[float, ...] = ()

    @property
    def round_probes(self) -> tuple[float, ...]:
        """Each round's host-speed reading: the mean of the probes around it."""
        return tuple((a + b) / 2 for a, b in zip(self.probe_before_us, self.probe_after_us))


@dataclass(frozen=True)
class LaunchFloorSamples:
    """Wall microseconds per launch, one value per repetition of many launches."""

    kernel_launch_us: tuple[float, ...]   # an empty kernel
    graph_replay_us: tuple[float, ...]    # a one-node graph


@dataclass(frozen=True)
class UpdateSamples:
    """Re-pointing an instantiated graph at other buffers, against building anew."""

    node_update_us: tuple[float, ...]
    whole_graph_update_us: tuple[float, ...]
    recapture_instantiate_us: tuple[float, ...]


EXTRA_TYPES = {"launch_floor": LaunchFloorSamples, "graph_update": UpdateSamples}


@dataclass(frozen=True)
class ProcessRun:
    """What one process measured."""

    seed: int
    rounds: int
    stop_reason: str
    elapsed_s: float             # the whole run, compile to record
    sampling_s: float | None     # the timed rounds alone; None when none ran
    modes: dict[str, ModeSamples]
    conditions: tuple[Condition, ...]
    checks: tuple[Check, ...]
    launch_floor: LaunchFloorSamples | None = None
    lifecycles: dict[str, LifecycleSamples] = field(default_factory=dict)  # by graph mode
    graph_update: UpdateSamples | None = None
    node_costs: NodeCostSamples | None = None  # the graph rung rebuilt at several node counts
    environment: Environment = field(default_factory=Environment)
    skipped: tuple[str, ...] = ()  # what was not measured, and why
    unavailable: dict[str, str] = field(default_factory=dict)  # rungs that cannot run here, why
    busy_after_checks: dict[str, BusyReading] = field(default_factory=dict)  # by workload
    attribution: Attribution | None = None  # run --attribute: CUPTI's kernel records


@dataclass(frozen=True)
class PipelineInfo:
    stages: tuple[str, ...]
    depth: int
    kernel_launches_per_iteration: int
    grid: tuple[int, ...]
    block: tuple[int, ...]
    kernel_source: str = "shipped"
    kernel_source_sha256: str | None = None
    harness_sha256: str | None = None      # the instrument's own kernels
    ab_source: str | None = None           # A/B: the baseline build's source ...
    ab_source_sha256: str | None = None    # ... whose modes are named MODE@base
    name: str = "add_mul_sub"              # the pipeline file's pipeline
    description: str = ""
    file: str = "built-in"                 # --pipeline as given
    file_sha256: str | None = None         # of the pipeline file
    working_set_bytes: int | None = None   # every buffer, once
    checked: tuple[str, ...] = ()          # the outputs every check compares
    framework: str = "cuda.core"           # what ran the stages: cuda.core kernels, torch, cupy
    framework_version: str | None = None   # its version (older records: not recorded)
    shaped_stages: int | None = None       # stages --grid/--block shaped (None: not asked)


@dataclass(frozen=True)
class LegacyProcesses:
    """A version-1 merged record kept its processes' rounds concatenated, and
    their medians: kept here so the gate reads such a baseline as it did."""

    count: int
    medians: dict[str, tuple[float, ...]]


T = TypeVar("T")


def _memo(record: object, table: str, key: object, make: Callable[[], T]) -> T:
    """make() once per record and key: a record never changes, and a report asks
    for its series dozens of times (20,000 rounds' conditions take a while to walk)."""
    cache: dict[object, T] = record.__dict__.setdefault(table, {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


@dataclass(frozen=True)
class RunRecord:
    tool: ToolInfo
    created: str
    host: HostInfo
    packages: dict[str, str | None]
    device: DeviceInfo
    config: RunConfig
    pipeline: PipelineInfo
    runs: tuple[ProcessRun, ...]
    legacy_processes: LegacyProcesses | None = None
    gate_points: tuple[RunRecord, ...] = ()  # the same run at each of --gate-sizes

    @property
    def process_count(self) -> int:
        return self.legacy_processes.count if self.legacy_processes else len(self.runs)

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(self.runs[0].modes) if self.runs else ()

    def samples(self, mode: str, metric: str) -> tuple[float, ...]:
        """One metric of one mode over every process, in order: per round for
        wall, submit and device; per set of rounds for busy (the mode's
        workload's readings), cycles, relbusy (busy over the GPU reference's
        reading of the same set) and held_submit."""
        return _memo(self, "_series", (mode, metric), lambda: self._gathered(mode, metric))

    def series(self, mode: str, metric: str) -> np.ndarray:
        """samples() as a read-only array of floats, made once per record and key."""
        return _memo(self, "_arrays", (mode, metric), lambda: self._array(mode, metric))

    @property
    def condition_columns(self) -> Columns:
        """Every process's readings as columns (graphbench.record.columns)."""
        return _memo(self, "_columns", None,
                     lambda: joined([run_columns(run) for run in self.runs]))

    def _gathered(self, mode: str, metric: str) -> tuple[float, ...]:
        if metric in ("busy", "cycles"):  # the mode's workload's: modes share them
            return _memo(self, "_workload_series", (self.workload(mode), metric),
                         lambda: tuple(self.series(mode, metric).tolist()))
        if metric not in ROUND_METRICS:
            return tuple(self.series(mode, metric).tolist())
        series = [getattr(run.modes[mode], f"{metric}_us") for run in self.runs
                  if mode in run.modes]
        return tuple(series[0]) if len(series) == 1 else tuple(x for one in series for x in one)

    def _array(self, mode: str, metric: str) -> np.ndarray:
        if metric in ROUND_METRICS:
            parts = [round_array(run.modes[mode], metric) for run in self.runs
                     if mode in run.modes]
            return parts[0] if len(parts) == 1 else frozen(np.concatenate(parts or [np.zeros(0)]))
        workload, columns = self.workload(mode), self.condition_columns
        if metric in ("busy", "cycles"):
            return _memo(self, "_workload_arrays", (workload, metric),
                         lambda: busy_array(columns.busy.get(workload or ""), metric))
        if metric == "relbusy":
            return relative_busy(columns.busy.get(workload or ""),
                                 columns.reference.get(REFERENCE_WORKLOAD))
        readings = columns.submit.get(mode) if metric == "held_submit" else None
        return readings.us if readings else frozen(())

    def workload(self, mode: str) -> str | None:
        run = next((run for run in self.runs if mode in run.modes), None)
        return run.modes[mode].workload if run else None

    def modes_sharing_busy(self, mode: str) -> tuple[str, ...]:
        return tuple(m for m in self.mode_names if self.workload(m) == self.workload(mode))

    def extra_samples(self, section: str) -> LaunchFloorSamples | UpdateSamples | None:
        """launch_floor or graph_update over every process that measured it;
        None when none did."""
        return _pooled(EXTRA_TYPES[section], [getattr(run, section) for run in self.runs])

    def lifecycle_samples(self, mode: str) -> LifecycleSamples | None:
        """A graph mode's one-off costs over every process that measured them."""
        return _pooled(LifecycleSamples, [run.lifecycles.get(mode) for run in self.runs])

    def node_cost_samples(self) -> NodeCostSamples | None:
        return _pooled(NodeCostSamples, [run.node_costs for run in self.runs])

    @property
    def unavailable(self) -> dict[str, str]:
        return {m: why for run in self.runs for m, why in run.unavailable.items()}

    @property
    def conditions(self) -> tuple[Condition, ...]:
        runs = self.runs  # one process's are its own tuple, not a copy
        return _memo(self, "_conditions", None, lambda: tuple(runs[0].conditions) if len(runs) == 1
                     else tuple(c for run in runs for c in run.conditions))

    @property
    def checks(self) -> tuple[Check, ...]:
        if len(self.runs) == 1:
            return self.runs[0].checks
        return tuple(Check(**{**vars(c), "name": f"process {i + 1}: {c.name}"})
                     for i, run in enumerate(self.runs) for c in run.checks)

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def rounds(self) -> int:
        return sum(run.rounds for run in self.runs)

    @property
    def stop_reason(self) -> str:
        return ", ".join(sorted({run.stop_reason for run in self.runs}))


def _pooled(cls: type[T], parts: Iterable[T | None]) -> T | None:
    """One `cls` whose every series is the concatenation of the parts' (None: no parts)."""
    kept = [part for part in parts if part]
    if not kept:
        return None
    return cls(**{f.name: tuple(x for part in kept for x in getattr(part, f.name))
                  for f in fields(cls)})  # type: ignore[arg-type]  # cls is a dataclass


@dataclass(frozen=True)
class SweepRecord:
    tool: ToolInfo
    created: str
    host: HostInfo
    config: SweepConfig
    device: DeviceInfo | None
    points: tuple[RunRecord, ...]
    complete: bool

    def point(self, elements: int, depth: int, shape: tuple[str, int | None] | None = None
              ) -> RunRecord | None:
        """The point at `elements` and `depth`, of launch `shape` (grid, block) if given."""
        return next((p for p in self.points if p.config.elements == elements
                     and p.config.depth == depth
                     and (shape is None or (p.config.grid, p.config.block) == shape)), None)
