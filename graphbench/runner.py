"""One benchmark run, end to end: the data flow in one place.

config -> device and compiled kernels -> pipeline -> modes -> verification
-> interleaved timed rounds -> floor, lifecycle and update measurements
-> statistics -> result record (with its stability warnings).
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import replace
from typing import Callable

import numpy as np

from graphbench.assemble import build_record
from graphbench.config import RunConfig
from graphbench.device import DeviceInfo, describe, open_device, pin_host_thread
from graphbench.errors import DeviceError, UsageError
from graphbench.kernels import (EMPTY_KERNEL, HARNESS_KERNELS, HOLD_KERNEL, PIPELINE_KERNELS,
                                compile_cubin, load_harness_source, load_source, source_digest)
from graphbench.l2 import L2Flusher
from graphbench.lifecycle import BusyProbe, time_graph_lifecycle, time_launch_floor
from graphbench.modes import build_modes, close_modes
from graphbench.monitor import DeviceMonitor
from graphbench.pipeline import Pipeline, bytes_needed
from graphbench.stages import expand, reference
from graphbench.stopping import FixedRounds, NoiseTarget
from graphbench.timing import EventTimer, Sampling, run_rounds
from graphbench.update import graph_update_experiment
from graphbench.verify import Check, all_passed, compare

MEMORY_HEADROOM = 0.9  # leave room for the context, CuPy's pool and fragmentation
CONSTANT_INPUTS = {"a": 1.0, "b": 2.0, "c": 3.0}
ROUND_TARGET_S = 0.01   # auto --iters: long against timer resolution, short against drift
MIN_AUTO_ITERS, MAX_AUTO_ITERS = 10, 1000


def ensure_memory(config: RunConfig, info: DeviceInfo, n_stages: int) -> None:
    needed = 2 * bytes_needed(config.elements, n_stages)  # the graph-update test adds a second set
    free = info.free_memory_bytes
    if free is not None and needed > free * MEMORY_HEADROOM:
        raise DeviceError(
            f"--elements {config.elements} needs {needed / 2**30:.2f} GiB of device memory, "
            f"but {free / 2**30:.2f} GiB is free on device {info.index} ({info.name})",
            "choose a smaller --elements")


def load_kernels(arch: str, source: str | None = None) -> dict:
    """The pipeline's kernels (shipped or a variant) and the harness's own."""
    return {**_kernels(compile_cubin(source or load_source(), arch), PIPELINE_KERNELS),
            **_kernels(compile_cubin(load_harness_source(), arch), HARNESS_KERNELS)}


def _kernels(module, names: tuple[str, ...]) -> dict:
    from cuda.core._utils.cuda_utils import CUDAError

    kernels = {}
    for name in names:
        try:
            kernels[name] = module.get_kernel(name)
        except CUDAError:
            raise UsageError(f"the kernel source defines no kernel named {name}",
                             "a --kernel-source variant must define "
                             f"{', '.join(PIPELINE_KERNELS)} as extern \"C\" __global__") from None
    return kernels


def stop_rule(config: RunConfig):
    if config.rounds is not None:
        return FixedRounds(config.rounds)
    return NoiseTarget(config.max_noise, config.min_rounds, config.max_time)


class Session:
    """The GPU objects of one run; closing it releases them in reverse order,
    also on an error or Ctrl-C."""

    def __init__(self, config: RunConfig, kernels: dict | None) -> None:
        self.config = config
        self.source = load_source(config.kernel_source)  # a bad path fails before the GPU is touched
        # before the driver starts its threads, so they inherit the pinning
        self.pinned_cpu = pin_host_thread(config.device) if config.pin_cpu else None
        self.device = open_device(config.device)
        self.info = describe(self.device)
        self.stages = expand(config.stages, config.depth)
        ensure_memory(config, self.info, len(self.stages))
        self.kernels = kernels or load_kernels(self.info.arch, self.source)
        self._exit = ExitStack()

    def __enter__(self) -> "Session":
        import cupy

        self._exit.enter_context(cupy.cuda.Device(self.config.device))
        self.stream = self.device.create_stream()
        self._exit.callback(self.stream.close)
        self.timer = EventTimer(self.device, self.stream)
        self._exit.callback(self.timer.close)
        self.pipeline = self.new_pipeline()
        self.modes = build_modes(self.config.run_modes, self.pipeline, self.stream)
        self._exit.callback(close_modes, self.modes)
        self.monitor = DeviceMonitor(self.device)
        return self

    def new_pipeline(self) -> Pipeline:
        pipeline = Pipeline(self.kernels, self.stages, self.config.elements,
                            self.config.block_size, self.info.multiprocessors)
        self._exit.callback(pipeline.release)
        return pipeline

    def __exit__(self, *exc) -> None:
        self._exit.close()


def run_benchmark(config: RunConfig, on_round: Callable | None = None,
                  kernels: dict | None = None) -> dict:
    """Run `config` on its device and return the result record.

    `kernels` replaces the shipped kernels (tests use it to plant a wrong one)."""
    started = time.perf_counter()
    with Session(config, kernels) as session:
        rng = np.random.default_rng(config.seed)
        checks = verify_modes(session, rng)
        sampling, extras = None, {}
        if all_passed(checks):
            if config.iters is None:
                config = session.config = replace(config, iters=calibrate_iters(session))
            sampling = sample(session, rng, on_round)
            checks.append(check_mode(session, session.modes[-1],
                                     f"{session.modes[-1].name}: after timing"))
            extras = measure_extras(session, sampling, rng, checks)
        environment = {"other_gpu_processes": session.monitor.other_processes(),
                       "pinned_cpu": session.pinned_cpu}
        pipeline = {**describe_pipeline(config, session.pipeline),
                    "kernel_source": config.kernel_source or "shipped",
                    "kernel_source_sha256": source_digest(session.source)}
        return build_record(config, session.info, sampling, checks, pipeline, extras,
                            environment, time.perf_counter() - started)


def calibrate_iters(session: Session) -> int:
    """Iterations for one round of the slowest mode to last about ROUND_TARGET_S."""
    slowest = session.modes[0]  # individual launches, or the only mode asked for
    session.timer.time_round(slowest.step, 2)  # warm-up
    per_iteration = session.timer.time_round(slowest.step, 5).wall_s / 5
    return int(min(MAX_AUTO_ITERS, max(MIN_AUTO_ITERS, ROUND_TARGET_S / per_iteration)))


def busy_probes(session: Session) -> dict[str, BusyProbe]:
    """One probe per distinct GPU workload: individual and graph modes run the
    same kernels, so they share one; fused has its own."""
    pipeline, probes = session.pipeline, {}
    for mode in session.modes:
        kind = "fused" if mode.fused_output else "stages"
        if kind not in probes:
            enqueue = pipeline.enqueue_fused if mode.fused_output else pipeline.enqueue_stages
            probes[kind] = BusyProbe(session.device, session.stream, enqueue,
                                     session.kernels[HOLD_KERNEL])
    return {mode.name: probes["fused" if mode.fused_output else "stages"]
            for mode in session.modes}


def read_conditions(session: Session, probes: dict[str, BusyProbe]) -> dict:
    """After each set of rounds: NVML readings, host probe, GPU busy time."""
    measured = {probe: probe.measure() for probe in set(probes.values())}
    return {**session.monitor.read(),
            "busy_us": {name: measured[probe] for name, probe in probes.items()}}


def sample(session: Session, rng, on_round) -> Sampling:
    config = session.config
    session.pipeline.fill_random(rng)  # time on fresh random data, not the constants
    flusher = L2Flusher(session.info.l2_bytes) if config.flush_l2 else None
    probes = busy_probes(session)
    try:
        return run_rounds({mode.name: mode.step for mode in session.modes}, config.iters,
                          session.timer, stop_rule(config), config.warmup_rounds, on_round,
                          before_each=flusher.flush if flusher else None,
                          monitor=lambda: read_conditions(session, probes))
    finally:
        for probe in set(probes.values()):
            probe.close()
        if flusher:
            flusher.release()


def check_mode(session: Session, mode, name: str, expected=None) -> Check:
    """Poison, run one iteration of `mode`, and compare with the reference."""
    pipeline, config = session.pipeline, session.config
    pipeline.poison()
    mode.step()
    session.stream.sync()
    expected = pipeline.reference() if expected is None else expected
    return compare(name, pipeline.result(mode.fused_output), expected, config.rtol, config.atol)


def verify_modes(session: Session, rng) -> list[Check]:
    """Every mode on random data; then the graph replayed on new contents of
    the same buffers (a graph bakes in pointers, not data) and on constants."""
    import cupy

    pipeline = session.pipeline
    pipeline.fill_random(rng)
    checks = [check_mode(session, mode, mode.name) for mode in session.modes]
    graph = next((mode for mode in session.modes if mode.name == "graph"), None)
    if graph is not None:
        pipeline.fill_random(rng)
        checks.append(check_mode(session, graph, "graph: replay with new data"))
        pipeline.fill_constant(**CONSTANT_INPUTS)
        constant = reference(CONSTANT_INPUTS, pipeline.stages)  # 8.0 for add,mul,sub
        expected = cupy.full(pipeline.elements, constant, dtype=cupy.float32)
        checks.append(check_mode(session, graph, f"graph: constants a=1 b=2 c=3 give {constant:g}",
                                 expected))
    return checks


def measure_extras(session: Session, sampling: Sampling, rng, checks: list[Check]) -> dict:
    """Launch floor, busy time, and (with a graph mode) lifecycle and update."""
    stream, pipeline, config = session.stream, session.pipeline, session.config
    extras = {"launch_floor": time_launch_floor(stream, session.kernels[EMPTY_KERNEL]),
              "busy_us": {mode.name: [c["busy_us"][mode.name] for c in sampling.conditions]
                          for mode in session.modes}}
    if "graph" in sampling.samples:
        extras["graph_lifecycle"] = time_graph_lifecycle(stream, pipeline.enqueue_stages)
        times, update_checks = graph_update_experiment(stream, pipeline, session.new_pipeline(),
                                                       rng, config.rtol, config.atol)
        extras["graph_update"] = times
        checks.extend(update_checks)
    return extras


def describe_pipeline(config: RunConfig, pipeline) -> dict:
    launch = pipeline.launch_config
    return {"stages": list(config.stages), "depth": config.depth,
            "kernel_launches_per_iteration": len(pipeline.stages),
            "grid": _dims(launch.grid), "block": _dims(launch.block)}


def _dims(value) -> list[int]:
    return list(value) if isinstance(value, tuple) else [int(value)]
