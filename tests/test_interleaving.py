"""Interleaving: each mode's rounds grouped by the mode that ran just before
it in its set (graphbench.stats.interleaving), and the report's lines
where a predecessor moved a rung (graphbench.report.interleaving)."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import make_record
from graphbench.stats.interleaving import (FIRST, MIN_ROUNDS, _predecessor_codes, chi2_sf,
                                           cycle_length, holm, interleaving, label_codes,
                                           predecessor_p_value)
from graphbench.record.codec import read_record
from graphbench.record.model import ModeSamples
from graphbench.report.interleaving import interleaving_lines
from graphbench.sampling import round_order

V1 = Path(__file__).resolve().parent / "records" / "h200" / "v1"  # version-1 H200 records
PLAIN = {"individual": 14.0, "graph": 6.0, "fused": 5.6}
AB = {"individual": 14.0, "individual@base": 14.0, "graph": 6.0, "graph@base": 6.0,
      "fused": 5.6, "fused@base": 5.6}
LADDER = {m: 5.0 + i for i, m in enumerate(
    ("individual", "driver", "pdl", "graph", "graph-pdl", "unrolled", "loop", "fused"))}


def ar1(rng, rounds: int, rho: float = 0.5) -> np.ndarray:
    """Unit-variance AR(1) rounds with lag-1 autocorrelation `rho`."""
    shocks, values = rng.standard_normal(rounds), np.empty(rounds)
    values[0] = shocks[0]
    for i in range(1, rounds):
        values[i] = rho * values[i - 1] + math.sqrt(1 - rho ** 2) * shocks[i]
    return values


def true_predecessor(names, mode: str, index: int) -> str:
    """What ran before `mode` in set `index`, read from round_order itself."""
    ran = round_order(list(names), index)
    slot = ran.index(mode)
    return ran[slot - 1] if slot else FIRST


def predecessor_labels(names, rounds: int, order=None) -> dict[str, tuple[str, ...]]:
    """What ran just before each mode's rounds as the analysis works it out:
    its label codes read back as labels."""
    label = {code: name for name, code in label_codes(names).items()}
    codes = _predecessor_codes(list(names), rounds, order or round_order)
    return {mode: tuple(label[int(c)] for c in mode_codes) for mode, mode_codes in codes.items()}


def series(walls: dict, rounds: int, noise: float = 0.005, seed: int = 0, rho: float = 0.5,
           effect: tuple[str, str, float] | None = None) -> dict[str, np.ndarray]:
    """Every mode's wall per round: AR(1) noise, and `effect` (mode,
    predecessor, factor) multiplying that mode's rounds after that predecessor."""
    rng = np.random.default_rng(seed)
    out = {m: us * (1 + noise * ar1(rng, rounds, rho)) for m, us in walls.items()}
    if effect:
        mode, after, factor = effect
        hit = [true_predecessor(list(walls), mode, i) == after for i in range(rounds)]
        out[mode] = np.where(hit, out[mode] * factor, out[mode])
    return out


def with_series(walls: dict, *processes: dict[str, np.ndarray]):
    """A synthetic record whose processes time `processes`' rounds."""
    base = make_record(walls, rounds=len(next(iter(processes[0].values()))))
    runs = []
    for i, rounds in enumerate(processes):
        count = len(next(iter(rounds.values())))
        run = make_record(walls, rounds=count, seed=i).runs[0]
        modes = {m: ModeSamples(*(tuple(map(float, k * v)) for k in (1.0, 0.6, 0.9)),
                                workload=run.modes[m].workload) for m, v in rounds.items()}
        runs.append(dataclasses.replace(run, modes=modes))
    return dataclasses.replace(base, runs=tuple(runs))


def effect(analysis, mode: str, metric: str = "wall"):
    return next(e for e in analysis.pooled.effects if (e.mode, e.metric) == (mode, metric))


# --- the order of rounds ---------------------------------------------------------

def test_a_rotation_keeps_each_mode_after_its_cyclic_predecessor_or_first():
    after = predecessor_labels(list(PLAIN), 6)
    assert after["graph"] == ("individual", FIRST, "individual") * 2
    assert after["individual"] == (FIRST, "fused", "fused") * 2
    assert cycle_length(list(PLAIN)) == 3
    assert cycle_length(["individual", "graph"]) == 2
    assert cycle_length(["graph"]) == 1


