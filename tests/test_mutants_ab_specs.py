"""Tests that pin the A/B gate, the --fail-on specs, the stop rule and the
record model's derived figures, written against mutation testing (issue 19,
item 9; see pyproject.toml's [tool.mutmut])."""

from __future__ import annotations

import dataclasses

from tests_helpers import ab_record as shared_ab_record
import math
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import make_record, make_run

from graphbench.analyze.ab import (MIN_EFFECTIVE_PAIRS, candidate_modes, compare_ab,
                                   default_ab_specs, judge_ratios, ratio_change)
from graphbench.analyze.decide import MISSING, NOT_GATEABLE, SAME, SLOWER
from graphbench.analyze.intervals import median_interval
from graphbench.analyze.specs import (check_specs, default_specs, elements_label, parse_size,
                                      parse_spec)
from graphbench.analyze.stopping import (FIXED, NOISE_TARGET, TIME_BUDGET, FixedRounds,
                                         NoiseTarget, drift, headline_noise, series_noise,
                                         stop_rule, watched_series)
from graphbench.errors import UsageError
from graphbench.record.model import SweepRecord

BUILD = {"individual": 14.0, "graph": 6.0}


def ab_record(busy_factor=1.0, rounds=30, noise=0.005):
    return shared_ab_record(BUILD, busy_factor=busy_factor, rounds=rounds, noise=noise)


# --- A/B ---

def test_default_ab_thresholds_catch_a_3_percent_busy_regression_and_pass_1_percent():
    """Busy at 2%: +3% fails; wall at 5%: the same +3% on the walls would not."""
    specs = {s.name: s.text for s in default_ab_specs(ab_record())}
    assert specs == {"individual.wall": "5%", "graph.wall": "5%", "individual.busy": "2%"}
    slow = {v.metric: v for v in compare_ab(ab_record(1.03)).verdicts}
    assert slow["individual.busy"].verdict == SLOWER and slow["individual.busy"].gated
    quiet = {v.metric: v for v in compare_ab(ab_record(1.0)).verdicts}
    assert quiet["individual.busy"].verdict == SAME


def test_an_unpaired_spec_is_missing_and_gated_so_the_gate_fails_closed():
    record = ab_record()
    comparison = compare_ab(record, [parse_spec("fused.wall:5%"), parse_spec("individual.wall:1us"),
                                     parse_spec("graph.wall:5%")])
    fused, absolute, wall = comparison.verdicts
    for verdict in (fused, absolute):
        assert verdict.verdict == MISSING and verdict.gated
        assert verdict.note == "not paired in this A/B record (relative specs only)"
    assert fused.metric == "fused.wall" and fused.threshold == "5%"
    assert wall.verdict == SAME   # the loop goes on past a missing one
    assert not comparison.passed and comparison.unjudged == [fused, absolute]
    assert comparison.notes == ("A/B in one process: new.cu against base base.cu, rounds "
                                "alternating on the same buffers",)


def test_a_verdict_on_paired_ratios_carries_its_figures():
    record = ab_record(1.03)
    verdict = {v.metric: v for v in compare_ab(record).verdicts}["individual.busy"]
    base = record.samples("individual@base", "busy")
    cand = record.samples("individual", "busy")
    assert verdict.baseline == pytest.approx(float(np.median(base)))
    assert verdict.current == pytest.approx(float(np.median(cand)))
    from scipy import stats

    from graphbench.analyze.ab import paired_location, ratio_quantum

    ratios = [c / b for c, b in zip(cand, base)]
    # the mean of the log ratios, its spread floored at the readings' tick / sqrt(12)
    floor = max(ratio_quantum(base, cand) / 12 ** 0.5, 1e-4)
    location = paired_location(np.log(ratios), floor)
    scale = np.exp(location.estimate)
    estimate, se, df = scale - 1, location.se * scale, location.effective_n - 1
    half = stats.t.ppf(0.995, df) * se
    assert verdict.change == pytest.approx(estimate)
    assert verdict.change_low == pytest.approx(estimate - half, rel=1e-3)
    assert verdict.change_high == pytest.approx(estimate + half, rel=1e-3)
    assert verdict.scope == "within one process, 30 pairs"
    assert verdict.note == (f"paired ratio {estimate + 1:.3f} (99% interval "
                            f"{verdict.change_low + 1:.3f}..{verdict.change_high + 1:.3f}, 30 pairs)")
    margin = 1 + 1 / (2 * df) ** 0.5  # for the noise estimate's own error
    assert verdict.detectable == pytest.approx(4 * stats.t.ppf(0.95, df) * se * margin, rel=1e-3)
    assert verdict.resolution == 0.001


