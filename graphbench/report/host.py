"""The run report's host lines: the host CPU's speed while it ran, read by a
probe that launches nothing (what a stored comparison matches host states
by: graphbench.gate.host_match), and how the sampling chose its CPUs.
Every figure is stated as measured: no model moves it to another host speed."""

from __future__ import annotations

from graphbench.stats.summary import RunSummary
from graphbench.record.model import RunRecord


def host_lines(summary: RunSummary) -> list[str]:
    if summary.cpu_probe_us is None:
        return []
    return [f"host: CPU probe {summary.cpu_probe_us:.0f} us (a fixed Python loop: this host's "
            "speed while it ran; the figures stand at it)"]


def seek_line(record: RunRecord) -> str:
    """How the sampling chose its CPUs (graphbench.measure.cpu_seek); "" for
    a record that did not seek (made with --no-pin, or before seeking)."""
    runs = [run.environment for run in record.runs if run.environment.cpu_moves is not None]
    if not runs:
        return ""
    moves = sum(env.cpu_moves for env in runs)
    avoided = sorted({cpu for env in runs for cpu in env.interrupt_cpus})
    line = f"cpu: each set of rounds started on a CPU in the host's fast state ({moves} moves"
    if avoided:
        cpus = ", ".join(map(str, avoided))
        line += (f"; never CPU {cpus}, which serves" if len(avoided) == 1 else
                 f"; never CPUs {cpus}, which serve") + " the GPU's interrupts"
    return line + ")"

