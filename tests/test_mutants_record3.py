"""Mutation tests for graphbench.record.files' branches a root test run never
reaches on its own (issue 19 item 9): a file another user owns, a folder
closed to us, a failing mkstemp or chown, an unwritable file. The failures
are injected where the OS would raise them; what the write leaves on disk is
checked, not just that it returned."""

from __future__ import annotations

import errno
import os
import stat
import tempfile

import pytest

from graphbench.errors import RecordError, UsageError
from graphbench.record import files


def denied(*_args, **_kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


def test_a_read_error_is_named_with_its_reason(tmp_path):
    with pytest.raises(RecordError) as info:
        files.read_text(tmp_path)  # a directory: IsADirectoryError
    assert info.value.message == f"cannot read {tmp_path}: Is a directory"
    assert info.value.remedy == ""


def test_a_read_error_without_strerror_is_named_by_the_exception(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("x")
    monkeypatch.setattr(type(target), "read_bytes", lambda self: (_ for _ in ()).throw(
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
    files.check_writable(target, "--json")  # writable: fine
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(UsageError) as info:
        files.check_writable(target, "--json")
    assert info.value.message == f"--json {target} is not writable by this user"
    assert info.value.remedy == "give another file"
    assert target.read_text() == "x"


def test_a_stream_is_writable_whatever_access_says(monkeypatch):
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    files.check_writable("/dev/null", "--json")


def test_an_existing_file_is_not_probed_in_its_folder(tmp_path, monkeypatch):
    target = tmp_path / "mine.json"
    target.write_text("x")
    monkeypatch.setattr(files, "check_folder", lambda *a: pytest.fail("probed the folder"))
    files.check_writable(target, "--json")


def test_read_only_and_directory_refusals(tmp_path):
    target = tmp_path / "ro.json"
    target.write_text("x")
    target.chmod(0o444)
    for call in (lambda: files.check_writable(target, "--json"),
                 lambda: files.write_text_atomic(target, "new")):
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.remedy == "give another file"
        assert info.value.message.endswith(f"{target} is read-only")
    assert target.read_text() == "x"
    for bits in (0o200, 0o020, 0o002):  # any write bit makes it writable
        target.chmod(bits)
        files.check_writable(target, "--json")
    with pytest.raises(UsageError) as info:
        files.check_writable(tmp_path, "--json")
    assert info.value.message == f"--json {tmp_path} is a directory"
    assert info.value.remedy == "give a file name"


def test_a_folder_on_the_path_that_is_a_file(tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    with pytest.raises(UsageError) as info:
        files.check_folder(blocker / "deeper" / "x.json", "--json")
    assert info.value.message == f"--json {blocker / 'deeper' / 'x.json'}: {blocker} is not a " \
        "directory"


@pytest.fixture
def mkstemp_calls(monkeypatch):
    """The keyword arguments of every tempfile.mkstemp call, which still runs."""
    made, real = [], tempfile.mkstemp

    def spy(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    return made


def test_the_folder_probe_finds_the_nearest_existing_folder_and_cleans_up(tmp_path, mkstemp_calls):
    made = mkstemp_calls
    files.check_folder(tmp_path / "a" / "b" / "x.json", "--json")
    assert made == [{"prefix": ".graphbench-check.", "dir": tmp_path}]
    assert list(tmp_path.iterdir()) == []  # the probe is gone, no folder made


def test_a_folder_closed_to_us_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(UsageError) as info:
        files.check_writable(tmp_path / "x.json", "--json")
    assert info.value.message == (f"--json {tmp_path / 'x.json'}: cannot write in {tmp_path} "
                                  "(Permission denied)")
    monkeypatch.setattr(tempfile, "mkstemp", lambda **k: (_ for _ in ()).throw(OSError("odd")))
    with pytest.raises(UsageError) as info:
        files.check_folder(tmp_path / "x.json", "--json")
    assert info.value.message.endswith(f"cannot write in {tmp_path} (odd)")


def test_a_new_file_in_a_folder_closed_to_us_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(PermissionError):
        files.write_text_atomic(tmp_path / "new.json", "x")
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
        files.check_writable(target, "--json")


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


def test_a_sweep_finds_its_point_by_size_depth_and_shape():
    from conftest import make_record

    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    points = (make_record(elements=1024, depth=1), make_record(elements=1024, depth=2),
              make_record(elements=4096, depth=1),
              make_record(elements=1024, depth=1, grid="1056", block=128))
    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((1024, 4096), (1, 2)), None, points, True)
    assert sweep.point(1024, 1) is points[0]  # the first of any shape
    assert sweep.point(1024, 2) is points[1] and sweep.point(4096, 1) is points[2]
    assert sweep.point(1024, 1, ("1056", 128)) is points[3]
    assert sweep.point(1024, 1, ("auto", None)) is points[0]
    assert sweep.point(4096, 2) is None and sweep.point(4096, 1, ("1056", 128)) is None
    assert sweep.point(2048, 1) is None


# --- parse, codec and legacy: what each refusal says -----------------------------

from graphbench.record import codec, legacy  # noqa: E402
from graphbench.record.parse import parse_json  # noqa: E402


def refusal(call):
    with pytest.raises(RecordError) as info:
        call()
    return info.value.message, info.value.remedy


def test_parse_refusals_and_their_remedies():
    assert refusal(lambda: parse_json('{"a": ', "t.json")) == (
        "t.json is not valid JSON (Expecting value at line 1)",
        "was it truncated? re-run graphbench with --json")
    assert refusal(lambda: parse_json("1" * 5000, "t.json")) == (
        "t.json holds an integer of thousands of digits, which no graphbench record does", "")
    assert refusal(lambda: parse_json("[" * 100000 + "]" * 100000, "t.json")) == (
        "t.json is nested too deeply to be a graphbench record", "")
    assert refusal(lambda: parse_json('{"a": [1, NaN]}', "t.json")) == (
        "t.json: a[1]: bare NaN is not JSON", "a record stores finite numbers only")
    assert refusal(lambda: parse_json("Infinity", "t.json")) == (
        "t.json: the record: bare Infinity is not JSON", "a record stores finite numbers only")
    assert refusal(lambda: parse_json('"\\udc00"', "t.json")) == (
        "t.json: the record: a string with a lone surrogate, not text",
        "was the file written by graphbench?")


def test_schema_refusals_name_the_remedy(tmp_path):
    assert refusal(lambda: codec.load_document(
        {"schema": codec.RUN_SCHEMA, "schema_version": 99}, "t.json"))[1] == \
        "use the graphbench version that wrote it"
    from conftest import make_record

    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((4096,), (1,)), None, (make_record(elements=4096),), True)
    path = codec.write_record(tmp_path / "s.json", sweep)
    assert refusal(lambda: codec.read_run(path)) == (
        f"{path} is a sweep record, not a run record",
        "give a record written by graphbench run --json")


def test_a_records_summary_block_reaches_every_point(tmp_path):
    import json

    from conftest import make_record

    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    point = make_record(elements=4096)
    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((4096,), (1,)), None, (point,), True)
    marker = lambda run: {"elements": run.config.elements}  # noqa: E731
    written = json.loads(codec.write_record(tmp_path / "s.json", sweep, marker).read_text())
    assert [p["summary"] for p in written["points"]] == [{"elements": 4096}]
    assert "summary" not in written
    run = json.loads(codec.write_record(tmp_path / "r.json", point, marker).read_text())
    assert run["summary"] == {"elements": 4096}
    assert "summary" not in json.loads(codec.write_record(tmp_path / "n.json", point)
                                       .read_text())


def test_writing_refuses_non_finite_numbers(tmp_path):
    with pytest.raises(ValueError):
        codec.write_json(tmp_path / "x.json", {"a": float("nan")})
    assert not (tmp_path / "x.json").exists()


def test_a_pipeline_files_record_must_store_its_working_set():
    import dataclasses

    from conftest import make_record

    record = make_record()
    bare = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, working_set_bytes=None, file="mine.py"))
    assert refusal(lambda: legacy.with_working_sets(bare)) == (
        "pipeline.working_set_bytes: required field is missing",
        "a record of a pipeline file stores it; remake the record")


def test_a_built_in_records_working_set_follows_its_depth_and_stages():
    import dataclasses

    from conftest import make_record

    from graphbench.pipeline.files import load_pipeline, plan

    for depth, stages in ((1, ("add", "mul", "sub")), (3, ("add", "mul", "sub")),
                          (2, ("add", "mul"))):
        record = make_record(depth=depth, stages=stages, elements=4096)
        bare = dataclasses.replace(record, pipeline=dataclasses.replace(
            record.pipeline, working_set_bytes=None))
        filled = legacy.with_working_sets(bare).pipeline.working_set_bytes
        assert filled == plan(load_pipeline(None, depth, stages).spec, 4096).buffer_bytes


def test_a_long_wrong_value_is_cut_to_forty_characters():
    from graphbench.record.decode import decode
    from graphbench.record.model import Environment

    kept = refusal(lambda: decode(Environment, {"pinned_cpu": "x" * 38}, "env"))[0]
    assert kept == f'env.pinned_cpu: expected a whole number, got "{"x" * 38}"'
    cut = refusal(lambda: decode(Environment, {"pinned_cpu": "x" * 39}, "env"))[0]
    assert cut == f'env.pinned_cpu: expected a whole number, got "{"x" * 36}...'


def test_a_version_2_record_reads_its_graph_lifecycle(tmp_path):
    import json

    from conftest import make_record, make_run

    record = make_record()
    two = dataclasses_replace_runs(record, record.runs[0], make_run(seed=1, extras=False))
    document = json.loads(codec.write_record(tmp_path / "r.json", two).read_text())
    document["schema_version"] = 2
    for run in document["runs"]:
        lifecycles = run.pop("lifecycles", {})
        if lifecycles:
            run["graph_lifecycle"] = lifecycles["graph"]
    assert "graph_lifecycle" in document["runs"][0]
    assert "graph_lifecycle" not in document["runs"][1]
    read = codec.load_document(document, "v2.json")
    assert read.runs[0].lifecycles == record.runs[0].lifecycles
    assert read.runs[1].lifecycles == {}


def dataclasses_replace_runs(record, *runs):
    import dataclasses

    return dataclasses.replace(record, runs=tuple(runs))


def test_a_version_1_sweep_needs_a_list_of_points():
    document = {"schema": "graphbench/sweep", "schema_version": 1, "config": {}, "points": 5}
    assert refusal(lambda: codec.load_document(document, "s.json"))[0] == (
        "s.json: points: expected a list (schema version 1)")  # named with its file