def test_ab_pairs_flip_so_a_mode_has_three_predecessors():
    names = list(AB)
    after = predecessor_labels(names, 12)
    assert set(after["graph"]) == {"individual@base", "graph@base", FIRST}
    assert after["graph"] == tuple(true_predecessor(names, "graph", i) for i in range(12))
    assert cycle_length(names) == 6


# --- detection -------------------------------------------------------------------

def test_a_predecessor_that_slows_graph_by_5_percent_is_found_and_named():
    record = with_series(PLAIN, series(PLAIN, 30, effect=("graph", "individual", 1.05)))
    analysis = interleaving(record)
    graph = effect(analysis, "graph")
    assert graph.moved and graph.p_value < 0.01
    slowest = max(graph.groups, key=lambda g: g.median_us)
    assert slowest.after == "individual" and slowest.rounds == 20
    assert graph.spread == pytest.approx(0.05, abs=0.01)
    assert [e.mode for e in analysis.moved] == ["graph", "graph"]  # wall and device
    lines = interleaving_lines(record, analysis)
    assert len(lines) == 1
    assert re.fullmatch(r"interleaving: graph wall 6\.[23]\d us after individual, (5\.9\d|6\.0\d) "
                        r"after the probes \(\+[45]\.\d%, significant; device \+[45]\.\d%\); "
                        r"others within 0\.\d%", lines[0]), lines[0]


def test_in_an_ab_record_the_right_one_of_three_predecessors_is_named():
    record = with_series(AB, series(AB, 36, effect=("graph", "individual@base", 1.05)))
    graph = effect(interleaving(record), "graph")
    assert graph.moved
    assert max(graph.groups, key=lambda g: g.median_us).after == "individual@base"
    assert {g.after for g in graph.groups} == {"individual@base", "graph@base", FIRST}


def test_running_first_after_the_probes_is_a_predecessor_of_its_own():
    record = with_series(PLAIN, series(PLAIN, 30, effect=("fused", FIRST, 0.95)))
    fused = effect(interleaving(record), "fused")
    assert fused.moved
    assert min(fused.groups, key=lambda g: g.median_us).after == FIRST
    assert re.match(r"interleaving: fused wall 5\.[56]\d us after graph, 5\.3\d after the probes",
                    interleaving_lines(record)[0])


def test_many_rounds_are_judged_by_chi_square_and_still_found():
    record = with_series(PLAIN, series(PLAIN, 300, noise=0.01,
                                       effect=("graph", "individual", 1.01)))
    graph = effect(interleaving(record), "graph")
    assert graph.moved and graph.p_value < 1e-4


def test_pooled_processes_at_different_speeds_find_the_effect_and_no_other():
    slow = {m: 1.1 * us for m, us in PLAIN.items()}  # a host 10% slower in one process
    record = with_series(PLAIN, series(PLAIN, 15, seed=1, effect=("graph", "individual", 1.03)),
                         series(slow, 15, seed=2, effect=("graph", "individual", 1.03)))
    analysis = interleaving(record)
    assert [u.process for u in analysis.processes] == [0, 1]
    assert analysis.pooled.process is None and analysis.pooled.rounds == 30
    assert [(e.mode, e.metric) for e in analysis.moved] == [("graph", "wall"), ("graph", "device")]


# --- nothing moved, or nothing to tell ------------------------------------------------

def test_rounds_independent_of_their_predecessor_print_nothing():
    record = with_series(LADDER, series(LADDER, 40, noise=0.01, seed=3))
    analysis = interleaving(record)
    assert all(e.p_value is not None for e in analysis.pooled.effects)
    assert analysis.moved == () and interleaving_lines(record, analysis) == []


def test_identical_rounds_are_never_an_effect():
    flat = {m: np.full(24, us) for m, us in PLAIN.items()}
    analysis = interleaving(with_series(PLAIN, flat))
    assert {e.p_value for e in analysis.pooled.effects} == {1.0}


def test_too_few_rounds_to_tell():
    record = with_series(PLAIN, series(PLAIN, MIN_ROUNDS - 1, effect=("graph", "individual", 1.2)))
    analysis = interleaving(record)
    assert analysis.pooled.reason == f"too few rounds to tell: 11, fewer than {MIN_ROUNDS}"
    assert analysis.pooled.effects == () and interleaving_lines(record, analysis) == []


def test_a_group_of_two_rounds_is_too_few_to_tell():
    analysis = interleaving(with_series(LADDER, series(LADDER, 16)))  # first in 2 sets of 16
    assert {e.reason for e in analysis.pooled.effects} == {
        "too few rounds to tell: 2 after the probes"}
    assert all(e.p_value is None and not e.significant for e in analysis.pooled.effects)


