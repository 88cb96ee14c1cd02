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




def sets_run(conditions, own_probes=None):
    """A process with the given conditions, one per set of rounds; its graph
    rounds carry their own probes (`own_probes`, before and after) if given."""
    import dataclasses
    from conftest import make_run

    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=len(conditions))
    modes = dict(run.modes)
    if own_probes:
        modes["graph"] = dataclasses.replace(modes["graph"], probe_before_us=own_probes[0],
                                             probe_after_us=own_probes[1])
    return dataclasses.replace(run, conditions=tuple(conditions), modes=modes)


MIXED_SETS = [Condition(host_probe_us=600.0, host_probe_before_us=620.0),
              Condition(host_probe_us=700.0), Condition(host_probe_before_us=500.0), Condition()]


def test_a_mode_without_its_own_probes_reads_its_sets_probes():
    from graphbench.analyze.host_speed import mode_probes

    run = sets_run(MIXED_SETS)
    assert mode_probes(run, "graph") == [610.0, 700.0, 500.0, None]
    assert mode_probes(run, "fused") == [610.0, 700.0, 500.0, None]   # a mode the process lacks
    again = mode_probes(run, "individual")
    again.append(1.0)   # each caller gets a list of its own
    assert mode_probes(run, "individual") == [610.0, 700.0, 500.0, None]


def test_mode_probe_arrays_are_read_only_and_made_once_per_process():
    from graphbench.analyze.host_speed import mode_probe_array, mode_probes

    run = sets_run(MIXED_SETS, own_probes=((400.0, 410.0, 420.0, 430.0),
                                           (500.0, 510.0, 520.0, 530.0)))
    sets = mode_probe_array(run, "individual")
    assert sets.tolist() == [610.0, 700.0, 500.0, 0.0]   # the mean of both probes, else either
    assert mode_probe_array(run, "individual") is sets
    assert mode_probe_array(run, "fused") is sets   # one array for the modes that read the sets
    own = mode_probe_array(run, "graph")
    assert own.tolist() == [450.0, 460.0, 470.0, 480.0] and mode_probes(run, "graph") == list(own)
    assert mode_probe_array(run, "graph") is own
    for array in (sets, own):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0


def test_probe_array_keeps_an_array_and_reads_none_as_no_reading():
    from graphbench.analyze.host_speed import probe_array

    given = np.array([600.0, 0.0])
    assert probe_array(given) is given
    assert probe_array([600.0, None, 700.0]).tolist() == [600.0, 0.0, 700.0]


def test_states_of_an_array_reads_the_split_as_the_slower_state_and_one_state_as_zeros():
    states = host_states([600.0] * 20 + [1000.0] * 20)
    assert states.states_of(np.array([600.0, states.split, 1000.0])).tolist() == [0, 1, 1]
    one = host_states([600.0] * 20).states_of(np.array([600.0, 2000.0]))
    assert one.tolist() == [0, 0] and one.dtype.kind == "i"


@pytest.mark.parametrize("probes, counts", [
    ([600.0] * 27 + [1000.0] * 3, (27, 3)),          # each state at least a tenth of the readings
    ([600.0] * 3 + [1000.0] * 27, (3, 27)),
    ([600.0] * 28 + [1000.0] * 2, (30,)),
    ([600.0] * 23 + [1000.0] * 2, (25,)),            # a tenth of 25 rounds up to 3
    ([600.0, 600.0, 1000.0, 1000.0], (2, 2)),         # at least 2 readings a state
    ([600.0, 1000.0, 1000.0, 1000.0], (4,)),
    ([1000.0] * 5 + [1350.0] * 5, (5, 5)),            # medians exactly STATE_GAP apart
    ([1000.0] * 5 + [1349.0] * 5, (10,)),
])
def test_the_states_boundaries(probes, counts):
    assert host_states(probes).counts == counts


def test_the_split_is_the_geometric_mean_of_the_readings_either_side_of_the_gap():
    states = host_states(list(np.linspace(500.0, 640.0, 12)) +
                         list(np.linspace(1000.0, 1100.0, 12)))
    assert states.split == pytest.approx(800.0) and states.medians == (570.0, 1050.0)


def test_an_array_s_zeros_are_no_readings():
    states = host_states(np.array([0.0, 600.0, 0.0, 610.0]))
    assert states.counts == (2,) and states.medians == (605.0,)


def test_rounds_without_a_reading_or_a_value_are_left_out_of_the_fit():
    rng = np.random.default_rng(4)
    p = rng.uniform(550, 650, 30)
    values = list(5.0 + 0.01 * p + rng.normal(0, 0.05, 30))
    with_gaps = [None if i % 4 == 0 else float(x) for i, x in enumerate(p)]
    kept = [i for i in range(30) if i % 4]
    fit = within_fit([values + [99.0]], [with_gaps])     # a value past the last reading
    assert fit == within_fit([[values[i] for i in kept]], [[float(p[i]) for i in kept]])
    assert fit.rounds == 22
    assert within_fit([values[:25]], [list(p)]) == within_fit([values[:25]], [list(p[:25])])


