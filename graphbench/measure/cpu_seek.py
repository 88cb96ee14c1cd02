"""Start every set of rounds on a CPU in the host's fast speed state.

On a shared host each virtual CPU can flip between two speed states on its
own, staying fast briefly and slow for seconds, with only a few CPUs fast at
any moment (results/host_speed/cpu_states.json;
docs/measurement.md#the-hosts-speed and #the-hosts-speed-states). Launch
costs follow the state, so a process that stays on one CPU states whichever
state that CPU happened to be in. A CPU that is fast now is mostly still
fast a short while later, so looking for a fast CPU right before a set of
rounds (about 30 ms) puts most rounds in the fast state, whatever state the
CPU the run began on is in.

The whole process moves, its CUDA driver threads with it: pinned apart from
them, the launching thread paid for cross-CPU wake-ups (graphbench.measure.
device.pin_host_thread says why the process is pinned at all). The CPUs that
serve the GPU's interrupts are never chosen (interrupt_cpus).
"""

from __future__ import annotations

import os
import random
import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

from graphbench.process_state import threads, restore_affinities, thread_affinities

# A reading within this ratio of the fastest one seen is the fast state: it
# spans the readings inside one state and stops well short of the slow one
# (results/host_speed/cpu_seek_threshold.json; docs/measurement.md#the-hosts-speed-states)
FAST_WITHIN = 1.3
MAX_TRIES = 6  # CPUs probed before a set of rounds starts on the best one found


def move_process(cpu: int) -> bool:
    """Pin every thread of this process to `cpu`; False where it cannot."""
    ids = threads()
    moved = False
    for thread in ids:
        try:
            os.sched_setaffinity(thread, {cpu})
            moved = True
        except (ProcessLookupError, PermissionError):  # a thread that ended, or not ours
            continue
        except OSError:
            return False
    return moved


@dataclass
class CpuSeeker:
    """Called before each set of rounds: returns the host probe's reading on
    the CPU the set will run on, after moving there if this one is slow."""

    cpus: Sequence[int]
    probe: Callable[[], float]
    cpu: int
    move: Callable[[int], bool] = move_process
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    fastest: float = float("inf")
    moves: int = 0
    sets: int = 0

    saved: dict[int, set[int]] = field(default_factory=dict)
    avoided: tuple[int, ...] = ()  # the CPUs left out as serving the GPU's interrupts

    def survey(self) -> float:
        """Read the probe on every CPU once, learn the fast state's level and
        stay on the fastest CPU; each thread's CPUs are kept for `restore`."""
        self.saved = thread_affinities()
        readings = {}
        for cpu in self.cpus:
            if self.move(cpu):
                readings[cpu] = self._read()
        if readings:
            self.cpu = min(readings, key=readings.__getitem__)
            self.move(self.cpu)
        return readings.get(self.cpu, self._read())

    def __call__(self) -> float:
        self.sets += 1
        reading = self._read()
        if self._fast(reading) or len(self.cpus) < 2:
            return reading
        best = (reading, self.cpu)
        others = [c for c in self.cpus if c != self.cpu]
        for cpu in self.rng.sample(others, min(MAX_TRIES, len(others))):
            if not self.move(cpu):
                break
            found = self._read()
            if self._fast(found):
                return self._settle(cpu, found)
            best = min(best, (found, cpu))
        self.move(best[1])
        return self._settle(best[1], best[0])

    def restore(self) -> None:
        """Every thread back on the CPUs it had before the survey."""
        if self.saved:  # a thread started since: the CPUs of the thread that sampled
            restore_affinities(self.saved, self.saved.get(threading.get_native_id(), {self.cpu}))

    def _read(self) -> float:
        reading = self.probe()
        self.fastest = min(self.fastest, reading)
        return reading

    def _fast(self, reading: float) -> bool:
        return reading <= FAST_WITHIN * self.fastest

    def _settle(self, cpu: int, reading: float) -> float:
        self.moves += cpu != self.cpu
        self.cpu = cpu
        return reading


# A CPU that took at least this share of the GPU driver's interrupts serves them
INTERRUPT_SHARE = 0.1


def interrupt_cpus(text: str | None = None) -> set[int]:
    """The CPUs that serve the NVIDIA driver's interrupts, from /proc/interrupts
    (`text` in its format). A process seeking there pays for every graph
    launch for as long as it stays: the interrupt work shares the CPU with
    the launching thread (docs/measurement.md#the-hosts-speed)."""
    if text is None:
        try:
            with open("/proc/interrupts") as file:
                text = file.read()
        except OSError:
            return set()
    lines = text.splitlines()
    width = len(lines[0].split()) if lines else 0  # the header: CPU0 CPU1 ...
    serving: set[int] = set()
    for line in lines[1:]:
        if "nvidia" not in line.lower():
            continue
        counts = [int(c) for c in line.split()[1:width + 1] if c.isdigit()]
        total = sum(counts)
        serving |= {cpu for cpu, count in enumerate(counts)
                    if total and count >= INTERRUPT_SHARE * total}
    return serving


def seeker(pinned_cpu: int | None, near: Sequence[int], probe: Callable[[], float],
           avoid: set[int] | None = None) -> CpuSeeker | None:
    """A seeker over the CPUs near the GPU that this process may use, but
    those serving the GPU's interrupts (`avoid`, interrupt_cpus), where the
    process is pinned and has more than one such CPU to choose from."""
    if pinned_cpu is None or not hasattr(os, "sched_getaffinity"):
        return None
    avoid = interrupt_cpus() if avoid is None else avoid
    cpus = sorted(set(near) - avoid) or [pinned_cpu]
    start = cpus[0] if pinned_cpu in avoid else pinned_cpu
    return CpuSeeker(cpus, probe, start, avoided=tuple(sorted(avoid & set(near)))) \
        if len(cpus) > 1 else None
