"""graphbench.analyze.stopping: the stop rules and the noise they judge."""

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from graphbench.analyze.intervals import median_interval
from graphbench.analyze.host_speed import REFERENCE_PROBE_US, steadied
from graphbench.analyze.stopping import (AB_MIN_ROUNDS, DRIFT_ALLOWANCE, FIXED, NOISE_TARGET,
                                         TIME_BUDGET, FixedRounds, NoiseTarget, drift,
                                         excess_drift, headline_noise, headline_noise_parts,
                                         noise_parts, series_noise, stated_noise_parts,
                                         stated_walls, stop_rule, watched_series)
from graphbench.config import RunConfig


def test_series_noise_passes_on_whether_the_phases_are_shared():
    rng = np.random.default_rng(11)
    values = list(1.0 + rng.normal(0, 0.01, 20))   # independent rounds: no drift
    assert noise_parts(values, True) != noise_parts(values, False)
    assert series_noise(values, True) == max(noise_parts(values, True))
    assert series_noise(values) == max(noise_parts(values, False))


def test_noise_parts_takes_the_phases_as_not_shared_unless_told():
    rng = np.random.default_rng(11)
    values = list(1.0 + rng.normal(0, 0.01, 20))
    assert noise_parts(values) == noise_parts(values, False) != noise_parts(values, True)


def host_following_walls(rounds=40, seed=12):
    """Rounds in the host's two speed states, in runs of a few rounds each,
    individual wall following the probe and graph wall not."""
    rng = np.random.default_rng(seed)
    slow = np.repeat(rng.random(rounds // 4) < 0.5, 4)
    probes = np.where(slow, rng.uniform(900, 1050, rounds), rng.uniform(550, 650, rounds))
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


def test_an_ab_run_samples_at_least_sixty_rounds():
    assert AB_MIN_ROUNDS == 60
    config = SimpleNamespace(rounds=None, min_rounds=10, ab_source="base.cu", max_noise=0.02,
                             max_time=3.0)
    assert stop_rule(config) == NoiseTarget(0.02, 60, 3.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "min_rounds": 75})) == \
        NoiseTarget(0.02, 75, 3.0)
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


def test_series_noise_takes_the_drift_beyond_the_spread_where_it_is_larger():
    values = late_shift()
    hw = median_interval(values, 0.95).relative_half_width
    assert 0 < hw < 0.01 and drift(values) > 0.04
    assert series_noise(values) == pytest.approx(drift(values) - DRIFT_ALLOWANCE * hw, rel=1e-12)
    assert series_noise(values) > 2 * hw
    assert series_noise(values[:180]) == median_interval(values[:180], 0.95).relative_half_width


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


def launch_probe_walls(rounds=60, seed=3):
    """Seconds per round: individual launches CPU-bound, following the probe
    in proportion (2% of their own scatter), graph replay GPU-bound and
    steady; the probe in two host states, a slow phase in the middle."""
    rng = np.random.default_rng(seed)
    probes = np.where((np.arange(rounds) > 20) & (np.arange(rounds) < 40), 950.0, 600.0)
    probes = probes * (1 + rng.normal(0, 0.01, rounds))
    walls = {"individual": list(0.012 * probes / 600 * (1 + rng.normal(0, 0.02, rounds))),
             "graph": list(0.006 * (1 + rng.normal(0, 0.002, rounds)))}
    busy = {"individual": 0.003, "graph": 0.003}   # GPU seconds per round
    return walls, {mode: list(probes) for mode in walls}, busy


def test_a_cpu_bound_mode_is_stated_over_its_probe_and_the_phases_are_out():
    walls, probes, busy = launch_probe_walls()
    stated, phase_free = stated_walls(walls, probes, busy)
    assert phase_free
    assert stated["individual"] == pytest.approx(
        [w / p * REFERENCE_PROBE_US for w, p in zip(walls["individual"], probes["individual"])])
    assert stated["graph"] == walls["graph"]      # a graph replay is never CPU-bound
    assert headline_noise_parts(walls, probes, busy) == stated_noise_parts(stated, True)
    # judged as stated it meets 1%; at the run's own speed, with the phase allowance, it does not
    assert headline_noise(walls, probes, busy) < 0.01 < headline_noise(walls, probes)


def test_modes_are_stated_over_the_probe_only_where_cpu_bound_and_read_throughout():
    walls, probes, busy = launch_probe_walls()
    gpu_bound = {"individual": 0.0119, "graph": 0.006}   # busy about the whole wall
    assert stated_walls(walls, probes, gpu_bound)[1] is False
    assert stated_walls(walls, probes, {})[1] is False
    assert stated_walls(walls, probes, None)[1] is False
    unread = {**probes, "individual": [None] + probes["individual"][1:]}
    assert stated_walls(walls, unread, busy)[1] is False
    short = {**probes, "individual": probes["individual"][:-1]}
    assert stated_walls(walls, short, busy)[1] is False
    assert stated_walls(walls, None, busy) == (dict(walls), False)


