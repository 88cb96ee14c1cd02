"""The results history (graphbench.history), every case against SQLite and
against a real PostgreSQL server (tests/postgres_server.py): keys, the
schema, references, filters, two writers at once and a writer killed
before its commit.

Covers graphbench/history/backends.py.
Covers graphbench/history/documents.py.
Covers graphbench/history/keys.py.
Covers graphbench/history/refs.py.
Covers graphbench/history/repo.py.
Covers graphbench/history/sql.py.
Covers graphbench/history/store.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from graphbench.errors import HistoryError, UsageError
from graphbench.history import sql
from graphbench.history.backends import location
from graphbench.history.secrets import masked as shown
from graphbench.history.documents import run_from_text
from graphbench.history.keys import key_for
from graphbench.history.refs import Side, resolve
from graphbench.history.repo import run_commit
from graphbench.history.store import History
from postgres_server import database_url

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "records"
COMMIT_A, COMMIT_B = "a" * 40, "aaaa" + "b" * 36


def record_text(name: str, minute: int = 0) -> str:
    """A record file's text, made at 00:MM so that texts and times differ."""
    text = (RECORDS / f"{name}.json").read_text()
    return text.replace('"created": "2026-12-01T00:00:00+00:00"',
                        f'"created": "2026-12-01T00:{minute:02d}:00+00:00"', 1)


def store(history: History, name: str, minute: int = 0, commit: str | None = COMMIT_A):
    text = record_text(name, minute)
    key = key_for(run_from_text(text, name), text, commit)
    assert history.save(key, text)
    return key


@pytest.fixture(params=["sqlite", "postgresql"])
def history_url(request, tmp_path):
    """The location of a new, empty history on each back end."""
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    return database_url(request.getfixturevalue("postgres_server"))


@pytest.fixture
def history(history_url):
    with History.open(history_url) as opened:
        yield opened


def test_a_record_is_stored_once_with_its_key(history):
    key = store(history, "baseline")
    text = record_text("baseline")
    assert not history.save(key, text)  # the same text again: already there
    [listed] = history.keys()
    assert listed == key
    assert history.document(key.id) == text
    assert (key.kind, key.pipeline, key.pipeline_file, key.git_commit) == \
        ("run", "add_mul_sub", "built-in", COMMIT_A)
    assert (key.gpu_name, key.gpu_uuid, key.driver_version, key.host_cpu) == \
        ("NVIDIA H200", "GPU-00000000-test", "580.159.04", "x86_64")
    assert key.created == "2026-12-01T00:00:00.000000+00:00"


def side_of(key) -> Side:
    """The other side as compare forms it from a stored record's key."""
    return Side(key.pipeline, key.pipeline_file, key.machine, key.id)


def test_last_is_the_newest_of_the_other_sides_pipeline_and_machine(history):
    old = store(history, "baseline", 1)
    new = store(history, "one_process_baseline", 2)
    text = record_text("same_code", 3)
    current = key_for(run_from_text(text, "current"), text, None)
    assert resolve(history, "last", side_of(current)) == new
    assert resolve(history, "last", side_of(new)) == old  # never the other side itself
    assert resolve(history, "last") == new
    elsewhere = Side(current.pipeline, current.pipeline_file, "000000000000")
    with pytest.raises(HistoryError, match="no run record stored of pipeline add_mul_sub"):
        resolve(history, "last", elsewhere)


def test_a_commit_is_named_in_full_or_by_its_unique_start(history):
    at_a = store(history, "baseline", 1, COMMIT_A)
    at_b = store(history, "same_code", 2, COMMIT_B)
    assert resolve(history, COMMIT_A) == at_a
    assert resolve(history, "aaaab") == at_b
    assert resolve(history, COMMIT_B.upper()) == at_b
    with pytest.raises(HistoryError, match="starts several stored commits"):
        resolve(history, "aaaa")
    assert resolve(history, at_b.id[:12]) == at_b  # a record id


def test_a_reference_that_names_nothing_is_one_history_error(history, tmp_path):
    store(history, "baseline")
    for ref in ("no-such-branch", "deadbeef", "last^^"):
        with pytest.raises(HistoryError) as found:
            resolve(history, ref, cwd=tmp_path)
        assert "\n" not in found.value.one_line()
        assert "history list" in found.value.remedy


