"""graphbench.analyze.host_gate: which baseline processes judge a current
run's host-bound figures, and at what host speed, when the host changed
speed state between the two."""

import dataclasses

import numpy as np
import pytest

from conftest import make_record, make_run
from graphbench.analyze.host_gate import gate_values, is_host_bound

FAST, SLOW = 600.0, 1000.0  # the H200 host's two states, probe us


def host_run(rng, centre, rounds=30, slower=0.0, seed=0, switch_to=None):
    """A process whose individual wall follows the host probe as on the
    H200 (8.05 + 0.0091 x probe us); graph wall does not. `switch_to`: the
    host changes to that state half way through."""
    probes = centre * rng.uniform(0.95, 1.05, rounds)
    if switch_to:
        probes[rounds // 2:] = switch_to * rng.uniform(0.95, 1.05, rounds - rounds // 2)
    individual = (8.05 + 0.0091 * probes) * (1 + slower) + rng.normal(0, 0.05, rounds)
    graph = 5.8 + rng.normal(0, 0.03, rounds)
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=rounds, seed=seed)
    around = {"probe_before_us": tuple(map(float, probes)),
              "probe_after_us": tuple(map(float, probes))}
    modes = {"individual": dataclasses.replace(run.modes["individual"], **around,
                                               wall_us=tuple(map(float, individual))),
             "graph": dataclasses.replace(run.modes["graph"], wall_us=tuple(map(float, graph)),
                                          **around)}
    return dataclasses.replace(run, modes=modes)


def record_of(*centres, seed=0, slower=0.0, switch_to=None):
    rng = np.random.default_rng(seed)
    runs = [host_run(rng, c, slower=slower, seed=i, switch_to=switch_to if i == 0 else None)
            for i, c in enumerate(centres)]
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=runs)


def change(gate):
    base = np.mean([np.median(v) for v in gate.base])
    return np.mean([np.median(v) for v in gate.cur]) / base - 1


def test_which_metrics_are_host_bound():
    assert all(is_host_bound(m) for m in ("individual.wall", "graph.submit", "graph.device",
                                           "speedup", "speedup.fused"))
    assert not any(is_host_bound(m) for m in ("graph.busy", "graph.cycles", "graph.relbusy"))


def test_one_state_on_both_sides_is_judged_as_it_is():
    gate = gate_values(record_of(FAST, FAST, FAST), record_of(FAST, seed=1), "individual.wall")
    assert not gate.reason and not gate.note and gate.systematic == 0
    assert len(gate.base) == 3 and abs(change(gate)) < 0.01


def test_the_current_is_judged_against_the_baseline_processes_in_its_state():
    baseline = record_of(FAST, SLOW, SLOW, FAST, SLOW)
    gate = gate_values(baseline, record_of(SLOW, seed=1), "individual.wall")
    assert not gate.reason and "3 of 5 baseline processes" in gate.note
    assert len(gate.base) == 3 and abs(change(gate)) < 0.01


def test_no_baseline_process_in_the_currents_state_and_none_that_saw_both_is_not_gateable():
    gate = gate_values(record_of(FAST, FAST, FAST), record_of(SLOW, seed=1), "individual.wall")
    assert "no process saw both speeds" in gate.reason
    # the raw change would have been a 30% "regression" of identical code
    assert change(gate) > 0.2


def test_a_baseline_that_saw_both_states_brings_the_current_across():
    baseline = record_of(FAST, FAST, SLOW, FAST, FAST, switch_to=SLOW)  # too few slow to match
    same = gate_values(baseline, record_of(SLOW, SLOW, SLOW, seed=1), "individual.wall")
    assert not same.reason and "fast state" in same.note and "1 process(es)" in same.note
    assert abs(change(same)) < 0.01 and 0 < same.systematic < 0.01
    slower = gate_values(baseline, record_of(SLOW, SLOW, SLOW, seed=1, slower=0.15),
                         "individual.wall")
    assert change(slower) == pytest.approx(0.15 * 17.15 / 13.5, rel=0.1)  # 15% of the slow figure


def test_a_figure_that_does_not_follow_the_host_is_carried_across_unchanged():
    baseline = record_of(FAST, FAST, SLOW, FAST, FAST, switch_to=SLOW)
    gate = gate_values(baseline, record_of(SLOW, seed=1), "graph.wall")
    assert not gate.reason and abs(change(gate)) < 0.005 and gate.systematic < 0.005


def test_a_current_that_saw_both_states_gives_the_slope_itself():
    current = record_of(SLOW, seed=1, switch_to=FAST)
    for slower, expected in ((0.0, 0.0), (0.15, 0.15 * 13.5 / 13.5)):
        gate = gate_values(record_of(FAST, FAST, FAST),
                           record_of(SLOW, seed=1, switch_to=FAST, slower=slower),
                           "individual.wall")
        assert not gate.reason and change(gate) == pytest.approx(expected, abs=0.02)
    assert current.runs[0].modes["individual"].probe_before_us


