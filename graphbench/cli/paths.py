"""What a path on the command line names, judged before any work: an
output must be something a result can be written to, an input something
that can be read to its end without waiting for ever.

Outputs: a regular file, or a name a file can be made under, or `-`; a FIFO
(its reader is someone's pipeline) and a character device that opens for
writing (/dev/null, a terminal for a text output) are written through. A
socket, a block device (a disk), a folder and the kernel's own files under
/proc and /sys are refused: none of them can hold a result, and writing
/proc/sys/* would change the system instead.

Inputs: a regular file, or a stream that something writes to. Reading this
command's own standard output or error, a terminal, or a FIFO nobody
writes to would wait for ever, so they are refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from graphbench.errors import UsageError
from graphbench.record.files import check_not_waiting, existing, shown_path

KERNEL_FOLDERS = ("/proc", "/sys")  # their files are the kernel's interfaces, not storage
CHARTS = ("--plot", "--timeline")
NAME_MAX = 255  # bytes of one name in a path, on every file system Linux writes results to
TEMP_NAME = 14  # what the atomic write's temporary name adds: .NAME.XXXXXXXX.tmp  # binary images: a terminal shows them as noise


def check_output_kind(path: str, option: str) -> None:
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
        _check_character_device(path, option)


def check_name_length(path: str, option: str) -> None:
    """UsageError for a name no result's file can have, before any other
    check of the path echoes it whole."""
    *folders, name = Path(path).parts or ("",)
    if any(len(os.fsencode(part)) > NAME_MAX for part in folders) \
            or len(os.fsencode(name)) > NAME_MAX - TEMP_NAME:
        raise UsageError(f"{option} {shown_path(path)} holds a name longer than a result's "
                         f"file may have ({NAME_MAX - TEMP_NAME} bytes)", "give a shorter name")


def _check_character_device(path: str, option: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise UsageError(f"{option} {path} cannot be opened for writing "
                         f"({exc.strerror or exc})", "give a file name") from None
    try:
        terminal = os.isatty(fd)
    finally:
        os.close(fd)
    if terminal and option in CHARTS:
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
