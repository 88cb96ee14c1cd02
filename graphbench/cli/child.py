"""One process of `graphbench run --processes N`: read a RunConfig as JSON,
run it, write the record.

`python -m graphbench.cli.child CONFIG RECORD [GO_FD TIMED_FD]`: with the two
descriptors (graphbench.measure.processes.Child), it imports what a run needs
and says so on TIMED_FD, waits for a word on GO_FD before it touches the GPU
and for another before it times anything (none: the parent gave up, and it
exits 130), and says on TIMED_FD when its last timed figure is taken."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from graphbench.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, GraphbenchError


class ParentGone(Exception):
    """The parent closed GO_FD before its word: it gave up on this process."""


def wait_for_word(fd: int) -> None:
    if not os.read(fd, 1):
        raise ParentGone


def say(fd: int, word: bytes) -> None:
    try:
        os.write(fd, word)
    except BrokenPipeError:
        raise ParentGone from None


def main(argv: list[str]) -> int:
    from graphbench.cli import error_line
    from graphbench.config import RunConfig
    from graphbench.measure.processes import IMPORTED, TIMED
    from graphbench.runner import preload, run_benchmark
    from graphbench.record.codec import decode, parse_json, write_record
    from graphbench.record.files import read_text

    if len(argv) not in (2, 4) or not all(fd.isdigit() for fd in argv[2:]):
        print("usage: python -m graphbench.cli.child CONFIG.json RECORD.json [GO_FD TIMED_FD]",
              file=sys.stderr)
        return EXIT_USAGE
    go_fd, timed_fd = (int(argv[2]), int(argv[3])) if len(argv) == 4 else (None, None)
    try:
        config = decode(RunConfig, parse_json(read_text(argv[0]), argv[0]), "config")
        if go_fd is not None:
            preload()
            say(timed_fd, IMPORTED)
            wait_for_word(go_fd)
        record = run_benchmark(config, on_timed=(lambda: say(timed_fd, TIMED))
                               if timed_fd is not None else None,
                               before_timing=(lambda: wait_for_word(go_fd))
                               if go_fd is not None else None)
        write_record(argv[1], record)  # no summary block: the parent reads only the samples
    except GraphbenchError as exc:
        print(f"graphbench: error: {error_line(exc)}", file=sys.stderr)
        return exc.exit_code
    except ParentGone:
        return EXIT_INTERRUPTED
    return EXIT_OK if record.verified else EXIT_FAILED


def exit_now(code: int) -> NoReturn:
    """End the process without Python's finalization. Freeing every CUDA
    and CuPy object and module one by one costs a noticeable share of each
    process's turn, on the queue's path (the next process sets up only once
    this one has ended); the driver frees the context and its memory when
    the process ends either way, and any record is written and closed by
    now. Skipping it shortens a multi-process baseline and leaves its busy
    figures alike (results/sizes/process_seconds_h100.json; docs/measurement.md#host-side-costs)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))
