"""The JSON boundary: one writer, one validating reader, version 1 still read."""

import json
from pathlib import Path

import pytest


from graphbench.stats.summary import speedups, summarize_run, summary_document
from graphbench.errors import RecordError
from graphbench.record.codec import SCHEMA_VERSION, read_record, read_run, run_document, write_json, write_record
from graphbench.record.model import RunRecord, SweepRecord

V1 = Path(__file__).resolve().parent / "records" / "h200" / "v1"  # version-1 H200 records


def test_round_trip_gives_back_the_same_record(tmp_path, record):
    path = write_record(tmp_path / "run.json", record)
    back = read_run(path)
    assert back == record  # every field, every sample, typed as before
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary left behind


def test_statistics_are_derived_from_samples_not_read_from_the_file(tmp_path, record):
    document = run_document(record, summary_document)
    document["summary"]["modes"]["graph"]["wall"]["median"] = 999.0  # a consumer's edit
    path = tmp_path / "edited.json"
    write_json(path, document)
    assert summarize_run(read_run(path)).modes["graph"].wall.median == pytest.approx(
        summarize_run(record).modes["graph"].wall.median)


def test_written_json_is_strict(tmp_path, record):
    text = write_record(tmp_path / "r.json", record).read_text()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"bare {name} in the record"))


def test_failed_write_keeps_the_old_file(tmp_path, record):
    path = write_record(tmp_path / "run.json", record)
    before = path.read_text()
    with pytest.raises(TypeError):
        write_json(path, {"not json": object()})
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def _bad_copy(tmp_path, record, mutate) -> Path:
    document = run_document(record)
    mutate(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["runs"][0]["modes"]["graph"]["wall_us"].__setitem__(3, "nan"),
     "runs[0].modes[...].wall_us[3]: expected a number, got a string"),
    (lambda d: d.__setitem__("config", None), "config: expected an object, got null"),
    (lambda d: d["runs"][0].pop("checks"), "runs[0].checks: required field is missing"),
    (lambda d: d.__setitem__("device", {}), "device.index: required field is missing"),
    (lambda d: d["config"].__setitem__("elements", 1.5), "config.elements: expected a whole number"),
    (lambda d: d["config"].__setitem__("min_rounds", 0), "config: min_rounds must be a positive"),
    (lambda d: d["runs"][0]["checks"][0].__setitem__("passed", "yes"),
     "runs[0].checks[0].passed: expected true or false"),
])
def test_a_bad_field_is_named_by_its_path(tmp_path, record, mutate, message):
    with pytest.raises(RecordError) as info:
        read_record(_bad_copy(tmp_path, record, mutate))
    assert message in info.value.message


def test_bare_nan_and_deep_nesting_are_record_errors(tmp_path):
    path = tmp_path / "nan.json"
    path.write_text('{"schema": "graphbench/run", "x": NaN}')
    with pytest.raises(RecordError, match="NaN"):
        read_record(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError):
        read_record(path)
    path.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(RecordError, match="not a text file"):
        read_record(path)


def test_unknown_schema_version_is_rejected(tmp_path, record):
    path = _bad_copy(tmp_path, record, lambda d: d.__setitem__("schema_version", 99))
    with pytest.raises(RecordError, match="schema version 99"):
        read_record(path)


@pytest.mark.parametrize("content, message", [
    ("{\"schema\": \"graphbench/run\", ", "not valid JSON"),
    ("[1, 2]", "not a graphbench run or sweep record"),
    ("{\"schema\": \"graphbench/run\", \"schema_version\": 2}", "required field is missing"),
    ("{\"schema\": \"graphbench/run\", \"schema_version\": 1}", "schema version 1"),
])
def test_broken_files_give_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError, match=message):
        read_record(path)


def test_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "absent.json")


def test_version_1_records_load_with_their_samples():
    record = read_run(V1 / "default_4096.json")
    raw = json.loads((V1 / "default_4096.json").read_text())
    assert record.samples("graph", "wall") == tuple(raw["modes"]["graph"]["samples"]["wall_us"])
    walls = {m: record.samples(m, "wall") for m in ("individual", "graph")}
    assert speedups(walls)["graph"].stats.median == pytest.approx(raw["speedup"]["graph"]["median"])
    # the report's speedup is of rounds brought to the run's own host speed: near, not equal
    assert summarize_run(record).speedup["graph"].stats.median == pytest.approx(
        raw["speedup"]["graph"]["median"], rel=0.01)
    assert record.process_count == 1 and record.verified


def test_a_version_1_merged_baseline_keeps_its_process_medians():
    record = read_run(V1 / "baseline.json")
    raw = json.loads((V1 / "baseline.json").read_text())
    assert record.process_count == 5
    assert list(record.legacy_processes.medians["graph.busy"]) == \
        raw["sampling"]["per_process_medians"]["graph.busy"]


def test_version_1_sweep_loads_as_a_sweep():
    sweep = read_record(V1 / "sweep_2_sizes_2_depths.json")
    assert isinstance(sweep, SweepRecord) and len(sweep.points) == 4
    assert all(isinstance(p, RunRecord) for p in sweep.points)


def test_a_sweep_round_trips(tmp_path):
    sweep = read_record(V1 / "sweep_2_sizes_2_depths.json")
    assert read_record(write_record(tmp_path / "s.json", sweep)) == sweep


def test_a_lifecycle_phase_a_rung_does_not_have_reads_back_as_zero(tmp_path):
    """torch-compile records capture (its compile) with instantiate and upload
    0: graphbench must read what it wrote (a session-5 H200 record did not)."""
    import dataclasses

    from conftest import make_record

    from graphbench.record.model import LifecycleSamples

    record = make_record(rounds=12, seed=4)
    life = LifecycleSamples((9e6,), (0.0,), (0.0,), (120.0,))
    run = dataclasses.replace(record.runs[0], lifecycles={"graph": life})
    path = write_record(tmp_path / "r.json", dataclasses.replace(record, runs=(run,)))
    assert read_run(path).runs[0].lifecycles["graph"].instantiate_us == (0.0,)
    negative = dataclasses.replace(run, lifecycles={"graph": dataclasses.replace(
        life, upload_us=(-1.0,))})
    bad = write_record(tmp_path / "bad.json", dataclasses.replace(record, runs=(negative,)))
    with pytest.raises(RecordError, match="not positive"):
        read_run(bad)


def test_an_old_records_working_set_is_what_the_built_in_pipeline_allocates():
    """Old records did not store the working set; the reader's arithmetic
    must match the built-in pipeline file's buffers, at every chain."""
    from graphbench.pipeline.files import load_pipeline, plan
    from graphbench.record.legacy import _built_in_bytes

    for depth, stages in ((1, ("add", "mul", "sub")), (3, ("mul",)), (2, ("sub", "add"))):
        planned = plan(load_pipeline(None, depth, stages).spec, 12288).buffer_bytes
        assert _built_in_bytes(12288, depth, stages) == planned
    with pytest.raises(RecordError, match="no chain the built-in pipeline ran"):
        _built_in_bytes(4096, 1, ("add", "div"))
