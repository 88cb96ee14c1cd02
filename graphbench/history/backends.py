"""Where the history lives and the connection to it: a SQLite file (the
default, .graphbench/history.db in the git repository's root, else in the
working directory) or a PostgreSQL database named by its URL. Both are
DB-API connections; what differs between them is only here: how to
connect, the driver's error classes and its placeholder style. The SQLite
file itself (made whole, never a file that is not a history) is
graphbench.history.sqlite_file's; passwords are graphbench.history.secrets'."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphbench._version import install_command
from graphbench.errors import HistoryError, first_line
from graphbench.history.repo import toplevel
from graphbench.history.secrets import masked, scrub, secrets_of
from graphbench.history.sqlite_file import DEFAULT_FOLDER, check_name, open_sqlite

ENVIRONMENT = "GRAPHBENCH_HISTORY"  # the location when --history is not given
DEFAULT_FILE = "history.db"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 10
POSTGRES_REMEDY = install_command("postgres") + " (psycopg 3)"


@dataclass
class Connection:
    """An open DB-API connection with what the code path needs to know of
    its driver: the placeholder style and the base of its errors."""

    raw: Any
    paramstyle: str
    error: type[BaseException]
    where: str  # the location as shown to users (a URL without its passwords)
    secrets: tuple[str, ...] = ()  # what no message may show (graphbench.history.secrets)

    def said(self, exc: BaseException) -> str:
        """The driver's first line about `exc`, every password masked."""
        return scrub(first_line(exc), self.secrets)


def location(given: str | None, cwd: str | os.PathLike | None = None) -> str:
    """The history's location: --history, else $GRAPHBENCH_HISTORY, else the default file."""
    if given is not None:
        if not given.strip():
            raise HistoryError("--history '': an empty location",
                               "give a file, or a postgresql:// URL")
        return _checked(given, "--history")
    from_environment = os.environ.get(ENVIRONMENT, "").strip()
    if from_environment:
        return _checked(from_environment, f"${ENVIRONMENT}")
    root = toplevel(cwd) or Path(cwd or os.getcwd())
    return str(root / DEFAULT_FOLDER / DEFAULT_FILE)


def _checked(where: str, source: str) -> str:
    if not is_postgres(where) and not _has_scheme(where):
        check_name(where, source)
    return where


def is_postgres(where: str) -> bool:
    return where.startswith(POSTGRES_SCHEMES)


def _has_scheme(where: str) -> bool:
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", where) is not None


def connect(where: str, create: bool) -> Connection:
    """The connection; `create` False refuses a SQLite file that is not there
    yet (a reader has nothing to read), HistoryError naming the remedy."""
    if is_postgres(where):
        return _postgres(where)
    if _has_scheme(where):
        raise HistoryError(f"--history {masked(where)}: graphbench keeps its history in a "
                           "SQLite file or a PostgreSQL database",
                           "give a file path or a postgresql://USER@HOST/DB URL")
    import sqlite3

    path = Path(where)
    return Connection(open_sqlite(path, create), "qmark", sqlite3.Error, str(path))


def _postgres(where: str) -> Connection:
    try:
        import psycopg
    except ImportError:
        raise HistoryError(f"--history {masked(where)} needs psycopg, which is not installed",
                           POSTGRES_REMEDY) from None
    secrets = secrets_of(where)
    try:
        raw = psycopg.connect(where, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as exc:
        raise HistoryError(f"cannot connect to {masked(where)}: "
                           f"{scrub(first_line(exc), secrets)}",
                           "check the URL, that the server runs and takes this user") from None
    return Connection(raw, "format", psycopg.Error, masked(where), secrets)

