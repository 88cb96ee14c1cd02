"""What a stored record is filed under: its machine (host CPU, GPU model and
UUID, driver version, from the record's host and device info), the commit
it ran at, its pipeline (name and file) and its time. Its id is the sha256
of its JSON text, so the same record stored twice is stored once."""

from __future__ import annotations

import hashlib
from dataclasses import astuple, dataclass, fields
from datetime import datetime, timezone

from graphbench.errors import RecordError
from graphbench.record.model import RunRecord, SweepRecord

MACHINE_DIGITS = 10  # of the machine's hash, as listings show it
SHORT_ID = 10        # of a record's id, as listings show it


@dataclass(frozen=True)
class Key:
    """One stored record's row, without its document (the columns of
    graphbench.history.sql.KEY_COLUMNS, in that order)."""

    id: str
    kind: str
    created: str
    saved: str
    git_commit: str | None
    pipeline: str
    pipeline_file: str
    machine: str
    host_cpu: str
    gpu_name: str
    gpu_uuid: str
    driver_version: str

    def row(self) -> tuple:
        return astuple(self)

    def as_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def record_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def machine_id(host_cpu: str, gpu_name: str, gpu_uuid: str, driver: str) -> str:
    joined = "\x1f".join((host_cpu, gpu_name, gpu_uuid, driver))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:MACHINE_DIGITS]


def utc(stamp: str, source: str = "record") -> str:
    """An ISO 8601 time as UTC, in one form, so that text order is time order."""
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        raise RecordError(f"{source}: created {stamp!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")
    except OverflowError:  # its UTC falls in year 0 or 10000: 0001-01-01T00:00+01:00
        raise RecordError(f"{source}: created {stamp!r} is outside the years 1 to 9999 in UTC",
                          "give a time between 0001-01-01 and 9999-12-31 UTC") from None


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def machine_of(record: RunRecord | SweepRecord) -> tuple[str, str, str, str, str]:
    """(its hash, host CPU, GPU model, GPU UUID, driver version) of the record's machine."""
    device = record.device
    cpu = record.host.processor or ""
    gpu = (device.name, device.uuid or "", device.driver_version or "") if device \
        else ("", "", "")
    return (machine_id(cpu, *gpu), cpu, *gpu)


def pipeline_of(record: RunRecord | SweepRecord) -> tuple[str, str]:
    """(name, file) of the record's pipeline (a sweep's: its first point's)."""
    run = record if isinstance(record, RunRecord) else \
        (record.points[0] if record.points else None)
    return (run.pipeline.name, run.pipeline.file) if run else ("sweep", "")


def key_for(record: RunRecord | SweepRecord, text: str, commit: str | None,
            saved: str | None = None) -> Key:
    """The key of `record`, whose JSON text is `text`."""
    kind = "run" if isinstance(record, RunRecord) else "sweep"
    return Key(record_id(text), kind, utc(record.created), saved or now(), commit,
               *pipeline_of(record), *machine_of(record))