def test_a_single_mode_always_follows_the_probes():
    record = with_series({"individual": 14.0}, series({"individual": 14.0}, 30))
    analysis = interleaving(record)
    assert analysis.reason.startswith("one mode") and analysis.pooled is None
    assert interleaving_lines(record) == []


def test_records_without_a_known_order_are_not_analysed():
    merged = interleaving(read_record(V1 / "baseline.json"))
    assert merged.reason.startswith("a version-1 merged record")
    alternating = interleaving(read_record(V1 / "default_4096.json"))
    assert alternating.reason.startswith("recorded before rounds rotated")
    assert interleaving_lines(read_record(V1 / "baseline.json")) == []


def test_a_process_whose_modes_disagree_in_rounds_is_set_aside():
    record = with_series(PLAIN, series(PLAIN, 20), series(PLAIN, 20, seed=1))
    short = dataclasses.replace(record.runs[1], rounds=19)
    analysis = interleaving(dataclasses.replace(record, runs=(record.runs[0], short)))
    assert analysis.processes[1].reason.startswith("its modes' rounds differ")
    assert analysis.pooled.rounds == 20


def test_a_record_without_timed_rounds():
    record = make_record(PLAIN)
    empty = dataclasses.replace(record.runs[0], rounds=0, modes={})
    assert interleaving(dataclasses.replace(record, runs=(empty,))).reason == "no timed rounds"


# --- the test's parts and its false alarms -------------------------------------------

def test_chi_square_tail_matches_scipy():
    from scipy.stats import chi2

    for df in range(1, 16):
        for x in (0.05, 1.0, 3.84, 12.0, 60.0, 400.0):
            assert chi2_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-9, abs=1e-300)
    assert chi2_sf(0.0, 3) == 1.0


@pytest.mark.parametrize("names, scale, seed, cases",
                         [(list(AB), 5, 7, 6), (["individual", "graph"], 6, 5, 4)],
                         ids=["A/B cycles", "two modes: cycles of two rounds"])
def test_past_exact_rounds_chi_square_agrees_with_the_permutations(monkeypatch, names, scale,
                                                                    seed, cases):
    """With two modes each one's variance is over its own rounds less 1."""
    import graphbench.stats.interleaving as module

    rng = np.random.default_rng(seed)
    labels, cycles = predecessor_labels(names, 120)["graph"], np.arange(120) // cycle_length(names)
    for step in range(cases):
        values = scale * (1 + 0.01 * ar1(rng, 120)) * np.where(
            np.asarray(labels) == FIRST, 1 + 0.002 * step, 1.0)
        monkeypatch.setattr(module, "EXACT_ROUNDS", 10_000)
        permuted = predecessor_p_value(values, labels, cycles, permutations=4000)
        monkeypatch.setattr(module, "EXACT_ROUNDS", 0)
        assert predecessor_p_value(values, labels, cycles) == pytest.approx(permuted, abs=0.03)


def test_holm_steps_down():
    assert holm([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.01, 0.02, 0.012], 0.05) == [True, True, True]
    assert holm([], 0.05) == []


def false_alarms(names, mode: str, rounds: int, rho: float, sims: int) -> float:
    """How often identical groups read as different at 5%, on AR(1) rounds."""
    labels = predecessor_labels(names, rounds)[mode]
    cycles = np.arange(rounds) // cycle_length(names)
    rng = np.random.default_rng(20261201)
    hits = sum(predecessor_p_value(5 * (1 + 0.01 * ar1(rng, rounds, rho)), labels, cycles,
                                   permutations=200, seed=s) <= 0.05 for s in range(sims))
    return hits / sims


@pytest.mark.parametrize("names, mode", [(list(PLAIN), "graph"), (list(AB), "graph@base"),
                                         (list(LADDER), "loop")])
def test_false_alarms_on_correlated_rounds_stay_at_or_below_the_level(names, mode):
    # lag-1 0.5: neighbouring rounds fall in different groups, which makes the
    # within-cycle shuffle conservative (2.5-3.5% in 3000-run simulations)
    assert false_alarms(names, mode, 30, 0.5, 1000) <= 0.05


def test_on_independent_rounds_the_test_keeps_its_level_not_far_below():
    # exact for exchangeable rounds: 4.7% of 4000 in simulation
    assert 0.03 <= false_alarms(list(PLAIN), "individual", 30, 0.0, 1000) <= 0.07