def test_a_base_round_of_zero_is_not_gateable():
    change = ratio_change([1.0, math.inf, 1.0])
    assert not change.valid
    assert change.reason == "a base round took no time: the ratio cannot be formed"
    record = ab_record()
    run = record.runs[0]
    zero = dataclasses.replace(run.modes["graph@base"], wall_us=(0.0,) * 30)
    record = dataclasses.replace(record, runs=(dataclasses.replace(
        run, modes={**run.modes, "graph@base": zero}),))
    verdict = {v.metric: v for v in compare_ab(record).verdicts}["graph.wall"]
    assert verdict.verdict == NOT_GATEABLE and verdict.note == change.reason
    assert verdict.detectable is None and verdict.change_low is None


def test_too_few_pairs_are_not_gateable_with_the_estimate_kept():
    change = ratio_change([1.1, 1.1, 1.1, 1.1])
    assert not change.valid and change.reason.startswith("4 pairs: ")
    assert change.estimate == pytest.approx(0.1)
    verdict = judge_ratios(parse_spec("graph.wall:5%"), [1.1, 1.1, 1.1, 1.1], 1.0, 1.1)
    assert verdict.verdict == NOT_GATEABLE and verdict.change == pytest.approx(0.1)
    assert verdict.note == change.reason and verdict.change_high is None


def test_correlated_pairs_below_min_effective_pairs_are_not_gateable():
    rng = np.random.default_rng(1)
    ar = np.zeros(40)
    for i in range(1, 40):
        ar[i] = 0.9 * ar[i - 1] + 0.002 * rng.standard_normal()
    ratios = list(1.05 + ar)
    from graphbench.analyze.ab import paired_location

    location = paired_location(np.log(ratios), 1e-4)
    assert location.effective_n < MIN_EFFECTIVE_PAIRS
    change = ratio_change(ratios)
    assert not change.valid
    assert change.reason.startswith(f"40 pairs are worth only {location.effective_n:.1f} "
                                    "independent")
    assert change.estimate == pytest.approx(np.exp(location.estimate) - 1)
    white = list(1.0 + 0.002 * rng.standard_normal(40))
    assert ratio_change(white).valid
    assert paired_location(np.log(white), 1e-4).effective_n >= MIN_EFFECTIVE_PAIRS


def test_candidate_modes_pair_each_mode_with_its_base():
    assert candidate_modes(ab_record()) == ["individual", "graph"]
    lone = make_record({"individual": 14.0, "graph@base": 6.0})
    assert candidate_modes(lone) == []


# --- --fail-on specs ---

def test_a_spec_must_end_where_its_unit_does():
    with pytest.raises(UsageError) as info:
        parse_spec("graph.wall:5%junk")
    assert info.value.message == "--fail-on 'graph.wall:5%junk' is not METRIC[@SIZE]:THRESHOLD"
    assert parse_spec(" graph.wall:5% ").threshold == pytest.approx(0.05)


def test_the_default_gate_catches_a_6_percent_busy_regression_and_a_12_percent_wall_one():
    base = make_record({"individual": 14.0, "graph": 4.3}, runs=[
        make_run({"individual": 14.0, "graph": 4.3}, seed=i) for i in range(3)])
    specs = {s.name: (s.text, s.gated) for s in default_specs(base)}
    assert specs == {"speedup": ("5%", False), "individual.wall": ("10%", True),
                     "graph.wall": ("10%", True), "individual.busy": ("5%", True)}


def test_spec_errors_say_what_is_wrong():
    with pytest.raises(UsageError) as info:
        parse_spec("graph.wall:5x")
    assert info.value.message == "--fail-on 'graph.wall:5x': graph.wall takes % or us"
    with pytest.raises(UsageError) as info:
        parse_spec("speedup:5us")
    assert info.value.message == "--fail-on 'speedup:5us': speedup takes % or x"
    with pytest.raises(UsageError) as info:
        parse_spec("graph.speed:5%")
    assert info.value.message == "unknown metric 'graph.speed'"
    with pytest.raises(UsageError) as info:
        parse_spec("graph.busy@2^40:5%")
    assert info.value.message == ("--fail-on size 2^40 is not an element count a GPU can hold")
    with pytest.raises(UsageError) as info:
        check_specs([parse_spec("graph.wall:5%"), parse_spec("graph.wall:10%")])
    assert info.value.message == "--fail-on gates graph.wall twice (5% and 10%)"
    assert parse_spec("speedup:1.5x").text == "1.5x" and parse_spec("graph.wall:2us").text == "2us"


