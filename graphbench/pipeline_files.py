"""Pipeline files: find one (a shipped name or a path), run it, and check
what it describes against the run's element count, all before any GPU work.

The result is a Plan: every size evaluated, every argument resolved to a
buffer name or a typed numpy value. The measurement builds its device
buffers and launches from the Plan alone (graphbench.measure.pipeline).
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphbench.callables import CallablePipeline, plan_callables
from graphbench.config import DEFAULT_STAGES
from graphbench.spec import AUTO, ROLES, Buffer, Count, Pipeline, Scalar, SpecError, Stage, evaluate_size

SHIPPED_DIR = Path(__file__).resolve().parent / "pipelines"
BUILTIN = "add_mul_sub"
SHIPPED = ("add_mul_sub", "softmax", "jacobi", "reduction", "torch_mlp", "cupy_chain")


@dataclass(frozen=True)
class LoadedPipeline:
    spec: "Pipeline | CallablePipeline"
    path: Path
    file_sha256: str | None  # None: an object, not a file
    source: str  # the CUDA C++ text ("" for callables)


def pipeline_path(name_or_path: str | None) -> Path:
    """A shipped pipeline by name (softmax), or a pipeline file's path."""
    name = name_or_path or BUILTIN
    if name in SHIPPED:
        return SHIPPED_DIR / f"{name}.py"
    path = Path(name)
    if not path.is_file():
        raise SpecError(f"pipeline file {name} not found",
                        f"give a path to a .py file or one of {', '.join(SHIPPED)}")
    return path


def load_pipeline(name_or_path: str | None, depth: int = 1, stages=None) -> LoadedPipeline:
    """Run the pipeline file and call its pipeline() with the parameters it takes."""
    path = pipeline_path(name_or_path)
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read pipeline file {path}: {exc}") from None
    namespace = _run_file(text, path)
    make = namespace.get("pipeline")
    if not callable(make):
        raise SpecError(f"{path} defines no pipeline() function",
                        "define def pipeline(): return graphbench.spec.Pipeline(...)")
    spec = _call(make, path, depth, stages)
    source = "" if isinstance(spec, CallablePipeline) else kernel_source_text(spec.source, path)
    return LoadedPipeline(spec, path, hashlib.sha256(text.encode()).hexdigest(), source)


def _run_file(text: str, path: Path) -> dict:
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as exc:
        raise SpecError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    namespace = {"__file__": str(path), "__name__": f"graphbench_pipeline_{path.stem}"}
    try:
        exec(code, namespace)  # noqa: S102 - a pipeline file is trusted code, like a conftest
    except Exception as exc:  # a user's file: any error is theirs to fix, named here
        raise SpecError(f"{path} raised {type(exc).__name__} while loading: {exc}") from None
    return namespace


def _call(make, path: Path, depth: int, stages) -> Pipeline:
    accepted = inspect.signature(make).parameters
    kwargs = {}
    for name, value, default in (("depth", depth, 1), ("stages", stages, DEFAULT_STAGES)):
        if name in accepted:
            if value is not None:
                kwargs[name] = value
        elif value not in (default, None):
            raise SpecError(f"{path}: pipeline() takes no {name}",
                            f"leave out --{name} for this pipeline")
    try:
        spec = make(**kwargs)
    except SpecError:
        raise
    except Exception as exc:
        raise SpecError(f"{path}: pipeline() raised {type(exc).__name__}: {exc}") from None
    if not isinstance(spec, (Pipeline, CallablePipeline)):
        raise SpecError(f"{path}: pipeline() returned {type(spec).__name__}, not a Pipeline",
                        "return graphbench.spec.Pipeline(...) or CallablePipeline(...)")
    return spec


def kernel_source_text(source: str, pipeline_file: Path) -> str:
    """CUDA text as given, or read from a path relative to the pipeline file."""
    if "__global__" in source or "\n" in source:
        return source
    path = Path(source)
    if not path.is_absolute():
        path = pipeline_file.parent / path
    if not path.is_file() and (kernels := _shipped_kernel(source)):
        path = kernels
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{pipeline_file}: cannot read kernel source {source}: {exc}") from None


def _shipped_kernel(name: str) -> Path | None:
    from graphbench.measure.kernels import kernel_dir

    path = kernel_dir() / name
    return path if path.is_file() else None


