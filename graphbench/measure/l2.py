"""Clearing the L2 cache between rounds for cold-cache figures."""

from __future__ import annotations


class L2Flusher:
    """Writes a scratch buffer twice the L2's size, evicting whatever the
    pipeline left there. Called outside the timed region."""

    def __init__(self, l2_bytes: int | None) -> None:
        import cupy

        self._cp = cupy
        self._scratch = cupy.empty(max(2 * (l2_bytes or 64 * 2**20), 2**20), dtype=cupy.uint8)
        self._value = 0

    def flush(self) -> None:
        self._value ^= 1  # a different value each time, so no write can be skipped
        self._scratch.fill(self._value)
        self._cp.cuda.get_current_stream().synchronize()

    def release(self) -> None:
        self._scratch = None
