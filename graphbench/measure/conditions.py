"""Device conditions read through NVML (cuda.core.system) while sampling:
SM clock, clock-event (throttle) reasons, other processes on the GPU.

NVML is optional: where it is missing or a query is not supported (virtual
machines often hide clocks), the reading is None and no warning is drawn
from it. Reads happen between rounds, never inside a timed region.
"""

from __future__ import annotations

import os
import time

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
        """PIDs of other compute processes on this GPU (None when NVML cannot tell)."""
        pids = self._query(lambda d: [p.pid for p in d.compute_running_processes])
        return None if pids is None else tuple(pid for pid in pids if pid != os.getpid())


def is_throttle(reason: str) -> bool:
    upper = reason.upper()
    return any(word in upper for word in THROTTLE_WORDS)


def host_speed_probe_us(work: int = 20_000) -> float:
    """Time a fixed pure-Python workload (about 0.3 ms). Launch costs are CPU
    work: when this probe slows down, launch-bound figures slow down with it,
    which the SM clock cannot show."""
    start = time.perf_counter()
    total = 0
    for i in range(work):
        total += i
    return (time.perf_counter() - start) * 1e6
