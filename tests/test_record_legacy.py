"""graphbench.record.legacy: the working set a record of the built-in pipeline gets, and the one a
pipeline file's record must store."""

from __future__ import annotations

from tests_helpers import refusal

from graphbench.errors import RecordError
from graphbench.record import legacy


def test_a_pipeline_files_record_must_store_its_working_set():
    import dataclasses

    from conftest import make_record

    record = make_record()
    bare = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, working_set_bytes=None, file="mine.py"))
    assert refusal(lambda: legacy.with_working_sets(bare), RecordError) == (
        "pipeline.working_set_bytes: required field is missing",
        "a record of a pipeline file stores it; remake the record")


def test_a_built_in_records_working_set_follows_its_depth_and_stages():
    import dataclasses

    from conftest import make_record

    from graphbench.pipeline.files import load_pipeline, plan

    for depth, stages in ((1, ("add", "mul", "sub")), (3, ("add", "mul", "sub")),
                          (2, ("add", "mul"))):
        record = make_record(depth=depth, stages=stages, elements=4096)
        bare = dataclasses.replace(record, pipeline=dataclasses.replace(
            record.pipeline, working_set_bytes=None))
        filled = legacy.with_working_sets(bare).pipeline.working_set_bytes
        assert filled == plan(load_pipeline(None, depth, stages).spec, 4096).buffer_bytes


def test_a_built_in_chain_the_old_pipeline_never_ran_is_refused_with_what_it_was():
    for stages, depth, shown in ((("add", "exp"), 1, "add,exp"), ((), 1, "(none)"),
                                 (("add",), 0, "add")):
        assert refusal(lambda: legacy._built_in_bytes(4096, depth, stages), RecordError) == (
            f"config: stages {shown} at depth {depth} is no chain the built-in pipeline ran",
            "give a record graphbench wrote")
