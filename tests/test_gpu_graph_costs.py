"""GPU tests of graph memory and capture cost per node (issue 22, item 3)."""

import pytest

from graphbench.analyze.summary import summarize_run
from graphbench.config import RunConfig
from graphbench.measure.benchmark import run_benchmark

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def record():
    return run_benchmark(RunConfig(elements=2**20, iters=20, rounds=10,
                                   modes=("individual", "graph")))


def test_the_executable_graph_takes_device_memory(record):
    memory = record.runs[0].lifecycles["graph"].graph_memory_bytes
    assert len(memory) == 10 and min(memory) > 0, memory


def test_graph_memory_grows_with_nodes(record):
    costs = record.runs[0].node_costs
    by_nodes = {}
    for nodes, memory in zip(costs.nodes, costs.graph_memory_bytes):
        by_nodes.setdefault(nodes, []).append(memory)
    fewest, most = min(by_nodes), max(by_nodes)
    assert max(by_nodes[most]) > max(by_nodes[fewest]), by_nodes


def test_capture_and_instantiate_cost_grow_per_node(record):
    fit = summarize_run(record).node_costs
    assert fit.nodes == (3, 48)
    assert fit.capture.per_node_us > 0 and fit.instantiate.per_node_us > 0, fit
