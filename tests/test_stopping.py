"""graphbench.analyze.stopping: the stop rules and the noise they judge."""

from types import SimpleNamespace

import numpy as np

from graphbench.analyze.stopping import (FIXED, NOISE_TARGET, FixedRounds, NoiseTarget,
                                         headline_noise, headline_noise_parts, noise_parts,
                                         series_noise, stop_rule)


def test_series_noise_passes_on_whether_the_phases_are_shared():
    rng = np.random.default_rng(11)
    values = list(1.0 + rng.normal(0, 0.01, 20))   # independent rounds: no drift
    assert noise_parts(values, True) != noise_parts(values, False)
    assert series_noise(values, True) == max(noise_parts(values, True))
    assert series_noise(values) == max(noise_parts(values, False))


def host_following_walls(rounds=40, seed=12):
    rng = np.random.default_rng(seed)
    probes = rng.uniform(550, 700, rounds)
    walls = {"individual": list(8.0 + 0.02 * probes + rng.normal(0, 0.01, rounds)),
             "graph": list(5.8 + rng.normal(0, 0.01, rounds))}
    return walls, {mode: list(probes) for mode in walls}


def test_the_headline_noise_is_judged_at_the_runs_own_host_speed():
    walls, probes = host_following_walls()
    steady, raw = headline_noise(walls, probes), headline_noise(walls)
    assert steady == max(headline_noise_parts(walls, probes))
    assert steady < 0.01 < raw
    # a mode read without probes is judged as it is
    assert headline_noise(walls, {"individual": probes["individual"]}) == steady


def test_a_noise_target_is_met_by_the_rounds_at_the_runs_host_speed():
    walls, probes = host_following_walls()
    rule = NoiseTarget(0.01, 20, 1e9)
    assert rule.reason_to_stop(40, 0.0, walls, probes) == NOISE_TARGET
    assert rule.reason_to_stop(40, 0.0, walls) is None


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
