"""The run report's host line: the host's speed states during the run, and
the host-bound figures at the reference host speed where the run can state
them (graphbench.analyze.summary.host_summary), or why it cannot."""

from __future__ import annotations

from graphbench.analyze.summary import RunSummary
from graphbench.ladder import BASELINE
from graphbench.record.model import RunRecord


def host_lines(summary: RunSummary) -> list[str]:
    host = summary.host
    if host is None:
        return []
    states = host.states
    if states.count == 1:
        seen = f"host: one speed state (probe about {states.medians[0]:.0f} us)"
        if not host.at_reference:
            return [f"{seen}; the figures stand at this host's speed"]
    else:
        seen = (f"host: two speed states, probe about {states.medians[0]:.0f} us "
                f"({states.counts[0]} readings) and {states.medians[1]:.0f} us "
                f"({states.counts[1]})")
    individual = host.walls.get(BASELINE)
    if individual and len(individual) == 2:
        seen += f"; individual wall {individual[0]:.2f} and {individual[1]:.2f} us in them"
    if not host.at_reference:
        return [seen, f"  no figure at the reference host speed: {host.why_not}"]
    shown = ", ".join(f"{name} {us:.2f}" for name, us in host.at_reference.items())
    line = (f"  at the reference host speed (probe {host.reference_us:.0f} us): wall {shown} us")
    speedup = host.speedup_at_reference()
    if speedup:
        line += f"; graph speedup {speedup:.2f}x"
    if host.cpu_bound is not None:
        line += (f" ({', '.join(host.cpu_bound) or 'no mode'} CPU-bound: over the launch "
                 "probe; the others as measured)")
    fit = host.fits.get(BASELINE)
    if fit and fit.significant:
        line += (f" (individual: {fit.slope * 1e3:.1f} us per ms of probe, r {fit.correlation:.2f},"
                 f" {fit.rounds} rounds)")
    return [seen, line]


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