def expected_fit(values_by_process, probes_by_process):
    """Least squares by hand: each process centred on its own means, and one
    degree of freedom lost per process and one for the slope."""
    x = [np.asarray(p, dtype=float) - np.mean(p) for p in probes_by_process]
    y = [np.asarray(v, dtype=float) - np.mean(v) for v in values_by_process]
    x, y = np.concatenate(x), np.concatenate(y)
    slope = float(np.sum(x * y) / np.sum(x * x))
    df = x.size - len(probes_by_process) - 1
    se = float(np.sqrt(np.sum((y - slope * x) ** 2) / df / np.sum(x * x)))
    return slope, se, float(np.corrcoef(x, y)[0, 1]), x.size


def test_the_slope_s_error_counts_a_degree_of_freedom_for_each_process_of_two_readings_or_more():
    values = [[5.0, 5.3, 5.1, 5.6], [7.0, 7.2], [9.0]]
    probes = [[600.0, 630.0, 610.0, 650.0], [600.0, 640.0], [610.0]]
    fit = within_fit(values, probes)
    assert fit.rounds == 6
    assert (fit.slope, fit.slope_se, fit.correlation) == pytest.approx(
        expected_fit(values[:2], probes[:2])[:3], rel=1e-9)


def test_a_fit_needs_two_degrees_of_freedom_and_spread_in_the_probe():
    from graphbench.analyze.host_speed import NO_FIT

    four = within_fit([[5.0, 5.2, 5.1, 5.4]], [[600.0, 600.2, 600.1, 600.3]])  # a spread under 1
    assert four.rounds == 4 and four.slope == pytest.approx(expected_fit(
        [[5.0, 5.2, 5.1, 5.4]], [[600.0, 600.2, 600.1, 600.3]])[0], rel=1e-9)
    assert within_fit([[5.0, 5.2, 5.1]], [[600.0, 620.0, 610.0]]) == NO_FIT
    assert within_fit([[5.0, 5.2, 5.1, 5.4]], [[600.0] * 4]) == NO_FIT


def test_a_figure_that_does_not_move_has_no_correlation_and_a_tiny_one_its_own():
    flat = within_fit([[5.0] * 6], [[600.0, 620.0, 610.0, 640.0, 630.0, 650.0]])
    assert flat.slope == 0 and flat.correlation == 0.0
    tiny = within_fit([[1e-3, 1.1e-3, 1.05e-3, 1.2e-3]], [[600.0, 620.0, 610.0, 640.0]])
    assert tiny.correlation == pytest.approx(1.0)


def test_a_fit_is_significant_from_min_fit_rounds_and_a_slope_over_three_errors():
    from graphbench.analyze.host_speed import MIN_FIT_ROUNDS, Fit

    assert Fit(0.01, 0.001, 0.9, MIN_FIT_ROUNDS).significant
    assert not Fit(0.01, 0.001, 0.9, MIN_FIT_ROUNDS - 1).significant
    assert not Fit(0.03, 0.01, 0.9, MIN_FIT_ROUNDS).significant
    assert not Fit(-0.01, 0.001, 0.9, MIN_FIT_ROUNDS).significant


def test_steadied_brings_rounds_to_the_median_of_the_readings_there_are():
    rng = np.random.default_rng(5)
    p = np.where(np.arange(100) % 3 == 0, rng.uniform(900, 1050, 100), rng.uniform(550, 700, 100))
    raw = 8.0 + 0.009 * p + rng.normal(0, 0.02, p.size)
    read = np.arange(100) % 4 != 1
    probes = [float(x) if r else None for x, r in zip(p, read)]
    steady = np.asarray(steadied(list(raw), probes))
    assert np.array_equal(steady[~read], raw[~read])          # rounds without a reading as they are
    assert np.median(steady[read]) == pytest.approx(8.0 + 0.009 * np.median(p[read]), abs=0.02)


def test_a_cpu_bound_figure_is_stated_at_the_reference_speed_only_where_every_round_was_read():
    from graphbench.analyze.host_speed import at_reference_speed

    assert at_reference_speed([12.0, 15.0], [600.0, 1000.0, 700.0]) == pytest.approx((12.0, 9.0))
    assert at_reference_speed([12.0, 15.0], np.array([300.0, 1200.0])) == pytest.approx(
        (24.0, 7.5))
    for unread in ([600.0, None], [600.0, 0.0], [600.0], [600.0, -5.0]):
        assert at_reference_speed([12.0, 15.0], unread) is None
    assert at_reference_speed([], []) == ()
