"""References to stored records, as compare and history export take them.

A reference is resolved in this order (a path that exists is a file, and
the caller reads it before asking here):
1. `last`: the newest stored run record for the same pipeline and machine
   as the other side (never the other side itself), or simply the newest
   when there is no other side;
2. hex digits: a stored record's id (or the unique start of one), else a
   stored commit (full, or the start of only one);
3. a revision git knows in the working directory (`main`, `v1.2`,
   `HEAD~1`), through `git rev-parse`: its commit.
For a commit, the newest record stored at it is taken, of the other
side's pipeline and machine when there is one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from graphbench.errors import HistoryError
from graphbench.history.keys import SHORT_ID, Key, machine_of, pipeline_of, record_id
from graphbench.history.repo import HEX, revision
from graphbench.history.store import History
from graphbench.record.model import RunRecord

LAST = "last"
LIST_REMEDY = "graphbench history list shows what is stored"


@dataclass(frozen=True)
class Side:
    """What the other side of a comparison is filed under, for `last` and
    commits: its pipeline, machine, and its own id (never chosen for it)."""

    pipeline: str
    pipeline_file: str
    machine: str
    id: str | None = None

    @classmethod
    def of_file(cls, record: RunRecord, text: str) -> Side:
        """The side of a record file, whose text is `text`."""
        return cls(*pipeline_of(record), machine_of(record)[0], record_id(text))


def resolve(history: History, ref: str, other: Side | None = None, kind: str | None = "run",
            cwd: str | os.PathLike | None = None) -> Key:
    """The stored record `ref` names (see the module docstring); HistoryError
    in one line when it names none, or more than one."""
    text = ref.strip()
    if text == LAST:
        return _newest(history, f"{LAST}", other, kind=kind)
    if HEX.fullmatch(text.lower()):
        found = _by_id(history, text.lower(), kind) or _by_stored_commit(history, text.lower(),
                                                                          other, kind)
        if found and other is not None and found.id == other.id:
            raise _itself(f"{text!r}", other)
        if found:
            return found
    commit = revision(text, cwd)
    if commit:
        return _newest(history, f"{text} (commit {commit[:12]})", other, kind=kind,
                       commit=commit)
    raise HistoryError(f"{text!r} is no file, and names no stored record: not 'last', no "
                       f"record id or stored commit starts with it, and git knows no such "
                       f"revision here", LIST_REMEDY)


def _by_id(history: History, prefix: str, kind: str | None) -> Key | None:
    found = history.keys(limit=2, id=prefix, kind=kind)
    if len(found) > 1:
        raise HistoryError(f"{prefix!r} starts the ids of several stored records",
                           f"give more of the id (history list shows {SHORT_ID} digits)")
    return found[0] if found else None


def _by_stored_commit(history: History, prefix: str, other: Side | None,
                      kind: str | None) -> Key | None:
    commits = {key.git_commit for key in history.keys(commit=prefix, kind=kind)}
    if len(commits) > 1:
        shown = ", ".join(sorted(c[:12] for c in commits if c)[:4])
        raise HistoryError(f"{prefix!r} starts several stored commits ({shown})",
                           "give more of the commit's digits")
    if not commits:
        return None
    commit = commits.pop() or ""
    return _newest(history, f"commit {commit[:12]}", other, kind=kind, commit=commit)


def _newest(history: History, named: str, other: Side | None, kind: str | None,
            commit: str | None = None) -> Key:
    filters = {"kind": kind, "commit": commit}
    if other is not None:
        filters.update(pipeline_name=other.pipeline, pipeline_file=other.pipeline_file,
                       machine_id=other.machine, exclude=other.id)
    found = history.keys(limit=1, **filters)
    if found:
        return found[0]
    where = "" if other is None else \
        f" of pipeline {other.pipeline} on machine {other.machine} (the other side's)"
    if other is not None and other.id and history.keys(limit=1, **{**filters, "exclude": None,
                                                                    "id": other.id}):
        raise _itself(named, other)
    raise HistoryError(f"{named}: no {kind or ''} record stored{where} in {history.where}"
                       .replace("  ", " "), LIST_REMEDY)


def _itself(named: str, other: Side) -> HistoryError:
    """The one record a reference finds is the other side's own text."""
    return HistoryError(f"{named} names only the other side's own record (the same text, "
                        f"stored as {(other.id or '')[:SHORT_ID]}): a record compared with "
                        "itself shows no change", "name an earlier record: a commit before "
                        "(main~1), or an id graphbench history list shows")
