"""Mutation tests for what users type and what pipeline files hold (issue 19
item 9): counts, option values and pipeline files. Messages and remedies are
what a user reads when an input is refused, so they are checked whole."""

from __future__ import annotations

import pytest

from graphbench.cli import values
from graphbench.counts import parse_count
from graphbench.errors import UsageError
from graphbench.pipeline import files
from graphbench.pipeline.spec import SpecError


def refused(call, error=UsageError):
    with pytest.raises(error) as info:
        call()
    return info.value.message, info.value.remedy


# ------------------------------------------------------------------ counts

def test_a_bad_count_says_what_was_expected_with_examples():
    assert refused(lambda: parse_count("abc", "--iters")) == (
        "--iters must be a whole number, got 'abc'", "e.g. 4096, 2^20 or 1e6")
    assert refused(lambda: parse_count("2^x", "--iters", "a size")) == (
        "--iters must be a size, got '2^x'", "e.g. 4096, 2^20 or 1e6")


# ----------------------------------------------------------- option values

def test_too_many_processes_has_a_remedy():
    assert refused(lambda: values.parse_processes("1001")) == (
        "--processes 1001 is more than 1000 processes",
        "each one starts a fresh interpreter and CUDA context; use a few (3 to 10) for a "
        "baseline")


def test_number_messages_name_the_expected_form():
    assert refused(lambda: values.parse_fraction("lots", "--max-noise"))[0] == (
        "--max-noise must be a percentage such as 1% or 0.01, got 'lots'")
    assert refused(lambda: values.parse_seconds("soon", "--max-time"))[0] == (
        "--max-time must be a number of seconds, got 'soon'")
    assert refused(lambda: values.parse_seconds("\uff11", "--max-time"))[0] == (
        "--max-time must be a number of seconds in ASCII digits, got '\uff11'")


def test_ranges_multiply_up_to_the_top():
    assert values.parse_grid("4..64", "--elements") == (4, 8, 16, 32, 64)
    assert values.parse_grid("4..100:x3", "--elements") == (4, 12, 36)
    assert values.parse_grid("5..5", "--elements") == (5,)


def test_a_range_factor_is_a_lower_case_x():
    assert values.parse_grid("2^4..2^8:x4", "--elements") == (16, 64, 256)
    with pytest.raises(UsageError):
        values.parse_grid("2^4..2^8:X4", "--elements")


def test_a_bad_range_has_examples():
    assert refused(lambda: values.parse_grid("64..4", "--elements")) == (
        "--elements range '64..4' must run upwards with a factor of 2 or more",
        "e.g. 2^12..2^24 or 2^12..2^24:x4")


def test_a_bad_device_is_named_as_the_device_option():
    assert refused(lambda: values.parse_device_spec("gpu"))[0] == (
        "--device must be an id, a list such as 0,1, or all; got 'gpu'")
    assert refused(lambda: values.parse_device_spec(","))[0] == (
        "--device needs a device id, a list such as 0,1, or all")
    assert refused(lambda: values.parse_device_spec("-1"))[0] == "--device must be 0 or more, got '-1'"


# --------------------------------------------------------- pipeline files

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
    message, _ = refused(lambda: files.load_pipeline(str(path)), SpecError)
    # this Python (3.11.7, as 3.12) raises SyntaxError with no line number, older ones ValueError
    assert message.startswith(f"{path}: not Python source") and "null bytes" in message
    assert ":None:" not in message  # 3.11's SyntaxError for a NUL byte has no line


# --------------------------------------------------------- size expressions

from graphbench.pipeline.spec import evaluate_size  # noqa: E402


