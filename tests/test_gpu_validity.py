"""GPU tests of what issue 11 made trustworthy: graphbench's own comparison
kernels, the SM clock read during timed work, and cold L2 that is cold."""

import numpy as np
import pytest

from graphbench.analyze.summary import summarize_run
from graphbench.config import RunConfig
from graphbench.measure.benchmark import run_benchmark
from graphbench.measure.session import Session
from graphbench.measure.verify import compare, untouched

pytestmark = pytest.mark.gpu


def test_the_gpu_checker_agrees_with_the_numpy_rule():
    import cupy

    rng = np.random.default_rng(3)
    with Session(RunConfig(elements=4096, iters=10, rounds=1), None) as session:
        expected = rng.uniform(-1, 1, 100_003).astype(np.float32)
        actual = expected.copy()
        actual[[17, 5000, 99_999]] += np.float32(1e-3)        # wrong beyond the tolerance
        actual[42] += np.float32(1e-7)                         # within it
        actual[70_000] = np.nan
        off = actual.copy()
        off[70_000] = expected[70_000] + np.float32(0.25)      # a finite worst error
        for host in (actual, off, expected.copy()):
            gpu = session.checker.compare("x", cupy.asarray(host), cupy.asarray(expected),
                                          1e-5, 1e-5)
            ref = compare("x", host, expected, 1e-5, 1e-5)
            assert (gpu.passed, gpu.bad_elements, gpu.first_bad_index) == \
                (ref.passed, ref.bad_elements, ref.first_bad_index)
            assert (gpu.max_abs_error is None) == (ref.max_abs_error is None)
            if ref.max_abs_error is not None:
                assert gpu.max_abs_error == pytest.approx(ref.max_abs_error, rel=1e-3, abs=1e-7)
        gpu = session.checker.compare("x", cupy.asarray(actual), cupy.asarray(expected), 1e-5, 1e-5)
        assert (gpu.bad_elements, gpu.first_bad_index, gpu.max_abs_error) == (4, 17, None)
        poisoned = [np.full(1000, np.nan, dtype=np.float32) for _ in range(3)]
        poisoned[2][7] = 1.0
        gpu = session.checker.untouched("old", [cupy.asarray(p) for p in poisoned])
        host = untouched("old", poisoned)
        assert (gpu.passed, gpu.bad_elements, gpu.first_bad_index) == (False, 1, 2007) == \
            (host.passed, host.bad_elements, host.first_bad_index)


def test_every_busy_reading_carries_its_hold_and_the_measured_sm_clock():
    record = run_benchmark(RunConfig(elements=4096, iters=100, rounds=4))
    readings = [r for c in record.conditions for r in c.busy.values()]
    assert len(readings) == 2 * 4  # stages and fused, after every round
    max_mhz = record.device.sm_clock_max_mhz or 2000
    for reading in readings:
        assert reading.covered is True and reading.hold_us >= 100
        assert 0.5 * max_mhz < reading.sm_clock_mhz < 1.05 * max_mhz
    held = [c.submit["graph"] for c in record.conditions]
    assert all(r.covered and 0 < r.us < 100 for r in held)


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
