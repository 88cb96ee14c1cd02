"""The results history's files as the command line sees them: which
commands open the history, and the outputs that would be it.

No output may be the history's SQLite database or a file SQLite keeps
beside it (-wal, -shm, -journal): writing a report there would replace the
stored records. An output is compared with each of them after every link
is resolved and by inode, so another name for the same file (a link, a
hard link, /dev/stdout redirected to it) is caught too, before any work."""

from __future__ import annotations

import os

from graphbench.errors import UsageError
from graphbench.record.files import shown_path

STDOUT = "-"


def is_file(text: str) -> bool:
    """A side of compare that is a record file, not a reference into the history."""
    return os.path.lexists(text) or text.endswith(".json") or text == STDOUT


def opens_history(args) -> bool:
    """Every history action; compare when a side is a reference; run --save."""
    command = getattr(args, "command", None)
    if command == "history":
        return True
    if command == "compare":
        sides = (getattr(args, "baseline", None), getattr(args, "current", None))
        return any(side is not None and not is_file(side) for side in sides)
    return bool(getattr(args, "save", False))


def history_files(args) -> list[str]:
    """The files of the SQLite history this command opens (none for a
    PostgreSQL one, or where it opens none)."""
    if not opens_history(args):
        return []
    from graphbench.history.backends import is_postgres, location
    from graphbench.history.sqlite_file import database_files

    where = location(getattr(args, "history", None))
    return [] if is_postgres(where) else database_files(where)


def check_not_history(outputs: list[tuple[str, str]], history: list[str]) -> None:
    """UsageError for an output that is one of the history's files."""
    for option, path in outputs:
        for guarded in history:
            if same_file(path, guarded):
                raise UsageError(f"{option} {shown_path(path)} is the results history's "
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
