"""GPU tests of the lifecycle, floor, update and L2-flush measurements.

Covers graphbench/measure/l2.py."""

import numpy as np
import pytest

from graphbench.stats.summary import summarize_run
from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark
from graphbench.measure.busy import BUSY_MAX_ITERATIONS, BUSY_MIN_ITERATIONS, BusyProbe, Hold
from graphbench.measure.kernels import HOLD_KERNEL
from graphbench.measure.session import Session
from graphbench.record.codec import read_run

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def record():
    return run_benchmark(RunConfig(elements=100_000, iters=200, rounds=5))


def test_graph_update_verifies_on_new_buffers_and_leaves_old_ones_untouched(record):
    checks = {c.name: c for c in record.checks}
    for method in ("kernel nodes", "whole graph"):
        new = checks[f"graph update ({method}): new buffers [r3]"]
        old = checks[f"graph update ({method}): old buffers not written"]
        assert new.passed and new.elements == 100_000
        assert old.passed and old.elements == 3 * 100_000 and old.bad_elements == 0


def test_lifecycle_timings_are_positive_and_ordered(record):
    summary = summarize_run(record)
    life, update = summary.lifecycle, summary.update
    for key in ("capture_us", "instantiate_us", "upload_us", "first_launch_us"):
        assert 0 < getattr(life, key).median < 100_000
    assert life.build_us > life.capture_us.median
    # re-pointing three nodes is cheaper than capturing and instantiating anew
    assert update.node_update_us.median < update.recapture_instantiate_us.median
    floor = summary.launch_floor
    assert 0 < floor.kernel_launch_us.median < 100
    assert 0 < floor.graph_replay_us.median < 100


def test_busy_time_is_within_wall_time(record):
    summary = summarize_run(record)
    for name, row in summary.breakdown.items():
        assert 0 < row.busy_us <= summary.modes[name].wall.median * 1.1, name
    assert summary.breakdown["individual"].launches_per_iteration == 3


def test_busy_probe_grows_its_hold_until_the_replay_is_queued_behind_it():
    with Session(RunConfig(elements=4096, iters=10, rounds=1), None) as session:
        session.pipeline.fill_random(np.random.default_rng(0))
        hold = Hold(session.device, session.stream, session.kernels[HOLD_KERNEL])
        probe = BusyProbe(session.device, session.stream, session.pipeline.enqueue_fused, hold)
        try:
            assert BUSY_MIN_ITERATIONS < probe.iterations <= BUSY_MAX_ITERATIONS
            hold.us = 0.001  # 1 ns is over before the host has launched the graph
            busy = probe.measure()
            assert hold.us > 0.001 and busy.hold_us == hold.us and busy.covered
            assert 0.1 < busy.us < 20  # one fused kernel on 4096 elements, in microseconds
        finally:
            probe.close()
            hold.close()


def test_busy_readings_do_not_wait_out_the_submit_probes_hold():
    # 64 queued launches need a hold of 400-800 us on H100 hosts; one graph launch far less
    from graphbench.measure.probes import Probes

    with Session(RunConfig(elements=4096, iters=10, rounds=1), None) as session:
        session.pipeline.fill_random(np.random.default_rng(0))
        probes = Probes(session, None)
        try:
            probes.submit_hold.us = 20_000.0
            condition = probes.read()
            readings = [*condition.busy.values(), *condition.reference.values()]
            assert len(readings) == 4 and all(r.covered for r in readings)
            assert all(r.hold_us <= probes.hold.us < 20_000.0 for r in readings)
            assert all(r.covered for r in condition.submit.values())
        finally:
            probes.close()


def test_a_gate_point_reads_busy_every_set_and_submit_every_few_from_shorter_rounds():
    # the gate reads a gate size's busy time: its rounds and submit probes are thinned
    from dataclasses import replace

    from graphbench.measure.benchmark import calibrate_iters
    from graphbench.measure.probes import GATE_POINT_SUBMIT_EVERY

    point = run_benchmark(RunConfig(elements=1 << 20, gate_point=True))
    conditions = point.runs[0].conditions
    assert point.verified and point.runs[0].rounds == len(conditions) >= 8
    assert all(len(c.busy) == 2 for c in conditions)
    assert [i for i, c in enumerate(conditions) if c.submit] == \
        list(range(0, len(conditions), GATE_POINT_SUBMIT_EVERY))
    assert summarize_run(point).modes["individual"].held_submit.median > 0
    with Session(RunConfig(elements=1 << 20, iters=10, rounds=1), None) as session:
        whole = calibrate_iters(session)
        session.config = replace(session.config, gate_point=True)
        assert 0.3 < calibrate_iters(session) / whole < 0.7


def test_a_session_that_fails_while_opening_releases_what_it_opened(monkeypatch):
    import graphbench.measure.session as session_module
    from graphbench.measure.timing import EventTimer

    closed = []

    class RecordingTimer(EventTimer):
        def close(self):
            closed.append("timer")
            super().close()

    def failing_modes(names, pipeline, stream, *rest):
        raise RuntimeError("build failed")

    monkeypatch.setattr(session_module, "EventTimer", RecordingTimer)
    monkeypatch.setattr(session_module, "build_modes", failing_modes)
    session = Session(RunConfig(elements=4096, iters=10, rounds=1), None)
    with pytest.raises(RuntimeError, match="build failed"):
        with session:
            pass
    assert closed == ["timer"]
    assert session.pipeline.inputs == {}  # the buffers went back to the pool


def test_flush_l2_runs_and_is_recorded(tmp_path):
    path = tmp_path / "cold.json"
    assert main(["run", "--elements", "4096", "--iters", "100", "--rounds", "3", "--flush-l2",
                 "--no-progress", "--json", str(path)]) == 0
    cold = read_run(path)
    assert cold.config.flush_l2 and summarize_run(cold).cache.l2_resident is False
    assert cold.verified


def test_adaptive_sampling_stops_and_says_why(tmp_path):
    path = tmp_path / "adaptive.json"
    assert main(["run", "--max-time", "0.5", "--no-progress", "--json", str(path)]) == 0
    record = read_run(path)
    assert record.config.rounds is None and record.rounds >= 10
    assert record.stop_reason in ("noise-target", "time-budget")
    assert len(record.conditions) == record.rounds
