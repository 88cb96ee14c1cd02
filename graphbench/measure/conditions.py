"""Device conditions read through NVML (cuda.core.system) while sampling:
SM clock, clock-event (throttle) reasons, other processes on the GPU; and
the host probes read between rounds.

NVML is optional: where it is missing or a query is not supported (virtual
machines often hide clocks), the reading is None and no warning is drawn
from it. Reads happen between rounds, never inside a timed region.
"""

from __future__ import annotations

import os
import time

from graphbench.record.machine import LAUNCH_PROBE_UNIT

# Clock-event reasons that slow the GPU down; idle and application-clock
# settings are normal and say nothing about throttling.
THROTTLE_WORDS = ("THERMAL", "POWER", "SLOWDOWN", "SYNC_BOOST", "DISPLAY")


def _reason_name(reason) -> str:
    return getattr(reason, "name", None) or str(reason)


class DeviceMonitor:
    def __init__(self, device) -> None:
        try:
            self._nvml = device.to_system_device()
        except Exception:  # noqa: BLE001 - no NVML: readings become None
            self._nvml = None

    def _query(self, fn):
        if self._nvml is None:
            return None
        try:
            return fn(self._nvml)
        except Exception:  # noqa: BLE001 - an unsupported query is just missing
            return None

    def read(self) -> dict:
        """One reading of the device, taken after a set of rounds (the host
        probes are taken by the sampling loop, right around the set)."""
        reasons = self._query(lambda d: [_reason_name(r) for r in d.current_clock_event_reasons])
        return {
            "sm_clock_mhz": self._query(lambda d: d.get_clock("sm").get_current_mhz()),
            "throttle_reasons": tuple(r for r in reasons or [] if is_throttle(r)),
        }

    def other_processes(self) -> tuple[int, ...] | None:
        """PIDs of other compute processes on this GPU (None when NVML cannot
        tell). Not the parent: a graphbench that measures in fresh processes
        (--processes, a sweep's later points) holds the GPU idle while it waits."""
        pids = self._query(lambda d: [p.pid for p in d.compute_running_processes])
        ours = (os.getpid(), os.getppid())
        return None if pids is None else tuple(pid for pid in pids if pid not in ours)


def is_throttle(reason: str) -> bool:
    upper = reason.upper()
    return any(word in upper for word in THROTTLE_WORDS)


PROBE_UNIT = 20_000  # additions a reported probe time stands for (older records took exactly these)
ROUND_PROBE_WORK = 5_000  # read between every two rounds, so a quarter of the unit


def host_speed_probe_us(work: int = PROBE_UNIT) -> float:
    """Time a fixed pure-Python workload, stated as microseconds per
    PROBE_UNIT additions (about 0.3-1 ms) whatever `work` it ran. Launch
    costs are CPU work: when this probe slows down, launch-bound figures slow
    down with it, which the SM clock cannot show."""
    start = time.perf_counter()
    total = 0
    for i in range(work):
        total += i
    return (time.perf_counter() - start) * 1e6 * PROBE_UNIT / work


def round_probe_us() -> float:
    """The probe read between rounds: short, so that reading it before and
    after every round costs a few percent of the sampling time."""
    return host_speed_probe_us(ROUND_PROBE_WORK)


# 120 launches between every two rounds: more chunks make the median chunk
# steadier, which cut how far a round's individual wall over its readings
# scattered, at a few percent fewer rounds (docs/measurement.md#the-probes)
PROBE_CHUNKS, CHUNK_LAUNCHES = 15, 8


class LaunchProbe:
    """The round probe of records since the launch probe: the host time to
    launch a kernel that does nothing with a built-in stage's arguments
    (kernels/harness.cu's probe_launch) through cuda.core, stated as microseconds per
    LAUNCH_PROBE_UNIT launches. Launch-bound figures are launches: such a
    probe read in the same set follows individual-launch wall between fresh
    processes far more closely than the pure-Python probe does
    (docs/measurement.md#the-probes). The launches
    are timed in chunks and the median chunk taken, so that one launch held
    up by an interrupt does not read as a slow host. They are not waited
    for: the next round synchronises first."""

    def __init__(self, stream, probe_kernel) -> None:
        import numpy as np
        from cuda.core import LaunchConfig, launch

        config, size = LaunchConfig(grid=1, block=1), np.uint64(0)
        # a built-in stage's arguments (three pointers and a count), never read
        self._launch = lambda: launch(stream, config, probe_kernel, 0, 0, 0, size)

    def __call__(self) -> float:
        launch_one, clock, chunks = self._launch, time.perf_counter, []
        for _ in range(PROBE_CHUNKS):
            start = clock()
            for _ in range(CHUNK_LAUNCHES):
                launch_one()
            chunks.append(clock() - start)
        return sorted(chunks)[PROBE_CHUNKS // 2] * 1e6 * LAUNCH_PROBE_UNIT / CHUNK_LAUNCHES
