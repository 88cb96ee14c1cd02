"""Lines for the run report where interleaving moved a rung: a mode whose
rounds differ by what ran just before them in their set, significantly
(graphbench.stats.interleaving) and by at least MATERIAL of its median.
A run where nothing moved gets no line, so a normal report carries no noise."""

from __future__ import annotations

from graphbench.stats.interleaving import MATERIAL, Effect, Interleaving, interleaving
from graphbench.record.model import RunRecord
from graphbench.report.tables import us


def interleaving_lines(record: RunRecord, analysis: Interleaving | None = None) -> list[str]:
    """One line per mode that interleaving moved, every process pooled, e.g.
    "interleaving: graph wall 6.24 us after individual, 5.98 after the
    probes (+4.3%, significant); others within 0.5%". `analysis`: the
    record's, if already made."""
    unit = (analysis or interleaving(record)).pooled
    if unit is None:
        return []
    moved = [e for e in unit.effects if e.moved]
    modes = list(dict.fromkeys(e.mode for e in moved))
    lines = [moved_line([e for e in moved if e.mode == mode]) for mode in modes]
    others = [e.spread for e in unit.effects if e.p_value is not None and e.mode not in modes]
    if lines and others:
        widest = max(others)
        lines[-1] += f"; others within {widest:.1%}" + (
            f", none significantly above {MATERIAL:.1%}" if widest >= MATERIAL else "")
    return lines


def moved_line(effects: list[Effect]) -> str:
    """The first metric's groups, slowest first, and the spread of their
    medians over the mode's median; any other metric that moved, its spread."""
    first = effects[0]
    groups = sorted(first.groups, key=lambda g: -g.median_us)
    medians = ", ".join(f"{us(g.median_us)}{' us' if i == 0 else ''} after {g.after}"
                        for i, g in enumerate(groups))
    also = "".join(f"; {e.metric} +{e.spread:.1%}" for e in effects[1:])
    return (f"interleaving: {first.mode} {first.metric} {medians} "
            f"(+{first.spread:.1%}, significant{also})")
