"""One-off and floor costs, each timed over several repetitions with a
synchronised host clock: what a graph costs to build, and what one launch
costs on this machine."""

from __future__ import annotations

import time
from typing import Callable

from graphbench.measure.graphs import CapturedGraph, Enqueue, capture
from graphbench.record.model import LaunchFloorSamples, LifecycleSamples

FLOOR_LAUNCHES = 1000


def time_graph_lifecycle(stream, enqueue: Enqueue, iterations: int = 1,
                         reps: int = 10) -> LifecycleSamples:
    """Capture (of `iterations` enqueues), instantiate (complete), upload and
    first launch, each timed alone. The first launch runs everything the
    graph holds: a device loop's first launch runs all its iterations."""
    clock, phases = time.perf_counter, [[], [], [], []]
    for _ in range(reps):
        stream.sync()
        t0 = clock()
        builder = capture(stream, enqueue, iterations)
        t1 = clock()
        graph = builder.complete()
        t2 = clock()
        graph.upload(stream)
        stream.sync()
        t3 = clock()
        graph.launch(stream)
        stream.sync()
        t4 = clock()
        graph.close()
        builder.close()
        for phase, (start, end) in zip(phases, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
            phase.append((end - start) * 1e6)
    return LifecycleSamples(*(tuple(phase) for phase in phases))


def _per_launch_us(stream, launch_once: Callable[[], None], count: int) -> float:
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(count):
        launch_once()
    stream.sync()
    return (time.perf_counter() - t0) / count * 1e6


def time_launch_floor(stream, empty_kernel, reps: int = 5,
                      count: int = FLOOR_LAUNCHES) -> LaunchFloorSamples:
    """Wall time per launch of an empty kernel, and per replay of a one-node graph."""
    from cuda.core import LaunchConfig, launch

    config = LaunchConfig(grid=1, block=1)
    kernel_launch = lambda: launch(stream, config, empty_kernel)  # noqa: E731
    one_node = CapturedGraph(stream, lambda target: launch(target, config, empty_kernel))
    graph = one_node.graph
    replay = lambda: graph.launch(stream)  # noqa: E731
    try:
        for warm in (kernel_launch, replay):
            _per_launch_us(stream, warm, count // 10)
        kernel_us, replay_us = [], []
        for _ in range(reps):
            kernel_us.append(_per_launch_us(stream, kernel_launch, count))
            replay_us.append(_per_launch_us(stream, replay, count))
        return LaunchFloorSamples(tuple(kernel_us), tuple(replay_us))
    finally:
        one_node.close()
