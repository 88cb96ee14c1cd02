"""What ran a record: the device, the host, the tool and each process's
environment (part of the record model, graphbench.record.model, which
re-exports them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    compute_capability: str
    arch: str
    uuid: str | None = None
    multiprocessors: int | None = None
    l2_bytes: int | None = None
    total_memory_bytes: int | None = None
    free_memory_bytes: int | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    cuda_runtime_version: str | None = None
    nvrtc_version: str | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    memory_clock_mhz: int | None = None


@dataclass(frozen=True)
class ToolInfo:
    name: str
    version: str
    git_commit: str | None = None
    git_dirty: bool | None = None


@dataclass(frozen=True)
class HostInfo:
    hostname: str = ""
    platform: str = ""
    processor: str = ""


@dataclass(frozen=True)
class Environment:
    other_gpu_processes: tuple[int, ...] | None = None
    pinned_cpu: int | None = None  # where the process was pinned before sampling
    cpu_moves: int | None = None  # moves by fast-CPU seeking (measure/cpu_seek); None: none
    interrupt_cpus: tuple[int, ...] = ()  # left out by it: they serve the GPU's interrupts
    # what the round probes (ModeSamples.probe_*_us) timed: PYTHON_PROBE in
    # records made before the launch probe, LAUNCH_PROBE since
    host_probe: Literal["python", "launch"] = "python"
    # graphbench runs this process had measured before this one: after a
    # run's checks GPU-bound figures of small kernels read higher in the same
    # process (graphbench.runner.measure_one)
    earlier_runs: int = 0


PYTHON_PROBE = "python"  # a fixed pure-Python loop, per 20,000 additions
LAUNCH_PROBE = "launch"  # empty-kernel launches, per LAUNCH_PROBE_UNIT (measure.conditions)
LAUNCH_PROBE_UNIT = 150  # launches a reported launch probe stands for (about 600 us)
