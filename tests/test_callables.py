"""Callable pipelines without a GPU: the spec's checks, the rung facts and
reasons, the record's framework fields, the shipped examples' plans, and the
stage checks' one-line errors (through a numpy stand-in for a framework).

Covers graphbench/callables.py.
Covers graphbench/measure/backends/__init__.py.
Covers graphbench/measure/backends/callable.py.
Covers graphbench/pipeline/shipped/cupy_chain.py.
Covers graphbench/pipeline/shipped/torch_mlp.py."""

import dataclasses

import numpy as np
import pytest

from conftest import device_info, make_record
from graphbench.pipeline.callables import CallablePipeline, CaptureError, array, plan_callables
from graphbench.cli import main
from graphbench.ladder import LADDER, RUNG
from graphbench.measure.availability import unavailable_modes
from graphbench.measure.backends.callable import CallableBackend
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.record.codec import read_run, write_record
from graphbench.pipeline.spec import SpecError


def write(b):
    b["y"][:] = b["x"] * 2


def reference(inputs, n):
    return {"y": inputs["x"] * 2}


def spec(**changes):
    base = CallablePipeline(name="double", framework="cupy", stages=[write], reference=reference,
                            arrays=[array("x", role="input"), array("y")])
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("changes, message", [
    ({"framework": "jax"}, "framework 'jax' is not one of torch, cupy"),
    ({"iteration": write}, "give stages=\\[...\\] or iteration=fn"),
    ({"stages": ()}, "give stages=\\[...\\] or iteration=fn"),
    ({"arrays": [array("x", dtype="bfloat16", role="input"), array("y")]},
     "dtype 'bfloat16' is not one graphbench fills for cupy"),
    ({"arrays": [array("x", role="input")]}, "needs at least one input and one output"),
    ({"arrays": [array("x", ("n // 8192",), role="input"), array("y")]}, "not positive"),
    ({"stages": [lambda a, b, c: None]}, "takes 3 arguments"),
    ({"setup": lambda n: {}}, "give arrays= or a setup"),
    ({"reference": None}, "reference is not a function"),
    ({"arrays": None}, "arrays must be a list, got None"),
    ({"arrays": "xy"}, "arrays must be a list, got 'xy'"),
    ({"name": ""}, "name must be a non-empty string"),
    ({"name": "\x1b[2J"}, "name must be a non-empty string of printable text"),
    ({"inputs": [1]}, "inputs must name arrays"),
    ({"rtol": float("nan")}, "rtol must be a number 0 or more"),
    ({"description": None}, "description must be a string"),
    ({"arrays": [array("x", role="input", low=float("nan")), array("y")]},
     "array 'x': low must be a finite number, got nan"),
    ({"arrays": [array("x", role="input", high=float("inf")), array("y")]},
     "high must be a finite number"),
    ({"arrays": [array("x", role="input", low=2.0, high=1.0), array("y")]},
     "low 2.0 is above high 1.0"),
])
def test_a_bad_callable_pipeline_is_refused_in_one_line(changes, message):
    with pytest.raises(SpecError, match=message) as info:
        plan_callables(spec(**changes), 4096)
    assert "\n" not in info.value.one_line()


def test_a_callable_plan_names_its_stages_roles_and_sizes():
    p = plan_callables(spec(arrays=[array("x", ("n // 4", 4), "float16", "input"),
                                    array("y", ("n // 4", 4), "float16")]), 4096)
    assert [s.name for s in p.stages] == ["write"] and p.inputs == ["x"] and p.outputs == ["y"]
    assert p.buffers["x"].shape == (1024, 4) and p.buffer_bytes == 2 * 4096 * 2
    assert p.framework == "cupy" and p.kernels == frozenset()


def test_setup_pipelines_name_their_roles():
    p = plan_callables(spec(arrays=(), setup=lambda n: {}, inputs=("x",), outputs=("y",)), 64)
    assert p.roles == {"x": "input", "y": "output"} and p.buffers == {}


def test_rungs_a_callable_pipeline_cannot_run_say_why():
    p = plan_callables(spec(), 4096)
    reasons = unavailable_modes(LADDER, device_info(), [], p)
    assert set(reasons) == {"driver", "pdl", "graph-pdl", "loop", "fused"}
    assert all(r.startswith("the double pipeline is cupy callables: ") for r in reasons.values())
    assert "torch.compile compiles torch code only" in \
        unavailable_modes(("torch-compile",), device_info(), [], p)["torch-compile"]
    kernels = plan(load_pipeline(None).spec, 4096)
    assert "runs torch callables" in \
        unavailable_modes(("torch-compile",), device_info(), [{}], kernels)["torch-compile"]


def test_torch_compile_is_opt_in_and_every_rung_says_its_facts_once():
    from graphbench.config import RunConfig

    assert "torch-compile" not in RunConfig(modes=("all",)).run_modes
    assert RunConfig(modes=("individual", "torch-compile")).run_modes[-1] == "torch-compile"
    assert RUNG["torch-compile"].graph and RUNG["torch-compile"].workload == "compiled"
    assert {r.name for r in RUNG.values() if "torch" in r.backends} == \
        {"individual", "graph", "unrolled", "torch-compile"}


def test_the_record_keeps_the_framework_and_old_records_default_to_cuda_core(tmp_path):
    record = make_record()
    assert record.pipeline.framework == "cuda.core" and record.pipeline.framework_version is None
    torch_record = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, framework="torch", framework_version="2.11.0+cu130"))
    back = read_run(write_record(tmp_path / "r.json", torch_record))
    assert (back.pipeline.framework, back.pipeline.framework_version) == ("torch", "2.11.0+cu130")


