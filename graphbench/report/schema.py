"""The JSON Schemas of the documents graphbench writes: run, sweep and
compare records (`schema` "graphbench/run", "graphbench/sweep",
"graphbench/compare"). They are made from the typed model that writes and
reads the records (graphbench.record.model, the summary block's
graphbench.stats.summary.RunSummary, graphbench.record.comparison), so
the model stays the one place a field is written down, and ship in the
wheel as graphbench/schemas/*.schema.json.

    python -m graphbench.report.schema --write   # after a change of the model
    python -m graphbench.report.schema --check   # exit 1 where the shipped files differ

Records of the current schema version are described field by field. Older
versions (1 and 2) are described by the keys every one of them holds:
graphbench reads them through its readers of older records
(graphbench/record/codec_v1.py, legacy.py), which check the rest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graphbench.record.codec import COMPARE_SCHEMA, RUN_SCHEMA, SCHEMA_VERSION, SWEEP_SCHEMA

FOLDER = Path(__file__).resolve().parents[1] / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
# the keys every committed record of an older version holds, by kind
OLDER_KEYS = {
    (RUN_SCHEMA, 1): ["config", "created", "device", "host", "modes", "pipeline", "tool"],
    (RUN_SCHEMA, 2): ["config", "created", "device", "host", "pipeline", "runs", "tool"],
    (SWEEP_SCHEMA, 1): ["config", "created", "device", "host", "points", "tool"],
}


def _nullable_numbers(node):
    """The writer writes a non-finite float as null (graphbench.record.codec.to_json)."""
    if isinstance(node, dict):
        if node.get("type") == "number":
            return {**node, "type": ["number", "null"]}
        return {key: _nullable_numbers(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_nullable_numbers(value) for value in node]
    return node


def _model_schema(types: list) -> dict:
    """msgspec's schema of `types`: their definitions, shared, under $defs."""
    import msgspec

    refs, definitions = msgspec.json.schema_components(types)
    return {"refs": refs, "$defs": _nullable_numbers(definitions)}


def _header(kind: str, version: int) -> dict:
    return {"schema": {"const": kind}, "schema_version": {"const": version}}


def _older(kind: str) -> list[dict]:
    return [{"type": "object", "required": ["schema", "schema_version", *keys],
             "properties": _header(name, version)}
            for (name, version), keys in OLDER_KEYS.items() if name == kind]


def run_schema() -> dict:
    from graphbench.stats.summary import RunSummary
    from graphbench.record.model import RunRecord

    model = _model_schema([RunRecord, RunSummary])
    current = {"type": "object", "allOf": [model["refs"][0]],
               "required": ["schema", "schema_version"],
               "properties": {**_header(RUN_SCHEMA, SCHEMA_VERSION), "summary": model["refs"][1]}}
    return _document("run", model, [current, *_older(RUN_SCHEMA)])


def sweep_schema() -> dict:
    from graphbench.stats.summary import RunSummary
    from graphbench.record.model import RunRecord, SweepRecord

    model = _model_schema([SweepRecord, RunRecord, RunSummary])
    point = {"type": "object", "allOf": [model["refs"][1]],
             "properties": {**_header(RUN_SCHEMA, SCHEMA_VERSION), "summary": model["refs"][2]}}
    current = {"type": "object", "allOf": [model["refs"][0]],
               "required": ["schema", "schema_version"],
               "properties": {**_header(SWEEP_SCHEMA, SCHEMA_VERSION),
                              "points": {"type": "array", "items": point}}}
    return _document("sweep", model, [current, *_older(SWEEP_SCHEMA)])


def compare_schema() -> dict:
    from graphbench.record.comparison import Comparison

    model = _model_schema([Comparison])
    current = {"type": "object", "allOf": [model["refs"][0]],
               "required": ["schema", "schema_version", "passed", "regressions"],
               "properties": {**_header(COMPARE_SCHEMA, SCHEMA_VERSION),
                              "passed": {"type": "boolean"},
                              "regressions": {"type": "array", "items": {"type": "string"}}}}
    return _document("compare", model, [current])


def _document(name: str, model: dict, forms: list[dict]) -> dict:
    return {"$schema": DRAFT, "$id": f"https://graphbench.invalid/schemas/{name}.schema.json",
            "title": f"graphbench {name} record",
            "oneOf": forms, "$defs": model["$defs"]}


SCHEMAS = {"run": run_schema, "sweep": sweep_schema, "compare": compare_schema}


def schema_text(name: str) -> str:
    return json.dumps(SCHEMAS[name](), indent=1, sort_keys=True) + "\n"


def shipped_path(name: str) -> Path:
    return FOLDER / f"{name}.schema.json"


def main(argv: list[str]) -> int:
    if argv not in (["--write"], ["--check"]):
        print("usage: python -m graphbench.report.schema --write | --check", file=sys.stderr)
        return 2
    stale = [name for name in SCHEMAS
             if not shipped_path(name).exists()
             or shipped_path(name).read_text(encoding="utf-8") != schema_text(name)]
    if argv == ["--write"]:
        for name in stale:
            shipped_path(name).write_text(schema_text(name), encoding="utf-8")
        return 0
    for name in stale:
        print(f"{shipped_path(name)} differs from the model: run --write", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
