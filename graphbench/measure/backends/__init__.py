"""Pipeline backends: what the modes and probes ask to enqueue one
iteration or to capture K of them. A new framework is one module here with
a CallableBackend subclass, and one line in `backend_for`.

- cuda.core kernels: graphbench.measure.pipeline.Pipeline (GraphBuilder capture)
- torch: .torch.TorchBackend (torch.cuda.CUDAGraph, with its private memory pool)
- CuPy: .cupy.CupyBackend (stream capture to a cupy.cuda.Graph)
"""

from __future__ import annotations

from graphbench.ladder import CUPY, KERNELS, TORCH


def backend_for(plan, stream, kernels, multiprocessors):
    """The backend that runs `plan` on `stream`."""
    framework = getattr(plan, "framework", KERNELS)
    if framework == TORCH:
        from graphbench.measure.backends.torch import TorchBackend

        return TorchBackend(plan, stream)
    if framework == CUPY:
        from graphbench.measure.backends.cupy import CupyBackend

        return CupyBackend(plan, stream)
    from graphbench.measure.pipeline import Pipeline

    return Pipeline(plan, kernels, multiprocessors)
