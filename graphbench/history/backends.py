"""Where the history lives and the connection to it: a SQLite file (the
default, .graphbench/history.db in the git repository's root, else in the
working directory) or a PostgreSQL database named by its URL. Both are
DB-API connections; what differs between them is only here: how to
connect, the driver's error classes and its placeholder style. Passwords
are graphbench.history.secrets'."""

from __future__ import annotations

import os
import random
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphbench._version import install_command
from graphbench.errors import HistoryError
from graphbench.history.sql import SQLITE_SETUP
from graphbench.history.repo import toplevel
from graphbench.history.secrets import masked, scrub, secrets_of

ENVIRONMENT = "GRAPHBENCH_HISTORY"  # the location when --history is not given
DEFAULT_FOLDER, DEFAULT_FILE = ".graphbench", "history.db"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
BUSY_TIMEOUT_S = 30.0  # how long a SQLite writer waits for another to finish
BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (named in sqlite3 from Python 3.11)
CONNECT_TIMEOUT_S = 10
POSTGRES_REMEDY = install_command("postgres") + " (psycopg 3)"
STORE_REMEDY = "store records there with graphbench run --save or graphbench history import"


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
        return given
    from_environment = os.environ.get(ENVIRONMENT, "").strip()
    if from_environment:
        return from_environment
    root = toplevel(cwd) or Path(cwd or os.getcwd())
    return str(root / DEFAULT_FOLDER / DEFAULT_FILE)


def is_postgres(where: str) -> bool:
    return where.startswith(POSTGRES_SCHEMES)


def connect(where: str, create: bool) -> Connection:
    """The connection; `create` False refuses a SQLite file that is not there
    yet (a reader has nothing to read), HistoryError naming the remedy."""
    if is_postgres(where):
        return _postgres(where)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", where):
        raise HistoryError(f"--history {masked(where)}: graphbench keeps its history in a "
                           "SQLite file or a PostgreSQL database",
                           "give a file path or a postgresql://USER@HOST/DB URL")
    return _sqlite(Path(where), create)


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


def _sqlite(path: Path, create: bool) -> Connection:
    if path.is_dir():
        raise HistoryError(f"--history {path} is a directory", "give a file name in it")
    if not path.exists():
        if not create:
            raise HistoryError(f"no history at {path} yet", STORE_REMEDY)
        _make_folder(path.parent)
    try:
        raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        for statement in SQLITE_SETUP:
            _execute_while_busy(raw, statement.format(busy_ms=int(BUSY_TIMEOUT_S * 1000)))
    except sqlite3.Error as exc:
        raise HistoryError(f"cannot open the history {path}: {first_line(exc)}",
                           "give a SQLite file graphbench wrote, or a new name") from None
    return Connection(raw, "qmark", sqlite3.Error, str(path))


def _execute_while_busy(raw: sqlite3.Connection, statement: str) -> None:
    """Run a set-up statement, retried while another connection holds the
    lock. SQLite answers a switch to WAL mode with SQLITE_BUSY at once,
    without its busy handler, when another connection makes the same switch
    (two first writers of a new file), so the busy timeout is kept here."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            raw.execute(statement)
            return
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.005, 0.05))  # apart, so the two do not meet again


def _busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11 on; before, only the text
    return code in BUSY_CODES if code is not None else "locked" in str(exc)


def _make_folder(folder: Path) -> None:
    """The default folder is made with a .gitignore, so the history is never committed."""
    try:
        if folder.name == DEFAULT_FOLDER and not folder.exists():
            folder.mkdir(parents=True)
            (folder / ".gitignore").write_text("*\n")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HistoryError(f"cannot make {folder}: {exc.strerror or exc}",
                           "give --history a file in a folder this user can write") from None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
