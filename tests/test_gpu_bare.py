"""graphbench.bench on a GPU: a bare torch function (a bf16 projection and
GELU, as in a decode step) measured on its example inputs, captured into a
graph and checked against its own eager results."""

import pytest

import graphbench

pytestmark = pytest.mark.gpu


def project(x, w):
    torch = pytest.importorskip("torch")
    return torch.nn.functional.gelu(x @ w)


def test_a_bare_torch_function_is_laddered_and_checked_against_itself():
    torch = pytest.importorskip("torch")
    x = torch.randn(8, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16) / 64
    record = graphbench.bench(project, x, w, rounds=20)
    assert record.verified, [c for c in record.checks if not c.passed]
    assert record.pipeline.framework == "torch" and record.pipeline.name == "project"
    assert "its own eager results" in record.pipeline.description
    assert set(record.mode_names) == {"individual", "graph"}
    assert graphbench.summarize(record).modes["graph"].wall.median > 0
