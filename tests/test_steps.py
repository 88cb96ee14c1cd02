"""Steps written out as code (graphbench.measure.steps) and the timer's use
of them: a round runs the step's own loop, never a Python call per iteration.

Covers graphbench/measure/driver.py.
Covers graphbench/measure/pipeline.py."""

from __future__ import annotations

import pytest

from graphbench.measure.steps import repeat_of, written_step


def test_a_written_step_runs_its_statements_once_a_call_with_its_bindings():
    calls: list = []
    step = written_step("test", ["record('a', x)", "record('b', y)"],
                        {"record": lambda *a: calls.append(a), "x": 1, "y": 2})
    step()
    assert calls == [("a", 1), ("b", 2)]


def test_its_repeat_runs_the_same_statements_count_times_in_one_call():
    calls: list = []
    step = written_step("test", ["if (v := record(x)):", "    record(-v)"],
                        {"record": lambda v: calls.append(v) or (v if v > 0 else 0), "x": 3})
    step.repeat(4)
    assert calls == [3, -3] * 4
    step.repeat(0)
    assert calls == [3, -3] * 4


def test_a_step_with_no_statements_does_nothing():
    step = written_step("empty", [], {})
    step()
    step.repeat(3)


def test_an_error_in_a_written_step_names_the_step_in_its_traceback():
    def fail():
        raise RuntimeError("launch refused")

    step = written_step("driver launches", ["fail()"], {"fail": fail})
    with pytest.raises(RuntimeError) as caught:
        step.repeat(2)
    assert "<graphbench driver launches>" in {entry.path for entry in caught.traceback}


def test_repeat_of_a_plain_callable_calls_it_count_times():
    calls: list = []
    repeat_of(lambda: calls.append(1))(5)
    assert calls == [1] * 5


def test_repeat_of_a_written_step_is_its_own_loop():
    step = written_step("test", ["pass"], {})
    assert repeat_of(step) is step.repeat


class _Event:
    def __init__(self) -> None:
        self.at = 0.0

    def __sub__(self, other: "_Event") -> float:  # milliseconds, as cuda.core's events
        return self.at - other.at

    def close(self) -> None:
        pass


class _Stream:
    def __init__(self) -> None:
        self.clock = 0.0

    def sync(self) -> None:
        pass

    def record(self, event: _Event) -> None:
        event.at = self.clock


class _Device:
    def create_event(self, options) -> _Event:
        return _Event()


def test_a_timed_round_runs_the_steps_own_loop_once_with_every_iteration():
    from graphbench.measure.timing import EventTimer

    stream, seen = _Stream(), []

    def step():
        raise AssertionError("the round called the step once per iteration")

    def repeat(count):
        seen.append(count)
        stream.clock += 2.0 * count

    step.repeat = repeat
    sample = EventTimer(_Device(), stream).time_round(step, 7)
    assert seen == [7]
    assert sample.device_s == pytest.approx(0.014)


def _launches():
    from types import SimpleNamespace

    from graphbench.measure.pipeline import Launch

    config = SimpleNamespace(grid=4, block=32, shmem_size=0)
    return [Launch(SimpleNamespace(handle=11), config, (1, 2)),
            Launch(SimpleNamespace(handle=12), config, (3,))]


def test_the_stage_step_launches_every_stage_in_order_and_its_loop_repeats_them(monkeypatch):
    import graphbench.measure.pipeline as pipeline

    made: list = []
    monkeypatch.setattr(pipeline, "launch", lambda target, config, kernel, *args:
                        made.append((target, kernel.handle, args)))
    step = pipeline.unrolled_launches("stream", _launches())
    step()
    assert made == [("stream", 11, (1, 2)), ("stream", 12, (3,))]
    step.repeat(2)
    assert made == [("stream", 11, (1, 2)), ("stream", 12, (3,))] * 3


def test_the_driver_step_runs_each_launch_in_its_loop_and_stops_on_a_refused_one(monkeypatch):
    from types import SimpleNamespace

    from cuda.bindings import driver

    from graphbench.errors import DeviceError
    from graphbench.measure.driver import driver_enqueuer

    made: list = []

    def launch_kernel(function, *dims_and_more):
        made.append(int(function))
        return (5,) if len(made) == 5 else (0,)  # the driver refuses the fifth launch

    monkeypatch.setattr(driver, "cuLaunchKernel", launch_kernel)
    step = driver_enqueuer(SimpleNamespace(handle=0), _launches())
    step.repeat(2)
    assert made == [11, 12, 11, 12]
    with pytest.raises(DeviceError, match="cuLaunchKernel failed"):
        step.repeat(3)
    assert made == [11, 12, 11, 12, 11]
