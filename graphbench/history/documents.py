"""A stored record's JSON text read back into the typed record, by the same
reader a record file goes through (graphbench.record.codec): the fast way
first, the careful way (which names what is wrong) for anything it refuses."""

from __future__ import annotations

from graphbench.errors import RecordError
from graphbench.record.codec import decode_json, load_document, parse_json
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.record.printable import may_hide, printable_record


def record_from_text(text: str, source: str) -> RunRecord | SweepRecord:
    """The record whose JSON text is `text`; RecordError naming `source`."""
    data = text.encode("utf-8")
    record = None
    document = decode_json(None, data)
    if document is not None:
        try:
            record = load_document(document, source, fast=True)
        except RecordError:
            record = None  # named again the careful way
    if record is None:
        record = load_document(parse_json(text, source), source)
    if record is None:
        raise RecordError(f"{source} holds no record")
    return printable_record(record, source) if may_hide(data) else record


def run_from_text(text: str, source: str) -> RunRecord:
    record = record_from_text(text, source)
    if not isinstance(record, RunRecord):
        raise RecordError(f"{source} is a sweep record, not a run record",
                          "compare takes run records: graphbench history list shows each kind")
    return record
