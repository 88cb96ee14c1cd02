"""NVTX ranges, so a profiler's timeline says which rung and round each
kernel belongs to. The `nvtx` package is optional (the nvtx extra):
without it every range is a no-op and nothing else changes.

Ranges are pushed once per timed round, around the round's timer, never per
call of a step: the timed region (graphbench.measure.timing) starts after
the push and ends before the pop, so a range costs the figures nothing. No
range is ever opened while a graph is being captured: a range pushed during
capture does not appear when the graph is replayed (NVIDIA/cccl#1674), so it
would mark nothing and mislead.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

from graphbench._version import install_command

DOMAIN = "graphbench"
INSTALL = install_command("nvtx") + " (the nvtx package)"
_ABSENT = nullcontext()


def _load():
    try:
        import nvtx
    except ImportError:
        return None
    return nvtx


class Ranges:
    """push/pop of named ranges in graphbench's NVTX domain; `module` is
    the nvtx package, or None (tests give a fake)."""

    def __init__(self, module=None, loaded: bool = False) -> None:
        self._module, self._loaded = module, loaded

    @property
    def module(self):
        if not self._loaded:
            self._module, self._loaded = _load(), True
        return self._module

    @module.setter
    def module(self, value) -> None:
        self._module, self._loaded = value, True

    @property
    def available(self) -> bool:
        return self.module is not None

    def range(self, message: str):
        """A context manager around one range; a shared no-op without nvtx."""
        module = self.module
        return _range(module, message) if module is not None else _ABSENT


@contextmanager
def _range(module, message: str):
    module.push_range(message=message, domain=DOMAIN)
    try:
        yield
    finally:
        module.pop_range(domain=DOMAIN)


RANGES = Ranges()


def round_name(mode: str, round_index: int) -> str:
    """'graphbench graph round 3': rounds count from 0, as the record's do."""
    return f"{DOMAIN} {mode} round {round_index}"


def warmup_name(mode: str, round_index: int) -> str:
    return f"{DOMAIN} {mode} warm-up {round_index}"
