"""A bare torch or CuPy function with example inputs, as a callable
pipeline (graphbench.bench(fn, *inputs)): the inputs are copied into arrays
graphbench owns (and refilled with fresh random values, as every
pipeline's are), the function's results copied into outputs shaped as its
first call returned them, and, with no reference of the user's, every rung
is checked against the function's own eager results on the same inputs,
which the record's description says is all that was checked. Nothing
imports torch or CuPy here: the inputs' own types say which framework."""

from __future__ import annotations

from typing import Callable, Sequence

from graphbench.pipeline.callables import CallablePipeline
from graphbench.pipeline.spec import SpecError, _short

OWN_RESULTS = ("a bare function: every rung checked only against its own eager results "
               "on the same inputs, not an independent reference")
# its own results, computed again: a library may choose other kernels under capture
TOLERANCE = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-4, "float64": 1e-10}


def framework_of(inputs: Sequence[object]) -> str:
    kinds = {_kind(x) for x in inputs}
    if not inputs or None in kinds or len(kinds) != 1:
        found = ", ".join(sorted({type(x).__module__ + "." + type(x).__name__ for x in inputs}))
        raise SpecError(f"bench needs example inputs that are all torch tensors or all CuPy "
                        f"arrays, got {found or 'none'}",
                        "e.g. graphbench.bench(fn, torch.randn(4096, device='cuda'))")
    return kinds.pop()


def _kind(value: object) -> str | None:
    module = type(value).__module__
    if module.startswith("torch") and type(value).__name__ in ("Tensor", "Parameter"):
        return "torch"
    if module.startswith("cupy") and type(value).__name__ == "ndarray":
        return "cupy"
    return None


def _results(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def bare_pipeline(fn: Callable, inputs: Sequence[object], rtol: float | None = None,
                  atol: float | None = None, reference: Callable | None = None
                  ) -> CallablePipeline:
    """`fn(*inputs)` as a CallablePipeline (see the module docstring)."""
    if not callable(fn):
        raise SpecError(f"bench needs a function, got {_short(fn)}", "graphbench.bench(fn, *inputs)")
    framework = framework_of(inputs)
    names = [f"input{i}" for i in range(len(inputs))]
    first = _results(fn(*inputs))
    if any(_kind(r) != framework for r in first):
        raise SpecError(f"{getattr(fn, '__name__', 'fn')} must return {framework} arrays "
                        "(one, or a tuple of them)", "return the results, not Python numbers")
    outputs = [f"output{i}" for i in range(len(first))]
    step = _copy_step(framework)

    def setup(n):
        return {**{k: _copy(x) for k, x in zip(names, inputs)},
                **{k: _empty(r) for k, r in zip(outputs, first)}}

    def iteration(bufs):
        for out, result in zip(outputs, _results(fn(*(bufs[k] for k in names)))):
            step(bufs[out], result)

    def own_results(given, n):
        return dict(zip(outputs, _results(fn(*(given[k] for k in names)))))

    low = TOLERANCE.get(str(first[0].dtype).rsplit(".", 1)[-1], 1e-5)
    return CallablePipeline(
        name=getattr(fn, "__name__", "bench") or "bench", framework=framework,
        reference=reference or own_results, iteration=iteration, setup=setup,
        inputs=names, outputs=outputs, rtol=low if rtol is None else rtol,
        atol=low if atol is None else atol,
        description="a bare function with a reference of its own" if reference else OWN_RESULTS)


def bench_settings(inputs: Sequence[object], settings: dict) -> dict:
    """Run settings for a bare function: its first input's element count
    stands for --elements (setup ignores n), and the individual and graph
    rungs unless asked for others."""
    first = inputs[0]
    count = first.numel() if hasattr(first, "numel") else int(getattr(first, "size", 1))
    return {"modes": "individual,graph", "elements": max(int(count), 1), **settings}


def _copy(x):
    return x.detach().clone() if hasattr(x, "detach") else x.copy()


def _empty(x):
    import importlib

    module = importlib.import_module("torch" if hasattr(x, "detach") else "cupy")
    return module.empty_like(x)


def _copy_step(framework: str) -> Callable:
    if framework == "torch":
        return lambda out, result: out.copy_(result)

    def copy(out, result):
        import cupy

        cupy.copyto(out, result)
    return copy
