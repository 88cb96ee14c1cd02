"""What old records did not store, filled in once as they are read.

Records from before pipeline files ran the built-in pipeline and did not
store its working set; the reader computes it from the built-in pipeline
file at the record's size, so every record read back has
`pipeline.working_set_bytes` and statistics never load a pipeline file.
"""

from __future__ import annotations

import dataclasses
import functools

from graphbench.errors import GraphbenchError, RecordError
from graphbench.record.model import PipelineInfo, RunRecord, SweepRecord

BUILT_IN = "built-in"


def with_working_sets(record: RunRecord | SweepRecord) -> RunRecord | SweepRecord:
    """`record` with every run's working set set (its points' too)."""
    if isinstance(record, SweepRecord):
        return dataclasses.replace(record, points=tuple(map(with_working_sets, record.points)))
    points = tuple(map(with_working_sets, record.gate_points))
    if record.pipeline.working_set_bytes is None:
        record = dataclasses.replace(record, pipeline=_filled(record))
    return dataclasses.replace(record, gate_points=points) if points else record


def _filled(record: RunRecord) -> PipelineInfo:
    info, cfg = record.pipeline, record.config
    if info.file != BUILT_IN:  # only the built-in pipeline ran before the field existed
        raise RecordError("pipeline.working_set_bytes: required field is missing",
                          "a record of a pipeline file stores it; remake the record")
    return dataclasses.replace(info, working_set_bytes=_built_in_bytes(
        cfg.elements, cfg.depth, tuple(cfg.stages)))


@functools.lru_cache(maxsize=64)  # a sweep's points share a few depths and stage chains
def _built_in_bytes(elements: int, depth: int, stages: tuple[str, ...]) -> int:
    from graphbench.pipeline.files import load_pipeline, plan

    try:
        return plan(load_pipeline(None, depth, stages).spec, elements).buffer_bytes
    except GraphbenchError as exc:  # a hand-edited stage chain the built-in file refuses
        raise RecordError(f"config: {exc.message}", "give a record graphbench wrote") from None
