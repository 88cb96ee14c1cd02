"""One-off and floor costs, each timed over several repetitions with a
synchronised host clock: what a graph costs to build, what one launch costs
on this machine, and how long the GPU is really busy per iteration."""

from __future__ import annotations

import time
from typing import Callable

Enqueue = Callable[[object], None]  # enqueue one iteration onto a stream or builder
FLOOR_LAUNCHES = 1000
BUSY_TARGET_US = 1000.0  # GPU time of one busy-time replay
BUSY_MIN_ITERATIONS, BUSY_MAX_ITERATIONS = 10, 1000
HOLD_START_US, HOLD_MAX_US = 100.0, 20_000.0  # GPU hold ahead of a busy-time replay


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


def busy_iterations(per_iteration_us: float) -> int:
    """Iterations in one busy-time replay: about BUSY_TARGET_US of GPU work,
    long against the graph's start-up and the events' resolution."""
    wanted = BUSY_TARGET_US / max(per_iteration_us, 1e-3)
    return int(min(BUSY_MAX_ITERATIONS, max(BUSY_MIN_ITERATIONS, wanted)))


class BusyProbe:
    """GPU time per iteration with no host gaps: many iterations captured into
    one graph, replayed behind a `hold` kernel and timed with CUDA events.

    Without the hold the start event fires as soon as the host records it and
    the GPU then waits for the graph's submission, so a slow host would read
    as a slow GPU. With it the whole replay is queued before the GPU reaches
    the start event; the probe checks that (the start event is still pending
    when submission ends) and doubles the hold when it was not.

    Measured once after every set of rounds, so its samples span the whole
    sampling period like the rounds do, and drift shows up as noise."""

    def __init__(self, device, stream, enqueue: Enqueue, hold_kernel) -> None:
        from cuda.core import EventOptions, LaunchConfig

        options = EventOptions(timing_enabled=True)
        self._stream, self._enqueue = stream, enqueue
        self._start, self._end = device.create_event(options), device.create_event(options)
        self._hold = (LaunchConfig(grid=1, block=1), hold_kernel)
        self.hold_us = HOLD_START_US
        self._builder = self._graph = None
        self._build(BUSY_MIN_ITERATIONS)
        self.measure()  # warm-up; grows the hold until it covers submission
        self._build(busy_iterations(self.measure()))
        self.measure()  # warm-up of the final graph

    def _build(self, iterations: int) -> None:
        self._close_graph()
        self.iterations = iterations
        self._builder = capture(self._stream, self._enqueue, iterations)
        self._graph = self._builder.complete()
        self._graph.upload(self._stream)

    def measure(self) -> float:
        """GPU microseconds per iteration, from one held replay."""
        while True:
            device_ms, covered = self._held_replay()
            if covered or self.hold_us >= HOLD_MAX_US:
                return device_ms * 1e3 / self.iterations
            self.hold_us *= 2

    def _held_replay(self) -> tuple[float, bool]:
        import numpy as np
        from cuda.core import launch

        stream, (config, kernel) = self._stream, self._hold
        stream.sync()
        launch(stream, config, kernel, np.uint64(int(self.hold_us * 1e3)))
        stream.record(self._start)
        self._graph.launch(stream)
        stream.record(self._end)
        covered = not self._start.is_done  # the GPU was still holding: all was queued
        stream.sync()
        return self._end - self._start, covered

    def _close_graph(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._builder.close()

    def close(self) -> None:
        self._close_graph()
        self._start.close()
        self._end.close()
