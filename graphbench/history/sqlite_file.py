"""A history's SQLite file: its name checked, made whole or not at all, and
opened only once it is known to be a graphbench history.

A new history is made under a temporary name beside its own (tables,
schema version, WAL mode), then linked to its name, which fails if that
name was taken meanwhile: another first writer finds either nothing or a
whole history, never the empty file sqlite3.connect makes before its first
write. A file that is there is opened with mode=rw, so SQLite never makes
one, and read before anything is written to it: a file without
graphbench's tables (another program's database, an empty file, any other
file) is refused, and left byte for byte as it was. Readers never make a
file, a folder or a table."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import tempfile
from pathlib import Path
from urllib.parse import quote

from graphbench.errors import HistoryError, first_line
from graphbench.history import sql
from graphbench.record.files import shown_path

DEFAULT_FOLDER = ".graphbench"
BUSY_TIMEOUT_S = 30.0  # how long a SQLite writer waits for another to finish
SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's files beside the database
NAME_MAX = 255  # bytes of one name in a path
TEMP_NAME = 14  # what the temporary name adds: .NAME.XXXXXXXX.tmp
STORE_REMEDY = "store records there with graphbench run --save or graphbench history import"
FOREIGN_REMEDY = "give the history file graphbench made, or the name of a new file"
# link(2) is not offered everywhere (FAT, some FUSE file systems): then the new
# file is claimed with O_EXCL and copied in, and a reader that opens it before
# the copy ends is refused (it reads as no history), never given a half file
NO_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK)


def check_name(where: str, source: str) -> None:
    """HistoryError for a name that is no database file's: empty, `-`
    (standard output is no database), a folder's (ending in / or naming .
    or ..), one with a NUL, or longer than a file's name may be."""
    remedy = "give a file name, such as .graphbench/history.db, or a postgresql:// URL"
    if where == "-":
        raise HistoryError(f"{source} -: the history is a database file, not standard output",
                           remedy)
    if where.endswith("/") or os.path.basename(where) in ("", ".", ".."):
        raise HistoryError(f"{source} {shown_path(where)} names a folder, not a file", remedy)
    if "\0" in where:
        raise HistoryError(f"{source} {shown_path(where)} holds a NUL character", remedy)
    *folders, name = Path(where).parts
    if any(len(os.fsencode(part)) > NAME_MAX for part in folders) \
            or len(os.fsencode(name)) > NAME_MAX - TEMP_NAME:
        raise HistoryError(f"{source} {shown_path(where)} holds a name longer than a file's "
                           f"may be ({NAME_MAX - TEMP_NAME} bytes)", "give a shorter name")


def database_files(path: str | os.PathLike) -> list[str]:
    """The database and the files SQLite keeps beside it."""
    return [os.fspath(path)] + [f"{os.fspath(path)}{suffix}" for suffix in SIDE_FILES]


def open_sqlite(path: Path, create: bool) -> sqlite3.Connection:
    """The connection to the history at `path`; `create` makes it if missing
    (a reader is refused instead). HistoryError for anything else there."""
    found = _stat(path)
    if found is None:
        if not create:
            raise HistoryError(f"no history at {shown_path(path)} yet", STORE_REMEDY)
        _make(path)
    elif stat.S_ISDIR(found.st_mode):
        raise HistoryError(f"the history {shown_path(path)} is a directory",
                           "give a file name in it")
    elif not stat.S_ISREG(found.st_mode):  # a FIFO would wait for a writer, a device is none
        raise HistoryError(f"{shown_path(path)} is not a regular file, so not a graphbench "
                           "history", FOREIGN_REMEDY)
    uri = f"file:{quote(os.fsencode(os.path.abspath(path)))}?mode=rw"  # rw: never made here
    try:
        raw = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise _cannot_open(path, exc) from None
    try:
        _check_is_history(raw, path)
    except BaseException:
        raw.close()
        raise
    return raw


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a name too long, a file where a folder should be, no access
        raise HistoryError(f"cannot open the history {shown_path(path)}: "
                           f"{exc.strerror or exc}", FOREIGN_REMEDY) from None


def _check_is_history(raw: sqlite3.Connection, path: Path) -> None:
    """Read, never write: the tables the file holds must be graphbench's."""
    try:
        tables = {row[0] for row in raw.execute(sql.SQLITE_TABLES)}
    except sqlite3.Error as exc:
        raise _cannot_open(path, exc) from None
    if set(sql.TABLES) <= tables:
        return
    if _size(path) == 0:
        raise HistoryError(f"{shown_path(path)} is an empty file, not a graphbench history",
                           FOREIGN_REMEDY)
    raise HistoryError(f"{shown_path(path)} is a SQLite database without graphbench's tables, "
                       "not a graphbench history", FOREIGN_REMEDY)


def _size(path: Path) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _cannot_open(path: Path, exc: sqlite3.Error) -> HistoryError:
    text = first_line(exc)
    if "not a database" in text:
        return HistoryError(f"{shown_path(path)} is not a SQLite database, so not a graphbench "
                            "history", FOREIGN_REMEDY)
    return HistoryError(f"cannot open the history {shown_path(path)}: {text}", FOREIGN_REMEDY)


def _make(path: Path) -> None:
    """A whole new history at `path`, unless another writer made one first."""
    _make_folder(path.parent)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                                         dir=path.parent)
    except OSError as exc:
        raise HistoryError(f"cannot make the history {shown_path(path)}: "
                           f"{exc.strerror or exc}",
                           "give --history a file in a folder this user can write") from None
    os.close(fd)
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's is private; a history is shared
        _fill(temporary)
        _link(temporary, path)
    except (OSError, sqlite3.Error) as exc:
        raise HistoryError(f"cannot make the history {shown_path(path)}: "
                           f"{getattr(exc, 'strerror', None) or exc}",
                           "give --history a file in a folder this user can write") from None
    finally:
        for name in database_files(temporary):
            Path(name).unlink(missing_ok=True)


def _fill(temporary: str) -> None:
    """The tables and the schema's version, in WAL mode (kept in the file's header)."""
    raw = sqlite3.connect(temporary)
    try:
        raw.execute(sql.SQLITE_WAL)
        for statement in sql.CREATE[:-1]:
            raw.execute(statement)
        raw.execute(sql.CREATE[-1], (sql.SCHEMA_VERSION,))
        raw.commit()
    finally:
        raw.close()


def _link(temporary: str, path: Path) -> None:
    try:
        os.link(temporary, path)
    except FileExistsError:
        return  # another first writer made it: that one is opened
    except OSError as exc:
        if exc.errno not in NO_LINKS:
            raise
        _copy_exclusive(temporary, path)


def _copy_exclusive(temporary: str, path: Path) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as target:
        target.write(Path(temporary).read_bytes())
        target.flush()
        os.fsync(target.fileno())


def _make_folder(folder: Path) -> None:
    """The default folder is made with a .gitignore, so the history is never committed."""
    try:
        if folder.name == DEFAULT_FOLDER and not folder.exists():
            try:
                folder.mkdir(parents=True)
            except FileExistsError:
                pass  # another first writer made it, and its .gitignore
            else:
                (folder / ".gitignore").write_text("*\n")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HistoryError(f"cannot make {shown_path(folder)}: {exc.strerror or exc}",
                           "give --history a file in a folder this user can write") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
