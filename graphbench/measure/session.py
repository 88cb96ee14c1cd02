"""The GPU objects of one run, opened in order and released in reverse,
also when opening fails partway, on an error, or on Ctrl-C."""

from __future__ import annotations

from contextlib import ExitStack

from graphbench.config import RunConfig
from graphbench.errors import DeviceError
from graphbench.measure.availability import choose_modes, unavailable_modes
from graphbench.measure.device import (DeviceInfo, describe, near_cpus, open_device,
                                       pin_host_thread)
from graphbench.measure.kernels import HARNESS_KERNELS, compile_cubin, load_harness_source, load_source
from graphbench.measure.modes import build_modes, close_modes
from graphbench.measure.conditions import DeviceMonitor
from graphbench.ladder import HEADLINE, KERNELS
from graphbench.launch_shape import with_launch_shape
from graphbench.measure.backends import backend_for
from graphbench.measure.pipeline import bytes_needed
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.pipeline.objects import OBJECT, loaded_object
from graphbench.pipeline.revision import load_base
from graphbench.pipeline.spec import SpecError
from graphbench.measure.timing import EventTimer

MEMORY_HEADROOM = 0.9  # leave room for the context, CuPy's pool and fragmentation


def memory_plan(config: RunConfig, info: DeviceInfo, plan) -> str | None:
    """DeviceError when the chosen modes do not fit; else why the graph-update
    experiment, which needs a second set of buffers, must be skipped (None
    when it fits or there is no graph mode)."""
    one_set = bytes_needed(plan)
    free = info.free_memory_bytes
    if free is None:
        return None
    if one_set > free * MEMORY_HEADROOM:
        raise DeviceError(
            f"--elements {config.elements} needs {one_set / 2**30:.2f} GiB of device memory, "
            f"but {free / 2**30:.2f} GiB is free on device {info.index} ({info.name})",
            "choose a smaller --elements")
    if HEADLINE in config.run_modes and 2 * one_set > free * MEMORY_HEADROOM:
        return (f"graph update not measured: its second set of buffers would need "
                f"{2 * one_set / 2**30:.2f} GiB in all, {free / 2**30:.2f} GiB is free")
    return None


def load_kernels(arch: str, source: str, plan) -> dict:
    """The pipeline's kernels (its PDL variants where the source has them)
    and the harness's own, each stage's argument count checked against
    the kernel's parameters. A callable pipeline has only the harness's."""
    harness = compile_cubin(load_harness_source(), arch)
    if getattr(plan, "framework", KERNELS) != KERNELS:
        return _kernels(harness, HARNESS_KERNELS, plan)
    module = compile_cubin(source, arch)
    required = [s.kernel for s in plan.stages] + ([plan.fused.kernel] if plan.fused else [])
    optional = [s.pdl_kernel for s in plan.stages if s.pdl_kernel]
    kernels = {**_kernels(module, required, plan), **_kernels(module, optional, plan, False),
               **_kernels(harness, HARNESS_KERNELS, plan)}
    check_argument_counts(plan, kernels)
    return kernels


def _kernels(module, names, plan, required: bool = True) -> dict:
    """The named kernels of `module`; an optional one it lacks is left out
    (a source without PDL kernels simply has no PDL rungs)."""
    from cuda.core._utils.cuda_utils import CUDAError

    kernels = {}
    for name in dict.fromkeys(names):
        try:
            kernels[name] = module.get_kernel(name)
        except CUDAError:
            if required:
                raise SpecError(f"the kernel source defines no kernel named {name}",
                                f"the {plan.name} pipeline's stages name it; define it as "
                                f"extern \"C\" __global__") from None
    return kernels


def check_argument_counts(plan, kernels) -> None:
    """Each stage passes as many arguments as its kernel takes (cuda.core
    reads the kernel's parameter list from the driver)."""
    stages = [(i + 1, s, s.kernel) for i, s in enumerate(plan.stages)]
    stages += [(i + 1, s, s.pdl_kernel) for i, s in enumerate(plan.stages)
               if s.pdl_kernel in kernels]
    stages += [("fused", plan.fused, plan.fused.kernel)] if plan.fused else []
    for index, stage, name in stages:
        takes = _argument_count(kernels[name])
        if takes is not None and takes != len(stage.args):
            raise SpecError(f"{plan.name}: stage {index} ({name}) gives {len(stage.args)} "
                            f"arguments, the kernel takes {takes}",
                            "make the stage's args match the kernel's parameters")


def _argument_count(kernel) -> int | None:
    try:
        return int(kernel.num_arguments)
    except Exception:  # an older driver cannot say; the launch itself will
        return None


