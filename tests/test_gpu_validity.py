"""GPU tests of what makes the figures trustworthy: graphbench's own comparison
kernels, the SM clock read during timed work, and cold L2 that is cold.

Covers graphbench/measure/reference.py."""

import numpy as np
import pytest

from graphbench.stats.summary import summarize_run
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark
from graphbench.measure.verify import compare, untouched

pytestmark = pytest.mark.gpu


def test_device_arrays_are_checked_exactly_as_host_arrays(monkeypatch):
    import cupy

    import graphbench.measure.verify as verify

    monkeypatch.setattr(verify, "CHUNK", 4096)  # many chunks, a bad element near each edge
    rng = np.random.default_rng(3)
    expected = rng.uniform(-1, 1, 100_003).astype(np.float32)
    actual = expected.copy()
    actual[[4095, 4096, 99_999]] += np.float32(1e-3)
    actual[70_000] = np.nan
    on_device = compare("x", cupy.asarray(actual), cupy.asarray(expected), 1e-5, 1e-5)
    assert on_device == compare("x", actual, expected, 1e-5, 1e-5)
    assert (on_device.bad_elements, on_device.first_bad_index) == (4, 4095)
    poisoned = [np.full(5000, np.nan, dtype=np.float32) for _ in range(3)]
    poisoned[2][4100] = 1.0
    assert untouched("old", [cupy.asarray(p) for p in poisoned]) == untouched("old", poisoned)


def test_every_busy_reading_carries_its_hold_and_the_measured_sm_clock():
    record = run_benchmark(RunConfig(elements=4096, iters=100, rounds=4))
    readings = [r for c in record.conditions for r in c.busy.values()]
    assert len(readings) == 2 * 4  # stages and fused, after every round
    max_mhz = record.device.sm_clock_max_mhz or 2000
    for reading in readings:
        assert reading.covered is True and reading.hold_us >= 100
        assert 0.5 * max_mhz < reading.sm_clock_mhz < 1.05 * max_mhz
    for mode in ("individual", "graph", "fused"):  # the CPU's cost, not a wait for the GPU
        held = [c.submit[mode] for c in record.conditions]
        assert all(r.covered and 0 < r.us < 100 for r in held), mode


def test_cold_l2_is_slower_than_warm_where_the_working_set_fits():
    """GPU busy time, warm (a replay of many iterations) against cold (one
    iteration after an L2 flush). Both are GPU time alone, so the difference
    is the cache: 24 MiB fits in the H200's 60 MiB L2 when warm."""
    def busy_us(flush: bool) -> float:
        record = run_benchmark(RunConfig(elements=2**20, iters=20, rounds=3, flush_l2=flush,
                                         modes=("individual", "graph")))
        assert record.verified
        return summarize_run(record).modes["graph"].busy.median

    warm, cold = busy_us(False), busy_us(True)
    assert cold > 1.2 * warm, (warm, cold)


def test_every_round_keeps_its_host_probes_and_every_set_the_gpu_reference():
    record = run_benchmark(RunConfig(elements=4096, iters=100, rounds=4))
    run = record.runs[0]
    for samples in run.modes.values():
        assert len(samples.probe_before_us) == len(samples.probe_after_us) == 4
        assert all(0 < p < 1e6 for p in samples.probe_before_us + samples.probe_after_us)
    for condition in run.conditions:
        assert condition.host_probe_before_us > 0 and condition.host_probe_us > 0
        assert set(condition.reference) == {"stream", "compute"}
        assert all(r.us > 0 and r.covered for r in condition.reference.values())
    relative = record.samples("individual", "relbusy")
    assert len(relative) == 4 and all(0 < x < 1 for x in relative)  # 3 us of work over a 70 us copy
    assert summarize_run(record).host is not None
