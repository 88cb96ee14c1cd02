"""Nothing a user owns is lost: a failed start leaves files byte for byte,
an input is never an output, two outputs never share a file, and a
replaced file keeps its mode, owner and hard links (docs/outputs.md, "What
happens to files"; the README lists them).
"""

import os
import stat
from pathlib import Path

import pytest
from tests_helpers import short_error

from graphbench.cli import main
from graphbench.errors import DeviceError
from graphbench.record.codec import read_record, read_run

RECORDS = Path(__file__).parent / "records"
RECORD, SWEEP, SLOWER = (str(RECORDS / name) for name in
                         ("baseline.json", "sweep.json", "graph_slower_20.json"))
PRECIOUS = b"PRECIOUS, not a record\n"
GRID = ["--elements", "4096,65536", "--depth", "1", "--no-progress"]


def precious(path: Path, mode: int = 0o640) -> Path:
    path.write_bytes(PRECIOUS)
    path.chmod(mode)
    return path


@pytest.fixture
def one_device(monkeypatch):
    monkeypatch.setattr("graphbench.cli.commands.resolve_devices", lambda spec: [0])
    monkeypatch.setattr("graphbench.cli.commands.check_configs", lambda configs: None)


def fake_point(monkeypatch, fail_at: int | None = None, error=KeyboardInterrupt):
    """Sweep points from the synthetic model; the `fail_at`-th one raises."""
    import graphbench.runner as benchmark
    from conftest import synthetic_point

    calls = []

    def point(config, on_round=None, kernels=None, spec=None):
        calls.append(config)
        if len(calls) == fail_at:
            raise error("stopped here") if error is not KeyboardInterrupt else error
        return synthetic_point(config)

    monkeypatch.setattr(benchmark, "run_benchmark", point)


@pytest.mark.parametrize("argv", [
    ["sweep", "--json", "{f}"], ["sweep", "--markdown", "{f}"], ["sweep", "--csv", "{f}"],
    ["sweep", "--device", "0,1", "--json", "{f}"], ["run", "--json", "{f}"],
    ["run", "--csv", "{f}"], ["run", "--device", "3", "--json", "{f}"],
    ["run", "--device", "all", "--json", "{f}"],
])
def test_a_start_without_a_driver_leaves_every_file_byte_for_byte(tmp_path, capsys, argv):
    target = precious(tmp_path / "out.json")
    assert main([a.format(f=target) for a in argv] + ["--no-progress"]) == 2
    assert "no NVIDIA driver" in capsys.readouterr().err
    assert target.read_bytes() == PRECIOUS and not list(tmp_path.glob("*dev*"))
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_missing_kernel_leaves_the_file_too(tmp_path, capsys):
    source = tmp_path / "k.cu"
    source.write_text('extern "C" __global__ void other(float *x) {}\n')
    target = precious(tmp_path / "out.json")
    assert main(["sweep", "--kernel-source", str(source), "--json", str(target)]) == 2
    assert target.read_bytes() == PRECIOUS


def test_a_sweep_whose_first_point_fails_leaves_the_file(tmp_path, monkeypatch, one_device):
    fake_point(monkeypatch, fail_at=1, error=lambda text: DeviceError(text))
    target = precious(tmp_path / "sweep.json")
    assert main(["sweep", *GRID, "--json", str(target)]) == 2
    assert target.read_bytes() == PRECIOUS


def test_an_existing_file_is_replaced_once_a_point_exists_and_keeps_it(tmp_path, monkeypatch,
                                                                       one_device, capsys):
    fake_point(monkeypatch, fail_at=2)
    target = precious(tmp_path / "sweep.json", 0o600)
    assert main(["sweep", *GRID, "--json", str(target)]) == 130
    assert len(read_record(target).points) == 1 and "keeps them" in capsys.readouterr().err
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.json"]  # no temporary left


