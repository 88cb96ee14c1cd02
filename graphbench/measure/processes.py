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
    and the imports of graphbench and its libraries (CPU work, no CUDA) took
    0.6-0.9 s a process on H100 hosts, longer than the one before has
    between its last timed figure and its exit at 4096 and 2^20 elements
    (0.2-0.3 s): started one at a time, each import waited in the queue's
    path. So processes start in batches (AHEAD at once, importing side by
    side on their own CPUs) and wait; a process times nothing until every
    one started has imported, so no import runs beside a timed figure
    (run_sets). Each sets up (opens the device, loads kernels, fills inputs:
    0.3-0.45 s) once the one before has taken its last timed figure, beside
    that one's checks, and times once that one has ended: one process's
    timing never shares the GPU or the host with another's work."""

    def __init__(self, folder: str, config: RunConfig, index: int):
        self.record_path = Path(folder) / f"process{index}.json"
        config_path = Path(folder) / f"config{index}.json"
        config_path.write_text(json.dumps(to_json(config)), encoding="utf-8")
        go_read, self._go = os.pipe()
        self._timed, timed_write = os.pipe()
        self._stderr = open(Path(folder) / f"stderr{index}.txt", "w+", encoding="utf-8")
        self._imported: bool | None = None
        self._told_go = False
        try:
            self.process = subprocess.Popen(
                child_command(str(config_path), str(self.record_path), go_read, timed_write),
                stdout=subprocess.DEVNULL, stderr=self._stderr, pass_fds=(go_read, timed_write))
        finally:
            os.close(go_read)
            os.close(timed_write)

    def go(self) -> None:
        """Let it open the device and set up (once its imports are done); once."""
        if not self._told_go:
            self._told_go = True
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
    times at a time; the others, of the same config or the next one, wait
    imported, or set up beside the checks of the one before (Child)."""
    queue = [replace(config, seed=config.seed + index)
             for config in configs for index in range(count)]
    records: list[RunRecord] = []
    started: list[Child] = []
    with tempfile.TemporaryDirectory(prefix="graphbench-") as folder:
        try:  # the first batch imports side by side, before anything uses the GPU
            _start_batch(started, folder, queue)
            for index in range(len(queue)):
                records.append(_one_turn(started, folder, queue, index))
                if on_done:
                    on_done(index + 1)
        finally:
            for child in started:
                child.close()
    return [records[k * count:(k + 1) * count] for k in range(len(configs))]


# processes started at once, each importing on a CPU of its own and then
# waiting, blocked on its pipe, with its libraries loaded (about 0.3 GB)
AHEAD = max(2, min(8, os.cpu_count() or 2))


def _one_turn(started: list[Child], folder: str, queue: list[RunConfig],
              index: int) -> RunRecord:
    """Process `index`'s turn: it times once every process started has
    imported, and its record is read once it has ended. Once its timing is
    over, the next one sets up (beside its checks), and where none would be
    left waiting beyond the next, the next batch starts importing."""
    if len(started) == index:  # the one before ended without saying it had timed
        _start_batch(started, folder, queue)
    child = started[index]
    if child.imported():  # else it ended: finish() reads why
        child.go()  # the first; any other was told when the one before had timed
        for waiting in started[index + 1:]:
            waiting.imported()  # one that ended fails in its own turn
        child.start_timing()
        if child.timed() and index + 1 < len(queue):
            if len(started) < index + 3:
                _start_batch(started, folder, queue)
            started[index + 1].go()
    failure = child.finish()
    if failure:
        raise GraphbenchError(f"process {index + 1} of {len(queue)} failed: {failure}")
    return read_run(child.record_path)


def _start_batch(started: list[Child], folder: str, queue: list[RunConfig]) -> None:
    """The next AHEAD processes of the queue, started now."""
    for index in range(len(started), min(len(queue), len(started) + AHEAD)):
        started.append(Child(folder, queue[index], index))
