"""Where a result came from: tool version, git commit, packages, host."""

from __future__ import annotations

import datetime
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from graphbench._version import __version__
from graphbench.record.model import HostInfo, ToolInfo

PACKAGES = ("cuda-core", "cuda-bindings", "cuda-pathfinder", "cupy-cuda13x", "numpy", "rich")


SOURCE_TREE = Path(__file__).resolve().parents[2]


def _git(source: Path, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(source), *args],
                                capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def git_state(source: Path = SOURCE_TREE) -> dict:
    """The commit of the source tree, when it runs from a checkout, and whether
    tracked files differ from it: a record made from edited code must say so."""
    top = _git(source, "rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() != source.resolve():  # e.g. a venv inside some repo
        return {"git_commit": None, "git_dirty": None}
    commit = _git(source, "rev-parse", "HEAD") or None
    changes = _git(source, "status", "--porcelain", "--untracked-files=no") if commit else None
    return {"git_commit": commit, "git_dirty": None if changes is None else bool(changes)}


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = _imported_version(name)
    return versions


def _imported_version(name: str) -> str | None:
    """Fallback for packages on sys.path without install metadata."""
    module = {"cuda-core": "cuda.core", "cupy-cuda13x": "cupy"}.get(name)
    if not module:
        return None
    try:
        return getattr(__import__(module, fromlist=["__version__"]), "__version__", None)
    except ImportError:
        return None


def tool_info() -> ToolInfo:
    return ToolInfo(name="graphbench", version=__version__, **git_state())


def host_info() -> HostInfo:
    return HostInfo(hostname=platform.node(), platform=platform.platform(),
                    processor=platform.machine())


def utc_timestamp() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
