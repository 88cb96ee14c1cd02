"""Every statement the results history runs, written once for both back ends
(SQLite through the standard library's sqlite3, PostgreSQL through psycopg 3).

The statements use the SQL both understand: TEXT and INTEGER columns, a
text primary key (the record's sha256, made by graphbench, so no back end's
own counter is needed), `INSERT ... ON CONFLICT (id) DO NOTHING`, substr()
and LIMIT. They are written with `?` placeholders; `translate` turns them
into the driver's own style, in this one place.
"""

from __future__ import annotations

# The schema's version, stored in graphbench_schema. A history written by a
# newer graphbench (a higher version) is refused, never changed.
SCHEMA_VERSION = 1

CREATE = (
    "CREATE TABLE IF NOT EXISTS graphbench_schema ("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS graphbench_records ("
    " id TEXT PRIMARY KEY,"            # sha256 of the stored document
    " kind TEXT NOT NULL,"             # run or sweep
    " created TEXT NOT NULL,"          # the record's own time, UTC, ISO 8601
    " saved TEXT NOT NULL,"            # when it was stored, UTC, ISO 8601
    " git_commit TEXT,"                # of the repository it ran in; NULL: none
    " pipeline TEXT NOT NULL,"         # the pipeline's name ...
    " pipeline_file TEXT NOT NULL,"    # ... and its file as given (built-in, a path)
    " machine TEXT NOT NULL,"          # short hash of the four fields below
    " host_cpu TEXT NOT NULL,"
    " gpu_name TEXT NOT NULL,"
    " gpu_uuid TEXT NOT NULL,"
    " driver_version TEXT NOT NULL,"
    " document TEXT NOT NULL)",        # the record's JSON text, as written
    "CREATE INDEX IF NOT EXISTS graphbench_records_key"
    " ON graphbench_records (pipeline, machine, created)",
    "CREATE INDEX IF NOT EXISTS graphbench_records_commit ON graphbench_records (git_commit)",
    "INSERT INTO graphbench_schema (id, version) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
)

TABLES = ("graphbench_schema", "graphbench_records")  # a history holds both

# SQLite's own (graphbench.history.sqlite_file): the tables a file holds, read
# before anything is written to it; and WAL mode, set once as a history is
# made and kept in its file: readers never wait for a writer nor see what it
# has not committed.
SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'"
SQLITE_WAL = "PRAGMA journal_mode = WAL"

SELECT_VERSION = "SELECT version FROM graphbench_schema WHERE id = 1"

KEY_COLUMNS = ("id", "kind", "created", "saved", "git_commit", "pipeline", "pipeline_file",
               "machine", "host_cpu", "gpu_name", "gpu_uuid", "driver_version")

INSERT = (f"INSERT INTO graphbench_records ({', '.join(KEY_COLUMNS)}, document)"
          f" VALUES ({', '.join('?' for _ in KEY_COLUMNS)}, ?) ON CONFLICT (id) DO NOTHING")

SELECT_DOCUMENT = "SELECT document FROM graphbench_records WHERE id = ?"

# The filters of a listing, each with its placeholders' values made from one
# given text (see `select`): a pipeline by name or file, a machine by its
# hash's prefix, its GPU's UUID or the start of it (with or without the GPU-
# that nvidia-smi writes and CUDA does not) or its GPU's model name, a
# commit by prefix, a time on or
# after, a kind, a record id by prefix, a record to leave out; the exact
# pipeline and machine of another record (refs: `last`); and a series'
# machine class and a time on or before (graphbench.history.series).
FILTERS = {
    "pipeline": ("(pipeline = ? OR pipeline_file = ?)", 2),
    "machine": ("(substr(machine, 1, ?) = ? OR substr(lower(gpu_uuid), 1, ?) = ?"
                " OR substr(lower(gpu_uuid), 1, ?) = ? OR gpu_name = ?)", 0),
    "commit": ("substr(git_commit, 1, ?) = ?", 0),
    "since": ("created >= ?", 1),
    "kind": ("kind = ?", 1),
    "id": ("substr(id, 1, ?) = ?", 0),
    "exclude": ("id <> ?", 1),
    "pipeline_name": ("pipeline = ?", 1),
    "pipeline_file": ("pipeline_file = ?", 1),
    "machine_id": ("machine = ?", 1),
    "host_cpu": ("host_cpu = ?", 1),
    "gpu_name": ("gpu_name = ?", 1),
    "driver_version": ("driver_version = ?", 1),
    "until": ("created <= ?", 1),
}

UUID_PREFIX = "gpu-"  # nvidia-smi's GPU-58b09b3a-..., lower-cased as the column is compared
NEWEST_FIRST = " ORDER BY created DESC, saved DESC, id"


def select(filters: dict[str, str | None], limit: int | None = None) -> tuple[str, list]:
    """The listing's statement and its parameters: every filter given (not
    None) must hold; newest first; at most `limit` rows."""
    clauses, params = [], []
    for name, value in filters.items():
        if value is None:
            continue
        clause, copies = FILTERS[name]
        clauses.append(clause)
        params.extend(_values(name, value, copies))
    statement = f"SELECT {', '.join(KEY_COLUMNS)} FROM graphbench_records"
    if clauses:
        statement += " WHERE " + " AND ".join(clauses)
    statement += NEWEST_FIRST
    if limit is not None:
        statement += " LIMIT ?"
        params.append(limit)
    return statement, params


def _values(name: str, value: str, copies: int) -> list:
    if name == "machine":
        uuid = bare_uuid(value)
        return [len(value), value, len(uuid), uuid, len(uuid) + len(UUID_PREFIX),
                UUID_PREFIX + uuid, value]
    if name in ("commit", "id"):  # a prefix: its length, then the text
        return [len(value), value]
    return [value] * copies


def bare_uuid(text: str) -> str:
    """A GPU UUID, or its start, as CUDA writes it: lower case, without GPU-."""
    text = text.strip().lower()
    return text[len(UUID_PREFIX):] if text.startswith(UUID_PREFIX) else text


def translate(statement: str, paramstyle: str) -> str:
    """`statement` in the driver's placeholder style: sqlite3's qmark as
    written, psycopg's format (%s, with a literal % doubled)."""
    if paramstyle == "qmark":
        return statement
    if paramstyle in ("format", "pyformat"):
        return statement.replace("%", "%%").replace("?", "%s")
    raise ValueError(f"no placeholder translation for paramstyle {paramstyle!r}")
