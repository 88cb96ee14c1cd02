"""Capture and instantiate cost per node: a least-squares line through the
graph rung's captures at several node counts (graphbench.record.graph_costs).

The slope is the figure vLLM and SGLang log when they capture graphs (us per
node); the intercept is what any capture costs, however small the graph.
Derived on load, never stored."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphbench.record.model import NodeCostSamples


@dataclass(frozen=True)
class LineFit:
    per_node_us: float     # slope b of us = a + b * nodes
    fixed_us: float        # intercept a
    residual_us: float     # root-mean-square distance of the samples from the line
    samples: int


@dataclass(frozen=True)
class NodeCostFit:
    capture: LineFit
    instantiate: LineFit
    nodes: tuple[int, int]                  # the fewest and most nodes fitted over
    memory_per_node_bytes: float | None     # slope of the memory deltas, where measured


def fit_line(nodes, values) -> LineFit:
    x, y = np.asarray(nodes, dtype=float), np.asarray(values, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(np.sqrt(np.mean((y - (intercept + slope * x)) ** 2)))
    return LineFit(float(slope), float(intercept), residual, len(y))


def fit_node_costs(samples: NodeCostSamples | None) -> NodeCostFit | None:
    """The fit, or None without samples at two node counts or more (a line
    through one count says nothing about the slope)."""
    if samples is None or len(set(samples.nodes)) < 2:
        return None
    memory = fit_line(samples.nodes, samples.graph_memory_bytes).per_node_us \
        if samples.graph_memory_bytes else None
    return NodeCostFit(fit_line(samples.nodes, samples.capture_us),
                       fit_line(samples.nodes, samples.instantiate_us),
                       (min(samples.nodes), max(samples.nodes)), memory)
