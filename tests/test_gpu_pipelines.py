"""GPU tests of pipeline files: every shipped example verifies in every rung
it supports, with replay on new data and graph update, and a wrong example
kernel is caught."""

import pytest

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.ladder import RUNG
from graphbench.runner import run_benchmark
from graphbench.measure.device import describe, open_device
from graphbench.measure.session import load_kernels
from graphbench.pipeline.files import load_pipeline, plan

pytestmark = pytest.mark.gpu

EXAMPLES = [("softmax", 1, 1 << 16, "y"), ("jacobi", 3, 1 << 16, "a"),
            ("jacobi", 4, 1 << 16, "b"), ("reduction", 1, 1 << 18, "y")]


@pytest.mark.parametrize("name, depth, elements, output", EXAMPLES)
def test_every_rung_of_a_shipped_pipeline_verifies(name, depth, elements, output):
    record = run_benchmark(RunConfig(pipeline=name, depth=depth, elements=elements,
                                     modes=("all",), iters=20, rounds=3, unroll=3))
    checks = {c.name: c for c in record.checks}
    assert record.verified, [c for c in record.checks if not c.passed]
    assert record.pipeline.name == name and record.pipeline.checked == (output,)
    for mode in record.mode_names:
        assert checks[f"{mode} [{output}]"].passed
        if RUNG[mode].graph:
            assert checks[f"{mode}: replay with new data [{output}]"].passed
    for method in ("kernel nodes", "whole graph"):
        assert checks[f"graph update ({method}): new buffers [{output}]"].passed
        assert checks[f"graph update ({method}): old buffers not written"].passed
    expected_missing = {"fused"} if name != "softmax" else set()
    assert set(record.unavailable) == expected_missing


def test_a_wrong_example_kernel_is_caught_with_its_output_named(capsys, monkeypatch):
    loaded = load_pipeline("softmax")
    wrong = loaded.source.replace("y[base + j] = e[base + j] * inv;",
                                  "y[base + j] = e[base + j] * inv * 1.001f;")
    assert wrong != loaded.source
    arch = describe(open_device(0)).arch
    kernels = load_kernels(arch, wrong, plan(loaded.spec, 1 << 16))
    record = run_benchmark(RunConfig(pipeline="softmax", elements=1 << 16, iters=5, rounds=2),
                           kernels=kernels)
    failed = {c.name for c in record.checks if not c.passed}
    assert {"individual [y]", "graph [y]"} <= failed and "fused [y]" not in failed
    assert record.rounds == 0


def test_the_cli_runs_a_user_pipeline_file(tmp_path, capsys):
    path = tmp_path / "scale.py"
    path.write_text('''
from graphbench.pipeline.spec import Pipeline, Stage, buffer, count, scalar

SOURCE = r"""
extern "C" __global__ void scale(const float* x, float* y, float k, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = k * x[i];
}
"""

def pipeline():
    return Pipeline(name="scale", source=SOURCE,
                    buffers=[buffer("x", role="input"), buffer("y")],
                    stages=[Stage("scale", args=("x", "y", scalar(3.0), count("n")))],
                    reference=lambda inputs, n: {"y": 3 * inputs["x"]})
''')
    out = tmp_path / "r.json"
    assert main(["run", "--pipeline", str(path), "--modes", "all", "--iters", "20",
                 "--rounds", "3", "--no-progress", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pipeline scale" in text and "unavailable: pdl" in text


def test_the_readme_pipeline_verifies_on_every_rung_it_has(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_pipeline_files import readme_pipeline

    record = run_benchmark(RunConfig(pipeline=str(readme_pipeline(tmp_path)), modes=("all",),
                                     elements=1 << 18, iters=20, rounds=3))
    assert record.verified, [c for c in record.checks if not c.passed]
    assert set(record.unavailable) == {"pdl", "graph-pdl", "fused"}


def test_a_stage_with_the_wrong_argument_count_is_refused_before_timing(tmp_path, capsys):
    path = tmp_path / "short.py"
    path.write_text('''
from graphbench.pipeline.spec import Pipeline, Stage, buffer, count

SOURCE = r"""
extern "C" __global__ void copy(const float* x, float* y, size_t n) {
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = x[i];
}
"""

def pipeline():
    return Pipeline(name="short", source=SOURCE, reference=lambda i, n: {"y": i["x"]},
                    buffers=[buffer("x", role="input"), buffer("y")],
                    stages=[Stage("copy", args=("x", "y"))])
''')
    assert main(["run", "--pipeline", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "stage 1 (copy): args gives 2 arguments" in err and "takes 3" in err  # preflight
