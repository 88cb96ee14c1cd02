"""GPU tests of graph memory and capture cost per node."""

import pytest

from graphbench.stats.summary import summarize_run
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def record():
    return run_benchmark(RunConfig(elements=2**20, iters=20, rounds=10,
                                   modes=("individual", "graph")))


def test_graph_memory_is_read_over_copies_and_reported(record):
    """One executable moves free memory by 0 or a 2 MiB chunk; copies of the
    capture are made until free memory falls (H200: 68-114 KiB each for the
    built-in rungs at 4096). In one run at 2^20 on the H200 1024 copies moved
    it by nothing (the driver served them from memory it held): the record
    keeps that 0 and the report says so, never a made-up figure."""
    from graphbench.report.run import run_report
    from graphbench.report.tables import to_text

    memory = record.runs[0].lifecycles["graph"].graph_memory_bytes
    text = " ".join(to_text(run_report(record), width=120).split())  # as one line: it wraps
    lines = [text[text.find("graph build"):][:200]]
    assert len(memory) <= 1 and all(0 <= m < 2 << 20 for m in memory), (memory, lines)
    assert record.runs[0].node_costs.graph_memory_bytes == ()
    if memory:  # not measured (the driver released memory meanwhile): the report says nothing
        assert ("no device memory a free-memory read sees" if memory[0] == 0
                else "of device memory") in text, (memory, lines)


def test_capture_and_instantiate_cost_grow_per_node(record):
    fit = summarize_run(record).node_costs
    assert fit.nodes == (3, 48)
    assert fit.capture.per_node_us > 0 and fit.instantiate.per_node_us > 0, fit
