"""`--ab REF`: the base side is the revision's copy of the files the
candidate reads, taken into a read-only temporary folder and removed after;
the user's working tree is never touched (graphbench.pipeline.revision).

Covers graphbench/kernel_files.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.errors import UsageError
from graphbench.kernel_files import kernel_dir
from graphbench.pipeline.files import load_pipeline
from graphbench.pipeline.revision import base_side, kind_of, load_base
from graphbench.pipeline.spec import SpecError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SHIPPED = Path(__file__).resolve().parents[1] / "graphbench" / "pipeline" / "shipped"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def committed(repo: Path, name: str) -> str:
    return subprocess.run(["git", "show", f"HEAD:{name}"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    """A repository whose pipeline file and kernels changed after their first commit."""
    root = tmp_path / "work"
    (root / "bench").mkdir(parents=True)
    pipeline = (SHIPPED / "add_mul_sub.py").read_text().replace('source="pipeline.cu"',
                                                                 'source="chain.cu"')
    (root / "bench" / "chain.py").write_text(pipeline)
    (root / "bench" / "chain.cu").write_text((kernel_dir() / "pipeline.cu").read_text())
    (root / "bench" / "graphbench_pdl.cuh").write_text(
        (kernel_dir() / "graphbench_pdl.cuh").read_text())
    git(root, "init", "-q")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    changed = (root / "bench" / "chain.cu").read_text().replace(
        "out[i] = x[i] * y[i];", "out[i] = x[i] * y[i] * 1.0f;")
    assert changed != (root / "bench" / "chain.cu").read_text()
    (root / "bench" / "chain.cu").write_text(changed)
    monkeypatch.chdir(root)
    return root


def tree_state(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts}


def test_a_revision_is_taken_read_only_beside_its_includes_and_removed_after(repo):
    before, status = tree_state(repo), git(repo, "status", "--porcelain")
    pipeline, kernels = repo / "bench" / "chain.py", repo / "bench" / "chain.cu"
    with base_side("HEAD", pipeline, kernels) as side:
        taken = Path(side.kernel_source)
        assert side.commit == git(repo, "rev-parse", "HEAD")
        assert taken.read_text() == committed(repo, "bench/chain.cu")
        assert taken.read_text() != kernels.read_text()  # the committed copy, not the edit
        assert (taken.parent / "graphbench_pdl.cuh").is_file()  # what an #include reads
        assert Path(side.pipeline).read_text() == pipeline.read_text()
        assert not os.access(taken, os.W_OK) or os.geteuid() == 0
        assert not (taken.stat().st_mode & 0o222)
        folder = taken.parents[1]
    assert not folder.exists()
    assert tree_state(repo) == before and git(repo, "status", "--porcelain") == status


def test_the_base_build_of_a_revision_is_its_committed_kernels(repo):
    candidate = load_pipeline(str(repo / "bench" / "chain.py"))
    base = load_base(RunConfig(ab_source="HEAD"), candidate)
    assert base.source == committed(repo, "bench/chain.cu")
    assert base.source != candidate.source
    assert base.loaded is not None and base.side.commit


@pytest.mark.parametrize("given, kind", [("old.cu", "kernels"), ("old.py", "pipeline"),
                                         ("HEAD~1", "revision"), ("origin/main", "revision"),
                                         ("3f2a9c1", "revision")])
def test_what_ab_names_is_read_by_its_form(given, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert kind_of(given) == kind


def test_an_existing_file_without_a_suffix_is_a_kernel_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main").write_text("// a file, not the branch")
    assert kind_of("main") == "kernels"


def test_an_unknown_revision_is_one_line_before_any_gpu_work(repo, capsys):
    assert main(["run", "--pipeline", "bench/chain.py", "--ab", "no-such-branch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "neither a file nor a revision" in err
    assert "NVIDIA" not in err  # judged before the driver was asked


def test_a_file_the_revision_lacks_is_refused(repo):
    (repo / "bench" / "new.py").write_text((repo / "bench" / "chain.py").read_text())
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", "bench/new.py")
    with pytest.raises(UsageError, match="not in that revision"):
        with base_side("HEAD", repo / "bench" / "new.py", None):
            pass


def test_outside_a_repository_a_revision_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="none here"):
        with base_side("HEAD", tmp_path / "p.py", None):
            pass


def test_files_outside_the_repository_have_no_older_copy(repo, tmp_path):
    with pytest.raises(UsageError, match="not files of the repository"):
        with base_side("HEAD", tmp_path / "elsewhere.py", None):
            pass


def test_a_base_pipeline_with_other_buffers_is_refused(repo):
    other = repo / "bench" / "other.py"
    other.write_text((repo / "bench" / "chain.py").read_text().replace(
        'buffer(x, role="input") for x in "abc"', 'buffer(x, role="input") for x in "abcd"'))
    candidate = load_pipeline(str(repo / "bench" / "chain.py"))
    with pytest.raises(SpecError, match="other buffers"):
        load_base(RunConfig(ab_source=str(other)), candidate)


def test_a_revision_passes_the_checks_and_reaches_the_device(repo, capsys):
    """Preflight compiles both sides offline; without a GPU the run then
    stops at the driver, exit 2: the revision itself was accepted. With one,
    the A/B is measured and judged (0 or 1: a regression of the edit is the
    gate's to find, not this test's)."""
    from conftest import gpu_unavailable_reason

    code = main(["run", "--pipeline", "bench/chain.py", "--ab", "HEAD", "--no-progress",
                 "--rounds", "60", "--iters", "5", "--modes", "individual,graph"])
    if gpu_unavailable_reason() is None:
        assert code in (0, 1)
    else:
        assert code == 2 and "NVIDIA" in capsys.readouterr().err
