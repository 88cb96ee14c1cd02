import json

import pytest

from graphbench.errors import RecordError
from graphbench.record import SCHEMA_VERSION, read_record, write_json_atomic


def test_round_trip_keeps_every_field(tmp_path, record):
    path = write_json_atomic(tmp_path / "run.json", record)
    back = read_record(path)
    assert back["schema_version"] == SCHEMA_VERSION
    assert back["modes"]["graph"]["samples"]["wall_us"] == record["modes"]["graph"]["samples"]["wall_us"]
    assert back["speedup"]["graph"]["median"] == pytest.approx(record["speedup"]["graph"]["median"])
    assert back["device"]["name"] == "NVIDIA H200"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary left behind


def test_record_carries_provenance_config_and_statistics(record):
    assert {"name", "version", "git_commit"} <= set(record["tool"])
    assert {"cuda-core", "cupy-cuda13x", "numpy", "python"} <= set(record["packages"])
    assert record["config"]["elements"] == 4096 and record["config"]["iters"] == 1000
    for mode in ("individual", "graph", "fused"):
        stats = record["modes"][mode]["stats"]
        assert set(stats) == {"wall", "submit", "device", "busy"}
        assert {"median", "iqr", "min", "max", "cv"} <= set(stats["wall"])
        assert len(record["modes"][mode]["samples"]["wall_us"]) == 10
    assert record["speedup"]["graph"]["median"] == pytest.approx(14.0 / 4.3, rel=0.02)


def test_failed_write_keeps_the_old_file(tmp_path, record):
    path = write_json_atomic(tmp_path / "run.json", record)
    before = path.read_text()
    with pytest.raises(TypeError):
        write_json_atomic(path, {"not json": object()})
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_non_finite_values_are_written_as_valid_json(tmp_path, record):
    record["modes"]["graph"]["stats"]["wall"]["cv"] = float("nan")
    path = write_json_atomic(tmp_path / "r.json", record)
    json.loads(path.read_text())  # strict JSON: would fail on a bare NaN
    assert read_record(path)["modes"]["graph"]["stats"]["wall"]["cv"] == "nan"


def test_unknown_schema_version_is_rejected(tmp_path, record):
    record["schema_version"] = SCHEMA_VERSION + 1
    path = write_json_atomic(tmp_path / "future.json", record)
    with pytest.raises(RecordError, match="schema version"):
        read_record(path)


@pytest.mark.parametrize("content, message", [
    ("{\"schema\": \"graphbench/run\", ", "not valid JSON"),
    ("[1, 2]", "not a graphbench/run record"),
    ("{\"schema\": \"graphbench/run\", \"schema_version\": 1}", "lacks required field"),
])
def test_broken_files_give_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError, match=message):
        read_record(path)


def test_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "absent.json")
