"""graphbench.record.codec: the reader's checks on what a record's types cannot say, the writer,
and older schema versions."""

from __future__ import annotations

import dataclasses
import gc
import json

import pytest
from conftest import make_record, make_run, with_runs
from tests_helpers import RECORDS, refusal, stored_document

from graphbench.errors import RecordError
from graphbench.record import codec


def refused_document(data, source="r.json"):
    with pytest.raises(RecordError) as info:
        codec.load_document(data, source)
    return info.value


@pytest.mark.parametrize("data, said", [
    ([], "(schema: 'list')"), ({"schema": "other"}, "(schema: 'other')"), ({}, "(schema: None)"),
])
def test_a_document_of_another_kind_is_named(data, said):
    with pytest.raises(RecordError) as info:
        codec.load_document(data, "f.json")
    assert info.value.message.startswith("f.json is not a graphbench run or sweep record")
    assert said in info.value.message


@pytest.mark.parametrize("version", [0, 4, None, "3"])
def test_an_unreadable_version_is_named_with_the_ones_read(version):
    with pytest.raises(RecordError) as info:
        codec.load_document({"schema": "graphbench/run", "schema_version": version}, "f.json")
    assert f"schema version {version!r}" in info.value.message
    assert "versions 1, 2, 3" in info.value.message
    assert info.value.remedy


@pytest.mark.parametrize("values, zero_ok, bad", [
    ((1.0, 0.0), False, "[1]: a time of 0.0 us, not positive"),
    ((0.0, -0.5), True, "[1]: a time of -0.5 us, not 0 or more"),
    ((1.0, 2e12), True, "[1]: a time of 2e+12 us"),
])
def test_times_are_positive_and_bounded(values, zero_ok, bad):
    with pytest.raises(RecordError) as info:
        codec._check_times(values, "m", allow_zero=zero_ok)
    assert info.value.message.startswith("m" + bad)


def test_times_at_the_limits_pass():
    codec._check_times((0.0, 1e12), "m", allow_zero=True)
    codec._check_times((1e-9, 1e12), "m")


def test_v2_lifecycle_becomes_the_graph_mode_s():
    data = {"runs": [{"graph_lifecycle": {"capture_us": [1.0]}, "seed": 1},
                     {"graph_lifecycle": None}, "odd"],
            "points": [{"runs": [{"graph_lifecycle": {"a": 1}}]}], "gate_points": "odd"}
    out = codec.upgrade_v2(data)
    assert out["runs"] == [{"lifecycles": {"graph": {"capture_us": [1.0]}}, "seed": 1}, {}, "odd"]
    assert out["points"][0]["runs"] == [{"lifecycles": {"graph": {"a": 1}}}]
    assert data["runs"][0]["graph_lifecycle"]  # the input is left as it was
    assert codec.upgrade_v2([1]) == [1]


def test_a_written_record_is_json_that_reads_back(tmp_path):
    path = codec.write_json(tmp_path / "d.json", {"b": [1, 2], "a": None})
    text = path.read_text()
    assert text.endswith("}\n") and json.loads(text) == {"b": [1, 2], "a": None}
    assert '\n  "b"' in text  # indented
    with pytest.raises(ValueError):
        codec.write_json(tmp_path / "n.json", {"x": float("nan")})


def test_a_built_in_record_gets_its_working_set_and_a_pipeline_file_s_must_store_it():
    record = codec.load_document(stored_document(), "r.json")
    assert record.pipeline.working_set_bytes > 0
    data = stored_document()
    data["gate_points"] = [stored_document()]
    gated = codec.load_document(data, "r.json")
    assert gated.gate_points[0].pipeline.working_set_bytes == record.pipeline.working_set_bytes
    sweep = codec.read_record(RECORDS / "sweep.json")
    assert all(p.pipeline.working_set_bytes > 0 for p in sweep.points)
    data = stored_document()
    data["pipeline"] = {**data["pipeline"], "file": "mine.toml", "working_set_bytes": None}
    error = refused_document(data)
    assert error.message == "r.json: pipeline.working_set_bytes: required field is missing"
    assert error.remedy


