"""One benchmark run, end to end: the data flow in one place.

config -> device and compiled kernels -> pipeline -> modes -> verification
-> interleaved timed rounds -> statistics -> result record.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from graphbench import provenance
from graphbench.config import RunConfig
from graphbench.device import DeviceInfo, describe, open_device
from graphbench.errors import DeviceError
from graphbench.kernels import KERNEL_NAMES, compile_cubin, load_source
from graphbench.modes import build_modes, close_modes
from graphbench.pipeline import Pipeline, bytes_needed
from graphbench.record import METRICS, RUN_SCHEMA, SCHEMA_VERSION, mode_entry
from graphbench.stages import DEFAULT_STAGES, expand, reference
from graphbench.stats import bootstrap_median_ci, paired_ratios, summarize
from graphbench.timing import EventTimer, FixedRounds, Sample, run_rounds
from graphbench.verify import Check, all_passed, compare

MEMORY_HEADROOM = 0.9  # leave room for the context, CuPy's pool and fragmentation
CONSTANT_INPUTS = {"a": 1.0, "b": 2.0, "c": 3.0}


def ensure_memory(config: RunConfig, info: DeviceInfo, n_stages: int) -> None:
    needed = bytes_needed(config.elements, n_stages)
    free = info.free_memory_bytes
    if free is not None and needed > free * MEMORY_HEADROOM:
        raise DeviceError(
            f"--elements {config.elements} needs {needed / 2**30:.2f} GiB of device memory, "
            f"but {free / 2**30:.2f} GiB is free on device {info.index} ({info.name})",
            "choose a smaller --elements")


def load_kernels(arch: str) -> dict:
    module = compile_cubin(load_source(), arch)
    return {name: module.get_kernel(name) for name in KERNEL_NAMES}


def run_benchmark(config: RunConfig, on_round: Callable | None = None,
                  kernels: dict | None = None) -> dict:
    """Run `config` on its device and return the result record.

    `kernels` replaces the shipped kernels (tests use it to plant a wrong one)."""
    import cupy

    started = time.perf_counter()
    device = open_device(config.device)
    info = describe(device)
    stages = expand(DEFAULT_STAGES)
    ensure_memory(config, info, len(stages))
    kernels = kernels or load_kernels(info.arch)
    stream = device.create_stream()
    timer = EventTimer(device, stream)
    pipeline = modes = None
    try:
        with cupy.cuda.Device(config.device):
            pipeline = Pipeline(kernels, stages, config.elements, config.block_size,
                                info.multiprocessors)
            modes = build_modes(config.modes, pipeline, stream)
            rng = np.random.default_rng(config.seed)
            checks = verify_modes(pipeline, modes, stream, rng, config)
            samples, stop_reason = {}, "not-run: verification failed"
            if all_passed(checks):
                pipeline.fill_random(rng)  # time on fresh random data, not the constants
                steps = {mode.name: mode.step for mode in modes}
                samples, stop_reason = run_rounds(steps, config.iters, timer,
                                                  FixedRounds(config.rounds),
                                                  config.warmup_rounds, on_round)
                checks.append(check_mode(modes[-1], pipeline, stream, config,
                                         f"{modes[-1].name}: after timing"))
    finally:
        if modes:
            close_modes(modes)
        timer.close()
        if pipeline:
            pipeline.release()
        stream.close()
    return build_record(config, info, samples, stop_reason, checks, describe_pipeline(pipeline),
                        time.perf_counter() - started)


def check_mode(mode, pipeline, stream, config: RunConfig, name: str, expected=None) -> Check:
    """Poison, run one iteration of `mode`, and compare with the reference."""
    pipeline.poison()
    mode.step()
    stream.sync()
    expected = pipeline.reference() if expected is None else expected
    return compare(name, pipeline.result(mode.fused_output), expected, config.rtol, config.atol)


def verify_modes(pipeline, modes, stream, rng, config: RunConfig) -> list[Check]:
    """Every mode on random data; then the graph replayed on new contents of
    the same buffers (a graph bakes in pointers, not data) and on constants."""
    import cupy

    pipeline.fill_random(rng)
    checks = [check_mode(mode, pipeline, stream, config, mode.name) for mode in modes]
    graph = next((mode for mode in modes if mode.name == "graph"), None)
    if graph is not None:
        pipeline.fill_random(rng)
        checks.append(check_mode(graph, pipeline, stream, config, "graph: replay with new data"))
        pipeline.fill_constant(**CONSTANT_INPUTS)
        constant = reference(CONSTANT_INPUTS, pipeline.stages)  # 8.0 for add,mul,sub
        expected = cupy.full(pipeline.elements, constant, dtype=cupy.float32)
        checks.append(check_mode(graph, pipeline, stream, config,
                                 f"graph: constants a=1 b=2 c=3 give {constant:g}", expected))
    return checks


def per_round_us(samples: list[Sample], iters: int) -> dict[str, list[float]]:
    rows = [sample.per_iteration_us(iters) for sample in samples]
    return {metric: [row[metric] for row in rows] for metric in METRICS}


def speedup_entry(numerator_wall: list[float], denominator_wall: list[float]) -> dict:
    ratios = paired_ratios(numerator_wall, denominator_wall)
    low, high = bootstrap_median_ci(ratios)
    return {**summarize(ratios), "ci95": [low, high], "per_round": ratios}


def describe_pipeline(pipeline) -> dict:
    launch = pipeline.launch_config
    return {"stages": [stage.name for stage in pipeline.stages],
            "kernel_launches_per_iteration": len(pipeline.stages),
            "grid": _dims(launch.grid), "block": _dims(launch.block)}


def build_record(config: RunConfig, info: DeviceInfo, samples: dict, stop_reason: str,
                 checks: list[Check], pipeline: dict, elapsed_s: float) -> dict:
    modes, walls = {}, {}
    for name, mode_samples in samples.items():
        per_round = per_round_us(mode_samples, config.iters)
        modes[name] = mode_entry(per_round, {m: summarize(per_round[m]) for m in METRICS})
        walls[name] = per_round["wall"]
    speedup = {other: speedup_entry(walls["individual"], walls[other])
               for other in ("graph", "fused") if other in walls and "individual" in walls}
    return {
        "schema": RUN_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": provenance.tool_info(),
        "created": provenance.utc_timestamp(),
        "host": provenance.host_info(),
        "packages": provenance.package_versions(),
        "device": info.to_dict(),
        "config": config.to_dict(),
        "pipeline": pipeline,
        "sampling": {"rounds": len(next(iter(samples.values()), [])), "stop_reason": stop_reason,
                     "warmup_rounds": config.warmup_rounds, "elapsed_s": elapsed_s},
        "modes": modes,
        "speedup": speedup,
        "verification": {"passed": all_passed(checks), "checks": [c.to_dict() for c in checks]},
    }


def _dims(value) -> list[int]:
    return list(value) if isinstance(value, tuple) else [int(value)]
