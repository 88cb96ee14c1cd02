"""graphbench.stats.intervals holds its calibration targets in simulation
(tests/calibration.py's models, fixed seeds, 4000 series each):

- stated 0.95: of the intervals stated, at least 93% cover the true median,
  slow host phases included; every series of 20 or more rounds gets one;
- stated 0.99, the level the gate decides at: each one-sided miss at most 1%
  (slow host phases: at most 2.5%, 4.5% at 20 rounds);
- no interval from fewer than 20 rounds.

Slow host phases are met by the intervals' host-phase allowance
(graphbench.stats.intervals): a window that stays in one phase is an
independent-looking sample of that phase (at n = 30, 20% of windows never
leave the fast phase), so the allowance is a floor on the autocorrelation
time, paid for in width while windows are short; the width test pins that
cost."""

from __future__ import annotations

import functools

import pytest

import calibration  # tests/calibration.py

ROWS = 4000
MODELS = calibration.models()
STEADY = [name for name in MODELS if not name.startswith("slow phase")]


@functools.lru_cache(maxsize=None)
def results(name):
    seed = list(MODELS).index(name)
    simulate, truth = MODELS[name]
    return calibration.evaluate(simulate, truth, ROWS, seed,
                                shared_phases=calibration.shares_phases(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_stated_95_covers_at_least_93(name, n):
    below, above, invalid, _ = results(name)[n, 0.95]
    assert invalid == 1.0 or (below + above) / (1 - invalid) <= 0.07, (below, above, invalid)


@pytest.mark.slow
@pytest.mark.parametrize("name", STEADY)
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_stated_99_misses_each_side_at_most_1_percent(name, n):
    below, above, invalid, _ = results(name)[n, 0.99]
    assert below <= 0.01 and above <= 0.01, (below, above, invalid)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("n", [n for n in calibration.LENGTHS if n >= 20])
def test_every_series_of_20_rounds_gets_an_interval(name, n):
    assert results(name)[n, 0.95][2] == 0.0


def test_iid_width_pays_for_the_host_phase_allowance_only_in_short_runs():
    widths = {n: results("iid normal")[n, 0.95][3] for n in calibration.LENGTHS if n >= 20}
    assert max(widths.values()) <= 2.7 and widths[30] <= 2.1
    assert widths[150] <= 1.3


def test_ab_ratios_need_no_allowance():
    assert results("A/B unshared rho 0.5")[60, 0.95][3] <= 1.6


@pytest.mark.parametrize("name", list(MODELS))
def test_no_interval_from_fewer_than_20_rounds(name):
    assert results(name)[10, 0.95][2] == 1.0 and results(name)[20, 0.95][2] < 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in MODELS if name.startswith("slow phase")])
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_slow_phases_at_99(name, n):
    """The gate's level is used only on A/B ratios, which share their phases;
    at 20 rounds 4.5% of windows lie wholly in the slow phase."""
    below, above, _, _ = results(name)[n, 0.99]
    assert max(below, above) <= (0.045 if n == 20 else 0.025)


BETWEEN_MODELS = ["slow phase 2.0x", "slow phase 1.2x", "AR(1) rho 0.9", "iid normal"]


@functools.lru_cache(maxsize=None)
def between_coverage(name, processes, rounds, rows=1000):
    """Coverage of summary.between_process_interval over `processes`
    independent windows of `rounds` rounds each, widened to the pooled rounds'
    interval as run_speedups does."""
    import numpy as np

    from graphbench.stats.intervals import _median_intervals
    from graphbench.stats.summary import between_process_interval

    simulate, truth = MODELS[name]
    seed = 1000 + 10 * list(MODELS).index(name) + processes
    series = simulate(np.random.default_rng(seed), rows * processes, rounds)
    series = series.reshape(rows, processes, rounds)
    medians = np.median(series, axis=2)
    _, low, high, _, _, valid = _median_intervals(series.reshape(rows, -1), 0.95)
    covered = 0
    for row in range(rows):
        pooled = (float(low[row]), float(high[row])) if valid[row] else None
        a, b = between_process_interval([float(m) for m in medians[row]], pooled)["interval"]
        covered += a <= truth <= b
    return covered / rows


@pytest.mark.slow
@pytest.mark.parametrize("name", BETWEEN_MODELS)
@pytest.mark.parametrize("processes", [3, 5])
@pytest.mark.parametrize("rounds", [10, 30])
def test_the_between_process_interval_covers_at_least_93(name, processes, rounds):
    assert between_coverage(name, processes, rounds) >= 0.93
