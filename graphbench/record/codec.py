"""The JSON boundary: the one writer and the one reader of every record.

The reader reads every version through one table (READERS) and the model
through msgspec (graphbench.record.decode), then checks what the types
cannot say; a problem is one RecordError naming the file and the field's
path, e.g. `r.json: runs[0].modes[...].wall_us[3]: expected a number, got a
string`.

Format history of graphbench/run and graphbench/sweep:
- version 1: nested dicts with stored statistics; merged records kept their
  processes' rounds concatenated (read by graphbench.record.codec_v1).
- version 2: configuration and raw samples per process (`runs`); statistics
  are derived on load. The writer adds a `summary` block of derived figures
  for tools such as jq; the reader never reads it.
- version 3: the launch ladder. A process's `graph_lifecycle` became
  `lifecycles` by graph mode, and `unavailable` names the rungs that could
  not run, with why (read from version 2 by `upgrade_v2`).
"""

from __future__ import annotations

import dataclasses
import contextlib
import gc
import json
import math
import os
import re
import typing
from pathlib import Path

import msgspec

from graphbench.errors import RecordError
from graphbench.record.graph_costs import check_node_costs
from graphbench.record.columns import round_array, run_columns
from graphbench.record import codec_v1
from graphbench.record.decode import decode, decode_json
from graphbench.record.files import read_bytes, text_of, write_text_atomic
from graphbench.record.legacy import with_working_sets
from graphbench.record.parse import parse_json
from graphbench.metrics import BY_NAME, ROUND_METRICS
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.record.printable import may_hide, printable, printable_record
from graphbench.record.ranges import MAX_US, check_numbers

RUN_SCHEMA, SWEEP_SCHEMA, COMPARE_SCHEMA = "graphbench/run", "graphbench/sweep", "graphbench/compare"
SCHEMA_VERSION = 3
# every schema version this graphbench reads: its document to the current version's
READERS = {1: lambda data, source: upgrade_v2(codec_v1.upgrade(data, source)),
           2: lambda data, source: upgrade_v2(data),
           SCHEMA_VERSION: lambda data, source: data}
READABLE_VERSIONS = tuple(READERS)


# --- writing -------------------------------------------------------------------

def to_json(value):
    """Dataclasses as objects of their fields; tuples as lists; non-finite
    floats as null (the model keeps none where a number is required)."""
    if dataclasses.is_dataclass(value):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


Summarize = typing.Callable[[RunRecord], dict]


def run_document(record: RunRecord, summary: Summarize | None = None) -> dict:
    """The record's document; `summary` (the caller's, so that the record
    boundary never imports statistics) makes the derived figures' block."""
    document = {"schema": RUN_SCHEMA, "schema_version": SCHEMA_VERSION, **to_json(record)}
    return {**document, "summary": summary(record)} if summary else document


def sweep_document(sweep: SweepRecord, summary: Summarize | None = None) -> dict:
    data = to_json(dataclasses.replace(sweep, points=()))
    data["points"] = [run_document(p, summary) for p in sweep.points]
    return {"schema": SWEEP_SCHEMA, "schema_version": SCHEMA_VERSION, **data}


def write_record(path: str | os.PathLike, record: RunRecord | SweepRecord,
                 summary: Summarize | None = None) -> Path:
    """Write `record`; `summary(run)` gives each run's summary block
    (graphbench.stats.summary.summary_document; None writes none)."""
    document = run_document(record, summary) if isinstance(record, RunRecord) \
        else sweep_document(record, summary)
    return write_json(path, document)


def write_json(path: str | os.PathLike, document: dict) -> Path:
    return write_text_atomic(path, json.dumps(document, indent=2, allow_nan=False) + "\n")


# --- reading -------------------------------------------------------------------

def read_record(path: str | os.PathLike) -> RunRecord | SweepRecord:
    """A run or sweep record from a file; RecordError naming what is wrong.
    Its strings are made printable (record.printable)."""
    source, data = str(path), read_bytes(path)
    with _no_collection():
        record = load_json(data, source, lambda: text_of(data, path))
    return printable_record(record, source) if may_hide(data) else record