def test_a_normal_record_rarely_prints_a_line():
    """The report's false alarms over whole records: Holm over every mode and
    metric, on AR(1) rounds with lag-1 0.5 and 1% noise."""
    printed = 0
    for seed in range(60):
        record = with_series(PLAIN, series(PLAIN, 25, noise=0.01, seed=seed))
        printed += bool(interleaving_lines(record, interleaving(record, permutations=200)))
    assert printed <= 3


def test_the_default_order_worked_out_for_one_period_gives_every_rounds_predecessor():
    every_round = lambda modes, index: round_order(modes, index)  # noqa: E731 - not the default
    for names in (["graph"], ["individual", "graph", "graph@base", "fused", "pdl"],
                  ["individual", "graph", "fused"], ["graph", "graph@base"],
                  ["individual", "individual@base", "graph", "graph@base", "fused", "fused@base"]):
        for rounds in (0, 1, 9, 10, 11, 257):
            assert predecessor_labels(names, rounds) == predecessor_labels(names, rounds, every_round)


def test_mean_ranks_share_ties_as_sorting_and_searching_did():
    from graphbench.stats.stats import mean_ranks as _mean_ranks

    rng = np.random.default_rng(3)
    for data in (rng.standard_normal(500), rng.integers(0, 4, 500).astype(float), np.ones(3),
                 np.array([2.0])):
        ordered = np.sort(data)
        searched = (np.searchsorted(ordered, data, "left") +
                    np.searchsorted(ordered, data, "right") + 1) / 2
        assert np.array_equal(_mean_ranks(data), searched)
    assert _mean_ranks(np.empty(0)).size == 0


# --- orders of one's own, and the parts of the test pinned ----------------------------

TWO = ["individual", "graph"]


def fixed(names, index):
    return list(names)  # the same order in every set


def reversed_from_3(names, index):
    return list(names) if index < 3 else list(reversed(names))  # never repeats


def test_an_order_of_one_s_own_gives_its_own_predecessors_and_period():
    assert predecessor_labels(list(PLAIN), 4, fixed) == {
        "individual": (FIRST,) * 4, "graph": ("individual",) * 4, "fused": ("graph",) * 4}
    assert predecessor_labels(TWO, 8, reversed_from_3) == {
        "individual": (FIRST,) * 3 + ("graph",) * 5, "graph": ("individual",) * 3 + (FIRST,) * 5}
    assert cycle_length(TWO, fixed) == 1
    assert cycle_length(TWO, reversed_from_3) == 4  # no period within 2 x 2 sets: the span
    once = lambda names, index: list(reversed(names)) if index == 4 else list(names)  # noqa: E731
    assert cycle_length(TWO, once) == 4  # the same order at first is no period


def test_a_record_in_an_order_of_one_s_own_is_grouped_by_that_order():
    record = with_series(PLAIN, series(PLAIN, 24))
    analysis = interleaving(record, order=fixed)
    assert [e.reason for e in analysis.pooled.effects[:3]] == [
        "every round ran after the probes", "every round ran after individual",
        "every round ran after graph"]
    assert all(e.p_value is None and math.isnan(e.spread) and e.rounds == 24
               for e in analysis.pooled.effects)


def test_aligned_ranks_are_each_value_over_its_cycle_s_median_ranked_and_centred():
    from scipy.stats import rankdata

    from graphbench.stats.interleaving import _centred_ranks

    values = np.array([0.1, 0.2, 0.3, 1.0, 2.0, 3.0, 0.0, 0.0, 0.8, 30.0, 10.0, 20.0])
    cycles = np.repeat(np.arange(4), 3)
    starts = np.array([0, 3, 6, 9])
    medians = np.array([0.2, 2.0, 1.0, 20.0])  # a median of 0 divides by 1
    ranks = rankdata(values / np.repeat(medians, 3) - 1)
    expected = ranks - np.repeat(ranks.reshape(4, 3).mean(axis=1), 3)
    assert _centred_ranks(values, cycles, starts).tolist() == pytest.approx(expected.tolist())


def test_permutation_p_values_count_ties_and_are_reproducible():
    """p = (1 + permutations at least as extreme, ties included) / (1 + 2000),
    the permutations drawn from seed 0: a record's p-values never change."""
    labels, cycles = predecessor_labels(TWO, 16)["graph"], np.arange(16) // cycle_length(TWO)
    rng = np.random.default_rng(11)
    values = 6 * (1 + 0.01 * rng.standard_normal(16))
    assert predecessor_p_value(values, labels, cycles) == 513 / 2001
    strong = np.where(np.asarray(labels) == FIRST, 6.6, 6.0) * (1 + 0.001 * rng.standard_normal(16))
    assert predecessor_p_value(strong, labels, cycles) == 16 / 2001  # 8 cycles: 1 in 128 ties
    assert predecessor_p_value(strong, labels, cycles, permutations=99) * 100 == \
        pytest.approx(round(predecessor_p_value(strong, labels, cycles, permutations=99) * 100))


