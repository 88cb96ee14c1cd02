"""The rungs of the launch ladder (graphbench.ladder), behind one interface.

A mode owns whatever it built (a graph, packed arguments) and exposes
`step`, the callable the timing loop calls; `step` does nothing but enqueue
work, so the harness adds no cost of its own to what is measured. One call
of `step` runs `iterations_per_call` pipeline iterations: 1 for most rungs,
--unroll for unrolled, --iters for the device loop.
"""

from __future__ import annotations

from typing import Callable

from graphbench.ladder import BASE_SUFFIX, RUNG, Rung
from graphbench.measure.driver import driver_enqueuer
from graphbench.measure.graphs import CapturedGraph, Enqueue
from graphbench.measure.loop import DeviceLoop

MODE_TYPES: dict[str, type["Mode"]] = {}  # each rung's Mode subclass, filled as they are defined
GRAPH_COPIES = 16  # graph instantiations the held submit probe launches once each
LOOP_COPIES = 4    # fewer for the device loop: each copy holds a conditional node


class Mode:
    """One rung run on one pipeline backend. What the rung is (a graph or
    not, PDL, its GPU workload, launches per call) is read from its
    graphbench.ladder.Rung; a subclass only says how to build its step."""

    kind = ""

    def __init_subclass__(cls, **kwargs) -> None:
        """A subclass that names a rung runs it: adding a rung is its entry in
        graphbench.ladder.RUNGS and its Mode subclass, nothing else."""
        super().__init_subclass__(**kwargs)
        if cls.kind not in RUNG:
            raise TypeError(f"{cls.__name__}.kind {cls.kind!r} is no rung of graphbench.ladder")
        MODE_TYPES[cls.kind] = cls

    @property
    def rung(self) -> Rung:
        return RUNG[self.kind]

    @property
    def is_graph(self) -> bool:
        return self.rung.graph

    @property
    def pdl(self) -> bool:  # runs the PDL-aware stage kernels
        return self.rung.pdl

    @property
    def launches_per_call(self) -> int:  # 0: one per stage
        return 0 if self.rung.launches == "stages" else 1

    def __init__(self, pipeline, stream, suffix: str = "", kernels=None, unroll: int = 1) -> None:
        self.pipeline, self.stream, self.suffix = pipeline, stream, suffix
        self.kernels, self.unroll = kernels, unroll
        self.name = self.kind + suffix
        self.step: Callable[[], None] = self._build_step()

    @property
    def workload(self) -> str:
        """The GPU work one iteration runs: modes with the same workload
        share busy time (the same kernels, launched the same way)."""
        return self.rung.workload + self.suffix

    @property
    def iterations_per_call(self) -> int:
        return 1

    @property
    def busy_enqueue(self):
        """One iteration of this mode's GPU work for the busy probe to capture
        (None: it cannot be captured, and the record says so)."""
        return self.pipeline.workload_enqueue(self.rung.workload)

    @property
    def launches(self) -> int:
        """Launch calls the host makes per call of `step`."""
        return self.launches_per_call or len(self.pipeline.stages)

    def calls_per_round(self, iters: int) -> int:
        """Calls of `step` in a round of about `iters` iterations."""
        return max(1, round(iters / self.iterations_per_call))

    def set_round_iterations(self, iters: int) -> None:
        """The run's --iters, once known (the device loop runs that many)."""

    def submit_steps(self, count: int) -> list[Callable[[], None]]:
        """`count` steps for the held submit probe, each enqueued once."""
        return [self.step] * count

    def _build_step(self) -> Callable[[], None]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class IndividualMode(Mode):
    """One launch() per stage per iteration: the CPU pays every launch."""

    kind = "individual"

    def _build_step(self):
        return self.pipeline.stage_enqueuer(self.stream)


class DriverMode(Mode):
    """cuLaunchKernel per stage with arguments packed once."""

    kind = "driver"

    def _build_step(self):
        p = self.pipeline
        return driver_enqueuer(self.stream, p.stage_launches)


class PdlMode(Mode):
    """launch() per stage with programmatic dependent launch."""

    kind = "pdl"

    def _build_step(self):
        return self.pipeline.stage_enqueuer(self.stream, pdl=True)