@pytest.mark.parametrize("argv, message", [
    (["report", "{R}", "--markdown", "{R}"], "is the input FILE"),
    (["report", SWEEP, "{R}", "--csv", "{link}"], "is the input FILE"),
    (["report", "{R}", "--json", "{hard}"], "is the input FILE"),
    (["compare", "{R}", SLOWER, "--json", "{R}"], "is the input BASELINE"),
    (["compare", SLOWER, "{R}", "--markdown", "{link}"], "is the input CURRENT"),
    (["run", "--baseline", "{R}", "--json", "{R}"], "is the input --baseline"),
    (["run", "--device", "all", "--baseline", "{R}", "--json", "{link}"], "input --baseline"),
    (["run", "--device", "0,1", "--baseline", "{dev0}", "--json", "{R}"], "input --baseline"),
    (["run", "--ab", "{cu}", "--json", "{cu}"], "is the input --ab"),
    (["run", "--kernel-source", "{cu}", "--csv", "{cu}"], "is the input --kernel-source"),
    (["sweep", "--pipeline", "{py}", "--markdown", "{py}"], "is the input --pipeline"),
])
def test_an_input_is_never_an_output(tmp_path, capsys, argv, message):
    record = tmp_path / "r.json"
    record.write_bytes(Path(RECORD).read_bytes())
    (tmp_path / "r.dev0.json").write_bytes(record.read_bytes())
    (tmp_path / "link").symlink_to(record)
    os.link(record, tmp_path / "hard")
    for name in ("k.cu", "p.py"):
        (tmp_path / name).write_text("// mine\n")
    names = {"R": record, "link": tmp_path / "link", "hard": tmp_path / "hard",
             "dev0": tmp_path / "r.dev0.json", "cu": tmp_path / "k.cu", "py": tmp_path / "p.py"}
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if not p.is_symlink()}
    assert main([a.format(**names) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in short_error(err) and "driver" not in err
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("argv", [
    ["report", RECORD, "--json", "{f}", "--markdown", "{f}"],
    ["report", SWEEP, "--plot", "{f}.svg", "--csv", "{f}.svg"],
    ["report", RECORD, "--csv", "{f}", "--markdown", "{link}"],
    ["compare", RECORD, SLOWER, "--json", "{f}", "--csv", "{f}"],
    ["sweep", "--json", "{f}", "--markdown", "{d}/../{f}"],
    ["sweep", "--device", "0,1", "--json", "f.json", "--csv", "g.json"],
    ["run", "--device", "all", "--json", "{f}", "--csv", "{f}"],
])
def test_two_outputs_never_share_a_file(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "f")
    (tmp_path / "g.dev1.json").symlink_to(tmp_path / "f.dev1.json")  # device 1's, both
    assert main([a.format(f="f", d=tmp_path.name, link="link") for a in argv]) == 2
    err = capsys.readouterr().err
    assert "both write to" in short_error(err) and "driver" not in err
    assert not [p for p in tmp_path.iterdir() if not p.is_symlink()]


def test_a_replaced_file_keeps_its_mode(tmp_path):
    for mode in (0o600, 0o640, 0o604):
        target = precious(tmp_path / f"m{mode:o}.md", mode)
        assert main(["report", RECORD, "--markdown", str(target), "-q"]) == 0
        assert stat.S_IMODE(target.stat().st_mode) == mode and b"| device |" in target.read_bytes()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can hand a file to another owner")
def test_a_replaced_file_keeps_its_owner(tmp_path):
    target = precious(tmp_path / "theirs.md")
    os.chown(target, 12345, 23456)
    assert main(["report", RECORD, "--markdown", str(target), "-q"]) == 0
    assert (target.stat().st_uid, target.stat().st_gid) == (12345, 23456)


def test_a_hard_linked_file_is_rewritten_in_place_and_stays_linked(tmp_path):
    target = precious(tmp_path / "a.md", 0o600)
    os.link(target, tmp_path / "b.md")
    inode = target.stat().st_ino
    assert main(["report", RECORD, "--markdown", str(tmp_path / "b.md"), "-q"]) == 0
    assert target.stat().st_ino == inode and target.stat().st_nlink == 2
    assert (tmp_path / "a.md").read_text() == (tmp_path / "b.md").read_text() != PRECIOUS.decode()


def test_a_single_link_file_is_replaced_atomically(tmp_path):
    target = precious(tmp_path / "a.json")
    inode = target.stat().st_ino
    assert main(["report", RECORD, "--json", str(target), "-q"]) == 0
    assert target.stat().st_ino != inode and read_run(target).rounds == read_run(RECORD).rounds


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_a_writable_file_in_a_closed_folder_is_written_in_place(tmp_path):
    folder = tmp_path / "closed"
    folder.mkdir()
    target = precious(folder / "a.md", 0o644)
    folder.chmod(0o555)
    try:
        assert main(["report", RECORD, "--markdown", str(target), "-q"]) == 0
        assert b"| device |" in target.read_bytes()
    finally:
        folder.chmod(0o755)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can hand a file to another owner")
def test_a_file_whose_owner_cannot_be_kept_is_written_in_place(tmp_path, monkeypatch):
    """As a user who may write someone else's file but not give a new one
    away: the file is rewritten through its inode, so its owner stays."""
    from graphbench.record.files import write_text_atomic

    target = precious(tmp_path / "theirs.md", 0o666)
    os.chown(target, 12345, 23456)
    inode = target.stat().st_ino

    def refuse(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refuse)
    write_text_atomic(target, "new\n")
    assert target.read_text() == "new\n" and target.stat().st_ino == inode
    assert (target.stat().st_uid, target.stat().st_gid) == (12345, 23456)
    assert [p.name for p in tmp_path.iterdir()] == ["theirs.md"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_another_users_file_that_this_user_cannot_write_is_refused_first(tmp_path, capsys):
    theirs = Path("/etc/hostname")  # someone else's, writable bits set for its owner only
    if not theirs.exists() or os.access(theirs, os.W_OK):
        pytest.skip("needs a file owned by another user")
    assert main(["report", RECORD, "--markdown", str(theirs)]) == 2
    assert "not writable" in capsys.readouterr().err
