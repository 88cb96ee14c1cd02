"""Run the same benchmark in several fresh processes, one after another, and
read their records back (pyperf's remedy for between-process noise).

Each child receives its configuration as JSON, exactly as the parent holds
it; nothing is rebuilt into command-line flags."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from graphbench.config import RunConfig
from graphbench.errors import EXIT_FAILED, GraphbenchError
from graphbench.record.codec import read_run, to_json
from graphbench.record.model import RunRecord

CHILD_MODULE = "graphbench.cli.child"
# the words on the two pipes between the parent and a child (Child)
GO, START_TIMING = b"g", b"s"  # parent to child: set up on the GPU; then time
IMPORTED, TIMED = b"i", b"t"  # child to parent: imports done; timed work over


def child_command(config_path: str, record_path: str, go_fd: int | None = None,
                  timed_fd: int | None = None) -> list[str]:
    fds = [str(go_fd), str(timed_fd)] if go_fd is not None else []
    return [sys.executable, "-m", CHILD_MODULE, config_path, record_path, *fds]


class Child:
    """One fresh process of the run, started ahead of its turn. Python's start
    and the imports of graphbench and its libraries (CPU work, no CUDA) take
    longer than the one before has between its last timed figure and its
    exit at small sizes, and longer than a set-up (opening the device,
    loading kernels, filling inputs; docs/measurement.md#host-side-costs).
    So a process starts two turns ahead, once the one before the one before
    has timed, and imports beside that one's checks and the next one's
    set-up; a process times nothing until the next one has imported, so no
    import runs beside a timed figure (run_sets)."""

    def __init__(self, folder: str, config: RunConfig, index: int):
        self.record_path = Path(folder) / f"process{index}.json"
        config_path = Path(folder) / f"config{index}.json"
        config_path.write_text(json.dumps(to_json(config)), encoding="utf-8")
        go_read, self._go = os.pipe()
        self._timed, timed_write = os.pipe()
        self._stderr = open(Path(folder) / f"stderr{index}.txt", "w+", encoding="utf-8")
        self._imported: bool | None = None
        try:
            self.process = subprocess.Popen(
                child_command(str(config_path), str(self.record_path), go_read, timed_write),
                stdout=subprocess.DEVNULL, stderr=self._stderr, pass_fds=(go_read, timed_write))
        finally:
            os.close(go_read)
            os.close(timed_write)

    def go(self) -> None:
        """Let it open the device and set up (once its imports are done)."""
        self._say(GO)

    def start_timing(self) -> None:
        """Let it time: nothing the parent starts runs beside it from here."""
        self._say(START_TIMING)
        os.close(self._go)
        self._go = -1

    def _say(self, word: bytes) -> None:
        try:
            os.write(self._go, word)
        except BrokenPipeError:
            pass  # it has ended: finish() reads why

    def imported(self) -> bool:
        """Wait until its imports are done: True, or it ended first: False."""
        if self._imported is None:
            self._imported = self._heard(IMPORTED)
        return self._imported

    def timed(self) -> bool:
        """Wait until its timed work is over: True, or it ended first: False."""
        return self._heard(TIMED)

    def _heard(self, word: bytes) -> bool:
        while True:  # the words come in order; an earlier one nobody waited for is skipped
            heard = os.read(self._timed, 1)
            if heard in (word, b""):
                return heard == word

    def finish(self) -> str | None:
        """Wait for the process to end: None, or the last line it wrote to stderr."""
        code = self.process.wait()
        if code in (0, EXIT_FAILED) and self.record_path.exists():
            return None  # a Python traceback exits 1 too, and writes no record
        self._stderr.seek(0)
        return (self._stderr.read().strip().splitlines() or ["no message"])[-1]

    def close(self) -> None:
        """End the process if it still runs (a child told nothing exits on its own)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for fd in (self._go, self._timed):
            if fd >= 0:
                os.close(fd)
        self._go = self._timed = -1
        self._stderr.close()


def run_sets(configs: Sequence[RunConfig], count: int,
             on_done: Callable[[int], None] | None = None) -> list[list[RunRecord]]:
    """Each config in `count` fresh processes, the records by config. Each
    process gets its own seed (fresh inputs) and writes its own record. One
    uses the GPU at a time; the others, of the same config or the next one,
    import beside the checks and set-ups of those before them (Child)."""
    queue = [replace(config, seed=config.seed + index)
             for config in configs for index in range(count)]
    records: list[RunRecord] = []
    started: list[Child] = []
    with tempfile.TemporaryDirectory(prefix="graphbench-") as folder:
        try:  # the first two import side by side, before anything uses the GPU
            started += [Child(folder, config, index) for index, config in enumerate(queue[:2])]
            for index in range(len(queue)):
                records.append(_one_turn(started, folder, queue, index))
                if on_done:
                    on_done(index + 1)
        finally:
            for child in started:
                child.close()
    return [records[k * count:(k + 1) * count] for k in range(len(configs))]


def _one_turn(started: list[Child], folder: str, queue: list[RunConfig],
              index: int) -> RunRecord:
    """Process `index`'s turn: it sets up, times once the next one has
    imported, and its record is read once it has ended. The one after the
    next starts once this one's timing is over, and imports beside its
    checks and the next one's set-up."""
    child = started[index]
    if child.imported():  # else it ended: finish() reads why
        child.go()
        if index + 1 < len(queue):
            _start(started, folder, queue, index + 1).imported()  # one that ended fails later
        child.start_timing()
        if child.timed() and index + 2 < len(queue):
            _start(started, folder, queue, index + 2)
    failure = child.finish()
    if failure:
        raise GraphbenchError(f"process {index + 1} of {len(queue)} failed: {failure}")
    return read_run(child.record_path)


def _start(started: list[Child], folder: str, queue: list[RunConfig], index: int) -> Child:
    """Process `index`, started now unless it was already."""
    if len(started) == index:
        started.append(Child(folder, queue[index], index))
    return started[index]
