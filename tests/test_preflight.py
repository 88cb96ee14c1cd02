"""The preflight without a GPU: every problem a pipeline file, a kernel
source or the options can have is one line and exit 2 from run, sweep and
kernels alike, before the driver is asked (here, with no driver, a problem
that slipped through would end in "no NVIDIA driver" instead)."""

import textwrap

import pytest
from tests_helpers import short_error

from graphbench.cli import main

SOURCE = r'''
extern "C" __global__ void twice(const float* x, float* y, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = 2 * x[i];
}
extern "C" __global__ void twice_pdl(const float* x, float* y, size_t n) {}
'''

TEMPLATE = '''
import sys
from graphbench.pipeline.spec import Pipeline, Stage, buffer, count, scalar
PREAMBLE
def reference(inputs, n):
    return {"y": 2 * inputs["x"]}

def pipeline():
    BODY
    return Pipeline(name="twice", source=SOURCE, buffers=BUFFERS, stages=STAGES,
                    reference=REF, FIELDS)
'''
DEFAULTS = {"PREAMBLE": "", "REF": "reference", "BODY": "pass", "SOURCE": "SRC", "FIELDS": "",
            "BUFFERS": '[buffer("x", role="input"), buffer("y")]',
            "STAGES": '[Stage("twice", args=("x", "y", count("n")) STAGE)]', "STAGE": ""}


def pipeline_file(folder, **changes) -> str:
    text = TEMPLATE
    for key, value in {**DEFAULTS, **changes}.items():
        text = text.replace(key, value)
    path = folder / "mine.py"
    path.write_text(f"SRC = r'''{SOURCE}'''\n" + textwrap.dedent(text))
    return str(path)


def one_line(capsys) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    return short_error(captured.err)


def refused_everywhere(path, capsys, *extra) -> str:
    """run, sweep and kernels all refuse it, with the same line."""
    lines = []
    for argv in (["run", "--no-progress", *extra], ["sweep", "--no-progress", "--depth", "1",
                                                    "--elements", "4096", *extra], ["kernels"]):
        if argv[0] == "kernels" and extra:
            continue
        assert main([*argv, "--pipeline", path]) == 2
        lines.append(one_line(capsys))
    assert "no NVIDIA driver" not in lines[0] and len(set(lines)) == 1, lines
    return lines[0]


