"""The sampling loop: warm-up, interleaved rounds, and how one round is timed.

The scheduling is independent of CUDA: `run_rounds` takes any object with a
`time_round(step, iters) -> Sample` method, so tests drive it with a fake.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol

from graphbench.measure.nvtx import RANGES, round_name, warmup_name
from graphbench.measure.steps import Step, repeat_of
from graphbench.metrics import ROUND_METRICS
from graphbench.sampling import StopRule, round_order


@dataclass(frozen=True)
class Sample:
    """One round of `iters` iterations, in seconds for the whole round."""

    wall_s: float    # host clock around enqueue + synchronise: what users feel
    submit_s: float  # host time to enqueue the loop: the CPU launch cost
    device_s: float  # CUDA events around the loop: time the stream was busy or waiting

    def per_iteration_us(self, iters: int) -> dict[str, float]:
        scale = 1e6 / iters
        return {name: getattr(self, f"{name}_s") * scale for name in ROUND_METRICS}


class RoundTimer(Protocol):
    def time_round(self, step: Step, iters: int) -> Sample: ...


class EventTimer:
    """Times a round on a cuda.core stream with a host clock and CUDA events."""

    def __init__(self, device, stream) -> None:
        from cuda.core import EventOptions

        options = EventOptions(timing_enabled=True)
        self._stream = stream
        self._start = device.create_event(options)
        self._end = device.create_event(options)

    def time_round(self, step: Step, iters: int) -> Sample:
        stream, clock, repeat = self._stream, time.perf_counter, repeat_of(step)
        stream.sync()  # nothing earlier may leak into this round
        stream.record(self._start)
        t0 = clock()
        repeat(iters)  # the step's own loop: no Python call per iteration beyond its launches
        t1 = clock()
        stream.record(self._end)
        stream.sync()
        t2 = clock()
        device_ms = self._end - self._start
        return Sample(wall_s=t2 - t0, submit_s=t1 - t0, device_s=device_ms / 1e3)

    def close(self) -> None:
        self._start.close()
        self._end.close()


class ColdTimer(EventTimer):
    """Times every iteration alone, each after an L2 flush, and sums them
    into a round: cold means cold for every timed iteration (nvbench's cold
    mode), not for the first of a round. Each iteration's wall time then
    includes its own synchronisation: a cold figure is a latency."""

    def __init__(self, device, stream, flush: Callable[[], None]) -> None:
        super().__init__(device, stream)
        self._flush = flush

    def time_round(self, step: Step, iters: int) -> Sample:
        stream, clock, flush = self._stream, time.perf_counter, self._flush
        wall = submit = device_ms = 0.0
        for _ in range(iters):
            flush()  # synchronous: the flush is over before the clock starts
            stream.record(self._start)
            t0 = clock()
            step()
            t1 = clock()
            stream.record(self._end)
            stream.sync()
            t2 = clock()
            wall, submit = wall + (t2 - t0), submit + (t1 - t0)
            device_ms += self._end - self._start
        return Sample(wall_s=wall, submit_s=submit, device_s=device_ms / 1e3)


ProgressFn = Callable[[int, "str | None"], None]


@dataclass
class Sampling:
    samples: dict[str, list[Sample]]
    stop_reason: str
    rounds: int
    elapsed_s: float
    conditions: list = field(default_factory=list)  # device readings after each round
    # by mode: the host probe right before and right after each of its rounds
    probes: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    cpu_moves: int | None = None  # moves between CPUs (graphbench.measure.cpu_seek)
    interrupt_cpus: tuple[int, ...] = ()

    def per_iteration_us(self, mode: str, metric: str, iters: int) -> list[float]:
        return [s.per_iteration_us(iters)[metric] for s in self.samples[mode]]


Calls = "int | Mapping[str, int]"  # calls of each step per round: one count, or by mode


def calls_of(calls, name: str) -> int:
    return calls[name] if isinstance(calls, Mapping) else calls


def warm_up(steps: Mapping[str, Step], iters, timer: RoundTimer, rounds: int) -> None:
    for w in range(rounds):
        for name in round_order(list(steps), w):
            with RANGES.range(warmup_name(name, w)):
                timer.time_round(steps[name], calls_of(iters, name))


@dataclass(frozen=True)
class LoopHooks:
    """What the sampling loop calls besides the steps, the timer and the stop
    rule; every hook is optional.

    `warmup_rounds` untimed sets come first. `before_each` runs before every
    timed round, outside the timed region (an L2 flush); `prefix_calls`
    untimed calls of a mode's step come right before each of its timed rounds
    (the round's own timer synchronises first), so a round never starts cold
    from another mode's work. `on_round(rounds_done, reason)` follows every
    set (progress). `monitor` reads the device's state after each set of
    rounds. `host_probe` is read between every two rounds, so each round has
    a reading right before and right after it (`Sampling.probes`); `monitor`
    takes the readings before and after its set, and the stop rule judges
    the rounds at the run's own host speed. `set_probe`, where given, takes
    the reading that opens each set instead (graphbench.measure.cpu_seek: it
    may move the process to a faster CPU first). `clock` times the run."""

    warmup_rounds: int = 1
    before_each: Callable[[], None] | None = None
    prefix_calls: int = 0
    on_round: ProgressFn | None = None
    monitor: Callable[..., object] | None = None
    host_probe: Callable[[], float] | None = None
    set_probe: Callable[[], float] | None = None
    clock: Callable[[], float] = time.perf_counter


def run_rounds(steps: Mapping[str, Step], iters, timer: RoundTimer, stop: StopRule,
               hooks: LoopHooks = LoopHooks()) -> Sampling:
    """Warm up every mode, then time interleaved rounds until `stop` says why to stop.

    `iters`: calls of each step per round, one count for all or a count by
    mode (a step of the unrolled rung runs K iterations, so it is called
    iters / K times). `hooks`: what runs around the rounds (LoopHooks)."""
    def before(name):
        if hooks.before_each:
            hooks.before_each()
        for _ in range(hooks.prefix_calls):
            steps[name]()

    with gc_paused():
        return _run_rounds(steps, iters, timer, stop, hooks, before)


@contextmanager
def gc_paused():
    """No garbage collection inside timed loops, as timeit does: a
    collection mid-round would be timed as launch cost."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run_rounds(steps, iters, timer, stop, hooks: LoopHooks, before_each) -> Sampling:
    names, clock, monitor = list(steps), hooks.clock, hooks.monitor
    host_probe = hooks.host_probe
    set_probe = (hooks.set_probe or host_probe) if host_probe else None
    warm_up(steps, iters, timer, hooks.warmup_rounds)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    walls: dict[str, list[float]] = {name: [] for name in names}
    conditions: list = []
    probes: dict[str, list[tuple[float, float]]] | None = \
        {name: [] for name in names} if host_probe else None
    started, rounds_done = clock(), 0
    while True:
        reading = first = set_probe() if set_probe else None
        for name in round_order(names, rounds_done):
            before_each(name)
            with RANGES.range(round_name(name, rounds_done)):  # one per round, outside its clock
                sample = timer.time_round(steps[name], calls_of(iters, name))
            samples[name].append(sample)
            walls[name].append(sample.wall_s)
            if host_probe:
                before, reading = reading, host_probe()
                probes[name].append((before, reading))
        rounds_done += 1
        if monitor:
            conditions.append(monitor(host_probe_before_us=first, host_probe_us=reading)
                              if host_probe else monitor())
        elapsed = clock() - started
        reason = stop.reason_to_stop(rounds_done, elapsed, walls)
        if hooks.on_round:
            hooks.on_round(rounds_done, reason)
        if reason:
            return Sampling(samples, reason, rounds_done, elapsed, conditions, probes or {})