def test_a_branch_is_resolved_by_git(history, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    head = run_commit(None, repo)
    assert head and len(head) == 40
    assert run_commit("main", repo) == head
    at_head = store(history, "same_code", 1, head)
    store(history, "baseline", 2, COMMIT_A)
    assert resolve(history, "main", cwd=repo) == at_head
    assert resolve(history, "HEAD", cwd=repo) == at_head
    (tmp_path / "nowhere").mkdir()
    assert run_commit(None, tmp_path / "nowhere") is None
    with pytest.raises(UsageError, match="is not a commit"):
        run_commit("not a sha", repo)


def test_the_listing_filters(history):
    first = store(history, "baseline", 1, COMMIT_A)
    second = store(history, "same_code", 2, COMMIT_B)
    assert history.keys() == [second, first]
    assert history.keys(limit=1) == [second]
    assert history.keys(commit="aaaab") == [second]
    assert history.keys(since="2026-12-01T00:02:00.000000+00:00") == [second]
    assert history.keys(pipeline="add_mul_sub", limit=5) == [second, first]
    assert history.keys(pipeline="softmax") == []
    assert history.keys(machine=first.machine[:6]) == [second, first]
    assert history.keys(machine="GPU-00000000-test") == [second, first]
    assert history.keys(machine="NVIDIA H100") == []


def test_the_schema_is_versioned_and_a_newer_one_refused(history_url):
    with History.open(history_url) as history:
        history._execute("UPDATE graphbench_schema SET version = ?", (sql.SCHEMA_VERSION + 1,))
        history._db.raw.commit()
    with pytest.raises(HistoryError, match="schema version 2; this graphbench reads version 1"):
        History.open(history_url)


WRITER = textwrap.dedent("""
    import sys
    from graphbench.history.documents import run_from_text
    from graphbench.history.keys import key_for
    from graphbench.history.store import History
    url, base, first, count = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
    with History.open(url) as history:
        print("open", flush=True)
        sys.stdin.readline()  # both start together
        for i in range(first, first + count):
            text = base.replace('"created": "2026-12-01T00:00:00+00:00"',
                                '"created": "2026-12-01T%02d:%02d:00+00:00"' % divmod(i, 60), 1)
            history.save(key_for(run_from_text(text, "w"), text, None), text)
""")


def test_two_writers_at_once_both_succeed(history_url):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    History.open(history_url).close()  # the tables exist; the writers race on the rows
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, history_url,
                                 str(RECORDS / "same_code.json"), str(first), "15"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
               for first in (0, 100)]
    for writer in writers:
        assert writer.stdout.readline().strip() == "open", writer.stderr.read()
    for writer in writers:
        writer.stdin.write("go\n")
        writer.stdin.flush()
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with History.open(history_url) as history:
        keys = history.keys(limit=100)
        assert len(keys) == 30
        for key in keys:
            assert run_from_text(history.document(key.id), key.id).created == \
                key.created.replace(".000000", "")


