"""A record names the commit it was made from, and says when the code was edited."""

import shutil
import subprocess

import pytest

from graphbench.measure.provenance import git_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def test_clean_then_edited_checkout(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "kernel.cu").write_text("// v1\n")
    git(tmp_path, "add", "kernel.cu")
    git(tmp_path, "commit", "-q", "-m", "v1")
    clean = git_state(tmp_path)
    assert len(clean["git_commit"]) == 40 and clean["git_dirty"] is False
    (tmp_path / "kernel.cu").write_text("// v2\n")
    assert git_state(tmp_path) == {"git_commit": clean["git_commit"], "git_dirty": True}


def test_a_folder_inside_some_other_repository_is_not_a_checkout(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "site-packages").mkdir()
    assert git_state(tmp_path / "site-packages") == {"git_commit": None, "git_dirty": None}


def test_no_repository_at_all(tmp_path):
    assert git_state(tmp_path) == {"git_commit": None, "git_dirty": None}
