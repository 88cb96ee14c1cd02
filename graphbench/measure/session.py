"""The GPU objects of one run, opened in order and released in reverse,
also when opening fails partway, on an error, or on Ctrl-C."""

from __future__ import annotations

from contextlib import ExitStack

from graphbench.config import RunConfig
from graphbench.errors import DeviceError, UsageError
from graphbench.measure.availability import choose_modes, unavailable_modes
from graphbench.measure.device import DeviceInfo, describe, open_device, pin_host_thread
from graphbench.measure.kernels import (HARNESS_KERNELS, PDL_KERNELS, PIPELINE_KERNELS,
                                        compile_cubin, load_harness_source, load_source)
from graphbench.measure.modes import build_modes, close_modes
from graphbench.measure.conditions import DeviceMonitor
from graphbench.measure.pipeline import Pipeline, bytes_needed
from graphbench.measure.stages import expand
from graphbench.measure.timing import EventTimer

MEMORY_HEADROOM = 0.9  # leave room for the context, CuPy's pool and fragmentation


def memory_plan(config: RunConfig, info: DeviceInfo, n_stages: int) -> str | None:
    """DeviceError when the chosen modes do not fit; else why the graph-update
    experiment, which needs a second set of buffers, must be skipped (None
    when it fits or there is no graph mode)."""
    one_set = bytes_needed(config.elements, n_stages)
    free = info.free_memory_bytes
    if free is None:
        return None
    if one_set > free * MEMORY_HEADROOM:
        raise DeviceError(
            f"--elements {config.elements} needs {one_set / 2**30:.2f} GiB of device memory, "
            f"but {free / 2**30:.2f} GiB is free on device {info.index} ({info.name})",
            "choose a smaller --elements")
    if "graph" in config.run_modes and 2 * one_set > free * MEMORY_HEADROOM:
        return (f"graph update not measured: its second set of buffers would need "
                f"{2 * one_set / 2**30:.2f} GiB in all, {free / 2**30:.2f} GiB is free")
    return None


def load_kernels(arch: str, source: str | None = None) -> dict:
    """The pipeline's kernels (shipped or a variant) and the harness's own."""
    source = source if source is not None else load_source()  # "" is a (bad) variant too
    pipeline = compile_cubin(source, arch)
    return {**_kernels(pipeline, PIPELINE_KERNELS),
            **_kernels(pipeline, PDL_KERNELS, required=False),
            **_kernels(compile_cubin(load_harness_source(), arch), HARNESS_KERNELS)}


def _kernels(module, names: tuple[str, ...], required: bool = True) -> dict:
    """The named kernels of `module`; an optional one it lacks is left out
    (a variant without PDL kernels simply has no PDL rungs)."""
    from cuda.core._utils.cuda_utils import CUDAError

    kernels = {}
    for name in names:
        try:
            kernels[name] = module.get_kernel(name)
        except CUDAError:
            if required:
                raise UsageError(f"the kernel source defines no kernel named {name}",
                                 "a --kernel-source variant must define "
                                 f"{', '.join(PIPELINE_KERNELS)} as extern \"C\" __global__"
                                 ) from None
    return kernels


class Session:
    def __init__(self, config: RunConfig, kernels: dict | None) -> None:
        self.config = config
        self.source = load_source(config.kernel_source)  # a bad path fails before the GPU is touched
        self.base_source = load_source(config.ab_source) if config.ab_source else None
        # before the driver starts its threads, so they inherit the pinning
        self.pinned_cpu = pin_host_thread(config.device) if config.pin_cpu else None
        self.device = open_device(config.device)
        self.info = describe(self.device)
        self.stages = expand(config.stages, config.depth)
        self.update_skipped = memory_plan(config, self.info, len(self.stages))
        self.kernels = kernels or load_kernels(self.info.arch, self.source)
        self.base_kernels = load_kernels(self.info.arch, self.base_source) \
            if self.base_source else None
        self.unavailable = self._available_modes()
        self._exit = ExitStack()

    def _available_modes(self) -> dict[str, str]:
        """The rungs this device or kernel source cannot run, and why."""
        sets = [self.kernels] + ([self.base_kernels] if self.base_kernels else [])
        reasons = unavailable_modes(self.config.run_modes, self.info, sets)
        self.config, unavailable = choose_modes(self.config, reasons)
        return unavailable

    def __enter__(self) -> "Session":
        try:
            self._open()
        except BaseException:
            self._exit.close()  # what was opened before the failure
            raise
        return self

    def _open(self) -> None:
        import cupy

        self._exit.enter_context(cupy.cuda.Device(self.config.device))
        self.stream = self.device.create_stream()
        self._exit.callback(self.stream.close)
        self.timer = EventTimer(self.device, self.stream)
        self._exit.callback(self.timer.close)
        self.pipeline = self.new_pipeline()
        base = self.pipeline.with_kernels(self.base_kernels) if self.base_kernels else None
        self.modes = build_modes(self.config.run_modes, self.pipeline, self.stream, base,
                                 self.kernels, self.config.unroll)
        self._exit.callback(close_modes, self.modes)
        self.monitor = DeviceMonitor(self.device)

    def new_pipeline(self) -> Pipeline:
        pipeline = Pipeline(self.kernels, self.stages, self.config.elements,
                            self.config.block_size, self.info.multiprocessors)
        self._exit.callback(pipeline.release)
        return pipeline

    def __exit__(self, *exc) -> None:
        self._exit.close()
