"""Figures measured behind a hold kernel, so the host's speed cannot leak in:
GPU busy time per iteration (BusyProbe), and the host's cost to enqueue an
iteration while the launch queue can neither drain nor fill (SubmitProbe)."""

from __future__ import annotations

import time

from graphbench.measure.graphs import CapturedGraph, Enqueue
from graphbench.record.model import BusyReading, SubmitReading

BUSY_TARGET_US = 1000.0  # GPU time of one busy-time replay
BUSY_MIN_ITERATIONS, BUSY_MAX_ITERATIONS = 10, 1000
HOLD_START_US, HOLD_MAX_US = 100.0, 20_000.0
SUBMIT_LAUNCHES = 64  # launches enqueued per submit reading: far below what the queue holds


def busy_iterations(per_iteration_us: float) -> int:
    """Iterations in one busy-time replay: about BUSY_TARGET_US of GPU work,
    long against the graph's start-up and the events' resolution."""
    wanted = BUSY_TARGET_US / max(per_iteration_us, 1e-3)
    return int(min(BUSY_MAX_ITERATIONS, max(BUSY_MIN_ITERATIONS, wanted)))


def submit_iterations(launches_per_iteration: int) -> int:
    return max(2, SUBMIT_LAUNCHES // max(1, launches_per_iteration))


class Hold:
    """A one-thread kernel that keeps the GPU busy for `us` microseconds and
    measures the SM clock while it spins. Whatever the host enqueues behind
    it waits; the caller checks with an event that it was still holding once
    the host was done (`covered`), and doubles the hold when it was not."""

    def __init__(self, device, stream, kernel) -> None:
        import cupy
        from cuda.core import EventOptions, LaunchConfig

        self._stream, self._kernel, self._config = stream, kernel, LaunchConfig(grid=1, block=1)
        self._clock = cupy.zeros(2, dtype=cupy.uint64)
        self.after = device.create_event(EventOptions(timing_enabled=True))
        self.us = HOLD_START_US

    def launch(self) -> None:
        import numpy as np
        from cuda.core import launch

        self._stream.sync()
        launch(self._stream, self._config, self._kernel, np.uint64(int(self.us * 1e3)),
               self._clock.data.ptr)

    def still_holding(self) -> bool:
        return not self.after.is_done

    def grow(self) -> bool:
        """Double the hold; False once it is at its longest."""
        if self.us >= HOLD_MAX_US:
            return False
        self.us *= 2
        return True

    def clock_mhz(self) -> float | None:
        """SM cycles per microsecond during the last hold (after a sync)."""
        cycles, ns = (int(x) for x in self._clock.get())
        return cycles / ns * 1e3 if ns else None

    def close(self) -> None:
        self.after.close()


class BusyProbe:
    """Many iterations captured into one graph, replayed behind the hold and
    timed with CUDA events: the GPU's own time per iteration. Measured once
    after every set of rounds, so its samples span the sampling period."""

    def __init__(self, device, stream, enqueue: Enqueue, hold: Hold, flush=None,
                 capture=CapturedGraph) -> None:
        """`flush`: empty the L2 before every replay, for cold figures. The
        replay then holds one iteration, so that iteration is the cold one.
        `capture`: the pipeline backend's capture (cuda.core's by default)."""
        from cuda.core import EventOptions

        options = EventOptions(timing_enabled=True)
        self._stream, self._enqueue, self.hold, self._flush = stream, enqueue, hold, flush
        self._capture = capture
        self._start, self._end = device.create_event(options), device.create_event(options)
        self._captured = None
        self._build(1 if flush else BUSY_MIN_ITERATIONS)
        self.measure()  # warm-up; grows the hold until it covers submission
        if not flush:
            self._build(busy_iterations(self.measure().us))
        self.measure()  # warm-up of the final graph

    @property
    def iterations(self) -> int:
        return self._captured.iterations

    def _build(self, iterations: int) -> None:
        self._close_graph()
        self._captured = self._capture(self._stream, self._enqueue, iterations)

    def measure(self) -> BusyReading:
        """GPU microseconds per iteration, from one held replay."""
        while True:
            device_ms, covered = self._held_replay()
            if covered or not self.hold.grow():
                return BusyReading(device_ms * 1e3 / self.iterations, self.hold.us, covered,
                                   self.hold.clock_mhz())

    def _held_replay(self) -> tuple[float, bool]:
        stream = self._stream
        if self._flush:
            self._flush()
        self.hold.launch()
        stream.record(self.hold.after)
        stream.record(self._start)
        self._captured.launch(stream)
        stream.record(self._end)
        covered = self.hold.still_holding()  # the GPU was still holding: all was queued
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


class SubmitProbe:
    """The host's time to enqueue a few iterations of a mode behind the hold.

    A timed round enqueues 1000 iterations; when the GPU is slower than the
    host the launch queue fills and the host waits for room, so the round's
    enqueue time becomes GPU time. Here the queue holds every launch while
    the GPU is held, so the figure is the CPU's launch cost alone."""

    def __init__(self, stream, mode, hold: Hold) -> None:
        self._stream, self.hold, self._mode = stream, hold, mode
        self._steps = mode.submit_steps(submit_iterations(mode.launches))
        self.measure()  # warm-up; grows the hold until it covers submission

    def measure(self) -> SubmitReading:
        steps, clock = self._steps, time.perf_counter
        while True:
            self.hold.launch()
            self._stream.record(self.hold.after)
            t0 = clock()
            for step in steps:
                step()
            seconds = clock() - t0
            covered = self.hold.still_holding()
            self._stream.sync()
            if covered or not self.hold.grow():
                per_call = seconds / len(steps) * 1e6
                return SubmitReading(per_call / self._mode.iterations_per_call, covered)
