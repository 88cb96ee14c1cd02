"""Record files: what an output path must be before a run starts, how a
hard-linked record is rewritten, and how a bad value is shown (issue 19
item 9: mutation testing of graphbench/record)."""

from __future__ import annotations

import os

import pytest

from graphbench.errors import UsageError
from graphbench.record import files
from graphbench.record.decode import _shown


def test_a_directory_is_no_output_file(tmp_path):
    with pytest.raises(UsageError) as info:
        files.check_writable(tmp_path, "--out")
    assert "is a directory" in info.value.message and "--out" in info.value.message


def test_a_read_only_file_is_refused_even_for_root(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("{}")
    target.chmod(0o444)
    with pytest.raises(UsageError, match="read-only"):
        files.check_writable(target, "--out")
    with pytest.raises(UsageError, match="read-only"):
        files.write_text_atomic(target, "new")
    assert target.read_text() == "{}"


def test_a_writable_file_a_stream_and_a_new_file_pass(tmp_path):
    existing = tmp_path / "w.json"
    existing.write_text("{}")
    files.check_writable(existing, "--out")
    files.check_writable("/dev/null", "--out")
    files.check_writable(tmp_path / "new" / "deeper" / "x.json", "--out")  # folders made later
    assert not list(tmp_path.glob("**/.graphbench-check.*"))  # the probe is removed




def test_a_file_in_the_way_of_the_folder_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UsageError) as info:
        files.check_folder(blocker / "sub" / "x.json", "--out")
    assert "--out" in info.value.message and "not a directory" in info.value.message


def test_a_folder_closed_to_writing_is_refused(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o555)
    try:
        with pytest.raises(UsageError, match="cannot write in"):
            files.check_folder(closed / "x.json", "--out")
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


@pytest.mark.parametrize("value, shown", [
    ("abc", '"abc"'), (3, "3"), (1.5, "1.5"), (True, "true"), (None, "null"),
    ({"a": 1}, "an object"), ([1], "a list"), ("x" * 38, '"' + "x" * 38 + '"'),
])
def test_a_bad_value_is_shown_as_json_or_its_kind(value, shown):
    assert _shown(value) == shown


def test_a_long_bad_value_is_cut_to_forty_characters():
    text = _shown("y" * 100)
    assert len(text) == 40 and text == '"' + "y" * 36 + "..."
