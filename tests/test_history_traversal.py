"""Stored text never names a path: a history's rows are untrusted (anyone
who can write the database can set a column), so `history html` names its
pages by a hash alone, and checks that every path it writes lies in the
folder it was given.

Covers graphbench/cli/site_folder.py."""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
from pathlib import Path

import pytest

from graphbench.cli import main
from graphbench.errors import OutputError

RECORDS = Path(__file__).resolve().parent / "records"
PAGE = re.compile(r"trend-[0-9a-f]{16}\.html")
HOSTILE = ["/../../outside/PWNED", "../../outside/PWNED", "..", "a/b", "x\x00y", "\x1b[2J",
           "C:\\outside\\PWNED", "~/PWNED", "." * 300, "\udcff"]


@pytest.fixture
def stored(tmp_path, monkeypatch) -> Path:
    """A history of one record, in tmp_path/work/h.db, as the working directory."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    assert main(["history", "import", str(RECORDS / "baseline.json"), "--history", "h.db",
                 "-q"]) == 0
    return work / "h.db"


def everything(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.parametrize("column", ["machine", "pipeline", "pipeline_file", "host_cpu",
                                    "gpu_name"])
@pytest.mark.parametrize("value", HOSTILE[:4] + HOSTILE[6:9])
def test_a_stored_column_never_names_a_file_written(stored, tmp_path, column, value):
    with sqlite3.connect(stored) as db:
        db.execute(f"UPDATE graphbench_records SET {column} = ?", (value,))
    db.close()
    assert main(["history", "html", "site", "--history", "h.db", "-q"]) == 0
    site = tmp_path / "work" / "site"
    assert everything(tmp_path) == {"work", "work/h.db", "work/site", "work/site/index.html",
                                    "work/site/.graphbench-site",
                                    *(f"work/site/{p.name}" for p in site.glob("trend-*"))}
    [page] = [p.name for p in site.glob("trend-*")]
    assert PAGE.fullmatch(page)
    assert f'href="{page}"' in (site / "index.html").read_text()


def series(**changes):
    from graphbench.history.series import SeriesKey

    plain = SeriesKey("p", "built-in", "cpu", "gpu", "driver", '{"elements": 4096}')
    return dataclasses.replace(plain, **changes)


@pytest.mark.parametrize("value", HOSTILE)
def test_a_page_name_is_a_hash_of_the_series_alone(value):
    from graphbench.report.trend_page import page_name

    for field in ("pipeline", "pipeline_file", "host_cpu", "gpu_name", "driver_version",
                  "configuration"):
        name = page_name(series(**{field: value}))
        assert PAGE.fullmatch(name), name
        assert name != page_name(series())  # each series its own page


@pytest.mark.parametrize("name", ["../escaped.html", "/tmp/escaped.html", "sub/x.html",
                                  "page.html", "trend-0123.html", ".."])
def test_a_name_that_is_not_the_sites_is_never_written(tmp_path, name):
    from graphbench.cli.site_folder import write_site

    site = tmp_path / "site"
    with pytest.raises(OutputError, match="not a file of the site"):
        write_site(str(site), {"index.html": "<html>", name: "<html>"}, set(), [])
    assert everything(tmp_path) == set()


def test_a_link_in_the_site_that_leads_out_is_never_written_through(tmp_path):
    from graphbench.cli.site_folder import write_site

    site, outside = tmp_path / "site", tmp_path / "outside.html"
    outside.write_text("the user's\n")
    site.mkdir()
    page = "trend-" + "0" * 16 + ".html"
    os.symlink(outside, site / page)
    with pytest.raises(OutputError, match="not a file of the site"):
        write_site(str(site), {"index.html": "<html>", page: "<html>"}, {page}, [])
    assert outside.read_text() == "the user's\n"


def test_a_stored_row_reaches_the_terminal_as_plain_text(stored, capsys):
    """No control character of a row reaches the terminal, and no [markup]
    of rich's in it is read as markup."""
    with sqlite3.connect(stored) as db:
        db.execute("UPDATE graphbench_records SET machine = ?, gpu_name = ?, git_commit = ?",
                   ("\x1b]8;;http://x\x07m", "[red]GPU[/red]", "\x1b[2J"))
    db.close()
    capsys.readouterr()
    assert main(["history", "list", "--history", "h.db"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "[red]GPU[/red]" in out and "\\x1b" in out
