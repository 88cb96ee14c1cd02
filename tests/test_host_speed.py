"""graphbench.analyze.host_speed: host speed states from the fixed CPU probe,
the slope of a figure on it, and rounds brought to the run's own host speed."""

import numpy as np
import pytest

from graphbench.analyze.host_speed import (at_probe, host_states, set_probes,
                                           steadied, within_fit)
from graphbench.record.model import Condition


def test_the_reading_of_a_set_is_the_mean_of_the_probes_around_it():
    conditions = [Condition(host_probe_us=600.0, host_probe_before_us=620.0),
                  Condition(host_probe_us=700.0),  # an older record: after the set only
                  Condition(host_probe_before_us=500.0),
                  Condition()]
    assert set_probes(conditions) == [610.0, 700.0, 500.0, None]


def test_two_states_are_found_with_their_medians_and_counts():
    rng = np.random.default_rng(1)
    fast, slow = rng.uniform(520, 660, 40), rng.uniform(860, 1140, 25)
    states = host_states(list(rng.permutation(np.r_[fast, slow])))
    assert states.count == 2 and states.counts == (40, 25)
    assert states.medians == pytest.approx((np.median(fast), np.median(slow)))
    assert states.state_of(650) == 0 and states.state_of(870) == 1


@pytest.mark.parametrize("probes", [
    [600.0] * 30,                                   # one state
    list(np.linspace(520, 660, 30)),                # jitter inside a state
    [600.0] * 29 + [1100.0],                        # a lone slow reading is an outlier
    [600.0, 1000.0, 610.0],                         # too few readings to call states
])
def test_one_state_where_the_readings_do_not_form_two(probes):
    states = host_states(probes)
    assert states.count == 1 and states.split is None and sum(states.counts) == len(probes)


def test_no_readings_no_states():
    assert host_states([None, None]) is None and host_states([]) is None


def test_within_fit_recovers_the_slope_inside_each_process_whatever_their_levels():
    rng = np.random.default_rng(2)
    values, probes = [], []
    for level in (10.0, 14.0, 30.0):   # the processes' own levels do not enter the slope
        p = rng.uniform(550, 650, 200)
        values.append(level + 0.009 * p + rng.normal(0, 0.05, p.size))
        probes.append(list(p))
    fit = within_fit(values, probes)
    assert fit.slope == pytest.approx(0.009, abs=3 * fit.slope_se)
    assert fit.significant and fit.rounds == 600 and fit.correlation > 0.8


def test_a_figure_that_does_not_follow_the_host_has_no_significant_slope():
    rng = np.random.default_rng(3)
    p = rng.uniform(550, 650, 200)
    fit = within_fit([5.8 + rng.normal(0, 0.05, p.size)], [list(p)])
    assert not fit.significant


def test_at_probe_moves_each_round_along_the_slope_and_keeps_unread_rounds():
    assert at_probe([10.0, 12.0, 7.0], [500.0, 700.0, None], 0.01, 600.0) == (11.0, 11.0, 7.0)
    assert at_probe([10.0, 12.0], [500.0], 0.01, 600.0) == (11.0, 12.0)


def test_steadied_removes_host_jitter_and_keeps_the_median_at_the_runs_speed():
    rng = np.random.default_rng(5)
    p = np.where(np.arange(100) % 3 == 0, rng.uniform(900, 1050, 100), rng.uniform(550, 700, 100))
    raw = 8.0 + 0.009 * p + rng.normal(0, 0.02, p.size)
    steady = np.asarray(steadied(list(raw), list(p)))
    assert np.std(steady) < 0.3 * np.std(raw)
    assert np.median(steady) == pytest.approx(8.0 + 0.009 * np.median(p), abs=0.02)


def test_steadied_leaves_the_rounds_of_one_host_state_as_they_are():
    # inside one state the probe's spread is mostly its own jitter: moving
    # rounds along it would add that jitter to them
    rng = np.random.default_rng(5)
    p = rng.uniform(550, 700, 100)
    raw = list(8.0 + 0.009 * p + rng.normal(0, 0.02, p.size))
    assert steadied(raw, list(p)) == tuple(raw)


def test_steadied_leaves_rounds_alone_without_a_significant_slope_or_readings():
    values = [5.0, 5.1, 4.9, 5.05] * 10
    assert steadied(values, [600.0] * 40) == tuple(values)     # no leverage: no fit
    assert steadied(values, [None] * 40) == tuple(values)


def two_state_record(fast_share=0.5, fast=600.0, slow=1000.0, rounds=60, seed=0):
    """One process whose rounds alternate between the host's states, with
    individual wall following the probe (8.05 + 0.0091 x probe) and graph
    wall not."""
    import dataclasses
    from conftest import make_record, make_run

    rng = np.random.default_rng(seed)
    probes = np.where(rng.uniform(size=rounds) < fast_share, fast, slow) * rng.uniform(0.97, 1.03,
                                                                                     rounds)
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=rounds, seed=seed)
    around = {"probe_before_us": tuple(map(float, probes)),
              "probe_after_us": tuple(map(float, probes))}
    walls = {"individual": 8.05 + 0.0091 * probes + rng.normal(0, 0.03, rounds),
             "graph": 5.8 + rng.normal(0, 0.02, rounds)}
    modes = {m: dataclasses.replace(run.modes[m], wall_us=tuple(map(float, w)), **around)
             for m, w in walls.items()}
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=rounds,
                       runs=[dataclasses.replace(run, modes=modes)])


def test_a_run_that_saw_both_states_states_its_figures_at_the_reference_speed():
    from graphbench.analyze.summary import summarize_run
    from graphbench.report.host import host_lines

    host = summarize_run(two_state_record()).host
    assert host.states.count == 2 and not host.why_not
    assert host.at_reference["individual"] == pytest.approx(8.05 + 0.0091 * 600, abs=0.05)
    assert host.at_reference["graph"] == pytest.approx(5.8, abs=0.02)
    assert host.speedup_at_reference() == pytest.approx(13.51 / 5.8, rel=0.01)
    first, second = host_lines(summarize_run(two_state_record()))
    assert first.startswith("host: two speed states") and "individual wall" in first
    assert "at the reference host speed (probe 600 us)" in second and "speedup 2.3" in second


def test_one_state_or_a_reference_out_of_reach_states_no_reference_figure():
    from graphbench.analyze.summary import summarize_run
    from graphbench.report.host import host_lines

    one = summarize_run(two_state_record(fast_share=0.0)).host
    assert one.at_reference == {} and "one host speed state" in one.why_not
    (line,) = host_lines(summarize_run(two_state_record(fast_share=0.0)))
    assert line.startswith("host: one speed state (probe about 10") and "this host's speed" in line
    far = summarize_run(two_state_record(fast=900.0, slow=1400.0)).host
    assert far.at_reference == {} and "too far" in far.why_not


def test_a_reading_at_the_split_belongs_to_the_slower_state():
    states = host_states([600.0] * 20 + [1000.0] * 20)
    assert states.state_of(states.split) == 1
    assert states.state_of(np.nextafter(states.split, 0)) == 0


