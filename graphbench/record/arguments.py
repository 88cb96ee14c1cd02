"""A record as the Python API takes one: a record object, or its file's
path. A path is checked as the CLI checks one; an object built or changed
by hand is checked as a file's record is read (every field's type, the
counts that must agree), so that a bad one is one RecordError naming the
field, never an AttributeError from deep in a report, and never a file."""

from __future__ import annotations

import os

from graphbench.errors import RecordError, UsageError
from graphbench.record.codec import (RUN_SCHEMA, SCHEMA_VERSION, SWEEP_SCHEMA, load_document,
                                     read_run, to_json)
from graphbench.record.decode import REMEDY as FILE_REMEDY
from graphbench.record.files import check_not_waiting, check_path_text
from graphbench.record.model import RunRecord, SweepRecord

PATH_REMEDY = "give the record file's path, as a str or a pathlib.Path"
RECORD_REMEDY = "give a record that graphbench.run or graphbench.load returned, unchanged"


def record_path(value: object, name: str) -> str:
    """A record file's path as the CLI takes one: text, not empty, no NUL."""
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        raise UsageError(f"{name} must be a file path, got {_shown(value)}", PATH_REMEDY)
    if "\0" in text:
        raise UsageError(f"{name} {text!r} holds a NUL character, which no file name can",
                         PATH_REMEDY)
    check_path_text(text, name)
    return text


def input_path(value: object, name: str) -> str:
    """A record file's path to read: as record_path, and nothing that would
    be waited on for ever (a FIFO nothing writes to, a terminal)."""
    text = record_path(value, name)
    check_not_waiting(text, name)
    return text


def run_record(value: object, side: str) -> RunRecord:
    """A well-formed run record, given as one or as its file's path."""
    if isinstance(value, RunRecord):
        check_well_formed(value, side)
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_run(input_path(value, side))
    raise UsageError(f"the {side} is a {type(value).__name__}, not a run record",
                     "give a RunRecord or the path of a record written by graphbench run --json")


def check_well_formed(record: RunRecord | SweepRecord, name: str) -> None:
    """RecordError unless `record` is what reading its file back would give:
    it is read as its own document would be."""
    schema = RUN_SCHEMA if isinstance(record, RunRecord) else SWEEP_SCHEMA
    document = {"schema": schema, "schema_version": SCHEMA_VERSION, **to_json(record)}
    try:
        load_document(document, name)
    except RecordError as exc:
        remedy = RECORD_REMEDY if exc.remedy in ("", FILE_REMEDY) else exc.remedy
        raise RecordError(exc.message, remedy) from None
    points = (record,) if isinstance(record, RunRecord) else record.points
    for point in points:
        if not point.runs and point.legacy_processes is None:
            raise RecordError(f"{name} holds no process run: nothing was measured",
                              RECORD_REMEDY)


def _shown(value: object) -> str:
    """A value in a one-line message, never thousands of characters of it."""
    try:
        text = repr(value)
    except Exception:  # an int past Python's int-to-text limit, or a repr that raises
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."