# how every record graphbench writes begins (json.dumps keeps the key order)
_CURRENT = re.compile(rb'\s*\{\s*"schema"\s*:\s*"graphbench/(run|sweep)"\s*,\s*'
                      rb'"schema_version"\s*:\s*3\s*[,}]')


def load_json(data: bytes, source: str, text: typing.Callable[[], str]) -> RunRecord | SweepRecord:
    """The record in the JSON text `data` (`text()`: it as a str). msgspec
    parses it in C: a record of the current version (whose reader keeps its
    document as it is) straight into the model, any other to plain dicts
    and lists for load_document. Text msgspec refuses is parsed again by
    parse_json, which names what is wrong."""
    found = _CURRENT.match(data, 0, 256)
    try:
        if found:
            cls = RunRecord if found.group(1) == b"run" else SweepRecord
            with _named(source):
                record = decode_json(cls, data)
            return _checked(record, source)
        document = msgspec.json.decode(data)
    except (msgspec.MsgspecError, RecursionError):  # a typed one's ValidationError is named
        document = parse_json(text(), source)
    return load_document(document, source)


@contextlib.contextmanager
def _no_collection():
    """The cyclic garbage collector paused: a record of 20,000 rounds is
    hundreds of thousands of new objects, none in a cycle, and collections
    triggered by their allocation took a quarter of the time to read it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # what was made meanwhile moves to the oldest generation, so that the
        # first young collection does not walk millions of objects (a second)
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def read_run(path: str | os.PathLike) -> RunRecord:
    record = read_record(path)
    if not isinstance(record, RunRecord):
        raise RecordError(f"{path} is a sweep record, not a run record",
                          "give a record written by graphbench run --json")
    return record


def load_document(data, source: str) -> RunRecord | SweepRecord:
    """The record in a parsed document, brought to the current version by
    its version's reader (READERS)."""
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema not in (RUN_SCHEMA, SWEEP_SCHEMA):
        found = repr(schema if isinstance(data, dict) else type(data).__name__)
        shown = found if len(found) <= 60 else f"{found[:50]}... ({len(found):,} characters)"
        raise RecordError(f"{source} is not a graphbench run or sweep record (schema: {shown})")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise RecordError(f"{source} has schema version {version!r}; this graphbench reads "
                          f"versions {', '.join(map(str, READABLE_VERSIONS))}",
                          "use the graphbench version that wrote it")
    with _named(source):  # every problem below is named with the file it is in
        record = decode(RunRecord if schema == RUN_SCHEMA else SweepRecord,
                        READERS[version](data, source))
    return _checked(record, source)


@contextlib.contextmanager
def _named(source: str):
    try:
        yield
    except RecordError as exc:
        raise RecordError(printable(f"{source}: {exc.message}"), exc.remedy) from None


def _checked(record: RunRecord | SweepRecord, source: str) -> RunRecord | SweepRecord:
    """What the types cannot say, checked; what old records lack, filled in."""
    with _named(source):
        check_consistent(record)
        check_numbers(record)
        return with_working_sets(record)