STAGE = ', STAGE'
CASES = [
    ({"BUFFERS": "None"}, "Pipeline buffers must be a list"),
    ({"STAGES": "None"}, "Pipeline stages must be a list"),
    ({"STAGES": '[Stage("twice", args=None)]'}, "stage 1 (twice): args must be a tuple"),
    ({"SOURCE": "123"}, "Pipeline source must be CUDA text"),
    ({"STAGE": ', shared_bytes="abc"'}, "shared_bytes must be a whole number"),
    ({"STAGE": ", shared_bytes=-1"}, "shared_bytes must be a whole number"),
    ({"STAGE": ", shared_bytes=10**12"}, "shared_bytes must be a whole number"),
    ({"STAGES": '[Stage("twice", args=("x", "y", scalar(10**100, "int32")))]'},
     "does not fit int32"),
    ({"STAGES": '[Stage("twice", args=("x", "y", count("n**64")))]'}, "argument 3 count"),
    ({"STAGES": '[Stage("twice", args=("x", "y", count("n", "int8")))]'}, "does not fit int8"),
    ({"STAGES": '[Stage("twice", args=("x", "y", count("n", "float32")))]'},
     "not an integer dtype"),
    ({"BUFFERS": '[buffer("x", "i4,,", role="input"), buffer("y")]'}, "dtype 'i4,,'"),
    ({"BUFFERS": '[buffer("x", size="n**64", role="input"), buffer("y")]'}, "buffer 'x'"),
    ({"BUFFERS": '[buffer("x", size="n**-1", role="input"), buffer("y")]'}, "exponent"),
    ({"BUFFERS": '[buffer("x", size="n*n*n*n", role="input"), buffer("y")]'}, "more than 1 TiB"),
    ({"BUFFERS": '[buffer("x", low=float("nan"), role="input"), buffer("y")]'}, "low must be"),
    ({"STAGE": ', grid="n**8"'}, "grid"),
    ({"STAGE": ", grid=(1, 70000)"}, "grid y is 70,000, more than 65,535"),
    ({"STAGE": ", block=2048"}, "block x is 2,048, more than 1,024"),
    ({"STAGE": ", block=(32, 64)"}, "block has 2,048 threads"),
    ({"STAGE": ", block=(1, 1, 128)"}, "block z is 128"),
    ({"STAGE": ", pdl_kernel=7"}, "pdl_kernel must be a kernel's name"),
    ({"STAGES": '[Stage(None)]'}, "kernel must be a kernel's name"),
    ({"FIELDS": "rtol=-1"}, "Pipeline rtol must be a number"),
    ({"FIELDS": "description=5"}, "Pipeline description must be a string"),
    ({"FIELDS": "params=[]"}, "Pipeline params must be a dict"),
    ({"REF": "None"}, "reference is not a function"),
    ({"FIELDS": "fused=5"}, "stage fused"),
    ({"STAGES": '[Stage("thrice", args=("x", "y", count("n")))]'},
     "stage 1 (thrice): kernel: its source defines no kernel named thrice"),
    ({"STAGES": '[Stage("twice", args=("x", "y"))]'}, "args gives 2 arguments"),
    ({"STAGE": ', pdl_kernel="absent_pdl"'}, "args gives 3"),  # placeholder, replaced below
    ({"PREAMBLE": "raise GeneratorExit"}, "raised GeneratorExit while loading"),
    ({"PREAMBLE": "sys.exit(0)"}, "raised SystemExit while loading"),
    ({"BODY": "sys.exit(0)"}, "pipeline() raised SystemExit"),
    ({"BODY": "raise BaseException('odd')"}, "pipeline() raised BaseException: odd"),
    ({"PREAMBLE": "pipeline = max", "BODY": "pass\n    pipeline = 1"}, "pipeline is"),
]
CASES[30] = ({"STAGE": ", grid=(2**31, 1)"}, "grid x is 2,147,483,648, more than 2,147,483,647")


@pytest.mark.parametrize("changes, message", CASES)
def test_every_bad_field_is_one_line_from_run_sweep_and_kernels(tmp_path, capsys, changes,
                                                                 message):
    if "PREAMBLE" in changes and "pipeline = max" in changes["PREAMBLE"]:
        path = tmp_path / "mine.py"
        path.write_text("pipeline = max\n")
        path = str(path)
    else:
        path = pipeline_file(tmp_path, **changes)
    line = refused_everywhere(path, capsys)
    assert message in line and "mine.py" in line


def test_a_good_file_passes_kernels_and_reaches_the_driver_in_run(tmp_path, capsys):
    path = pipeline_file(tmp_path, PREAMBLE="print('LOADED')")
    assert main(["kernels", "--pipeline", path]) == 0
    capsys.readouterr()
    assert main(["run", "--no-progress", "--pipeline", path]) == 2
    captured = capsys.readouterr()
    assert "no NVIDIA driver" in captured.err
    assert captured.out.count("LOADED") <= 1  # imported once per process, never twice


def test_the_file_is_imported_once_per_run(tmp_path, capsys):
    path = pipeline_file(tmp_path, PREAMBLE="print('IMPORTED')", BODY="print('CALLED')")
    main(["run", "--no-progress", "--pipeline", path, "--gate-sizes", "8192"])
    out = capsys.readouterr().out
    assert out.count("IMPORTED") == 1 and out.count("CALLED") == 1


