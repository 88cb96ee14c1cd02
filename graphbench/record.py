"""The versioned result record: build it, write it atomically, read it back.

A record is plain JSON-able data. Everything downstream (rendering, reports,
comparison) is a function of a record, so a saved file renders exactly like
the live run did.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Mapping

from graphbench.errors import RecordError

RUN_SCHEMA = "graphbench/run"
SCHEMA_VERSION = 1
METRICS = ("wall", "submit", "device")
REQUIRED_KEYS = ("schema", "schema_version", "tool", "device", "config", "modes",
                 "verification")


def mode_entry(per_round_us: Mapping[str, list[float]], summaries: Mapping[str, dict]) -> dict:
    return {
        "samples": {f"{metric}_us": list(per_round_us[metric]) for metric in METRICS},
        "stats": {metric: dict(summaries[metric]) for metric in METRICS},
    }


def write_json_atomic(path: str | os.PathLike, data: dict) -> Path:
    return write_text_atomic(path, json.dumps(_finite(data), indent=2) + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write to a temporary file in the same folder, fsync, then rename over
    the target: a crash or Ctrl-C leaves the old file or the new one, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; results are for sharing
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _finite(value):
    """JSON has no NaN or infinity: store them as strings a reader can map back."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def read_record(path: str | os.PathLike, schema: str = RUN_SCHEMA) -> dict:
    """Read and validate a record; RecordError with a clear line otherwise."""
    return validate_record(read_json(path), schema, str(path))


def read_json(path: str | os.PathLike):
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {target}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{target} is not valid JSON ({exc.msg} at line {exc.lineno})",
                          "was it truncated? re-run graphbench with --json") from None
    return data


def validate_record(data, schema: str = RUN_SCHEMA, source: str = "record",
                    required: tuple[str, ...] = REQUIRED_KEYS) -> dict:
    if not isinstance(data, dict) or data.get("schema") != schema:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise RecordError(f"{source} is not a {schema} record (schema: {found!r})")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise RecordError(f"{source} has schema version {version!r}; this graphbench reads "
                          f"version {SCHEMA_VERSION}", "use the graphbench version that wrote it")
    missing = [key for key in required if key not in data]
    if missing:
        raise RecordError(f"{source} lacks required field(s): {', '.join(missing)}")
    return data