def test_sizes_and_their_labels():
    assert parse_size("2^24") == 1 << 24 and parse_size("1000") == 1000
    assert elements_label(1 << 24) == "2^24" and elements_label(1000) == "1000"
    assert elements_label(1) == "2^0"
    assert parse_spec("graph.busy@2^20:5%").name == "graph.busy@2^20"
    with pytest.raises(UsageError):
        parse_size("0")


# --- the stop rule ---

def test_drift_of_a_trend_and_its_edges():
    assert drift([1.0] * 4 + [2.0]) == 0.0   # fewer than 6 rounds
    assert drift([1, 1, 1, 1, 2, 2]) == pytest.approx(1.0)
    assert drift([0.0, 0.0, 0.0, 0.0, 1.0, 1.0]) == math.inf
    assert drift([2, 2, 2, 2, 1, 1]) == pytest.approx(1.0 / 2.0)
    trend = np.linspace(1.0, 1.04, 66)
    assert series_noise(trend) >= drift(trend) > 0.02


def test_watched_series_follow_what_is_gated():
    walls = {"individual": [10.0, 12.0], "graph": [5.0, 4.0], "graph@base": [4.0, 5.0]}
    assert watched_series(walls) == [[1.25, 0.8]]
    assert watched_series({"individual": [10.0, 12.0], "graph": [5.0, 4.0]}) == [[2.0, 3.0]]
    assert watched_series({"fused": [1.0, 2.0]}) == [[1.0, 2.0]]
    noisy = {"a": [1.0] * 20, "b": list(1 + 0.1 * np.sin(np.arange(20)))}
    assert headline_noise(noisy) == series_noise(noisy["b"]) > 0


def test_stop_rules():
    assert FixedRounds(5).reason_to_stop(4, 0.0, {}) is None
    assert FixedRounds(5).reason_to_stop(5, 0.0, {}) == FIXED
    quiet = {"fused": [1.0] * 22}
    rule = NoiseTarget(0.01, 20, 2.0)
    assert rule.reason_to_stop(19, 0.0, quiet) is None
    assert rule.reason_to_stop(20, 0.0, {"fused": [1.0] * 20}) == NOISE_TARGET
    noisy = {"fused": list(1 + 0.2 * np.sin(np.arange(22)))}
    assert rule.reason_to_stop(22, 1.9, noisy) is None
    assert rule.reason_to_stop(22, 2.0, noisy) == TIME_BUDGET
    assert NoiseTarget().min_rounds == 20
    assert stop_rule(SimpleNamespace(rounds=7, max_noise=0.5, min_rounds=3, max_time=1.0,
                                     ab_source=None)) == FixedRounds(7)
    assert stop_rule(SimpleNamespace(rounds=None, max_noise=0.5, min_rounds=3, max_time=1.0,
                                     ab_source=None)) == NoiseTarget(0.5, 3, 1.0)


# --- the record model ---

def test_a_merged_record_with_one_failed_process_is_not_verified():
    good, bad = make_run(seed=0), make_run(seed=1, passed=False)
    record = make_record(runs=[good, bad])
    assert not record.verified
    assert [c.name for c in record.checks] == ["process 1: graph", "process 2: graph"]
    assert make_record(runs=[good, make_run(seed=1)]).verified
    assert not dataclasses.replace(record, runs=(dataclasses.replace(good, checks=()),)).verified


def test_a_sweep_finds_its_point_by_size_and_depth():
    points = tuple(make_record(elements=e, depth=d) for e in (1024, 4096) for d in (1, 2))
    sweep = SweepRecord(points[0].tool, "", points[0].host, None, None, points, True)
    assert sweep.point(4096, 1) is points[2]
    assert sweep.point(1024, 2) is points[1]
    assert sweep.point(4096, 3) is None


def test_ab_ratios_worth_fewer_than_8_independent_pairs_are_not_gateable():
    """24 correlated pairs (AR(1) 0.6) whose 99% interval is valid but worth
    about 6 independent pairs: too few for the power promise."""
    from graphbench.analyze.ab import MIN_EFFECTIVE_PAIRS, ratio_change
    from graphbench.analyze.intervals import median_interval

    rng, state, series = np.random.default_rng(1), 0.0, []
    for _ in range(24):
        state = 0.6 * state + rng.standard_normal()
        series.append(1.0 + 0.001 * state)
    interval = median_interval(series, 0.99, shared_phases=True)
    assert interval.valid and 4 < interval.effective_n < MIN_EFFECTIVE_PAIRS
    change = ratio_change(series)
    assert not change.valid and "independent ones" in change.reason
