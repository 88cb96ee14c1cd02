"""The battery a replay check runs: the perturbations made between replays,
in what order and how often. What the callable takes decides it; nothing
here touches a GPU.

Every case replays the captured graph once after its perturbation and runs
the callable eagerly on the same inputs, and the two are compared:
- fresh: every input refilled with new random values in place (a graph
  that read its inputs at capture, or staged them through memory it does
  not re-read, returns the captured run's result);
- poison-inputs: inputs filled with poison (NaN, or a sentinel for
  integers) in place: a replay that reads a stale copy shows no NaN where
  eager does;
- poison-outputs: inputs refilled with new values, outputs poisoned before
  the replay (as in every case but fresh): an output the replay does not
  write keeps the poison (a result written to a tensor allocated during
  capture);
- same-inputs: two replays and two eager runs on unchanged inputs: random
  numbers that repeat on every replay read the same twice where eager's
  differ;
- scalars: the host scalars the callable takes set to new values (a scalar
  baked into the graph at capture; a launch shape from a size seen then);
Each case is repeated (REPEATS), the repeats interleaved, so a race (work on
a side stream never joined) that shows only now and then is caught.
"""

from __future__ import annotations

from dataclasses import dataclass

FRESH, POISON_INPUTS, POISON_OUTPUTS = "fresh", "poison-inputs", "poison-outputs"
SAME_INPUTS, SCALARS = "same-inputs", "scalars"
PERTURBATIONS = (FRESH, POISON_INPUTS, POISON_OUTPUTS, SAME_INPUTS, SCALARS)
DATA_CASES = (FRESH, POISON_INPUTS, POISON_OUTPUTS)  # new data, same scalars
# Each case this many times: a race that shows in one replay of three is
# caught in one of REPEATS rounds with probability 1 - (2/3)^REPEATS
REPEATS = 5
MAX_REPEATS = 100


@dataclass(frozen=True)
class Takes:
    """What a callable takes and gives: its arrays by name, and the host
    scalars among its arguments (those that are sizes: element counts a
    launch shape may follow)."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    scalars: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    index: int
    perturbation: str
    repeat: int


def perturbations(takes: Takes) -> tuple[str, ...]:
    """The perturbations that apply to what the callable takes."""
    return tuple(p for p in PERTURBATIONS
                 if p != SCALARS or takes.scalars)


def plan(takes: Takes, repeats: int = REPEATS) -> tuple[Case, ...]:
    """The cases in the order they run: each round of repeats runs every
    perturbation once."""
    if not takes.outputs:
        raise ValueError("a replay check needs an output to compare")
    if not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats must be 1 to {MAX_REPEATS}, got {repeats}")
    if not set(takes.sizes) <= set(takes.scalars):
        raise ValueError("a size must be one of the scalars")
    kinds = perturbations(takes)
    return tuple(Case(r * len(kinds) + i, kind, r)
                 for r in range(repeats) for i, kind in enumerate(kinds))
