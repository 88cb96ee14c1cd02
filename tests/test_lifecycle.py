"""How many iterations a busy-time replay holds (no GPU needed).

Covers graphbench/measure/busy.py."""

from graphbench.measure.busy import (BUSY_MAX_ITERATIONS, BUSY_MIN_ITERATIONS, BUSY_TARGET_US,
                                  busy_iterations)


def test_replay_lasts_about_the_target():
    assert busy_iterations(4.0) == int(BUSY_TARGET_US / 4.0)


def test_tiny_kernels_are_capped_and_huge_ones_still_repeat():
    assert busy_iterations(0.001) == BUSY_MAX_ITERATIONS
    assert busy_iterations(0.0) == BUSY_MAX_ITERATIONS
    assert busy_iterations(50_000.0) == BUSY_MIN_ITERATIONS
