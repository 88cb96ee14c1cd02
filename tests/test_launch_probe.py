"""graphbench.measure.conditions.LaunchProbe, the host probe read between
rounds: what it launches and how a reading is made from its chunks (cuda.core's
launch replaced, so this runs without a GPU; tests/test_gpu_* run it for real).

Covers graphbench/measure/conditions.py."""

import numpy as np
import pytest

cuda_core = pytest.importorskip("cuda.core")

from graphbench.measure import conditions  # noqa: E402
from graphbench.measure.conditions import (CHUNK_LAUNCHES, LAUNCH_PROBE_UNIT, PROBE_CHUNKS,  # noqa: E402
                                           LaunchProbe)


class Clock:
    """A host clock that each launch moves on by the next of `costs` (s)."""

    def __init__(self, costs):
        self.now, self.costs = 0.0, list(costs)

    def __call__(self):
        return self.now

    def launch(self, *args):
        self.args = args
        self.now += self.costs.pop(0)


def test_a_reading_is_the_median_chunk_per_launch_stated_per_unit(monkeypatch):
    """Chunks of 8 launches at 4 us, one launch of one chunk held up by 100 us
    and one chunk at 6 us: the reading is 4 us x 150 launches, not a mean."""
    costs = [4e-6] * (PROBE_CHUNKS * CHUNK_LAUNCHES)
    costs[3] = 104e-6
    costs[CHUNK_LAUNCHES * 2:CHUNK_LAUNCHES * 3] = [6e-6] * CHUNK_LAUNCHES
    clock = Clock(costs)
    monkeypatch.setattr(cuda_core, "launch", clock.launch)
    monkeypatch.setattr(conditions.time, "perf_counter", clock)
    probe = LaunchProbe("stream", "kernel")
    assert probe() == pytest.approx(4.0 * LAUNCH_PROBE_UNIT)
    assert clock.costs == []  # every launch of every chunk made, none waited for
    stream, config, kernel, *arguments = clock.args
    assert (stream, kernel) == ("stream", "kernel") and config.grid == (1, 1, 1)
    assert arguments == [0, 0, 0, np.uint64(0)]  # a built-in stage's four arguments
