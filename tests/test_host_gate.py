"""graphbench.analyze.host_gate: which baseline processes judge a current
run's host-bound figures, and at what host speed, when the host changed
speed state between the two."""

import dataclasses

import numpy as np
import pytest

from conftest import make_record, make_run
from graphbench.analyze.host_gate import HostGate, gate_values, is_host_bound

FAST, SLOW = 600.0, 1000.0  # the H200 host's two states, probe us


def host_run(rng, centre, rounds=30, slower=0.0, seed=0, switch_to=None):
    """A process whose individual wall follows the host probe as on the
    H200 (8.05 + 0.0091 x probe us); graph wall does not. `switch_to`: the
    host changes to that state half way through."""
    probes = centre * rng.uniform(0.95, 1.05, rounds)
    if switch_to:
        probes[rounds // 2:] = switch_to * rng.uniform(0.95, 1.05, rounds - rounds // 2)
    return probe_run(rng, probes, slower, seed)


def probe_run(rng, probes, slower=0.0, seed=0, graph_probes=None):
    """host_run's process with the given probe readings (`graph_probes`: the
    graph rounds' own, if they differ)."""
    rounds = len(probes)
    individual = (8.05 + 0.0091 * probes) * (1 + slower) + rng.normal(0, 0.05, rounds)
    graph = 5.8 + rng.normal(0, 0.03, rounds)
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=rounds, seed=seed)
    around = {"probe_before_us": tuple(map(float, probes)),
              "probe_after_us": tuple(map(float, probes))}
    graph_probes = probes if graph_probes is None else graph_probes
    graph_around = {"probe_before_us": tuple(map(float, graph_probes)),
                    "probe_after_us": tuple(map(float, graph_probes))}
    modes = {"individual": dataclasses.replace(run.modes["individual"], **around,
                                               wall_us=tuple(map(float, individual))),
             "graph": dataclasses.replace(run.modes["graph"], wall_us=tuple(map(float, graph)),
                                          **graph_around)}
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


def legacy(medians):
    """A version-1 merged record: its processes' medians only, no probe readings."""
    from graphbench.record.model import LegacyProcesses

    return dataclasses.replace(record_of(FAST), legacy_processes=LegacyProcesses(
        len(next(iter(medians.values()), ())), medians))


def test_a_version_1_record_is_one_process_per_median_judged_as_it_is():
    from graphbench.analyze.host_gate import Process, processes

    base = legacy({"individual.wall": (14.0, 14.2, 13.9)})
    expected = [Process((m,), (None,)) for m in (14.0, 14.2, 13.9)]
    assert processes(base, "individual.wall") == expected
    assert processes(base, "graph.wall") == []
    gate = gate_values(base, legacy({"individual.wall": (15.0, 15.1)}), "individual.wall")
    assert gate == HostGate([(14.0,), (14.2,), (13.9,)], [(15.0,), (15.1,)])


def test_each_process_of_a_record_is_its_own_with_its_mode_s_probes():
    from graphbench.analyze.host_gate import processes

    rng = np.random.default_rng(3)
    fast, slow = FAST * rng.uniform(0.95, 1.05, 30), SLOW * rng.uniform(0.95, 1.05, 30)
    runs = [probe_run(rng, fast, graph_probes=slow, seed=0), host_run(rng, SLOW, seed=1)]
    record = make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=runs)
    graph = processes(record, "graph.wall")
    assert [p.values for p in graph] == [run.modes["graph"].wall_us for run in runs]
    assert [list(p.probes) for p in graph] == [list(r.modes["graph"].round_probes) for r in runs]
    speedup = processes(record, "speedup")   # read by its individual rounds' probes
    assert list(speedup[0].probes) == list(runs[0].modes["individual"].round_probes)
    assert processes(record, "fused.wall") == []   # a mode the record lacks


def test_a_side_without_rounds_is_judged_as_it_is():
    from graphbench.analyze.host_gate import pair_states, processes
    from graphbench.analyze.host_speed import host_states

    none = legacy({})
    for both in (record_of(FAST, seed=1, switch_to=SLOW), record_of(FAST, FAST, FAST)):
        procs = processes(both, "individual.wall")
        steady = [p.steady() for p in procs]
        assert gate_values(none, both, "individual.wall") == HostGate([], steady)
        assert gate_values(both, none, "individual.wall").base == steady
        whole = host_states(np.concatenate([p.readings() for p in procs]))
        assert pair_states([], procs) == whole and pair_states(procs, []) == whole


