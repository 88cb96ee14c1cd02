"""graphbench.gate.stopping: the stop rules and the noise they judge.

Covers graphbench/stats/noise.py."""

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from graphbench.stats.intervals import median_interval
from graphbench.gate.stopping import (AB_MIN_ROUNDS, FIXED, NOISE_TARGET, TIME_BUDGET, FixedRounds,
                                      NoiseTarget, stop_rule)
from graphbench.stats.noise import (DRIFT_ALLOWANCE, drift, excess_drift, headline_noise,
                                    headline_noise_parts, noise_parts, watched_series)
from graphbench.config import RunConfig


def test_noise_parts_pass_on_whether_the_phases_are_shared():
    rng = np.random.default_rng(11)
    values = list(1.0 + rng.normal(0, 0.01, 20))   # independent rounds: no drift
    assert noise_parts(values, True) != noise_parts(values, False)


def test_noise_parts_takes_the_phases_as_not_shared_unless_told():
    rng = np.random.default_rng(11)
    values = list(1.0 + rng.normal(0, 0.01, 20))
    assert noise_parts(values) == noise_parts(values, False) != noise_parts(values, True)


def test_the_headline_noise_is_that_of_the_rounds_as_measured():
    """No model of the host's speed steadies the rounds: a host that flips
    between two speed states makes a CPU-bound headline noisy, and the
    target is not met on it."""
    rng = np.random.default_rng(12)
    slow = np.repeat(rng.random(10) < 0.5, 4)
    walls = {"individual": list(np.where(slow, 18.0, 12.0) + rng.normal(0, 0.01, 40)),
             "graph": list(5.8 + rng.normal(0, 0.01, 40))}
    assert headline_noise(walls) == max(headline_noise_parts(walls)) > 0.01
    assert NoiseTarget(0.01, 20, 1e9).reason_to_stop(40, 0.0, walls) is None
    steady = {"individual": list(12.0 + rng.normal(0, 0.01, 40)), "graph": walls["graph"]}
    assert NoiseTarget(0.01, 20, 1e9).reason_to_stop(40, 0.0, steady) == NOISE_TARGET


def test_fixed_rounds_stop_at_their_count():
    rule = FixedRounds(3)
    assert rule.reason_to_stop(2, 0.0, {}) is None
    assert rule.reason_to_stop(3, 0.0, {}) == FIXED and rule.reason_to_stop(4, 0.0, {}) == FIXED


def test_more_than_three_rungs_get_the_time_budget_per_three():
    config = SimpleNamespace(rounds=None, max_noise=0.01, min_rounds=20, max_time=2.0,
                             ab_source=None, modes=["a", "b", "c", "d", "e", "f"])
    assert stop_rule(config) == NoiseTarget(0.01, 20, 4.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "modes": ["a", "b"]})) == \
        NoiseTarget(0.01, 20, 2.0)


def test_drift_of_a_trend_and_its_edges():
    assert drift([1.0] * 4 + [2.0]) == 0.0   # fewer than 6 rounds
    assert drift([1, 1, 1, 1, 2, 2]) == pytest.approx(1.0)
    assert drift([0.0, 0.0, 0.0, 0.0, 1.0, 1.0]) == math.inf
    assert drift([2, 2, 2, 2, 1, 1]) == pytest.approx(1.0 / 2.0)
    trend = np.linspace(1.0, 1.04, 66)
    assert max(noise_parts(trend)) >= drift(trend) > 0.02


def test_watched_series_follow_what_is_gated():
    walls = {"individual": [10.0, 12.0], "graph": [5.0, 4.0], "graph@base": [4.0, 5.0]}
    assert watched_series(walls) == [[1.25, 0.8]]
    assert watched_series({"individual": [10.0, 12.0], "graph": [5.0, 4.0]}) == [[2.0, 3.0]]
    assert watched_series({"fused": [1.0, 2.0]}) == [[1.0, 2.0]]
    noisy = {"a": [1.0] * 20, "b": list(1 + 0.1 * np.sin(np.arange(20)))}
    assert headline_noise(noisy) == max(noise_parts(noisy["b"])) > 0


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


def test_an_ab_run_samples_at_least_sixty_rounds_in_twice_the_budget():
    """Both builds of every rung run: each gets a plain run's time."""
    assert AB_MIN_ROUNDS == 60
    config = SimpleNamespace(rounds=None, min_rounds=10, ab_source="base.cu", max_noise=0.02,
                             max_time=3.0)
    assert stop_rule(config) == NoiseTarget(0.02, 60, 6.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "min_rounds": 75})) == \
        NoiseTarget(0.02, 75, 6.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "ab_source": None})) == \
        NoiseTarget(0.02, 10, 3.0)


def test_a_gate_size_point_runs_its_least_rounds_unless_rounds_are_given():
    # the gate reads only its GPU busy time there; the headline a target judges is host-bound
    config = RunConfig(gate_point=True, min_rounds=25)
    assert stop_rule(config) == FixedRounds(25)
    assert stop_rule(replace(config, ab_source="base.cu")) == FixedRounds(AB_MIN_ROUNDS)
    assert stop_rule(replace(config, rounds=40)) == FixedRounds(40)
    assert stop_rule(replace(config, gate_point=False)) == NoiseTarget(0.01, 25, 3.0)


