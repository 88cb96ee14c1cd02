"""graphbench.record.codec_v1: version-1 records read as the current model, and their problems
named with the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests_helpers import refusal

from graphbench.errors import RecordError
from graphbench.record import codec, codec_v1


V1 = Path(__file__).resolve().parent / "records" / "h200" / "v1"


def v1(name):
    return json.loads((V1 / name).read_text())


def minimal_v1(**extra):
    return {"schema": "graphbench/run", "schema_version": 1, "tool": {}, "device": {},
            "config": {"seed": 7},
            "modes": {"graph": {"samples": {"wall_us": [1.0], "busy_us": [2.0]}},
                      "fused": {"samples": {"wall_us": [1.0]}}},
            "verification": {"checks": []}, **extra}


def test_a_version_1_run_keeps_its_sampling_conditions_and_sections():
    data = v1("default_4096.json")
    record = codec.load_document(v1("default_4096.json"), "default.json")
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
    data = v1("baseline.json")
    upgraded = codec_v1.upgrade(data, "baseline.json")
    assert upgraded["legacy_processes"]["count"] == data["sampling"]["processes"] == 5
    assert upgraded["legacy_processes"]["medians"] == data["sampling"]["per_process_medians"]
    assert upgraded["runs"][0]["environment"] == {}
    single = codec_v1.upgrade(v1("default_4096.json"), "default.json")
    assert "legacy_processes" not in single
    assert single["runs"][0]["environment"] == v1("default_4096.json")["environment"]


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
    real = codec.load_document(v1("sweep.json"), "sweep.json") \
        if (V1 / "sweep.json").exists() else None
    if real is not None:
        assert real.points and real.config.elements == tuple(v1("sweep.json")["config"]["elements"])


def test_a_version_1_record_s_problem_is_named_with_its_file():
    with pytest.raises(RecordError) as info:
        codec.load_document({**minimal_v1(), "config": {}}, "old.json")
    assert info.value.message.startswith("old.json: ") and "config.seed" in info.value.message


def test_a_version_1_sweep_needs_a_list_of_points():
    document = {"schema": "graphbench/sweep", "schema_version": 1, "config": {}, "points": 5}
    assert refusal(lambda: codec.load_document(document, "s.json"), RecordError)[0] == (
        "s.json: points: expected a list (schema version 1)")  # named with its file


def test_a_version_1_record_s_upgrade_problem_is_named_with_its_file():
    document = {"schema": "graphbench/run", "schema_version": 1, "tool": {}, "device": {},
                "config": {},
                "modes": {"graph": {"samples": {"wall_us": [1.0]}}},
                "verification": {"checks": []}}
    with pytest.raises(RecordError) as info:
        codec.load_document(document, "old.json")
    assert info.value.message == \
        "old.json: config.seed: required field is missing (schema version 1)"


def test_a_condition_s_busy_readings_not_by_mode_are_left_for_the_reader_to_refuse():
    odd = {"sm_clock_mhz": 1, "busy_us": [3.0]}
    upgraded = codec_v1.upgrade(minimal_v1(sampling={"conditions": [odd]}), "x.json")
    assert upgraded["runs"][0]["conditions"] == [{"sm_clock_mhz": 1, "busy": [3.0]}]


@pytest.mark.parametrize("sampling", [[1, 2], "fast", 3])
def test_a_version_1_sampling_that_is_not_an_object_is_refused_in_one_line(sampling):
    from graphbench.errors import RecordError

    with pytest.raises(RecordError, match="sampling: must be an object"):
        codec_v1.upgrade(minimal_v1(sampling=sampling), "x.json")
