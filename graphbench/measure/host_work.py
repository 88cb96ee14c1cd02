"""Element-wise host work spread over the CPU's cores: numpy releases the
GIL inside its loops, so threads over slices of one array scale.

At large sizes the checks and the random inputs, done on one core, took
most of a default run's time while the host's other cores sat idle
(docs/measurement.md#host-side-costs). They stay on the host on purpose
(graphbench.measure.verify says why)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence, TypeVar

SLICE = 1 << 20  # elements one thread takes at a time
WORKERS = max(1, min(8, os.cpu_count() or 1))

T = TypeVar("T")


def slices(size: int) -> list[slice]:
    return [slice(start, min(start + SLICE, size)) for start in range(0, size, SLICE)]


def over_slices(work: Callable[[slice], T], size: int) -> Sequence[T]:
    """work(s) for each slice of range(size), in order; in threads when
    there is more than one slice."""
    parts = slices(size)
    if len(parts) < 2 or WORKERS == 1:
        return [work(part) for part in parts]
    with ThreadPoolExecutor(WORKERS, initializer=_unpinned) as pool:
        return list(pool.map(work, parts))


def _unpinned() -> None:
    """A worker thread inherits the pinning of the thread that started it
    (graphbench.measure.device.pin_host_thread), which put every worker on
    one CPU, and the random inputs and the checks took over half a run at
    large sizes (docs/measurement.md#host-side-costs). Workers run where the process could before
    its pinning; the launching thread and the driver's stay pinned."""
    from graphbench.measure.device import unpinned_cpus

    cpus = unpinned_cpus()
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:  # a CPU taken away since: the worker stays where it is
            pass
