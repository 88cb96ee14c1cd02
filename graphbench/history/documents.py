"""A stored record's JSON text read back into the typed record, by the same
reader a record file goes through (graphbench.record.codec.load_json)."""

from __future__ import annotations

from graphbench.errors import RecordError
from graphbench.record.codec import load_json
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.record.printable import may_hide, printable_record


def record_from_text(text: str, source: str) -> RunRecord | SweepRecord:
    """The record whose JSON text is `text`; RecordError naming `source`."""
    data = text.encode("utf-8")
    record = load_json(data, source, lambda: text)
    return printable_record(record, source) if may_hide(data) else record


def run_from_text(text: str, source: str) -> RunRecord:
    record = record_from_text(text, source)
    if not isinstance(record, RunRecord):
        raise RecordError(f"{source} is a sweep record, not a run record",
                          "compare takes run records: graphbench history list shows each kind")
    return record
