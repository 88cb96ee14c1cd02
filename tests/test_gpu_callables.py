"""GPU tests of callable pipelines: each framework on each rung it runs,
verified (replay on new data copied into the captured inputs, constants),
and the one-line errors of stages that cannot be captured or write in place.

Run: python -m pytest -q -p no:cacheprovider tests/test_gpu_callables.py -rs

Covers graphbench/measure/backends/cupy.py.
Covers graphbench/measure/backends/torch.py."""


import pytest

from graphbench.pipeline.callables import CaptureError
from graphbench.config import RunConfig
from graphbench.ladder import RUNG
from graphbench.runner import run_benchmark


pytestmark = pytest.mark.gpu
RUNGS = ("individual", "graph", "unrolled")


def run(pipeline_file, modes=("all",), elements=8192, **changes):
    return run_benchmark(RunConfig(pipeline=str(pipeline_file), elements=elements, modes=modes,
                                   iters=20, rounds=3, unroll=3, **changes))


def assert_verified(record, output="y"):
    checks = {c.name: c for c in record.checks}
    assert record.verified, [c for c in record.checks if not c.passed]
    for mode in record.mode_names:
        assert checks[f"{mode} [{output}]"].passed
        if RUNG[mode].graph:
            assert checks[f"{mode}: replay with new data [{output}]"].passed
            assert checks[f"{mode}: constant inputs 1, 2, 3... [{output}]"].passed


@pytest.mark.parametrize("name, elements", [("cupy_chain", 4096), ("cupy_chain", 1 << 20),
                                            ("torch_mlp", 8192), ("torch_mlp", 64 * 1024)])
def test_every_callable_rung_verifies_with_replay_on_new_data(name, elements):
    if name.startswith("torch"):
        pytest.importorskip("torch")
    record = run(name, elements=elements)
    assert set(record.mode_names) == set(RUNGS)
    assert set(record.unavailable) == {"driver", "pdl", "graph-pdl", "loop", "fused"}
    assert record.pipeline.framework == name.split("_")[0] and record.pipeline.framework_version
    assert_verified(record)
    for mode in RUNGS:  # busy and held submit through the backend's capture
        assert record.samples(mode, "busy") and record.samples(mode, "submit")


def test_torch_compile_verifies_and_records_its_compile_time():
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    record = run("torch_mlp", modes=("individual", "graph", "torch-compile"))
    assert_verified(record)
    assert record.lifecycle_samples("torch-compile").capture_us[0] > 1e4  # seconds, not us
    assert any("busy time not measured for torch-compile" in s for r in record.runs
               for s in r.skipped)


TORCH_FILE = '''
import torch

from graphbench.pipeline.callables import CallablePipeline, array


def twice(b):
    {body}

def reference(inputs, n):
    return {{"y": inputs["x"] * 2}}

def pipeline():
    return CallablePipeline(name="mine", framework="torch", stages=[twice],
                            reference=reference, arrays=[array("x", role="input"), array("y")])
'''
CUPY_FILE = TORCH_FILE.replace("import torch", "import cupy").replace('"torch"', '"cupy"')


def pipeline_file(tmp_path, body, template=TORCH_FILE):
    path = tmp_path / "mine.py"
    path.write_text(template.format(body=body))
    return path


def test_a_wrong_callable_is_caught_naming_its_output(tmp_path):
    pytest.importorskip("torch")
    record = run(pipeline_file(tmp_path, 'torch.mul(b["x"], 3.0, out=b["y"])'),
                 modes=("individual", "graph"))
    assert not record.verified
    assert {c.name for c in record.checks if not c.passed} >= {"individual [y]", "graph [y]"}


@pytest.mark.parametrize("body, template, message", [
    ('return b["x"] * 2', TORCH_FILE, "stage twice returned a new Tensor instead of writing"),
    ('torch.mul(b["x"], 2.0, out=b["y"]); float(b["y"][0].item())', TORCH_FILE,
     "stage twice cannot run inside a graph: it synchronises with the host"),
    ('cupy.multiply(b["x"], 2.0, out=b["y"]); float(b["y"][0])', CUPY_FILE,
     "stage twice cannot run inside a graph"),
    ('b["y"][...] = b["x"] * 2', CUPY_FILE, "stage twice allocates .* bytes during capture"),
    ('b["y"] = b["x"] * 2', TORCH_FILE, "stage twice assigns to bufs"),
])
def test_a_stage_that_cannot_be_captured_is_named_in_one_line(tmp_path, body, template, message):
    pytest.importorskip(template.split()[1])
    with pytest.raises(CaptureError, match=message) as info:
        run(pipeline_file(tmp_path, body, template), modes=("individual", "graph"))
    assert "\n" not in info.value.one_line()
