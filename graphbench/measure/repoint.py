"""Re-point an instantiated graph at different buffers without capturing it
again, prove it computes on the new buffers and leaves the old ones alone,
and time it against a whole-graph update and a fresh capture + instantiate."""

from __future__ import annotations

import time
from typing import Hashable, Iterable

from graphbench.measure.graphs import CapturedGraph, capture
from graphbench.measure.verify import Check, compare_outputs, untouched
from graphbench.record.model import UpdateSamples


def chain_order(nodes: Iterable[Hashable], edges: Iterable[tuple]) -> list:
    """The nodes of a linear chain (what a one-stream capture makes), first to last."""
    nodes = list(nodes)
    successor = dict(edges)
    heads = [n for n in nodes if n not in set(successor.values())]
    if len(heads) != 1 or len(successor) != len(nodes) - 1:
        raise ValueError("the captured graph is not a single chain")
    order = [heads[0]]
    while order[-1] in successor:
        order.append(successor[order[-1]])
    return order


class GraphRepointer:
    """An executable graph of one pipeline's stages whose kernel nodes can be
    pointed at another pipeline's buffers (same stages, same launch shape)."""

    def __init__(self, stream, pipeline) -> None:
        self.stream = stream
        self.captured = CapturedGraph(stream, pipeline.enqueue_stages)
        self.graph = self.captured.graph
        definition = self.captured.builder.graph_definition
        self.nodes = chain_order(definition.nodes(), definition.edges())

    def point_at(self, pipeline) -> None:
        for node, one in zip(self.nodes, pipeline.stage_launches):
            self.graph[node].update(config=one.config, kernel=one.kernel, args=one.args)

    def update_from_capture(self, pipeline) -> None:
        builder = capture(self.stream, pipeline.enqueue_stages)
        try:
            self.graph.update(builder)
        finally:
            builder.close()

    def run_once(self) -> None:
        self.graph.launch(self.stream)
        self.stream.sync()

    def close(self) -> None:
        self.captured.close()


def _times_us(fn, reps: int) -> tuple[float, ...]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return tuple(times)


def verify_repoint(repointer: GraphRepointer, old, new, rng, tolerance: tuple[float, float],
                   method: str, apply) -> list[Check]:
    """Fresh data in `new`, poison in both, re-point, replay once, check both."""
    new.fill_random(rng)
    old.poison()
    new.poison()
    apply(new)
    repointer.run_once()
    return compare_outputs(f"graph update ({method}): new buffers", new.result(),
                           new.reference(), tolerance) + \
        [untouched(f"graph update ({method}): old buffers not written", old.outputs)]


def graph_update_experiment(stream, old, new, rng, tolerance: tuple[float, float],
                            reps: int = 10) -> tuple[UpdateSamples, list[Check]]:
    repointer = GraphRepointer(stream, old)
    try:
        checks = verify_repoint(repointer, old, new, rng, tolerance, "kernel nodes",
                                repointer.point_at)
        repointer.point_at(old)
        checks += verify_repoint(repointer, old, new, rng, tolerance, "whole graph",
                                 repointer.update_from_capture)
        flip = iter([new, old] * reps)
        times = UpdateSamples(
            node_update_us=_times_us(lambda: repointer.point_at(next(flip)), 2 * reps),
            whole_graph_update_us=_times_us(lambda: repointer.update_from_capture(new), reps),
            recapture_instantiate_us=_times_us(lambda: _capture_and_instantiate(stream, new),
                                               reps))
        return times, checks
    finally:
        repointer.close()


def _capture_and_instantiate(stream, pipeline) -> None:
    builder = capture(stream, pipeline.enqueue_stages)
    graph = builder.complete()
    graph.close()
    builder.close()
