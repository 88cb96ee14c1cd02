"""run --attribute: a CUPTI kernel trace of every rung, taken after the
timed rounds, the checks and the busy reading after them, in a fresh
process (graphbench.measure.trace_child) that opens the same config and
seed, fills the same random inputs and builds the same rungs.

Why a fresh process: the state a process is left in by its timed rounds and
CuPy comparisons inflates what the trace reads (the gaps between a graph's
stage kernels, and busy time with them), and the inflation is per process
(docs/profiling.md#per-stage-attribution-run---attribute). The fresh process traces the
same graphs of the same kernels on the same inputs, with nothing timed or
verified before it. A pipeline object given to the Python API (or a kernel
set a test plants) cannot be rebuilt in another process: it is traced here,
in the measuring process, last, and its Attribution says so (`process`).

Why last, wherever it runs: tracing inflates what it watches and leaves the
process slower after it is disabled, for the rest of the process, so
nothing is timed after it.

Each rung runs TRACE_BATCHES batches of about TRACE_ITERATIONS iterations,
its calls enqueued back to back (as the timed rounds do), then a sync; CUPTI's
clock read before and after each batch says which records are whose, and the
records are flushed once per rung: a flush makes CUPTI ask for a new buffer
inside the next batch, so a flush per batch would put that cost inside every
traced batch (what it cost: docs/profiling.md#per-stage-attribution-run---attribute).
Every rung's batches are first timed with CUPTI off, before it is first
enabled, then traced after one traced batch that warms CUPTI up. Each stage
also runs alone (a sync and a flush around it), which names the kernels a
torch or CuPy stage launches.

BUFFER_BYTES, the size of each activity buffer CUPTI asks for: 1 MiB holds
about 4,000 kernel records, more than one rung's traced batches launch (a
warm-up and 4 batches of 8 iterations: 120 records for three stages,
hundreds for a torch pipeline), so with one flush per rung the buffer CUPTI
asks for in the rung's warm-up lasts to its flush.
No measurement chose 1 MiB over a larger buffer: the minimal CUPTI probe
the gaps were checked against used 8 MiB buffers.
"""

from __future__ import annotations

import dataclasses
import math
import time

from graphbench._version import install_command
from graphbench.errors import ConfigError
from graphbench.measure.kernels import LOOP_COUNT_KERNEL, LOOP_RESET_KERNEL
from graphbench.metrics import FUSED, STAGES, STAGES_PDL
from graphbench.record.trace import (MEASURING, Attribution, KernelActivity, RungTrace,
                                     StageWindow)

TRACE_BATCHES, TRACE_ITERATIONS = 4, 8
BUFFER_BYTES = 1 << 20  # per CUPTI activity buffer: see the module docstring
INSTALL = install_command("cupti")
_SINK: list = []        # what CUPTI delivered since the last take()
_REGISTERED: list = []  # CUPTI keeps one pair of buffer callbacks per process


def require_cupti():
    """cupti-python's module, or the one-line error that says what to install."""
    try:
        from cupti import cupti
    except ImportError:
        raise ConfigError("attribute", "needs cupti-python, which is not installed",
                          INSTALL) from None
    return cupti


def _request():
    return BUFFER_BYTES, 0  # the buffer's size; 0: no limit on the records it holds


def _complete(activities) -> None:
    # copied at once: CUPTI reuses the buffer behind the records
    _SINK.extend((a.name, int(a.start), int(a.end), int(a.graph_id), int(a.graph_node_id),
                  int(a.correlation_id), int(a.stream_id)) for a in activities)


class Tracer:
    """CUPTI's concurrent-kernel activity on and off; take() flushes and
    returns what ran since the last take, as records of one batch."""

    def __init__(self) -> None:
        self.cupti = require_cupti()
        if not _REGISTERED:
            self.cupti.activity_register_callbacks(_request, _complete)
            _REGISTERED.append(True)

    def __enter__(self) -> "Tracer":
        self.cupti.activity_enable(self.cupti.ActivityKind.CONCURRENT_KERNEL)
        self.take(0)  # nothing from before this pass
        return self

    def __exit__(self, *exc) -> None:
        self.cupti.activity_flush_all(1)
        self.cupti.activity_disable(self.cupti.ActivityKind.CONCURRENT_KERNEL)
        _SINK.clear()

    def now(self) -> int:
        """CUPTI's clock, the one its kernel records' start and end are in."""
        return int(self.cupti.get_timestamp())

    def take(self, batch: int) -> tuple[KernelActivity, ...]:
        self.cupti.activity_flush_all(1)  # forced: every record so far, delivered now
        found = tuple(KernelActivity(name if isinstance(name, str) else name.decode(), *rest,
                                     batch=batch) for name, *rest in _SINK)
        _SINK.clear()
        return found

    def take_batches(self, windows: list[tuple[int, int]]) -> tuple[KernelActivity, ...]:
        """Every record since the last take, each in the batch whose
        (start, end) window of CUPTI's clock holds its start; records outside
        every window (a warm-up batch) are dropped."""
        found = []
        for kernel in self.take(0):
            batch = next((b for b, (start, end) in enumerate(windows)
                          if start <= kernel.start_ns <= end), None)
            if batch is not None:
                found.append(dataclasses.replace(kernel, batch=batch))
        return tuple(found)


