"""GPU busy time per iteration, with no host gaps in it."""

from __future__ import annotations

from graphbench.measure.graphs import CapturedGraph, Enqueue

BUSY_TARGET_US = 1000.0  # GPU time of one busy-time replay
BUSY_MIN_ITERATIONS, BUSY_MAX_ITERATIONS = 10, 1000
HOLD_START_US, HOLD_MAX_US = 100.0, 20_000.0  # GPU hold ahead of a busy-time replay


def busy_iterations(per_iteration_us: float) -> int:
    """Iterations in one busy-time replay: about BUSY_TARGET_US of GPU work,
    long against the graph's start-up and the events' resolution."""
    wanted = BUSY_TARGET_US / max(per_iteration_us, 1e-3)
    return int(min(BUSY_MAX_ITERATIONS, max(BUSY_MIN_ITERATIONS, wanted)))


class BusyProbe:
    """Many iterations captured into one graph, replayed behind a `hold`
    kernel and timed with CUDA events.

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
        self._captured: CapturedGraph | None = None
        self._build(BUSY_MIN_ITERATIONS)
        self.measure()  # warm-up; grows the hold until it covers submission
        self._build(busy_iterations(self.measure()))
        self.measure()  # warm-up of the final graph

    @property
    def iterations(self) -> int:
        return self._captured.iterations

    def _build(self, iterations: int) -> None:
        self._close_graph()
        self._captured = CapturedGraph(self._stream, self._enqueue, iterations)

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
        self._captured.graph.launch(stream)
        stream.record(self._end)
        covered = not self._start.is_done  # the GPU was still holding: all was queued
        stream.sync()
        return self._end - self._start, covered

    def _close_graph(self) -> None:
        if self._captured is not None:
            self._captured.close()
            self._captured = None

    def close(self) -> None:
        self._close_graph()
        self._start.close()
        self._end.close()
