"""Device buffers and the ordered stage launches over them, built from a
pipeline file's Plan (graphbench.pipeline.files): the same code for the
built-in pipeline and a user's.

Buffers are CuPy arrays (so the reference and the checks run on the GPU);
kernels are launched with cuda.core onto a Stream or a GraphBuilder. CuPy
works on its own stream, so every CuPy-side method synchronises before it
returns: launches that follow never race with a fill or a poison.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
from cuda.core import LaunchConfig, launch

from graphbench.ladder import KERNELS
from graphbench.measure.costs import time_graph_lifecycle
from graphbench.measure.graphs import CapturedGraph
from graphbench.measure.host_work import SLICE, over_slices, slices
from graphbench.measure.steps import written_step
from graphbench.metrics import FUSED, STAGES_PDL
from graphbench.pipeline.files import reference_outputs
from graphbench.launch_shape import GridRule  # --grid's shape
from graphbench.pipeline.spec import AUTO

GRID_BLOCKS_PER_SM = 32  # cap for grid-stride loops: enough blocks to fill every SM
REFERENCE_ROOM = 3       # the reference and its check need about three more outputs


class Launch(NamedTuple):
    kernel: object
    config: object
    args: tuple


def bytes_needed(plan) -> int:
    """Every buffer, and room for the reference and its check."""
    largest = max((b.nbytes for b in plan.buffers.values() if b.role == "output"), default=0)
    return plan.buffer_bytes + REFERENCE_ROOM * largest


def grid_size(elements: int, block: int, multiprocessors: int | None) -> int:
    blocks = -(-elements // block)
    if multiprocessors:
        blocks = min(blocks, multiprocessors * GRID_BLOCKS_PER_SM)
    return max(1, blocks)


def unrolled_launches(target, launches):
    """A step that makes one `launch` call per stage, written out one after
    another, its configs, kernels and arguments in closure cells: the code a
    person writes for a bare loop (graphbench.measure.steps). A Python `for`
    over the stages costs the individual step a little over such a loop,
    which would inflate the graph speedup by as much (docs/measurement.md#host-side-costs)."""
    bindings: dict = {"launch": launch, "target": target}
    for i, one in enumerate(launches):
        bindings |= {f"c{i}": one.config, f"k{i}": one.kernel, f"a{i}": one.args}
    return written_step("unrolled launches",
                        [f"launch(target, c{i}, k{i}, *a{i})" for i in range(len(launches))],
                        bindings)


class Pipeline:
    """The cuda.core kernels backend: the modes and probes ask it, as they
    ask any backend, to enqueue an iteration or to capture K of them."""

    framework = KERNELS

    def __init__(self, plan, kernels, multiprocessors: int | None) -> None:
        import cupy

        self._cp, self.plan, self.multiprocessors = cupy, plan, multiprocessors
        self.elements = plan.elements
        self.stages = plan.stages
        self.buffers = {b.name: cupy.empty(b.size, dtype=b.dtype) for b in plan.buffers.values()}
        self.checked: tuple[str, ...] = ()  # the reference's outputs, once it has run
        self._set_kernels(kernels)

    @property
    def inputs(self) -> dict:
        return {name: self.buffers[name] for name in self.plan.inputs} if self.buffers else {}

    @property
    def outputs(self) -> list:
        return [self.buffers[name] for name in self.plan.outputs] if self.buffers else []

    @property
    def launch_config(self):
        """The first stage's launch shape (the record shows it)."""
        return self.stage_launches[0].config

    def _set_kernels(self, kernels) -> None:
        self.stage_launches = [self._launch(s, kernels, s.kernel) for s in self.stages]
        has_pdl = all(s.pdl_kernel and s.pdl_kernel in kernels for s in self.stages)
        self.pdl_launches = [self._launch(s, kernels, s.pdl_kernel, pdl=True)
                             for s in self.stages] if has_pdl else None
        fused = self.plan.fused
        self.fused_launch = self._launch(fused, kernels, fused.kernel) if fused else None

    def _launch(self, stage, kernels, name: str, pdl: bool = False) -> Launch:
        grid = (stage.grid.resolve(self.multiprocessors),) if isinstance(stage.grid, GridRule) \
            else stage.grid if stage.grid != AUTO else \
            (grid_size(stage.work, stage.block[0], self.multiprocessors),)
        config = LaunchConfig(grid=grid, block=stage.block, shmem_size=stage.shared_bytes,
                              programmatic_stream_serialization=pdl)
        args = tuple(self.buffers[a].data.ptr if isinstance(a, str) else a for a in stage.args)
        return Launch(kernels[name], config, args)

    def with_build(self, plan, kernels) -> "Pipeline":
        """The same buffers, launched as `plan` says with other kernels (an
        A/B base build; graphbench.pipeline.revision checked that the two
        plans' buffers agree). Only the original releases the buffers."""
        other = copy.copy(self)
        other.plan, other.stages = plan, plan.stages
        other._set_kernels(kernels)
        return other

    # --- what the modes enqueue --------------------------------------------
    def enqueue_stages(self, target) -> None:
        """Enqueue one iteration's stage launches onto a stream or graph builder."""
        for one in self.stage_launches:
            launch(target, one.config, one.kernel, *one.args)

    def enqueue_stages_pdl(self, target) -> None:
        """The PDL-aware stages, launched with programmatic stream serialization."""
        for one in self.pdl_launches:
            launch(target, one.config, one.kernel, *one.args)

    def enqueue_fused(self, target) -> None:
        one = self.fused_launch
        launch(target, one.config, one.kernel, *one.args)

    def workload_enqueue(self, workload: str):
        """One iteration of `workload`'s GPU work, for the busy probe."""
        return {FUSED: self.enqueue_fused, STAGES_PDL: self.enqueue_stages_pdl}.get(
            workload, self.enqueue_stages)

    @staticmethod
    def capture(stream, enqueue, iterations: int = 1) -> CapturedGraph:
        return CapturedGraph(stream, enqueue, iterations)

    @staticmethod
    def lifecycle(stream, enqueue, iterations: int = 1):
        return time_graph_lifecycle(stream, enqueue, iterations)

    @property
    def framework_version(self) -> str | None:
        from graphbench.measure.provenance import package_versions

        return package_versions().get("cuda-core")

    # The enqueuers below are for the timing loop, which calls them thousands
    # of times: they hold everything in closure variables, so no attribute
    # lookup is measured as launch cost.
    def stage_enqueuer(self, target, pdl: bool = False):
        return unrolled_launches(target, self.pdl_launches if pdl else self.stage_launches)

    def fused_enqueuer(self, target):
        return unrolled_launches(target, [self.fused_launch])

    # --- CuPy side: contents, poison, reference ----------------------------
    def fill_random(self, rng: np.random.Generator) -> None:
        """Fresh uniform values in each input's range: never zeros, never the
        last contents (integer inputs get integers in the range)."""
        for name in self.plan.inputs:
            spec, array = self.plan.buffers[name], self.buffers[name]
            array.set(random_values(rng, spec.low, spec.high, spec.size, spec.dtype))
        self._sync()

    def fill_constant(self) -> None:
        """Input k holds the constant k + 1 everywhere (1, 2, 3, ...)."""
        for k, name in enumerate(self.plan.inputs):
            self.buffers[name].fill(k + 1)
        self._sync()

    def poison(self) -> None:
        """NaN (or the integer maximum) in every output, so an element a
        kernel did not write fails the check."""
        for name in self.plan.outputs:
            array = self.buffers[name]
            array.fill(np.nan if array.dtype.kind == "f" else np.iinfo(array.dtype).max)
        self._sync()

    def reference(self) -> dict:
        """The pipeline's CuPy reference on the current inputs, checked."""
        expected = reference_outputs(self.plan, self.inputs)
        self.checked = tuple(expected)
        self._sync()
        return expected

    def result(self) -> dict:
        """Every output buffer as it is now (the checks pick the reference's)."""
        return {name: self.buffers[name] for name in self.plan.outputs}

    def _sync(self) -> None:
        self._cp.cuda.get_current_stream().synchronize()

    def release(self) -> None:
        """Drop the buffers; CuPy returns them to its pool."""
        self.buffers = {}
        self.stage_launches, self.pdl_launches, self.fused_launch = [], None, None


def random_values(rng: np.random.Generator, low: float, high: float, size: int, dtype):
    """Uniform values in [low, high) of `dtype`: each slice of the array from
    its own generator spawned from `rng` (the same values for the same seed,
    drawn on every core), in single precision where that is the dtype (one
    core drawing float64 at large sizes took a third of a run:
    docs/measurement.md#host-side-costs). Integers are drawn as floats and floored."""
    dtype = np.dtype(dtype)
    draw = np.float32 if dtype == np.float32 else np.float64
    out = np.empty(size, dtype=dtype)
    generators = rng.spawn(len(slices(size)))
    top = np.nextafter(draw(high), draw(low))  # rounding may reach `high`: keep it out

    def fill(part: slice) -> None:
        values = generators[part.start // SLICE].random(part.stop - part.start, dtype=draw)
        values *= draw(high - low)
        values += draw(low)
        out[part] = np.floor(values) if dtype.kind in "iub" else np.minimum(values, top)

    over_slices(fill, size)
    return out
