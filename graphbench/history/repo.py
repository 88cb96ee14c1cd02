"""The git repository graphbench runs in, asked through `git` itself: its
root, its HEAD commit, and what a revision such as `main` names. Outside a
repository, or without git, each answer is None."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from graphbench.errors import UsageError

HEX = re.compile(r"[0-9a-f]{4,64}")
GIT_TIMEOUT_S = 10


def git(args: list[str], cwd: str | os.PathLike | None = None) -> str | None:
    """git's one line of output, or None when it fails or is not there."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def toplevel(cwd: str | os.PathLike | None = None) -> Path | None:
    found = git(["rev-parse", "--show-toplevel"], cwd)
    return Path(found) if found else None


def head_commit(cwd: str | os.PathLike | None = None) -> str | None:
    return git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd)


def revision(name: str, cwd: str | os.PathLike | None = None) -> str | None:
    """The commit a branch, tag or other revision names (git rev-parse), or None."""
    if not name or name.startswith("-") or any(c.isspace() for c in name):
        return None  # never an option of git's, never a second argument
    return git(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], cwd)


def run_commit(given: str | None, cwd: str | os.PathLike | None = None) -> str | None:
    """The commit a stored record is filed under: --commit as given (a
    revision git knows is written out in full; otherwise 4 to 64 hex
    digits), else HEAD of the repository in `cwd`, else None."""
    if given is None:
        return head_commit(cwd)
    text = given.strip()
    full = revision(text, cwd)
    if full:
        return full
    if HEX.fullmatch(text.lower()):
        return text.lower()
    raise UsageError(f"--commit {given!r} is not a commit",
                     "give its hex id (4 to 64 digits), or a revision of this repository")
