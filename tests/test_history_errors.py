"""Inputs that once ended the history's commands in a traceback, or in a
silent exit: each is now one line and exit 2. Times whose UTC lies outside
the years 1 to 9999, a schema version that is no whole number, a --history
name longer than a file's, and a reader of the output that leaves early."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tests_helpers import short_error

import graphbench.cli.commands as commands
from graphbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "records"
OUT_OF_RANGE = ["0001-01-01T00:00+01:00", "9999-12-31T23:59-05:00",
                "0001-01-01T00:00:00+23:59"]


def one_error(capsys, code: int) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    short_error(err)  # one or two lines a person reads
    return err


@pytest.fixture
def history(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--history", "h.db",
                 "-q"]) == 0
    return tmp_path / "h.db"


@pytest.mark.parametrize("when", OUT_OF_RANGE)
def test_a_since_outside_the_years_of_utc_is_one_line(history, capsys, when):
    err = one_error(capsys, main(["history", "list", "--history", "h.db", "--since", when]))
    assert "--since" in err and "9999-12-31" in err


@pytest.mark.parametrize("when", OUT_OF_RANGE)
def test_a_record_created_outside_the_years_of_utc_is_not_stored(history, tmp_path, capsys,
                                                                 when):
    text = (RECORDS / "same_code.json").read_text()
    document = json.loads(text)
    document["created"] = when
    (tmp_path / "odd.json").write_text(json.dumps(document))
    err = one_error(capsys, main(["history", "import", "odd.json", "--history", "h.db"]))
    assert "not stored" in err and "outside the years 1 to 9999" in err
    assert main(["history", "list", "--history", "h.db", "--json", "-"]) == 0
    assert len(json.loads(capsys.readouterr().out)["records"]) == 1


@pytest.mark.parametrize("version", ["'two'", "1.5", "NULL", "x'01'"])
def test_a_schema_version_that_is_no_whole_number_is_one_line(history, capsys, version):
    with sqlite3.connect(history) as db:
        if version == "NULL":  # NOT NULL in the schema: the row is replaced by a table without it
            db.execute("DROP TABLE graphbench_schema")
            db.execute("CREATE TABLE graphbench_schema (id INTEGER PRIMARY KEY, version)")
            db.execute("INSERT INTO graphbench_schema VALUES (1, NULL)")
        else:
            db.execute(f"UPDATE graphbench_schema SET version = {version}")
    db.close()
    before = history.read_bytes()
    for argv in (["history", "list"], ["history", "import", str(RECORDS / "same_code.json")]):
        err = one_error(capsys, main([*argv, "--history", "h.db"]))
        assert "schema version" in err and "graphbench did not write it" in err
    assert history.read_bytes() == before


@pytest.mark.parametrize("name", ["h" * 256 + ".db", "h" * 250, "d" * 256 + "/h.db"])
def test_a_history_name_longer_than_a_files_is_one_line(tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(commands, "measured", lambda *a: pytest.fail("measured"))
    for argv in (["history", "list"], ["history", "import", str(RECORDS / "same_code.json")],
                 ["compare", "last", str(RECORDS / "same_code.json")], ["run", "--save"]):
        err = one_error(capsys, main([*argv, "--history", name]))
        assert "longer than" in err and len(err) < 400
    assert list(tmp_path.iterdir()) == []


def reader_gone(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    """graphbench with its standard output a pipe whose reader has left."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    try:
        return subprocess.run([sys.executable, "-m", "graphbench", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("argv", [["history", "export", "last"],
                                  ["history", "export", "last", "--json", "-"],
                                  ["history", "list"], ["history", "list", "--json", "-"]])
def test_a_reader_that_leaves_is_one_line_and_exit_2(history, tmp_path, argv):
    done = reader_gone(*argv, "--history", "h.db", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("graphbench: error: ")
    assert "Traceback" not in done.stderr
