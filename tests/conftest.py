"""Shared fixtures: synthetic records built by the real record code, and the
GPU gate (tests marked `gpu` skip with the reason when no GPU is usable)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from graphbench.config import RunConfig
from graphbench.device import DeviceInfo
from graphbench.errors import DeviceError
from graphbench.assemble import build_record
from graphbench.timing import Sample, Sampling
from graphbench.verify import compare


@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason() -> str | None:
    try:
        from graphbench.device import list_devices

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


def synthetic_samples(wall_us: dict[str, float], rounds: int = 10, iters: int = 1000,
                      noise: float = 0.005, seed: int = 0) -> dict[str, list[Sample]]:
    """Rounds whose per-iteration wall time scatters by `noise` around `wall_us`."""
    rng = np.random.default_rng(seed)
    samples = {}
    for mode, us in wall_us.items():
        walls = us * (1 + noise * rng.standard_normal(rounds))
        samples[mode] = [Sample(wall_s=w * iters / 1e6, submit_s=0.6 * w * iters / 1e6,
                                device_s=0.9 * w * iters / 1e6) for w in walls]
    return samples


def make_record(wall_us=None, rounds: int = 10, noise: float = 0.005, seed: int = 0,
                passed: bool = True, info: DeviceInfo | None = None, **config_changes) -> dict:
    config = RunConfig(rounds=rounds, **config_changes)
    wall_us = wall_us or {"individual": 14.0, "graph": 4.3, "fused": 4.6}
    samples = synthetic_samples(wall_us, rounds, config.iters, noise, seed)
    expected = np.full(8, 8.0, dtype=np.float32)
    actual = expected.copy()
    if not passed:
        actual[3] = np.nan
    checks = [compare("graph", actual, expected, config.rtol, config.atol)]
    pipeline = {"stages": list(config.stages), "depth": config.depth,
                "kernel_launches_per_iteration": 3 * config.depth,
                "grid": [16, 1, 1], "block": [256, 1, 1]}
    sampling = Sampling(samples, "fixed-rounds", rounds, elapsed_s=0.5,
                        conditions=[{"sm_clock_mhz": 1980, "throttle_reasons": [],
                                     "host_probe_us": 300.0}] * rounds)
    return build_record(config, info or device_info(), sampling, checks, pipeline,
                        synthetic_extras(wall_us), {"other_gpu_processes": []}, elapsed_s=1.0)


def synthetic_extras(wall_us: dict[str, float]) -> dict:
    """Floor, busy, lifecycle and update timings of plausible H200 size."""
    return {
        "launch_floor": {"kernel_launch_us": [4.1, 4.2, 4.0], "graph_replay_us": [5.9, 6.0, 5.8]},
        "busy_us": {mode: [min(us, 3.0) * (1 + 0.001 * i) for i in range(15)]
                    for mode, us in wall_us.items()},
        "graph_lifecycle": {"capture_us": [40.0] * 3, "instantiate_us": [30.0] * 3,
                            "upload_us": [10.0] * 3, "first_launch_us": [12.0] * 3},
        "graph_update": {"node_update_us": [6.0] * 3, "whole_graph_update_us": [50.0] * 3,
                         "recapture_instantiate_us": [70.0] * 3},
    }


@pytest.fixture
def record() -> dict:
    return make_record()


def synthetic_point(config) -> dict:
    """A run record for a sweep point: launch-bound at small sizes, bandwidth-
    bound at large ones, so the speedup fades as the vectors grow."""
    launches = 3 * config.depth
    gpu = launches * (1.0 + config.elements * 4e-6)   # per-kernel floor + bandwidth
    individual = max(launches * 4.5, gpu)
    graph = max(2.0 + launches * 1.1, gpu)
    return make_record({"individual": individual, "graph": graph}, rounds=10,
                       elements=config.elements, depth=config.depth)
