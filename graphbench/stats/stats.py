"""Descriptive statistics of a series: its median with its spread, its
ranks, and the chi-square tail the interleaving test reads. Pure: no
GPU, no I/O. Intervals that hold for correlated rounds are in
graphbench.stats.intervals, and the gate's decision rule in
graphbench.gate.decide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class Summary:
    """Median with its spread. CV uses the sample standard deviation (ddof=1)."""

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    min: float
    max: float
    mean: float
    stdev: float
    cv: float


# A record's series are read-only arrays, made once (graphbench.record.columns),
# whose medians and quartiles are asked for several times: a long one is
# sorted once, and numpy's median and percentile read the sorted copy (the
# same order statistics, so the same figures, in a tenth of the time).
SORTED_FROM, SORTED_KEPT = 10_000, 64
_SORTED: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # id -> (the array, sorted)


def in_order(data: np.ndarray) -> np.ndarray:
    """A long array sorted (a read-only one once, while it is among the last
    SORTED_KEPT); a short one as it is. For order statistics only."""
    if data.size < SORTED_FROM:
        return data
    if data.flags.writeable or not data.flags.owndata:
        return np.sort(data)
    found = _SORTED.get(id(data))
    if found is None or found[0] is not data:
        if len(_SORTED) >= SORTED_KEPT:
            del _SORTED[next(iter(_SORTED))]
        found = _SORTED[id(data)] = (data, np.sort(data))
    return found[1]


def summarize(values: Sequence[float]) -> Summary:
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("cannot summarize an empty sample")
    q1, median, q3 = np.percentile(in_order(data), [25, 50, 75])
    mean = float(data.mean())
    stdev = float(data.std(ddof=1)) if data.size > 1 else 0.0
    return Summary(n=int(data.size), median=float(median), q1=float(q1), q3=float(q3),
                   iqr=float(q3 - q1), min=float(data.min()), max=float(data.max()), mean=mean,
                   stdev=stdev, cv=stdev / mean if mean else float("nan"))


def median(values: Sequence[float]) -> float:
    return float(np.median(in_order(np.asarray(values, dtype=float))))


def paired_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Round-by-round ratios. Rounds of the modes are interleaved, so pairing
    round i of one mode with round i of the other cancels slow machine drift."""
    if len(numerators) != len(denominators):
        raise ValueError("paired samples must have the same length")
    tops, bottoms = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if tops.size < 64 or not bottoms.all():  # short, or a zero that raises as Python does
        return [n / d for n, d in zip(numerators, denominators)]
    return (tops / bottoms).tolist()  # the same IEEE quotients, 200,000 at once


# OpenBLAS splits a product of more than about 10,000 terms across its
# threads, and on a busy host they wait their turn, far longer than one
# thread takes (docs/measurement.md#host-side-costs). A longer product is
# summed in numpy's own loop (the same to rounding; a shorter one is BLAS's,
# as it always was).
ONE_THREAD_TERMS = 10_000


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b, for a and b of one or two dimensions, off BLAS's threads."""
    if a.shape[-1] <= ONE_THREAD_TERMS:
        return a @ b
    left, right = ("i" if a.ndim == 1 else "ki"), ("i" if b.ndim == 1 else "ij")
    return np.einsum(f"{left},{right}->{left[:-1]}{right[1:]}", a, b)


def mean_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their mean: (first + last + 1) / 2 of each
    run of equal values, 0-based, found from one sort (of any kind: equal
    values share one rank whatever their order)."""
    if not values.size:
        return np.empty(0)
    order = np.argsort(values)
    ordered = values[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], values.size)  # one past each run
    ranks = np.empty(values.size)
    ranks[order] = ((firsts + lasts + 1) / 2)[np.cumsum(new) - 1]
    return ranks


def block_medians(values: np.ndarray, blocks: np.ndarray, starts: np.ndarray,
                  sizes: np.ndarray) -> np.ndarray:
    """The median of each block of values (`blocks`: nondecreasing block
    numbers; the blocks begin at `starts`, `sizes` long): the blocks as the
    rows of a table, short rows padded with infinity, each row sorted."""
    width = int(sizes.max()) if sizes.size else 0
    if width * sizes.size > 4 * values.size + 1024:  # blocks of very uneven lengths
        by_cycle = values[np.lexsort((values, blocks))]
        return (by_cycle[starts + (sizes - 1) // 2] + by_cycle[starts + sizes // 2]) / 2
    rows = np.repeat(np.arange(sizes.size), sizes)
    table = np.full((sizes.size, width), np.inf)
    table[rows, np.arange(values.size) - np.repeat(starts, sizes)] = values
    table.sort(axis=1)
    every = np.arange(sizes.size)
    return (table[every, (sizes - 1) // 2] + table[every, sizes // 2]) / 2


def block_counts(codes: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """How many values of each code (0, 1, ...) each block holds (blocks of
    `sizes` values, one after another), as floats: a table of blocks by codes,
    counted at once (summing one-hot rows block by block took 20 times as long)."""
    groups = int(codes.max()) + 1
    cells = np.repeat(np.arange(sizes.size) * groups, sizes) + codes
    return np.bincount(cells, minlength=sizes.size * groups).reshape(-1, groups) * 1.0


def dense_codes(labels: np.ndarray) -> np.ndarray:
    """The labels numbered 0, 1, ... in their sorted order (np.unique's
    inverse); small whole numbers without a sort."""
    if labels.dtype.kind not in "iu" or not labels.size or labels.min() < 0 \
            or labels.max() > 4 * labels.size + 1024:
        return np.unique(labels, return_inverse=True)[1].reshape(-1)
    present = np.bincount(labels) > 0
    return (np.cumsum(present) - 1)[labels]


def holm(p_values: Sequence[float], level: float = 0.05) -> list[bool]:
    """Which hypotheses Holm's step-down rule rejects at family-wise `level`."""
    rejected = [False] * len(p_values)
    for k, i in enumerate(sorted(range(len(p_values)), key=lambda i: p_values[i])):
        if p_values[i] > level / (len(p_values) - k):
            break
        rejected[i] = True
    return rejected


def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with whole `df` > x): the regularized upper gamma
    Q(df/2, x/2) by Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1), from
    Q(1/2, y) = erfc(sqrt y) or Q(0, y) = 0 (scipy would slow a plain run:
    docs/measurement.md#host-side-costs)."""
    y = x / 2
    if y <= 0:
        return 1.0
    shape, total = (0.5, math.erfc(math.sqrt(y))) if df % 2 else (0.0, 0.0)
    while shape < df / 2:
        total += math.exp(shape * math.log(y) - y - math.lgamma(shape + 1))
        shape += 1
    return min(total, 1.0)
