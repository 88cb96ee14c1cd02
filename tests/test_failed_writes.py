"""Writes that fail are errors: a full disk (/dev/full), an I/O error, a
closed or full standard output. One line on stderr, exit 2, no "written"
message, and the file that was there left byte for byte with no temporary
file beside it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphbench.cli import outputs
from graphbench.errors import OutputError
from graphbench.record import files
from graphbench.record.codec import read_run, write_record

ROOT = Path(__file__).resolve().parent.parent
RECORDS = Path(__file__).parent / "records"
BASE, CURRENT = str(RECORDS / "baseline.json"), str(RECORDS / "same_code.json")
FULL = "No space left on device"
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


def cli(*argv, stdout="pipe", cwd=None):
    """graphbench in a fresh process; stdout "closed" runs it with descriptor 1 closed
    (as the shell's >&- does), "full" with it on /dev/full."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    command = [sys.executable, "-m", "graphbench", *argv]
    if stdout == "closed":
        command = ["sh", "-c", 'exec "$@" >&-', "sh", *command]
    target = {"pipe": subprocess.PIPE, "full": open("/dev/full", "w") if stdout == "full"
              else None, "closed": None}[stdout]
    try:
        return subprocess.run(command, stdout=target, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=cwd, timeout=120)
    finally:
        if stdout == "full":
            target.close()


def one_error_line(done) -> str:
    """The last stderr line, after checking it is the only error and nothing was said written."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "written" not in done.stderr, done.stderr
    assert [line for line in lines if line.startswith("graphbench:")] == [lines[-1]]
    return lines[-1]


@pytest.mark.slow
@needs_dev_full
@pytest.mark.parametrize("argv", [
    ("report", BASE, "--csv", "/dev/full"),
    ("report", BASE, "--markdown", "/dev/full"),
    ("report", BASE, "--json", "/dev/full"),
    ("compare", BASE, CURRENT, "--json", "/dev/full"),
    ("compare", BASE, CURRENT, "--markdown", "/dev/full"),
    ("compare", BASE, CURRENT, "--csv", "/dev/full"),
])
def test_an_output_on_a_full_device_is_one_line_and_exit_2(argv):
    line = one_error_line(cli(*argv))
    assert line == f"graphbench: error: cannot write /dev/full: {FULL}; free space on that " \
        "disk, or write to another"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ("report", BASE, "--csv", "-"),
    ("report", BASE, "--json", "-"),
    ("report", BASE, "--markdown", "-"),
    ("compare", BASE, CURRENT, "--json", "-"),
    ("compare", BASE, CURRENT, "--csv", "-"),
])
def test_dash_with_standard_output_closed_is_refused_and_no_file_named_dash_appears(argv,
                                                                                    tmp_path):
    done = cli(*argv, stdout="closed", cwd=tmp_path)
    option = argv[-2]
    assert one_error_line(done) == f"graphbench: error: {option} -: standard output is closed; " \
        "give a file name, or leave standard output open"
    assert done.stderr.count("\n") == 1  # refused first: no report before it
    assert list(tmp_path.iterdir()) == []


def test_the_report_with_standard_output_closed_is_refused_unless_quiet(tmp_path):
    done = cli("report", BASE, stdout="closed", cwd=tmp_path)
    assert one_error_line(done).startswith("graphbench: error: standard output is closed")
    quiet = cli("report", BASE, "--quiet", "--csv", str(tmp_path / "out.csv"), stdout="closed")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert (tmp_path / "out.csv").read_text().startswith("record,")


@pytest.mark.slow
@needs_dev_full
@pytest.mark.parametrize("argv", [("report", BASE, "--csv", "-"), ("report", BASE, "--json", "-"),
                                  ("compare", BASE, CURRENT, "--markdown", "-")])
def test_an_output_to_a_full_standard_output_is_one_line_and_exit_2(argv):
    line = one_error_line(cli(*argv, stdout="full"))
    assert line.startswith(f"graphbench: error: cannot write standard output: {FULL}")


@pytest.mark.slow
@needs_dev_full
@pytest.mark.parametrize("argv", [("report", BASE), ("compare", BASE, CURRENT)])
def test_a_report_to_a_full_standard_output_is_one_line_and_exit_2(argv):
    done = cli(*argv, stdout="full")
    assert one_error_line(done).startswith(f"graphbench: error: cannot write the report: {FULL}")
    assert done.stderr.count("\n") == 1


@needs_dev_full
def test_saving_a_record_to_a_full_device_is_an_output_error():
    import graphbench

    record = read_run(BASE)
    with pytest.raises(OutputError) as info:
        graphbench.save("/dev/full", record)
    assert info.value.message == f"cannot write /dev/full: {FULL}" and info.value.remedy
    with pytest.raises(OutputError):
        write_record("/dev/full", record)


def failing(code: int):
    def fail(*_args, **_kwargs):
        raise OSError(code, os.strerror(code))
    return fail


@pytest.mark.parametrize("call, code", [("write", errno.ENOSPC), ("write", errno.EIO),
                                        ("fsync", errno.EIO), ("replace", errno.ENOSPC)])
def test_an_atomic_replace_that_fails_midway_leaves_the_old_file_whole(tmp_path, monkeypatch,
                                                                      call, code):
    target = tmp_path / "r.json"
    target.write_bytes(b'{"old": "text"}\n')
    before = os.stat(target)
    monkeypatch.setattr(os, call, failing(code))
    with pytest.raises(OutputError) as info:
        files.write_text_atomic(target, '{"new": "text, longer than the old"}\n')
    assert info.value.message == f"cannot write {target}: {os.strerror(code)}"
    assert target.read_bytes() == b'{"old": "text"}\n'
    assert os.stat(target).st_ino == before.st_ino
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_a_new_file_that_fails_midway_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "write", failing(errno.ENOSPC))
    with pytest.raises(OutputError):
        files.write_text_atomic(tmp_path / "new.json", "text")
    assert list(tmp_path.iterdir()) == []


def test_a_short_os_write_is_continued_until_every_byte_is_out(tmp_path, monkeypatch):
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    target = files.write_text_atomic(tmp_path / "r.json", "ten bytes!")
    assert target.read_text() == "ten bytes!"


class BrokenStream:
    """A standard output whose reader has gone."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def write(self, text):
        raise self.error

    flush = write

    def fileno(self):
        raise ValueError("no descriptor")


@pytest.mark.parametrize("error, said", [
    (BrokenPipeError(errno.EPIPE, "Broken pipe"), "cannot write standard output: Broken pipe"),
    (OSError(errno.ENOSPC, FULL), f"cannot write standard output: {FULL}"),
    (ValueError("I/O operation on closed file."), "cannot write standard output: it is closed"),
])
def test_the_run_write_path_says_nothing_was_written_when_stdout_fails(monkeypatch, capsys,
                                                                       error, said):
    monkeypatch.setattr(sys, "stdout", BrokenStream(error))
    with pytest.raises(OutputError) as info:
        outputs.emit("record", "-", "{}\n")  # what run --json - and --csv - call
    assert info.value.message == said
    assert "written" not in capsys.readouterr().err


@needs_dev_full
def test_the_run_write_path_to_a_full_device_says_nothing_was_written(capsys):
    with pytest.raises(OutputError):
        outputs.emit("record", "/dev/full", "{}\n")
    assert "written" not in capsys.readouterr().out


def test_a_closed_stdout_is_never_written_as_a_file_named_dash(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(OutputError, match="standard output: it is closed"):
        outputs.write("-", "text")
    assert list(tmp_path.iterdir()) == []


def test_a_png_that_cannot_be_written_leaves_the_old_picture(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from graphbench.record.codec import read_record
    from graphbench.report.chart import sweep_panels
    from graphbench.report.chart_files import png_chart

    panels = sweep_panels(read_record(RECORDS / "sweep.json"))
    target = tmp_path / "chart.png"
    target.write_bytes(b"old picture")
    monkeypatch.setattr(os, "replace", failing(errno.EIO))
    with pytest.raises(OutputError):
        png_chart(panels, target)
    assert target.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]


@pytest.mark.slow
def test_report_and_compare_leave_their_records_to_the_process_s_end_with_every_line_out(
        tmp_path):
    """`python -m graphbench` ends a reading command without freeing its
    records (0.57 s for 200,000 rounds): what it printed is all there, the
    same as main() in a process that exits as usual, and its exit code is
    the command's."""
    done = cli("report", BASE, cwd=tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    usual = subprocess.run([sys.executable, "-c", "import sys; from graphbench.cli import main; "
                            f"sys.exit(main(['report', {BASE!r}]))"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == usual.returncode == 0
    assert done.stdout == usual.stdout and "verified:" in done.stdout
    failed = cli("compare", BASE, str(RECORDS / "graph_slower_20.json"), cwd=tmp_path)
    assert failed.returncode == 1 and "FAIL" in failed.stderr
