"""The public API of torch and CuPy callable pipelines, at a short import
path: `from graphbench.callables import CallablePipeline, array` (it lives
in graphbench.pipeline.callables)."""

from graphbench.pipeline.callables import CallablePipeline, CaptureError, array  # noqa: F401
