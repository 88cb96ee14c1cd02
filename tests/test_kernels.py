"""Covers graphbench/measure/cubin.py.
Covers graphbench/report/kernels.py."""

import pytest
from tests_helpers import short_error

from graphbench.cli import main
from graphbench.errors import CompileError
from graphbench.measure.kernels import (HARNESS_KERNELS, compile_cubin, compile_report,
                                        load_source, parse_ptxas_log)
from graphbench.pipeline.files import load_pipeline

BUILT_IN = load_pipeline(None).spec
STAGES = tuple(s.kernel for s in BUILT_IN.stages) + (BUILT_IN.fused.kernel,)
KERNEL_NAMES = STAGES + tuple(s.pdl_kernel for s in BUILT_IN.stages) + HARNESS_KERNELS


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100"])
def test_every_kernel_compiles_offline_without_spills(arch):
    resources = {k.name: k for k in compile_report(arch, load_source(), STAGES)}
    assert set(resources) == set(KERNEL_NAMES)
    for kernel in resources.values():
        assert 0 < kernel.registers <= 64
        assert kernel.spill_stores == kernel.spill_loads == 0


def test_kernels_command_prints_every_kernel(capsys):
    assert main(["kernels", "--arch", "sm_90"]) == 0
    out = capsys.readouterr().out
    for name in KERNEL_NAMES:
        assert name in out
    assert "registers" in out


def test_broken_source_raises_compile_error_with_the_log():
    with pytest.raises(CompileError) as info:
        compile_report("sm_90", load_source() + "\nthis is not cuda;\n", STAGES)
    assert "error" in info.value.log


def test_kernels_command_exits_2_on_bad_arch(capsys):
    assert main(["kernels", "--arch", "sm_9x"]) == 2
    assert "--arch must look like sm_90" in capsys.readouterr().err


@pytest.mark.parametrize("arch", ["sm_10", "sm_999", "sm_91"])
def test_an_arch_nvrtc_does_not_know_is_one_line_before_any_log(arch, capsys):
    assert main(["kernels", "--arch", arch]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and arch in err and "this NVRTC compiles for" in err


def test_cache_returns_the_same_cubin(tmp_path):
    first = compile_cubin(load_source(), "sm_90", cache_dir=tmp_path)
    assert any(tmp_path.rglob("*")), "the compile cache wrote nothing"
    second = compile_cubin(load_source(), "sm_90", cache_dir=tmp_path)
    assert bytes(first.code) == bytes(second.code)


def test_parse_ptxas_log():
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
           "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
           "ptxas info    : Used 40 registers, used 0 barriers\n")
    (k,) = parse_ptxas_log(log)
    assert (k.name, k.registers, k.spill_stores, k.spill_loads, k.stack_bytes) == ("k", 40, 4, 4, 8)


def test_kernels_command_checks_a_kernel_source_variant(capsys, slow_build):
    slow = slow_build(work=32)
    assert main(["kernels", "--kernel-source", str(slow)]) == 0
    assert "vec_add" in capsys.readouterr().out


def test_missing_kernel_source_exits_2_before_touching_the_gpu(capsys, tmp_path):
    assert main(["run", "--kernel-source", str(tmp_path / "nope.cu")]) == 2
    assert "cannot read --kernel-source" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (b"", "is empty; give a CUDA C++ source file with the kernels"),
    (b'extern "C" __global__ void vec_add(const float* x, const float* y, float* o, size_t n) {}',
     "stage 2 (vec_mul): kernel: --kernel-source"),
    (b"\xff\xfe\x00garbage", "is not a UTF-8 text file"),
])
def test_kernels_checks_a_variant_exactly_as_run_does(tmp_path, capsys, content, message):
    variant = tmp_path / "variant.cu"
    variant.write_bytes(content)
    assert main(["kernels", "--kernel-source", str(variant)]) == 2
    err = capsys.readouterr().err
    assert message in short_error(err)


def test_a_sub_commands_mistake_points_at_its_own_help(capsys):
    assert main(["kernels", "--bogus"]) == 2
    assert "see graphbench kernels --help" in capsys.readouterr().err


def test_the_cubin_names_its_kernels_and_their_parameter_counts():
    from graphbench.measure.cubin import entry_kernels

    source = r'''
    __device__ __noinline__ float helper(float x) { return 2 * x; }
    extern "C" __global__ void two(float* a, int n) { if (threadIdx.x < n) a[0] = helper(a[1]); }
    extern "C" __global__ void none() {}
    extern "C" __global__ void five(float* a, float* b, char c, double d, size_t n) { a[0] = c; }
    '''
    kernels = entry_kernels(compile_cubin(source, "sm_90").code)
    assert kernels == {"two": 2, "none": 0, "five": 5}  # the device function is no kernel
    assert entry_kernels(b"not an ELF file") is None


@pytest.mark.parametrize("arch", ["sm_９0", "sm_٩0", "sm_90x"])
def test_an_arch_in_other_digits_is_one_line_before_nvrtc(arch, capsys):
    from graphbench.cli import main

    assert main(["kernels", "--arch", arch]) == 2
    err = capsys.readouterr().err
    assert "--arch must look like sm_90" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("source, message", [
    ("/dev/zero", "is larger than 16 MiB"), ("/dev/null", "is empty"), ("/", "Is a directory")])
def test_a_kernel_source_that_is_no_source_file_is_one_line(source, message, capsys):
    assert main(["kernels", "--kernel-source", source]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_compile_log_writes_control_characters_as_escapes(tmp_path, capsys):
    source = tmp_path / "ctrl.cu"
    source.write_text('extern "C" __global__ void vec_add() { \x1b[2J }\n')
    assert main(["kernels", "--kernel-source", str(source)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J" in err


def test_an_unusable_compile_cache_is_one_line(monkeypatch, capsys):
    monkeypatch.setenv("GRAPHBENCH_CACHE_DIR", "/proc/no/such/folder")
    assert main(["kernels"]) == 2
    err = capsys.readouterr().err
    assert "cannot use the compile cache /proc/no/such/folder" in err
    assert len(err.strip().splitlines()) == 1