def test_a_sweep_is_no_run_record():
    with pytest.raises(RecordError) as info:
        codec.read_run(RECORDS / "sweep.json")
    assert "is a sweep record, not a run record" in info.value.message and info.value.remedy


def test_a_bad_point_or_gate_point_is_named_by_its_place():
    sweep = json.loads((RECORDS / "sweep.json").read_text())
    point = sweep["points"][1]["runs"][0]
    mode = next(iter(point["modes"]))
    point["modes"][mode]["wall_us"] = point["modes"][mode]["wall_us"][1:]
    error = refused_document(sweep)
    assert error.message.startswith(f"r.json: points[1].runs[0].modes.{mode}.wall_us: ")
    assert f"samples for {point['rounds']} rounds" in error.message
    data, gate = stored_document(), stored_document()
    gate["runs"][0]["launch_floor"]["kernel_launch_us"][0] = 0.0
    data["gate_points"] = [stored_document(), gate]
    assert refused_document(data).message == "r.json: gate_points[1].runs[0]: a measured time that is not positive"


def test_runs_must_name_the_same_modes():
    data = stored_document()
    second = json.loads(json.dumps(data["runs"][0]))
    second["modes"].pop("fused")
    data["runs"].append(second)
    assert refused_document(data).message == "r.json: runs[1].modes: not the modes of the first run"


@pytest.mark.parametrize("value, ok", [(0.5, True), (1e12, True), (0.0, False), (-1.0, False),
                                       (1.5e12, False)])
def test_a_launch_floor_time_is_positive_and_bounded(value, ok):
    data = stored_document()
    data["runs"][0]["launch_floor"]["graph_replay_us"][0] = value
    if ok:
        codec.load_document(data, "r.json")
    else:
        assert refused_document(data).message.startswith("r.json: runs[0]: a measured time ")


def test_a_one_off_cost_needs_samples_and_node_costs_are_checked_in_a_record():
    data = stored_document()
    data["runs"][0]["graph_update"]["node_update_us"] = []
    assert refused_document(data).message == "r.json: runs[0]: a one-off cost with no samples"
    data = stored_document()
    data["runs"][0]["node_costs"] = {"nodes": [0], "capture_us": [1.0], "instantiate_us": [1.0]}
    assert refused_document(data).message == "r.json: runs[0].node_costs.nodes: a graph of no nodes"
    data["runs"][0]["node_costs"] = {"nodes": [1], "capture_us": [2e12], "instantiate_us": [1.0]}
    assert refused_document(data).message.startswith("r.json: runs[0].node_costs: a time")


def test_schema_refusals_name_the_remedy(tmp_path):
    assert refusal(lambda: codec.load_document(
        {"schema": codec.RUN_SCHEMA, "schema_version": 99}, "t.json"), RecordError)[1] == \
        "use the graphbench version that wrote it"

    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((4096,), (1,)), None, (make_record(elements=4096),), True)
    path = codec.write_record(tmp_path / "s.json", sweep)
    assert refusal(lambda: codec.read_run(path), RecordError) == (
        f"{path} is a sweep record, not a run record",
        "give a record written by graphbench run --json")


def test_a_records_summary_block_reaches_every_point(tmp_path):
    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    point = make_record(elements=4096)
    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((4096,), (1,)), None, (point,), True)
    marker = lambda run: {"elements": run.config.elements}  # noqa: E731
    written = json.loads(codec.write_record(tmp_path / "s.json", sweep, marker).read_text())
    assert [p["summary"] for p in written["points"]] == [{"elements": 4096}]
    assert "summary" not in written
    run = json.loads(codec.write_record(tmp_path / "r.json", point, marker).read_text())
    assert run["summary"] == {"elements": 4096}
    assert "summary" not in json.loads(codec.write_record(tmp_path / "n.json", point)
                                       .read_text())


