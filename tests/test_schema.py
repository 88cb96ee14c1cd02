"""The JSON Schemas shipped for run, sweep and compare records
(graphbench/report/schema.py): made from the typed model, never edited by
hand; every record of the tests validates against them; records the reader
refuses for their content are refused by them too; the wheel ships them."""

import json
from pathlib import Path

import pytest

from graphbench.report import schema

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def validators() -> dict:
    return {name: jsonschema.Draft202012Validator(
        json.loads(schema.shipped_path(name).read_text(encoding="utf-8")))
        for name in schema.SCHEMAS}


def records(*folders: Path) -> list[Path]:
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                continue  # a deliberately broken file: no document to validate
            if isinstance(document, dict) and str(document.get("schema", "")).startswith(
                    "graphbench/"):
                found.append(path)
    return found


def errors_of(path: Path, checkers: dict) -> list[str]:
    document = json.loads(path.read_text(encoding="utf-8"))
    checker = checkers[document["schema"].split("/", 1)[1]]
    return [message for error in checker.iter_errors(document) for message in _messages(error)]


def _messages(error) -> list[str]:
    """An error's message and those of the alternatives it tried (oneOf)."""
    return [error.message, *(m for sub in error.context or () for m in _messages(sub))]


def test_the_shipped_schemas_are_the_model_s():
    for name in schema.SCHEMAS:
        shipped = json.loads(schema.shipped_path(name).read_text(encoding="utf-8"))
        assert shipped == json.loads(schema.schema_text(name)), f"run --write: {name}"
    assert schema.main(["--check"]) == 0


@pytest.mark.slow
def test_every_record_of_the_tests_validates():
    checkers = validators()
    paths = [p for p in records(HERE / "records") if p.name not in REFUSED]
    kinds = {json.loads(p.read_text(encoding="utf-8"))["schema"] for p in paths}
    assert kinds == {"graphbench/run", "graphbench/sweep", "graphbench/compare"}
    assert len(paths) > 30
    said = {str(p.relative_to(ROOT)): errors_of(p, checkers)[:1] for p in paths}
    assert {path: first for path, first in said.items() if first} == {}


# test records graphbench refuses for what they hold
REFUSED = {"nan_samples.json": "'nan' is not of type",    # a round stored as the text 'nan'
           "null_config.json": "None is not of type",     # no config
           "future_schema.json": "is not valid under any"}  # a version graphbench cannot read


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_record_the_reader_refuses_is_refused_by_the_schema(name):
    said = errors_of(HERE / "records" / name, validators())
    assert said and REFUSED[name] in " ".join(said)


def test_a_current_record_with_a_field_of_the_wrong_type_is_refused():
    document = json.loads((HERE / "records" / "attribution.json").read_text(encoding="utf-8"))
    assert document["schema_version"] == 3
    checker = validators()["run"]
    assert not list(checker.iter_errors(document))
    document["runs"][0]["modes"]["graph"]["wall_us"][0] = "fast"
    assert list(checker.iter_errors(document))
    document["runs"][0]["modes"]["graph"]["wall_us"][0] = None  # a non-finite time, as written
    assert not list(checker.iter_errors(document))


def test_the_wheel_ships_the_schemas():
    wheel = pytest.importorskip("hatchling.builders.wheel")
    files = {f.distribution_path for f in wheel.WheelBuilder(str(ROOT)).recurse_included_files()}
    assert {f"graphbench/schemas/{name}.schema.json" for name in schema.SCHEMAS} <= files
