"""The results history on the command line, every case against SQLite and
against a real PostgreSQL server (tests/postgres_server.py): run --save,
history list/export/import, and compare's references.

Covers graphbench/cli/history.py.
Covers graphbench/cli/series.py."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests_helpers import short_error

import graphbench.cli.commands as commands
from graphbench.cli import main
from graphbench.record.codec import read_run
from postgres_server import database_url

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "tests" / "records"


def record(name: str, minute: int):
    """A record file's record, made at 00:MM."""
    return dataclasses.replace(read_run(RECORDS / f"{name}.json"),
                               created=f"2026-12-01T00:{minute:02d}:00+00:00")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with one commit on main, as the working directory."""
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "commit", "-q", "--allow-empty", "-m", "one")
    monkeypatch.chdir(folder)
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    return folder


@pytest.fixture(params=["sqlite", "postgresql"])
def history_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    return database_url(request.getfixturevalue("postgres_server"))


def saved_runs(monkeypatch, *records):
    """run's measurement replaced by these records, one per run."""
    queue = list(records)
    monkeypatch.setattr(commands, "measured", lambda config, processes, progress: queue.pop(0))


def run_save(*extra: str) -> int:
    return main(["run", "--save", "--no-progress", "-q", *extra])


def test_save_two_records_then_compare_last_and_list(repo, history_url, monkeypatch, capsys):
    head = git(repo, "rev-parse", "HEAD")
    saved_runs(monkeypatch, record("one_process_baseline", 1), record("baseline", 2),
               record("same_code", 3))
    assert run_save("--history", history_url) == 0
    assert run_save("--history", history_url) == 0
    for current, code in (("same_code", 0), ("graph_slower_20", 1)):
        assert main(["compare", "last", str(RECORDS / f"{current}.json"), "--history",
                     history_url, "-q"]) == code
    # saved and written: `last` is the run before it, never the file itself
    assert run_save("--history", history_url, "--json", "current.json") == 0
    assert main(["compare", "last", "current.json", "--history", history_url, "-q"]) == 0
    capsys.readouterr()
    assert main(["history", "list", "--history", history_url]) == 0
    table = capsys.readouterr().out
    assert table.count(head[:8]) == 3 and "add_mul_sub" in table and "3 stored records" in table
    assert main(["history", "list", "--history", history_url, "--json", "-"]) == 0
    listed = json.loads(capsys.readouterr().out)["records"]
    assert [r["created"][:19] for r in listed] == \
        ["2026-12-01T00:03:00", "2026-12-01T00:02:00", "2026-12-01T00:01:00"]
    assert {r["git_commit"] for r in listed} == {head}
    assert {r["gpu_uuid"] for r in listed} == {"GPU-00000000-test"}


def test_the_default_history_is_in_the_repositorys_root(repo, monkeypatch, capsys):
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")
    saved_runs(monkeypatch, record("baseline", 1))
    assert run_save("--commit", "1234abcd") == 0
    assert (repo / ".graphbench" / "history.db").is_file()
    assert git(repo, "status", "--porcelain") == ""  # its folder ignores itself
    assert main(["history", "list", "--json", "-", "--commit", "1234"]) == 0
    [stored] = json.loads(capsys.readouterr().out)["records"]
    assert stored["git_commit"] == "1234abcd"


def test_compare_takes_a_commit_or_a_branch(repo, history_url):
    first = git(repo, "rev-parse", "HEAD")
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--commit", "main",
                 "--history", history_url, "-q"]) == 0
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    assert main(["history", "import", str(RECORDS / "one_process_baseline.json"),
                 "--history", history_url, "-q"]) == 0  # filed under HEAD, the second commit
    slower, same = str(RECORDS / "graph_slower_20.json"), str(RECORDS / "same_code.json")
    for reference in (first, first[:7], "main~1"):
        assert main(["compare", reference, slower, "--history", history_url, "-q"]) == 1
        assert main(["compare", reference, same, "--history", history_url, "-q"]) == 0


def test_a_reference_that_names_nothing_is_one_line(repo, history_url, capsys):
    same = str(RECORDS / "same_code.json")
    assert main(["compare", "last", same, "--history", history_url]) == 2
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--commit", "1234abcd",
                 "--history", history_url, "-q"]) == 0
    capsys.readouterr()
    for reference in ("no-such-branch", "deadbeef", "main"):  # main: nothing stored at it
        assert main(["compare", reference, same, "--history", history_url]) == 2
        err = short_error(capsys.readouterr().err)
        assert "history list" in err


