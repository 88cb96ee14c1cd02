"""The Python API on CPU: settings validated as the CLI validates them,
before any GPU work; pipeline objects threaded to the run; compare and load
on stored records; and `import graphbench` stays cheap.

Covers graphbench/__init__.py.
Covers graphbench/pipeline/objects.py.
Covers graphbench/record/comparison.py."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_record

import graphbench
from graphbench.stats.merge import merge_runs
from graphbench.errors import (CompileError, ConfigError, DeviceError, RecordError, UsageError,
                               VerificationError)
from graphbench.pipeline.spec import SpecError
from graphbench.pipeline.files import load_pipeline


@pytest.mark.parametrize("settings, error, match", [
    ({"elements": 0}, ConfigError, "elements must be a positive integer"),
    ({"modes": "graph"}, ConfigError, "graph also needs individual"),
    ({"bogus": 1}, ConfigError, "bogus is not a run setting"),
    ({"iters": "many"}, ConfigError, "iters must be a positive integer, got 'many'"),
    ({"flush_l2": 1}, ConfigError, "flush_l2 must be a bool"),
    ({"processes": 0}, UsageError, "processes must be a positive integer"),
    ({"processes": 2**62}, UsageError, "processes 4611686018427387904 is more than 1000"),
    ({"processes": True}, UsageError, "processes must be an int, got True"),
    ({"processes": "3"}, UsageError, "processes must be an int, got '3'"),
    ({"rounds": 5, "max_noise": 0.02}, ConfigError, "rounds fixes the number of rounds, so "
     "max_noise"),
    ({"seed": -1}, ConfigError, "seed must be 0 or more"),
    ({"rtol": 0.1}, ConfigError, "rtol is not a run setting"),
    ({"device": "0,1"}, ConfigError, "a call measures one device"),
])
def test_bad_settings_raise_typed_errors_before_any_gpu_work(settings, error, match):
    with pytest.raises(error, match=match):
        graphbench.run(**settings)


def test_text_settings_are_read_as_the_cli_reads_them(monkeypatch):
    seen = {}
    monkeypatch.setattr("graphbench.runner.measure",
                        lambda config, processes=1, progress=None, spec=None:
                        seen.update(config=config) or make_record())
    graphbench.run(modes="individual,,graph", max_noise="2%", max_time="3s", device="0",
                   gate_sizes="2^20..2^22", seed="1e3")
    config = seen["config"]
    assert (config.modes, config.max_noise, config.max_time, config.device, config.seed) == \
        (("individual", "graph"), 0.02, 3.0, 0, 1000)
    assert config.gate_sizes == (2**20, 2**21, 2**22)


def test_without_a_gpu_fresh_processes_raise_device_error_before_they_start(monkeypatch):
    def no_gpu():
        raise DeviceError("no NVIDIA driver found (libcuda could not be loaded)")

    def started(*args, **kwargs):
        raise AssertionError("a fresh process was started")

    monkeypatch.setattr("graphbench.measure.device.list_devices", no_gpu)
    monkeypatch.setattr("graphbench.measure.processes.run_sets", started)
    with pytest.raises(DeviceError, match="no NVIDIA driver"):
        graphbench.run(processes=3)
    with pytest.raises(DeviceError, match="no NVIDIA driver"):
        graphbench.run(gate_sizes="2^20")


@pytest.mark.parametrize("call, error, line", [
    (lambda r, p: graphbench.load(None), UsageError, "path must be a file path, got None"),
    (lambda r, p: graphbench.load(42), UsageError, "path must be a file path, got 42"),
    (lambda r, p: graphbench.load([p]), UsageError, "path must be a file path, got ["),
    (lambda r, p: graphbench.load(""), UsageError, "path '': an empty path; give a file name"),
    (lambda r, p: graphbench.save(p, "x"), UsageError, "record is a str, not a run or sweep "
     "record; save writes what graphbench.run returns"),
    (lambda r, p: graphbench.save(p, graphbench.compare(r, r)), UsageError,
     "record is a Comparison, not a run or sweep record"),
    (lambda r, p: graphbench.compare(r, r, fail_on=5), UsageError,
     "fail_on must be a spec or a list of them, got 5; give a spec such as 'graph.wall:10%'"),
    (lambda r, p: graphbench.compare(r, r, fail_on=["graph.wall:10%", 3]), UsageError,
     "fail_on has 3, an int, not a spec"),
    (lambda r, p: graphbench.compare(r, r, fail_on=[]), UsageError,
     "fail_on is empty: a gate that judges nothing has not passed"),
    (lambda r, p: graphbench.compare("", r), UsageError, "baseline '': an empty path"),
])
def test_record_arguments_are_refused_with_the_argument_named(tmp_path, call, error, line):
    record = merge_runs([make_record(rounds=20, seed=s) for s in (1, 4, 5)])
    with pytest.raises(error) as refused:
        call(record, str(tmp_path / "out.json"))
    assert refused.value.one_line().startswith(line)
    assert not (tmp_path / "out.json").exists()


def test_bad_pipelines_raise_spec_errors():
    with pytest.raises(SpecError, match="not found"):
        graphbench.run("no/such/pipeline.py")
    with pytest.raises(SpecError, match="not a Pipeline"):
        graphbench.run(42)


def test_text_forms_become_the_config_the_cli_would_build(monkeypatch):
    seen = {}

    def fake_measure(config, processes=1, progress=None, spec=None):
        seen.update(config=config, processes=processes, spec=spec)
        return make_record()

    monkeypatch.setattr("graphbench.runner.measure", fake_measure)
    graphbench.run("softmax", elements="2^16", modes="individual,graph", max_noise=0.02)
    config = seen["config"]
    assert (config.pipeline, config.elements, config.modes) == ("softmax", 65536,
                                                               ("individual", "graph"))
    assert seen["spec"] is None and seen["processes"] == 1


def test_a_pipeline_object_reaches_the_session_without_a_file(monkeypatch):
    spec = load_pipeline("softmax").spec
    seen = {}

    def fake_benchmark(config, on_round=None, kernels=None, spec=None):
        seen.update(config=config, spec=spec)
        return make_record()

    monkeypatch.setattr("graphbench.runner.run_benchmark", fake_benchmark)
    graphbench.run(spec, modes=["individual", "graph"])
    assert seen["spec"] is spec and seen["config"].pipeline is None


def test_a_pipeline_object_refuses_fresh_processes():
    spec = load_pipeline("softmax").spec
    with pytest.raises(UsageError, match="only in this process"):
        graphbench.run(spec, processes=2)
    with pytest.raises(UsageError, match="only in this process"):
        graphbench.run(spec, gate_sizes=(2**20,))


def _without_pdl(spec):
    return dataclasses.replace(spec, stages=[dataclasses.replace(s, pdl_kernel=None)
                                             for s in spec.stages])


def _stage_changed(spec, **changes):
    return dataclasses.replace(spec, stages=[dataclasses.replace(spec.stages[0], **changes),
                                             *spec.stages[1:]])


@pytest.mark.parametrize("change, settings, error, words", [
    (lambda s: _stage_changed(s, kernel="vec_nope"), {}, SpecError,
     "defines no kernel named vec_nope"),
    (lambda s: _stage_changed(s, args=s.stages[0].args[:3]), {}, SpecError,
     "args gives 3 arguments, kernel vec_add in its source 'pipeline.cu' takes 4"),
    (lambda s: dataclasses.replace(s, source='extern "C" __global__ void vec_add( {'), {},
     CompileError, "NVRTC could not compile"),
    (_without_pdl, {"modes": "individual,pdl"}, UsageError, "modes pdl cannot run"),
    (lambda s: dataclasses.replace(s, source=42), {}, SpecError,
     "Pipeline source must be a non-empty string"),
])
def test_a_pipeline_object_is_checked_offline_as_its_file_would_be(
        monkeypatch, change, settings, error, words):
    """Its kernels compiled, the stages' arguments counted, the rungs named
    checked: what run --pipeline FILE refuses before the GPU, in the API's words."""
    monkeypatch.setattr("graphbench.runner.measure", lambda *a, **k: pytest.fail("measured"))
    with pytest.raises(error) as refused:
        graphbench.run(change(load_pipeline(None).spec), **settings)
    assert words in refused.value.message and "--" not in refused.value.one_line()
    assert refused.value.message.startswith(("the pipeline object", "NVRTC"))


