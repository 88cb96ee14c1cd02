"""The results history harms no file of the user's: no output of any
command is the history database or a file SQLite keeps beside it; a file
that is not a graphbench history (another program's SQLite database, an
empty file, any file) is refused in one line and left byte for byte;
reading makes nothing; a --history that names no database file is refused;
and `history html` writes only into a folder that is new, empty or its own.

Covers graphbench/history/sqlite_file.py."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest
from tests_helpers import short_error

import graphbench.cli.commands as commands
from graphbench.cli import main
from postgres_server import database_url

RECORDS = Path(__file__).resolve().parent / "records"
MARKER = ".graphbench-site"  # graphbench.cli.site_folder.MARKER: the folder is graphbench's
RECORD = str(RECORDS / "baseline.json")
CURRENT = str(RECORDS / "same_code.json")


def one_error(capsys, code: int) -> str:
    """The one line a refused command said; it must have exited 2."""
    err = capsys.readouterr().err
    assert code == 2, err
    short_error(err)  # one or two lines a person reads
    return err


def contents(folder: Path) -> dict[str, str]:
    """Every file under `folder` by its path, with its bytes' digest."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            if p.is_file() else "dir" for p in sorted(folder.rglob("*"))}


@pytest.fixture
def box(tmp_path, monkeypatch):
    """An empty working directory outside any repository, with no default history."""
    folder = tmp_path / "box"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setattr(commands, "measured", lambda *a: pytest.fail("measured"))
    return folder


@pytest.fixture
def history(box) -> Path:
    """A history holding one record, closed (no -wal or -shm beside it)."""
    assert main(["history", "import", RECORD, "--history", "h.db", "-q"]) == 0
    return box / "h.db"


# --- no output is the history ----------------------------------------------------

OUTPUTS_ON_THE_HISTORY = [
    ["history", "export", "last", "--history", "h.db", "--json", "h.db"],
    ["history", "list", "--history", "h.db", "--json", "h.db"],
    ["history", "list", "--history", "h.db", "--json", "h.db-wal"],
    ["history", "list", "--history", "h.db", "--json", "h.db-shm"],
    ["history", "list", "--history", "h.db", "--json", "./sub/../h.db"],
    ["history", "list", "--history", "h.db", "--json", "hard.db"],     # a hard link to it
    ["history", "list", "--history", "h.db", "--json", "soft.db"],     # a symbolic link to it
    ["history", "export", "last", "--json", "h.db"],                   # $GRAPHBENCH_HISTORY
    ["compare", "last", CURRENT, "--history", "h.db", "--json", "h.db"],
    ["compare", "last", CURRENT, "--history", "h.db", "--markdown", "h.db-wal"],
    ["run", "--save", "--history", "h.db", "--json", "h.db"],          # before the driver
    ["run", "--save", "--history", "h.db", "--csv", "soft.db"],
]


@pytest.mark.parametrize("argv", OUTPUTS_ON_THE_HISTORY, ids=" ".join)
def test_no_output_is_the_history_or_a_file_beside_it(history, box, monkeypatch, capsys, argv):
    (box / "sub").mkdir()
    os.link(history, box / "hard.db")
    (box / "soft.db").symlink_to("h.db")
    monkeypatch.setenv("GRAPHBENCH_HISTORY", "h.db")
    before = contents(box)
    err = one_error(capsys, main(argv))
    assert "results history" in err and "destroy the stored records" in err
    assert contents(box) == before  # no -wal or -shm made either
    assert main(["history", "list", "--history", "h.db", "-q"]) == 0


def test_the_site_is_never_written_over_the_history(history, box, capsys):
    assert main(["history", "html", "site", "--history", "h.db", "-q"]) == 0
    os.replace(history, box / "site" / "index.html")  # a site's own page, now the history
    before = contents(box)
    err = one_error(capsys, main(["history", "html", "site", "--history", "site/index.html"]))
    assert "is the results history" in err
    assert contents(box) == before


# --- a file that is not a history is refused and left as it was -----------------------

def sqlite_of_another_program(path: Path, wal: bool) -> None:
    with sqlite3.connect(path) as db:
        if wal:
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, what TEXT)")
        db.execute("INSERT INTO orders (what) VALUES ('kept')")
    db.close()


FOREIGN = {
    "another-sqlite": lambda p: sqlite_of_another_program(p, wal=False),
    "another-sqlite-wal": lambda p: sqlite_of_another_program(p, wal=True),
    "empty": lambda p: p.write_bytes(b""),
    "text": lambda p: p.write_bytes(b"my notes, not a database\n" * 40),
    "fifo": os.mkfifo,  # opening it would wait for a writer
    "device": lambda p: p.symlink_to(os.devnull),
}
COMMANDS = {
    "list": ["history", "list"],
    "export": ["history", "export", "last"],
    "html": ["history", "html", "site"],
    "import": ["history", "import", RECORD],
    "compare": ["compare", "last", CURRENT],
    "run-save": ["run", "--save"],
}


