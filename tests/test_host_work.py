"""graphbench.measure.host_work: element-wise host work over slices, in
threads that are not held to the launching thread's CPU."""

import os

import pytest

from graphbench.measure import device, host_work


@pytest.fixture
def pinned_main_thread():
    """The main thread pinned as a run pins it; everything restored after."""
    before, unpinned = os.sched_getaffinity(0), set(device._UNPINNED)
    device._UNPINNED.clear()
    cpu = device.pin_host_thread(sorted(before))
    yield before, cpu
    os.sched_setaffinity(0, before)
    device._UNPINNED.clear()
    device._UNPINNED.update(unpinned)


def test_pinning_remembers_where_the_process_could_run(pinned_main_thread):
    before, cpu = pinned_main_thread
    assert os.sched_getaffinity(0) == {cpu}
    assert device.unpinned_cpus() == before
    device.pin_host_thread([cpu])                    # a second pinning keeps the first set
    assert device.unpinned_cpus() == before


def test_workers_run_where_the_process_could_before_its_pinning(pinned_main_thread, monkeypatch):
    before, cpu = pinned_main_thread
    monkeypatch.setattr(host_work, "WORKERS", 2)
    seen = host_work.over_slices(lambda part: os.sched_getaffinity(0), 3 * host_work.SLICE)
    assert seen == [before] * 3
    assert os.sched_getaffinity(0) == {cpu}          # the launching thread stays pinned


def test_one_slice_runs_in_the_calling_thread(pinned_main_thread):
    _, cpu = pinned_main_thread
    assert host_work.over_slices(lambda part: (part, os.sched_getaffinity(0)), 10) == \
        [(slice(0, 10), {cpu})]


def test_a_process_never_pinned_leaves_workers_where_they_start(monkeypatch):
    monkeypatch.setattr(device, "_UNPINNED", set())
    monkeypatch.setattr(host_work, "WORKERS", 2)
    here = os.sched_getaffinity(0)
    assert host_work.over_slices(lambda part: os.sched_getaffinity(0), 2 * host_work.SLICE) == \
        [here, here]
