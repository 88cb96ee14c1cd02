"""The records of what a graph costs to build and to hold: its lifecycle's
phases and the device memory the executable graph takes, and the capture
and instantiate times at several node counts that the per-node fit
(graphbench.stats.node_costs) is derived from. Raw samples only."""

from __future__ import annotations

from dataclasses import dataclass

LIFECYCLE_TIMES = ("capture_us", "instantiate_us", "upload_us", "first_launch_us")


@dataclass(frozen=True)
class LifecycleSamples:
    """A graph's one-off costs, one value per repetition.

    graph_memory_bytes: free device memory before capture minus free memory
    after instantiate and upload (cuMemGetInfo, the device synchronised
    first), one value per repetition; empty where it was not measured
    (records before it, callable pipelines). A delta, not an allocation the
    driver reports: it moves in the driver's allocation granularity, and
    another process allocating at the same time shows in it."""

    capture_us: tuple[float, ...]
    instantiate_us: tuple[float, ...]
    upload_us: tuple[float, ...]
    first_launch_us: tuple[float, ...]
    graph_memory_bytes: tuple[int, ...] = ()


@dataclass(frozen=True)
class NodeCostSamples:
    """The graph rung's capture and instantiate times, captured anew with
    `iterations` repeats of its iteration so it holds `nodes` kernel nodes:
    one entry per capture, the series parallel. Capture and instantiate cost
    per node, the figure vLLM and SGLang log when they capture graphs, is
    their least-squares slope against nodes."""

    nodes: tuple[int, ...]
    capture_us: tuple[float, ...]
    instantiate_us: tuple[float, ...]
    graph_memory_bytes: tuple[int, ...] = ()


def check_node_costs(costs: NodeCostSamples | None, where: str, max_us: float) -> None:
    """What the types cannot say: one node count, capture and instantiate
    time (and memory delta, if any) per capture; positive counts and times."""
    from graphbench.errors import RecordError

    if costs is None:
        return
    lengths = {len(costs.nodes), len(costs.capture_us), len(costs.instantiate_us)}
    if len(lengths) != 1 or costs.graph_memory_bytes and \
            len(costs.graph_memory_bytes) != len(costs.nodes):
        raise RecordError(f"{where}.node_costs: series of different lengths")
    if any(n <= 0 for n in costs.nodes):
        raise RecordError(f"{where}.node_costs.nodes: a graph of no nodes")
    if any(not 0 < v <= max_us for v in costs.capture_us + costs.instantiate_us):
        raise RecordError(f"{where}.node_costs: a time that is not positive, or beyond "
                          f"{max_us:.0e} us")
