"""The raw CUPTI kernel activity of `run --attribute` (graphbench.measure.
attribution): what the GPU ran, when, in which graph node, as CUPTI
reported it. Per-stage times, gaps, shares and capture escapes are derived
from these records (graphbench.stats.attribution), never stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# where the trace was taken (graphbench.measure.trace_child says why it matters)
FRESH = "fresh"          # a process of its own, started after the run's timing and checks
MEASURING = "measuring"  # the process that timed and verified the run, after all of that

@dataclass(frozen=True)
class KernelActivity:
    """One CUPTI concurrent-kernel record. Times are CUPTI's nanosecond
    timestamps; graph_id and graph_node_id are 0 for a kernel launched
    outside a graph. `batch` is the traced batch it ran in: each batch is
    enqueued back to back and followed by a sync and a flush, so a batch
    holds a known number of pipeline iterations."""

    name: str
    start_ns: int
    end_ns: int
    graph_id: int = 0
    graph_node_id: int = 0
    correlation_id: int = 0
    stream_id: int = 0
    batch: int = 0


@dataclass(frozen=True)
class StageWindow:
    """The kernels one stage launched when it ran alone (eager, a sync and
    a flush before and after): how a callable stage's kernels are known."""

    stage: str
    workload: str                       # the GPU work it belongs to: stages, stages-pdl, fused
    kernels: tuple[KernelActivity, ...]


@dataclass(frozen=True)
class RungTrace:
    """A rung's traced batches, and the same batches' wall time per pipeline
    iteration without tracing (timed before CUPTI was first enabled) and
    with it: what tracing cost."""

    workload: str
    iterations_per_batch: int
    kernels: tuple[KernelActivity, ...]
    untraced_wall_us: tuple[float, ...] = ()   # per batch, per iteration
    traced_wall_us: tuple[float, ...] = ()


@dataclass(frozen=True)
class Attribution:
    stages: tuple[StageWindow, ...]
    rungs: dict[str, RungTrace] = field(default_factory=dict)
    harness_kernels: tuple[str, ...] = ()     # graphbench's own (the loop's counter kernels)
    cupti_version: str | None = None
    process: str = MEASURING  # FRESH or MEASURING; records that lack it were traced in-process