def test_two_first_writers_both_make_the_schema(history_url):
    url = history_url
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from graphbench.history.store import History; History.open(sys.argv[1])"
    runs = [subprocess.Popen([sys.executable, "-c", code, url], env=env,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for run in runs:
        assert run.wait(timeout=60) == 0, run.stderr.read()



# Four first writers of each of 25 new SQLite files, all four opening a file
# at the same tick of a shared clock: SQLite refused a second switch to WAL
# mode at once, without waiting (one in six such meetings failed), and a
# writer could find the empty file another had just made. Each now makes its
# history whole under a name of its own and links it into place
# (graphbench.history.sqlite_file), so the others find nothing or all of it.
FIRST_WRITERS = textwrap.dedent("""
    import sys, time
    from graphbench.history.store import History
    folder, start = sys.argv[1], float(sys.argv[2])
    for n in range(25):
        time.sleep(max(0.0, start + 0.06 * n - time.time()))
        History.open(f"{folder}/h{n}.db").close()
""")


@pytest.mark.slow
def test_first_writers_of_new_sqlite_files_at_the_same_moment_all_open_them(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.time() + 3.0  # after the four interpreters have started
    runs = [subprocess.Popen([sys.executable, "-c", FIRST_WRITERS, str(tmp_path), str(start)],
                             env=env, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    errors = [run.stderr.read() for run in runs if run.wait(timeout=120) != 0]
    assert not errors, errors[0]
    for n in range(25):
        with History.open(str(tmp_path / f"h{n}.db"), create=False) as history:
            assert history.keys() == []

KILLED = textwrap.dedent("""
    import sys, time
    from graphbench.history.documents import run_from_text
    from graphbench.history.keys import key_for
    from graphbench.history.store import History
    url, text = sys.argv[1], open(sys.argv[2]).read()
    history = History.open(url)
    history.insert(key_for(run_from_text(text, "k"), text, None), text)  # no commit
    print("inserted", flush=True)
    time.sleep(600)
""")


def test_a_writer_killed_before_its_commit_leaves_nothing(history_url):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with History.open(history_url) as history:
        kept = store(history, "baseline", 1)
    writer = subprocess.Popen([sys.executable, "-c", KILLED, history_url,
                               str(RECORDS / "same_code.json")], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert writer.stdout.readline().strip() == "inserted", writer.stderr.read()
        with History.open(history_url) as history:
            assert history.keys() == [kept]  # its row is not committed: no reader sees it
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 30
    with History.open(history_url) as history:
        assert history.keys() == [kept]
        while True:  # PostgreSQL rolls back once it sees the connection gone
            try:
                new = store(history, "same_code", 0, None)  # the very row it held
                break
            except (HistoryError, AssertionError):
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert history.keys() == [kept, new]
        assert run_from_text(history.document(new.id), "new").created == \
            "2026-12-01T00:00:00+00:00"


def test_the_default_location_is_the_repositorys_root(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert location(None, repo / "sub") == str(repo / ".graphbench" / "history.db")
    assert location(None, tmp_path) == str(tmp_path / ".graphbench" / "history.db")
    History.open(None, cwd=repo / "sub").close()
    assert (repo / ".graphbench" / ".gitignore").read_text() == "*\n"
    assert (repo / ".graphbench" / "history.db").is_file()
    monkeypatch.setenv("GRAPHBENCH_HISTORY", str(tmp_path / "elsewhere.db"))
    assert location(None, tmp_path) == str(tmp_path / "elsewhere.db")
    assert location("given.db", tmp_path) == "given.db"


def test_sqlite_locations_that_hold_no_history_are_refused(tmp_path):
    with pytest.raises(HistoryError, match="no history at .* yet"):
        History.open(str(tmp_path / "none.db"), create=False)
    assert not (tmp_path / "none.db").exists()
    bad = tmp_path / "bad.db"
    bad.write_text("not a database at all, just text " * 100)
    with pytest.raises(HistoryError, match="bad.db"):
        History.open(str(bad))
    with pytest.raises(HistoryError, match="is a directory"):
        History.open(str(tmp_path))
    with pytest.raises(HistoryError, match="SQLite file or a PostgreSQL"):
        History.open("mysql://u@h/db")


def test_a_postgresql_url_without_psycopg_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError
    with pytest.raises(HistoryError) as found:
        History.open("postgresql://u:secret@127.0.0.1:1/db")
    assert 'pip install ".[postgres]"' in found.value.remedy
    assert "secret" not in found.value.one_line()


def test_an_unreachable_server_is_one_line_without_its_password():
    pytest.importorskip("psycopg")
    with pytest.raises(HistoryError) as found:
        History.open("postgresql://u:secret@127.0.0.1:1/db")
    assert "cannot connect to postgresql://u:***@127.0.0.1:1/db" in found.value.one_line()
    assert "secret" not in found.value.one_line()
    assert shown("postgres://u@h/db") == "postgres://u@h/db"


def test_placeholders_are_translated_in_one_place():
    statement, params = sql.select({"commit": "ab", "kind": "run", "since": None}, 3)
    assert params == [2, "ab", "run", 3]
    assert statement.count("?") == 4
    assert sql.translate(statement, "qmark") == statement
    assert sql.translate("a LIKE '%' AND b = ?", "format") == "a LIKE '%%' AND b = %s"
    with pytest.raises(ValueError):
        sql.translate(statement, "named")


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    import sqlite3

    with History.open(str(tmp_path / "h.db")) as history:
        raw = history._db.raw
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert raw.execute("PRAGMA busy_timeout").fetchone() == (30000,)
    with sqlite3.connect(tmp_path / "h.db") as plain:  # the mode stays with the file
        assert plain.execute("PRAGMA journal_mode").fetchone() == ("wal",)
