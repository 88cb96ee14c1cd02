"""Correctness checks: compare a result with its reference, element by element.

The comparison runs on the host, on chunks copied from the device, and never
in a GPU reduction: once a reduction kernel has run in the process, CuPy's
or one of graphbench's own, the pipeline kernels can run slower for the
rest of it at an unchanged SM clock, where elementwise kernels and a
host-side comparison left them alone (results/validity/busy_rise.json;
docs/measurement.md#time-first-verify-after-the-after-checks-state). A
benchmark must not change what it measures, so its checks stay off the GPU.

Chunks keep host memory bounded at any vector length. The same code serves
numpy arrays (tests) and CuPy arrays (runs). NaN never passes, so a poisoned
element left unwritten fails.
"""

from __future__ import annotations

import math

import numpy as np

from graphbench.measure.host_work import over_slices, slices
from graphbench.record.model import Check

CHUNK = 1 << 24  # elements copied to the host at a time: 64 MiB of float32


def _chunks(array):
    """(offset, host copy) of consecutive pieces of a numpy or CuPy array."""
    flat = array.ravel()
    for start in range(0, flat.size, CHUNK):
        part = flat[start:start + CHUNK]
        yield start, part.get() if hasattr(part, "get") else part


def compare(name: str, actual, expected, rtol: float, atol: float) -> Check:
    """numpy.isclose's rule element by element (|a - e| <= atol + rtol |e|,
    equal infinities close, NaN never), and the largest error."""
    if actual.shape != expected.shape:
        raise ValueError(f"{name}: shape {actual.shape} does not match reference {expected.shape}")
    bad, first_bad, max_error = 0, None, 0.0
    for (start, a), (_, e) in zip(_chunks(actual), _chunks(expected)):
        for offset, (count, first, error) in zip(
                (s.start for s in slices(a.size)),
                over_slices(lambda s: _close(a[s], e[s], rtol, atol), a.size)):
            max_error = max(max_error, error)
            if count and first_bad is None:
                first_bad = start + offset + first
            bad += count
    return Check(name, bad == 0, int(actual.size), bad,
                 max_error if math.isfinite(max_error) else None, first_bad)


def _close(a, e, rtol: float, atol: float) -> tuple[int, int, float]:
    """How many elements are not close, the first of them, and the largest
    |a - e| (inf with a NaN). Floating results are compared in their own
    precision: numpy.isclose on float64 copies took a large share of a run
    at large sizes (docs/measurement.md#host-side-costs), and float32's rounding moves the limit by
    under 1e-7 of itself. Integers are widened first, so a difference
    cannot wrap around."""
    if a.dtype.kind != "f" or e.dtype.kind != "f":
        a, e = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(a - e)  # inf - inf and NaN give NaN
        good = (error <= atol + rtol * np.abs(e)) & np.isfinite(e)
        good |= a == e  # equal infinities
    largest = float(error.max()) if error.size else 0.0
    bad = int(good.size - np.count_nonzero(good))
    return bad, int(np.argmin(good)) if bad else 0, math.inf if math.isnan(largest) else largest


def untouched(name: str, arrays) -> Check:
    """Every element of `arrays` still holds its NaN poison: nothing wrote them."""
    written, first, base = 0, None, 0
    for array in arrays:
        for start, part in _chunks(array):
            hits = ~np.isnan(part)
            count = int(np.count_nonzero(hits))
            if count and first is None:
                first = base + start + int(np.argmax(hits))
            written += count
        base += array.size
    return Check(name, written == 0, base, written, 0.0, first)


def all_passed(checks) -> bool:
    return all(check.passed for check in checks)


def compare_outputs(label: str, actual: dict, expected: dict, tolerance) -> list[Check]:
    """One check per checked output, named "label [output]"."""
    return [compare(f"{label} [{name}]", actual[name], expected[name], *tolerance)
            for name in expected]
