"""Correctness checks: compare a result with its reference, element by element.

On the GPU the comparison runs in graphbench's own kernels (kernels/
harness.cu), never in CuPy's reductions: those left the pipeline kernels 18%
slower for the rest of the process (see the kernels' comment). `compare` and
`untouched` below are the same rules on host (numpy) arrays: the definition
the GPU kernels are tested against. NaN never passes, so a poisoned element
left unwritten fails.
"""

from __future__ import annotations

import math

import numpy as np

from graphbench.measure.kernels import CHECK_CLOSE_KERNEL, COUNT_WRITTEN_KERNEL
from graphbench.record.model import Check

BLOCK = 256  # a multiple of the warp: the kernels reduce with full-warp shuffles
NO_INDEX = 2**64 - 1


def compare(name: str, actual, expected, rtol: float, atol: float) -> Check:
    """numpy.isclose element by element, on host arrays."""
    if actual.shape != expected.shape:
        raise ValueError(f"{name}: shape {actual.shape} does not match reference {expected.shape}")
    good = np.isclose(actual, expected, rtol=rtol, atol=atol)  # NaN compares unequal
    error = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    error = np.where(np.isnan(error), np.inf, error)
    bad = int(actual.size - int(good.sum()))
    first_bad = int(np.argmin(good)) if bad else None
    max_error = float(error.max()) if actual.size else 0.0
    return Check(name, bad == 0, int(actual.size), bad,
                 max_error if math.isfinite(max_error) else None, first_bad)


def untouched(name: str, arrays) -> Check:
    """Every element of `arrays` still holds its NaN poison: nothing wrote them."""
    flat = np.concatenate([array.ravel() for array in arrays])
    written = ~np.isnan(flat)
    count = int(written.sum())
    first = int(np.argmax(written)) if count else None
    return Check(name, count == 0, int(flat.size), count, 0.0, first)


def all_passed(checks) -> bool:
    return all(check.passed for check in checks)


class GpuChecker:
    """The same two checks on device arrays, in the harness's kernels, on
    graphbench's stream. Three words of device memory hold each result."""

    def __init__(self, kernels, stream, multiprocessors: int | None) -> None:
        import cupy

        self._close, self._written = kernels[CHECK_CLOSE_KERNEL], kernels[COUNT_WRITTEN_KERNEL]
        self._stream, self._multiprocessors = stream, multiprocessors
        self._out = cupy.empty(3, dtype=cupy.uint64)
        self._cupy = cupy

    def _launch(self, kernel, elements: int, *args) -> None:
        from cuda.core import LaunchConfig, launch

        from graphbench.measure.pipeline import grid_size

        config = LaunchConfig(grid=grid_size(elements, BLOCK, self._multiprocessors), block=BLOCK)
        launch(self._stream, config, kernel, *args, self._out.data.ptr)

    def _reset(self) -> None:
        self._out.set(np.array([0, NO_INDEX, 0], dtype=np.uint64))
        self._cupy.cuda.get_current_stream().synchronize()  # and any CuPy work before it

    def _read(self) -> tuple[int, int | None, float]:
        self._stream.sync()
        count, first, error_bits = (int(x) for x in self._out.get())
        error = float(np.array([error_bits & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0])
        return count, None if first == NO_INDEX else first, error

    def compare(self, name: str, actual, expected, rtol: float, atol: float) -> Check:
        if actual.shape != expected.shape:
            raise ValueError(f"{name}: shape {actual.shape} does not match reference "
                             f"{expected.shape}")
        self._reset()
        self._launch(self._close, actual.size, actual.data.ptr, expected.data.ptr,
                     np.uint64(actual.size), np.float32(rtol), np.float32(atol))
        bad, first, error = self._read()
        return Check(name, bad == 0, int(actual.size), bad,
                     error if math.isfinite(error) else None, first if bad else None)

    def untouched(self, name: str, arrays) -> Check:
        self._reset()
        base = 0
        for array in arrays:
            self._launch(self._written, array.size, array.data.ptr, np.uint64(array.size),
                         np.uint64(base))
            base += array.size
        written, first, _ = self._read()
        return Check(name, written == 0, base, written, 0.0, first if written else None)
