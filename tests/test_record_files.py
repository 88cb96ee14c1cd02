"""graphbench.record.files: what an output path must be before a run starts, and what a write
leaves on disk (failures injected where the OS would raise them)."""

from __future__ import annotations

import errno
import os
import stat
import tempfile

import pytest

from graphbench.errors import OutputError, RecordError, UsageError
from graphbench.record import files, output_paths


def test_a_directory_is_no_output_file(tmp_path):
    with pytest.raises(UsageError) as info:
        output_paths.check_writable(tmp_path, "--out")
    assert "is a directory" in info.value.message and "--out" in info.value.message


def test_a_read_only_file_is_refused_even_for_root(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("{}")
    target.chmod(0o444)
    with pytest.raises(UsageError, match="read-only"):
        output_paths.check_writable(target, "--out")
    with pytest.raises(UsageError, match="read-only"):
        files.write_text_atomic(target, "new")
    assert target.read_text() == "{}"


def test_a_writable_file_a_stream_and_a_new_file_pass(tmp_path):
    existing = tmp_path / "w.json"
    existing.write_text("{}")
    output_paths.check_writable(existing, "--out")
    output_paths.check_writable("/dev/null", "--out")
    output_paths.check_writable(tmp_path / "new" / "deeper" / "x.json", "--out")  # folders made later
    assert not list(tmp_path.glob("**/.graphbench-check.*"))  # the probe is removed


def test_a_file_in_the_way_of_the_folder_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UsageError) as info:
        output_paths.check_folder(blocker / "sub" / "x.json", "--out")
    assert "--out" in info.value.message and "not a directory" in info.value.message


def test_a_folder_closed_to_writing_is_refused(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o555)
    try:
        with pytest.raises(UsageError, match="cannot write in"):
            output_paths.check_folder(closed / "x.json", "--out")
    finally:
        closed.chmod(0o755)


def test_a_hard_linked_record_is_rewritten_for_every_name(tmp_path):
    first = tmp_path / "a.json"
    first.write_text("old")
    second = tmp_path / "b.json"
    os.link(first, second)
    files.write_text_atomic(first, "new text")
    assert second.read_text() == "new text" and first.read_text() == "new text"
    assert os.stat(first).st_ino == os.stat(second).st_ino


