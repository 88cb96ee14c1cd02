"""A real PostgreSQL server for the history's tests, never a mock.

`postgres_server` (session-scoped, registered by conftest.py): the URL of
GRAPHBENCH_TEST_POSTGRES_URL if set; else a throwaway server started from
the installed binaries (initdb, pg_ctl; as the `postgres` user when run as
root, since postgres refuses root) in a temporary folder, on a free port of
127.0.0.1, stopped and removed at the end; else the PostgreSQL cases skip
with the reason. `database_url(server)` makes a fresh, empty database on it."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from urllib.parse import urlsplit
from pathlib import Path

import pytest

ENVIRONMENT = "GRAPHBENCH_TEST_POSTGRES_URL"
USER = "graphbench"


def binaries() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                     key=lambda p: int(p.split("/")[-3]) if p.split("/")[-3].isdigit() else 0)
    return Path(folders[-1]).parent if folders else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def as_server_user(command: list[str]) -> list[str]:
    """postgres will not run as root: root runs it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def start(folder: Path, bin_dir: Path) -> str:
    """initdb and pg_ctl start in `folder`; the server's URL."""
    data, sockets, port = folder / "data", folder / "sockets", free_port()
    sockets.mkdir()
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for path in (folder, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    run = dict(check=True, capture_output=True, text=True, timeout=120)
    subprocess.run(as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust",
                                   "-U", USER, "-E", "UTF8", "--locale=C"]), **run)
    options = f"-p {port} -k {sockets} -h 127.0.0.1 -c fsync=off"
    subprocess.run(as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options,
                                   "-l", str(folder / "server.log"), "-w", "-t", "60",
                                   "start"]), **run)
    return f"postgresql://{USER}@127.0.0.1:{port}/postgres"


def stop(folder: Path, bin_dir: Path) -> None:
    subprocess.run(as_server_user([str(bin_dir / "pg_ctl"), "-D", str(folder / "data"),
                                   "-m", "immediate", "stop"]),
                   capture_output=True, timeout=60)
    shutil.rmtree(folder, ignore_errors=True)


def unavailable() -> str | None:
    """Why no server can be had here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install '.[test,postgres]')"
    if os.environ.get(ENVIRONMENT):
        return None
    if binaries() is None:
        return f"no PostgreSQL server binaries (initdb) and no {ENVIRONMENT}"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run the server as"
    return None


@pytest.fixture(scope="session")
def postgres_server():
    reason = unavailable()
    if reason:
        pytest.skip(f"PostgreSQL cases: {reason}")
    if os.environ.get(ENVIRONMENT):
        yield os.environ[ENVIRONMENT]
        return
    bin_dir = binaries()
    folder = Path(tempfile.mkdtemp(prefix="graphbench-postgres-"))
    try:
        url = start(folder, bin_dir)
    except (subprocess.SubprocessError, OSError) as exc:
        log = folder / "server.log"
        detail = getattr(exc, "stderr", "") or (log.read_text() if log.exists() else "")
        stop(folder, bin_dir)
        pytest.skip(f"PostgreSQL cases: the server did not start: {exc} {detail}".strip())
    try:
        yield url
    finally:
        stop(folder, bin_dir)


def database_url(server: str) -> str:
    """A new empty database on `server`; where the user may not make one,
    the server's own database with graphbench's tables dropped."""
    import psycopg

    name = f"graphbench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as connection:
        try:
            connection.execute(f'CREATE DATABASE "{name}"')
        except psycopg.errors.InsufficientPrivilege:
            connection.execute("DROP TABLE IF EXISTS graphbench_records, graphbench_schema")
            return server
    return urlsplit(server)._replace(path=f"/{name}").geturl()
