"""An already-built pipeline (the Python API's `run(Pipeline(...))`), taken
as a pipeline file's would be loaded, with no file behind it. It then goes
through the checks a file's pipeline does (graphbench.preflight: its
kernels compiled, the rungs named checked), before any GPU work."""

from __future__ import annotations

from pathlib import Path

from graphbench.pipeline.callables import CallablePipeline
from graphbench.pipeline.checks import check_pipeline_fields
from graphbench.pipeline.files import LoadedPipeline, kernel_source_text
from graphbench.pipeline.spec import Pipeline, SpecError

OBJECT = "<object>"  # a record's pipeline.file when it ran an object, not a file
WHERE = "the pipeline object"  # how a message names it


def loaded_object(spec) -> LoadedPipeline:
    """`spec` as a LoadedPipeline: no file, so no file digest (the kernel
    source's digest is still recorded); a relative kernel source path is
    found from the working directory."""
    if isinstance(spec, CallablePipeline):  # torch or CuPy calls: no CUDA source
        return LoadedPipeline(spec, Path(OBJECT), None, "")
    if not isinstance(spec, Pipeline):
        raise SpecError(f"the pipeline is a {type(spec).__name__}, not a Pipeline",
                        "give a graphbench.pipeline.spec.Pipeline or CallablePipeline, a "
                        "pipeline file's path or a shipped name")
    check_pipeline_fields(spec, WHERE)  # its source is read next, so it must be text first
    return LoadedPipeline(spec, Path(OBJECT), None,
                          kernel_source_text(spec.source, Path.cwd() / OBJECT))