def test_a_pair_whose_readings_form_two_states_keeps_those_states():
    from graphbench.analyze.host_gate import Process, pair_states
    from graphbench.analyze.host_speed import host_states

    rng = np.random.default_rng(5)
    base = np.r_[FAST * rng.uniform(0.95, 1.05, 15), SLOW * rng.uniform(0.95, 1.05, 5)]
    cur = SLOW * rng.uniform(0.95, 1.05, 20)
    states = pair_states([Process((1.0,) * 20, tuple(base))], [Process((1.0,) * 20, tuple(cur))])
    assert states == host_states(np.r_[base, cur]) and states.counts == (15, 25)


def test_records_further_apart_than_the_tolerance_are_a_state_each():
    from graphbench.analyze.host_gate import HOST_PROBE_TOLERANCE, Process, pair_states
    from graphbench.analyze.host_speed import HostStates

    base, cur = Process((1.0,) * 7, (400.0,) * 6 + (440.0,)), Process((1.0,) * 7, (484.0,) * 7)
    # one state by the gap rule (484/400 is under STATE_GAP); 21% apart: a state each,
    # split at the medians' geometric mean, 440, a reading there counted as slower
    assert pair_states([base], [cur]) == pair_states([cur], [base]) == \
        HostStates((400.0, 484.0), (6, 8), 440.0)
    near = Process((1.0,) * 7, (400.0 * (1 + HOST_PROBE_TOLERANCE * 0.99),) * 7)
    assert pair_states([base], [near]).count == 1


def short_record(centre, processes=3, rounds=4, seed=0):
    rng = np.random.default_rng(seed)
    runs = [host_run(rng, centre, rounds=rounds, seed=i) for i in range(processes)]
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=rounds, runs=runs)


def test_processes_too_short_to_see_a_state_are_judged_as_they_are_in_one_state():
    base, cur = short_record(FAST), short_record(FAST, processes=1, seed=1)
    gate = gate_values(base, cur, "individual.wall")
    assert not gate.reason and not gate.note and len(gate.base) == 3 and len(gate.cur) == 1


def few_slow_record(processes, seed):
    """Processes of 30 rounds, 4 of each in the slow state: too few to see it."""
    rng = np.random.default_rng(seed)
    runs = []
    for i in range(processes):
        probes = FAST * rng.uniform(0.95, 1.05, 30)
        probes[[3, 11, 19, 27]] = SLOW * rng.uniform(0.95, 1.05, 4)
        runs.append(probe_run(rng, probes, seed=i))
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=runs)


def test_processes_that_all_saw_only_the_fast_state_are_judged_as_they_are():
    from graphbench.analyze.host_gate import pair_states, processes

    base, cur = few_slow_record(3, seed=1), few_slow_record(1, seed=2)
    procs = processes(base, "individual.wall"), processes(cur, "individual.wall")
    assert pair_states(*procs).count == 2
    gate = gate_values(base, cur, "individual.wall")
    assert not gate.reason and not gate.note and gate.systematic == 0
    assert gate.base == [p.steady() for p in procs[0]]


def test_current_processes_each_in_another_state_are_brought_across():
    rng = np.random.default_rng(9)
    spanning = [host_run(rng, FAST, seed=i, switch_to=SLOW) for i in range(3)]
    baseline = make_record({"individual": 14.0, "graph": 5.8}, rounds=30, runs=spanning)
    gate = gate_values(baseline, record_of(FAST, SLOW, seed=1), "individual.wall")
    assert not gate.reason and gate.note.startswith("every round brought to the host's fast state")
    assert "the slope of 3 process(es)" in gate.note and abs(change(gate)) < 0.01


def test_records_of_the_launch_probe_are_judged_by_launch_gate():
    import sys
    from pathlib import Path

    from graphbench.analyze.host_gate import probe_mode, processes
    from graphbench.analyze.launch_gate import launch_gate

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from host_gate_calibration import record

    base, cur = (record(np.random.default_rng(seed), n, launch=True, host=host)
                 for seed, n, host in ((0, 5, 1.0), (1, 3, 1.1)))
    assert probe_mode("speedup") == "individual" and probe_mode("graph.wall") == "graph"
    for metric in ("individual.wall", "speedup", "graph.wall"):
        over = launch_gate(base, cur, probe_mode(metric), processes(base, metric),
                           processes(cur, metric), HostGate)
        assert over is not None and gate_values(base, cur, metric) == over
        assert len(over.base) == 5 and len(over.cur) == 3
