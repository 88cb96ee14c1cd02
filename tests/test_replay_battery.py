"""The replay check's run (graphbench.replay.battery) with a stand-in for a
framework: numpy arrays, and a "graph" that replays the callable with the
scalars it was captured with into the arrays it returned then, as a CUDA
graph does. The loop's cases, what each records and the verdicts read from
them; the API's refusals before any GPU work (graphbench.replay.check).

Covers graphbench/replay/check.py.
Covers graphbench/replay/torch_adapter.py.
Covers graphbench/replay/cupy_adapter.py.
Covers graphbench/replay/cuda_core_adapter.py."""

from __future__ import annotations

import numpy as np
import pytest

import graphbench
from graphbench.errors import UsageError
from graphbench.replay.battery import CaptureFailed, Callee, run_battery, varied
from graphbench.replay.outcomes import decode, encode
from graphbench.replay.plan import REPEATS
from graphbench.replay.verdicts import judge

N = 1000


class Stand:
    """numpy arrays; capture runs the call once and replays it with what it
    saw then (its scalars), writing into the arrays it returned."""

    def __init__(self, fail: str = "") -> None:
        self.fail = fail

    def clone(self, array):
        return array.copy()

    def fill_random(self, array, rng):
        array[...] = rng.uniform(-1, 1, array.shape)

    def fill_poison(self, array):
        array[...] = np.nan

    def to_host(self, array):
        return np.array(array, dtype=np.float64)

    def is_array(self, value):
        return isinstance(value, np.ndarray)

    def held_bytes(self):
        return 0

    def warm_up(self, call, times):
        for _ in range(times):
            call()

    def capture(self, call):
        if self.fail:
            raise CaptureFailed(self.fail)
        returned = call()
        frozen = call  # the call as it was captured: its scalars bound

        def replay():
            result = frozen()
            if returned is not None and result is not returned:
                np.copyto(returned, result)
        return replay, returned

    def eager(self, call):
        return call()


def checked(fn, args, outputs=(), scalars=None, sizes=(), adapter=None, repeats=2):
    callee = Callee(fn, tuple(a.copy() for a in args), tuple(outputs), dict(scalars or {}),
                    tuple(sizes), 1e-6, 1e-6)
    record = run_battery(callee, adapter or Stand(), repeats, seed=1)
    return record, judge(record)


def test_a_correct_callable_passes_every_case_and_the_caller_s_arrays_stay_as_they_were():
    x = np.ones(N)
    record, judgement = checked(lambda a: a * 2, (x,))
    assert judgement.passed and len(record.cases) == 4 * 2
    assert all(o.wrong == 0 for c in record.cases for o in c.outputs)
    assert (x == 1).all()  # graphbench refilled its own copy
    assert decode(encode(record)) == record


def test_an_in_place_output_is_poisoned_before_each_replay_but_a_fresh_one():
    def scale(a, out):
        np.multiply(a, 2, out=out)
    record, judgement = checked(scale, (np.ones(N), np.zeros(N)), outputs=(1,))
    assert judgement.passed and record.outputs == ("arg1",) and record.inputs == ("arg0",)


def test_a_scalar_the_replay_keeps_from_capture_is_named():
    record, judgement = checked(lambda a, alpha: a * alpha, (np.ones(N),),
                                scalars={"alpha": 2.0})
    [finding] = judgement.findings
    assert finding.kind == "host-scalar" and "(alpha)" in finding.evidence
    assert f"{N:,} of {N:,} elements" in finding.evidence


def test_a_size_the_launch_follows_is_a_frozen_shape():
    def head(a, n):
        out = np.zeros_like(a)
        out[:n] = a[:n]
        return out
    _, judgement = checked(head, (np.ones(N),), scalars={"n": N}, sizes=("n",))
    assert [f.kind for f in judgement.findings] == ["frozen-shape"]


def test_a_callable_that_cannot_be_captured_is_judged_only_where_the_error_names_why():
    record, judgement = checked(lambda a: a * 2, (np.ones(N),),
                                adapter=Stand("RuntimeError: CUDA error: out of memory"))
    assert record.cases == () and not record.capture.captured
    assert not judgement.passed and judgement.findings == ()
    assert judgement.unjudged == ("the callable could not be captured: RuntimeError: CUDA "
                                  "error: out of memory")
    for error, kind in (("RuntimeError: operation not permitted when stream is capturing",
                         "host-sync"),
                        ("RuntimeError: CUDA error: operation failed due to a previous error "
                         "during capture (cudaErrorStreamCaptureUnjoined)", "side-stream")):
        _, judgement = checked(lambda a: a * 2, (np.ones(N),), adapter=Stand(error))
        [finding] = judgement.findings
        assert finding.kind == kind and finding.evidence.endswith(f"the capture failed: {error}")


def test_an_allocation_while_capturing_is_a_tensor_allocated_during_capture():
    error = "the callable allocates GPU memory during capture (4,096 bytes)"
    _, judgement = checked(lambda a: a * 2, (np.ones(N),), adapter=Stand(error))
    [finding] = judgement.findings
    assert finding.kind == "capture-allocation" and finding.evidence.endswith(error)


def test_a_callable_that_fails_eagerly_or_returns_no_array_is_refused_in_one_line():
    def broken(a):
        raise ValueError("shapes do not match\nmore lines")
    with pytest.raises(UsageError, match="broken raised ValueError: shapes do not match when "
                                         "run eagerly$"):
        checked(broken, (np.ones(N),))
    with pytest.raises(UsageError, match="must return its outputs as arrays"):
        checked(lambda a: float(a.sum()), (np.ones(N),))


def test_scalars_are_varied_so_that_a_size_stays_one_the_inputs_hold():
    assert varied({"n": 4096, "k": 3, "alpha": 2.0, "on": True}, ("n",)) == \
        {"n": 2048, "k": 4, "alpha": 3.25, "on": False}


@pytest.mark.parametrize("call, match", [
    (lambda: graphbench.check_replay(None, np.ones(3)), "needs a function"),
    (lambda: graphbench.check_replay(abs), "array arguments"),
    (lambda: graphbench.check_replay(abs, np.ones(3), outputs=(1,)), "outputs must be"),
    (lambda: graphbench.check_replay(abs, np.ones(3), outputs=(0,)), "needs an input"),
    (lambda: graphbench.check_replay(abs, np.ones(3), scalars={"a": float("nan")}),
     "finite number"),
    (lambda: graphbench.check_replay(abs, np.ones(3), scalars={"n": 2.0}, sizes=("n",)),
     "integer scalars"),
    (lambda: graphbench.check_replay(abs, np.ones(3), repeats=0), f"repeats must be 1 to"),
    (lambda: graphbench.check_replay(abs, np.ones(3)), "torch CUDA tensors or CuPy arrays"),
    (lambda: graphbench.check_replay(abs, np.ones(3), stream="not a name"), "stream must name"),
    (lambda: graphbench.check_replay(abs, np.ones(3), stream="stream"),
     "a cuda.core callable's arrays must be CuPy arrays"),
])
def test_the_api_refuses_what_it_cannot_check_before_any_gpu_work(call, match):
    with pytest.raises(UsageError, match=match):
        call()


def test_the_default_repeats_are_the_battery_s():
    import inspect

    assert inspect.signature(graphbench.check_replay).parameters["repeats"].default == REPEATS
