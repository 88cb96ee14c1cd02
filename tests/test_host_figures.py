"""graphbench.analyze.host_figures: a run's host speed states, each mode's
wall in each state, and the figures at the reference host speed."""

import dataclasses

import numpy as np
import pytest

from conftest import make_record, make_run
from graphbench.analyze.host_figures import (ONE_STATE_WITHIN, REFERENCE_REACH, HostSummary,
                                            host_summary)
from graphbench.analyze.host_speed import REFERENCE_PROBE_US, host_states


def record_at(probes, seed=0):
    """One process whose individual wall follows the probe (8.05 + 0.0091 x
    probe us) and whose graph wall does not; every round read at `probes`."""
    probes = np.asarray(probes, dtype=float)
    rng = np.random.default_rng(seed)
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=probes.size, seed=seed)
    around = {"probe_before_us": tuple(map(float, probes)),
              "probe_after_us": tuple(map(float, probes))}
    walls = {"individual": 8.05 + 0.0091 * probes + rng.normal(0, 0.03, probes.size),
             "graph": 5.8 + rng.normal(0, 0.02, probes.size)}
    modes = {m: dataclasses.replace(run.modes[m], wall_us=tuple(map(float, w)), **around)
             for m, w in walls.items()}
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=probes.size,
                       runs=[dataclasses.replace(run, modes=modes)])


def alternating(fast, slow, rounds=60):
    return [fast if k % 2 else slow for k in range(rounds)]


def test_the_speedup_at_the_reference_needs_both_figures():
    states = host_states([600.0] * 10)
    assert HostSummary(states, {}, at_reference={"individual": 12.0, "graph": 4.0}
                       ).speedup_at_reference() == 3.0
    assert HostSummary(states, {}, at_reference={"individual": 12.0}).speedup_at_reference() is None
    assert HostSummary(states, {}, at_reference={"graph": 4.0}).speedup_at_reference() is None
    assert HostSummary(states, {}, at_reference={"individual": 12.0, "fused": 3.0}
                       ).speedup_at_reference("fused") == 4.0


def test_one_state_far_from_the_reference_says_the_figures_stand_as_they_are():
    host = host_summary(record_at([1000.0] * 40))
    assert host.states.count == 1 and host.walls == {} and host.at_reference == {}
    assert host.why_not == ("one host speed state seen (probe about 1000 us): the figures "
                            "stand at this host's speed")


@pytest.mark.parametrize("probe", [REFERENCE_PROBE_US / ONE_STATE_WITHIN, 640.0,
                                   REFERENCE_PROBE_US * ONE_STATE_WITHIN])
def test_one_state_at_the_reference_speed_states_its_figures_there(probe):
    # every round in the fast state (as the CPU seeker makes them): the run is
    # at the reference speed already, and its rounds are carried the short way
    host = host_summary(record_at([probe] * 40))
    assert host.states.count == 1 and host.walls == {} and not host.why_not
    assert host.at_reference["individual"] == pytest.approx(8.05 + 0.0091 * probe, abs=0.05)
    assert host.at_reference["graph"] == pytest.approx(5.8, abs=0.02)


@pytest.mark.parametrize("probe", [REFERENCE_PROBE_US / ONE_STATE_WITHIN - 1,
                                   REFERENCE_PROBE_US * ONE_STATE_WITHIN + 1])
def test_one_state_just_outside_the_reference_s_reach_is_not_carried(probe):
    host = host_summary(record_at([probe] * 40))
    assert host.at_reference == {} and host.why_not.startswith("one host speed state seen")


def test_a_reference_exactly_at_the_reach_below_the_fast_state_is_reached():
    # fast 700, slow 1100: the reach is 100 us, so 600 lies exactly at its edge
    assert 700 - REFERENCE_REACH * (1100 - 700) == REFERENCE_PROBE_US
    host = host_summary(record_at(alternating(700.0, 1100.0)))
    assert host.states.medians == (700.0, 1100.0) and not host.why_not
    assert host.at_reference["individual"] == pytest.approx(8.05 + 0.0091 * 600, abs=0.05)


def test_a_reference_exactly_at_the_reach_above_the_slow_state_is_reached():
    # fast 200, slow 520: the reach is 80 us, so 600 lies exactly at its edge
    assert 520 + REFERENCE_REACH * (520 - 200) == REFERENCE_PROBE_US
    host = host_summary(record_at(alternating(200.0, 520.0)))
    assert host.states.medians == (200.0, 520.0) and not host.why_not
    assert host.at_reference["individual"] == pytest.approx(8.05 + 0.0091 * 600, abs=0.05)


