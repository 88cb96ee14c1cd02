"""What measurement and statistics agree on about sampling: the order of the
modes in each set of rounds, and the stop rule's interface.

graphbench.measure.timing runs the rounds in this order and asks a stop
rule when to end; graphbench.gate.stopping holds the rules, and
graphbench.stats.interleaving reads the order back from a record.
"""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence

from graphbench.ladder import BASE_SUFFIX


class StopRule(Protocol):
    """When sampling ends (graphbench.gate.stopping has the rules; the
    runner hands one in): a reason to stop, or None to go on."""

    def reason_to_stop(self, rounds_done: int, elapsed_s: float,
                       walls: Mapping[str, Sequence[float]]) -> str | None: ...


def round_order(names: list[str], round_index: int) -> list[str]:
    """Rotate the modes' order each round, so every mode takes every slot
    (first after the probes between rounds included) and drift hits all alike.

    An A/B run's modes come in pairs (graph, graph@base): the pairs rotate,
    and within each pair the candidate runs first in even rounds and the base
    first in odd ones, so neither build always follows the other (a plain
    rotation of six modes put the candidate first in 5 of 6 rounds)."""
    units = _pairs(names)
    shift = round_index % len(units) if units else 0
    units = units[shift:] + units[:shift]
    flip = round_index % 2 == 1
    return [name for unit in units for name in (reversed(unit) if flip else unit)]


def _pairs(names: list[str]) -> list[tuple[str, ...]]:
    """Each mode with its A/B base build (MODE@base) right after it, if any."""
    units: list[tuple[str, ...]] = []
    taken: set[str] = set()
    for name in names:
        if name in taken:
            continue
        partner = name + BASE_SUFFIX if name + BASE_SUFFIX in names else None
        units.append((name, partner) if partner else (name,))
        taken.update(units[-1])
    return units
