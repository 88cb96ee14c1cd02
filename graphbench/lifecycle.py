"""One-off and floor costs, each timed over several repetitions with a
synchronised host clock: what a graph costs to build, what one launch costs
on this machine, and how long the GPU is really busy per iteration."""

from __future__ import annotations

import time
from typing import Callable

from graphbench.timing import EventTimer

Enqueue = Callable[[object], None]  # enqueue one iteration onto a stream or builder
FLOOR_LAUNCHES = 1000
BUSY_TARGET_S = 0.005  # length of one busy-time replay (at most 100 iterations)


def capture(stream, enqueue: Enqueue, iterations: int = 1):
    """Return an open builder holding `iterations` captured iterations."""
    builder = stream.create_graph_builder()
    builder.begin_building()
    for _ in range(iterations):
        enqueue(builder)
    builder.end_building()
    return builder


def time_graph_lifecycle(stream, enqueue: Enqueue, reps: int = 10) -> dict[str, list[float]]:
    """Capture, instantiate (complete), upload and first launch, each timed alone."""
    clock, phases = time.perf_counter, ("capture_us", "instantiate_us", "upload_us",
                                        "first_launch_us")
    times: dict[str, list[float]] = {phase: [] for phase in phases}
    for _ in range(reps):
        stream.sync()
        t0 = clock()
        builder = capture(stream, enqueue)
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
            times[phase].append((end - start) * 1e6)
    return times


def _per_launch_us(stream, launch_once: Callable[[], None], count: int) -> float:
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(count):
        launch_once()
    stream.sync()
    return (time.perf_counter() - t0) / count * 1e6


def time_launch_floor(stream, empty_kernel, reps: int = 5,
                      count: int = FLOOR_LAUNCHES) -> dict[str, list[float]]:
    """Wall time per launch of an empty kernel, and per replay of a one-node graph."""
    from cuda.core import LaunchConfig, launch

    config = LaunchConfig(grid=1, block=1)
    kernel_launch = lambda: launch(stream, config, empty_kernel)  # noqa: E731
    builder = capture(stream, lambda target: launch(target, config, empty_kernel))
    graph = builder.complete()
    graph.upload(stream)
    replay = lambda: graph.launch(stream)  # noqa: E731
    try:
        for warm in (kernel_launch, replay):
            _per_launch_us(stream, warm, count // 10)
        times: dict[str, list[float]] = {"kernel_launch_us": [], "graph_replay_us": []}
        for _ in range(reps):
            times["kernel_launch_us"].append(_per_launch_us(stream, kernel_launch, count))
            times["graph_replay_us"].append(_per_launch_us(stream, replay, count))
        return times
    finally:
        graph.close()
        builder.close()


class BusyProbe:
    """GPU time per iteration with no host gaps: many iterations captured into
    one graph, replayed and timed with CUDA events, divided by the count.

    Measured once after every set of rounds, so its samples span the whole
    sampling period like the rounds do, and drift shows up as noise."""

    def __init__(self, device, stream, enqueue: Enqueue, wall_us: float) -> None:
        self.iterations = max(1, min(100, int(BUSY_TARGET_S * 1e6 / max(wall_us, 1e-3))))
        self._stream = stream
        self._builder = capture(stream, enqueue, self.iterations)
        self._graph = self._builder.complete()
        self._graph.upload(stream)
        self._timer = EventTimer(device, stream)
        self._replay = lambda: self._graph.launch(stream)
        self.measure()  # warm-up

    def measure(self) -> float:
        return self._timer.time_round(self._replay, 1).device_s * 1e6 / self.iterations

    def close(self) -> None:
        self._timer.close()
        self._graph.close()
        self._builder.close()