class GraphMode(Mode):
    """The stages captured once into a graph, replayed with one launch per call."""

    kind = "graph"

    @property
    def capture_enqueue(self) -> Enqueue:
        """What one call's graph holds, captured onto a builder."""
        return self.pipeline.enqueue_stages

    @property
    def captured_iterations(self) -> int:
        return 1

    @property
    def iterations_per_call(self) -> int:
        return self.captured_iterations

    def _capture(self):
        """Captured by the pipeline's backend (cuda.core, torch or CuPy capture)."""
        return self.pipeline.capture(self.stream, self.capture_enqueue, self.captured_iterations)

    def _build_step(self):
        self.captured = self._capture()
        return self.captured.replayer(self.stream)

    def lifecycle(self):
        """This graph's capture, instantiate, upload and first launch, timed."""
        return self.pipeline.lifecycle(self.stream, self.capture_enqueue,
                                       self.captured_iterations)

    def submit_steps(self, count: int) -> list[Callable[[], None]]:
        """Separately instantiated copies of the graph: graph.launch waits on
        the host while an earlier launch of the same executable graph is
        pending (docs/measurement.md#busy-time-submit-time-and-the-sm-clock),
        so one graph launched again and again measures that wait, not the
        CPU's cost of a launch."""
        copies = [self._capture() for _ in range(min(count, GRAPH_COPIES))]
        self._copies = getattr(self, "_copies", []) + copies
        return [copy.replayer(self.stream) for copy in copies]

    def close(self) -> None:
        for copy in getattr(self, "_copies", []):
            copy.close()
        if hasattr(self, "captured"):
            self.captured.close()


class GraphPdlMode(GraphMode):
    """The PDL launches captured into one graph: programmatic edges between stages."""

    kind = "graph-pdl"

    @property
    def capture_enqueue(self) -> Enqueue:
        return self.pipeline.enqueue_stages_pdl


class UnrolledMode(GraphMode):
    """--unroll iterations captured into one graph, launched once per K."""

    kind = "unrolled"

    @property
    def captured_iterations(self) -> int:
        return self.unroll


class LoopMode(GraphMode):
    """One graph whose device-side while loop runs --iters iterations per launch."""

    kind = "loop"

    def _build_step(self):
        self.loop = DeviceLoop(self.kernels, self.pipeline.enqueue_stages)
        return super()._build_step()

    @property
    def capture_enqueue(self) -> Enqueue:
        return self.loop.enqueue

    @property
    def iterations_per_call(self) -> int:
        return self.loop.iterations

    def set_round_iterations(self, iters: int) -> None:
        self.loop.set_iterations(iters)

    def submit_steps(self, count: int) -> list[Callable[[], None]]:
        """Copies of the loop graph that each run one iteration: what the host
        pays to launch does not depend on how long the loop runs, and each
        held reading then waits for a few iterations, not a few rounds."""
        self._probe_loop = DeviceLoop(self.kernels, self.pipeline.enqueue_stages)
        copies = [CapturedGraph(self.stream, self._probe_loop.enqueue)
                  for _ in range(min(count, LOOP_COPIES))]
        self._copies = getattr(self, "_copies", []) + copies
        stream = self.stream
        return [lambda launch=copy.graph.launch: launch(stream) for copy in copies]

    def close(self) -> None:
        super().close()
        self.loop.close()
        if hasattr(self, "_probe_loop"):
            self._probe_loop.close()


class FusedMode(Mode):
    """One kernel doing all stages: the floor a user reaches by fusing."""

    kind = "fused"

    def _build_step(self):
        # RunConfig only offers this mode when the pipeline has a fused kernel
        return self.pipeline.fused_enqueuer(self.stream)


class TorchCompileMode(Mode):
    """torch.compile(mode="reduce-overhead"): torch's compiled kernels in the
    CUDA graphs it makes itself. Compiled once, here; compiling is its one-off
    cost. Its graphs cannot be captured again, so it has no busy probe."""

    kind = "torch-compile"
    busy_enqueue = None

    def _build_step(self):
        step, self.compile_us, self.first_us = self.pipeline.compile_iteration()
        return step

    def lifecycle(self):
        return self.pipeline.compile_lifecycle(self.compile_us, self.first_us)


def build_modes(names, pipeline, stream, base_pipeline=None, kernels=None,
                unroll: int = 1) -> list[Mode]:
    """The modes asked for; with an A/B base pipeline, each once more on it."""
    builds = [(pipeline, "")] + ([(base_pipeline, BASE_SUFFIX)] if base_pipeline else [])
    built: list[Mode] = []
    try:
        for name in names:
            for on, suffix in builds:
                built.append(MODE_TYPES[name](on, stream, suffix, kernels, unroll))
    except BaseException:
        close_modes(built)
        raise
    return built


def close_modes(modes) -> None:
    for mode in modes:
        mode.close()
