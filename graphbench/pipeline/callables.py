"""Callable pipelines: a chain of torch or CuPy calls benchmarked on the
same ladder as CUDA kernels, without rewriting them as kernel source.

    import torch
    from graphbench.pipeline.callables import CallablePipeline, array

    def scale(bufs):                       # writes its output in place
        torch.mul(bufs["x"], 2.0, out=bufs["y"])

    def reference(inputs, n):
        return {"y": inputs["x"].float() * 2}

    def pipeline():
        return CallablePipeline(
            name="double", framework="torch", stages=[scale], reference=reference,
            arrays=[array("x", ("n",), role="input"), array("y", ("n",))])

- framework: "torch" or "cupy". Nothing imports torch unless a torch
  pipeline runs.
- arrays: what graphbench allocates, each `array(name, shape, dtype, role,
  low, high)`; a shape is a tuple of size expressions in n (--elements).
  dtype is the framework's name ("bfloat16", "float16", "float32", ...).
  Or setup(n) -> {name: tensor or CuPy array} builds them itself, and
  inputs=/outputs= name the roles (every other array is scratch; inputs are
  refilled uniform in [-1, 1)).
- stages: callables stage(bufs) or stage(bufs, stream), called in order on
  graphbench's stream (it is the framework's current stream while they run;
  `stream` is that framework stream object, for RawKernels and Triton).
  A stage writes into the arrays in bufs (out=, copy_, in-place ops) and
  returns None; it must not allocate arrays it keeps, synchronise with the
  host, or rebind bufs. iteration=fn is one stage doing a whole iteration.
- reference(inputs, n) -> {output name: array of the output's shape}, with
  inputs the framework arrays; compute it in higher precision (float32)
  and set rtol/atol for the pipeline's own precision.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from graphbench.errors import UsageError
from graphbench.ladder import FRAMEWORKS
from graphbench.pipeline.checks import check_buffer_fields, check_callable_fields
from graphbench.pipeline.spec import ROLES, SpecError, _short, evaluate_size

# the dtypes graphbench allocates and fills, by framework (names both share)
DTYPES = {"torch": ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16",
                    "int8", "uint8"),
          "cupy": ("float64", "float32", "float16", "int64", "int32", "int16", "int8",
                   "uint64", "uint32", "uint16", "uint8")}
ITEMSIZE = {"float64": 8, "int64": 8, "uint64": 8, "float32": 4, "int32": 4, "uint32": 4,
            "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "int8": 1, "uint8": 1}


class CaptureError(UsageError):
    """A stage that cannot run inside a graph, or that does not write its
    outputs in place; the message names the pipeline and the stage."""


@dataclass(frozen=True)
class ArraySpec:
    """A framework array graphbench allocates: inputs are filled with seeded
    random data in [low, high), outputs poisoned with NaN before every check."""

    name: str
    shape: tuple = ("n",)
    dtype: str = "float32"
    role: str = "output"
    low: float = -1.0
    high: float = 1.0


def array(name: str, shape=("n",), dtype: str = "float32", role: str = "output",
          low: float = -1.0, high: float = 1.0) -> ArraySpec:
    return ArraySpec(name, shape if isinstance(shape, tuple) else (shape,), dtype, role,
                     low, high)


@dataclass(frozen=True)
class CallablePipeline:
    """A pipeline of framework calls (see the module docstring)."""

    name: str
    framework: str
    reference: Callable
    stages: Sequence[Callable] = ()
    iteration: Callable | None = None
    arrays: Sequence[ArraySpec] = ()
    setup: Callable | None = None
    inputs: Sequence[str] = ()
    outputs: Sequence[str] = ()
    rtol: float = 1e-5
    atol: float = 1e-5
    description: str = ""
    params: Mapping[str, object] = field(default_factory=dict)


# --- the plan ------------------------------------------------------------------

@dataclass(frozen=True)
class ArrayPlan:
    name: str
    dtype: str
    shape: tuple[int, ...]
    role: str
    low: float
    high: float

    @property
    def size(self) -> int:
        total = 1
        for extent in self.shape:
            total *= extent
        return total

    @property
    def nbytes(self) -> int:
        return self.size * ITEMSIZE[self.dtype]


@dataclass(frozen=True)
class CallableStage:
    name: str
    fn: Callable
    takes_stream: bool


@dataclass(frozen=True)
class CallablePlan:
    """A callable pipeline at n elements, checked: what its backend builds from."""

    name: str
    framework: str
    elements: int
    buffers: dict[str, ArrayPlan]   # empty when setup(n) makes the arrays
    stages: tuple[CallableStage, ...]
    reference: object
    rtol: float
    atol: float
    description: str
    setup: Callable | None
    roles: dict[str, str]           # inputs and outputs by name; the rest is scratch
    fused = None
    kernels: frozenset = frozenset()

    @property
    def inputs(self) -> list[str]:
        return [name for name, role in self.roles.items() if role == "input"]

    @property
    def outputs(self) -> list[str]:
        return [name for name, role in self.roles.items() if role == "output"]

    @property
    def buffer_bytes(self) -> int:
        return sum(b.nbytes for b in self.buffers.values())


def plan_callables(spec: CallablePipeline, n: int) -> CallablePlan:
    where = spec.name if isinstance(spec.name, str) and spec.name else "pipeline"
    if spec.framework not in FRAMEWORKS:
        raise SpecError(f"{where}: framework {_short(spec.framework)} is not one of "
                        f"{', '.join(FRAMEWORKS)}", 'use framework="torch" or "cupy"')
    check_callable_fields(spec, where)
    arrays, roles = _arrays(spec, n, where)
    stages = _stages(spec, where)
    if not callable(spec.reference):
        raise SpecError(f"{where}: reference is not a function",
                        "give reference(inputs, n) -> {output name: expected array}")
    for name in ("rtol", "atol"):
        value = getattr(spec, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise SpecError(f"{where}: {name} must be a number 0 or more, got {value!r}")
    return CallablePlan(where, spec.framework, n, arrays, stages, spec.reference,
                        float(spec.rtol), float(spec.atol), spec.description or "",
                        spec.setup, roles)


def _arrays(spec, n: int, where: str) -> tuple[dict, dict]:
    if spec.setup is not None:
        if spec.arrays or not callable(spec.setup):
            raise SpecError(f"{where}: give arrays= or a setup(n) function, not both",
                            "setup(n) returns every array the stages use")
        roles = {**{x: "input" for x in spec.inputs}, **{x: "output" for x in spec.outputs}}
        _need_roles(roles, where, "name them in inputs=[...] and outputs=[...]")
        return {}, roles
    arrays: dict[str, ArrayPlan] = {}
    for a in spec.arrays:
        here = f"{where}: array {getattr(a, 'name', a)!r}"
        if not isinstance(a, ArraySpec) or not isinstance(a.name, str) or \
                not a.name.isidentifier():
            raise SpecError(f"{here}: not an array with a name", 'use array("x", ("n",), ...)')
        if a.name in arrays:
            raise SpecError(f"{here}: defined twice")
        if a.role not in ROLES:
            raise SpecError(f"{here}: role {a.role!r} is not one of {', '.join(ROLES)}")
        if a.dtype not in DTYPES[spec.framework]:
            raise SpecError(f"{here}: dtype {a.dtype!r} is not one graphbench fills for "
                            f"{spec.framework}", f"use one of {', '.join(DTYPES[spec.framework])}")
        check_buffer_fields(a, here)
        if not isinstance(a.shape, tuple) or not a.shape:
            raise SpecError(f"{here}: shape must be a tuple of sizes, got {_short(a.shape)}",
                            'e.g. ("n",) or ("n // 1024", 1024)')
        shape = tuple(evaluate_size(extent, n, f"{here}: shape") for extent in a.shape)
        arrays[a.name] = ArrayPlan(a.name, a.dtype, shape, a.role, a.low, a.high)
    roles = {a.name: a.role for a in arrays.values() if a.role != "scratch"}
    _need_roles(roles, where, "give arrays with role='input' and an output")
    return arrays, roles


def _need_roles(roles: dict, where: str, remedy: str) -> None:
    if "input" not in roles.values() or "output" not in roles.values():
        raise SpecError(f"{where}: needs at least one input and one output array", remedy)


def _stages(spec, where: str) -> tuple[CallableStage, ...]:
    if (spec.iteration is None) == (not spec.stages):
        raise SpecError(f"{where}: give stages=[...] or iteration=fn, one of the two",
                        "each stage is a function stage(bufs) that writes in place")
    fns = [spec.iteration] if spec.iteration is not None else list(spec.stages)
    stages, seen = [], set()
    for index, fn in enumerate(fns):
        name = getattr(fn, "__name__", "") or f"stage {index + 1}"
        if name in seen or name == "<lambda>":
            name = f"{name} (stage {index + 1})"
        seen.add(name)
        if not callable(fn):
            raise SpecError(f"{where}: stage {index + 1} is {fn!r}, not a function",
                            "give functions stage(bufs) or stage(bufs, stream)")
        stages.append(CallableStage(name, fn, _takes_stream(fn, f"{where}: stage {name}")))
    return tuple(stages)


def _takes_stream(fn, where: str) -> bool:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):  # a builtin or an extension op: called with bufs only
        return False
    if not 1 <= len(params) <= 2:
        raise SpecError(f"{where} takes {len(params)} arguments",
                        "define stage(bufs) or stage(bufs, stream)")
    return len(params) == 2