def test_a_reference_out_of_reach_keeps_the_states_and_walls_by_state():
    host = host_summary(record_at(alternating(900.0, 1400.0)))
    assert host.at_reference == {} and host.states.count == 2
    assert host.states.medians == (900.0, 1400.0)
    assert host.walls["individual"] == pytest.approx((8.05 + 0.0091 * 900, 8.05 + 0.0091 * 1400),
                                                     abs=0.03)
    assert host.why_not == ("the reference host speed (probe 600 us) lies too far from this "
                            "run's states (probe about 900 and 1400 us) to reach")


def test_a_figure_without_a_significant_slope_is_the_median_of_the_nearer_states_rounds():
    from statistics import median

    record = record_at(alternating(600.0, 1000.0))
    host = host_summary(record)
    assert host.fits["individual"].significant
    assert host.fits["individual"].slope == pytest.approx(0.0091, rel=0.05)
    assert not host.fits["graph"].significant
    samples = record.runs[0].modes["graph"]
    fast = [w for w, p in zip(samples.wall_us, samples.round_probes) if p == 600.0]
    assert host.at_reference["graph"] == median(fast)


def test_a_figure_without_a_significant_slope_is_not_moved_even_off_the_reference():
    from statistics import median

    record = record_at(alternating(620.0, 1000.0), seed=3)
    host = host_summary(record)
    assert not host.fits["graph"].significant and host.fits["graph"].slope != 0
    samples = record.runs[0].modes["graph"]
    fast = [w for w, p in zip(samples.wall_us, samples.round_probes) if p == 620.0]
    assert host.at_reference["graph"] == median(fast)  # exactly: no move along noise


def test_steady_walls_use_each_modes_own_round_readings_not_the_sets():
    from graphbench.analyze.host_figures import steady_walls

    record = record_at(np.concatenate([np.linspace(550, 650, 30), np.linspace(900, 1050, 30)]))
    assert all(c.host_probe_us == 300.0 for c in record.conditions)  # the sets read flat
    raw = np.asarray(record.samples("individual", "wall"))
    steady = np.asarray(steady_walls(record)["individual"])
    assert np.std(steady) < 0.2 * np.std(raw)


def test_a_record_of_the_launch_probe_states_a_cpu_bound_mode_over_its_probe():
    """A CPU-bound mode (individual: its wall is its launches) at the
    reference is the median of its rounds over their probe readings, times
    the reference; graph replay, not CPU-bound, its rounds as measured."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from host_gate_calibration import record

    launches = record(np.random.default_rng(0), 3, launch=True, host=1.1)
    summary = host_summary(launches)
    assert summary.cpu_bound == ("individual",) and not summary.why_not and not summary.fits
    readings = np.concatenate([run.modes[m].round_probes for run in launches.runs
                               for m in run.modes])
    assert summary.states == host_states(list(readings)) and summary.walls == {}
    per_probe = np.concatenate([np.asarray(run.modes["individual"].wall_us) /
                                np.asarray(run.modes["individual"].round_probes)
                                for run in launches.runs])
    assert summary.at_reference["individual"] == pytest.approx(
        float(np.median(per_probe)) * REFERENCE_PROBE_US, rel=1e-12)
    assert summary.at_reference["individual"] == pytest.approx(12.4, rel=0.01)
    graph = np.concatenate([run.modes["graph"].wall_us for run in launches.runs])
    assert summary.at_reference["graph"] == pytest.approx(float(np.median(graph)), rel=1e-12)
    assert host_summary(record_at([600.0] * 30)).cpu_bound is None   # the Python probe


def test_a_state_s_rounds_are_those_read_in_it_and_their_median_is_statistics_median():
    from statistics import StatisticsError

    from graphbench.analyze.host_figures import _in_state, _median

    states = host_states([600.0] * 10 + [1000.0] * 10)
    values, probes = [1.0, 2.0, 3.0, 4.0, 5.0], [600.0, None, 1000.0, 610.0]  # the 5th unread
    assert _in_state(values, probes, states, 0).tolist() == [1.0, 4.0]
    assert _in_state(values, probes, states, 1).tolist() == [3.0]
    assert _median([np.array([3.0, 1.0]), np.array([2.0, 10.0])]) == 2.5
    for nothing in ([], [np.zeros(0)]):
        with pytest.raises(StatisticsError):
            _median(nothing)


def test_one_state_at_the_reference_states_its_rounds_unmoved_whatever_their_slope():
    from statistics import median

    rng = np.random.default_rng(8)
    record = record_at(rng.uniform(620.0, 700.0, 60), seed=8)
    host = host_summary(record)
    assert host.states.count == 1 and host.fits["individual"].significant
    assert host.at_reference["individual"] == median(record.runs[0].modes["individual"].wall_us)


def launch_record(seed=0, processes=3):
    """A record of the launch probe (individual CPU-bound, graph replay not)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from host_gate_calibration import record

    return record(np.random.default_rng(seed), processes, launch=True)