def test_writing_refuses_non_finite_numbers(tmp_path):
    with pytest.raises(ValueError):
        codec.write_json(tmp_path / "x.json", {"a": float("nan")})
    assert not (tmp_path / "x.json").exists()


def test_a_version_2_record_reads_its_graph_lifecycle(tmp_path):
    record = make_record()
    two = with_runs(record, record.runs[0], make_run(seed=1, extras=False))
    document = json.loads(codec.write_record(tmp_path / "r.json", two).read_text())
    document["schema_version"] = 2
    for run in document["runs"]:
        lifecycles = run.pop("lifecycles", {})
        if lifecycles:
            run["graph_lifecycle"] = lifecycles["graph"]
    assert "graph_lifecycle" in document["runs"][0]
    assert "graph_lifecycle" not in document["runs"][1]
    read = codec.load_document(document, "v2.json")
    assert read.runs[0].lifecycles == record.runs[0].lifecycles
    assert read.runs[1].lifecycles == {}


def _written(tmp_path, record=None):
    path = tmp_path / "run.json"
    codec.write_json(path, codec.run_document(record or make_record(rounds=3)))
    return path


def test_reading_a_record_pauses_the_collector_and_restores_it(tmp_path, monkeypatch):
    path = _written(tmp_path)
    seen = []
    real = codec._checked  # where either way of reading ends

    def spy(data, source):
        seen.append(gc.isenabled())
        return real(data, source)

    monkeypatch.setattr(codec, "_checked", spy)
    assert gc.isenabled()
    record = codec.read_record(path)
    assert seen == [False] and gc.isenabled()
    assert record.samples("graph", "wall") == make_record(rounds=3).samples("graph", "wall")
    gc.disable()
    try:
        codec.read_record(path)
        assert seen == [False, False] and not gc.isenabled()   # left as it was
    finally:
        gc.enable()
    path.write_text('{"schema": "graphbench/run", "schema_version": 99}')
    with pytest.raises(RecordError):
        codec.read_record(path)
    assert gc.isenabled()
    with codec._no_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        with codec._no_collection():
            1 / 0
    assert gc.isenabled()


def test_times_are_checked_whole_by_min_and_max():
    check = codec._check_times
    check([], "t")
    check([1e-9, codec.MAX_US], "t")
    check([0.0, 1.0], "t", allow_zero=True)
    for values, allow_zero, message in (
            ([1.0, 0.0], False, "t[1]: a time of 0.0 us, not positive"),
            ([1.0, -1.0], True, "t[1]: a time of -1.0 us, not 0 or more"),
            ([-2.0, 1.0], False, "t[0]: a time of -2.0 us, not positive"),
            ([1.0, 2e12], False, "t[1]: a time of 2e+12 us, beyond any measured figure "
                                 "(at most 1e+12 us)"),
            ([0.0, 2e12], True, "t[1]: a time of 2e+12 us, beyond any measured figure "
                                "(at most 1e+12 us)")):
        with pytest.raises(RecordError) as info:
            check(values, "t", allow_zero=allow_zero)
        assert info.value.message == message


def test_a_zero_or_huge_reading_in_a_run_is_refused_with_its_process():
    record = make_record(rounds=3)
    run = record.runs[0]
    for us, message in ((0.0, "runs[0]: a measured time that is not positive"),
                        (2e12, "runs[0]: a measured time beyond 1e+12 us")):
        conditions = (dataclasses.replace(run.conditions[0], busy={
            w: dataclasses.replace(r, us=us) for w, r in run.conditions[0].busy.items()}),
            *run.conditions[1:])
        bad = with_runs(record, dataclasses.replace(run, conditions=conditions))
        with pytest.raises(RecordError) as info:
            codec.check_consistent(bad)
        assert info.value.message == message
    codec.check_consistent(record)


def test_a_time_of_exactly_the_ceiling_is_accepted_on_the_checked_path_too():
    with pytest.raises(RecordError) as info:
        codec._check_times([codec.MAX_US, 0.0], "t")
    assert info.value.message == "t[1]: a time of 0.0 us, not positive"


