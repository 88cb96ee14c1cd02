"""What old records did not store, filled in once as they are read.

Records from before pipeline files ran the built-in pipeline and did not
store its working set; the reader computes it from that pipeline's buffers
as they were then (three float32 inputs, one float32 output per stage), so
every record read back has `pipeline.working_set_bytes`, and neither the
reader nor the statistics ever load a pipeline file.
"""

from __future__ import annotations

import dataclasses

from graphbench.errors import RecordError
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


BUILT_IN_STAGES = ("add", "mul", "sub")  # the stages the built-in pipeline had then
FLOAT32_BYTES, INPUTS = 4, 3


def _built_in_bytes(elements: int, depth: int, stages: tuple[str, ...]) -> int:
    unknown = [s for s in stages if s not in BUILT_IN_STAGES]
    if unknown or not stages or depth < 1:  # a hand-edited record: no such run was made
        raise RecordError(f"config: stages {','.join(stages) or '(none)'} at depth {depth} "
                          "is no chain the built-in pipeline ran", "give a record graphbench wrote")
    return FLOAT32_BYTES * elements * (INPUTS + len(stages) * depth)
