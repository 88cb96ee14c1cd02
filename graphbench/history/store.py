"""The results history: records stored as their JSON text, indexed by their
key (graphbench.history.keys), in one schema (graphbench.history.sql)
through one code path for SQLite and PostgreSQL.

Each record is stored in a transaction of its own, one INSERT committed or
rolled back whole: a writer killed before its commit leaves nothing, and a
reader never sees a row that was not committed. SQLite runs in WAL mode
with a busy timeout, so writers at once wait for each other and readers
wait for none."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from graphbench.errors import HistoryError
from graphbench.history import sql
from graphbench.history.backends import Connection, connect, location
from graphbench.history.keys import SHORT_ID, Key
from graphbench.history.sqlite_file import STORE_REMEDY

SCHEMA_RETRIES = 3  # two first writers at once: the loser's CREATE fails, then finds the tables


class History:
    """An open history. `where` is its location as shown to users."""

    def __init__(self, connection: Connection) -> None:
        self._db = connection
        self.where = connection.where

    @classmethod
    def open(cls, given: str | None = None, create: bool = True,
             cwd: str | os.PathLike | None = None) -> History:
        """The history at --history `given` (None: the default), its schema
        made on first use; `create` False (a reader) makes nothing: a
        SQLite file or PostgreSQL tables not yet there are refused."""
        history = cls(connect(location(given, cwd), create))
        try:
            history._ensure_schema(create)
        except BaseException:
            history.close()
            raise
        return history

    def close(self) -> None:
        try:
            self._db.raw.close()
        except self._db.error:
            pass

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------

    def save(self, key: Key, document: str) -> bool:
        """Store one record in one transaction; False if it was already stored."""
        with self._transaction("store a record in"):
            return self.insert(key, document)

    def insert(self, key: Key, document: str) -> bool:
        """The INSERT alone, inside the caller's transaction (see `save`)."""
        cursor = self._execute(sql.INSERT, (*key.row(), document))
        return bool(cursor.rowcount == 1)

    # --- reading ---------------------------------------------------------------

    def keys(self, limit: int | None = None, **filters: str | None) -> list[Key]:
        """Stored records' keys, newest first, every filter given holding
        (graphbench.history.sql.FILTERS names them)."""
        statement, params = sql.select(filters, limit)
        with self._transaction("read"):
            rows = self._execute(statement, params).fetchall()
        return [Key(*row) for row in rows]

    def document(self, record_id: str) -> str:
        with self._transaction("read"):
            row = self._execute(sql.SELECT_DOCUMENT, (record_id,)).fetchone()
        if row is None:
            raise HistoryError(f"no record {record_id[:SHORT_ID]} in {self.where}",
                               "graphbench history list shows what is stored")
        return str(row[0])

    # --- the code path both back ends share --------------------------------------

    def _execute(self, statement: str, params: Sequence = ()) -> Any:
        cursor = self._db.raw.cursor()
        cursor.execute(sql.translate(statement, self._db.paramstyle), tuple(params))
        return cursor

    @contextmanager
    def _transaction(self, what: str) -> Iterator[None]:
        """Commit what the block did, or roll all of it back; a driver's
        error becomes one HistoryError naming the history."""
        try:
            yield
            self._db.raw.commit()
        except self._db.error as exc:
            self._rollback()
            raise HistoryError(f"cannot {what} the history {self.where}: {self._db.said(exc)}",
                               "check that it is a graphbench history this user can write"
                               ) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        try:
            self._db.raw.rollback()
        except self._db.error:
            pass  # the connection is gone: the server rolls back what it held

    def _ensure_schema(self, create: bool) -> None:
        version = self._version()
        for attempt in range(SCHEMA_RETRIES):
            if version is not None:
                break
            if not create:
                raise HistoryError(f"no history in {self.where} yet: graphbench's tables are "
                                   "not there", STORE_REMEDY)
            try:
                with self._transaction("make the tables of"):
                    for statement in sql.CREATE[:-1]:
                        self._execute(statement)
                    self._execute(sql.CREATE[-1], (sql.SCHEMA_VERSION,))
            except HistoryError:
                if attempt == SCHEMA_RETRIES - 1:
                    raise
            version = self._version()
        if version is not None and version > sql.SCHEMA_VERSION:
            raise HistoryError(f"the history {self.where} has schema version {version}; this "
                               f"graphbench reads version {sql.SCHEMA_VERSION}",
                               "upgrade graphbench to the version that wrote it")

    def _version(self) -> int | None:
        """The stored schema version; None where the tables are not made yet.
        A version that is no whole number was not written by graphbench."""
        try:
            with self._transaction("read"):
                row = self._execute(sql.SELECT_VERSION).fetchone()
        except HistoryError:
            return None
        if row is None:
            return None
        if type(row[0]) is not int:  # bool is an int too; a text '1' is not
            shown = repr(row[0])
            raise HistoryError(f"the history {self.where} has schema version "
                               f"{shown if len(shown) <= 40 else shown[:37] + '...'}, which is "
                               "no whole number: graphbench did not write it",
                               "give the history graphbench made")
        return row[0]
