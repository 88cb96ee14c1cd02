"""The replay check of a callable pipeline file (graphbench replay
--pipeline FILE): its arrays allocated as a run allocates them, its stages
one callable writing its outputs in place, every other array refilled
between replays (graphbench.replay.battery)."""

from __future__ import annotations

from graphbench._version import install_command
from graphbench.errors import UsageError
from graphbench.pipeline.callables import CallablePipeline, plan_callables
from graphbench.replay.battery import Callee, run_battery
from graphbench.replay.check import ReplayCheck, torch_adapter
from graphbench.replay.verdicts import judge

CALLABLE_ONLY = ("a kernel pipeline's graphs are checked by graphbench run (replay with new "
                 "data, constant inputs, re-pointed buffers)")


def check_pipeline(name_or_path: str, elements: int, params: dict[str, str], repeats: int,
                   seed: int) -> ReplayCheck:
    """The replay check of the torch pipeline the file's pipeline() returns."""
    from graphbench.pipeline.files import load_pipeline
    from graphbench.process_state import kept

    spec = load_pipeline(name_or_path, params=params).spec
    if not isinstance(spec, CallablePipeline):
        raise UsageError("replay checks callable pipelines (torch)", CALLABLE_ONLY)
    plan = plan_callables(spec, elements)
    if plan.framework != "torch":
        raise UsageError(f"replay checks torch pipelines; {plan.name} is {plan.framework}",
                         "write the pipeline's stages with torch calls")
    torch = _torch()
    with kept():
        arrays = _arrays(torch, plan)
        adapter = torch_adapter(tuple(arrays.values()))
        names = list(arrays)

        def staged(*values):
            bufs = dict(zip(names, values))
            for stage in plan.stages:
                stage.fn(*((bufs, torch.cuda.current_stream()) if stage.takes_stream
                           else (bufs,)))
        staged.__name__ = plan.name
        outputs = tuple(i for i, name in enumerate(names) if name in plan.outputs)
        callee = Callee(staged, tuple(arrays.values()), outputs, {}, (), plan.rtol, plan.atol)
        record = run_battery(callee, adapter, repeats, seed)
    return ReplayCheck(record, judge(record))


def _torch():
    try:
        import torch
    except ImportError:
        raise UsageError("the replay check of a torch pipeline needs torch, which is not "
                         "installed", install_command("torch")) from None
    return torch


def _arrays(torch, plan) -> dict:
    if plan.setup is not None:
        return dict(plan.setup(plan.elements))
    return {name: torch.empty(a.shape, dtype=getattr(torch, a.dtype), device="cuda")
            for name, a in plan.buffers.items()}