def test_a_path_that_exists_is_always_the_file(repo, capsys):
    shutil.copy(RECORDS / "same_code.json", repo / "last")
    shutil.copy(RECORDS / "baseline.json", repo / "main")
    assert main(["compare", "main", "last", "-q"]) == 0  # no history anywhere: both files
    assert not (repo / ".graphbench").exists()
    assert main(["compare", "main", "missing.json"]) == 2
    assert "cannot read missing.json" in capsys.readouterr().err


def test_no_history_yet_is_one_line(repo, capsys):
    assert main(["compare", "last", str(RECORDS / "same_code.json")]) == 2
    assert main(["history", "list"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("no history at" in line and "run --save" in line
                                 for line in err)


def test_both_back_ends_give_the_same_verdicts(repo, tmp_path, postgres_server, capsys):
    histories = [str(tmp_path / "same.db"), database_url(postgres_server)]
    files = [str(RECORDS / f"{n}.json") for n in ("one_process_baseline", "baseline")]
    verdicts = []
    for history in histories:
        assert main(["history", "import", *files, "--history", history, "-q"]) == 0
        found = []
        for current in ("same_code", "graph_slower_20", "within_noise_2"):
            code = main(["compare", "last", str(RECORDS / f"{current}.json"), "--history",
                         history, "--json", "-"])
            found.append((code, json.loads(capsys.readouterr().out)))
        verdicts.append(found)
    assert verdicts[0] == verdicts[1]
    assert [code for code, _ in verdicts[0]] == [0, 1, 0]


def test_import_refuses_bad_files_one_line_each(repo, history_url, capsys):
    bad = ["corrupted", "nan_samples", "future_schema", "missing"]
    files = [str(RECORDS / f"{n}.json") for n in ["baseline", *bad]]
    assert main(["history", "import", *files, "--history", history_url]) == 2
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == len(bad)
    assert all(line.startswith("graphbench: error: ") and "not stored" in line
               for line in err.splitlines())
    assert "stored " in out
    assert main(["history", "import", files[0], "--history", history_url]) == 0
    assert "already stored" in capsys.readouterr().out
    assert main(["history", "list", "--history", history_url, "--json", "-"]) == 0
    assert len(json.loads(capsys.readouterr().out)["records"]) == 1


def test_export_writes_the_stored_record_back_out(repo, history_url, capsys):
    original = (RECORDS / "baseline.json").read_bytes()
    assert main(["history", "import", str(RECORDS / "baseline.json"), str(RECORDS /
                 "sweep.json"), "--history", history_url, "-q"]) == 0
    assert main(["history", "list", "--history", history_url, "--json", "-"]) == 0
    ids = {r["kind"]: r["id"] for r in json.loads(capsys.readouterr().out)["records"]}
    assert main(["history", "export", ids["run"][:10], "--history", history_url,
                 "--json", "out.json"]) == 0
    assert (repo / "out.json").read_bytes() == original
    assert main(["report", "out.json", "-q"]) == 0
    assert "record written to out.json" in capsys.readouterr().out
    assert main(["history", "export", "last", "--history", history_url]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "graphbench/sweep"
    assert main(["history", "export", "feedface", "--history", history_url]) == 2


def test_the_listing_filters_and_refuses_bad_values(repo, history_url, capsys):
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--history",
                 history_url, "-q", "--commit", "cafe1234"]) == 0
    capsys.readouterr()
    for options, count in ((["--pipeline", "add_mul_sub"], 1), (["--pipeline", "softmax"], 0),
                           (["--machine", "GPU-00000000-test"], 1), (["--commit", "cafe"], 1),
                           (["--commit", "beef"], 0), (["--since", "2026-12-02"], 0),
                           (["--since", "2026-11-30T12:00"], 1), (["--limit", "1"], 1)):
        assert main(["history", "list", "--history", history_url, "--json", "-",
                     *options]) == 0
        assert len(json.loads(capsys.readouterr().out)["records"]) == count, options
    for options in (["--since", "yesterday"], ["--limit", "0"]):
        assert main(["history", "list", "--history", history_url, *options]) == 2


def test_run_refuses_a_bad_history_before_the_driver(repo, monkeypatch, capsys):
    monkeypatch.setattr(commands, "measured", lambda *a: pytest.fail("measured"))
    assert run_save("--history", "mysql://u@h/db") == 2
    assert "SQLite file or a PostgreSQL" in capsys.readouterr().err
    assert main(["run", "--history", "x.db", "-q"]) == 2
    assert "add --save" in capsys.readouterr().err
    assert run_save("--commit", "not a commit") == 2
    assert "is not a commit" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "psycopg", None)
    assert run_save("--history", "postgresql://ci:secret@127.0.0.1:1/db") == 2
    err = capsys.readouterr().err
    assert 'pip install ".[postgres]"' in err and "secret" not in err
    assert err.count("\n") == 1


