"""The lines of a run's report about what a graph costs to build and hold:
the executable graph's device memory, and capture and instantiate cost per
node, fitted (graphbench.stats.node_costs)."""

from __future__ import annotations

from graphbench.stats.node_costs import NodeCostFit
from graphbench.report.tables import byte_size


def memory_text(memory_bytes: float | None) -> str:
    """'; holds 2.0 MiB of device memory', or nothing where not measured."""
    if memory_bytes is None:
        return ""
    if memory_bytes <= 0:  # the driver took it from memory it had already reserved
        return "; takes no device memory a free-memory read sees"
    return f"; takes {byte_size(int(memory_bytes))} of device memory"


def node_cost_line(fit: NodeCostFit | None) -> str:
    """'graph capture 4.1 us + 1.20 us/node, instantiate ...', with the fit's range and residual."""
    if fit is None:
        return ""
    low, high = fit.nodes
    parts = [f"{name} {line.fixed_us:,.1f} us + {line.per_node_us:,.2f} us/node "
             f"(rms {line.residual_us:,.1f} us)"
             for name, line in (("capture", fit.capture), ("instantiate", fit.instantiate))]
    memory = "" if fit.memory_per_node_bytes is None else \
        f", {fit.memory_per_node_bytes / 1024:,.1f} KiB of device memory per node"
    return f"graph per node, fitted over {low}..{high} nodes: {', '.join(parts)}{memory}\n"
