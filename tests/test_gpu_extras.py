"""GPU tests of the lifecycle, floor, update and L2-flush measurements."""

import numpy as np
import pytest

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.kernels import HOLD_KERNEL
from graphbench.lifecycle import BUSY_MAX_ITERATIONS, BUSY_MIN_ITERATIONS, BusyProbe
from graphbench.record import read_record
from graphbench.runner import Session, run_benchmark

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def record():
    return run_benchmark(RunConfig(elements=100_000, iters=200, rounds=5))


def test_graph_update_verifies_on_new_buffers_and_leaves_old_ones_untouched(record):
    checks = {c["name"]: c for c in record["verification"]["checks"]}
    for method in ("kernel nodes", "whole graph"):
        new = checks[f"graph update ({method}): new buffers"]
        old = checks[f"graph update ({method}): old buffers not written"]
        assert new["passed"] and new["elements"] == 100_000
        assert old["passed"] and old["elements"] == 3 * 100_000 and old["bad_elements"] == 0


def test_lifecycle_timings_are_positive_and_ordered(record):
    life, update = record["graph_lifecycle"], record["graph_update"]
    for key in ("capture_us", "instantiate_us", "upload_us", "first_launch_us"):
        assert 0 < life[key]["median"] < 100_000
    assert life["build_us"] > life["capture_us"]["median"]
    # re-pointing three nodes is cheaper than capturing and instantiating anew
    assert update["node_update_us"]["median"] < update["recapture_instantiate_us"]["median"]
    floor = record["launch_floor"]
    assert 0 < floor["kernel_launch_us"]["median"] < 100
    assert 0 < floor["graph_replay_us"]["median"] < 100


def test_busy_time_is_within_wall_time(record):
    for name, row in record["breakdown"].items():
        wall = record["modes"][name]["stats"]["wall"]["median"]
        assert 0 < row["busy_us"] <= wall * 1.1, name
    assert record["breakdown"]["individual"]["launches_per_iteration"] == 3


def test_busy_probe_grows_its_hold_until_the_replay_is_queued_behind_it():
    with Session(RunConfig(elements=4096, iters=10, rounds=1), None) as session:
        session.pipeline.fill_random(np.random.default_rng(0))
        probe = BusyProbe(session.device, session.stream, session.pipeline.enqueue_fused,
                          session.kernels[HOLD_KERNEL])
        try:
            assert BUSY_MIN_ITERATIONS < probe.iterations <= BUSY_MAX_ITERATIONS
            probe.hold_us = 0.001  # 1 ns is over before the host has launched the graph
            busy = probe.measure()
            assert probe.hold_us > 0.001
            assert 0.1 < busy < 20  # one fused kernel on 4096 elements, in microseconds
        finally:
            probe.close()


def test_flush_l2_runs_and_is_recorded(tmp_path):
    path = tmp_path / "cold.json"
    assert main(["run", "--elements", "4096", "--iters", "100", "--rounds", "3", "--flush-l2",
                 "--no-progress", "--json", str(path)]) == 0
    cold = read_record(path)
    assert cold["sampling"]["flush_l2"] is True and cold["cache"]["l2_resident"] is False
    assert cold["verification"]["passed"]


def test_adaptive_sampling_stops_and_says_why(tmp_path):
    path = tmp_path / "adaptive.json"
    assert main(["run", "--max-time", "0.5", "--no-progress", "--json", str(path)]) == 0
    sampling = read_record(path)["sampling"]
    assert sampling["rule"] == "adaptive" and sampling["rounds"] >= 10
    assert sampling["stop_reason"] in ("noise-target", "time-budget")
    assert len(sampling["conditions"]) == sampling["rounds"]