def test_compare_help_says_how_references_are_resolved(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("A path that exists is always the file", "last", "git rev-parse",
                  "--history"):
        assert words in text


# --- history import files its records as run --save does ------------------------------

def test_import_in_a_repository_files_under_head_as_run_save_does(repo, history_url, capsys,
                                                                   tmp_path):
    head = git(repo, "rev-parse", "HEAD")
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--history",
                 history_url, "-q"]) == 0
    assert main(["history", "list", "--history", history_url, "--json", "-"]) == 0
    [stored] = json.loads(capsys.readouterr().out)["records"]
    assert stored["git_commit"] == head
    assert main(["history", "html", str(tmp_path / "site"), "--history", history_url,
                 "-q"]) == 0
    [page] = (tmp_path / "site").glob("trend-*.html")
    assert head[:8] in page.read_text() and "no commi" not in page.read_text()


def test_a_record_of_no_commit_is_labelled_so_in_full():
    from graphbench.history.keys import Key
    from graphbench.report.trend_page import commit_label

    key = Key("0" * 64, "run", "t", "t", None, "p", "built-in", "m", "c", "g", "u", "d")
    assert commit_label(key) == "no commit"
    assert commit_label(dataclasses.replace(key, git_commit="ab" * 20)) == "abababab"


# --- a machine named by its GPU's UUID as nvidia-smi prints it --------------------------

NVIDIA_SMI_UUID = "GPU-58b09b3a-1111-2222-3333-444455556666"  # CUDA's is without GPU-


@pytest.mark.parametrize("given, count", [
    (NVIDIA_SMI_UUID, 1), (NVIDIA_SMI_UUID[4:], 1), ("GPU-58b09b3a", 1), ("58b09b3a", 1),
    ("gpu-58B09B3A-1111", 1), ("GPU-00000000-test", 1), ("00000000-test", 1), ("GPU-0000", 1),
    ("NVIDIA H200", 2), ("GPU-ffff", 0)])
def test_a_machine_is_named_by_its_gpus_uuid_as_nvidia_smi_prints_it(repo, history_url,
                                                                     capsys, given, count):
    document = json.loads((RECORDS / "same_code.json").read_text())
    document["device"]["uuid"] = NVIDIA_SMI_UUID[4:]
    (repo / "cuda.json").write_text(json.dumps(document))
    assert main(["history", "import", str(RECORDS / "baseline.json"), "cuda.json",
                 "--history", history_url, "-q"]) == 0
    capsys.readouterr()
    assert main(["history", "list", "--history", history_url, "--json", "-", "--machine",
                 given]) == 0
    assert len(json.loads(capsys.readouterr().out)["records"]) == count


@pytest.mark.parametrize("given", ["", " ", "GPU-", "gpu-"])
def test_a_machine_that_says_nothing_is_refused(repo, capsys, given):
    for action in (["list"], ["html", "site"]):
        assert main(["history", *action, "--machine", given, "--history", "h.db"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--machine" in err and "names no machine" in err
    assert not (repo / "h.db").exists() and not (repo / "site").exists()


# --- a reference whose only record is the other side itself -----------------------------

def test_a_commit_whose_record_is_the_other_side_itself_says_so(repo, history_url,
                                                                monkeypatch, capsys):
    saved_runs(monkeypatch, record("same_code", 1), record("baseline", 2))
    assert run_save("--history", history_url, "--json", "current.json") == 0
    capsys.readouterr()
    for reference in ("main", "HEAD", git(repo, "rev-parse", "HEAD")[:10], "last"):
        assert main(["compare", reference, "current.json", "--history", history_url]) == 2
        err = capsys.readouterr().err
        assert "the other side's own record" in short_error(err), reference
        assert "compared with itself" in err
    assert main(["history", "list", "--history", history_url, "--json", "-"]) == 0
    [own] = json.loads(capsys.readouterr().out)["records"]
    assert main(["compare", own["id"][:12], "current.json", "--history", history_url]) == 2
    assert "the other side's own record" in capsys.readouterr().err
    assert run_save("--history", history_url) == 0  # a second record at main's tip
    assert main(["compare", "main", "current.json", "--history", history_url, "-q"]) == 0
