"""The replay check of a callable (torch or CuPy) pipeline file
(graphbench replay --pipeline FILE): its arrays allocated as a run allocates them, its stages
one callable writing its outputs in place, every other array refilled
between replays (graphbench.replay.battery)."""

from __future__ import annotations

from graphbench._version import install_command
from graphbench.config import MAX_ELEMENTS
from graphbench.errors import DeviceError, UsageError, first_line
from graphbench.pipeline.callables import CallablePipeline, plan_callables
from graphbench.replay.battery import Callee, run_battery
from graphbench.replay.check import ReplayCheck, adapter_for, check_battery
from graphbench.replay.verdicts import judge

CALLABLE_ONLY = ("a kernel pipeline's graphs are checked by graphbench run (replay with new "
                 "data, constant inputs, re-pointed buffers)")


def check_pipeline(name_or_path: str, elements: int, params: dict[str, str], repeats: int,
                   seed: int) -> ReplayCheck:
    """The replay check of the torch or CuPy pipeline the file's pipeline() returns."""
    from graphbench.measure.device import list_devices
    from graphbench.pipeline.files import load_pipeline
    from graphbench.process_state import kept

    check_battery(repeats, seed, "--")
    if elements > MAX_ELEMENTS:
        raise UsageError(f"--elements {elements:,} is more than any GPU holds (at most "
                         f"{MAX_ELEMENTS:,})", "e.g. --elements 2^20")
    spec = load_pipeline(name_or_path, params=params).spec
    if not isinstance(spec, CallablePipeline):
        raise UsageError("replay checks callable pipelines (torch or CuPy)", CALLABLE_ONLY)
    plan = plan_callables(spec, elements)
    framework = _framework(plan.framework)
    with kept():
        list_devices()  # DeviceError before any array is made where there is no usable GPU
        try:
            arrays = _arrays(framework, plan)
        except Exception as exc:  # out of memory (torch's is a RuntimeError), or setup(n)'s
            if isinstance(exc, MemoryError) or "out of memory" in str(exc).lower():
                raise DeviceError(f"cannot allocate {plan.name}'s arrays at {elements:,} "
                                  f"elements: {first_line(exc, named=True)}"[:300],
                                  "give fewer --elements") from None
            raise UsageError(f"{plan.name}: making its arrays raised {first_line(exc, named=True)}"[:300],
                             "make setup(n) return the arrays the stages use") from None
        adapter = adapter_for(tuple(arrays.values()))
        names = list(arrays)

        def staged(*values):
            bufs = dict(zip(names, values))
            for stage in plan.stages:
                stage.fn(*((bufs, _current_stream(framework)) if stage.takes_stream
                           else (bufs,)))
        staged.__name__ = plan.name
        outputs = tuple(i for i, name in enumerate(names) if name in plan.outputs)
        callee = Callee(staged, tuple(arrays.values()), outputs, {}, (), plan.rtol, plan.atol)
        record = run_battery(callee, adapter, repeats, seed)
    return ReplayCheck(record, judge(record))


def _framework(name: str):
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise UsageError(f"the replay check of a {name} pipeline needs {name}, which is not "
                         "installed", install_command("torch") if name == "torch" else
                         'pip install "." in the graphbench checkout (CuPy is a requirement)') \
            from None


def _current_stream(framework):
    if framework.__name__ == "torch":
        return framework.cuda.current_stream()
    return framework.cuda.get_current_stream()


def _arrays(framework, plan) -> dict:
    if plan.setup is not None:
        return dict(plan.setup(plan.elements))
    if framework.__name__ == "torch":
        return {name: framework.empty(a.shape, dtype=getattr(framework, a.dtype), device="cuda")
                for name, a in plan.buffers.items()}
    return {name: framework.empty(a.shape, dtype=a.dtype) for name, a in plan.buffers.items()}
