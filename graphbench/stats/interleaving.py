"""How much interleaving moved a rung: each mode's rounds grouped by the mode
that ran just before it in its set of rounds, and whether that matters.

Each set of rounds times every mode once, in the order
graphbench.sampling.round_order gives the set's index, so the mode
names recover every round's order. A mode first in its set followed the
probes read between sets (the warm-up, in the first set): a group of its own.

round_order rotates the modes, and a rotation keeps their cyclic order: a
mode follows the same mode in every set except where it runs first, so
outside A/B records its groups are "after its cyclic predecessor" and "after
the probes" (A/B flips each pair every other set: a third predecessor). The
cost of sharing a set at all, against a bare loop, is in no group.

The test holds for rounds correlated in time. The groups repeat with the
rotation's cycle (P sets), so each run of P sets holds every group equally
often. The statistic is Kruskal-Wallis-like on aligned ranks (each value
over its cycle's median, ranked, centred per cycle); its null distribution
shuffles the labels within each cycle only. Aligning removes drift between
cycles; positive lag-1 correlation makes the test conservative (AR(1) at
0.5: 2.5-3.5% false alarms at 5%, tests/test_interleaving.py), negative
liberal (about 10% at -0.3); a steady trend shifts a group by its offset
within the cycle. Pure: no GPU, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from graphbench.stats.stats import (block_counts, block_medians, chi2_sf, dense_codes, dot, holm,
                                    mean_ranks, median)
from graphbench.record.columns import round_array
from graphbench.record.model import ProcessRun, RunRecord
from graphbench.sampling import round_order

FIRST = "the probes"     # the group of rounds that ran first in their set
METRICS = ("wall", "device")
MIN_ROUNDS = 12          # below this a cycle or two of groups says nothing
MIN_GROUP_ROUNDS = 3     # a group's median of fewer rounds is one round's noise
LEVEL = 0.05             # family-wise, over a unit's tests (Holm)
MATERIAL = 0.005         # a significant spread below this is not worth a line
PERMUTATIONS = 2000      # the smallest p-value they can give is 1/2001
EXACT_ROUNDS = 100       # beyond, chi-square: its false alarms match the level from 60 rounds
_CHUNK = 250             # permutations generated at once (memory: rounds x _CHUNK)

Order = Callable[[list, int], list]


@dataclass(frozen=True)
class Group:
    after: str          # the mode that ran just before in the same set, or FIRST
    rounds: int
    median_us: float
    relative: float     # median_us over the mode's overall median, less 1


@dataclass(frozen=True)
class Effect:
    """One metric of one mode: its rounds by predecessor, and the test."""

    mode: str
    metric: str
    rounds: int
    median_us: float
    groups: tuple[Group, ...]
    spread: float               # (highest - lowest group median) / median_us; nan untested
    p_value: float | None       # None: untested, `reason` says why
    significant: bool = False   # after Holm over every test of its unit
    reason: str = ""

    @property
    def moved(self) -> bool:
        return self.significant and self.spread >= MATERIAL


@dataclass(frozen=True)
class Unit:
    process: int | None     # the index in record.runs; None: every process pooled
    rounds: int
    effects: tuple[Effect, ...]
    reason: str = ""    # why nothing was tested


@dataclass(frozen=True)
class Interleaving:
    processes: tuple[Unit, ...]
    pooled: Unit | None
    reason: str = ""    # why the record cannot be analysed at all

    @property
    def moved(self) -> tuple[Effect, ...]:
        return tuple(e for e in self.pooled.effects if e.moved) if self.pooled else ()


@dataclass(frozen=True)
class _Rounds:
    after: dict          # by mode: what ran before each round
    values: dict         # by (mode, metric): each round's value
    cycles: np.ndarray   # each round's cycle, nondecreasing


def _period(names: Sequence[str], rounds: int, order: Order | None) -> dict[str, list[str]]:
    """For every mode, what ran just before each of its rounds in its set,
    over the rounds after which that repeats (all of them for an order other
    than the default: one cycle of it is worked out, not 200,000 rounds)."""
    order = order or round_order
    period = min(rounds, cycle_length(names, order)) if order is round_order else rounds
    after: dict[str, list[str]] = {name: [] for name in names}
    for index in range(period):
        ran = order(list(names), index)
        for slot, name in enumerate(ran):
            after[name].append(ran[slot - 1] if slot else FIRST)
    return after


def label_codes(names: Sequence[str]) -> dict[str, int]:
    """Each predecessor label's number: its place among the labels sorted (np.unique's)."""
    return {label: i for i, label in enumerate(sorted({FIRST, *names}))}


def _predecessor_codes(names: Sequence[str], rounds: int, order: Order) -> dict[str, np.ndarray]:
    """What ran just before each round (_period, repeated to `rounds`) as
    label_codes numbers, an array per mode."""
    codes = label_codes(names)
    return {name: np.resize(np.array([codes[label] for label in labels], dtype=int), rounds)
            for name, labels in _period(names, rounds, order).items()}


def cycle_length(names: Sequence[str], order: Order | None = None) -> int:
    """The sets after which the order repeats: round_order depends on the
    set's index through its remainders by the units' count and by 2."""
    order, span = order or round_order, 2 * max(len(names), 1)
    orders = [order(list(names), i) for i in range(2 * span)]
    return next((p for p in range(1, span + 1)
                 if all(orders[i] == orders[i + p] for i in range(span))), span)


def _centred_ranks(values: np.ndarray, cycles: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each value over its cycle's median (cycles begin at `starts`), ranked
    over all rounds (ties share their mean rank), less its cycle's mean rank."""
    sizes = np.diff(np.append(starts, len(values)))
    medians = block_medians(values, cycles, starts, sizes)
    aligned = values / np.repeat(np.where(medians > 0, medians, 1.0), sizes) - 1
    ranks = mean_ranks(aligned)
    return ranks - np.repeat(np.add.reduceat(ranks, starts) / sizes, sizes)


