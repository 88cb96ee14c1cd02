"""Device buffers and the ordered stage launches over them.

Buffers are CuPy arrays (so the reference and the checks run on the GPU);
kernels are launched with cuda.core onto a Stream or a GraphBuilder. CuPy
works on its own stream, so every CuPy-side method synchronises before it
returns: launches that follow never race with a fill or a poison.
"""

from __future__ import annotations

import copy
from typing import Mapping, Sequence

import numpy as np
from cuda.core import LaunchConfig, launch

from graphbench.measure.kernels import FUSED_KERNEL, pdl_name
from graphbench.measure.stages import FIRST_INPUT, Stage, is_default_chain, reference

INPUT_NAMES = ("a", "b", "c")
FLOAT_BYTES = 4
GRID_BLOCKS_PER_SM = 32  # cap for grid-stride loops: enough blocks to fill every SM


def bytes_needed(elements: int, n_stages: int) -> int:
    """Inputs, one output per stage, and room for the reference and its check."""
    return (len(INPUT_NAMES) + n_stages + 3) * elements * FLOAT_BYTES


def grid_size(elements: int, block: int, multiprocessors: int | None) -> int:
    blocks = -(-elements // block)
    if multiprocessors:
        blocks = min(blocks, multiprocessors * GRID_BLOCKS_PER_SM)
    return max(1, blocks)


def unrolled_launches(target, config, launches):
    """A function that makes one `launch` call per stage, written out one
    after another, its kernels and arguments in closure cells: the code a
    person writes for a bare loop. A Python `for` over the stages cost the
    individual step 1.5-2.3% over such a loop on the H200, which inflated
    the graph speedup by as much."""
    names = [f"k{i}, a{i}" for i in range(len(launches))]
    body = "".join(f"        launch(target, config, k{i}, *a{i})\n" for i in range(len(launches)))
    source = (f"def make(launch, target, config, {', '.join(names)}):\n"
              f"    def enqueue_stages():\n{body or '        pass'}\n"
              f"    return enqueue_stages\n")
    namespace: dict = {}
    exec(compile(source, "<graphbench unrolled launches>", "exec"), namespace)  # noqa: S102
    flat = [item for kernel_args in launches for item in kernel_args]
    return namespace["make"](launch, target, config, *flat)


class Pipeline:
    def __init__(self, kernels: Mapping[str, object], stages: Sequence[Stage], elements: int,
                 block: int, multiprocessors: int | None) -> None:
        import cupy

        self._cp = cupy
        self.elements = elements
        self.stages = list(stages)
        self.inputs = {name: cupy.empty(elements, dtype=cupy.float32) for name in INPUT_NAMES}
        self.outputs = [cupy.empty(elements, dtype=cupy.float32) for _ in self.stages]
        self.fused_output = cupy.empty(elements, dtype=cupy.float32)
        grid = grid_size(elements, block, multiprocessors)
        self.launch_config = LaunchConfig(grid=grid, block=block)
        # PDL: each stage may launch while its predecessor finishes (see pipeline.cu)
        self.pdl_config = LaunchConfig(grid=grid, block=block,
                                       programmatic_stream_serialization=True)
        self._set_kernels(kernels)

    def _set_kernels(self, kernels) -> None:
        self.stage_launches = self._stage_launches(kernels)
        self.pdl_launches = self._stage_launches(kernels, pdl_name) \
            if all(pdl_name(s.kernel) in kernels for s in self.stages) else None
        self.fused_launch = self._fused_launch(kernels) if is_default_chain(self.stages) else None

    def with_kernels(self, kernels) -> "Pipeline":
        """The same buffers, launched with other kernels (an A/B baseline build).
        Only the original releases the buffers."""
        other = copy.copy(self)
        other._set_kernels(kernels)
        return other

    def _stage_launches(self, kernels, name=lambda kernel: kernel) -> list[tuple[object, tuple]]:
        n = np.uint64(self.elements)
        launches, previous = [], self.inputs[FIRST_INPUT]
        for stage, out in zip(self.stages, self.outputs):
            args = (previous.data.ptr, self.inputs[stage.operand].data.ptr, out.data.ptr, n)
            launches.append((kernels[name(stage.kernel)], args))
            previous = out
        return launches

    def _fused_launch(self, kernels) -> tuple[object, tuple]:
        a, b, c = (self.inputs[name].data.ptr for name in INPUT_NAMES)
        args = (a, b, c, self.fused_output.data.ptr, np.uint64(self.elements))
        return kernels[FUSED_KERNEL], args

    # --- what the modes enqueue --------------------------------------------
    def enqueue_stages(self, target) -> None:
        """Enqueue one iteration's stage launches onto a stream or graph builder."""
        config = self.launch_config
        for kernel, args in self.stage_launches:
            launch(target, config, kernel, *args)

    def enqueue_stages_pdl(self, target) -> None:
        """The PDL-aware stages, launched with programmatic stream serialization."""
        config = self.pdl_config
        for kernel, args in self.pdl_launches:
            launch(target, config, kernel, *args)

    def enqueue_fused(self, target) -> None:
        kernel, args = self.fused_launch
        launch(target, self.launch_config, kernel, *args)

    # The enqueuers below are for the timing loop, which calls them thousands
    # of times: they hold everything in closure variables, so no attribute
    # lookup is measured as launch cost.
    def stage_enqueuer(self, target, pdl: bool = False):
        if pdl:
            return unrolled_launches(target, self.pdl_config, self.pdl_launches)
        return unrolled_launches(target, self.launch_config, self.stage_launches)

    def fused_enqueuer(self, target):
        config, (kernel, args) = self.launch_config, self.fused_launch
        return lambda: launch(target, config, kernel, *args)

    # --- CuPy side: contents, poison, reference ----------------------------
    def fill_random(self, rng: np.random.Generator) -> None:
        """Fresh uniform values in [-1, 1): never zeros, never the last contents."""
        for array in self.inputs.values():
            array.set(rng.uniform(-1.0, 1.0, self.elements).astype(np.float32))
        self._sync()

    def fill_constant(self, a: float, b: float, c: float) -> None:
        for name, value in zip(INPUT_NAMES, (a, b, c)):
            self.inputs[name].fill(value)
        self._sync()

    def poison(self) -> None:
        """NaN in every output, so an element a kernel did not write fails the check."""
        for array in self.outputs + [self.fused_output]:
            array.fill(np.nan)
        self._sync()

    def reference(self):
        return reference(self.inputs, self.stages)

    def result(self, fused: bool = False):
        return self.fused_output if fused else self.outputs[-1]

    def _sync(self) -> None:
        self._cp.cuda.get_current_stream().synchronize()

    def release(self) -> None:
        """Drop the buffers; CuPy returns them to its pool."""
        self.inputs, self.outputs, self.fused_output = {}, [], None
        self.stage_launches, self.pdl_launches, self.fused_launch = [], None, None
