"""The results history's files as the command line sees them: which
commands open the history, and the files of its SQLite database.

No output may be the database or a file SQLite keeps beside it (-wal,
-shm, -journal): writing a report there would replace the stored records.
The output-path policy (graphbench.record.output_paths) compares every
output with each of them after every link is resolved and by inode, so
another name for the same file (a link, a hard link, /dev/stdout
redirected to it) is caught too, before any work."""

from __future__ import annotations

import os

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