@pytest.mark.parametrize("expr, n, message, remedy", [
    (2.5, 5, "buffer x: size 2.5 is not an integer expression in n",
     'write e.g. "n", "n // 4" or 1024'),
    ("n / 2", 5, "buffer x: size 'n / 2' is not an integer expression in n ('n / 2' is not "
     "allowed)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("2 ** 64 * 2 ** 64", 5, "buffer x: size '2 ** 64 * 2 ** 64' is not an integer expression "
     "in n (far too large)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("n ** 65", 5, "buffer x: size 'n ** 65' is not an integer expression in n (an exponent "
     "must be 0 to 64)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("n - 5000", 4096, "buffer x: size 'n - 5000' is -904 at n = 4,096, not positive",
     "choose a larger --elements or another size expression"),
    ("2 ** 48 + n", 4096, "buffer x: size '2 ** 48 + n' is more than 2^48 at n = 4,096",
     "no GPU holds that many; check the expression"),
])
def test_size_refusals_say_what_and_what_to_do(expr, n, message, remedy):
    assert refused(lambda: evaluate_size(expr, n, "buffer x"), SpecError) == (message, remedy)


# ------------------------------------------------------------ kernel source

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
    assert refused(lambda: files.kernel_source_text(long, pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: Pipeline source {'k' * 4097!r:.57}... is neither CUDA text nor a file "
        "name")
    assert refused(lambda: files.kernel_source_text("k\0.cu", pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: Pipeline source 'k\\x00.cu' is neither CUDA text nor a file name")
    at_limit = refused(lambda: files.kernel_source_text("k" * 4096, pipeline_file), SpecError)[0]
    assert "cannot read kernel source" in at_limit  # a path the OS is asked about
    assert refused(lambda: files.kernel_source_text("none.cu", pipeline_file), SpecError)[0] == (
        f"{pipeline_file}: cannot read kernel source 'none.cu': No such file or directory")
    (tmp_path / "bad.cu").write_bytes(b"\xff\xfe")
    message = refused(lambda: files.kernel_source_text("bad.cu", pipeline_file), SpecError)[0]
    assert message.startswith(f"{pipeline_file}: cannot read kernel source 'bad.cu': 'utf-8' "
                              "codec can't decode")


def test_a_long_value_is_cut_to_sixty_characters_in_messages():
    from graphbench.pipeline.spec import _short

    assert _short("x" * 58) == repr("x" * 58)  # 60 with its quotes: kept
    cut = _short("x" * 59)
    assert len(cut) == 60 and cut == repr("x" * 59)[:57] + "..."


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


PARAMETRIC = (
    "from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
    "def pipeline(depth=1, stages=('add',)):\n"
    "    return Pipeline(name='p', source='__global__ void k() {}',\n"
    "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
    "                    stages=[Stage('k', args=('x', 'out'))],\n"
    "                    reference=lambda inputs, n: {}, description=f'{depth} {stages}')\n")


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
    assert refused(lambda: files.load_pipeline(str(path), 1, ("add", "mul")), SpecError) == (
        f"{path}: pipeline() takes no stages", "leave out --stages for this pipeline")


def test_a_file_without_a_pipeline_function(tmp_path):
    remedy = "define def pipeline(): return graphbench.pipeline.spec.Pipeline(...)"
    path = tmp_path / "none.py"
    path.write_text("x = 1\n")
    assert refused(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path} defines no pipeline() function", remedy)
    path = tmp_path / "five.py"
    path.write_text("pipeline = 5\n")
    assert refused(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: pipeline is 5, not a function defined in the file", remedy)


SHIPPED_NAMES = "add_mul_sub, softmax, jacobi, reduction, torch_mlp, cupy_chain"
PATH_REMEDY = f"give a path to a .py file or one of {SHIPPED_NAMES}"


def test_pipeline_path_refusals_name_the_shipped_pipelines():
    assert refused(lambda: files.pipeline_path(" "), SpecError) == (
        "--pipeline ' ' names no file", PATH_REMEDY)
    assert refused(lambda: files.pipeline_path("x" * 4097), SpecError) == (
        "--pipeline path of 4,097 characters is longer than any file name (4096)", PATH_REMEDY)
    at_limit = refused(lambda: files.pipeline_path("x" * 4096), SpecError)
    assert at_limit == (f"pipeline file {'x' * 4096!r:.57}...: File name too long", PATH_REMEDY)
    assert refused(lambda: files.pipeline_path("nope.py"), SpecError) == (
        "pipeline file 'nope.py' not found", PATH_REMEDY)


def test_an_unreadable_pipeline_file_is_named(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"\xff\xfe = 1\n")
    message = refused(lambda: files.load_pipeline(str(path)), SpecError)[0]
    assert message.startswith(f"cannot read pipeline file {path}: 'utf-8' codec can't decode")


ONCE = (
    "import builtins\n"
    "builtins.graphbench_test_loads = getattr(builtins, 'graphbench_test_loads', 0) + 1\n"
    "from graphbench.pipeline.spec import Pipeline, Stage, buffer\n"
    "def pipeline(depth=1):\n"
    "    return Pipeline(name='o', source='__global__ void k() {}',\n"
    "                    buffers=[buffer('x', role='input'), buffer('out')],\n"
    "                    stages=[Stage('k', args=('x', 'out'))],\n"
    "                    reference=lambda inputs, n: {}, description=__file__)\n")


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
    assert refused(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: no buffers", "add one")
    path = tmp_path / "number.py"
    path.write_text("def pipeline():\n    return 5\n")
    assert refused(lambda: files.load_pipeline(str(path)), SpecError) == (
        f"{path}: pipeline() returned int, not a Pipeline",
        "return graphbench.pipeline.spec.Pipeline(...) or "
        "graphbench.pipeline.callables.CallablePipeline(...)")
    path = tmp_path / "nosource.py"
    path.write_text(PARAMETRIC.replace("source='__global__ void k() {}'", "source='  '"))
    assert refused(lambda: files.load_pipeline(str(path)), SpecError)[0] == (
        f"{path}: Pipeline source must be CUDA text or a .cu path, got '  '")
