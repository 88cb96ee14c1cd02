"""The replay check run: a callable captured once, then each case of the
battery (graphbench.replay.plan) applied, the graph replayed and the
callable run eagerly on the same inputs, and the two compared
(graphbench.replay.outcomes records what each case showed).

The callable is `fn(*args, **scalars)`. Its outputs are the arrays it
returns, or, where `outputs` names argument positions, the arrays it writes
in place (the caller's buffers). Every other array argument is an input,
refilled in place between replays (the captured graph keeps its address);
graphbench owns copies of them, so the caller's arrays are never written.

Framework work (copies, fills, capture, the memory count) goes through an
Adapter, one per framework (graphbench.replay.torch_adapter); this loop is
the same for all, and runs on the CPU in the tests with a stand-in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from graphbench.errors import UsageError, first_line
from graphbench.replay.outcomes import CaptureFacts, CaseOutcome, OutputOutcome, ReplayRecord
from graphbench.replay.plan import FRESH, POISON_INPUTS, SAME_INPUTS, SCALARS, Case, Takes, plan

WARMUP_CALLS = 3  # eager calls before capture: library workspaces and caches set up outside it


class CaptureFailed(Exception):
    """The callable could not be captured; its text says why, in one line."""


class Adapter(Protocol):
    def clone(self, array: Any) -> Any: ...
    def fill_random(self, array: Any, rng: np.random.Generator) -> None: ...
    def fill_poison(self, array: Any) -> None: ...
    def to_host(self, array: Any) -> np.ndarray: ...
    def is_array(self, value: Any) -> bool: ...
    def held_bytes(self) -> int: ...
    def warm_up(self, call: Callable[[], Any], times: int) -> None: ...
    def capture(self, call: Callable[[], Any]) -> tuple[Callable[[], None], Any]: ...
    def eager(self, call: Callable[[], Any]) -> Any: ...


@dataclass(frozen=True)
class Callee:
    """What is checked: the callable, its arguments (graphbench's copies), the
    positions of the outputs it writes in place (none: it returns them),
    its host scalars and which of them are sizes, and the tolerance of a
    replay against eager execution."""

    fn: Callable
    args: tuple
    outputs: tuple[int, ...]
    scalars: Mapping[str, Any]
    sizes: tuple[str, ...]
    rtol: float
    atol: float

    def call(self, scalars: Mapping[str, Any]) -> Any:
        return self.fn(*self.args, **scalars)

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.args)) if i not in self.outputs)


def run_battery(callee: Callee, adapter: Adapter, repeats: int, seed: int) -> ReplayRecord:
    """Capture `callee` and run the battery (the module docstring)."""
    rng = np.random.default_rng(seed)
    for i in callee.inputs:
        adapter.fill_random(callee.args[i], rng)
    try:
        adapter.warm_up(lambda: callee.call(callee.scalars), WARMUP_CALLS)
    except Exception as exc:  # the user's callable, run eagerly: named, never a traceback
        raise UsageError(f"{_name(callee)} raised {first_line(exc, named=True)} when run eagerly"[:300],
                         "make it run eagerly on the arguments given") from None
    before = adapter.held_bytes()
    try:
        replay, returned = adapter.capture(lambda: callee.call(callee.scalars))
    except CaptureFailed as exc:
        return _record(callee, failed_capture(str(exc)), ())
    facts = CaptureFacts(True, allocated_bytes=max(0, adapter.held_bytes() - before),
                         scalars=_numbers(callee.scalars))
    outs = [callee.args[i] for i in callee.outputs] or list(_results(returned))
    if not outs or not all(adapter.is_array(o) for o in outs):
        raise UsageError(f"{_name(callee)} must return its outputs as arrays of its framework, "
                         "or write them in place", "return the arrays, or give outputs=(i, ...)")
    replay()
    captured = [adapter.to_host(o) for o in outs]
    names = _output_names(callee, len(outs))
    takes = Takes(tuple(f"arg{i}" for i in callee.inputs), names, tuple(callee.scalars),
                  callee.sizes)
    cases = []
    for case in plan(takes, repeats):
        try:
            cases.append(run_case(case, callee, adapter, replay, outs, captured, rng))
        except Exception as exc:  # the user's callable on a case's data: named, no traceback
            raise UsageError(f"{_name(callee)} raised {first_line(exc, named=True)} in the "
                             f"{case.perturbation} case"[:300],
                             "make it run on new values of its inputs and scalars") from None
    return _record(callee, facts, tuple(cases))


# what the capture's error says, in CUDA's words and torch's, and the class it names
UNJOINED = ("unjoined",)
FORBIDDEN = ("captureunsupported", "not permitted when stream is capturing",
             "cannot be called during cuda graph capture", "synchroniz")


ALLOCATES = "allocates gpu memory during capture"  # an adapter's words for it


def failed_capture(error: str) -> CaptureFacts:
    """The facts of a capture that failed: a side stream never joined, a
    host synchronisation, or memory allocated while capturing, where its
    error says so."""
    text = error.lower()
    joined = any(word in text for word in UNJOINED)
    allocated = ALLOCATES in text
    forbidden = not joined and not allocated and any(word in text for word in FORBIDDEN)
    return CaptureFacts(False, error=error, side_stream_work=1 if joined else None,
                        host_syncs=1 if forbidden else None,
                        allocated_bytes=1 if allocated else None)


def run_case(case: Case, callee: Callee, adapter: Adapter, replay, outs, captured,
             rng) -> CaseOutcome:
    scalars = dict(callee.scalars)
    if case.perturbation == SCALARS:
        scalars = varied(callee.scalars, callee.sizes)
    for i in callee.inputs if case.perturbation != SAME_INPUTS else ():
        if case.perturbation == POISON_INPUTS:
            adapter.fill_poison(callee.args[i])
        else:
            adapter.fill_random(callee.args[i], rng)
    poison = case.perturbation != FRESH  # fresh: outputs keep the last run's values
    actual = _replayed(adapter, replay, outs, poison)
    repeated = None
    if case.perturbation == SAME_INPUTS:
        repeated = _same(actual, _replayed(adapter, replay, outs, poison))
    expected = _eager(callee, adapter, outs, scalars)
    eager_repeated = _same(expected, _eager(callee, adapter, outs, scalars)) \
        if case.perturbation == SAME_INPUTS else None
    names = _output_names(callee, len(outs))
    return CaseOutcome(case.index, case.perturbation, case.repeat, tuple(
        outcome(name, a, e, c, callee.rtol, callee.atol)
        for name, a, e, c in zip(names, actual, expected, captured)),
        replay_repeated=repeated, eager_repeated=eager_repeated,
        scalars=_numbers(scalars) if case.perturbation == SCALARS else {})


def _replayed(adapter: Adapter, replay, outs, poison: bool) -> list[np.ndarray]:
    for out in outs if poison else ():
        adapter.fill_poison(out)  # what the replay does not write keeps it
    replay()
    return [adapter.to_host(o) for o in outs]


def _eager(callee: Callee, adapter: Adapter, outs, scalars) -> list[np.ndarray]:
    if callee.outputs:
        for out in outs:
            adapter.fill_poison(out)
        adapter.eager(lambda: callee.call(scalars))
        return [adapter.to_host(o) for o in outs]
    return [adapter.to_host(r) for r in _results(adapter.eager(lambda: callee.call(scalars)))]


def outcome(name: str, actual: np.ndarray, expected: np.ndarray, captured: np.ndarray,
            rtol: float, atol: float) -> OutputOutcome:
    """One output after one replay against eager execution on the same inputs."""
    if actual.shape != expected.shape:
        return OutputOutcome(name, int(expected.size), int(expected.size))
    close = np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    wrong = ~close
    stale = wrong & (actual == captured) & (expected != captured) \
        if captured.shape == actual.shape else np.zeros_like(wrong)
    unwritten = wrong & _poison(actual) & ~_poison(expected)
    return OutputOutcome(name, int(actual.size), int(wrong.sum()), int(stale.sum()),
                         int(unwritten.sum()))


def _poison(values: np.ndarray) -> np.ndarray:
    if np.issubdtype(values.dtype, np.floating):
        return np.isnan(values)
    return values == np.iinfo(values.dtype).max


def _same(first: Sequence[np.ndarray], second: Sequence[np.ndarray]) -> bool:
    return all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, second))


def varied(scalars: Mapping[str, Any], sizes: Sequence[str]) -> dict[str, Any]:
    """Other values for every scalar: a size halved (it must stay one the
    inputs hold), another integer plus one, a number half as large again."""
    out: dict[str, Any] = {}
    for name, value in scalars.items():
        if isinstance(value, bool):
            out[name] = not value
        elif isinstance(value, int):
            out[name] = max(1, value // 2) if name in sizes else value + 1
        else:
            out[name] = float(value) * 1.5 + 0.25
    return out


def _numbers(scalars: Mapping[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in scalars.items()}


def _results(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _output_names(callee: Callee, count: int) -> tuple[str, ...]:
    return tuple(f"arg{i}" for i in callee.outputs) or tuple(f"result{i}" for i in range(count))


def _name(callee: Callee) -> str:
    return getattr(callee.fn, "__name__", "") or "fn"


def _record(callee: Callee, facts: CaptureFacts, cases) -> ReplayRecord:
    count = len(callee.outputs) or 1
    return ReplayRecord(_name(callee),
                        tuple(f"arg{i}" for i in callee.inputs),
                        _output_names(callee, count) if callee.outputs or not cases
                        else tuple(o.name for o in cases[0].outputs),
                        tuple(callee.sizes), facts, tuple(cases))
