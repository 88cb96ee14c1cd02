"""The bucket planner (graphbench.buckets.planner): the Pareto front of
startup, memory and expected time per request, checked where the best set
is known in closed form, against brute force over every set, and the
recommendation under budgets.

Covers graphbench/buckets/planner.py.
Covers graphbench/buckets/__init__.py."""

from __future__ import annotations

import itertools

import pytest

from graphbench.buckets.planner import (BucketCost, expected_us, from_sizes, front,
                                        parse_demand, recommend, shown, uniform)
from graphbench.errors import UsageError


def linear(sizes, a=5.0, c=0.1, startup=0.5, memory=2**21) -> list[BucketCost]:
    """Replay time linear in the bucket's size; startup and memory alike for all."""
    return [BucketCost(s, startup, memory, a + c * s) for s in sizes]


@pytest.mark.parametrize("count", [1, 2, 4, 8])
def test_linear_time_and_uniform_demand_give_equal_buckets_under_a_startup_budget(count):
    """With time a + c b and requests 1..256 equally often, the best k
    buckets split the range evenly: the sum of (b_i - b_i-1) b_i is least at
    equal spacing."""
    plans = front(linear(range(8, 257, 8)), uniform(1, 256))
    best = recommend(plans, startup_budget_s=count * 0.5 + 1e-9)
    assert best.buckets == tuple(256 * i // count for i in range(1, count + 1))
    spacing = 256 / count
    # each segment's requests pay its top bucket: a + c b_i, shared (b_i - b_i-1)/256
    assert best.expected_us == pytest.approx(5.0 + 0.1 * sum(
        spacing / 256 * spacing * i for i in range(1, count + 1)))


def test_the_front_is_what_brute_force_over_every_set_finds():
    import random

    rng = random.Random(7)
    costs = [BucketCost(s, rng.uniform(0.1, 2), rng.uniform(1, 9) * 2**20, 3 + s * rng.uniform(
        0.05, 0.2)) for s in (4, 8, 12, 16, 24, 32, 48, 64)]
    demand = from_sizes([rng.randint(1, 64) for _ in range(300)])
    found = {p.buckets for p in front(costs, demand)}
    plans = []
    for k in range(1, len(costs) + 1):
        for chosen in itertools.combinations(costs, k):
            if chosen[-1].size >= 64:
                plans.append((sum(c.startup_s for c in chosen), sum(c.memory_bytes for c in chosen),
                              expected_us([c.size for c in chosen], costs, demand),
                              tuple(c.size for c in chosen)))
    pareto = {p[3] for p in plans if not any(
        q[0] <= p[0] and q[1] <= p[1] and q[2] <= p[2] and q[:3] != p[:3] for q in plans)}
    assert found == pareto


def test_each_plan_states_what_replaying_requests_through_it_would_take():
    costs, demand = linear(range(8, 257, 8)), from_sizes([1, 3, 3, 9, 100, 200, 256])
    for plan in front(costs, demand):
        assert plan.expected_us == pytest.approx(expected_us(plan.buckets, costs, demand))
        assert 0 <= plan.padding < 1


@pytest.mark.slow
def test_the_front_of_many_candidates_is_shown_thinned_with_its_ends():
    costs = [BucketCost(s, 0.5 + 0.001 * s, 2**21 * (1 + s / 64), 5 + 0.1 * s)
             for s in range(4, 257, 4)]
    plans = front(costs, uniform(1, 256))
    thinned = shown(plans)
    assert len(thinned) < len(plans) / 4 and set(thinned) <= set(plans)
    for key in (lambda p: p.expected_us, lambda p: p.startup_s, lambda p: p.memory_bytes):
        assert min(map(key, thinned)) == min(map(key, plans))
    assert all(any(k.startup_s <= p.startup_s * 1.01 and k.memory_bytes <= p.memory_bytes * 1.01
                   and k.expected_us <= p.expected_us * 1.01 for k in thinned) for p in plans)
    with pytest.raises(UsageError, match="give 1 to 64 candidate buckets"):
        front(linear(range(1, 66)), uniform(1, 65))


def test_a_budget_no_set_fits_is_refused_with_the_cheapest():
    plans = front(linear([64, 128, 256]), uniform(1, 256))
    with pytest.raises(UsageError, match="no bucket set fits the budgets: the one of least "
                                         "startup needs 0.5 s and 2 MiB"):
        recommend(plans, startup_budget_s=0.1)
    assert recommend(plans).buckets == (64, 128, 256)  # no budget: the fastest


@pytest.mark.parametrize("text, sizes", [("uniform:1..4", (1, 2, 3, 4)), ("8,1,8", (1, 8))])
def test_a_demand_is_a_named_shape_or_observed_sizes(text, sizes):
    demand = parse_demand(text)
    assert demand.sizes == sizes and sum(demand.shares) == pytest.approx(1.0)


@pytest.mark.parametrize("text", ["uniform:0..4", "uniform:9..4", "a,b", "", "0,-1"])
def test_a_demand_that_names_no_sizes_is_refused(text):
    with pytest.raises(UsageError):
        parse_demand(text)


def test_candidates_that_cannot_hold_the_largest_request_are_refused():
    with pytest.raises(UsageError, match="no candidate bucket holds the largest request"):
        front(linear([8, 16]), uniform(1, 32))
    with pytest.raises(UsageError, match="same size"):
        front(linear([8, 8, 32]), uniform(1, 32))