@pytest.mark.parametrize("name, framework, outputs", [("cupy_chain", "cupy", ["y"]),
                                                       ("torch_mlp", "torch", ["y"])])
def test_the_shipped_callable_examples_load_and_plan_without_a_gpu(name, framework, outputs):
    if framework == "torch":
        pytest.importorskip("torch", reason="torch is an optional extra (.[torch])")
    p = plan(load_pipeline(name).spec, 8192)
    assert p.framework == framework and p.outputs == outputs
    if name == "torch_mlp":
        assert p.buffers["x"].shape == (8, 1024)  # --elements 8192 is batch 8
        with pytest.raises(SpecError, match="not positive"):
            plan(load_pipeline(name).spec, 512)


def test_kernels_refuses_a_callable_pipeline_in_one_line(capsys):
    assert main(["kernels", "--pipeline", "cupy_chain", "--arch", "sm_90"]) == 2
    assert "cupy callables, with no CUDA kernels" in capsys.readouterr().err


BAD_FILE = """
from graphbench.pipeline.callables import CallablePipeline, array

def twice(b):
    b["y"][:] = b["x"] * 2

def reference(inputs, n):
    return {"y": inputs["x"] * 2}

def pipeline():
    return CallablePipeline(name="mine", framework="FRAMEWORK", stages=[twice],
                            reference=reference, arrays=ARRAYS)
"""


@pytest.mark.parametrize("command", [["run"], ["kernels", "--arch", "sm_90"]])
def test_a_bad_callable_file_is_named_by_run_and_kernels_before_any_gpu_work(
        tmp_path, capsys, command):
    path = tmp_path / "mine.py"
    path.write_text(BAD_FILE.replace("FRAMEWORK", "cupy").replace("ARRAYS", "None"))
    assert main([*command, "--pipeline", str(path)]) == 2
    err = capsys.readouterr().err
    assert "mine: CallablePipeline arrays must be a list, got None" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_api_refuses_a_bad_callable_file_with_its_typed_error(tmp_path):
    import graphbench

    path = tmp_path / "mine.py"
    path.write_text(BAD_FILE.replace("FRAMEWORK", "cupy").replace("ARRAYS", "None"))
    with pytest.raises(SpecError, match="arrays must be a list"):
        graphbench.run(str(path))


def test_a_torch_file_without_torch_says_so_with_the_install_command(
        tmp_path, capsys, monkeypatch):
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else found(name, *a))
    path = tmp_path / "mine.py"
    path.write_text(BAD_FILE.replace("FRAMEWORK", "torch").replace(
        "ARRAYS", '[array("x", role="input"), array("y")]'))
    assert main(["run", "--pipeline", str(path)]) == 2
    err = capsys.readouterr().err
    assert "torch callables, and torch is not installed" in err
    assert 'pip install ".[torch]"' in err and "driver" not in err


class NumpyBackend(CallableBackend):
    """The shared checks, on host arrays: what a framework subclass adds is
    how it allocates, fills and counts memory."""

    framework, kept = "numpy", []

    class Stream:
        def sync(self):
            pass

    def _bind(self, stream):
        return None

    def _unbind(self):
        pass

    def _allocate(self, spec):
        return np.empty(spec.shape, dtype=spec.dtype)

    def _size(self, a):
        return a.size

    def _is_integer(self, a):
        return a.dtype.kind in "iu"

    def _copy_in(self, a, values):
        a[...] = values.reshape(a.shape)

    def _fill(self, a, value):
        a.fill(np.nan if value is None else value)

    def _to_host(self, value):
        return np.asarray(value)

    def _pointer(self, a):
        return a.ctypes.data

    def _held_bytes(self):
        return sum(k.nbytes for k in NumpyBackend.kept)


def backend(*stages):
    return NumpyBackend(plan_callables(spec(stages=list(stages)), 64), NumpyBackend.Stream())


def test_a_callable_backend_computes_fills_and_checks_on_host_arrays():
    b = backend(write)
    b.fill_random(np.random.default_rng(0))
    expected = b.reference()
    b.poison()
    b.stage_enqueuer()()
    np.testing.assert_array_equal(b.result()["y"], expected["y"])
    b.fill_constant()
    assert (b.buffers["x"] == 1).all() and b.checked == ("y",)


def returns_new(b):
    return b["x"] * 2


def rebinds(b):
    b["y"] = b["x"] * 2


def keeps_memory(b):
    NumpyBackend.kept.append(np.ones(8))


def syncs(b):
    raise RuntimeError("operation not permitted when stream is capturing")


@pytest.mark.parametrize("stage, message", [
    (returns_new, "stage returns_new returned a new ndarray instead of writing its output"),
    (rebinds, "stage rebinds assigns to bufs"),
    (keeps_memory, "stage keeps_memory allocates 64 bytes of GPU memory it keeps"),
])
def test_a_stage_that_does_not_write_in_place_is_named_in_one_line(stage, message):
    with pytest.raises(CaptureError, match=message) as info:
        backend(write, stage)
    assert "\n" not in info.value.one_line() and info.value.message.startswith("double: ")


def test_a_stage_that_fails_while_capturing_is_named_in_one_line():
    b = backend(write)
    b._calls = b._calls + ((syncs, (b.view,)),)
    b.stages = b.stages + (dataclasses.replace(b.stages[0], name="syncs"),)
    with pytest.raises(CaptureError, match="stage syncs cannot run inside a graph: it "
                                           "synchronises with the host") as info:
        b.enqueue_stages()
    assert "\n" not in info.value.one_line()
