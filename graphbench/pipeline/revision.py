"""The base side of an A/B run (`--ab`): a kernel source, a pipeline file,
or a git revision of the files the candidate reads.

For a revision (`--ab main`, `--ab HEAD~1`, a SHA) the base side is that
revision's copy of the candidate's pipeline file and of the kernel file it
reads, each with the source files beside it (a .cu file's #include), taken
by `git show` into a temporary folder, made read-only and removed when the
base side has been read. The user's working tree is never touched: nothing
is checked out, stashed or reset.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from graphbench.errors import UsageError
from graphbench.history.repo import git, revision, toplevel
from graphbench.pipeline.spec import _short

# what a pipeline file or kernel file may read beside itself, taken at the revision
SOURCE_SUFFIXES = (".py", ".cu", ".cuh", ".h", ".hpp")
MAX_FILES = 512  # a folder with more source files than this is no pipeline's folder
REMEDY = ("give a .cu file, a pipeline .py file, or a revision of this repository "
          "(main, HEAD~1, a commit)")


@dataclass(frozen=True)
class BaseSide:
    """What the base build is made of. `pipeline`: the base side's pipeline
    file (None: the candidate's); `kernel_source`: its .cu file (None: its
    pipeline's own source); `commit`: the revision's commit, for a revision."""

    given: str
    pipeline: str | None = None
    kernel_source: str | None = None
    commit: str | None = None


def kind_of(given: str) -> str:
    """"pipeline" for a .py file, "kernels" for a .cu or any other file (a
    missing .cu too, so that reading it says what is wrong), else "revision"."""
    path = Path(given)
    if path.suffix == ".py":
        return "pipeline"
    if path.suffix in SOURCE_SUFFIXES:
        return "kernels"
    try:
        if os.path.lexists(path):  # a file, or a FIFO or folder that reading refuses
            return "kernels"
    except (OSError, ValueError):  # a name too long to stat, a NUL byte: not a file
        pass
    return "revision"


@contextmanager
def base_side(given: str, pipeline_file: Path | None, kernel_file: Path | None
              ) -> Iterator[BaseSide]:
    """The base side of `--ab given`, for a candidate that reads
    `pipeline_file` (None: no file of its own, the built-in pipeline) and
    `kernel_file` (None: CUDA text in the pipeline file, or callables).
    A revision's files exist only inside the `with` block."""
    kind = kind_of(given)
    if kind == "pipeline":
        yield BaseSide(given, pipeline=given)
        return
    if kind == "kernels":
        yield BaseSide(given, kernel_source=given)
        return
    repo = toplevel(Path.cwd())
    commit = revision(given, repo) if repo else None
    if commit is None:
        where = "this repository" if repo else "a git repository (none here)"
        raise UsageError(f"--ab {_short(given)} is neither a file nor a revision of {where}",
                         REMEDY)
    wanted = [p for p in (pipeline_file, kernel_file) if p is not None and _inside(p, repo)]
    if not wanted:
        raise UsageError(f"--ab {_short(given)}: the pipeline and its kernels are not files of "
                         f"the repository at {repo}, so it holds no older copy of them",
                         "run inside the repository that holds the pipeline file, or give the "
                         "base as a file")
    folder = Path(tempfile.mkdtemp(prefix="graphbench-ab-"))
    try:
        taken = {p: _take(p, repo, commit, given, folder) for p in wanted}
        _read_only(folder)
        yield BaseSide(given, str(taken[pipeline_file]) if pipeline_file in taken else None,
                       str(taken[kernel_file]) if kernel_file in taken else None, commit)
    finally:
        _remove(folder)


def _inside(path: Path, repo: Path) -> bool:
    try:
        path.resolve().relative_to(repo.resolve())
    except (OSError, ValueError):
        return False
    return True


def _take(path: Path, repo: Path, commit: str, given: str, folder: Path) -> Path:
    """`path` as it was at `commit`, with the source files of its folder, under `folder`."""
    relative = path.resolve().relative_to(repo.resolve())
    listing = git(["ls-tree", "-r", "--name-only", commit, "--", f"{relative.parent.as_posix()}/"
                   if relative.parent != Path(".") else "."], repo) or ""
    names = [n for n in listing.splitlines() if Path(n).parent == relative.parent
             and Path(n).suffix in SOURCE_SUFFIXES]
    if relative.as_posix() not in names:
        raise UsageError(f"--ab {_short(given)}: {relative.as_posix()} is not in that revision "
                         f"({commit[:12]})", "give a revision that has the file, or the base "
                         "as a file")
    if len(names) > MAX_FILES:
        raise UsageError(f"--ab {_short(given)}: {relative.parent.as_posix()} holds "
                         f"{len(names):,} source files at {commit[:12]}",
                         "keep the pipeline and its kernels in a folder of their own")
    for name in names:
        _show(repo, commit, name, folder / name)
    return folder / relative


def _show(repo: Path, commit: str, name: str, target: Path) -> None:
    import subprocess

    from graphbench.history.repo import GIT_TIMEOUT_S

    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["git", "show", f"{commit}:{name}"], cwd=repo, capture_output=True,
                              timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"--ab: git could not read {name} at {commit[:12]} ({exc})") from None
    if done.returncode != 0:
        raise UsageError(f"--ab: git could not read {name} at {commit[:12]}")
    target.write_bytes(done.stdout)