def test_every_size_the_run_uses_is_checked(tmp_path, capsys):
    path = pipeline_file(tmp_path, BUFFERS='[buffer("x", size="n*n", role="input"), '
                         'buffer("y")]')  # 64 MiB at 4096, 4 TiB at 2^20
    assert main(["run", "--no-progress", "--pipeline", path, "--gate-sizes", "2^20"]) == 2
    assert "at n = 1,048,576, more than 1 TiB" in one_line(capsys)


def test_a_bom_is_valid_python(tmp_path, capsys):
    path = pipeline_file(tmp_path)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbf" + data)
    assert main(["kernels", "--pipeline", path]) == 0


@pytest.mark.parametrize("name, message", [
    ("", "names no file"), ("x" * 5000 + ".py", "longer than any file name"),
    ("d/" * 200 + "x" * 300 + ".py", "mine"), ("a\0b.py", "names no file")])
def test_paths_that_name_no_file_are_refused(tmp_path, capsys, name, message):
    if message == "mine":  # one component too long: the OS's ENAMETOOLONG, as one line
        name, message = "x" * 300 + ".py", "x" * 40
    assert main(["kernels", "--pipeline", name]) == 2
    assert message in one_line(capsys)


@pytest.mark.parametrize("argv, message", [
    (["--modes", "individual,fused", "--depth", "2"], "--modes fused cannot run"),
    (["--modes", "individual,fused", "--stages", "mul,add"], "defines no fused stage"),
    (["--modes", "individual,pdl", "--pipeline", "PDL-LESS"], "names no PDL-aware kernel"),
    (["--modes", "individual,fused", "--kernel-source", "NOFUSED"],
     "stage fused: kernel: --kernel-source"),
    (["--kernel-source", "BROKEN"], "NVRTC could not compile --kernel-source"),
    (["--ab", "missing.cu"], "cannot read --ab missing.cu"),
])
def test_rungs_and_sources_that_cannot_exist_are_refused_offline(tmp_path, capsys, argv,
                                                                 message):
    (tmp_path / "nofused.cu").write_text("".join(
        f'extern "C" __global__ void vec_{k}(const float* a, const float* b, float* o, '
        f'size_t n) {{}}\n' for k in ("add", "mul", "sub")))
    (tmp_path / "broken.cu").write_text("this is not C++")
    names = {"PDL-LESS": pipeline_file(tmp_path), "NOFUSED": str(tmp_path / "nofused.cu"),
             "BROKEN": str(tmp_path / "broken.cu"), "missing.cu": str(tmp_path / "missing.cu")}
    argv = [names.get(a, a) for a in argv]
    message = message.replace("missing.cu", names["missing.cu"])
    assert main(["run", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "no NVIDIA driver" not in err, err


def test_shared_memory_beyond_what_a_launch_without_opt_in_gets_is_refused(tmp_path, capsys):
    assert main(["kernels", "--pipeline",
                 pipeline_file(tmp_path, STAGE=", shared_bytes=48 * 1024")]) == 0
    capsys.readouterr()
    line = refused_everywhere(pipeline_file(tmp_path, STAGE=", shared_bytes=100 * 1024"), capsys)
    assert "from 0 to 49,152" in line and "opt-in" in line


def test_a_named_pdl_rung_needs_the_pdl_kernels_the_stages_name(tmp_path, capsys):
    path = pipeline_file(tmp_path, STAGE=', pdl_kernel="absent_pdl"')
    assert main(["run", "--no-progress", "--pipeline", path, "--modes", "individual,pdl"]) == 2
    assert "defines no PDL-aware kernel absent_pdl" in one_line(capsys)
    assert main(["run", "--no-progress", "--pipeline", path, "--modes", "all"]) == 2
    assert "no NVIDIA driver" in one_line(capsys)  # all leaves the rung out at run time
    path = pipeline_file(tmp_path, STAGE=', pdl_kernel="twice_pdl"')
    assert main(["run", "--no-progress", "--pipeline", path, "--modes", "individual,pdl"]) == 2
    assert "no NVIDIA driver" in one_line(capsys)
