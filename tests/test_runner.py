"""graphbench.runner.measure_one: where one run is measured. In this process
while it has not used the GPU; in a fresh one once it has (a second run in
one process read busy 35% higher on an H100), except a pipeline object,
which only this process can run. No GPU: the measurement itself is stubbed.

Covers graphbench/measure/__init__.py.
Covers graphbench/measure/session.py."""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import replace

import pytest

from graphbench import runner
from graphbench.config import RunConfig
from graphbench.measure import conditions, device, session
from conftest import make_record

CONFIG = RunConfig(elements=4096)


@pytest.fixture
def where(monkeypatch):
    """Which path measured: ("here", spec) or ("fresh", processes)."""
    taken = []
    monkeypatch.setattr(runner, "run_benchmark", lambda config, on_round=None, spec=None:
                        taken.append(("here", spec)) or make_record())
    monkeypatch.setattr("graphbench.measure.processes.run_sets",
                        lambda configs, count, on_done=None:
                        taken.append(("fresh", count)) or [[make_record()] * count] * len(configs))
    return taken


def used(monkeypatch, sessions: int, in_use: bool) -> None:
    monkeypatch.setattr(session, "_OPENED", [sessions])
    monkeypatch.setattr(device, "gpu_in_use", lambda index: in_use)


def test_a_process_that_has_not_used_the_gpu_measures_here(monkeypatch, where):
    used(monkeypatch, 0, False)
    runner.measure_one(CONFIG)
    assert where == [("here", None)]


@pytest.mark.parametrize("sessions, in_use", [(1, False), (0, True), (3, True)])
def test_once_the_process_has_used_the_gpu_a_pipeline_file_goes_to_a_fresh_process(
        monkeypatch, where, sessions, in_use):
    used(monkeypatch, sessions, in_use)
    runner.measure_one(CONFIG)
    assert where == [("fresh", 1)]


def test_a_pipeline_object_is_measured_here_whatever_ran_before(monkeypatch, where):
    used(monkeypatch, 2, True)
    spec = object()
    runner.measure_one(CONFIG, spec=spec)
    assert where == [("here", spec)]


def test_several_processes_are_fresh_ones_in_any_process(monkeypatch, where):
    used(monkeypatch, 0, False)
    runner.measure_one(CONFIG, processes=3)
    assert where == [("fresh", 3)]


def test_the_device_asked_about_is_the_runs_own(monkeypatch, where):
    asked = []
    monkeypatch.setattr(session, "_OPENED", [0])
    monkeypatch.setattr(device, "gpu_in_use", lambda index: asked.append(index) or False)
    runner.measure_one(replace(CONFIG, device=3))
    assert asked == [3] and where == [("here", None)]


def fake_driver(initialised: bool, active: int):
    from types import SimpleNamespace

    ok, not_initialised = "SUCCESS", "NOT_INITIALIZED"

    def get(index):
        return (ok, f"handle {index}") if initialised else (not_initialised, None)

    def state(handle):
        assert handle == "handle 2"  # the device asked about, through its driver handle
        return ok, 0, active

    return SimpleNamespace(CUresult=SimpleNamespace(CUDA_SUCCESS=ok), cuDeviceGet=get,
                           cuDevicePrimaryCtxGetState=state)


@pytest.mark.parametrize("initialised, active, in_use", [
    (True, 1, True), (True, 0, False), (False, 1, False)])
def test_the_gpu_is_in_use_when_its_primary_context_is_active(monkeypatch, initialised, active,
                                                              in_use):
    import cuda.bindings

    monkeypatch.setattr(cuda.bindings, "driver", fake_driver(initialised, active))
    assert device.gpu_in_use(2) is in_use


def test_without_a_driver_the_gpu_counts_as_unused():
    # this machine has no NVIDIA driver: the query fails, and fails as "not in use"
    assert device.gpu_in_use(0) is False


def test_sessions_are_counted_once_opened(monkeypatch):
    monkeypatch.setattr(session, "_OPENED", [0])
    monkeypatch.setattr(session.Session, "_open", lambda self: None)
    opened = object.__new__(session.Session)
    opened._exit = ExitStack()
    with opened:
        pass
    assert session.sessions_opened() == 1

    def failing(self):
        raise RuntimeError("no device")

    monkeypatch.setattr(session.Session, "_open", failing)
    with pytest.raises(RuntimeError):
        with opened:
            pass
    assert session.sessions_opened() == 1  # a session that failed to open is not counted


def test_the_parent_process_is_not_another_gpu_user(monkeypatch):
    monitor = object.__new__(conditions.DeviceMonitor)
    pids = [os.getpid(), os.getppid(), 4242]
    monkeypatch.setattr(monitor, "_query", lambda fn: pids, raising=False)
    assert monitor.other_processes() == (4242,)
    monkeypatch.setattr(monitor, "_query", lambda fn: None, raising=False)
    assert monitor.other_processes() is None


@pytest.mark.parametrize("processes, in_use, queued", [
    (1, False, [(2**20, True), (2**24, True)]),  # the run itself here, in this unused process
    (1, True, [(4096, False), (2**20, True), (2**24, True)]),
    (5, False, [(4096, False), (2**20, True), (2**24, True)])])
def test_gate_sizes_are_gate_points_queued_with_the_runs_fresh_processes(
        monkeypatch, where, processes, in_use, queued):
    used(monkeypatch, 0, in_use)
    sets = []
    monkeypatch.setattr("graphbench.measure.device.list_devices", lambda: [])
    monkeypatch.setattr("graphbench.measure.processes.run_sets",
                        lambda configs, count, on_done=None: sets.append((configs, count))
                        or [[make_record(seed=k)] * count for k in range(len(configs))])
    record = runner.measure(replace(CONFIG, gate_sizes=(2**20, 2**24)), processes)
    ((configs, count),) = sets  # one queue of fresh processes
    assert count == processes
    assert [(c.elements, c.gate_point) for c in configs] == queued
    assert all(c.gate_sizes == () for c in configs)
    assert all(c.iters is None for c in configs if c.gate_point)
    assert where == ([("here", None)] if len(queued) == 2 else [])
    assert len(record.gate_points) == 2
    assert [p.runs[0].seed for p in record.gate_points] == [len(queued) - 2, len(queued) - 1]


def test_a_gate_point_measures_no_extras():
    from types import SimpleNamespace

    from graphbench.measure.benchmark import GATE_POINT_SKIPS, measure_extras

    point = SimpleNamespace(config=replace(CONFIG, gate_point=True))  # nothing else is touched
    assert measure_extras(point, None, None) == ({"skipped": (GATE_POINT_SKIPS,)}, [])