def _null_covariance(centred: np.ndarray, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Covariance of the groups' rank sums (`codes`: each round's group) when
    labels are shuffled within cycles: per cycle, sampling without replacement."""
    sizes = np.diff(np.append(starts, len(centred)))
    counts = block_counts(codes, sizes)
    scale = np.add.reduceat(centred ** 2, starts) / np.maximum(sizes - 1, 1)
    return np.diag(dot(scale, counts)) - dot((counts * (scale / sizes)[:, None]).T, counts)


def _inverse(covariance: np.ndarray) -> tuple[np.ndarray, int]:
    """The pseudo-inverse and rank: the groups' sums add up to zero, and
    inverting that direction's rounding error would swamp the statistic."""
    values, vectors = np.linalg.eigh(covariance)
    kept = values > 1e-9 * max(float(values.max()), 1e-300)
    return (vectors[:, kept] / values[kept]) @ vectors[:, kept].T, int(kept.sum())


def predecessor_p_value(values: Sequence[float], labels: Sequence[str], cycles: Sequence[int],
                        permutations: int = PERMUTATIONS, seed: int = 0) -> float:
    """p-value of "the groups `labels` name differ", shuffling labels only
    within each cycle (`cycles`: nondecreasing, one number per round)."""
    data, cycle_ids = np.asarray(values, dtype=float), np.asarray(cycles)
    codes = dense_codes(np.asarray(labels))
    onehot = np.eye(codes.max() + 1)[codes]
    starts = np.concatenate(([0], np.flatnonzero(np.diff(cycle_ids)) + 1))
    centred = _centred_ranks(data, cycle_ids, starts)
    inverse, df = _inverse(_null_covariance(centred, codes, starts))
    sums = dot(centred, onehot)
    observed = float(sums @ inverse @ sums)
    if observed <= 1e-9:
        return 1.0
    if data.size > EXACT_ROUNDS:  # dozens of cycles: the statistic is chi-square
        return chi2_sf(observed, df)
    rng, beyond = np.random.default_rng(seed), 0
    for done in range(0, permutations, _CHUNK):
        count = min(_CHUNK, permutations - done)
        shuffled = np.argsort(rng.random((count, data.size)) + cycle_ids, axis=1)
        sums = centred[shuffled] @ onehot
        null = np.einsum("ij,jk,ik->i", sums, inverse, sums)
        beyond += int(np.count_nonzero(null >= observed * (1 - 1e-9)))
    return (1 + beyond) / (1 + permutations)


def _groups(values: np.ndarray, after: np.ndarray, names: Sequence[str]) -> tuple[Group, ...]:
    codes = label_codes(names)
    middle = median(values)
    parts = [(g, values[after == codes[g]]) for g in (FIRST, *names)]
    medians = [(g, part.size, float(np.median(part))) for g, part in parts if part.size]
    return tuple(Group(g, size, m, float(m / middle - 1)) for g, size, m in medians)


