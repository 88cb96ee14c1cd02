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
TIMED = b"t"  # a child's word that its timed work is over


def child_command(config_path: str, record_path: str, go_fd: int | None = None,
                  timed_fd: int | None = None) -> list[str]:
    fds = [str(go_fd), str(timed_fd)] if go_fd is not None else []
    return [sys.executable, "-m", CHILD_MODULE, config_path, record_path, *fds]


class Child:
    """One fresh process of the run, started ahead of its turn: it imports
    graphbench and its libraries (CPU work, no CUDA) and waits to be told to
    go. It says when its last timed figure is taken, so the next one can
    import beside its checks (Python's start and imports: about a second
    under cProfile on an H100) and never beside its timing."""

    def __init__(self, folder: str, config: RunConfig, index: int):
        self.record_path = Path(folder) / f"process{index}.json"
        config_path = Path(folder) / f"config{index}.json"
        config_path.write_text(json.dumps(to_json(config)), encoding="utf-8")
        go_read, self._go = os.pipe()
        self._timed, timed_write = os.pipe()
        self._stderr = open(Path(folder) / f"stderr{index}.txt", "w+", encoding="utf-8")
        try:
            self.process = subprocess.Popen(
                child_command(str(config_path), str(self.record_path), go_read, timed_write),
                stdout=subprocess.DEVNULL, stderr=self._stderr, pass_fds=(go_read, timed_write))
        finally:
            os.close(go_read)
            os.close(timed_write)

    def go(self) -> None:
        os.write(self._go, b"g")
        os.close(self._go)
        self._go = -1

    def timed(self) -> bool:
        """Wait until the process's timed work is over: True, or it ended first: False."""
        return os.read(self._timed, 1) == TIMED

    def finish(self) -> str | None:
        """Wait for the process to end: None, or the last line it wrote to stderr."""
        code = self.process.wait()
        if code in (0, EXIT_FAILED):
            return None
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
    measures at a time; the next, of the same config or the next one, starts
    when the one before has taken its last timed figure (Child)."""
    queue = [replace(config, seed=config.seed + index)
             for config in configs for index in range(count)]
    records: list[RunRecord] = []
    started: list[Child] = []
    with tempfile.TemporaryDirectory(prefix="graphbench-") as folder:
        try:
            for index in range(len(queue)):
                if len(started) == index:  # not started ahead: the one before never said
                    started.append(Child(folder, queue[index], index))
                child = started[index]
                child.go()
                if child.timed() and index + 1 < len(queue):
                    started.append(Child(folder, queue[index + 1], index + 1))
                failure = child.finish()
                if failure:
                    raise GraphbenchError(f"process {index + 1} of {len(queue)} failed: "
                                          f"{failure}")
                records.append(read_run(child.record_path))
                if on_done:
                    on_done(index + 1)
        finally:
            for child in started:
                child.close()
    return [records[k * count:(k + 1) * count] for k in range(len(configs))]