def upgrade_v2(data):
    """A version-2 document as version 3: every process's graph_lifecycle
    becomes lifecycles.graph. Anything malformed is left for the reader to
    name."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    for key in ("points", "gate_points"):
        if isinstance(data.get(key), list):
            data[key] = [upgrade_v2(point) for point in data[key]]
    if isinstance(data.get("runs"), list):
        data["runs"] = [_upgrade_run(run) for run in data["runs"]]
    return data


def _upgrade_run(run):
    if not isinstance(run, dict) or "graph_lifecycle" not in run:
        return run
    run = dict(run)
    lifecycle = run.pop("graph_lifecycle")
    if lifecycle is not None:
        run["lifecycles"] = {"graph": lifecycle}
    return run


def check_consistent(record, path: str = "") -> None:
    """What the types cannot say: every mode of a run has one sample per
    round, times are positive, and runs name the same modes."""
    if isinstance(record, SweepRecord):
        for i, point in enumerate(record.points):
            check_consistent(point, f"points[{i}].")
        return
    if record.pipeline.kernel_launches_per_iteration < 1:
        raise RecordError(f"{path}pipeline.kernel_launches_per_iteration: "
                          f"{record.pipeline.kernel_launches_per_iteration}, not a count of "
                          "launches (1 or more)")
    if record.config.iters is None and record.runs and record.legacy_processes is None:
        raise RecordError(f"{path}config.iters: a run record states the iterations per round "
                          "it ran, not null")
    modes = set(record.mode_names)
    for i, run in enumerate(record.runs):
        where = f"{path}runs[{i}]"
        probes = [getattr(s, f) for s in run.modes.values()
                  for f in ("probe_before_us", "probe_after_us")]
        if any(p and len(p) != run.rounds for p in probes):
            raise RecordError(f"{where}.modes: host probe readings for some rounds, not each")
        if set(run.modes) != modes:
            raise RecordError(f"{where}.modes: not the modes of the first run")
        for name, samples in run.modes.items():
            for metric in ROUND_METRICS:
                values = getattr(samples, f"{metric}_us")
                if not values and not BY_NAME[metric].required:
                    continue  # a figure this record's version did not yet read
                if len(values) != run.rounds:
                    raise RecordError(f"{where}.modes.{name}.{metric}_us: {len(values)} samples "
                                      f"for {run.rounds} rounds")
                _check_times(values, f"{where}.modes.{name}.{metric}_us",
                             allow_zero=BY_NAME[metric].may_be_zero,
                             array=round_array(samples, metric))
        _check_positive(run, where)
    for i, point in enumerate(record.gate_points):
        check_consistent(point, f"{path}gate_points[{i}].")


def _check_times(values, path: str, allow_zero: bool = False, array=None) -> None:
    """Times are positive (a submit time may be 0: too quick for the clock,
    never negative) and at most MAX_US. `array`: the values as a float array
    (graphbench.record.columns.round_array, which the statistics read too)."""
    if len(values):  # the common case, in numpy: 200,000 rounds of 8 modes are millions
        low, high = (array.min(), array.max()) if array is not None else (min(values), max(values))
        if (low >= 0 if allow_zero else low > 0) and high <= MAX_US:
            return
    for i, v in enumerate(values):
        if v < 0 or (v == 0 and not allow_zero):
            raise RecordError(f"{path}[{i}]: a time of {v} us, not "
                              f"{'0 or more' if allow_zero else 'positive'}")
        if v > MAX_US:
            raise RecordError(f"{path}[{i}]: a time of {v:.3g} us, beyond any measured "
                              f"figure (at most {MAX_US:.0e} us)")


def _check_positive(run, where: str) -> None:
    readings = [r.us for r in run_columns(run).every_reading() if len(r)]  # arrays
    least = min((float(us.min()) for us in readings), default=None)
    most = max((float(us.max()) for us in readings), default=0)
    sections = (run.launch_floor, *run.lifecycles.values(), run.graph_update)
    extras = [v for section in sections
              if section for f in _timed(section) for v in getattr(section, f.name)]
    measured = ([] if least is None else [least]) + [
        v for section in (run.launch_floor, run.graph_update)
        if section for f in _timed(section) for v in getattr(section, f.name)]
    # a lifecycle phase a rung does not have is 0 (torch.compile has no
    # instantiate or upload of its own); every other time was measured
    phases = [v for section in run.lifecycles.values() for f in _timed(section)
              for v in getattr(section, f.name)]
    check_node_costs(run.node_costs, where, MAX_US)
    if (measured and min(measured) <= 0) or (phases and min(phases) < 0):
        raise RecordError(f"{where}: a measured time that is not positive")
    if max([most] + extras) > MAX_US:
        raise RecordError(f"{where}: a measured time beyond {MAX_US:.0e} us")
    if any(not getattr(section, f.name) for section in sections
           if section for f in _timed(section)):
        raise RecordError(f"{where}: a one-off cost with no samples")


def _timed(section) -> list:
    """A section's series of times (memory deltas are bytes, and may be 0)."""
    return [f for f in dataclasses.fields(section) if f.name.endswith("_us")]
