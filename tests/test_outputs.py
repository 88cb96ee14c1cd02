"""Output paths on real files: links and special files are written through,
never replaced; impossible paths fail before any work.

Covers graphbench/cli/outputs.py.
Covers graphbench/report/outputs.py.
Covers graphbench/record/output_paths.py."""

import os
import stat
import threading

import pytest

from graphbench.cli import main
from graphbench.errors import UsageError
from graphbench.record.files import write_text_atomic
from graphbench.record.output_paths import check_writable

RECORD = os.path.join(os.path.dirname(__file__), "records", "baseline.json")


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path):
    target, link = tmp_path / "real.md", tmp_path / "link.md"
    target.write_text("old")
    link.symlink_to(target)
    assert main(["report", RECORD, "--markdown", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "| device |" in target.read_text()


def test_a_fifo_is_written_as_a_stream(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    write_text_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("make, message", [
    (lambda p: (p / "out").mkdir() or p / "out", "is a directory"),
    (lambda p: (p / "file").write_text("x") and p / "file" / "out.json", "not a directory"),
])
def test_impossible_paths_fail_before_any_work(tmp_path, capsys, make, message):
    path = make(tmp_path)
    for argv in (["run", "--json", str(path)], ["sweep", "--json", str(path)],
                 ["report", RECORD, "--markdown", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1  # before the driver is even asked


def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    path = tmp_path / "keep.json"
    path.write_text("mine")
    path.chmod(0o444)
    with pytest.raises(UsageError, match="read-only"):
        check_writable(path, "--json")
    with pytest.raises(UsageError, match="read-only"):
        write_text_atomic(path, "theirs")
    assert path.read_text() == "mine"


def test_a_plot_format_or_folder_that_cannot_work_fails_first(tmp_path, capsys):
    assert main(["sweep", "--plot", str(tmp_path / "chart.jpg")]) == 2
    assert ".svg or .png" in capsys.readouterr().err


def test_proc_is_not_writable_even_for_root(capsys):
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc here")
    assert main(["run", "--json", "/proc/nope.json"]) == 2
    assert "is in /proc, the kernel's own files" in capsys.readouterr().err


def test_a_written_file_is_named_without_raw_control_characters(tmp_path, capsys):
    from tests_helpers import RECORDS

    from graphbench.cli import main

    target = tmp_path / "a\x1b[2Jb.json"
    assert main(["report", str(RECORDS / "same_code.json"), "--json", str(target)]) == 0
    out = capsys.readouterr()
    assert target.is_file() and "\x1b" not in out.out + out.err and "\\x1b[2Jb.json" in out.out + out.err


@pytest.mark.parametrize("folder", [".", ".."])
def test_a_folder_as_the_output_of_several_devices_is_one_line(folder, capsys):
    from graphbench.cli import main

    assert main(["run", "--device", "0,1", "--json", folder]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