def test_a_speedup_is_read_by_its_individual_rounds_host_speed():
    baseline = record_of(FAST, FAST, SLOW, FAST, FAST, switch_to=SLOW)
    gate = gate_values(baseline, record_of(SLOW, SLOW, SLOW, seed=1), "speedup")
    assert not gate.reason and abs(change(gate)) < 0.02


def test_the_last_part_of_a_metric_name_decides_whether_it_is_host_bound():
    assert is_host_bound("fused.busy.wall") and not is_host_bound("fused.wall.busy")


def test_a_process_sees_a_state_from_five_readings_in_it():
    from graphbench.analyze.host_gate import Process
    from graphbench.analyze.host_speed import host_states

    states = host_states([FAST] * 20 + [SLOW] * 20)
    five_slow = Process((1.0,) * 9, (FAST,) * 4 + (SLOW,) * 5)
    assert five_slow.states_seen(states) == {1}
    assert Process((1.0,) * 10, (FAST,) * 5 + (SLOW,) * 5).states_seen(states) == {0, 1}
    assert Process((1.0,) * 3, (None, FAST, None)).states_seen(states) == set()


def spanning_baseline(switch_rounds):
    """Three fast baseline processes and one whose last `switch_rounds`
    rounds (of 2 x switch_rounds) ran in the slow state."""
    rng = np.random.default_rng(7)
    runs = [host_run(rng, FAST, seed=i) for i in range(3)]
    runs.append(host_run(rng, FAST, rounds=2 * switch_rounds, seed=3, switch_to=SLOW))
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=runs)


def test_a_slope_from_fewer_than_20_rounds_does_not_carry_a_figure_across_states():
    gate = gate_values(spanning_baseline(5), record_of(SLOW, seed=1), "individual.wall")
    assert gate.reason.endswith("run the current again, or make the baseline when the host "
                                "runs at the current's speed too")
    assert gate.systematic == 0


def test_a_slope_from_20_rounds_carries_a_figure_across_states_with_its_error():
    from graphbench.analyze.host_gate import processes
    from graphbench.analyze.host_speed import within_fit

    baseline = spanning_baseline(10)
    gate = gate_values(baseline, record_of(SLOW, seed=1), "individual.wall")
    spanning = processes(baseline, "individual.wall")[3]
    assert within_fit([spanning.values], [spanning.probes]).rounds == 20
    assert not gate.reason and "saw both states" in gate.note
    assert 0 < gate.systematic < 0.01
    assert abs(change(gate)) < 0.01


def test_the_mean_probe_of_processes_without_readings_is_zero():
    from graphbench.analyze.host_gate import Process, _mean_probe

    assert _mean_probe([Process((1.0, 2.0), (None, None))]) == 0.0
    assert _mean_probe([]) == 0.0
    assert _mean_probe([Process((1.0, 2.0), (500.0, None)), Process((1.0,), (700.0,))]) == 600.0


def test_each_record_s_own_slope_moves_its_rounds_and_both_slopes_errors_join_the_noise():
    """Both records have processes that saw both states: each is moved along its own
    slope, and the systematic error is each slope's error times how far its record's
    rounds moved, over the baseline's level."""
    import math

    from graphbench.analyze.host_gate import _mean_probe, pair_states, processes
    from graphbench.analyze.host_speed import within_fit

    baseline = spanning_baseline(10)
    rng = np.random.default_rng(11)
    runs = [host_run(rng, FAST, rounds=20, seed=i, switch_to=SLOW, slower=0.05)
            for i in range(2)] + [host_run(rng, SLOW, seed=2, slower=0.05)]
    current = make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=runs)
    gate = gate_values(baseline, current, "individual.wall")

    base, cur = processes(baseline, "individual.wall"), processes(current, "individual.wall")
    target = pair_states(base, cur).medians[0]
    assert gate.note == (f"every round brought to the host's fast state (probe {target:.0f} us) "
                         "along each record's own slope (1 and 2 processes that saw both "
                         "states)")
    fits = [within_fit([p.values for p in side], [p.probes for p in side])
            for side in ([base[3]], cur[:2])]
    level = float(np.mean([np.median(v) for v in gate.base]))
    expected = math.hypot(*(fit.slope_se * abs(_mean_probe(side) - target)
                            for side, fit in zip((base, cur), fits))) / level
    assert gate.systematic == pytest.approx(expected, rel=1e-9)
    assert 0.03 < change(gate) < 0.08