def _effect(mode: str, metric: str, rounds: _Rounds, names: Sequence[str],
            permutations: int) -> Effect:
    values, after = rounds.values[(mode, metric)], rounds.after[mode]
    effect = Effect(mode, metric, int(values.size), median(values), (), math.nan, None)
    if effect.median_us == 0:  # a figure no round registered has no relative spread
        return replace(effect, reason=f"every round read 0 {metric}")
    effect = replace(effect, groups=(groups := _groups(values, after, names)))
    if len(groups) < 2:
        return replace(effect, reason=f"every round ran after {groups[0].after}")
    small = min(groups, key=lambda g: g.rounds)
    if small.rounds < MIN_GROUP_ROUNDS:
        return replace(effect, reason=f"too few rounds to tell: {small.rounds} after {small.after}")
    medians = [g.median_us for g in groups]
    spread = (max(medians) - min(medians)) / effect.median_us
    p_value = predecessor_p_value(values, after, rounds.cycles, permutations)
    return replace(effect, spread=spread, p_value=p_value)


def _unit(process: int | None, rounds: _Rounds | str, names: Sequence[str],
          metrics: Sequence[str], permutations: int) -> Unit:
    if isinstance(rounds, str):  # why this process's rounds cannot be aligned
        return Unit(process, 0, (), rounds)
    count = len(rounds.cycles)
    if count < MIN_ROUNDS:
        return Unit(process, count, (), f"too few rounds to tell: {count}, "
                                        f"fewer than {MIN_ROUNDS}")
    effects = [_effect(mode, metric, rounds, names, permutations)
               for metric in metrics for mode in names]
    tested = [i for i, e in enumerate(effects) if e.p_value is not None]
    for i, flag in zip(tested, holm([effects[i].p_value for i in tested], LEVEL)):
        effects[i] = replace(effects[i], significant=flag)
    return Unit(process, count, tuple(effects))


def _process_rounds(run: ProcessRun, names: Sequence[str], metrics: Sequence[str],
                    order: Order, first_cycle: int) -> _Rounds | str:
    if not run.rounds:
        return "no timed rounds"
    values = {(m, metric): round_array(run.modes[m], metric) for m in names for metric in metrics}
    if any(v.size != run.rounds for v in values.values()):
        return "its modes' rounds differ in number from its sets of rounds"
    after = _predecessor_codes(names, run.rounds, order)
    cycles = first_cycle + np.arange(run.rounds) // cycle_length(names, order)
    return _Rounds(after, values, cycles)


def _pooled(parts: list[_Rounds]) -> _Rounds:
    joined = [{k: np.concatenate([getattr(p, f)[k] for p in parts]) for k in getattr(parts[0], f)}
              for f in ("after", "values")]
    return _Rounds(*joined, np.concatenate([p.cycles for p in parts]))


def unanalysable(record: RunRecord) -> str:
    """Why the record's rounds cannot be grouped by predecessor; "" when they can."""
    if record.legacy_processes is not None:
        return ("a version-1 merged record: its processes' rounds are concatenated, "
                "so which ran after which is not recorded")
    if not record.mode_names or record.rounds == 0:
        return "no timed rounds"
    if len(record.mode_names) == 1:
        return f"one mode: every round ran first in its set, after {FIRST}"
    if not all(any(c.submit for c in run.conditions) for run in record.runs if run.rounds):
        # held submit readings arrived with the rotation; before, sets alternated
        return "recorded before rounds rotated: which mode ran before which is not known"
    return ""


def interleaving(record: RunRecord, metrics: Sequence[str] = METRICS, order: Order | None = None,
                 permutations: int = PERMUTATIONS) -> Interleaving:
    """Every mode's rounds by predecessor, process by process and pooled."""
    reason = unanalysable(record)
    if reason:
        return Interleaving((), None, reason)
    order, names, parts, first = order or round_order, list(record.mode_names), [], 0
    for run in record.runs:
        parts.append(_process_rounds(run, names, metrics, order, first))
        first += run.rounds + 1  # cycles never span two processes
    units = tuple(_unit(i, part, names, metrics, permutations) for i, part in enumerate(parts))
    kept = [part for part in parts if not isinstance(part, str)]
    if len(units) == 1:
        pooled = replace(units[0], process=None)
    else:
        pooled = _unit(None, _pooled(kept) if kept else "no process's rounds can be aligned",
                       names, metrics, permutations)
    return Interleaving(units, pooled)
