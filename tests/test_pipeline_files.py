"""Pipeline files without a GPU: every bad file is one line and exit 2
before any GPU work, the shipped pipelines and the built-in one compile
offline, their references compute what their kernels do, and records of a
user pipeline pass through report, compare and merge.

Covers graphbench/pipeline/checks.py.
Covers graphbench/pipeline/plan.py.
Covers graphbench/pipeline/shipped/__init__.py.
Covers graphbench/pipeline/shipped/add_mul_sub.py.
Covers graphbench/pipeline/shipped/jacobi.py.
Covers graphbench/pipeline/shipped/reduction.py.
Covers graphbench/pipeline/shipped/softmax.py."""

import dataclasses
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import make_record
from tests_helpers import refusal, short_error
from graphbench.cli import main
from graphbench.pipeline.files import SHIPPED, _raised, load_pipeline, plan, reference_outputs
from graphbench.measure.session import check_argument_counts
from graphbench.pipeline import files
from graphbench.record.codec import read_run, write_record
from graphbench.report.run import run_report
from graphbench.report.tables import to_text
from graphbench.pipeline.spec import SpecError

GOOD = '''
from graphbench.pipeline.spec import Pipeline, Stage, buffer, count, scalar

SOURCE = r"""
extern "C" __global__ void twice(const float* x, float* y, float k, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = k * x[i];
}
"""

def reference(inputs, n):
    return {"y": 2 * inputs["x"]}

def pipeline():
    return Pipeline(name="twice", source=SOURCE,
                    buffers=[buffer("x", role="input"), buffer("y", DTYPE, SIZE_Y)],
                    stages=[Stage(KERNEL, args=(ARG, "y", scalar(2.0), count("n")))],
                    reference=reference)
'''


def write(tmp_path, text=None, **changes):
    values = {"SIZE_Y": '"n"', "DTYPE": '"float32"', "KERNEL": '"twice"', "ARG": '"x"', **changes}
    body = GOOD if text is None else text
    for key, value in values.items():
        body = body.replace(key, value)
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(body))
    return path


