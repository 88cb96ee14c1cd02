"""Where the console output goes, and progress displays on stderr while
rounds, processes or sweep points run (nothing when stderr is not a
terminal, or with --no-progress or --quiet)."""

from __future__ import annotations

import errno
import functools
import os
import sys
from contextlib import contextmanager

# Set once per command by the CLI (cli/outputs.py): an output on standard
# output moves the report to stderr; --quiet silences it. rich honours NO_COLOR.
_ROUTE = {"report_to_stderr": False, "quiet": False}


def route(report_to_stderr: bool, quiet: bool) -> None:
    _ROUTE.update(report_to_stderr=report_to_stderr, quiet=quiet)


def quiet() -> bool:
    return _ROUTE["quiet"]


def console(stderr: bool = False):
    return _console_class()(stderr=stderr or _ROUTE["report_to_stderr"], quiet=_ROUTE["quiet"],
                            highlight=False)


@functools.cache
def _console_class():
    """rich's Console (imported on first use), but for a reader that left:
    rich's own ending is exit 1, which says "regression", without a word;
    the CLI says it in one line and exits 2 (graphbench.cli.main)."""
    from rich.console import Console

    class ReportConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    return ReportConsole


def show_progress(no_progress: bool) -> bool:
    return sys.stderr.isatty() and not no_progress and not _ROUTE["quiet"]


@contextmanager
def round_progress(total: int | None, enabled: bool, unit: str = "rounds"):
    """Adaptive sampling has no known total: the bar then just pulses.

    No refresh thread: rich's would wake up during timed rounds, on the
    launching thread's pinned CPU. The display is redrawn from the callback,
    which runs between rounds."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("timing"), BarColumn(), TextColumn(f"{{task.completed}} {unit}"),
                  TimeElapsedColumn(), console=console(stderr=True), transient=True,
                  auto_refresh=False) as progress:
        task = progress.add_task("rounds", total=total)
        yield lambda done, reason: progress.update(task, completed=done, refresh=True)


@contextmanager
def sweep_progress(total: int, enabled: bool):
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from graphbench.launch_shape import shape_name

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console(stderr=True), transient=True,
                  auto_refresh=False) as progress:
        task = progress.add_task("sweep", total=total)

        def on_point(index, count, config):
            shaped = config.grid != "auto" or config.block is not None
            shape = f", {shape_name(config.grid, config.block)}" if shaped else ""
            progress.update(task, completed=index, description=f"{config.elements:,} elements, "
                            f"depth {config.depth}{shape}", refresh=True)
        yield on_point