def test_the_noise_target_is_met_at_equality():
    walls = {"graph": [10.0, 10.2, 9.9, 10.1, 10.05, 9.95] * 4}
    noise = headline_noise(walls)
    assert 0 < noise < math.inf
    rule = NoiseTarget(noise, 3, 100.0)
    assert rule.reason_to_stop(24, 0.0, walls) == NOISE_TARGET
    assert NoiseTarget(noise * 0.999, 3, 100.0).reason_to_stop(24, 0.0, walls) is None
    assert NoiseTarget(noise * 0.999, 3, 1.0).reason_to_stop(24, 1.0, walls) == TIME_BUDGET


def test_drift_compares_the_outer_thirds_medians():
    # 12 rounds: thirds of 4; first third median 1.0, last 2.0, overall 1.5
    values = [1.0] * 4 + [1.5] * 4 + [2.0] * 4
    assert drift(values) == pytest.approx(1 / 1.5, rel=1e-12)
    # quarters would read 1.0 and 2.0 as well, so a series whose thirds and quarters differ:
    # thirds [1,1,3,3] and [2,2,2,2], both of median 2.0; quarters [1,1,3] (1.0) and [2,2,2]
    assert drift([1.0, 1.0, 3.0, 3.0] + [2.0] * 8) == 0.0
    assert drift([1.0, 2.0, 3.0, 4.0, 5.0]) == 0.0        # under 6 rounds
    assert drift([0.0] * 3 + [1.0] * 0 + [0.0] * 3) == math.inf


def late_shift(start=180):
    """240 rounds of 1% spread whose rounds from `start` on read 5% higher."""
    rng = np.random.default_rng(0)
    return [float(x) * (1.05 if i >= start else 1.0)
            for i, x in enumerate(1 + 0.01 * rng.standard_normal(240))]


def test_the_noise_takes_the_drift_beyond_the_spread_where_it_is_larger():
    values = late_shift()
    hw = median_interval(values, 0.95).relative_half_width
    assert 0 < hw < 0.01 and drift(values) > 0.04
    assert max(noise_parts(values)) == pytest.approx(drift(values) - DRIFT_ALLOWANCE * hw, rel=1e-12)
    assert max(noise_parts(values)) > 2 * hw
    assert max(noise_parts(values[:180])) == median_interval(values[:180], 0.95).relative_half_width


def test_the_drift_of_chance_alone_does_not_raise_the_noise():
    # steady rounds whose outer thirds' medians differ more than the whole's half-width
    values = list(1 + 0.03 * np.random.default_rng(0).standard_normal(70))
    hw = median_interval(values, 0.95, True).relative_half_width
    assert hw < drift(values) < DRIFT_ALLOWANCE * hw
    assert noise_parts(values, True) == (hw, 0.0)
    assert DRIFT_ALLOWANCE == pytest.approx(math.sqrt(6))


def test_too_few_rounds_for_a_half_width_keep_the_whole_drift():
    assert excess_drift([1.0, 1.0, 1.0, 2.0, 2.0, 2.0], math.inf) == pytest.approx(2 / 3)
    assert excess_drift([1.0] * 3 + [2.0] * 3, 0.1) == pytest.approx(2 / 3 - DRIFT_ALLOWANCE * 0.1)
    assert excess_drift([1.0] * 3 + [2.0] * 3, 1.0) == 0.0


def test_watched_series_needs_both_individual_and_graph_for_the_speedup():
    assert watched_series({"individual": [2.0, 4.0]}) == [[2.0, 4.0]]
    assert watched_series({"graph": [2.0, 4.0], "fused": [1.0]}) == [[2.0, 4.0], [1.0]]
    assert watched_series({"individual": [2.0, 4.0], "graph": [1.0, 2.0]}) == [[2.0, 2.0]]


def test_the_headline_is_the_series_whose_larger_part_is_largest():
    shifted = late_shift()                 # drift beyond its spread 0.025 over a half-width 0.007
    scattered = list(1 + 0.1 * np.random.default_rng(1).standard_normal(240))  # 0.014, no drift
    assert noise_parts(shifted)[0] < noise_parts(scattered)[0] < noise_parts(shifted)[1]
    walls = {"a": shifted, "b": scattered}
    assert headline_noise_parts(walls) == noise_parts(shifted)
    assert headline_noise(walls) == noise_parts(shifted)[1]


def test_an_ab_run_s_headline_noise_takes_its_ratios_phases_as_shared():
    rng = np.random.default_rng(11)
    base = list(10.0 + rng.normal(0, 0.1, 20))
    walls = {"graph": list(np.asarray(base) * (1.0 + rng.normal(0, 0.01, 20))), "graph@base": base}
    ratios = watched_series(walls)[0]
    assert headline_noise_parts(walls) == noise_parts(ratios, True) != noise_parts(ratios, False)



def test_an_ab_run_samples_until_every_paired_wall_and_speedup_can_be_judged():
    """The noise target alone (here a loose 50%) does not end an A/B run whose
    graph replay pairs are too noisy to be judged at the A/B gate's 5%."""
    rng = np.random.default_rng(3)
    n = 60
    quiet = {"individual": list(14 + rng.normal(0, 0.02, n)),
             "individual@base": list(14 + rng.normal(0, 0.02, n)),
             "graph": list(5.8 + rng.normal(0, 0.01, n)),
             "graph@base": list(5.8 + rng.normal(0, 0.01, n))}
    rule = NoiseTarget(0.5, 20, 1e9)
    assert rule.reason_to_stop(n, 0.0, quiet) == NOISE_TARGET
    noisy = {**quiet, "graph": list(5.8 * np.exp(rng.normal(0, 0.15, n)))}
    assert rule.reason_to_stop(n, 0.0, noisy) is None
    assert NoiseTarget(0.5, 20, 1.0).reason_to_stop(n, 2.0, noisy) == TIME_BUDGET
