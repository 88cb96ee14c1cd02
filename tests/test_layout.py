"""The package keeps the shape its README describes: small modules, short
functions, and record field names spelled as strings only at the JSON
boundary (everything else reads attributes of the typed model)."""

import ast
import dataclasses
from pathlib import Path

import pytest

from graphbench.record import model

PACKAGE = Path(__file__).resolve().parents[1] / "graphbench"
SOURCES = sorted(PACKAGE.rglob("*.py"))
JSON_BOUNDARY = {PACKAGE / "record" / "codec.py", PACKAGE / "record" / "codec_v1.py"}
# version 1 spelled these too; any of them as a string subscript is a key path
V1_KEYS = {"modes", "samples", "stats", "sampling", "speedup", "verification", "breakdown",
           "cache", "environment", "warnings", "per_round", "per_process_medians"}


def record_field_names() -> set[str]:
    names = set(V1_KEYS)
    for value in vars(model).values():
        if dataclasses.is_dataclass(value):
            names.update(f.name for f in dataclasses.fields(value))
    return names


def test_no_module_is_over_300_lines():
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines()) for p in SOURCES}
    assert {name: n for name, n in sizes.items() if n > 300} == {}


def test_no_function_is_over_40_lines():
    long = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > 40:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.name}")
    assert long == []


@pytest.mark.parametrize("path", [p for p in SOURCES if p not in JSON_BOUNDARY],
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_record_key_paths_are_spelled_only_at_the_json_boundary(path):
    fields = record_field_names()
    found = [f"line {node.lineno}: [{node.slice.value!r}]"
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
             and node.slice.value in fields]
    assert found == []