@pytest.mark.parametrize("kind", FOREIGN)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_that_is_not_a_history_is_refused_and_left_byte_for_byte(box, capsys, kind,
                                                                       command):
    FOREIGN[kind](box / "app.db")
    before = contents(box)
    err = one_error(capsys, main([*COMMANDS[command], "--history", "app.db"]))
    assert "not a graphbench history" in err
    assert contents(box) == before  # its bytes, and no table, -wal, -shm or site made


def test_reads_of_a_missing_history_make_nothing(box, capsys):
    for command in ("list", "export", "html", "compare"):
        err = one_error(capsys, main([*COMMANDS[command], "--history", "none/h.db"]))
        assert "no history at none/h.db yet" in err
        err = one_error(capsys, main(COMMANDS[command]))  # the default, .graphbench/history.db
        assert "no history at" in err
    assert contents(box) == {}


def test_a_read_of_an_empty_postgresql_database_makes_no_tables(postgres_server, box, capsys):
    import psycopg

    url = database_url(postgres_server)
    for command in ("list", "export", "html", "compare"):
        err = one_error(capsys, main([*COMMANDS[command], "--history", url]))
        assert "no history in" in err and "tables are not there" in err
    with psycopg.connect(url) as db:
        tables = db.execute("SELECT table_name FROM information_schema.tables "
                            "WHERE table_name LIKE 'graphbench%'").fetchall()
    assert tables == []
    assert contents(box) == {}


# --- names that are no database file; folders that are the user's ---------------------

@pytest.mark.parametrize("name", ["", "-", "newdir/", "newdir/.", "newdir/..", "x" * 300,
                                  "a/" + "b" * 300 + "/h.db"])
@pytest.mark.parametrize("command", ["import", "list", "run-save"])
def test_a_history_name_that_is_no_database_file_is_refused(box, capsys, name, command):
    err = one_error(capsys, main([*COMMANDS[command], "--history", name]))
    assert "--history" in err and len(err) < 400
    assert contents(box) == {}  # no file named - or newdir, no folder


@pytest.mark.parametrize("name", ["-", "newdir/"])
def test_the_environment_names_no_such_history_either(box, monkeypatch, capsys, name):
    monkeypatch.setenv("GRAPHBENCH_HISTORY", name)
    err = one_error(capsys, main(COMMANDS["import"]))
    assert "$GRAPHBENCH_HISTORY" in err
    assert contents(box) == {}


def test_html_refuses_a_folder_that_holds_the_users_files(history, box, capsys):
    own = box / "own"
    own.mkdir()
    (own / "index.html").write_text("my own page\n")
    (box / "sub" / "deeper").mkdir(parents=True)
    before = contents(box)
    for folder in ("own", "sub"):
        err = one_error(capsys, main(["history", "html", folder, "--history", "h.db"]))
        assert "holds files graphbench did not write" in err
    err = one_error(capsys, main(["history", "html", "", "--history", "h.db"]))
    assert "an empty folder name" in err
    err = one_error(capsys, main(["history", "html", ".", "--history", "h.db"]))  # holds h.db
    assert "h.db" in err
    assert contents(box) == before


def test_html_rewrites_only_a_folder_it_made(history, box, capsys):
    for _ in range(2):
        assert main(["history", "html", "site", "--history", "h.db", "-q"]) == 0
    written = sorted(p.name for p in (box / "site").iterdir())
    assert written[0] == MARKER and "index.html" in written and len(written) == 3
    (box / "site" / "notes.txt").write_text("mine\n")
    before = contents(box)
    err = one_error(capsys, main(["history", "html", "site", "--history", "h.db"]))
    assert "notes.txt" in err
    assert contents(box) == before
    (box / "site" / "notes.txt").unlink()
    (box / "site" / MARKER).write_text("forged\nindex.html\n../h.db\n")
    before = contents(box)
    err = one_error(capsys, main(["history", "html", "site", "--history", "h.db"]))
    assert "is not one graphbench wrote" in err
    assert contents(box) == before


def test_html_removes_the_pages_of_its_own_that_the_site_no_longer_has(history, box):
    assert main(["history", "html", "site", "--history", "h.db", "-q"]) == 0
    [old] = [p.name for p in (box / "site").glob("trend-*.html")]
    assert main(["history", "html", "site", "--history", "h.db", "--pipeline", "softmax",
                 "-q"]) == 0
    assert sorted(p.name for p in (box / "site").iterdir()) == [MARKER, "index.html"]
    assert old not in (box / "site" / MARKER).read_text()
