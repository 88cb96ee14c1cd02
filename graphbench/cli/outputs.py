"""Output paths: every one checked before any work, then written where it
points.

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

import json
import os
import stat
import sys
from pathlib import Path

from graphbench.cli.progress import console, route
from graphbench.errors import OutputError, UsageError
from graphbench.record.printable import printable
from graphbench.cli.history_files import check_not_history, history_files
from graphbench.cli.paths import check_input_kind, check_name_length, check_output_kind
from graphbench.record.files import (check_path_text, check_writable, existing, is_stream,
                                     write_failed, write_text_atomic)

OUTPUTS = ("json", "markdown", "csv", "plot", "timeline")
STDOUT = "-"
# the inputs each command reads, by option; positional ones by their metavar
INPUTS = (("files", "FILE"), ("baseline", "--baseline"), ("current", "CURRENT"),
          ("ab_source", "--ab"), ("kernel_source", "--kernel-source"), ("pipeline", "--pipeline"))


def start(args) -> None:
    """Route the console for this command, then check what needs no device count."""
    outputs = given_outputs(args)
    to_stdout = any(path == STDOUT or (sys.stdout is not None and standard_stream(path)
                                       is sys.stdout) for _, path in outputs)
    quiet = getattr(args, "quiet", False)
    route(report_to_stderr=to_stdout, quiet=quiet)
    check_given(outputs, input_paths(args))
    check_not_history(outputs, history_files(args))
    if sys.stdout is None and not quiet and not to_stdout:
        raise OutputError("standard output is closed, so the report has nowhere to go",
                          "give --quiet, or send it to /dev/null (>/dev/null)")


def given_outputs(args) -> list[tuple[str, str]]:
    return [(f"--{name}", getattr(args, name)) for name in OUTPUTS
            if getattr(args, name, None) is not None]


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


def standard_stream(path: str):
    """sys.stdout or sys.stderr when `path` is that stream, else None."""
    if path == STDOUT:
        return sys.stdout
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            mine = os.fstat(fd)
        except OSError:
            continue
        if (mine.st_dev, mine.st_ino) == (found.st_dev, found.st_ino):
            return stream
    return None


def is_stream_output(path: str) -> bool:
    """True for a destination that cannot be rewritten, only written once."""
    if standard_stream(path) is not None:
        return True
    found = existing(path)
    return found is not None and is_stream(found.st_mode)


def check_given(outputs: list[tuple[str, str]], inputs: list[tuple[str, str]]) -> None:
    """The checks that hold whatever the device count, so `--device all`
    makes them before the driver is asked how many devices there are."""
    from graphbench.report.chart import check_chart_path
    from graphbench.report.timeline import check_timeline_path

    for option, path in outputs:
        check_path_text(path, option)
        check_name_length(path, option)
        if path == STDOUT and sys.stdout is None:
            raise OutputError(f"{option} -: standard output is closed",
                              "give a file name, or leave standard output open")
        if option in ("--plot", "--timeline"):
            (check_chart_path if option == "--plot" else check_timeline_path)(path)
            if standard_stream(path) is not None:
                raise UsageError(f"{option} {path} is standard output or error",
                                 "write the chart to a file")
        if path != STDOUT and standard_stream(path) is None:
            check_output_kind(path, option)
            check_writable(path, option)  # a folder, a read-only file: whatever the device count
    check_distinct(outputs, inputs)
    for label, path in inputs:
        check_input_kind(path, label, standard_stream(path) is not None)


def check_outputs(args, devices: list[int] | None = None) -> None:
    """Every output path, for each device it will be written for."""
    count = len(devices) if devices else 1
    outputs = given_outputs(args)
    check_given(outputs, input_paths(args))
    for option, path in outputs if count > 1 else ():
        check_splittable(option, path, f"{count} devices", "each device gets its own "
                         "(out.dev0.json, out.dev1.json, ...)")
    per_device = [(f"{option} (device {device})" if count > 1 else option,
                   per_device_path(path, device, count))
                  for option, path in outputs for device in devices or [0]]
    if count > 1:
        check_distinct(per_device, input_paths(args))
        check_not_history(per_device, history_files(args))
    for option, path in per_device:
        if standard_stream(path) is None:
            check_writable(path, option.split(" ")[0])


def check_splittable(option: str, path: str, several: str, names: str) -> None:
    """An output that will be one file per device or launch shape: it needs
    a file name to put the device or shape into."""
    if path == STDOUT or is_stream_output(path):
        raise UsageError(f"{option} {path}: a stream holds one output, and this run has "
                         f"{several}", f"give a file name: {names}")
    found = existing(path, option)
    if Path(path).name in ("", ".", "..") or (found is not None and stat.S_ISDIR(found.st_mode)):
        raise UsageError(f"{option} {path} is a folder: this run has {several}, and each needs "
                         "a file name", f"give a file name in it: {names}")


def check_distinct(outputs: list[tuple[str, str]], inputs: list[tuple[str, str]]) -> None:
    """No two outputs on one file or stream, and no output on an input
    (compared after every link, so a link to an input is caught too)."""
    seen: dict[tuple, tuple[str, str]] = {}
    for option, path in outputs:
        key = _identity(path, option)
        if key in seen:
            first, _ = seen[key]
            where = "standard output" if standard_stream(path) is sys.stdout else path
            raise UsageError(f"{first} and {option} both write to {where}",
                             "give each output its own file")
        seen[key] = (option, path)
    for label, path in inputs:
        found = existing(path, label) if os.path.exists(path) else None
        if found is None or not stat.S_ISREG(found.st_mode):
            continue  # a terminal read and written is no harm; a missing input fails later
        key = ("inode", found.st_dev, found.st_ino)
        if key in seen:
            option, out = seen[key]
            raise UsageError(f"{option} {out} is the input {label} {path}: writing it would "
                             "destroy what is read", "write the output to another file")


def _identity(path: str, option: str) -> tuple:
    if path == STDOUT:
        try:
            found = os.fstat(1)
        except OSError:
            return ("stdout",)
        return ("inode", found.st_dev, found.st_ino)
    found = existing(path, option)
    if found is not None:
        return ("inode", found.st_dev, found.st_ino)
    return ("path", os.path.realpath(path))


def per_device_path(path: str, device: int, count: int) -> str:
    """out.json for one device; out.dev0.json, out.dev1.json, ... for several."""
    target = Path(path)
    if count == 1 or target.name in ("", ".", ".."):  # a folder: refused as one by the checks
        return path
    return str(target.with_name(f"{target.stem}.dev{device}{target.suffix}"))


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


def record_text(record) -> str:
    """The record as --json writes it, with its block of derived figures."""
    from graphbench.stats.summary import summary_document
    from graphbench.record.codec import run_document, sweep_document
    from graphbench.record.model import RunRecord

    document = run_document(record, summary_document) if isinstance(record, RunRecord) \
        else sweep_document(record, summary_document)
    return json_text(document)


def json_text(document: dict) -> str:
    return json.dumps(document, indent=2, allow_nan=False) + "\n"  # as codec.write_json


def emit(what: str, path: str, text: str) -> None:
    """Write `text` where `path` points and say so, unless that is a standard stream."""
    shown = write(path, text)
    if standard_stream(path) is None:
        console().print(f"{what} written to {shown}", style="dim")
