"""Reading and writing result files: atomic replacement of the files we
write, clear errors for the ones we cannot read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from graphbench.errors import RecordError


def read_text(path: str | os.PathLike) -> str:
    target = Path(path)
    try:
        return target.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{target} is not a text file (not UTF-8)",
                          "give a record written by graphbench --json") from None
    except OSError as exc:
        raise RecordError(f"cannot read {target}: {exc.strerror or exc}") from None


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write to a temporary file in the same folder, fsync, then rename over
    the target: a crash or Ctrl-C leaves the old file or the new one, never half."""
    target = Path(path)
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
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
