"""Shared fixtures: synthetic records built from the real model types, and
the GPU gate (tests marked `gpu` skip with the reason when no GPU is usable)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from graphbench.config import RunConfig
from graphbench.errors import DeviceError
from graphbench.record.legacy import with_working_sets
from graphbench.measure.verify import compare
from postgres_server import postgres_server  # noqa: F401 - one server for the session
from graphbench.record.model import (BusyReading, Condition, DeviceInfo, Environment, HostInfo,
                                     SubmitReading,
                                     LaunchFloorSamples, LifecycleSamples, ModeSamples,
                                     PipelineInfo, ProcessRun, RunRecord, ToolInfo, UpdateSamples)



@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason() -> str | None:
    try:
        from graphbench.measure.device import list_devices

        list_devices()
    except DeviceError as exc:
        return f"no usable GPU: {exc.message}"
    except ImportError as exc:
        return f"CUDA Python packages missing: {exc}"
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            reason = reason or gpu_unavailable_reason()
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


def device_info(name: str = "NVIDIA H200", **changes) -> DeviceInfo:
    facts = dict(index=0, name=name, compute_capability="9.0", arch="sm_90",
                 uuid="GPU-00000000-test", multiprocessors=132, l2_bytes=60 * 2**20,
                 total_memory_bytes=143 * 2**30, free_memory_bytes=140 * 2**30,
                 driver_version="580.159.04", cuda_driver_version="13.0",
                 cuda_runtime_version="13.0", nvrtc_version="13.0", sm_clock_mhz=1980,
                 sm_clock_max_mhz=1980, memory_clock_mhz=3201)
    facts.update(changes)
    return DeviceInfo(**facts)


def workload(mode: str) -> str:
    kind, at, build = mode.partition("@")
    work = "fused" if kind == "fused" else "stages-pdl" if kind in ("pdl", "graph-pdl") \
        else "stages"
    return work + at + build


def synthetic_modes(wall_us: dict[str, float], rounds: int = 10, noise: float = 0.005,
                    seed: int = 0) -> dict[str, ModeSamples]:
    """Rounds whose per-iteration wall time scatters by `noise` around `wall_us`."""
    rng = np.random.default_rng(seed)
    modes = {}
    for mode, us in wall_us.items():
        walls = tuple(float(w) for w in us * (1 + noise * rng.standard_normal(rounds)))
        modes[mode] = ModeSamples(walls, tuple(0.6 * w for w in walls),
                                  tuple(0.9 * w for w in walls), workload(mode))
    return modes


def synthetic_conditions(wall_us: dict[str, float], rounds: int, host_probe_us: float = 300.0,
                         busy_us: float = 3.0, seed: int = 0) -> tuple[Condition, ...]:
    """One reading per set of rounds: busy per workload (0.1% scatter, as the
    H200's busy readings have), held submit per mode."""
    workloads = sorted({workload(mode) for mode in wall_us})
    scatter = 1 + 0.001 * np.random.default_rng(1000 + seed).standard_normal((rounds, len(workloads)))
    return tuple(Condition(
        sm_clock_mhz=1980, host_probe_us=host_probe_us, cpu_probe_us=host_probe_us,
        busy={w: BusyReading(busy_us * float(scatter[i, j]), 100.0, True, 1980.0)
              for j, w in enumerate(workloads)},
        submit={m: SubmitReading(0.55 * us, True) for m, us in wall_us.items()})
        for i in range(rounds))


EXTRAS = {
    "launch_floor": LaunchFloorSamples(kernel_launch_us=(4.10, 4.12, 4.08, 4.11, 4.09),
                                       graph_replay_us=(5.90, 5.93, 5.88, 5.91, 5.89)),
    "lifecycles": {"graph": LifecycleSamples(capture_us=(40.0,) * 3, instantiate_us=(30.0,) * 3,
                                             upload_us=(10.0,) * 3, first_launch_us=(12.0,) * 3)},
    "graph_update": UpdateSamples(node_update_us=(6.0,) * 3, whole_graph_update_us=(50.0,) * 3,
                                  recapture_instantiate_us=(70.0,) * 3),
}


def make_run(wall_us=None, rounds: int = 10, noise: float = 0.005, seed: int = 0,
             passed: bool = True, host_probe_us: float = 300.0, extras: bool = True,
             config: RunConfig | None = None) -> ProcessRun:
    config = config or RunConfig(rounds=rounds, iters=1000)
    wall_us = wall_us or {"individual": 14.0, "graph": 4.3, "fused": 4.6}
    expected = np.full(8, 8.0, dtype=np.float32)
    actual = expected.copy()
    if not passed:
        actual[3] = np.nan
    checks = (compare("graph", actual, expected, config.rtol, config.atol),)
    conditions = synthetic_conditions(wall_us, rounds, host_probe_us, seed=seed)
    return ProcessRun(seed=seed, rounds=rounds, stop_reason="fixed-rounds", elapsed_s=1.0,
                      sampling_s=0.5, modes=synthetic_modes(wall_us, rounds, noise, seed),
                      conditions=conditions, checks=checks,
                      environment=Environment(other_gpu_processes=(), host_probe="launch"),
                      **(EXTRAS if extras and "graph" in wall_us else
                         {"launch_floor": EXTRAS["launch_floor"]} if extras else {}))


def make_record(wall_us=None, rounds: int = 10, noise: float = 0.005, seed: int = 0,
                passed: bool = True, info: DeviceInfo | None = None, runs=None,
                **config_changes) -> RunRecord:
    config = RunConfig(rounds=rounds, **{"iters": 1000, **config_changes})  # as a run resolves it
    run_modes = tuple(m for m in (wall_us or {"individual": 14.0, "graph": 4.3, "fused": 4.6})
                      if "@" not in m)  # an A/B record's base modes are not configured modes
    config = config.resolved(modes=run_modes)
    runs = runs or (make_run(wall_us, rounds, noise, seed, passed, config=config),)
    pipeline = PipelineInfo(stages=config.stages, depth=config.depth,
                            kernel_launches_per_iteration=3 * config.depth,
                            grid=(16, 1, 1), block=(256, 1, 1), kernel_source_sha256="0" * 64)
    return with_working_sets(RunRecord(tool=ToolInfo("graphbench", "0.1.0", "abc123", False),
                     created="2026-12-01T00:00:00+00:00", host=HostInfo("host", "Linux", "x86_64"),
                     packages={"python": "3.12", "cuda-core": "1.2.0", "cupy-cuda13x": "14.2",
                               "numpy": "2.0"},
                     device=info or device_info(), config=config, pipeline=pipeline,
                     runs=tuple(runs)))  # its working set, as the reader fills it in


def with_runs(record: RunRecord, *runs: ProcessRun) -> RunRecord:
    return dataclasses.replace(record, runs=tuple(runs))


@pytest.fixture
def record() -> RunRecord:
    return make_record()


@pytest.fixture
def slow_build(tmp_path):
    """Writes a slow build of kernels/pipeline.cu (tests/slow_build.py's
    options) under tmp_path and returns its path."""
    from slow_build import slow_source

    def write(**options):
        path = tmp_path / "slow.cu"
        path.write_text(slow_source(**options))
        return path
    return write


def synthetic_point(config) -> RunRecord:
    """A run record for a sweep point: launch-bound at small sizes, bandwidth-
    bound at large ones, so the speedup fades as the vectors grow."""
    launches = 3 * config.depth
    gpu = launches * (1.0 + config.elements * 4e-6)   # per-kernel floor + bandwidth
    individual = max(launches * 4.5, gpu)
    graph = max(2.0 + launches * 1.1, gpu)
    return make_record({"individual": individual, "graph": graph}, rounds=10,
                       elements=config.elements, depth=config.depth)