def _read_only(folder: Path) -> None:
    for root, dirs, files in os.walk(folder):
        for name in files:
            os.chmod(os.path.join(root, name), stat.S_IRUSR | stat.S_IRGRP)
        os.chmod(root, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)


def _remove(folder: Path) -> None:
    for root, dirs, _ in os.walk(folder):
        os.chmod(root, stat.S_IRWXU)
    shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class BaseBuild:
    """The base side, read: its pipeline (None: the candidate's), its CUDA
    text ("" for callables) and the digest the record keeps of it."""

    side: BaseSide
    loaded: object | None  # a graphbench.pipeline.files.LoadedPipeline
    source: str
    digest: str


def load_base(config, candidate) -> BaseBuild:
    """The base side of `config`'s `--ab` (config.ab_source) for the
    `candidate` LoadedPipeline (run with config.kernel_source in place of
    its own source, where given), read while a revision's files exist.
    SpecError or UsageError before any GPU work where the two sides cannot
    be alternated on one set of buffers."""
    import hashlib

    from graphbench.pipeline.files import kernel_source_path, load_pipeline, plan
    from graphbench.pipeline.spec import SpecError

    ab, kernel_source = config.ab_source, config.kernel_source
    callables = not candidate.source
    kernel_file = Path(kernel_source) if kernel_source else \
        None if callables else kernel_source_path(candidate.spec.source, candidate.path)
    pipeline_file = candidate.path if candidate.file_sha256 else None
    with base_side(ab, pipeline_file, kernel_file) as side:
        loaded = load_pipeline(side.pipeline, config.depth, config.stages, option="--ab",
                               params=config.params) if side.pipeline else None
        if callables and loaded is None:
            raise SpecError(f"--ab {_short(ab)} replaces CUDA kernels; the {candidate.spec.name} "
                            "pipeline is callables", "give its older pipeline file or a "
                            "revision instead")
        source = _read_kernels(side) if side.kernel_source else loaded.source if loaded else ""
    if loaded is not None:
        same_buffers(plan(candidate.spec, config.elements), plan(loaded.spec, config.elements), ab)
    text = source or (loaded.file_sha256 if loaded else "")
    return BaseBuild(side, loaded, source, hashlib.sha256(text.encode()).hexdigest())


def _read_kernels(side: BaseSide) -> str:
    from graphbench.kernel_files import read_source
    from graphbench.record.files import check_not_waiting

    shown = side.given if side.given.isprintable() else repr(side.given)
    if side.commit is None:  # a FIFO nothing writes to: read, it would never end
        check_not_waiting(side.given, "--ab")
    return read_source(Path(side.kernel_source or ""), f"--ab {shown}")


def same_buffers(candidate, base, ab: str) -> None:
    """Both sides run on one set of buffers: the same framework, names,
    sizes and types."""
    from graphbench.pipeline.spec import SpecError

    def shape(p):
        arrays = sorted((n, getattr(b, "size", None), str(getattr(b, "shape", "")),
                         str(b.dtype)) for n, b in p.buffers.items())
        return getattr(p, "framework", ""), arrays, tuple(p.inputs), tuple(p.outputs)
    if shape(candidate) != shape(base):
        raise SpecError(f"--ab {_short(ab)}: the base side's pipeline has other buffers or "
                        "framework than the candidate's", "A/B alternates both sides on one "
                        "set of inputs and outputs: keep them alike")
