"""Where a result came from: tool version, git commit, packages, host."""

from __future__ import annotations

import datetime
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from graphbench import __version__

PACKAGES = ("cuda-core", "cuda-bindings", "cuda-pathfinder", "cupy-cuda13x", "numpy", "rich")


def git_commit() -> str | None:
    """The commit of the graphbench source tree, when it runs from a checkout."""
    source = Path(__file__).resolve().parent.parent
    try:
        result = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and commit else None


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


def tool_info() -> dict:
    return {"name": "graphbench", "version": __version__, "git_commit": git_commit()}


def host_info() -> dict:
    return {"hostname": platform.node(), "platform": platform.platform(),
            "processor": platform.machine()}


def utc_timestamp() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