def test_up_to_exact_rounds_the_p_value_is_a_permutation_count_and_past_them_chi_square():
    labels = predecessor_labels(TWO, 101)["graph"]
    rng = np.random.default_rng(1)
    values = 6 * (1 + 0.01 * rng.standard_normal(101))
    cycles = np.arange(101) // 2
    exact = predecessor_p_value(values[:100], labels[:100], cycles[:100])
    assert exact * 2001 == pytest.approx(round(exact * 2001), abs=1e-9)
    rng = np.random.default_rng(1)
    quiet = 6 * (1 + 0.01 * rng.standard_normal(200))  # a statistic of 0.034: p 0.85, not 1
    assert 0.8 < predecessor_p_value(quiet, predecessor_labels(TWO, 200)["graph"],
                                     np.arange(200) // 2) < 0.9


def test_a_group_s_relative_median_is_over_the_mode_s_median():
    graph = effect(interleaving(with_series(PLAIN, series(
        PLAIN, 30, effect=("graph", "individual", 1.05)))), "graph")
    for group in graph.groups:
        assert group.relative == pytest.approx(group.median_us / graph.median_us - 1, abs=1e-12)
    assert graph.rounds == 30


def test_the_smallest_group_of_exactly_3_rounds_is_tested():
    analysis = interleaving(with_series(LADDER, series(LADDER, 24)))  # first in 3 sets of 24
    assert all(e.p_value is not None for e in analysis.pooled.effects)


def test_pooled_cycles_never_span_processes():
    """Three processes of different lengths pooled, each ending in part of a cycle: the
    permutations shuffle within each process's own cycles, in order."""
    lengths = (19, 20, 22)  # no effect: a p-value inside (0, 1)
    parts = [series(PLAIN, n, seed=s) for s, n in enumerate(lengths)]
    analysis = interleaving(with_series(PLAIN, *parts))
    names, period = list(PLAIN), cycle_length(list(PLAIN))
    labels = sum((predecessor_labels(names, n)["graph"] for n in lengths), ())
    cycles = np.concatenate([first + np.arange(n) // period
                             for first, n in zip((0, 20, 41), lengths)])
    values = np.concatenate([p["graph"] for p in parts])
    assert effect(analysis, "graph").p_value == predecessor_p_value(values, labels, cycles)


def test_units_say_why_a_process_or_the_pool_is_not_tested():
    from graphbench.stats.interleaving import Unit

    record = with_series(PLAIN, series(PLAIN, 20), series(PLAIN, 20, seed=1))
    short = [dataclasses.replace(run, rounds=19) for run in record.runs]
    analysis = interleaving(dataclasses.replace(record, runs=tuple(short)))
    reason = "its modes' rounds differ in number from its sets of rounds"
    assert analysis.processes == (Unit(0, 0, (), reason), Unit(1, 0, (), reason))
    assert analysis.pooled == Unit(None, 0, (), "no process's rounds can be aligned")
    idle = dataclasses.replace(record.runs[1], rounds=0, modes={})
    analysis = interleaving(dataclasses.replace(record, runs=(record.runs[0], idle)))
    assert analysis.processes[1] == Unit(1, 0, (), "no timed rounds")
    few = interleaving(with_series(PLAIN, series(PLAIN, MIN_ROUNDS - 1)))
    assert (few.processes[0].process, few.processes[0].rounds) == (0, MIN_ROUNDS - 1)
    assert few.pooled.process is None
    enough = interleaving(with_series(PLAIN, series(PLAIN, MIN_ROUNDS)))
    assert enough.pooled.rounds == MIN_ROUNDS and enough.pooled.effects


def test_why_a_record_is_not_analysed_is_said_in_full():
    merged = interleaving(read_record(V1 / "baseline.json"))
    assert merged.reason == ("a version-1 merged record: its processes' rounds are "
                             "concatenated, so which ran after which is not recorded")
    assert merged.processes == () and merged.pooled is None
    record = make_record(PLAIN)
    run = record.runs[0]
    none = dataclasses.replace(run, rounds=0, modes={m: dataclasses.replace(
        s, wall_us=(), submit_us=(), device_us=()) for m, s in run.modes.items()})
    assert interleaving(dataclasses.replace(record, runs=(none,))).reason == "no timed rounds"


def alternating(names, index):
    return list(names) if index % 2 == 0 else list(reversed(names))  # a period of 2 sets


def test_an_order_of_one_s_own_is_tested_over_its_own_cycles_and_permutations():
    record = with_series(PLAIN, series(PLAIN, 30, seed=4, effect=("graph", "individual", 1.01)))
    graph = effect(interleaving(record, order=alternating), "graph")
    assert [g.after for g in graph.groups] == ["individual", "fused"]
    labels = predecessor_labels(list(PLAIN), 30, alternating)["graph"]
    values = np.array(record.runs[0].modes["graph"].wall_us)
    assert graph.p_value == predecessor_p_value(values, labels, np.arange(30) // 2)
    few = interleaving(record, permutations=99)
    assert all(e.p_value * 100 == pytest.approx(round(e.p_value * 100), abs=1e-9)
               for e in few.pooled.effects)


def test_a_metric_no_round_registered_is_untested_not_a_division_by_zero():
    """A mode whose device time read 0 in every round (events too coarse
    for it) has no relative spread: the effect says why, the others are tested."""
    rounds = series(PLAIN, 24, effect=("graph", "individual", 1.2))
    record = with_series(PLAIN, rounds)
    run = record.runs[0]
    zero = dataclasses.replace(run.modes["fused"], device_us=tuple(0.0 for _ in rounds["fused"]))
    record = dataclasses.replace(record, runs=(dataclasses.replace(
        run, modes={**run.modes, "fused": zero}),))
    analysis = interleaving(record)
    untested = effect(analysis, "fused", "device")
    assert (untested.p_value, untested.reason) == (None, "every round read 0 device")
    assert untested.groups == ()  # an empty tuple, as for any effect without groups
    assert effect(analysis, "graph").moved
    assert any("graph wall" in line for line in interleaving_lines(record, analysis))


def test_the_null_covariance_is_that_of_the_rank_sums_over_every_shuffle_within_cycles():
    """Two cycles of three rounds whose groups differ in size: the covariance
    of the groups' sums over all 36 shuffles is the formula's, exactly."""
    import itertools

    from graphbench.stats.interleaving import _centred_ranks, _null_covariance

    values = np.array([6.1, 5.9, 6.3, 6.0, 5.7, 6.2])
    starts, codes = np.array([0, 3]), np.array([0, 1, 1, 0, 0, 1])
    centred = _centred_ranks(values, np.repeat([0, 1], 3), starts)
    onehot = np.eye(2)[codes]
    sums = np.array([centred[list(first) + [3 + i for i in second]] @ onehot
                     for first in itertools.permutations(range(3))
                     for second in itertools.permutations(range(3))])
    assert _null_covariance(centred, codes, starts) == pytest.approx(np.cov(sums.T, bias=True))


def test_a_labelling_less_extreme_than_every_shuffle_within_its_cycles_has_p_value_1():
    """Four cycles of two rounds; the second and the fourth hold one group
    only, so they add nothing whatever the shuffle. The first and the third
    give group a's centred sum 0.5 - 3.5 = -3 as labelled, and -3, 3 or +-4
    shuffled: every permutation is at least as extreme, and all 2000 count."""
    values = [6 * (1 + s * x) for x in (0.01, 0.02, 0.04, 0.03) for s in (1, -1)]
    labels = ["a", "b", "a", "a", "b", "a", "b", "b"]
    cycles = [0, 0, 1, 1, 2, 2, 3, 3]
    assert predecessor_p_value(values, labels, cycles) == 1.0
    assert predecessor_p_value(values, labels, cycles, permutations=7) == 1.0


def test_a_process_of_one_round_keeps_a_cycle_of_its_own_in_the_pool():
    lengths = (1, 20)
    parts = [series(PLAIN, n, seed=s) for s, n in enumerate(lengths)]
    analysis = interleaving(with_series(PLAIN, *parts))
    names, period = list(PLAIN), cycle_length(list(PLAIN))
    labels = sum((predecessor_labels(names, n)["graph"] for n in lengths), ())
    cycles = np.concatenate([first + np.arange(n) // period for first, n in zip((0, 100), lengths)])
    values = np.concatenate([p["graph"] for p in parts])
    assert effect(analysis, "graph").p_value == predecessor_p_value(values, labels, cycles)