def run_exit(path, capsys, *extra):
    code = main(["run", "--pipeline", str(path), "--no-progress", *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, short_error(err)


@pytest.mark.parametrize("changes, message", [
    ({"ARG": '"z"'}, "argument 1 names unknown buffer 'z'"),
    ({"SIZE_Y": '"n / 2"'}, "size 'n / 2' is not an integer expression in n"),
    ({"SIZE_Y": '"n - n"'}, "is 0 at n = 4,096, not positive"),
    ({"SIZE_Y": '"n ** 2 ** 99"'}, "not an integer expression"),
    ({"DTYPE": '"float99"'}, "dtype 'float99' is not one CuPy computes with"),
    ({"DTYPE": '"complex64"'}, "dtype 'complex64' is not one CuPy computes with"),
    ({"ARG": "1.5"}, "argument 1 is 1.5"),
])
def test_a_bad_pipeline_is_one_line_and_exit_2_before_any_gpu_work(tmp_path, capsys, changes,
                                                                   message):
    code, err = run_exit(write(tmp_path, **changes), capsys)
    assert code == 2 and message in err


@pytest.mark.parametrize("text, message", [
    ("def pipeline(:\n", "mine.py:1: syntax error"),
    ("x = 1\n", "defines no pipeline() function"),
    ("def pipeline():\n    return 42\n", "returned int, not a Pipeline"),
    ("import no_such_module_anywhere\n", "raised ModuleNotFoundError while loading"),
    ("def pipeline():\n    raise ValueError('nope')\n", "pipeline() raised ValueError: nope"),
])
def test_a_broken_file_is_named_with_what_is_wrong(tmp_path, capsys, text, message):
    code, err = run_exit(write(tmp_path, text), capsys)
    assert code == 2 and message in err


def test_a_missing_file_and_an_unwanted_depth_are_refused(tmp_path, capsys):
    code, err = run_exit(tmp_path / "absent.py", capsys)
    assert code == 2 and "not found" in err and "softmax" in err
    code, err = run_exit(write(tmp_path), capsys, "--depth", "3")
    assert code == 2 and "pipeline() takes no depth" in err


def test_every_point_of_a_sweep_is_checked_first(tmp_path, capsys):
    path = write(tmp_path, SIZE_Y='"n - 8192"')  # positive at 2^14 and above only
    assert main(["sweep", "--pipeline", str(path), "--elements", "2^12,2^14", "--depth", "1",
                 "--no-progress"]) == 2
    assert "at n = 4,096, not positive" in capsys.readouterr().err


def test_an_unknown_kernel_and_a_compile_error_are_reported_offline(tmp_path, capsys):
    assert main(["kernels", "--pipeline", str(write(tmp_path, KERNEL='"thrice"'))]) == 2
    assert "no kernel named thrice" in capsys.readouterr().err
    broken = write(tmp_path, GOOD.replace("y[i] = k * x[i];", "y[i] = k * x[i]"))
    assert main(["kernels", "--pipeline", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("graphbench: error: NVRTC could not compile") and "error" in err


class FakeKernel:
    def __init__(self, count):
        self.num_arguments = count


def test_a_stage_passing_the_wrong_argument_count_is_named(tmp_path):
    spec = load_pipeline(str(write(tmp_path))).spec
    mine = plan(spec, 4096)
    check_argument_counts(mine, {"twice": FakeKernel(4)})  # x, y, k, n
    with pytest.raises(SpecError, match=r"stage 1 \(twice\) gives 4 arguments, the kernel takes 3"):
        check_argument_counts(mine, {"twice": FakeKernel(3)})


def test_a_reference_that_raises_or_misshapes_is_the_file_s_error(tmp_path):
    mine = plan(load_pipeline(str(write(tmp_path))).spec, 64)
    inputs = {"x": np.ones(64, np.float32)}
    assert set(reference_outputs(mine, inputs)) == {"y"}
    for bad, message in ((lambda i, n: {"y": i["x"][:5]}, r"has shape \(5,\)"),
                         (lambda i, n: {"q": i["x"]}, "returned 'q', not an output"),
                         (lambda i, n: [i["x"]], "returned list"),
                         (lambda i, n: 1 / 0, "raised ZeroDivisionError")):
        with pytest.raises(SpecError, match=message):
            reference_outputs(dataclasses.replace(mine, reference=bad), inputs)


@pytest.mark.parametrize("name", [n for n in SHIPPED if n not in ("torch_mlp", "cupy_chain")])
def test_every_shipped_pipeline_compiles_offline_for_sm_90(name, capsys):
    assert main(["kernels", "--pipeline", name, "--arch", "sm_90"]) == 0
    out = capsys.readouterr().out
    for stage in load_pipeline(name).spec.stages:
        assert stage.kernel in out and stage.pdl_kernel in out


def test_shipped_references_compute_what_the_kernels_do():
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, 2048).astype(np.float32)
    y = load_pipeline("softmax").spec.reference({"x": x}, 2048)["y"].reshape(2, 1024)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)
    assert np.argmax(y[0]) == np.argmax(x[:1024])
    centred = load_pipeline("reduction").spec.reference({"x": x}, 2048)["y"]
    assert abs(float(centred.astype(np.float64).mean())) < 1e-6
    u = rng.uniform(-1, 1, 4 * 1024).astype(np.float32)
    two = load_pipeline("jacobi", 2).spec.reference({"u0": u}, 4096)["b"].reshape(4, 1024)
    grid = u.reshape(4, 1024).astype(np.float64)
    for _ in range(2):  # the textbook loop, point by point
        nxt = grid.copy()
        for i in range(1, 3):
            for j in range(1, 1023):
                nxt[i, j] = (grid[i - 1, j] + grid[i + 1, j] + grid[i, j - 1] + grid[i, j + 1]) / 4
        grid = nxt
    np.testing.assert_allclose(two, grid, rtol=1e-5, atol=1e-6)


def test_jacobi_alternates_buffers_and_takes_its_depth():
    stages = plan(load_pipeline("jacobi", 3).spec, 8192).stages
    assert [s.args[:2] for s in stages] == [("u0", "a"), ("a", "b"), ("b", "a")]


def test_the_built_in_pipeline_is_a_pipeline_file_like_any_other():
    built_in = load_pipeline(None)
    assert built_in.path.name == "add_mul_sub.py" and built_in.spec.fused.kernel == "fused"
    assert [s.kernel for s in built_in.spec.stages] == ["vec_add", "vec_mul", "vec_sub"]


def test_a_user_pipeline_record_passes_through_report_compare_and_merge(tmp_path, capsys):
    from graphbench.stats.merge import merge_runs

    def softmax_record(seed):
        record = make_record({"individual": 20.0, "graph": 8.0, "fused": 6.0}, seed=seed)
        info = dataclasses.replace(record.pipeline, name="softmax", file="softmax",
                                   description="row-wise softmax", file_sha256="1" * 64,
                                   checked=("y",))
        return dataclasses.replace(record, pipeline=info)

    base, current = tmp_path / "b.json", tmp_path / "c.json"
    write_record(base, merge_runs([softmax_record(seed) for seed in (1, 3, 4)]))
    write_record(current, softmax_record(2))
    assert read_run(current).pipeline.name == "softmax"
    assert "pipeline softmax (softmax): row-wise softmax" in to_text(run_report(read_run(current)))
    assert main(["compare", str(base), str(current)]) == 0
    merged = merge_runs([read_run(base), read_run(current)])
    assert merged.process_count == 4 and merged.pipeline.name == "softmax"


def readme_pipeline(tmp_path):
    """The complete pipeline file of docs/pipelines.md (the README links it)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "pipelines.md").read_text()
    code = re.search(r"```python\n(# saxpy_norm\.py.*?)```", text, re.S).group(1)
    path = tmp_path / "saxpy_norm.py"
    path.write_text(code)
    return path


def test_the_readme_pipeline_file_plans_compiles_and_its_reference_checks(tmp_path, capsys):
    path = readme_pipeline(tmp_path)
    assert len(path.read_text().splitlines()) <= 40  # "about 30 lines"
    assert main(["kernels", "--pipeline", str(path)]) == 0
    assert "absmax" in capsys.readouterr().out
    mine = plan(load_pipeline(str(path)).spec, 4096)
    rng = np.random.default_rng(0)
    inputs = {name: rng.uniform(-1, 1, 4096).astype(np.float32) for name in mine.inputs}
    z = reference_outputs(mine, inputs)["z"]
    assert float(np.abs(z).max()) == pytest.approx(1.0)


PARAMETRIC = (
    "from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
    "def pipeline(depth=1, stages=('add',)):\n"
    "    return Pipeline(name='p', source='__global__ void k() {}',\n"
    "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
    "                    stages=[Stage('k', args=('x', 'out'))],\n"
    "                    reference=lambda inputs, n: {}, description=f'{depth} {stages}')\n")


SHIPPED_NAMES = "add_mul_sub, softmax, jacobi, reduction, torch_mlp, cupy_chain"


PATH_REMEDY = f"give a path to a .py file or one of {SHIPPED_NAMES}"


ONCE = (
    "import builtins\n"
    "builtins.graphbench_test_loads = getattr(builtins, 'graphbench_test_loads', 0) + 1\n"
    "from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
    "def pipeline(depth=1):\n"
    "    return Pipeline(name='o', source='__global__ void k() {}',\n"
    "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
    "                    stages=[Stage('k', args=('x', 'out'))],\n"
    "                    reference=lambda inputs, n: {}, description=__file__)\n")


def test_a_pipeline_files_code_keeps_its_file_name(tmp_path):
    path = tmp_path / "double.py"
    path.write_text(
        "from graphbench.pipeline.spec import Pipeline, Stage, buffer, count\n"
        "def reference(inputs, n):\n"
        "    return {'out': inputs['x'] * 2}\n"
        "def pipeline():\n"
        "    return Pipeline(name='double', source='__global__ void twice() {}',\n"
        "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
        "                    stages=[Stage('twice', args=('x', 'out', count('n')))],\n"
        "                    reference=reference)\n")
    loaded = files.load_pipeline(str(path))
    assert loaded.spec.reference.__code__.co_filename == str(path)  # tracebacks name it


def test_a_nul_byte_is_not_python_source(tmp_path):
    path = tmp_path / "nul.py"
    path.write_bytes(b"x = 1\0\n")
    message, _ = refusal(lambda: files.load_pipeline(str(path)), SpecError)
    # this Python (3.11.7, as 3.12) raises SyntaxError with no line number, older ones ValueError
    assert message.startswith(f"{path}: not Python source") and "null bytes" in message
    assert ":None:" not in message  # 3.11's SyntaxError for a NUL byte has no line


def test_kernel_source_is_text_or_a_file_beside_the_pipeline(tmp_path):
    pipeline_file = tmp_path / "p.py"
    assert files.kernel_source_text("__global__ void k() {}", pipeline_file) == \
        "__global__ void k() {}"
    assert files.kernel_source_text("// two\n// lines", pipeline_file) == "// two\n// lines"
    (tmp_path / "k.cu").write_bytes("\ufeff__global__ void k() {}\n".encode("utf-8"))
    assert files.kernel_source_text("k.cu", pipeline_file) == "__global__ void k() {}\n"
    elsewhere = tmp_path / "sub" / "q.py"
    assert files.kernel_source_text(str(tmp_path / "k.cu"), elsewhere) == \
        "__global__ void k() {}\n"


def test_kernel_source_refusals(tmp_path):
    pipeline_file = tmp_path / "p.py"
    long = "k" * 4097
    assert refusal(lambda: files.kernel_source_text(long, pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: Pipeline source {'k' * 4097!r:.57}... is neither CUDA text nor a file "
        "name")
    assert refusal(lambda: files.kernel_source_text("k\0.cu", pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: Pipeline source 'k\\x00.cu' is neither CUDA text nor a file name")
    at_limit = refusal(lambda: files.kernel_source_text("k" * 4096, pipeline_file), SpecError)[0]
    assert "cannot read kernel source" in at_limit  # a path the OS is asked about
    assert refusal(lambda: files.kernel_source_text("none.cu", pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: cannot read kernel source 'none.cu': No such file or directory")
    (tmp_path / "bad.cu").write_bytes(b"\xff\xfe")
    message = refusal(lambda: files.kernel_source_text("bad.cu", pipeline_file), SpecError)[0]
    assert message == f"{pipeline_file}: kernel source 'bad.cu' is not a UTF-8 text file"
    (tmp_path / "empty.cu").write_text("  \n")
    assert refusal(lambda: files.kernel_source_text("empty.cu", pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: kernel source 'empty.cu' is empty")


def test_a_pipeline_file_runs_as_a_module_of_its_own(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(
        "import sys\n"
        "from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
        "def pipeline():\n"
        "    module = sys.modules[__name__]\n"
        "    return Pipeline(name='m', source='__global__ void k() {}',\n"
        "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
        "                    stages=[Stage('k', args=('x', 'out'))],\n"
        "                    reference=lambda inputs, n: {}, description=module.__file__)\n")
    assert files.load_pipeline(str(path)).spec.description == str(path)


def test_pipeline_gets_the_depth_and_stages_it_takes(tmp_path):
    path = tmp_path / "param.py"
    path.write_text(PARAMETRIC)
    assert files.load_pipeline(str(path), 3, ("add", "mul")).spec.description == \
        "3 ('add', 'mul')"
    assert files.load_pipeline(str(path), 2, None).spec.description == "2 ('add',)"


def test_pipeline_without_stages_refuses_them(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text(PARAMETRIC.replace("depth=1, stages=('add',)", "depth=1")
                    .replace("{stages}", "-"))
    assert files.load_pipeline(str(path), 2).spec.description == "2 -"
    assert refusal(lambda: files.load_pipeline(str(path), 1, ("add", "mul")), SpecError) == (
        f"{path}: pipeline() takes no stages", "leave out --stages for this pipeline")


def test_a_file_without_a_pipeline_function(tmp_path):
    remedy = "define def pipeline(): return graphbench.pipeline.spec.Pipeline(...)"
    path = tmp_path / "none.py"
    path.write_text("x = 1\n")
    assert refusal(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path} defines no pipeline() function", remedy)
    path = tmp_path / "five.py"
    path.write_text("pipeline = 5\n")
    assert refusal(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: pipeline is 5, not a function defined in the file", remedy)


def test_pipeline_path_refusals_name_the_shipped_pipelines():
    assert refusal(lambda: files.pipeline_path(" "), SpecError) == (
        "--pipeline ' ' names no file", PATH_REMEDY)
    assert refusal(lambda: files.pipeline_path("x" * 4097), SpecError) == (
        "--pipeline path of 4,097 characters is longer than any file name (4096)", PATH_REMEDY)
    at_limit = refusal(lambda: files.pipeline_path("x" * 4096), SpecError)
    assert at_limit == (f"pipeline file {'x' * 4096!r:.57}...: File name too long", PATH_REMEDY)
    assert refusal(lambda: files.pipeline_path("nope.py"), SpecError) == (
        "pipeline file 'nope.py' not found", PATH_REMEDY)


def test_an_unreadable_pipeline_file_is_named(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"\xff\xfe = 1\n")
    message = refusal(lambda: files.load_pipeline(str(path)), SpecError)[0]
    assert message.startswith(f"cannot read pipeline file {path}: 'utf-8' codec can't decode")


def test_a_pipeline_file_runs_once_per_process_and_per_path(tmp_path, monkeypatch):
    import builtins

    monkeypatch.setattr(builtins, "graphbench_test_loads", 0, raising=False)
    first, second = tmp_path / "a" / "once.py", tmp_path / "b" / "once.py"
    for path in (first, second):
        path.parent.mkdir()
        path.write_text(ONCE)
    assert files.load_pipeline(str(first), 1).spec.description == str(first)
    assert files.load_pipeline(str(first), 2).spec.description == str(first)
    assert builtins.graphbench_test_loads == 1  # another depth, the same run of the file
    assert files.load_pipeline(str(second), 1).spec.description == str(second)
    assert builtins.graphbench_test_loads == 2  # the same text at another path runs anew
    loaded = files.load_pipeline(str(first), 1)
    import hashlib

    assert loaded.file_sha256 == hashlib.sha256(ONCE.encode()).hexdigest()
    assert loaded.source == "__global__ void k() {}" and loaded.path == first


def test_pipeline_errors_carry_the_files_name_and_remedy(tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("from graphbench.pipeline.spec import SpecError\n"
                    "def pipeline():\n"
                    "    raise SpecError('no buffers', 'add one')\n")
    assert refusal(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: no buffers", "add one")
    path = tmp_path / "number.py"
    path.write_text("def pipeline():\n    return 5\n")
    assert refusal(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: pipeline() returned int, not a Pipeline",
        "return graphbench.pipeline.spec.Pipeline(...) or "
        "graphbench.pipeline.callables.CallablePipeline(...)")
    path = tmp_path / "nosource.py"
    path.write_text(PARAMETRIC.replace("source='__global__ void k() {}'", "source='  '"))
    assert refusal(lambda: files.load_pipeline(str(path)), SpecError)[0] == (
        f"{path}: Pipeline source must be CUDA text or a .cu path, got '  '")


def test_raised_names_the_exception_and_keeps_its_text_short():
    assert _raised(ValueError("bad value")) == "ValueError: bad value"
    assert _raised(ValueError("bad"), " while loading") == "ValueError while loading: bad"
    assert _raised(KeyError()) == "KeyError"
    assert _raised(RuntimeError(), " while loading") == "RuntimeError while loading"
    assert _raised(ValueError("x" * 200)) == "ValueError: " + "x" * 200
    text = _raised(ValueError("y" * 201))
    assert text == "ValueError: " + "y" * 197 + "..."

    class Loud(Exception):
        def __str__(self):
            raise RuntimeError("no")
    assert _raised(Loud()) == "Loud"


@pytest.mark.parametrize("where", ["os._exit(0)\n\ndef pipeline():\n    return None\n",
                                   "def pipeline():\n    os._exit(3)\n"])
def test_a_pipeline_that_calls_os_exit_ends_in_an_error_not_a_silent_exit_0(tmp_path, where):
    """os._exit skips every handler: the process would end with the file's
    exit code and no record; it is refused while a pipeline's code runs."""
    import subprocess
    import sys

    path = tmp_path / "exits.py"
    path.write_text("import os\n" + where)
    done = subprocess.run([sys.executable, "-m", "graphbench", "run", "--pipeline", str(path)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 2, done
    assert "called os._exit(" in done.stderr and "cannot end the process" in done.stderr


def test_a_folder_given_as_a_pipeline_is_named_as_a_folder(capsys):
    from graphbench.cli import main

    assert main(["run", "--pipeline", "docs"]) == 2
    assert "--pipeline 'docs' is a folder, not a pipeline file" in capsys.readouterr().err