def calls_per_batch(mode) -> int:
    return max(1, math.ceil(TRACE_ITERATIONS / mode.iterations_per_call))


def timed_batch(session, mode) -> float:
    """One batch enqueued back to back and synced: wall us per iteration."""
    calls, step = calls_per_batch(mode), mode.step
    started = time.perf_counter()
    for _ in range(calls):
        step()
    session.stream.sync()
    return (time.perf_counter() - started) * 1e6 / (calls * mode.iterations_per_call)


def stage_steps(session, workload: str) -> list[tuple[str, object]]:
    """(stage, a call that enqueues it alone) for each stage of `workload`."""
    pipeline, stream = session.pipeline, session.stream
    if pipeline.framework == "cuda.core":
        from cuda.core import launch

        launches = {STAGES: pipeline.stage_launches, STAGES_PDL: pipeline.pdl_launches,
                    FUSED: [pipeline.fused_launch]}.get(workload) or []
        return [(name, lambda one=one: launch(stream, one.config, one.kernel, *one.args))
                for name, one in zip(_kernel_names(session, workload), launches)]
    if workload != STAGES:
        return []
    # a callable backend's stages, each called as its eager iteration calls it
    return [(stage.name, lambda fn=fn, args=args: fn(*args))
            for stage, (fn, args) in zip(pipeline.stages, pipeline._calls)]


def _kernel_names(session, workload: str) -> list[str]:
    plan = session.plan
    if workload == FUSED:
        return [plan.fused.kernel] if plan.fused else []
    return [s.pdl_kernel if workload == STAGES_PDL else s.kernel for s in plan.stages]


def stage_windows(session, tracer: Tracer, workloads) -> tuple[StageWindow, ...]:
    windows = []
    for workload in workloads:
        for stage, call in stage_steps(session, workload):
            call()
            session.device.sync()  # a stage may launch on streams of its own
            windows.append(StageWindow(stage, workload, tracer.take(0)))
    return tuple(windows)


def traceable(session) -> list:
    """Every rung of this run; the loop set to TRACE_ITERATIONS per launch
    (its --iters would trace a thousand iterations per call)."""
    for mode in session.modes:
        mode.set_round_iterations(TRACE_ITERATIONS)
    return list(session.modes)


def trace_rungs(session, process: str = MEASURING) -> Attribution:
    """The raw trace of every rung (see the module docstring); `process`
    says which process this is: FRESH or MEASURING."""
    modes = traceable(session)
    untraced = {}
    for mode in modes:
        timed_batch(session, mode)  # warm-up: the loop's new target, caches
        untraced[mode.name] = tuple(timed_batch(session, mode) for _ in range(TRACE_BATCHES))
    workloads = list(dict.fromkeys(mode.workload for mode in modes))
    rungs = {}
    with Tracer() as tracer:
        windows = stage_windows(session, tracer, workloads)
        for mode in modes:
            timed_batch(session, mode)  # traced warm-up: CUPTI's first records of this rung
            session.device.sync()
            walls, spans = [], []
            for _ in range(TRACE_BATCHES):
                start = tracer.now()
                walls.append(timed_batch(session, mode))
                session.device.sync()  # work a stage put on other streams, too
                spans.append((start, tracer.now()))
            rungs[mode.name] = RungTrace(mode.workload, calls_per_batch(mode) *
                                         mode.iterations_per_call, tracer.take_batches(spans),
                                         untraced[mode.name], tuple(walls))
    return Attribution(windows, rungs, (LOOP_RESET_KERNEL, LOOP_COUNT_KERNEL), _version(),
                       process)


def _version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("cupti-python")
    except metadata.PackageNotFoundError:  # on sys.path without its metadata
        return None
