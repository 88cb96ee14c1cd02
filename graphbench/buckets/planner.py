"""Which buckets to capture: the bucket sets on the Pareto front of startup,
memory and expected time per request, and the one recommended under a
budget. Pure: it reads each candidate bucket's measured costs and the
distribution of request sizes, nothing else.

A request of size r runs on the smallest bucket of the set that holds it
(padding r up to the bucket), so a set must hold the largest request. Its
expected time per request is the sum over request sizes of their share
times their bucket's replay time (the padding's waste included); its
startup and memory are the sums over its buckets (each bucket is its own
captured graph).

The front is found exactly: candidates sorted by size, a set is a chain of
buckets, and each chain's costs add up segment by segment (the requests
between two consecutive buckets pay the larger one's time). Dynamic
programming keeps, for each candidate as a chain's last bucket, the chains
no other chain ending there beats on all three costs; the front is the
non-dominated chains whose last bucket holds the largest request."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from graphbench.errors import UsageError

# Every candidate is a bucket measured on the GPU (its capture, memory and
# replay), so candidates are few: multiples of 8 up to 256 are 32. The exact
# front grows fast with their number; 64 keeps it to seconds.
MAX_CANDIDATES = 64
# The front as shown: a set is left out where a shown one is within this
# share of it on every cost, so that it stays small enough to read (the
# front itself, and the recommendation, are exact)
EPSILON = 0.01


@dataclass(frozen=True)
class BucketCost:
    """One candidate bucket's measured costs."""

    size: int
    startup_s: float      # time to first replay: capture, instantiate, upload, first launch
    memory_bytes: float   # the graph's own memory and its pool's
    replay_us: float      # one replay, per request


@dataclass(frozen=True)
class Demand:
    """Request sizes and their shares (summing to 1)."""

    sizes: tuple[int, ...]
    shares: tuple[float, ...]


@dataclass(frozen=True)
class Plan:
    buckets: tuple[int, ...]
    startup_s: float
    memory_bytes: float
    expected_us: float    # per request, padding included
    padding: float        # the mean share of a bucket a request leaves unused


def uniform(low: int, high: int) -> Demand:
    """Every size from `low` to `high`, equally often."""
    sizes = tuple(range(low, high + 1))
    return Demand(sizes, tuple(1.0 / len(sizes) for _ in sizes))


def from_sizes(observed: Sequence[int]) -> Demand:
    """The demand a list of observed request sizes gives."""
    counts: dict[int, int] = {}
    for size in observed:
        counts[size] = counts.get(size, 0) + 1
    sizes = tuple(sorted(counts))
    total = sum(counts.values())
    return Demand(sizes, tuple(counts[s] / total for s in sizes))


def parse_demand(text: str) -> Demand:
    """uniform:LOW..HIGH (a named shape), or sizes separated by commas."""
    match = re.fullmatch(r"uniform:(\d+)\.\.(\d+)", text.strip())
    if match:
        low, high = int(match.group(1)), int(match.group(2))
        if not 1 <= low <= high <= 1 << 20:
            raise UsageError(f"demand {text!r}: sizes must run from 1 up, at most 2^20",
                             "e.g. uniform:1..256")
        return uniform(low, high)
    try:
        observed = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"demand {text!r} is neither uniform:LOW..HIGH nor sizes",
                         "e.g. uniform:1..256, or 1,1,2,8,8,64") from None
    if not observed or min(observed) < 1:
        raise UsageError(f"demand {text!r} has no request size of 1 or more",
                         "e.g. 1,1,2,8,8,64")
    return from_sizes(observed)


def check_costs(costs: Sequence[BucketCost], demand: Demand) -> list[BucketCost]:
    """The candidates sorted by size; UsageError where none holds the largest request."""
    found = sorted(costs, key=lambda c: c.size)
    if not found or len(found) > MAX_CANDIDATES:
        raise UsageError(f"give 1 to {MAX_CANDIDATES} candidate buckets, got {len(found)}",
                         "measure sizes such as the multiples of 8 up to the largest request")
    if len({c.size for c in found}) != len(found):
        raise UsageError("two candidate buckets have the same size")
    for cost in found:
        if cost.size < 1 or not all(math.isfinite(v) and v >= 0 for v in
                                    (cost.startup_s, cost.memory_bytes, cost.replay_us)):
            raise UsageError(f"bucket {cost.size}: sizes of 1 or more and costs of 0 or more, "
                             "finite")
    if found[-1].size < max(demand.sizes):
        raise UsageError(f"no candidate bucket holds the largest request ({max(demand.sizes)}"
                         f"; the largest bucket is {found[-1].size})",
                         "measure a bucket at least as large as the largest request")
    return found


@dataclass(frozen=True)
class _Chain:
    startup: float
    memory: float
    time: float       # expected us per request, of the requests it holds so far
    padding: float
    buckets: tuple[int, ...]


