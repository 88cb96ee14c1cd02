"""Correctness checks: compare a result with its reference, element by element.

Works on numpy and CuPy arrays alike (the GPU path never copies the vectors
to the host). NaN never passes, so a poisoned element left unwritten fails.
"""

from __future__ import annotations

import math

from graphbench.record.model import Check


def _array_module(array):
    try:
        import cupy

        return cupy.get_array_module(array)
    except ImportError:
        import numpy

        return numpy


def compare(name: str, actual, expected, rtol: float, atol: float) -> Check:
    xp = _array_module(actual)
    if actual.shape != expected.shape:
        raise ValueError(f"{name}: shape {actual.shape} does not match reference {expected.shape}")
    good = xp.isclose(actual, expected, rtol=rtol, atol=atol)  # NaN compares unequal
    error = xp.abs(actual.astype(xp.float64) - expected.astype(xp.float64))
    error = xp.where(xp.isnan(error), xp.inf, error)
    bad = int(actual.size - int(good.sum()))
    first_bad = int(xp.argmin(good)) if bad else None
    max_error = float(error.max()) if actual.size else 0.0
    return Check(name, bad == 0, int(actual.size), bad,
                 max_error if math.isfinite(max_error) else None, first_bad)


def all_passed(checks) -> bool:
    return all(check.passed for check in checks)


def untouched(name: str, arrays) -> Check:
    """Every element of `arrays` still holds its NaN poison: nothing wrote them."""
    xp = _array_module(arrays[0])
    flat = xp.concatenate([array.ravel() for array in arrays])
    written = ~xp.isnan(flat)
    count = int(written.sum())
    first = int(xp.argmax(written)) if count else None
    return Check(name, count == 0, int(flat.size), count, 0.0, first)
