"""One-off and floor costs, each timed over several repetitions with a
synchronised host clock: what a graph costs to build, and what one launch
costs on this machine."""

from __future__ import annotations

import time
from typing import Callable

from graphbench.measure.graph_memory import per_executable
from graphbench.measure.graphs import CapturedGraph, Enqueue, capture
from graphbench.record.model import LaunchFloorSamples, LifecycleSamples, NodeCostSamples

FLOOR_LAUNCHES = 1000


def time_graph_lifecycle(stream, enqueue: Enqueue, iterations: int = 1,
                         reps: int = 10, free_memory: Callable[[], int] | None = None,
                         read_memory: bool = True) -> LifecycleSamples:
    """Capture (of `iterations` enqueues), instantiate (complete), upload and
    first launch, each timed alone. The first launch runs everything the
    graph holds: a device loop's first launch runs all its iterations.

    The device memory one executable takes is read once, in the first
    repetition, after its timed phases (graph_memory.per_executable)."""
    free_memory = free_memory or device_free_memory
    clock, phases, memory = time.perf_counter, [[], [], [], []], []
    for rep in range(reps):
        stream.sync()
        t0 = clock()
        builder = capture(stream, enqueue, iterations)
        t1 = clock()
        graph = builder.complete()
        t2 = clock()
        graph.upload(stream)
        stream.sync()
        t3 = clock()
        if read_memory and rep == 0:
            reading = per_executable(stream, builder, free_memory)
            memory += [reading] if reading is not None else []
        t3_launch = clock()  # the first launch is timed from after the memory read
        graph.launch(stream)
        stream.sync()
        t4 = clock()
        graph.close()
        builder.close()
        for phase, (start, end) in zip(phases, ((t0, t1), (t1, t2), (t2, t3), (t3_launch, t4))):
            phase.append((end - start) * 1e6)
    return LifecycleSamples(*(tuple(phase) for phase in phases), graph_memory_bytes=tuple(memory))


NODE_COST_REPEATS = (1, 2, 4, 8, 16)  # iterations captured: 16 x 3 stages spans 3..48 nodes
NODE_COST_REPS = 3


def time_node_costs(stream, enqueue: Enqueue, launches_per_iteration: int,
                    repeats=NODE_COST_REPEATS, reps: int = NODE_COST_REPS) -> NodeCostSamples:
    """The lifecycle of graphs of 1, 2, 4, ... captured iterations (each
    iteration `launches_per_iteration` kernel nodes), `reps` captures each:
    the samples a per-node fit of capture and instantiate cost is made from.
    Measured in the same process and at the same size as the timed rounds.
    No memory is read: after the rung's own lifecycles the driver's pool
    holds what closed graphs left, and small graphs take it in whole chunks,
    the same for few nodes and for many, so a per-node fit says nothing
    (docs/profiling.md)."""
    nodes, capture_us, instantiate_us = [], [], []
    for count in repeats:
        life = time_graph_lifecycle(stream, enqueue, count, reps, read_memory=False)
        nodes += [count * launches_per_iteration] * reps
        capture_us += life.capture_us
        instantiate_us += life.instantiate_us
    return NodeCostSamples(tuple(nodes), tuple(capture_us), tuple(instantiate_us))


def device_free_memory() -> int:
    from graphbench.measure.device import free_and_total_memory

    return free_and_total_memory()[0]


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