def test_compare_judges_records_and_paths(tmp_path):
    base = graphbench.save(tmp_path / "base.json", merge_runs(
        [make_record(rounds=20, seed=s) for s in (1, 4, 5)]))
    same = graphbench.compare(base, make_record(rounds=20, seed=2))
    assert same.passed and same.regressions == []
    slower = make_record({"individual": 14.0, "graph": 4.3 * 1.3, "fused": 4.6}, rounds=20, seed=3)
    verdict = graphbench.compare(base, slower, fail_on="graph.wall:10%")
    assert not verdict.passed and [v.metric for v in verdict.regressions] == ["graph.wall"]
    assert isinstance(graphbench.load(base), type(slower))


def test_compare_fails_closed_with_typed_errors(tmp_path):
    base = make_record(rounds=20, seed=1)
    with pytest.raises(RecordError, match="not comparable"):
        graphbench.compare(base, make_record(rounds=20, seed=2, elements=65536))
    with pytest.raises(RecordError, match="baseline record failed verification"):
        graphbench.compare(make_record(passed=False), base)
    with pytest.raises(VerificationError):
        graphbench.compare(base, make_record(passed=False))
    with pytest.raises(UsageError, match="one A/B record"):
        graphbench.compare(base)
    with pytest.raises(RecordError):
        graphbench.compare(tmp_path / "missing.json", base)


def test_import_graphbench_loads_no_gpu_or_numeric_package():
    code = ("import sys, graphbench, graphbench.pytest_plugin; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('cupy', 'cuda', 'numpy', 'scipy', 'rich', 'graphbench')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=Path(__file__).resolve().parents[1]).stdout
    # graphbench.limits: the plugin's default process count, three constants;
    # pytest_session: its other options, which import nothing more until used
    assert eval(loaded) == ["graphbench", "graphbench._version", "graphbench.limits",
                            "graphbench.pytest_plugin", "graphbench.pytest_session"]


@pytest.mark.gpu
def test_on_a_gpu_a_pipeline_object_runs_and_is_recorded_as_an_object():
    record = graphbench.run(load_pipeline("softmax").spec, modes="individual,graph",
                            rounds=3, iters=10)
    assert record.verified and record.pipeline.file == "<object>"
    assert record.pipeline.name == "softmax" and record.pipeline.file_sha256 is None
