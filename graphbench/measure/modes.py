"""The ways of running one pipeline iteration, behind one interface.

A mode owns whatever it built (a graph) and exposes `step`, the callable the
timing loop calls once per iteration; `step` does nothing but enqueue work,
so the harness adds no cost of its own to what is measured.
"""

from __future__ import annotations

from typing import Callable

from graphbench.measure.graphs import CapturedGraph

GRAPH_COPIES = 16  # graph instantiations the held submit probe launches once each


BASE_SUFFIX = "@base"  # A/B: the baseline build's modes are named graph@base, ...


class Mode:
    kind = ""
    fused_output = False  # where the mode leaves its result

    def __init__(self, pipeline, stream, suffix: str = "") -> None:
        self.pipeline, self.stream, self.suffix = pipeline, stream, suffix
        self.name = self.kind + suffix
        self.step: Callable[[], None] = self._build_step()

    @property
    def workload(self) -> str:
        """The GPU work one step runs: modes with the same workload share busy time."""
        return ("fused" if self.fused_output else "stages") + self.suffix

    @property
    def launches(self) -> int:
        """Launch calls the host makes per step."""
        return len(self.pipeline.stages)

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


class GraphMode(Mode):
    """The stages captured once into a graph, replayed with one launch per iteration."""

    kind = "graph"
    launches = 1

    def _build_step(self):
        self.captured = CapturedGraph(self.stream, self.pipeline.enqueue_stages)
        launch_graph, stream = self.captured.graph.launch, self.stream
        return lambda: launch_graph(stream)

    def submit_steps(self, count: int) -> list[Callable[[], None]]:
        """Separately instantiated copies of the graph: graph.launch waits on
        the host while an earlier launch of the same executable graph is
        pending (406 us per launch behind a 20 ms hold on the H200), so one
        graph launched again and again measures that wait, not the CPU's
        cost of a launch."""
        copies = [CapturedGraph(self.stream, self.pipeline.enqueue_stages)
                  for _ in range(min(count, GRAPH_COPIES))]
        self._copies = getattr(self, "_copies", []) + copies
        stream = self.stream
        return [lambda launch=copy.graph.launch: launch(stream) for copy in copies]

    def close(self) -> None:
        for copy in getattr(self, "_copies", []):
            copy.close()
        self.captured.close()


class FusedMode(Mode):
    """One kernel doing all stages: the floor a user reaches by fusing."""

    kind = "fused"
    fused_output = True
    launches = 1

    def _build_step(self):
        # RunConfig only offers this mode when the pipeline has a fused kernel
        return self.pipeline.fused_enqueuer(self.stream)


MODE_TYPES = {cls.kind: cls for cls in (IndividualMode, GraphMode, FusedMode)}


def build_modes(names, pipeline, stream, base_pipeline=None) -> list[Mode]:
    """The modes asked for; with an A/B base pipeline, each once more on it."""
    builds = [(pipeline, "")] + ([(base_pipeline, BASE_SUFFIX)] if base_pipeline else [])
    built: list[Mode] = []
    try:
        for name in names:
            for on, suffix in builds:
                built.append(MODE_TYPES[name](on, stream, suffix))
    except BaseException:
        close_modes(built)
        raise
    return built


def close_modes(modes) -> None:
    for mode in modes:
        mode.close()