def callables_only(plan, config: RunConfig) -> None:
    """A callable pipeline has no kernel source to replace or A/B."""
    framework = getattr(plan, "framework", KERNELS)
    if framework != KERNELS and config.kernel_source:
        raise SpecError(f"--kernel-source replaces CUDA kernels; the {plan.name} pipeline is "
                        f"{framework} callables", "leave out --kernel-source")
    if framework != KERNELS and (config.grid != "auto" or config.block is not None):
        raise SpecError(f"--grid and --block shape CUDA kernel launches; the {plan.name} "
                        f"pipeline is {framework} callables", "leave out --grid and --block")


_OPENED: list[int] = [0]  # sessions this process has opened: a run's GPU state outlives it


def sessions_opened() -> int:
    """How many Sessions this process has opened so far."""
    return _OPENED[0]


class Session:
    def __init__(self, config: RunConfig, kernels: dict | None, spec=None) -> None:
        self.config = config
        # after a run's checks this process reads GPU-bound figures higher
        # (graphbench.runner.measure_one): the record says how many came before
        self.earlier_runs = sessions_opened()
        # the pipeline file, its sizes and the sources fail before the GPU is touched;
        # `spec`, an already-built pipeline object (the Python API's), replaces the file
        self.loaded = loaded_object(spec) if spec is not None else \
            load_pipeline(config.pipeline, config.depth, config.stages, params=config.params)
        self.pipeline_file = OBJECT if spec is not None else config.pipeline or "built-in"
        callables_only(plan(self.loaded.spec, config.elements), config)
        # --grid/--block: the grid-stride stages' shape; None: not asked
        self.plan, self.shaped_stages = with_launch_shape(plan(self.loaded.spec, config.elements),
                                                          config.grid, config.block)
        self.source = load_source(config.kernel_source) if config.kernel_source \
            else self.loaded.source
        # --ab: the base side, read before the GPU is touched (a revision's files
        # exist only while it is read: graphbench.pipeline.revision)
        self.base = load_base(config, self.loaded) if config.ab_source else None
        self.base_source = self.base.source if self.base and self.base.source else None
        self.base_plan = with_launch_shape(plan(self.base.loaded.spec, config.elements),
                                           config.grid, config.block)[0] \
            if self.base and self.base.loaded else None
        # before the driver starts its threads, so they inherit the pinning
        self.near_cpus = near_cpus(config.device) if config.pin_cpu else []
        self.pinned_cpu = pin_host_thread(self.near_cpus)
        self.device = open_device(config.device)
        self.info = describe(self.device)
        self.update_skipped = memory_plan(config, self.info, self.plan)
        self.tolerance = (self.plan.rtol, self.plan.atol)
        self.kernels = kernels or load_kernels(self.info.arch, self.source, self.plan)
        self.base_kernels = load_kernels(self.info.arch, self.base_source,
                                         self.base_plan or self.plan) if self.base_source else None
        self.unavailable = self._available_modes()
        self._exit = ExitStack()

    def _available_modes(self) -> dict[str, str]:
        """The rungs this device or kernel source cannot run, and why."""
        sets = [self.kernels] + ([self.base_kernels] if self.base_kernels else [])
        reasons = unavailable_modes(self.config.run_modes, self.info, sets, self.plan)
        self.config, unavailable = choose_modes(self.config, reasons)
        return unavailable

    def __enter__(self) -> "Session":
        try:
            self._open()
        except BaseException:
            self._exit.close()  # what was opened before the failure
            raise
        _OPENED[0] += 1
        return self

    def _open(self) -> None:
        import cupy

        self._exit.enter_context(cupy.cuda.Device(self.config.device))
        self.stream = self.device.create_stream()
        self._exit.callback(self.stream.close)
        self.timer = EventTimer(self.device, self.stream)
        self._exit.callback(self.timer.close)
        self.pipeline = self.new_pipeline()
        base = self.pipeline.with_build(self.base_plan or self.plan, self.base_kernels) \
            if self.base else None
        self.modes = build_modes(self.config.run_modes, self.pipeline, self.stream, base,
                                 self.kernels, self.config.unroll)
        self._exit.callback(close_modes, self.modes)
        self.monitor = DeviceMonitor(self.device)

    def new_pipeline(self):
        """The plan's backend: cuda.core kernels, torch or CuPy callables."""
        pipeline = backend_for(self.plan, self.stream, self.kernels, self.info.multiprocessors)
        self._exit.callback(pipeline.release)
        return pipeline

    def __exit__(self, *exc) -> None:
        self._exit.close()
