"""Reading old records, checking what a record's types cannot say, and what
a write leaves on disk (issue 19 item 9: mutation testing of
graphbench/record, the survivors of a first run)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from graphbench.errors import RecordError, UsageError
from graphbench.record import codec, codec_v1, files
from graphbench.record.graph_costs import NodeCostSamples, check_node_costs

V1 = Path(__file__).resolve().parent.parent / "results" / "v1"


def v1(name):
    return json.loads((V1 / name).read_text())


# --- schema version 1 -----------------------------------------------------------

def test_a_version_1_run_keeps_its_sampling_conditions_and_sections():
    data = v1("h200_default.json")
    record = codec.load_document(v1("h200_default.json"), "default.json")
    run, sampling = record.runs[0], data["sampling"]
    assert run.seed == data["config"]["seed"]
    assert (run.rounds, run.stop_reason) == (sampling["rounds"], sampling["stop_reason"])
    assert (run.elapsed_s, run.sampling_s) == (sampling["elapsed_s"], sampling["sampling_s"])
    assert {n: m.workload for n, m in run.modes.items()} == \
        {"individual": "stages", "graph": "stages", "fused": "fused"}
    assert run.modes["graph"].wall_us == tuple(data["modes"]["graph"]["samples"]["wall_us"])
    assert len(run.conditions) == len(sampling["conditions"])
    first = sampling["conditions"][0]
    assert run.conditions[0].busy["fused"].us == first["busy_us"]["fused"]
    assert run.conditions[0].busy["stages"].us == first["busy_us"]["graph"]
    assert run.conditions[0].sm_clock_mhz == first["sm_clock_mhz"]
    assert run.launch_floor.kernel_launch_us == \
        tuple(data["launch_floor"]["kernel_launch_us"]["samples"])
    assert run.graph_update is not None and "graph" in run.lifecycles
    assert len(run.checks) == len(data["verification"]["checks"])
    assert record.legacy_processes is None


def test_a_merged_version_1_run_keeps_its_process_count_and_drops_the_environment():
    data = v1("h200_baseline.json")
    upgraded = codec_v1.upgrade(data, "baseline.json")
    assert upgraded["legacy_processes"]["count"] == data["sampling"]["processes"] == 5
    assert upgraded["legacy_processes"]["medians"] == data["sampling"]["per_process_medians"]
    assert upgraded["runs"][0]["environment"] == {}
    single = codec_v1.upgrade(v1("h200_default.json"), "default.json")
    assert "legacy_processes" not in single
    assert single["runs"][0]["environment"] == v1("h200_default.json")["environment"]


def minimal_v1(**extra):
    return {"schema": "graphbench/run", "schema_version": 1, "tool": {}, "device": {},
            "config": {"seed": 7},
            "modes": {"graph": {"samples": {"wall_us": [1.0], "busy_us": [2.0]}},
                      "fused": {"samples": {"wall_us": [1.0]}}},
            "verification": {"checks": []}, **extra}


def test_a_version_1_run_without_sampling_reads_as_no_rounds():
    upgraded = codec_v1.upgrade(minimal_v1(), "x.json")
    run = upgraded["runs"][0]
    assert (run["seed"], run["rounds"], run["stop_reason"]) == (7, 0, "")
    assert run["elapsed_s"] == 0.0 and run["sampling_s"] is None
    assert run["conditions"] == [] and run["environment"] == {}
    assert run["modes"]["graph"] == {"wall_us": [1.0], "workload": "stages"}  # busy_us dropped
    assert run["modes"]["fused"]["workload"] == "fused"
    assert all(run[s] is None for s in codec_v1.EXTRA_SECTIONS)
    assert "legacy_processes" not in upgraded


def test_one_process_is_not_a_merged_record():
    upgraded = codec_v1.upgrade(minimal_v1(sampling={"processes": 1}, environment={"pinned_cpu": 3}),
                                "x.json")
    assert "legacy_processes" not in upgraded
    assert upgraded["runs"][0]["environment"] == {"pinned_cpu": 3}
    merged = codec_v1.upgrade(minimal_v1(sampling={"processes": 2}), "x.json")
    assert merged["legacy_processes"] == {"count": 2, "medians": {}}


def test_a_section_keeps_only_the_entries_with_samples():
    upgraded = codec_v1.upgrade(minimal_v1(launch_floor={
        "kernel_launch_us": {"median": 2.0, "samples": [2.0, 3.0]},
        "graph_replay_us": {"median": 1.0}, "note": "text"}), "x.json")
    assert upgraded["runs"][0]["launch_floor"] == {"kernel_launch_us": [2.0, 3.0]}


def test_a_condition_s_busy_readings_go_by_workload():
    condition = {"sm_clock_mhz": 1980, "busy_us": {"graph": 3.0, "fused": 1.0}}
    upgraded = codec_v1.upgrade(minimal_v1(sampling={"conditions": [condition, "odd"]}), "x.json")
    assert upgraded["runs"][0]["conditions"] == [
        {"sm_clock_mhz": 1980, "busy": {"stages": {"us": 3.0}, "fused": {"us": 1.0}}}, "odd"]
    bare = codec_v1.upgrade(minimal_v1(sampling={"conditions": [{"sm_clock_mhz": 1}]}), "x")
    assert bare["runs"][0]["conditions"] == [{"sm_clock_mhz": 1, "busy": {}}]


@pytest.mark.parametrize("error, kept", [("inf", None), ("nan", None), ("Infinity", None),
                                         (0.5, 0.5), ("infinity", "infinity")])
def test_a_version_1_infinite_error_reads_as_none(error, kept):
    check = {"name": "graph", "max_abs_error": error}
    upgraded = codec_v1.upgrade(minimal_v1(verification={"checks": [check, "odd"]}), "x.json")
    assert upgraded["runs"][0]["checks"] == [{"name": "graph", "max_abs_error": kept}, "odd"]


@pytest.mark.parametrize("drop, named", [
    (("modes", "graph", "samples"), "modes.graph.samples"),
    (("config", "seed"), "config.seed"),
    (("verification", "checks"), "verification.checks"),
    (("device",), "device"),
])
def test_a_missing_version_1_field_is_named_by_its_path(drop, named):
    data = minimal_v1()
    parent = data
    for key in drop[:-1]:
        parent = parent[key]
    del parent[drop[-1]]
    with pytest.raises(RecordError) as info:
        codec_v1.upgrade(data, "x.json")
    assert info.value.message == f"{named}: required field is missing (schema version 1)"


def test_a_version_1_sweep_maps_its_config_and_points():
    point = minimal_v1()
    sweep = {"schema": "graphbench/sweep", "schema_version": 1,
             "config": {"elements": [1, 2], "depths": [3], "threshold": 0.5, "run": {"r": 1}},
             "points": [point]}
    upgraded = codec_v1.upgrade(sweep, "s.json")
    assert upgraded["config"] == {"elements": [1, 2], "depths": [3], "threshold": 0.5,
                                  "base": {"r": 1}}
    assert upgraded["points"][0]["runs"][0]["seed"] == 7
    with pytest.raises(RecordError) as info:
        codec_v1.upgrade({**sweep, "points": {}}, "s.json")
    assert "points" in info.value.message and "list" in info.value.message
    real = codec.load_document(v1("h200_sweep.json"), "sweep.json") \
        if (V1 / "h200_sweep.json").exists() else None
    if real is not None:
        assert real.points and real.config.elements == tuple(v1("h200_sweep.json")["config"]["elements"])


# --- node costs -----------------------------------------------------------------

def costs(nodes=(10, 20), capture=(5.0, 9.0), instantiate=(7.0, 12.0), memory=()):
    return NodeCostSamples(nodes, capture, instantiate, memory)


def test_node_costs_of_one_length_and_positive_times_pass():
    check_node_costs(None, "runs[0]", 1e12)
    check_node_costs(costs(), "runs[0]", 1e12)
    check_node_costs(costs(memory=(0, 4096)), "runs[0]", 1e12)
    check_node_costs(costs(capture=(1e12, 1.0)), "runs[0]", 1e12)  # at the limit


@pytest.mark.parametrize("bad, named", [
    (costs(nodes=(10,)), "runs[1].node_costs: series of different lengths"),
    (costs(capture=(1.0,)), "runs[1].node_costs: series of different lengths"),
    (costs(instantiate=(1.0, 2.0, 3.0)), "runs[1].node_costs: series of different lengths"),
    (costs(memory=(1,)), "runs[1].node_costs: series of different lengths"),
    (costs(nodes=(0, 20)), "runs[1].node_costs.nodes: a graph of no nodes"),
    (costs(nodes=(10, -1)), "runs[1].node_costs.nodes: a graph of no nodes"),
    (costs(capture=(0.0, 1.0)), "runs[1].node_costs: a time that is not positive"),
    (costs(instantiate=(1.0, -2.0)), "runs[1].node_costs: a time that is not positive"),
    (costs(capture=(1.0, 2e12)), "runs[1].node_costs: a time that is not positive"),
])
def test_bad_node_costs_are_refused_by_path(bad, named):
    with pytest.raises(RecordError) as info:
        check_node_costs(bad, "runs[1]", 1e12)
    assert info.value.message.startswith(named)


# --- the reader's checks ---------------------------------------------------------

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


def test_a_version_1_record_s_problem_is_named_with_its_file():
    with pytest.raises(RecordError) as info:
        codec.load_document({**minimal_v1(), "config": {}}, "old.json")
    assert info.value.message.startswith("old.json: ") and "config.seed" in info.value.message


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


# --- files ----------------------------------------------------------------------

@pytest.mark.parametrize("path", ["out/", "out/."])
def test_a_path_ending_in_a_folder_is_refused_with_a_file_name_in_it(path):
    with pytest.raises(UsageError) as info:
        files.check_path_text(path, "--json")
    assert info.value.message == f"--json {path}: ends in a folder, not a file name"
    assert "out/out" in info.value.remedy


def test_an_empty_path_is_refused():
    with pytest.raises(UsageError) as info:
        files.check_path_text("", "--json")
    assert info.value.message.startswith("--json ''")
    files.check_path_text("out.json", "--json")
    files.check_path_text("./out", "--json")


def test_a_new_record_is_shared_as_the_umask_allows(tmp_path):
    old = os.umask(0o027)
    try:
        target = files.write_text_atomic(tmp_path / "deep" / "new.json", "text")
    finally:
        os.umask(old)
    assert target == tmp_path / "deep" / "new.json"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_text() == "text"


def test_a_replaced_record_keeps_its_mode_and_gets_a_new_inode(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old old old old")
    target.chmod(0o604)
    before = os.stat(target).st_ino
    files.write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o604
    assert os.stat(target).st_ino != before  # replaced, not rewritten


def test_a_hard_linked_record_is_rewritten_shorter_in_place(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("a long old text")
    os.link(first, second)
    before = os.stat(first).st_ino
    assert files.write_text_atomic(second, "short") == second
    assert first.read_text() == "short" and os.stat(first).st_ino == before


def test_a_symbolic_link_is_written_through(tmp_path):
    target, link = tmp_path / "t.json", tmp_path / "l.json"
    target.write_text("old")
    link.symlink_to(target)
    files.write_text_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json", "t.json"]


def test_a_fifo_is_written_as_a_stream(tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    assert files.write_text_atomic(fifo, "streamed") == fifo
    reader.join(5)
    assert got == ["streamed"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_writing_a_directory_or_an_empty_path_is_refused(tmp_path):
    with pytest.raises(UsageError, match="is a directory"):
        files.write_text_atomic(tmp_path, "x")
    with pytest.raises(UsageError, match="an empty path"):
        files.write_text_atomic("", "x")


def test_a_record_that_is_no_text_or_not_there_is_named(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError) as info:
        files.read_text(binary)
    assert info.value.message == f"{binary} is not a text file (not UTF-8)" and info.value.remedy
    with pytest.raises(RecordError) as info:
        files.read_text(tmp_path / "none.json")
    assert info.value.message.startswith(f"cannot read {tmp_path / 'none.json'}: ")
    assert "No such file" in info.value.message
    assert files.read_text(_written(tmp_path / "ok.json", "é")) == "é"


def _written(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


def test_what_is_at_a_path_is_its_stat_or_none(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    assert files.existing(tmp_path / "none") is None
    assert files.existing(blocker).st_size == 1
    with pytest.raises(UsageError) as info:
        files.existing(blocker / "x.json", "--json")
    assert info.value.message == f"--json {blocker / 'x.json'}: a folder on that path is not a directory"
    with pytest.raises(UsageError) as info:
        files.existing(blocker / "x.json")
    assert info.value.message.startswith(str(blocker / "x.json"))


def test_a_written_record_is_json_that_reads_back(tmp_path):
    path = codec.write_json(tmp_path / "d.json", {"b": [1, 2], "a": None})
    text = path.read_text()
    assert text.endswith("}\n") and json.loads(text) == {"b": [1, 2], "a": None}
    assert '\n  "b"' in text  # indented
    with pytest.raises(ValueError):
        codec.write_json(tmp_path / "n.json", {"x": float("nan")})


# --- a version-3 record: what the model and the reader's checks give -------------

RECORDS = Path(__file__).resolve().parent / "records"


def doc(name="same_code.json"):
    return json.loads((RECORDS / name).read_text())


def refused(data, source="r.json"):
    with pytest.raises(RecordError) as info:
        codec.load_document(data, source)
    return info.value


def test_busy_readings_belong_to_the_mode_s_workload():
    record = codec.load_document(doc(), "r.json")
    assert record.workload("fused") == "fused" and record.workload("graph") == "stages"
    assert record.workload("no such mode") is None
    assert set(record.modes_sharing_busy("graph")) == {"individual", "graph"}
    assert record.modes_sharing_busy("fused") == ("fused",)
    stages = [c.busy["stages"] for c in record.conditions if "stages" in c.busy]
    assert stages and record.busy_readings("graph") == tuple(stages)
    assert record.samples("graph", "busy") == tuple(r.us for r in stages)
    assert record.samples("graph", "cycles") == \
        tuple(r.us * r.sm_clock_mhz for r in stages if r.sm_clock_mhz)


def test_one_off_costs_pool_over_the_processes_that_have_them():
    data = doc()
    data["runs"] = [data["runs"][0], {**data["runs"][0], "lifecycles": {}}, data["runs"][0]]
    record = codec.load_document(data, "r.json")
    one = data["runs"][0]["lifecycles"]["graph"]["capture_us"]
    assert record.lifecycle_samples("graph").capture_us == tuple(one + one)
    assert record.lifecycle_samples("no such mode") is None
    assert record.node_cost_samples() is None
    costs = {"nodes": [10, 20], "capture_us": [5.0, 9.0], "instantiate_us": [7.0, 12.0]}
    data["runs"][0] = {**data["runs"][0], "node_costs": costs}
    assert codec.load_document(data, "r.json").node_cost_samples().nodes == (10, 20)


def test_a_built_in_record_gets_its_working_set_and_a_pipeline_file_s_must_store_it():
    record = codec.load_document(doc(), "r.json")
    assert record.pipeline.working_set_bytes > 0
    data = doc()
    data["gate_points"] = [doc()]
    gated = codec.load_document(data, "r.json")
    assert gated.gate_points[0].pipeline.working_set_bytes == record.pipeline.working_set_bytes
    sweep = codec.read_record(RECORDS / "sweep.json")
    assert all(p.pipeline.working_set_bytes > 0 for p in sweep.points)
    data = doc()
    data["pipeline"] = {**data["pipeline"], "file": "mine.toml", "working_set_bytes": None}
    error = refused(data)
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
    error = refused(sweep)
    assert error.message.startswith(f"r.json: points[1].runs[0].modes.{mode}.wall_us: ")
    assert f"samples for {point['rounds']} rounds" in error.message
    data, gate = doc(), doc()
    gate["runs"][0]["launch_floor"]["kernel_launch_us"][0] = 0.0
    data["gate_points"] = [doc(), gate]
    assert refused(data).message == "r.json: gate_points[1].runs[0]: a measured time that is not positive"


def test_runs_must_name_the_same_modes():
    data = doc()
    second = json.loads(json.dumps(data["runs"][0]))
    second["modes"].pop("fused")
    data["runs"].append(second)
    assert refused(data).message == "r.json: runs[1].modes: not the modes of the first run"


@pytest.mark.parametrize("value, ok", [(0.5, True), (1e12, True), (0.0, False), (-1.0, False),
                                       (1.5e12, False)])
def test_a_launch_floor_time_is_positive_and_bounded(value, ok):
    data = doc()
    data["runs"][0]["launch_floor"]["graph_replay_us"][0] = value
    if ok:
        codec.load_document(data, "r.json")
    else:
        assert refused(data).message.startswith("r.json: runs[0]: a measured time ")


def test_a_one_off_cost_needs_samples_and_node_costs_are_checked_in_a_record():
    data = doc()
    data["runs"][0]["graph_update"]["node_update_us"] = []
    assert refused(data).message == "r.json: runs[0]: a one-off cost with no samples"
    data = doc()
    data["runs"][0]["node_costs"] = {"nodes": [0], "capture_us": [1.0], "instantiate_us": [1.0]}
    assert refused(data).message == "r.json: runs[0].node_costs.nodes: a graph of no nodes"
    data["runs"][0]["node_costs"] = {"nodes": [1], "capture_us": [2e12], "instantiate_us": [1.0]}
    assert refused(data).message.startswith("r.json: runs[0].node_costs: a time")


# --- decoding by type -------------------------------------------------------------

def test_whole_numbers_reach_two_to_the_63rd_and_no_further():
    from graphbench.record.decode import decode

    assert decode(tuple[int, ...], [2**63, -(2**63)], "x") == (2**63, -(2**63))
    with pytest.raises(RecordError) as info:
        decode(tuple[int, ...], [1, 2**63 + 1], "x")
    assert info.value.message.startswith("x[1]: a whole number beyond 2^63")
    assert decode(float, 2**63, "x") == float(2**63) and decode(float, 1e300, "x") == 1e300
    with pytest.raises(RecordError, match="expected a finite number"):
        decode(float, float("inf"), "x")


@pytest.mark.parametrize("hint, value, said", [
    (int, "7", 'x: expected a whole number, got "7"'),
    (bool, 1, "x: expected true or false, got 1"),
    (str, 5, "x: expected a string, got 5"),
    (tuple[float, ...], {"a": 1}, "x: expected a list, got an object"),
    (dict[str, int], [1], "x: expected an object, got a list"),
    (dict[str, int], {"k": "v"}, 'x.k: expected a whole number, got "v"'),
    (int | None, "v", 'x: expected a whole number, got "v"'),
    (tuple[str, ...], ["a", 3], "x[1]: expected a string, got 3"),
])
def test_a_wrong_type_is_named_with_the_value_found(hint, value, said):
    from graphbench.record.decode import decode

    with pytest.raises(RecordError) as info:
        decode(hint, value, "x")
    assert info.value.message == said


def test_a_top_level_document_of_the_wrong_kind_is_the_record():
    from graphbench.record.decode import decode
    from graphbench.record.model import RunRecord

    with pytest.raises(RecordError) as info:
        decode(RunRecord, [1], "")
    assert info.value.message == "the record: expected an object, got a list"


# --- parsing ----------------------------------------------------------------------

def test_parse_errors_carry_a_remedy_and_name_the_field():
    from graphbench.record.parse import parse_json

    with pytest.raises(RecordError) as info:
        parse_json('{"a": [1, ', "t.json")
    assert info.value.message.startswith("t.json is not valid JSON") and info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('{"a": {"b": NaN}}', "t.json")
    assert info.value.message == "t.json: a.b: bare NaN is not JSON" and info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('NaN', "t.json")
    assert info.value.message == "t.json: the record: bare NaN is not JSON"
    with pytest.raises(RecordError) as info:
        parse_json('{"a": {"\\ud800": 1}}', "t.json")
    assert info.value.message == "t.json: a: a string with a lone surrogate, not text"
    assert info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('["\\udc00"]', "t.json")
    assert info.value.message == "t.json: [0]: a string with a lone surrogate, not text"
    assert parse_json('["\\u00e9", "\\\\u", 1.5]', "t.json") == ["é", "\\u", 1.5]
    assert parse_json('[[1, "NaN"]]', "t.json") == [[1, "NaN"]]  # a string, not a bare constant


def test_a_bad_output_path_is_named_by_its_option(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    for path, said in [("out/", "--csv out/: ends in a folder"),
                       (blocker / "x.json", f"--csv {blocker / 'x.json'}: a folder on that path"),
                       (tmp_path, f"--csv {tmp_path} is a directory")]:
        with pytest.raises(UsageError) as info:
            files.check_writable(path, "--csv")
        assert info.value.message.startswith(said)


def test_a_record_in_new_folders_is_made_with_them(tmp_path):
    target = tmp_path / "a" / "b" / "c" / "r.json"
    files.check_writable(target, "--json")
    assert files.write_text_atomic(target, "x") == target and target.read_text() == "x"
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]