def with_probes(record, mode, change):
    """The record with `mode`'s probe readings in each process made `change(process, readings)`."""
    runs = []
    for k, run in enumerate(record.runs):
        samples = run.modes[mode]
        around = {f: tuple(change(k, list(getattr(samples, f))))
                  for f in ("probe_before_us", "probe_after_us")}
        modes = {**run.modes, mode: dataclasses.replace(samples, **around)}
        runs.append(dataclasses.replace(run, modes=modes))
    return dataclasses.replace(record, runs=tuple(runs))


def test_a_launch_probe_record_states_cpu_bound_rounds_over_their_probe_and_others_as_measured():
    from graphbench.analyze.host_figures import stated_walls

    record = launch_record()
    stated, phase_free = stated_walls(record)
    assert phase_free
    over = [w / p * REFERENCE_PROBE_US for run in record.runs
            for w, p in zip(run.modes["individual"].wall_us, run.modes["individual"].round_probes)]
    assert stated["individual"] == pytest.approx(over, rel=1e-12)
    assert stated["graph"] == tuple(w for run in record.runs for w in run.modes["graph"].wall_us)


def test_a_mode_with_a_round_unread_in_any_process_is_not_stated_over_the_probe():
    from graphbench.analyze.host_figures import stated_walls, steady_walls

    def unread_in_last(k, readings):   # the last process's 6th round read no probe
        return [0.0 if k == 2 and i == 5 else p for i, p in enumerate(readings)]

    record = with_probes(launch_record(), "individual", unread_in_last)
    assert record.runs[2].modes["individual"].round_probes[5] == 0.0
    assert stated_walls(record) == (steady_walls(record), False)
    # and so with fewer readings than rounds
    short = with_probes(launch_record(), "individual",
                        lambda k, readings: readings[:-1] if k == 0 else readings)
    assert stated_walls(short) == (steady_walls(short), False)


def test_a_record_s_stated_walls_are_the_stop_rule_s_of_the_same_rounds():
    """The noise a record reports (summary) is the stop rule's, judged on the
    same series, whatever the probe's unit: here its readings under 1."""
    from graphbench.analyze import stopping
    from graphbench.analyze.host_figures import stated_walls

    record = with_probes(launch_record(processes=1), "individual",
                         lambda k, readings: [p / 1000 for p in readings])
    run = record.runs[0]
    assert max(run.modes["individual"].round_probes) < 1
    walls = {m: list(s.wall_us) for m, s in run.modes.items()}
    probes = {m: list(s.round_probes) for m, s in run.modes.items()}
    busy = {m: float(np.median(record.series(m, "busy"))) for m in run.modes}
    stop_walls, stop_phase_free = stopping.stated_walls(walls, probes, busy)
    stated, phase_free = stated_walls(record)
    assert phase_free and stop_phase_free
    assert {m: pytest.approx(v, rel=1e-12) for m, v in stop_walls.items()} == stated


def with_base_build(record, slower=1.01):
    """The record as an A/B run's: each process's individual rounds also as
    the base build's (`individual@base`), `slower` times as long."""
    runs = []
    for run in record.runs:
        samples = run.modes["individual"]
        base = dataclasses.replace(samples, wall_us=tuple(w * slower for w in samples.wall_us))
        runs.append(dataclasses.replace(run, modes={**run.modes, "individual@base": base}))
    return dataclasses.replace(record, runs=tuple(runs))


def test_an_ab_record_s_noise_is_the_stop_rule_s_its_ratios_at_their_own_host_speed():
    from graphbench.analyze import stopping
    from graphbench.analyze.host_figures import stated_walls, steady_walls
    from graphbench.analyze.summary import summarize_run

    record = with_base_build(launch_record(processes=1))
    assert stated_walls(record) == (steady_walls(record), False)
    run = record.runs[0]
    walls = {m: list(s.wall_us) for m, s in run.modes.items()}
    probes = {m: list(s.round_probes) for m, s in run.modes.items()}
    busy = {m: float(np.median(record.series("individual", "busy"))) for m in run.modes}
    assert summarize_run(record).noise == pytest.approx(
        stopping.headline_noise(walls, probes, busy), rel=1e-12)
