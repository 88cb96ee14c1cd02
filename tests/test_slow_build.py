"""benchmarks/slow_build.py: the gate checks' slow builds compile and keep
the pipeline's kernels; the host-delay pipeline file is a valid pipeline."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from slow_build import slow_source  # noqa: E402


@pytest.mark.parametrize("extra", [8, 16, 40])
def test_a_slow_build_compiles_for_sm_90_with_every_kernel_of_the_pipeline(extra):
    from graphbench.measure.kernels import compile_report, expand_includes

    source = slow_source(extra)
    assert f"(i & 63) < {extra} ? y[j]" in source
    names = {k.name for k in compile_report("sm_90", expand_includes(source),
                                            ("vec_add", "vec_mul", "vec_sub", "fused"))}
    assert {"vec_add", "vec_mul", "vec_sub", "fused"} <= names


def test_slow_build_refuses_counts_outside_a_64_element_block_and_a_changed_source():
    with pytest.raises(ValueError, match="from 1 to 64"):
        slow_source(0)
    with pytest.raises(ValueError, match="no longer has the line"):
        slow_source(8, source="extern \"C\" __global__ void vec_add() {}")


def test_the_host_delay_chain_is_a_pipeline_file_graphbench_accepts():
    pytest.importorskip("cupy")
    from graphbench.pipeline.files import load_pipeline

    loaded = load_pipeline(str(ROOT / "benchmarks" / "host_delay_chain.py"))
    assert loaded.spec.name == "host_delay_chain" and loaded.spec.framework == "cupy"
    assert [stage.__name__ for stage in loaded.spec.stages] == ["add", "multiply", "subtract"]
