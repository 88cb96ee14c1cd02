"""Clearing the L2 cache between timed iterations for cold-cache figures."""

from __future__ import annotations

FLUSH_BLOCKS_PER_SM, FLUSH_BLOCK = 8, 256


class L2Flusher:
    """Reads a scratch buffer twice the L2's size with the harness's
    l2_flush kernel, evicting whatever the pipeline left there and leaving
    only clean lines behind (see harness.cu). Called outside the timed
    region, and synchronous: the flush is over before the clock starts."""

    def __init__(self, l2_bytes: int | None, stream, kernel, multiprocessors: int | None) -> None:
        import cupy
        import numpy as np
        from cuda.core import LaunchConfig

        words = max(2 * (l2_bytes or 64 * 2**20), 2**20) // 4
        self._scratch = cupy.ones(words, dtype=cupy.uint32)  # sums to n, never 0xdeadbeef
        self._sink = cupy.zeros(1, dtype=cupy.uint32)
        cupy.cuda.get_current_stream().synchronize()
        self._stream, self._kernel = stream, kernel
        self._config = LaunchConfig(grid=FLUSH_BLOCKS_PER_SM * (multiprocessors or 132),
                                    block=FLUSH_BLOCK)
        self._args = (self._scratch.data.ptr, np.uint64(words), self._sink.data.ptr)

    def flush(self) -> None:
        from cuda.core import launch

        launch(self._stream, self._config, self._kernel, *self._args)
        self._stream.sync()

    def release(self) -> None:
        self._scratch = self._sink = None
