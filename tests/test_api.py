"""The Python API on CPU: settings validated as the CLI validates them,
before any GPU work; pipeline objects threaded to the run; compare and load
on stored records; and `import graphbench` stays cheap."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_record

import graphbench
from graphbench.analyze.merge import merge_runs
from graphbench.errors import ConfigError, RecordError, UsageError, VerificationError
from graphbench.pipeline.spec import SpecError
from graphbench.pipeline.files import load_pipeline


@pytest.mark.parametrize("settings, error, match", [
    ({"elements": 0}, ConfigError, "elements must be a positive integer"),
    ({"modes": "graph"}, ConfigError, "graph also needs individual"),
    ({"bogus": 1}, ConfigError, "bogus is not a run setting"),
    ({"iters": "many"}, ConfigError, "iters must be a positive integer, got 'many'"),
    ({"flush_l2": 1}, ConfigError, "flush_l2 must be a bool"),
    ({"processes": 0}, UsageError, "processes must be a positive integer"),
])
def test_bad_settings_raise_typed_errors_before_any_gpu_work(settings, error, match):
    with pytest.raises(error, match=match):
        graphbench.run(**settings)


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
    # graphbench.limits: the plugin's default process count, three constants
    assert eval(loaded) == ["graphbench", "graphbench._version", "graphbench.limits",
                            "graphbench.pytest_plugin"]


@pytest.mark.gpu
def test_on_a_gpu_a_pipeline_object_runs_and_is_recorded_as_an_object():
    record = graphbench.run(load_pipeline("softmax").spec, modes="individual,graph",
                            rounds=3, iters=10)
    assert record.verified and record.pipeline.file == "<object>"
    assert record.pipeline.name == "softmax" and record.pipeline.file_sha256 is None