def check_configs(configs) -> None:
    """Every configuration's pipeline file, sizes and kernel sources, before
    any GPU work: a bad file or size fails in a fraction of a second."""
    from graphbench.measure.kernels import load_source

    loaded: dict = {}
    for config in configs:
        key = (config.pipeline, config.depth, config.stages)
        if key not in loaded:
            loaded[key] = load_pipeline(*key)
        for size in (config.elements, *config.gate_sizes):
            plan(loaded[key].spec, size)
        for source in (config.kernel_source, config.ab_source):
            if source:
                load_source(source)


# --- the plan ------------------------------------------------------------------

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


def plan(spec: Pipeline, n: int) -> Plan:
    """`spec` at n elements, every name, dtype and size checked."""
    if isinstance(spec, CallablePipeline):
        return plan_callables(spec, n)
    where = spec.name if isinstance(spec.name, str) and spec.name else "pipeline"
    buffers = _buffers(spec, n, where)
    if not spec.stages:
        raise SpecError(f"{where}: no stages", "give at least one Stage")
    stages = tuple(_stage(s, i + 1, buffers, n, where) for i, s in enumerate(spec.stages))
    fused = _stage(spec.fused, "fused", buffers, n, where) if spec.fused is not None else None
    if not callable(spec.reference):
        raise SpecError(f"{where}: reference is not a function",
                        "give reference(inputs, n) -> {output name: expected array}")
    for name in ("rtol", "atol"):
        value = getattr(spec, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise SpecError(f"{where}: {name} must be a number 0 or more, got {value!r}")
    return Plan(where, n, buffers, stages, fused, spec.reference, float(spec.rtol),
                float(spec.atol), spec.description or "")


def _dtype(text, where: str) -> np.dtype:
    try:
        dtype = np.dtype(text)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biuf" or dtype.itemsize > 8:
        raise SpecError(f"{where}: dtype {text!r} is not one CuPy computes with",
                        "use float32, float64, float16, int32, int64, uint32, ...")
    return dtype


def _buffers(spec: Pipeline, n: int, where: str) -> dict[str, BufferPlan]:
    buffers: dict[str, BufferPlan] = {}
    for b in spec.buffers:
        here = f"{where}: buffer {getattr(b, 'name', b)!r}"
        if not isinstance(b, Buffer) or not isinstance(b.name, str) or not b.name.isidentifier():
            raise SpecError(f"{here}: not a buffer with a name", 'use buffer("x", ...)')
        if b.name in buffers:
            raise SpecError(f"{here}: defined twice")
        if b.role not in ROLES:
            raise SpecError(f"{here}: role {b.role!r} is not one of {', '.join(ROLES)}")
        buffers[b.name] = BufferPlan(b.name, _dtype(b.dtype, here),
                                     evaluate_size(b.size, n, here), b.role, b.low, b.high)
    roles = {b.role for b in buffers.values()}
    if "input" not in roles or "output" not in roles:
        raise SpecError(f"{where}: needs at least one input and one output buffer")
    return buffers


def _stage(stage, index, buffers, n: int, where: str) -> StagePlan:
    name = getattr(stage, "kernel", stage)
    here = f"{where}: stage {index} ({name})"
    if not isinstance(stage, Stage) or not isinstance(stage.kernel, str) or not stage.kernel:
        raise SpecError(f"{here}: not a Stage naming its kernel", 'use Stage("kernel", args=...)')
    args = tuple(_argument(a, i + 1, buffers, n, here) for i, a in enumerate(stage.args))
    block = _dims(stage.block, n, f"{here}: block")
    grid = AUTO if stage.grid == AUTO else _dims(stage.grid, n, f"{here}: grid")
    return StagePlan(stage.kernel, args, grid, block, evaluate_size(stage.work, n, f"{here}: work"),
                     stage.pdl_kernel, int(stage.shared_bytes))


def _dims(value, n: int, where: str) -> tuple[int, ...]:
    values = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(values) <= 3:
        raise SpecError(f"{where}: {value!r} needs 1 to 3 dimensions")
    return tuple(evaluate_size(v, n, where) for v in values)


def _argument(arg, index: int, buffers, n: int, where: str):
    if isinstance(arg, str):
        if arg not in buffers:
            raise SpecError(f"{where}: argument {index} names unknown buffer {arg!r}",
                            f"buffers are {', '.join(buffers)}")
        return arg
    if isinstance(arg, Count):
        dtype = _dtype(arg.dtype, f"{where}: argument {index}")
        return dtype.type(evaluate_size(arg.expr, n, f"{where}: argument {index}"))
    if isinstance(arg, Scalar):
        return _dtype(arg.dtype, f"{where}: argument {index}").type(arg.value)
    raise SpecError(f"{where}: argument {index} is {arg!r}",
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