def test_a_noise_target_knowing_busy_judges_the_stated_figure():
    walls, probes, busy = launch_probe_walls()
    rule = NoiseTarget(0.01, 20, 1e9)
    assert rule.reason_to_stop(60, 0.0, walls, probes) is None
    knowing = rule.knowing_busy(busy)
    assert knowing == NoiseTarget(0.01, 20, 1e9, busy) and rule.busy is None
    assert knowing.reason_to_stop(60, 0.0, walls, probes) == NOISE_TARGET
    assert FixedRounds(3).knowing_busy(busy) == FixedRounds(3)


def test_a_positive_probe_reading_under_one_is_a_reading():
    # the probe in milliseconds: every reading under 1, each one still read
    walls, probes, busy = launch_probe_walls()
    in_ms = {mode: [p / 1000 for p in readings] for mode, readings in probes.items()}
    stated, phase_free = stated_walls(walls, in_ms, busy)
    assert phase_free and max(in_ms["individual"]) < 1
    assert stated["individual"] == pytest.approx(
        [w / p * REFERENCE_PROBE_US for w, p in zip(walls["individual"], in_ms["individual"])])


def test_an_ab_run_s_ratios_are_judged_at_the_run_s_own_host_speed():
    # the current side follows the host, its baseline does not: the ratios
    # carry the host's phases until each side is steadied
    walls, probes = host_following_walls()
    ab = {"individual": walls["individual"], "individual@base": walls["graph"]}
    ab_probes = {"individual": probes["individual"], "individual@base": probes["graph"]}
    steady = watched_series({m: steadied(v, ab_probes[m]) for m, v in ab.items()})[0]
    assert headline_noise_parts(ab, ab_probes) == noise_parts(steady, True)
    assert headline_noise(ab, ab_probes) < 0.01 < headline_noise(ab)


def test_stated_ab_walls_take_their_ratios_phases_as_shared_even_when_not_phase_free():
    rng = np.random.default_rng(11)
    base = list(10.0 + rng.normal(0, 0.1, 20))
    walls = {"graph": list(np.asarray(base) * (1.0 + rng.normal(0, 0.01, 20))), "graph@base": base}
    ratios = watched_series(walls)[0]
    assert stated_noise_parts(walls, False) == noise_parts(ratios, True) != noise_parts(ratios, False)


def proportional_host_run(rng, rounds=200, phase=20, rho=0.3, scatter=0.03):
    """Seconds per round of a run whose host sits in a fast (probe 600 us)
    or slow (900 us) state for phases of `phase` rounds: individual launches
    follow the probe in proportion with AR(1) scatter of their own, graph
    replay does not follow it. The stated speedup is 2.0 in every state."""
    slow = np.repeat(rng.random(rounds // phase + 1) < 0.4, phase)[:rounds]
    probes = np.where(slow, 900.0, 600.0) * (1 + rng.normal(0, 0.02, rounds))
    own, shocks = np.zeros(rounds), rng.normal(0, scatter, rounds)
    for i in range(rounds):
        own[i] = (rho * own[i - 1] if i else 0.0) + math.sqrt(1 - rho ** 2) * shocks[i]
    walls = {"individual": list(0.012 * probes / REFERENCE_PROBE_US * (1 + own)),
             "graph": list(0.006 * (1 + rng.normal(0, 0.005, rounds)))}
    return walls, {mode: list(probes) for mode in walls}


def test_a_run_stopped_on_its_target_states_an_interval_that_holds_the_figure():
    """Through the stop rule as sampling calls it, round by round: where the
    CPU-bound figure follows the probe in proportion, the interval of the
    stated speedup at the round the run stops holds the true figure at least
    93% of the time (correlated rounds, host phases, optional stopping)."""
    rng = np.random.default_rng(1)
    rule = NoiseTarget(0.01, 20, 1e9).knowing_busy({"individual": 0.003, "graph": 0.003})
    held = stopped = 0
    for _ in range(150):
        walls, probes = proportional_host_run(rng)
        for k in range(20, 201):
            seen = {m: v[:k] for m, v in walls.items()}, {m: v[:k] for m, v in probes.items()}
            if rule.reason_to_stop(k, 0.0, *seen) == NOISE_TARGET:
                stated, phase_free = stated_walls(*seen, rule.busy)
                interval = median_interval(watched_series(stated)[0], 0.95, phase_free)
                stopped, held = stopped + 1, held + (interval.low <= 2.0 <= interval.high)
                break
    assert stopped >= 145 and held / stopped >= 0.93
