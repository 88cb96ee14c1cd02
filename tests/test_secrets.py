"""No password of a history's location is shown or stored: one in a URL's
user info, in a query parameter (password=, sslpassword=, however its key
is spelled), or in the service file a URL names, is masked in every error
line, in the listing's JSON and in what run --save and the commands print."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests_helpers import short_error

import graphbench.cli.commands as commands
from graphbench.cli import main
from graphbench.errors import HistoryError
from postgres_server import database_url

RECORDS = Path(__file__).resolve().parent / "records"
SECRET = "S3cr3t-p4ss"
UNREACHABLE = [
    f"postgresql://u:{SECRET}@127.0.0.1:1/x",
    f"postgresql://u@127.0.0.1:1/x?password={SECRET}",
    f"postgres://u@127.0.0.1:1/x?sslmode=disable&password={SECRET}&application_name=gb",
    f"postgresql://u@127.0.0.1:1/x?PASSWORD={SECRET}",
    f"postgresql://u@127.0.0.1:1/x?pass%77ord={SECRET}",    # libpq decodes the key
    f"postgresql://u@127.0.0.1:1/x?sslpassword={SECRET}",
    f"postgresql://u:{SECRET}@127.0.0.1:1/x?password={SECRET}",
    f"postgresql://u:{SECRET}%40x@127.0.0.1:1/x",          # percent-encoded in the password
]
OTHER_SCHEMES = [f"mysql://u:{SECRET}@h/db", f"mysql://u@h/db?password={SECRET}"]


def one_error(capsys, code: int) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    short_error(err)  # one or two lines a person reads
    return err


@pytest.fixture(autouse=True)
def no_service(monkeypatch, tmp_path):
    """No service file of the machine's own, nor a default history, in play."""
    monkeypatch.setenv("PGSERVICEFILE", str(tmp_path / "none.conf"))
    monkeypatch.setenv("PGSYSCONFDIR", str(tmp_path))
    monkeypatch.delenv("PGSERVICE", raising=False)
    monkeypatch.delenv("GRAPHBENCH_HISTORY", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("url", UNREACHABLE + OTHER_SCHEMES)
@pytest.mark.parametrize("command", [["history", "list"], ["compare", "last",
                                                           str(RECORDS / "same_code.json")]])
def test_a_password_in_the_url_is_never_in_the_error_line(capsys, url, command):
    pytest.importorskip("psycopg")
    err = one_error(capsys, main([*command, "--history", url]))
    assert SECRET not in err and "S3cr3t" not in err
    assert "***" in err


@pytest.mark.parametrize("url", UNREACHABLE)
def test_nor_where_psycopg_is_missing(monkeypatch, capsys, url):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    err = one_error(capsys, main(["history", "list", "--history", url]))
    assert "psycopg" in err and SECRET not in err


def test_nor_where_run_save_refuses_before_the_driver(monkeypatch, capsys):
    pytest.importorskip("psycopg")
    monkeypatch.setattr(commands, "measured", lambda *a: pytest.fail("measured"))
    err = one_error(capsys, main(["run", "--save", "-q", "--history", UNREACHABLE[1]]))
    assert SECRET not in err


def test_a_password_from_the_service_file_is_masked(tmp_path, monkeypatch):
    """libpq reads the service file itself; whatever of it a driver's
    message quotes is masked (the driver is made to quote the password)."""
    psycopg = pytest.importorskip("psycopg")
    from graphbench.history.store import History

    service = tmp_path / "services.conf"
    service.write_text(f"[other]\npassword=not-this\n[gb]\nhost=127.0.0.1\nport=1\n"
                       f"password = {SECRET}\nsslpassword={SECRET}-key\n")
    monkeypatch.setenv("PGSERVICEFILE", str(service))

    def quoting(url, **options):
        raise psycopg.OperationalError(f'connection failed: password "{SECRET}" and '
                                       f'key "{SECRET}-key" refused')

    monkeypatch.setattr(psycopg, "connect", quoting)
    for url, env in (("postgresql:///x?service=gb", None), ("postgresql:///x", "gb")):
        if env:
            monkeypatch.setenv("PGSERVICE", env)
        with pytest.raises(HistoryError) as found:
            History.open(url, create=False)
        assert SECRET not in found.value.one_line() and "refused" in found.value.one_line()


def test_the_masks(tmp_path, monkeypatch):
    from graphbench.history.secrets import masked, scrub, secrets_of

    assert masked(f"postgresql://u:{SECRET}@h:5/db?sslmode=require&password={SECRET}") == \
        "postgresql://u:***@h:5/db?sslmode=require&password=***"
    assert masked("postgresql://u@h/db?application_name=x") == \
        "postgresql://u@h/db?application_name=x"
    assert masked(f"postgresql://u@h/db?pass%77ord={SECRET}") == \
        "postgresql://u@h/db?pass%77ord=***"
    assert set(secrets_of(f"postgresql://u:a%40b@h/db?password={SECRET}")) == \
        {"a%40b", "a@b", SECRET}
    assert scrub(f"x {SECRET} y a@b", secrets_of("postgresql://u:a%40b@h/db")) == \
        f"x {SECRET} y ***"


@pytest.fixture
def server_url(postgres_server):
    """A fresh database on the test server, with a password in its URL
    (the server trusts its user, so the password is never checked)."""
    url = database_url(postgres_server)
    return url.replace("postgresql://graphbench@", f"postgresql://graphbench:{SECRET}@", 1) \
        + f"?password={SECRET}"


def test_what_is_printed_and_listed_holds_no_password(server_url, capsys, monkeypatch):
    from graphbench.record.codec import read_run

    record = read_run(RECORDS / "baseline.json")
    monkeypatch.setattr(commands, "measured", lambda config, processes, progress: record)
    assert main(["run", "--save", "--no-progress", "--history", server_url]) == 0
    out, err = capsys.readouterr()
    assert "record stored as" in out and SECRET not in out + err
    assert main(["history", "import", str(RECORDS / "same_code.json"), "--history",
                 server_url]) == 0
    out, err = capsys.readouterr()
    assert "stored " in out and SECRET not in out + err
    assert main(["history", "list", "--history", server_url, "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    listing = json.loads(out)
    assert listing["history"].count("***") == 2 and len(listing["records"]) == 2
    assert main(["history", "list", "--history", server_url]) == 0
    out, err = capsys.readouterr()
    assert "2 stored records" in out and SECRET not in out + err
    assert main(["history", "export", "feedface", "--history", server_url]) == 2
    err = capsys.readouterr().err
    assert "no record" in err.lower() or "names no stored record" in err
    assert SECRET not in err
