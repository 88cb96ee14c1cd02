"""graphbench.record.arguments: a record or its file's path as the Python API
takes one, each refusal one line that names the argument and says what to give."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from conftest import make_record

from graphbench.errors import RecordError, UsageError
from graphbench.record.arguments import (PATH_REMEDY, RECORD_REMEDY, check_well_formed,
                                         input_path, record_path, run_record)
from graphbench.record.codec import read_record

RECORDS = Path(__file__).parent / "records"


def refusal(call, *args) -> tuple[str, str]:
    with pytest.raises((UsageError, RecordError)) as info:
        call(*args)
    return info.value.message, info.value.remedy


class Unshowable:
    def __repr__(self):
        raise RuntimeError("no repr")


def test_a_path_that_is_no_text_is_refused_and_shown_in_at_most_60_characters():
    assert record_path(Path("a/b.json"), "baseline") == "a/b.json"
    assert refusal(record_path, 42, "baseline") == ("baseline must be a file path, got 42",
                                                    PATH_REMEDY)
    sixty = b"x" * 57  # its repr, b'xxx...', is 60 characters: shown whole
    assert refusal(record_path, sixty, "baseline")[0] == \
        f"baseline must be a file path, got {sixty!r}"
    longer = b"x" * 58
    assert refusal(record_path, longer, "baseline")[0] == \
        f"baseline must be a file path, got {repr(longer)[:57]}..."
    assert refusal(record_path, Unshowable(), "baseline")[0] == \
        "baseline must be a file path, got a Unshowable"


def test_a_path_with_a_nul_character_is_refused_with_the_remedy():
    assert refusal(record_path, "a\0b.json", "current") == (
        "current 'a\\x00b.json' holds a NUL character, which no file name can", PATH_REMEDY)


def test_an_input_nothing_writes_to_is_refused_under_the_argument_s_name(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    message, remedy = refusal(input_path, str(fifo), "baseline")
    assert message == f"baseline {fifo} is a FIFO that nothing writes to: reading it would " \
        "wait for ever"
    assert remedy == "start its writer first, or give a file"


def test_a_run_record_argument_of_another_type_is_named_by_its_type():
    assert refusal(run_record, 42, "baseline") == (
        "the baseline is a int, not a run record",
        "give a RunRecord or the path of a record written by graphbench run --json")


def test_a_well_formed_record_passes_and_a_changed_one_is_named_with_the_argument():
    record = make_record({"individual": 14.0, "graph": 4.3})
    assert run_record(record, "baseline") is record
    assert refusal(check_well_formed, dataclasses.replace(record, tool=None), "baseline") == (
        "baseline: tool: expected an object, got null", RECORD_REMEDY)
    assert refusal(check_well_formed, dataclasses.replace(record, runs=()), "baseline") == (
        "baseline holds no process run: nothing was measured", RECORD_REMEDY)
    no_launches = dataclasses.replace(
        record, pipeline=dataclasses.replace(record.pipeline, kernel_launches_per_iteration=0))
    assert refusal(check_well_formed, no_launches, "baseline")[0] == (  # the types pass it
        "baseline: pipeline.kernel_launches_per_iteration: 0, not a count of launches (1 or more)")


def test_a_sweep_is_checked_point_by_point():
    sweep = read_record(RECORDS / "sweep.json")
    check_well_formed(sweep, "sweep")
    empty = dataclasses.replace(sweep.points[0], runs=(), legacy_processes=None)
    changed = dataclasses.replace(sweep, points=(empty, *sweep.points[1:]))
    assert refusal(check_well_formed, changed, "sweep") == (
        "sweep holds no process run: nothing was measured", RECORD_REMEDY)