def test_a_replaced_record_keeps_no_temporary_file(tmp_path):
    target = tmp_path / "r.json"
    files.write_text_atomic(target, "one")
    files.write_text_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def _written(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("path", ["out/", "out/."])
def test_a_path_ending_in_a_folder_is_refused_with_a_file_name_in_it(path):
    with pytest.raises(UsageError) as info:
        files.check_path_text(path, "--json")
    assert info.value.message == f"--json {path}: ends in a folder, not a file name"
    assert "out/out" in info.value.remedy


def test_an_empty_path_is_refused():
    with pytest.raises(UsageError) as info:
        files.check_path_text("", "--json")
    assert info.value.message.startswith("--json ''")
    files.check_path_text("out.json", "--json")
    files.check_path_text("./out", "--json")


def test_a_new_record_is_shared_as_the_umask_allows(tmp_path):
    old = os.umask(0o027)
    try:
        target = files.write_text_atomic(tmp_path / "deep" / "new.json", "text")
    finally:
        os.umask(old)
    assert target == tmp_path / "deep" / "new.json"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_text() == "text"


def test_a_replaced_record_keeps_its_mode_and_gets_a_new_inode(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old old old old")
    target.chmod(0o604)
    before = os.stat(target).st_ino
    files.write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o604
    assert os.stat(target).st_ino != before  # replaced, not rewritten


def test_a_hard_linked_record_is_rewritten_shorter_in_place(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("a long old text")
    os.link(first, second)
    before = os.stat(first).st_ino
    assert files.write_text_atomic(second, "short") == second
    assert first.read_text() == "short" and os.stat(first).st_ino == before


def test_a_symbolic_link_is_written_through(tmp_path):
    target, link = tmp_path / "t.json", tmp_path / "l.json"
    target.write_text("old")
    link.symlink_to(target)
    files.write_text_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json", "t.json"]


def test_a_fifo_is_written_as_a_stream(tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    assert files.write_text_atomic(fifo, "streamed") == fifo
    reader.join(5)
    assert got == ["streamed"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_writing_a_directory_or_an_empty_path_is_refused(tmp_path):
    with pytest.raises(UsageError, match="is a directory"):
        files.write_text_atomic(tmp_path, "x")
    with pytest.raises(UsageError, match="an empty path"):
        files.write_text_atomic("", "x")


def test_a_record_that_is_no_text_or_not_there_is_named(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError) as info:
        files.read_text(binary)
    assert info.value.message == f"{binary} is not a text file (not UTF-8)" and info.value.remedy
    with pytest.raises(RecordError) as info:
        files.read_text(tmp_path / "none.json")
    assert info.value.message.startswith(f"cannot read {tmp_path / 'none.json'}: ")
    assert "No such file" in info.value.message
    assert files.read_text(_written(tmp_path / "ok.json", "é")) == "é"


def test_what_is_at_a_path_is_its_stat_or_none(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    assert files.existing(tmp_path / "none") is None
    assert files.existing(blocker).st_size == 1
    with pytest.raises(UsageError) as info:
        files.existing(blocker / "x.json", "--json")
    assert info.value.message == f"--json {blocker / 'x.json'}: a folder on that path is not a directory"
    with pytest.raises(UsageError) as info:
        files.existing(blocker / "x.json")
    assert info.value.message.startswith(str(blocker / "x.json"))


def test_a_bad_output_path_is_named_by_its_option(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    for path, said in [("out/", "--csv out/: ends in a folder"),
                       (blocker / "x.json", f"--csv {blocker / 'x.json'}: a folder on that path"),
                       (tmp_path, f"--csv {tmp_path} is a directory")]:
        with pytest.raises(UsageError) as info:
            output_paths.check_writable(path, "--csv")
        assert info.value.message.startswith(said)


def test_a_record_in_new_folders_is_made_with_them(tmp_path):
    target = tmp_path / "a" / "b" / "c" / "r.json"
    output_paths.check_writable(target, "--json")
    assert files.write_text_atomic(target, "x") == target and target.read_text() == "x"
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]


def denied(*_args, **_kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


@pytest.fixture
def mkstemp_calls(monkeypatch):
    """The keyword arguments of every tempfile.mkstemp call, which still runs."""
    made, real = [], tempfile.mkstemp

    def spy(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    return made


def test_a_read_error_is_named_with_its_reason(tmp_path):
    with pytest.raises(RecordError) as info:
        files.read_text(tmp_path)  # a directory: IsADirectoryError
    assert info.value.message == f"cannot read {tmp_path}: Is a directory"
    assert info.value.remedy == ""


def test_a_read_error_without_strerror_is_named_by_the_exception(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("x")
    monkeypatch.setattr(type(target), "open", lambda self, *a: (_ for _ in ()).throw(
        OSError("odd failure")))
    with pytest.raises(RecordError) as info:
        files.read_text(target)
    assert info.value.message == f"cannot read {target}: odd failure"


def test_not_utf8_has_a_remedy(tmp_path):
    target = tmp_path / "b.json"
    target.write_bytes(b"\xff")
    with pytest.raises(RecordError) as info:
        files.read_text(target)
    assert info.value.remedy == "give a record written by graphbench --json"


def test_streams_are_fifos_character_devices_and_sockets():
    assert files.is_stream(stat.S_IFIFO | 0o600)
    assert files.is_stream(stat.S_IFCHR | 0o600)
    assert files.is_stream(stat.S_IFSOCK | 0o600)
    assert not files.is_stream(stat.S_IFREG | 0o600)
    assert not files.is_stream(stat.S_IFDIR | 0o700)
    assert not files.is_stream(stat.S_IFBLK | 0o600)
    assert files.is_stream(os.stat("/dev/null").st_mode)


def test_an_os_error_on_stat_is_a_usage_error_naming_the_option(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "stat", denied)
    with pytest.raises(UsageError) as info:
        files.existing(tmp_path / "x.json", "--json")
    assert info.value.message == f"--json {tmp_path / 'x.json'}: Permission denied"
    monkeypatch.setattr(os, "stat", lambda *a: (_ for _ in ()).throw(OSError("weird")))
    with pytest.raises(UsageError) as info:
        files.existing("x.json")
    assert info.value.message == "x.json: weird"


def test_empty_and_folder_paths_have_remedies():
    with pytest.raises(UsageError) as info:
        files.check_path_text("", "--csv")
    assert info.value.message == "--csv '': an empty path"
    assert info.value.remedy == "give a file name"
    with pytest.raises(UsageError) as info:
        files.check_path_text("runs/./", "--csv")
    assert info.value.remedy == "give a file name in it, such as runs/out"


def test_an_existing_file_not_writable_by_this_user_is_refused(tmp_path, monkeypatch):
    target = tmp_path / "theirs.json"
    target.write_text("x")
    output_paths.check_writable(target, "--json")  # writable: fine
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(UsageError) as info:
        output_paths.check_writable(target, "--json")
    assert info.value.message == f"--json {target} is not writable by this user"
    assert info.value.remedy == "give another file"
    assert target.read_text() == "x"


def test_a_stream_is_writable_whatever_access_says(monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    output_paths.check_writable("/dev/null", "--json")


def test_an_existing_file_is_not_probed_in_its_folder(tmp_path, monkeypatch):
    target = tmp_path / "mine.json"
    target.write_text("x")
    monkeypatch.setattr(output_paths, "check_folder", lambda *a: pytest.fail("probed the folder"))
    output_paths.check_writable(target, "--json")


def test_read_only_and_directory_refusals(tmp_path):
    target = tmp_path / "ro.json"
    target.write_text("x")
    target.chmod(0o444)
    for call in (lambda: output_paths.check_writable(target, "--json"),
                 lambda: files.write_text_atomic(target, "new")):
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.remedy == "give another file"
        assert info.value.message.endswith(f"{target} is read-only")
    assert target.read_text() == "x"
    for bits in (0o200, 0o020, 0o002):  # any write bit makes it writable
        target.chmod(bits)
        output_paths.check_writable(target, "--json")
    with pytest.raises(UsageError) as info:
        output_paths.check_writable(tmp_path, "--json")
    assert info.value.message == f"--json {tmp_path} is a directory"
    assert info.value.remedy == "give a file name"


def test_a_folder_on_the_path_that_is_a_file(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    with pytest.raises(UsageError) as info:
        output_paths.check_folder(blocker / "deeper" / "x.json", "--json")
    assert info.value.message == f"--json {blocker / 'deeper' / 'x.json'}: {blocker} is not a " \
        "directory"


def test_the_folder_probe_finds_the_nearest_existing_folder_and_cleans_up(tmp_path, mkstemp_calls):
    made = mkstemp_calls
    output_paths.check_folder(tmp_path / "a" / "b" / "x.json", "--json")
    assert made == [{"prefix": ".graphbench-check.", "dir": tmp_path}]
    assert list(tmp_path.iterdir()) == []  # the probe is gone, no folder made


def test_a_folder_closed_to_us_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(UsageError) as info:
        output_paths.check_writable(tmp_path / "x.json", "--json")
    assert info.value.message == (f"--json {tmp_path / 'x.json'}: cannot write in {tmp_path} "
                                  "(Permission denied)")
    monkeypatch.setattr(tempfile, "mkstemp", lambda **k: (_ for _ in ()).throw(OSError("odd")))
    with pytest.raises(UsageError) as info:
        output_paths.check_folder(tmp_path / "x.json", "--json")
    assert info.value.message.endswith(f"cannot write in {tmp_path} (odd)")


def test_a_new_file_in_a_folder_closed_to_us_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(OutputError) as info:
        files.write_text_atomic(tmp_path / "new.json", "x")
    assert info.value.message == f"cannot write {tmp_path / 'new.json'}: Permission denied"
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_in_a_folder_closed_to_us_is_rewritten_in_place(tmp_path,
                                                                           monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("a long old text")
    inode = os.stat(target).st_ino
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    assert files.write_text_atomic(target, "new") == target
    assert target.read_text() == "new" and os.stat(target).st_ino == inode


def test_a_file_of_another_owner_is_handed_on_or_rewritten_in_place(tmp_path, monkeypatch):
    target = tmp_path / "theirs.json"
    target.write_text("a long old text")
    target.chmod(0o640)
    real = os.stat(target)
    other = os.stat_result((real.st_mode, real.st_ino, real.st_dev, real.st_nlink, 4242, 4343,
                            real.st_size, 0, 0, 0))
    handed = []
    monkeypatch.setattr(files, "existing", lambda path, option="": other)
    monkeypatch.setattr(os, "chown", lambda path, uid, gid: handed.append(
        (os.path.dirname(path), os.path.basename(path).startswith(".theirs.json."), uid, gid)))
    files.write_text_atomic(target, "new")
    # the new file, beside the old, gets the old one's owner
    assert handed == [(str(tmp_path), True, 4242, 4343)]
    assert target.read_text() == "new" and os.stat(target).st_ino != real.st_ino
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    monkeypatch.setattr(os, "chown", denied)  # and when it cannot be handed on
    inode = os.stat(target).st_ino
    files.write_text_atomic(target, "newer, longer")
    assert target.read_text() == "newer, longer" and os.stat(target).st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.json"]  # no temporary left


def test_a_file_of_our_own_is_not_chowned(tmp_path, monkeypatch):
    target = tmp_path / "mine.json"
    target.write_text("old")
    monkeypatch.setattr(os, "chown", lambda *a: pytest.fail("chown of our own file"))
    files.write_text_atomic(target, "new")
    assert target.read_text() == "new"


def test_the_temporary_file_sits_beside_the_target(tmp_path, mkstemp_calls):
    made = mkstemp_calls
    target = tmp_path / "r.json"
    files.write_text_atomic(target, "x")
    assert made == [{"prefix": ".r.json.", "suffix": ".tmp", "dir": tmp_path}]


def test_a_failed_write_leaves_no_temporary_and_the_old_text(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        files.write_text_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_the_new_text_is_synced_before_the_rename(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_size), real(fd)))
    target = tmp_path / "r.json"
    files.write_text_atomic(target, "twelve bytes")
    assert synced == [12]


def test_writing_in_place_that_is_refused_is_a_usage_error(tmp_path, monkeypatch):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("old")
    os.link(first, second)
    import builtins

    real_open = builtins.open

    def closed(path, mode="r", *args, **kwargs):
        if "+" in mode:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", closed)
    with pytest.raises(UsageError) as info:
        files.write_text_atomic(second, "new")
    assert info.value.message == f"cannot write {second}: Permission denied"
    assert info.value.remedy == "give another file"


def test_in_place_writes_are_synced_and_truncated(tmp_path, monkeypatch):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("a long old text")
    os.link(first, second)
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_size), real(fd)))
    files.write_text_atomic(first, "ab")
    assert synced == [2] and second.read_text() == "ab"


def test_umask_is_read_without_changing_it():
    old = os.umask(0o037)
    try:
        assert files._umask() == 0o037
        assert files._umask() == 0o037
    finally:
        os.umask(old)


def test_a_path_ending_in_x_keeps_its_name_in_the_remedy():
    with pytest.raises(UsageError) as info:
        files.check_path_text("outX/", "--csv")
    assert info.value.remedy == "give a file name in it, such as outX/out"


def test_only_write_bits_make_a_file_writable(tmp_path):
    target = tmp_path / "x.json"
    target.write_text("x")
    target.chmod(0o555)  # read and execute for all: still read-only
    with pytest.raises(UsageError, match="is read-only"):
        output_paths.check_writable(target, "--json")


def test_writes_name_their_output(tmp_path):
    with pytest.raises(UsageError) as info:
        files.write_text_atomic("", "x")
    assert info.value.message == "output '': an empty path"
    with pytest.raises(UsageError) as info:
        files.write_text_atomic(tmp_path, "x")
    assert info.value.message == f"output {tmp_path} is a directory"
    target = tmp_path / "ro.json"
    target.write_text("x")
    target.chmod(0o444)
    with pytest.raises(UsageError) as info:
        files.write_text_atomic(target, "x")
    assert info.value.message == f"output {target} is read-only"


def test_a_character_device_is_written_as_a_stream():
    assert files.write_text_atomic("/dev/null", "gone") == files.Path("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_new_file_with_no_umask_is_readable_and_writable_by_all(tmp_path):
    old = os.umask(0)
    try:
        target = files.write_text_atomic(tmp_path / "new.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666


def test_an_in_place_write_of_nothing_empties_the_file(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("old text")
    os.link(first, second)
    files.write_text_atomic(first, "")
    assert second.read_bytes() == b""


def test_a_path_that_cannot_be_read_is_named_in_one_line(tmp_path):
    with pytest.raises(RecordError) as info:
        files.read_text(tmp_path / "a\nb.json")
    message = info.value.message
    assert "\n" not in message and message.endswith("a\\nb.json': No such file or directory")


def test_a_path_longer_than_any_file_name_is_shown_cut_short(tmp_path):
    long = str(tmp_path / ("x" * 5000))
    with pytest.raises(RecordError) as info:
        files.read_text(long)
    assert len(info.value.message) < 300 and "characters)" in info.value.message
    with pytest.raises(UsageError) as refused:
        output_paths.check_writable(long, "--json")
    assert len(refused.value.message) < 300 and refused.value.message.startswith("--json ")


def test_a_refused_write_names_the_reason_and_what_to_do():
    full = files.write_failed("out.json", OSError(errno.ENOSPC, "No space left on device"))
    assert (full.message, full.remedy) == ("cannot write out.json: No space left on device",
                                           "free space on that disk, or write to another")
    other = files.write_failed("out.json", OSError(errno.EROFS, "Read-only file system"))
    assert (other.message, other.remedy) == ("cannot write out.json: Read-only file system",
                                             "write it to another file")


def test_a_fifo_without_a_writer_and_a_terminal_are_refused_as_inputs_that_would_wait(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UsageError) as info:
        files.check_not_waiting(fifo, "record")
    assert (info.value.message, info.value.remedy) == (
        f"record {fifo} is a FIFO that nothing writes to: reading it would wait for ever",
        "start its writer first, or give a file")
    writer = os.open(fifo, os.O_RDWR)  # a writer holds it: reading it is fine
    try:
        files.check_not_waiting(fifo, "record")
        os.write(writer, b"{}")  # and with data waiting
        files.check_not_waiting(fifo, "record")
    finally:
        os.close(writer)
    leader, follower = os.openpty()
    try:
        terminal = os.ttyname(follower)
        with pytest.raises(UsageError) as info:
            files.check_not_waiting(terminal, "--baseline")
        assert (info.value.message, info.value.remedy) == (
            f"--baseline {terminal} is a terminal: reading it would wait for typing",
            "give a file")
    finally:
        os.close(leader)
        os.close(follower)
    files.check_not_waiting("/dev/null", "record")  # a character device, no terminal
    files.check_not_waiting(tmp_path / "missing.json", "record")  # the reader says why


def test_a_record_file_of_the_most_bytes_a_record_may_have_is_read_and_one_more_is_refused(
        tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_RECORD_BYTES", 3 * 2**20)
    most = tmp_path / "most.json"
    most.write_bytes(b" " * (3 * 2**20))
    assert len(files.read_bytes(most)) == 3 * 2**20
    over = tmp_path / "over.json"
    over.write_bytes(b" " * (3 * 2**20 + 1))
    with pytest.raises(RecordError) as info:
        files.read_bytes(over)
    assert (info.value.message, info.value.remedy) == (
        f"{over} is larger than the 3 MiB a record may be",
        "a record of 200,000 rounds of every rung is about 290 MB: give fewer rounds "
        "(--rounds, --max-time)")
