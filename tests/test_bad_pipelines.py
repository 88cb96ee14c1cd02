"""Property-based: a pipeline file with any field of Pipeline, Stage,
buffer(), count() or scalar() set to a value of any wrong type (or one
out of range), and odd option values, end in exit 0, 1 or 2 with one line
on stderr and never a traceback (an exception escaping main fails here)."""

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_bad_inputs import SETTINGS, assert_clean, run_cli

SOURCE = r'''
extern "C" __global__ void twice(const float* x, float* y, float k, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = k * x[i];
}
'''
GOOD = {
    "Pipeline": {"name": "'twice'", "source": "SRC", "reference": "reference",
                 "buffers": "[BUFFER, buffer('y')]", "stages": "[STAGE]"},
    "Stage": {"kernel": "'twice'", "args": "('x', 'y', SCALAR, COUNT)"},
    "buffer": {"name": "'x'", "role": "'input'"},
    "count": {"expr": "'n'"},
    "scalar": {"value": "2.0"},
}
FIELDS = {
    "Pipeline": ["name", "source", "buffers", "stages", "reference", "fused", "rtol", "atol",
                 "description", "params"],
    "Stage": ["kernel", "args", "grid", "block", "work", "pdl_kernel", "shared_bytes"],
    "buffer": ["name", "dtype", "size", "role", "low", "high"],
    "count": ["expr", "dtype"],
    "scalar": ["value", "dtype"],
}
VALUES = st.sampled_from([
    "None", "123", "-1", "0", "1.5", "float('nan')", "float('inf')", "'abc'", "''", "[]", "{}",
    "()", "True", "10**100", "-10**100", "'n**64'", "'n**-1'", "'n // 0'", "'n*n*n*n'", "max",
    "lambda: 0", "b'x'", "object()", "[None]", "('x',)", "'i4,,'", "'int8'", "'float16'",
    "2**31", "(1, 70000)", "(2048,)", "(32, 32, 2)", "'n'*3", "Stage('twice')", "buffer('x')",
    "'\\ud800'", "10**12", "'auto'", "[1, 2, 3, 4]", "'x' * 5000", "1e308", "'bool'"])


def render(owner: str, field: str, value: str) -> str:
    def call(name: str) -> str:
        kwargs = {**GOOD[name], **({field: value} if name == owner else {})}
        return f"{name}({', '.join(f'{k}={v}' for k, v in kwargs.items())})"

    pipeline = call("Pipeline").replace("BUFFER", call("buffer")).replace("STAGE", call("Stage"))
    pipeline = pipeline.replace("SCALAR", call("scalar")).replace("COUNT", call("count"))
    return (f"from graphbench.pipeline.spec import Pipeline, Stage, buffer, count, scalar\n"
            f"SRC = r'''{SOURCE}'''\n"
            "def reference(inputs, n):\n    return {'y': 2 * inputs['x']}\n"
            f"def pipeline():\n    return {pipeline}\n")


@pytest.mark.slow
@SETTINGS
@given(data=st.data(), owner=st.sampled_from(sorted(FIELDS)),
       command=st.sampled_from(["run", "kernels"]))
def test_a_pipeline_file_with_any_bad_field_is_one_clean_line(data, owner, command):
    field = data.draw(st.sampled_from(FIELDS[owner]))
    text = render(owner, field, data.draw(VALUES))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mine.py"
        path.write_text(text, errors="surrogatepass")
        extra = ["--no-progress"] if command == "run" else []
        code, err = run_cli([command, "--pipeline", str(path), *extra])
    assert_clean(code, err)


OPTIONS = st.sampled_from(["--elements", "--rounds", "--min-rounds", "--max-noise",
                           "--max-time", "--device", "--seed", "--gate-sizes",
                           "--pipeline", "--kernel-source", "--ab", "--modes", "--depth"])
TEXTS = st.one_of(st.sampled_from(["１e６", "١e٣", "٤٠٩٦", "2^62", "0.5%", "50", "3", "", "-",
                                   "1e6", "x" * 5000, "\0", "softmax", "individual,fused"]),
                  st.text(max_size=8))


@pytest.mark.slow
@SETTINGS
@given(pairs=st.lists(st.tuples(OPTIONS, TEXTS), max_size=4),
       command=st.sampled_from(["run", "sweep"]))
def test_odd_option_values_are_one_clean_line(pairs, command):
    argv = [command, "--no-progress", *[x for pair in pairs for x in pair]]
    if any("\0" in a for a in argv):
        return  # no shell passes a NUL in an argument
    assert_clean(*run_cli(argv))


def test_processes_beyond_a_thousand_are_refused_before_any_start():
    code, err = run_cli(["run", "--processes", "2^62"])
    assert code == 2 and "more than 1000 processes" in err
