"""The replay check's CuPy adapter: arrays are CuPy arrays, captured from a
stream of graphbench's own (begin_capture, end_capture). CuPy's memory
pool would hand the callable a block during capture that the graph then
bakes in, so an allocation while capturing fails the capture, named as a
tensor allocated during capture. Imported only when a CuPy callable is
checked."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from graphbench.errors import first_line
from graphbench.replay.battery import ALLOCATES, CaptureFailed


class CupyAdapter:
    def __init__(self) -> None:
        import cupy

        self.cp = cupy
        self.stream = cupy.cuda.Stream(non_blocking=True)

    def is_array(self, value: Any) -> bool:
        return isinstance(value, self.cp.ndarray)

    def clone(self, array):
        return array.copy()

    def _integer(self, array) -> bool:
        return array.dtype.kind in "iub"

    def fill_random(self, array, rng: np.random.Generator) -> None:
        values = rng.uniform(-1.0, 1.0, array.size)
        if self._integer(array):
            values = np.floor(values * 100)
        array.set(values.astype(array.dtype).reshape(array.shape))  # in place: same address

    def fill_poison(self, array) -> None:
        array.fill(np.iinfo(array.dtype).max if self._integer(array) else np.nan)

    def to_host(self, array) -> np.ndarray:
        self.cp.cuda.Device().synchronize()
        return self.cp.asnumpy(array).astype(np.int64 if self._integer(array) else np.float64)

    def held_bytes(self) -> int:
        return int(self.cp.get_default_memory_pool().used_bytes())

    def warm_up(self, call: Callable[[], Any], times: int) -> None:
        with self.stream:
            for _ in range(times):
                call()
        self.stream.synchronize()

    def capture(self, call: Callable[[], Any]) -> tuple[Callable[[], None], Any]:
        cp, stream = self.cp, self.stream

        def refuse(size: int):
            raise CaptureFailed(f"the callable {ALLOCATES} ({size:,} bytes)")
        try:
            with cp.cuda.using_allocator(refuse), stream:
                stream.begin_capture()
                try:
                    returned = call()
                finally:
                    graph = stream.end_capture()
        except CaptureFailed:
            raise
        except Exception as exc:  # the user's callable or the capture itself
            raise CaptureFailed(first_line(exc, named=True)[:300]) from None

        def replay() -> None:
            graph.launch(stream)
            stream.synchronize()
        return replay, returned

    def eager(self, call: Callable[[], Any]) -> Any:
        with self.stream:
            result = call()
        self.stream.synchronize()
        return result
