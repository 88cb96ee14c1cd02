"""Every output path judged before any work, one policy for every command
(check_outputs), so a bad path costs a second, not a finished benchmark.

An output must be something a result can be written to: a regular file, a
name a file can be made under, or `-` (standard output). A FIFO (its reader
is someone's pipeline) and a character device that opens for writing
(/dev/null, a terminal for a text output) are written through. Refused: an
empty name or one that ends in a folder, a name longer than a file's, a
closed standard output, a picture on a stream or a terminal or with a
suffix it cannot have, a socket, a block device (a disk), a folder, the
kernel's own files under /proc and /sys, a read-only file or one of another
user's, a folder no file can be made in; two outputs on one file or stream;
an output on an input (compared after every link, by inode); an output on
the results history's database or the files SQLite keeps beside it; and a
stream or folder where several devices or launch shapes each need a file.

An input must be something that can be read to its end: this command's own
standard output or error, a terminal, or a FIFO nobody writes to would wait
for ever. The writer (graphbench.record.files) refuses again what would be
lost at write time: an empty name, a folder, a read-only file."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from graphbench.errors import OutputError, UsageError
from graphbench.record.files import (check_existing, check_not_waiting, check_path_text,
                                     existing, is_stream, shown_path)

STDOUT = "-"
KERNEL_FOLDERS = ("/proc", "/sys")  # their files are the kernel's interfaces, not storage
NAME_MAX = 255  # bytes of one name in a path, on every file system Linux writes results to
TEMP_NAME = 14  # what the atomic write's temporary name adds: .NAME.XXXXXXXX.tmp


@dataclass(frozen=True)
class Wanted:
    """One output a command was given: its flag, its path, and for a
    picture (never a stream) the check of its suffix."""
    flag: str
    path: str
    picture: Callable[[str], None] | None = None


def check_outputs(wanted: list[Wanted], inputs: list[tuple[str, str]] = (),
                  history: list[str] = (), devices: list[int] | None = None) -> None:
    """The one entry point: every output path, for each device it will be
    written for (out.dev0.json, out.dev1.json, ... when several). `inputs`:
    (label, path) of what the command reads; `history`: the files of the
    SQLite history it opens."""
    count = len(devices) if devices else 1
    check_given(wanted, inputs)
    check_not_history(wanted, history)
    for one in wanted if count > 1 else ():
        check_splittable(one.flag, one.path, f"{count} devices", "each device gets its own "
                         "(out.dev0.json, out.dev1.json, ...)")
    per_device = [Wanted(f"{one.flag} (device {device})" if count > 1 else one.flag,
                         per_device_path(one.path, device, count), one.picture)
                  for one in wanted for device in devices or [0]]
    if count > 1:
        check_distinct(per_device, inputs)
        check_not_history(per_device, history)
    for one in per_device:
        if standard_stream(one.path) is None:
            check_writable(one.path, one.flag.split(" ")[0])


def check_given(wanted: list[Wanted], inputs: list[tuple[str, str]]) -> None:
    """The checks that hold whatever the device count, so `--device all`
    makes them before the driver is asked how many devices there are."""
    for one in wanted:
        option, path = one.flag, one.path
        check_path_text(path, option)
        check_name_length(path, option)
        if path == STDOUT and sys.stdout is None:
            raise OutputError(f"{option} -: standard output is closed",
                              "give a file name, or leave standard output open")
        if one.picture is not None:
            one.picture(path)
            if standard_stream(path) is not None:
                raise UsageError(f"{option} {path} is standard output or error",
                                 "write the chart to a file")
        if path != STDOUT and standard_stream(path) is None:
            check_output_kind(path, option, one.picture is not None)
            check_writable(path, option)  # a folder, a read-only file: whatever the device count
    check_distinct(wanted, inputs)
    for label, path in inputs:
        check_input_kind(path, label, standard_stream(path) is not None)


def standard_stream(path: str):
    """sys.stdout or sys.stderr when `path` is that stream, else None: `-`,
    or any path that names the stream (/dev/stdout, a link to
    /proc/self/fd/1, the very file stdout is redirected to)."""
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


def per_device_path(path: str, device: int, count: int) -> str:
    """out.json for one device; out.dev0.json, out.dev1.json, ... for several."""
    target = Path(path)
    if count == 1 or target.name in ("", ".", ".."):  # a folder: refused as one by the checks
        return path
    return str(target.with_name(f"{target.stem}.dev{device}{target.suffix}"))


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


def check_distinct(wanted: list[Wanted], inputs: list[tuple[str, str]]) -> None:
    """No two outputs on one file or stream, and no output on an input
    (compared after every link, so a link to an input is caught too)."""
    seen: dict[tuple, tuple[str, str]] = {}
    for one in wanted:
        key = _identity(one.path, one.flag)
        if key in seen:
            first, _ = seen[key]
            where = "standard output" if standard_stream(one.path) is sys.stdout else one.path
            raise UsageError(f"{first} and {one.flag} both write to {where}",
                             "give each output its own file")
        seen[key] = (one.flag, one.path)
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


def check_not_history(wanted: list[Wanted], history: list[str]) -> None:
    """UsageError for an output that is one of the history's files: writing
    a report there would replace the stored records."""
    for one in wanted:
        for guarded in history:
            if same_file(one.path, guarded):
                raise UsageError(f"{one.flag} {shown_path(one.path)} is the results history's "
                                 f"{shown_path(guarded)}: writing it would destroy the stored "
                                 "records", "write the output to another file")


def same_file(path: str | os.PathLike, other: str | os.PathLike) -> bool:
    """`path` and `other` name one file: resolved through every link to
    one path, or (both there) one inode. `-` is standard output."""
    path = "/dev/stdout" if os.fspath(path) == STDOUT else path
    try:
        if os.path.realpath(path) == os.path.realpath(other):
            return True
        mine, theirs = os.stat(path), os.stat(other)
    except (OSError, ValueError):  # either not there (or no name a file can have): not one
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def check_output_kind(path: str, option: str, picture: bool = False) -> None:
    """UsageError for an output that is no file a result can go to."""
    if Path(path).name in ("", ".", ".."):  # missing/.. exists nowhere, yet names a folder
        raise UsageError(f"{option} {path} names a folder, not a file", "give a file name")
    _check_not_kernel_file(path, option)
    found = existing(path, option)
    if found is None:
        return
    mode = found.st_mode
    if stat.S_ISSOCK(mode):
        raise UsageError(f"{option} {path} is a socket, not a file", "give a file name")
    if stat.S_ISBLK(mode):
        raise UsageError(f"{option} {path} is a block device (a disk): writing it would "
                         "overwrite the disk", "give a file name")
    if stat.S_ISCHR(mode):
        _check_character_device(path, option, picture)


def check_name_length(path: str, option: str) -> None:
    """UsageError for a name no result's file can have, before any other
    check of the path echoes it whole."""
    *folders, name = Path(path).parts or ("",)
    if any(len(os.fsencode(part)) > NAME_MAX for part in folders) \
            or len(os.fsencode(name)) > NAME_MAX - TEMP_NAME:
        raise UsageError(f"{option} {shown_path(path)} holds a name longer than a result's "
                         f"file may have ({NAME_MAX - TEMP_NAME} bytes)", "give a shorter name")


def _check_character_device(path: str, option: str, picture: bool) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise UsageError(f"{option} {path} cannot be opened for writing "
                         f"({exc.strerror or exc})", "give a file name") from None
    try:
        terminal = os.isatty(fd)
    finally:
        os.close(fd)
    if terminal and picture:  # binary images: a terminal shows them as noise
        raise UsageError(f"{option} {path} is a terminal: a chart is an image file",
                         "give a file name ending in .svg or .png")


def _check_not_kernel_file(path: str, option: str) -> None:
    """Anything on the file systems mounted at /proc and /sys, found by the
    device of the path (or its nearest folder that exists): /dev/stdout
    leads through /proc/self/fd/1 to the stream itself, not to /proc."""
    target = _nearest_existing(path)
    if target is None:
        return
    for folder in KERNEL_FOLDERS:
        try:
            kernel = os.stat(folder).st_dev
        except OSError:
            continue
        if target.st_dev == kernel:
            raise UsageError(f"{option} {path} is in {folder}, the kernel's own files, not a "
                             "place for results", "give a file name elsewhere")


def _nearest_existing(path: str) -> os.stat_result | None:
    candidate = path
    while True:
        try:
            return os.stat(candidate)
        except (OSError, ValueError):
            parent = os.path.dirname(candidate.rstrip(os.sep)) or "."
            if parent == candidate:
                return None
            candidate = parent


def check_writable(path: str | os.PathLike, option: str) -> None:
    """UsageError now if `path` cannot be written later."""
    check_path_text(os.fspath(path), option)
    found = existing(path, option)
    if found is not None:
        check_existing(path, found, option)
        if is_stream(found.st_mode) or os.access(path, os.W_OK):
            return  # written in place when its folder is closed to us
        # replacing it would hand another user's file to us: refuse instead
        raise UsageError(f"{option} {path} is not writable by this user", "give another file")
    check_folder(path, option)


def check_folder(path: str | os.PathLike, option: str) -> None:
    """UsageError unless a file can be made in the folder `path` names."""
    folder = Path(os.path.realpath(path)).parent
    probe_dir = folder
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise UsageError(f"{option} {path}: {probe_dir} is not a directory")
    # can a file (or the missing folders) really be made there? /proc says yes to access()
    try:
        fd, probe = tempfile.mkstemp(prefix=".graphbench-check.", dir=probe_dir)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {probe_dir} "
                         f"({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


def check_input_kind(path: str, label: str, own_output: bool) -> None:
    """UsageError for an input whose reading would never end. own_output:
    `path` is this process's standard output or error."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return  # missing or unreadable: the reader says why
    if own_output:
        raise UsageError(f"{label} {path} is this command's own output stream: reading it "
                         "would wait for ever", "give the record file itself")
    check_not_waiting(path, label)
