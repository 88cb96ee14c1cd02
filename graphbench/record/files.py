"""Reading and writing result files.

Output is checked before any work starts, so a bad path costs a second, not
a finished benchmark. A file graphbench did not create is never replaced by
another: a symbolic link is written through (the link stays, its target gets
the text), a FIFO or character device is written as a stream, a directory or
a read-only file is refused. Regular files are replaced atomically, so a
crash or Ctrl-C leaves the old file or the new one, never half.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from graphbench.errors import RecordError, UsageError


def read_text(path: str | os.PathLike) -> str:
    target = Path(path)
    try:
        return target.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{target} is not a text file (not UTF-8)",
                          "give a record written by graphbench --json") from None
    except OSError as exc:
        raise RecordError(f"cannot read {target}: {exc.strerror or exc}") from None


def _is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def check_writable(path: str | os.PathLike, option: str) -> None:
    """UsageError now if `path` cannot be written later."""
    target = Path(os.path.realpath(path))  # through any links
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        raise UsageError(f"{option} {path}: a folder on that path is not a directory") from None
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{option} {path} is a directory", "give a file name")
    if mode is not None and _is_stream(mode):
        return
    if mode is not None and not mode & 0o222:
        raise UsageError(f"{option} {path} is read-only", "give another file")
    _check_folder(target.parent, path, option)


def _check_folder(folder: Path, path, option: str) -> None:
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: {existing} is not a directory")
    if existing == folder:  # can a file really be made there? (/proc says yes to access())
        try:
            fd, probe = tempfile.mkstemp(prefix=".graphbench-check.", dir=folder)
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot write in {folder} "
                             f"({exc.strerror or exc})") from None
        os.close(fd)
        os.unlink(probe)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write `text` to `path` as the module docstring says; returns the path."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and _is_stream(mode):
        with open(target, "w", encoding="utf-8") as stream:
            stream.write(text)
        return Path(path)
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{path} is a directory", "give a file name")
    if mode is not None and not mode & 0o222:
        raise UsageError(f"{path} is read-only", "give another file")
    _replace(target, text)
    return Path(path)


def _replace(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; results are for sharing
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