class _Segments:
    """The requests between two bucket sizes, from prefix sums over sizes."""

    def __init__(self, demand: Demand) -> None:
        self.sizes, running, weighted = list(demand.sizes), [0.0], [0.0]
        for size, share in zip(demand.sizes, demand.shares):
            running.append(running[-1] + share)
            weighted.append(weighted[-1] + share * size)
        self.share, self.weighted = running, weighted

    def _upto(self, size: int) -> int:
        import bisect

        return bisect.bisect_right(self.sizes, size)

    def between(self, low: int, high: int) -> tuple[float, float]:
        """(share of requests in (low, high], their mean unused share of `high`)."""
        a, b = self._upto(low), self._upto(high)
        share = self.share[b] - self.share[a]
        return share, share - (self.weighted[b] - self.weighted[a]) / high


def front(costs: Sequence[BucketCost], demand: Demand) -> tuple[Plan, ...]:
    """Every bucket set on the Pareto front of startup, memory and expected
    time per request, fastest first (the module docstring)."""
    found = check_costs(costs, demand)
    segments, largest = _Segments(demand), max(demand.sizes)
    ending: list[list[_Chain]] = []
    for j, bucket in enumerate(found):
        options = [_extended(None, 0, bucket, segments)]
        for i in range(j):
            options += [_extended(chain, found[i].size, bucket, segments) for chain in ending[i]]
        ending.append(_pruned(options))
    complete = [chain for bucket, chains in zip(found, ending) if bucket.size >= largest
                for chain in chains]
    return tuple(Plan(c.buckets, c.startup, c.memory, c.time, c.padding)
                 for c in sorted(_pruned(complete), key=lambda c: (c.time, c.startup)))


def shown(plans: Sequence[Plan], epsilon: float = EPSILON) -> tuple[Plan, ...]:
    """The front thinned for reading: a plan within `epsilon` of a shown one
    on every cost is left out, the fastest, the least startup and the least
    memory always shown."""
    ends = {min(plans, key=key) for key in (lambda p: (p.expected_us, p.startup_s),
                                            lambda p: (p.startup_s, p.expected_us),
                                            lambda p: (p.memory_bytes, p.expected_us))}
    grow, kept = 1 + epsilon, list(ends)
    for plan in sorted(plans, key=lambda p: (p.startup_s, p.memory_bytes, p.expected_us)):
        if plan not in ends and not any(
                k.startup_s <= plan.startup_s * grow and k.memory_bytes <= plan.memory_bytes * grow
                and k.expected_us <= plan.expected_us * grow for k in kept):
            kept.append(plan)
    return tuple(sorted(kept, key=lambda p: (p.expected_us, p.startup_s)))


def _extended(chain: _Chain | None, low: int, bucket: BucketCost, segments) -> _Chain:
    share, unused = segments.between(low, bucket.size)
    base = chain or _Chain(0.0, 0.0, 0.0, 0.0, ())
    return _Chain(base.startup + bucket.startup_s, base.memory + bucket.memory_bytes,
                  base.time + share * bucket.replay_us, base.padding + unused,
                  (*base.buckets, bucket.size))


def _pruned(chains: list[_Chain]) -> list[_Chain]:
    """The chains no other beats or equals on all three costs (the first of
    equal ones kept), in order of startup."""
    kept: list[_Chain] = []
    for chain in sorted(chains, key=lambda c: (c.startup, c.memory, c.time)):
        if not any(k.memory <= chain.memory and k.time <= chain.time for k in kept):
            kept.append(chain)
    return kept


def recommend(plans: Sequence[Plan], startup_budget_s: float | None = None,
              memory_budget_bytes: float | None = None) -> Plan:
    """The fastest plan within the budgets (less startup, then memory, on a tie)."""
    fits = [p for p in plans
            if (startup_budget_s is None or p.startup_s <= startup_budget_s)
            and (memory_budget_bytes is None or p.memory_bytes <= memory_budget_bytes)]
    if not fits:
        cheapest = min(plans, key=lambda p: (p.startup_s, p.memory_bytes))
        raise UsageError("no bucket set fits the budgets: the one of least startup needs "
                         f"{cheapest.startup_s:.3g} s and {cheapest.memory_bytes / 2**20:.4g} MiB",
                         "raise a budget, or measure cheaper buckets")
    return min(fits, key=lambda p: (p.expected_us, p.startup_s, p.memory_bytes))


def expected_us(buckets: Sequence[int], costs: Sequence[BucketCost], demand: Demand) -> float:
    """A given set's expected time per request: what the front states for it,
    and what replaying requests through it measures (a cross-check)."""
    by_size = {c.size: c for c in costs}
    chosen = sorted(buckets)
    if max(demand.sizes) > chosen[-1]:
        raise UsageError("the buckets do not hold the largest request")
    total = 0.0
    for size, share in zip(demand.sizes, demand.shares):
        total += share * by_size[next(b for b in chosen if b >= size)].replay_us
    return total
