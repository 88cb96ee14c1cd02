"""A pipeline file's Plan: the Pipeline it describes at one element count,
every size evaluated, every field checked, every argument resolved to a
buffer name or a typed numpy value. The measurement builds its device
buffers and launches from the Plan alone (graphbench.measure.pipeline)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphbench.pipeline.spec import AUTO, ROLES, Buffer, Count, Pipeline, Scalar, SpecError, Stage, _short, evaluate_size
from graphbench.pipeline.checks import (check_buffer_fields, check_launch, check_pipeline_fields,
                                    check_stage_fields, dtype_of, typed_value)


@dataclass(frozen=True)
class BufferPlan:
    name: str
    dtype: np.dtype
    size: int
    role: str
    low: float
    high: float

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize


@dataclass(frozen=True)
class StagePlan:
    kernel: str
    args: tuple        # buffer names (str) and typed numpy values
    grid: object       # a tuple, or AUTO
    block: tuple
    work: int          # elements a grid-stride kernel loops over (for AUTO)
    pdl_kernel: str | None
    shared_bytes: int


@dataclass(frozen=True)
class Plan:
    name: str
    elements: int
    buffers: dict[str, BufferPlan]
    stages: tuple[StagePlan, ...]
    fused: StagePlan | None
    reference: object
    rtol: float
    atol: float
    description: str

    @property
    def inputs(self) -> list[str]:
        return [b.name for b in self.buffers.values() if b.role == "input"]

    @property
    def outputs(self) -> list[str]:
        return [b.name for b in self.buffers.values() if b.role == "output"]

    @property
    def buffer_bytes(self) -> int:
        return sum(b.nbytes for b in self.buffers.values())

    @property
    def kernels(self) -> set[str]:
        named = {s.kernel for s in self.stages} | ({self.fused.kernel} if self.fused else set())
        return named | {s.pdl_kernel for s in self.stages if s.pdl_kernel}


def plan(spec: Pipeline, n: int, origin: str = "") -> Plan:
    """`spec` at n elements, every field, dtype and size checked. origin:
    the pipeline file, named first in every message."""
    from graphbench.pipeline.callables import CallablePipeline, plan_callables

    if isinstance(spec, CallablePipeline):
        return plan_callables(spec, n)
    if not isinstance(spec, Pipeline):
        raise SpecError(f"{origin or 'pipeline'}: not a Pipeline", "return Pipeline(...)")
    name = spec.name if isinstance(spec.name, str) and spec.name else "pipeline"
    shown = name if name.isprintable() else _short(name)  # a lone surrogate cannot be printed
    where = f"{origin}: pipeline {shown}" if origin else shown
    check_pipeline_fields(spec, where)
    buffers = _buffers(spec, n, where)
    if not spec.stages:
        raise SpecError(f"{where}: no stages", "give at least one Stage")
    stages = tuple(_stage(s, i + 1, buffers, n, where) for i, s in enumerate(spec.stages))
    fused = _stage(spec.fused, "fused", buffers, n, where) if spec.fused is not None else None
    return Plan(name, n, buffers, stages, fused, spec.reference, float(spec.rtol),
                float(spec.atol), spec.description)


def _buffers(spec: Pipeline, n: int, where: str) -> dict[str, BufferPlan]:
    buffers: dict[str, BufferPlan] = {}
    total = 0
    for b in spec.buffers:
        here = f"{where}: buffer {_short(getattr(b, 'name', b))}"
        if not isinstance(b, Buffer) or not isinstance(b.name, str) or not b.name.isidentifier():
            raise SpecError(f"{here}: not a buffer with a name", 'use buffer("x", ...)')
        if b.name in buffers:
            raise SpecError(f"{here}: defined twice")
        if not isinstance(b.role, str) or b.role not in ROLES:
            raise SpecError(f"{here}: role {_short(b.role)} is not one of {', '.join(ROLES)}")
        check_buffer_fields(b, here)
        dtype = dtype_of(b.dtype, here)
        size = evaluate_size(b.size, n, f"{here}: size")
        if size * dtype.itemsize > MAX_BUFFER_BYTES:
            raise SpecError(f"{here}: size {_short(b.size)} is {size * dtype.itemsize:,} bytes "
                            f"at n = {n:,}, more than 1 TiB", "no GPU has that much memory")
        buffers[b.name] = BufferPlan(b.name, dtype, size, b.role, float(b.low), float(b.high))
        total += size * dtype.itemsize
        if total > MAX_BUFFER_BYTES:  # refused as soon as it is, not after 3,000 more buffers
            raise SpecError(f"{where}: its buffers take more than 1 TiB at n = {n:,} "
                            f"({len(buffers):,} of its {len(spec.buffers):,} already "
                            f"{total / 2**30:,.0f} GiB)", "no GPU has that much memory: give "
                            "fewer elements or a smaller depth")
    roles = {b.role for b in buffers.values()}
    if "input" not in roles or "output" not in roles:
        raise SpecError(f"{where}: needs at least one input and one output buffer")
    return buffers


# No GPU has 1 TiB of memory (the largest, B300, has 288 GB): a bigger buffer,
# or buffers bigger than that together, are a typo.
MAX_BUFFER_BYTES = 2**40


def _stage(stage, index, buffers, n: int, where: str) -> StagePlan:
    name = getattr(stage, "kernel", stage)
    shown = name if isinstance(name, str) and name.isidentifier() else _short(name)
    here = f"{where}: stage {index} ({shown})"
    if not isinstance(stage, Stage):
        raise SpecError(f"{here}: not a Stage", 'use Stage("kernel", args=...)')
    check_stage_fields(stage, here)
    args = tuple(_argument(a, i + 1, buffers, n, here) for i, a in enumerate(stage.args))
    block = _dims(stage.block, n, f"{here}: block")
    grid = AUTO if isinstance(stage.grid, str) and stage.grid == AUTO else _dims(stage.grid, n, f"{here}: grid")
    shared = check_launch(block, grid, stage.shared_bytes, here)
    return StagePlan(stage.kernel, args, grid, block, evaluate_size(stage.work, n, f"{here}: work"),
                     stage.pdl_kernel, shared)


def _dims(value, n: int, where: str) -> tuple[int, ...]:
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(values) <= 3:
        raise SpecError(f"{where}: {_short(value)} needs 1 to 3 dimensions")
    return tuple(evaluate_size(v, n, where) for v in values)


def _argument(arg, index: int, buffers, n: int, where: str):
    here = f"{where}: argument {index}"
    if isinstance(arg, str):
        if arg not in buffers:
            raise SpecError(f"{here} names unknown buffer {_short(arg)}",
                            f"buffers are {', '.join(buffers)}")
        return arg
    if isinstance(arg, Count):
        dtype = dtype_of(arg.dtype, f"{here} count", kinds="iu")
        return typed_value(evaluate_size(arg.expr, n, f"{here} count"), dtype, f"{here} count")
    if isinstance(arg, Scalar):
        return typed_value(arg.value, dtype_of(arg.dtype, f"{here} scalar"), f"{here} scalar")
    raise SpecError(f"{here} is {_short(arg)}",
                    "give a buffer name, count(\"n\") or scalar(value, dtype)")


def reference_outputs(plan: Plan, inputs: dict) -> dict:
    """The reference's expected outputs, each an output buffer of its shape;
    a reference that raises or returns anything else is the file's error."""
    try:
        expected = plan.reference(inputs, plan.elements)
    except Exception as exc:  # a user's reference: name it, never a traceback
        raise SpecError(f"{plan.name}: the reference raised {type(exc).__name__}: {exc}") from None
    if not isinstance(expected, dict) or not expected:
        raise SpecError(f"{plan.name}: the reference returned {type(expected).__name__}, "
                        "not {output name: array}")
    for name, value in expected.items():
        if name not in plan.outputs:
            raise SpecError(f"{plan.name}: the reference returned {name!r}, not an output "
                            f"buffer ({', '.join(plan.outputs)})")
        shape, size = getattr(value, "shape", None), plan.buffers[name].size
        if shape != (size,):
            raise SpecError(f"{plan.name}: the reference's {name} has shape {shape}, the "
                            f"buffer ({size},)", "return one flat array per output")
    return expected