def test_a_run_with_no_readings_and_no_one_off_costs_is_consistent():
    record = make_record({"individual": 14.0}, rounds=2)
    run = make_run({"individual": 14.0}, rounds=2, extras=False, config=record.config)
    bare = with_runs(record, dataclasses.replace(run, conditions=()))
    codec.check_consistent(bare)
    assert bare.samples("individual", "busy") == () and bare.conditions == ()


def test_what_the_types_cannot_say_is_refused_in_full_words():
    record = make_record()
    no_launches = dataclasses.replace(
        record, pipeline=dataclasses.replace(record.pipeline, kernel_launches_per_iteration=0))
    assert refusal(lambda: codec.check_consistent(no_launches), RecordError) == (
        "pipeline.kernel_launches_per_iteration: 0, not a count of launches (1 or more)", "")
    codec.check_consistent(dataclasses.replace(   # one launch an iteration is a count
        record, pipeline=dataclasses.replace(record.pipeline, kernel_launches_per_iteration=1)))
    no_iters = dataclasses.replace(record, config=dataclasses.replace(record.config, iters=None))
    assert refusal(lambda: codec.check_consistent(no_iters), RecordError) == (
        "config.iters: a run record states the iterations per round it ran, not null", "")
    run = record.runs[0]
    graph = dataclasses.replace(run.modes["graph"], probe_before_us=(300.0,) * (run.rounds - 1))
    some_probes = with_runs(record, dataclasses.replace(run, modes={**run.modes, "graph": graph}))
    assert refusal(lambda: codec.check_consistent(some_probes), RecordError) == (
        "runs[0].modes: host probe readings for some rounds, not each", "")


def test_an_odd_schema_value_is_echoed_whole_up_to_60_characters_and_cut_past_them():
    whole, _ = refusal(lambda: codec.load_document({"schema": "x" * 58}, "r.json"), RecordError)
    assert whole.endswith(f"(schema: '{'x' * 58}')")            # repr of 60 characters
    cut, _ = refusal(lambda: codec.load_document({"schema": "x" * 59}, "r.json"), RecordError)
    assert cut.endswith(f"(schema: '{'x' * 49}... (61 characters))")


def test_an_upgrade_s_refusal_keeps_its_remedy_and_names_the_file():
    v1 = {"schema": "graphbench/run", "schema_version": 1, "tool": {}, "device": {},
          "config": {"seed": 7}, "modes": {}, "verification": {"checks": []}, "sampling": 5}
    assert refusal(lambda: codec.load_document(v1, "old.json"), RecordError) == (
        "old.json: sampling: must be an object, got int (schema version 1)",
        "give a record graphbench wrote")


def test_a_file_that_is_not_utf_8_is_named(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b'{"schema": "\xff"}')
    with pytest.raises(RecordError) as caught:
        codec.read_record(path)
    assert caught.value.message == f"{path} is not a text file (not UTF-8)"


def test_keys_that_differ_only_in_hidden_characters_are_refused_naming_the_file(tmp_path):
    data = stored_document()
    data["packages"].update({"numpy\x1b": "1", "numpy\\x1b": "2"})   # one key once escaped
    path = tmp_path / "hidden.json"
    path.write_text(json.dumps(data))
    assert refusal(lambda: codec.read_record(path), RecordError) == (
        f"{path}: two keys of one object differ only in hidden characters",
        "was the record written by graphbench?")


def test_a_number_beyond_what_graphbench_measures_is_refused_naming_the_file(tmp_path):
    data = stored_document()
    data["runs"][0]["conditions"][0]["sm_clock_mhz"] = 10**12
    path = tmp_path / "clock.json"
    path.write_text(json.dumps(data))
    assert refusal(lambda: codec.read_record(path), RecordError) == (
        f"{path}: runs[0].conditions[0].sm_clock_mhz: a clock of 1e+12 MHz, outside what "
        "graphbench measures (0, or 0.001 to 1e+06 MHz)", "was the record written by graphbench?")
