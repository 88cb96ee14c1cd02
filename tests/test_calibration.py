"""graphbench.analyze.intervals holds its calibration targets in simulation
(benchmarks/calibration.py's models, fixed seeds, 4000 series each):

- stated 0.95: the interval covers the true median in at least 93% of series
  (an invalid interval is no miss), and at most 5% of intervals are invalid
  for rho <= 0.5 at n >= 20;
- stated 0.99, the level the gate decides at: each one-sided miss at most 1%.

Slow host phases are the exception, pinned here at what they reach: a window
that stays in one phase is an independent-looking sample of that phase, so no
interval of near-iid width covers the whole process's median from it (at
n = 30, 20% of windows never leave the fast phase)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest

ROWS = 4000
SPEC = importlib.util.spec_from_file_location(
    "calibration", Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py")
calibration = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(calibration)
MODELS = calibration.models()
STEADY = [name for name in MODELS if not name.startswith("slow phase")]
CORRELATED_AT_MOST_HALF = {"iid normal", "iid t3", "iid lognormal", "iid 2% outliers 3x",
                           "AR(1) rho 0.0", "AR(1) rho 0.25", "AR(1) rho 0.5",
                           "A/B unshared rho 0.5"}


@functools.lru_cache(maxsize=None)
def results(name):
    seed = list(MODELS).index(name)
    simulate, truth = MODELS[name]
    return calibration.evaluate(simulate, truth, ROWS, seed)


@pytest.mark.parametrize("name", STEADY)
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_stated_95_covers_at_least_93(name, n):
    below, above, invalid, _ = results(name)[n, 0.95]
    assert below + above <= 0.07, (below, above, invalid)


@pytest.mark.parametrize("name", STEADY)
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_stated_99_misses_each_side_at_most_1_percent(name, n):
    below, above, invalid, _ = results(name)[n, 0.99]
    assert below <= 0.01 and above <= 0.01, (below, above, invalid)


@pytest.mark.parametrize("name", sorted(CORRELATED_AT_MOST_HALF))
@pytest.mark.parametrize("n", [n for n in calibration.LENGTHS if n >= 20])
def test_few_invalid_intervals_up_to_rho_one_half(name, n):
    assert results(name)[n, 0.95][2] <= 0.05


def test_iid_width_is_close_to_the_order_statistic_interval():
    assert results("iid normal")[30, 0.95][3] <= 1.3


@pytest.mark.parametrize("name", [name for name in MODELS if name.startswith("slow phase")])
def test_slow_phases_reach_93_percent_at_100_rounds(name):
    below, above, _, _ = results(name)[100, 0.95]
    assert below + above <= 0.07


@pytest.mark.parametrize("name", [name for name in MODELS if name.startswith("slow phase")])
@pytest.mark.parametrize("n", calibration.LENGTHS)
def test_slow_phases_do_no_worse_than_recorded(name, n):
    """Not the target: today's figures (the docstring says why), kept from getting worse."""
    below, above, _, _ = results(name)[n, 0.95]
    assert below + above <= 0.16
    below, above, _, _ = results(name)[n, 0.99]
    assert max(below, above) <= 0.06
