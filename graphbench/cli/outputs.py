"""Output paths: every one checked before any work, by the one policy
(graphbench.record.output_paths), then written where it points; which
outputs a command has, and how each renders, is graphbench.report.outputs.

`-` is standard output, and so is any path that names the stream stdout
already is (/dev/stdout, a link to /proc/self/fd/1, the very file stdout is
redirected to): it is written through the open stream, never replaced (a
rename would leave the shell's descriptor on the old inode, and with it
the console report), and the console report moves to stderr, so that the
output is all stdout holds. Files follow graphbench/record/files.py.

A write that fails is an OutputError (one line, exit 2) and nothing says it
was written; a standard output that is closed is refused before any work,
when an output or the report would go there."""

from __future__ import annotations

import os
import sys

from graphbench.cli.history_files import history_files
from graphbench.cli.progress import console, route
from graphbench.errors import OutputError
from graphbench.record import output_paths
from graphbench.record.files import write_failed, write_text_atomic
from graphbench.record.output_paths import STDOUT, Wanted, standard_stream
from graphbench.record.printable import printable
from graphbench.report.outputs import (COMPARISON, OUTPUTS, RECORDS, REPLAY, RUN, SWEEP,
                                       outputs_for)

# the kinds each command writes, the first a format renders winning (run's --markdown: the gate's)
COMMAND_KINDS = {"run": (RUN, COMPARISON), "sweep": (SWEEP,), "report": (RECORDS,),
                 "compare": (COMPARISON,), "replay": (REPLAY,)}
# the inputs each command reads, by option; positional ones by their metavar
INPUTS = (("files", "FILE"), ("baseline", "--baseline"), ("current", "CURRENT"),
          ("ab_source", "--ab"), ("kernel_source", "--kernel-source"), ("pipeline", "--pipeline"))


def start(args) -> None:
    """Route the console for this command, then check what needs no device count."""
    outputs = given_outputs(args)
    to_stdout = any(one.path == STDOUT or (sys.stdout is not None and
                                           standard_stream(one.path) is sys.stdout)
                    for one in outputs)
    quiet = getattr(args, "quiet", False)
    route(report_to_stderr=to_stdout, quiet=quiet)
    check_outputs(args)
    if sys.stdout is None and not quiet and not to_stdout:
        raise OutputError("standard output is closed, so the report has nowhere to go",
                          "give --quiet, or send it to /dev/null (>/dev/null)")


def given_outputs(args) -> list[Wanted]:
    """Every output of the registry this command was given."""
    return [Wanted(output.flag, getattr(args, output.name), output.picture)
            for output in OUTPUTS.values() if getattr(args, output.name, None) is not None]


def check_outputs(args, devices: list[int] | None = None) -> None:
    """Every output path of this command, for each device it will be written for."""
    output_paths.check_outputs(given_outputs(args), input_paths(args), history_files(args),
                               devices)


def input_paths(args) -> list[tuple[str, str]]:
    found = []
    for name, label in INPUTS:
        value = getattr(args, name, None)
        if name == "baseline" and getattr(args, "command", "") == "compare":
            label = "BASELINE"
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path:
                found.append((label, path))
    return found


def write(path: str, text: str) -> str:
    """Write `text` where `path` points; returns a name for it to show.
    OutputError when it cannot be written whole."""
    stream = standard_stream(path)
    if stream is None:
        if path == STDOUT:  # closed after the check: never a file named "-"
            raise OutputError("cannot write standard output: it is closed")
        write_text_atomic(path, text)
        return printable(path)  # shown on the terminal: no raw escape sequence from a name
    name = "standard output" if stream is sys.stdout else "standard error"
    try:
        _write_stream(stream, text)
    except (OSError, ValueError) as exc:  # ValueError: the stream object was closed
        abandon(stream)
        if isinstance(exc, OSError):
            raise write_failed(name, exc) from None
        raise OutputError(f"cannot write {name}: it is closed") from None
    return name


def _write_stream(stream, text: str) -> None:
    """Every byte through the stream's descriptor: Python's buffered writer
    reported success after a short write to a pipe whose reader had left
    (64 KiB of a 170 KiB record out, exit 0); os.write says EPIPE."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # a stream with no descriptor (tests)
        stream.write(text)
        stream.flush()
        return
    stream.flush()  # what the stream holds goes first
    view = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    while view:
        view = view[os.write(fd, view):]


def abandon(stream) -> None:
    """Point a stream that failed at /dev/null, so that the interpreter's
    last flush of what it still buffers cannot fail a second time."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def emit(what: str, path: str, text: str) -> None:
    """Write `text` where `path` points and say so, unless that is a standard stream."""
    shown = write(path, text)
    if standard_stream(path) is None:
        console().print(f"{what} written to {shown}", style="dim")


def write_outputs(args, kind: str, thing, path_of=lambda path: path, skip=()) -> None:
    """Every output this command was given that renders `kind` (but those
    named in `skip`), made from `thing` and written to path_of(its path)
    (a device's file)."""
    for output, rendered in outputs_for(COMMAND_KINDS[args.command]):
        path = getattr(args, output.name, None)
        if rendered != kind or not path or output.name in skip:
            continue
        render, target = output.renders[kind], path_of(path)
        if output.picture is not None:
            written = render.make(target, thing)
            if written is not None:
                console().print(f"{render.noun} written to {printable(str(written))}",
                                style="dim")
        elif render.noun is None:
            write(target, render.make(thing))
        else:
            emit(render.noun, target, render.make(thing))
