"""Reading and writing result files.

Output paths are judged before any work starts
(graphbench.record.output_paths); the writer refuses again what a write
would lose. What a write does depends on what is already there:

- nothing: a new regular file (mode 0666 less the umask), made atomically;
- a regular file with one link that graphbench can give its mode and owner:
  replaced atomically (temporary file beside it, fsync, rename), keeping
  both, so a crash or Ctrl-C leaves the old text or the new, never half;
- a regular file with other hard links, owned by someone graphbench cannot
  hand a file to, or in a folder it cannot write: rewritten in place, so
  every name of it sees the new text and its inode, mode and owner stay
  (not atomic: a crash mid-write can leave it short);
- a symbolic link: written through (the link stays, its target gets the text);
- a FIFO, socket or device: written as a stream;
- a directory or a read-only file: refused.

A write that fails (a full disk, an I/O error, a reader that left) raises
OutputError and leaves what was there: the temporary file of an atomic
replace is removed, and the old file is never touched before the rename.
Only the in-place rewrite, which cannot be atomic, may leave a file short.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from graphbench.errors import OutputError, RecordError, UsageError

_WRITE_REMEDIES = {
    errno.ENOSPC: "free space on that disk, or write to another",
    errno.EDQUOT: "free some of your disk quota, or write to another disk",
    errno.EFBIG: "the file system takes no file this large: write to another",
    errno.EIO: "the device reported an I/O error: write to another",
    errno.EPIPE: "the reader closed it before everything was written",
}


# The largest record read: 200,000 rounds of every rung are about 290 MB, and
# reading one takes about 6 bytes of memory per byte of it (twice that where
# it must be read the careful way), so 512 MiB stays well within a 24 GB machine.
MAX_RECORD_BYTES = 512 * 2**20


def read_text(path: str | os.PathLike) -> str:
    return text_of(read_bytes(path), path)


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a record file, at most MAX_RECORD_BYTES of them (a
    stream such as /dev/zero included); RecordError naming why not."""
    target = Path(path)
    try:
        with target.open("rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read {shown_path(target)}: {exc.strerror or exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"{target} is larger than the {MAX_RECORD_BYTES // 2**20} MiB a record "
                          "may be", "a record of 200,000 rounds of every rung is about 290 MB: "
                          "give fewer rounds (--rounds, --max-time)")
    return data


def text_of(data: bytes, path: str | os.PathLike) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file (not UTF-8)",
                          "give a record written by graphbench --json") from None


def shown_path(path: str | os.PathLike) -> str:
    """A path as one short line of a message: a newline escaped, a name
    longer than any file's cut short with its length."""
    text = os.fspath(path)
    if len(text) > 200:
        text = f"{text[:100]}... ({len(text):,} characters)"
    return text if text.isprintable() else repr(text)


def is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def existing(path: str | os.PathLike, option: str = "") -> os.stat_result | None:
    """What is at `path` now, through every link (None: nothing). os.stat,
    not realpath: /proc/self/fd/1 of a pipe resolves to no path at all,
    yet the kernel follows it."""
    name = f"{option} {shown_path(path)}".strip()
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise UsageError(f"{name}: a folder on that path is not a directory") from None
    except OSError as exc:
        raise UsageError(f"{name}: {exc.strerror or exc}") from None


def check_not_waiting(path: str | os.PathLike, label: str) -> None:
    """UsageError for an input whose reading would wait for ever: a
    terminal, or a FIFO that nothing writes to."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return  # missing or unreadable: the reader says why
    shown = os.fspath(path) if os.fspath(path).isprintable() else repr(os.fspath(path))
    if stat.S_ISCHR(found.st_mode) and _is_terminal(path):
        raise UsageError(f"{label} {shown} is a terminal: reading it would wait for typing",
                         "give a file")
    if stat.S_ISFIFO(found.st_mode) and not _has_writer(path):
        raise UsageError(f"{label} {shown} is a FIFO that nothing writes to: reading it would "
                         "wait for ever", "start its writer first, or give a file")


def _is_terminal(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False  # it cannot be opened: the reader says why
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def _has_writer(path: str) -> bool:
    """A FIFO opened without waiting: with data waiting, a writer was there;
    with none, a read says EAGAIN while a writer holds it and EOF when none
    does (that read takes nothing, as there is nothing to take)."""
    import select

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if dict(poller.poll(0)).get(fd, 0) & select.POLLIN:
            return True
        try:
            os.read(fd, 1)
        except BlockingIOError:
            return True
        return False
    finally:
        os.close(fd)


def check_path_text(path: str, option: str) -> None:
    """Paths that say nothing, or name a folder rather than a file."""
    if path == "":
        raise UsageError(f"{option} '': an empty path", "give a file name")
    if path.endswith(os.sep) or path.endswith("/."):
        raise UsageError(f"{option} {path}: ends in a folder, not a file name",
                         f"give a file name in it, such as {path.rstrip('/.')}/out")


def check_existing(path, found: os.stat_result, option: str) -> None:
    """A folder or a read-only file, refused before any work and again as it is written."""
    if stat.S_ISDIR(found.st_mode):
        raise UsageError(f"{option} {path} is a directory", "give a file name")
    if not is_stream(found.st_mode) and not found.st_mode & 0o222:
        raise UsageError(f"{option} {path} is read-only", "give another file")


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write `text` to `path` as the module docstring says; returns the path."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` as the module docstring says; returns the path.
    OutputError when the system refuses the bytes."""
    check_path_text(os.fspath(path), "output")
    found = existing(path)
    if found is not None:
        check_existing(path, found, "output")
    try:
        _write(path, data, found)
    except OSError as exc:
        raise write_failed(os.fspath(path), exc) from None
    return Path(path)


def write_failed(name: str, exc: OSError) -> OutputError:
    """The one line for a write the system refused, with what to do about it."""
    return OutputError(f"cannot write {name}: {exc.strerror or exc}",
                       _WRITE_REMEDIES.get(exc.errno, "write it to another file"))


def _write(path: str | os.PathLike, data: bytes, found: os.stat_result | None) -> None:
    if found is not None and is_stream(found.st_mode):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    target = Path(os.path.realpath(path))
    if found is not None and found.st_nlink > 1:
        _write_in_place(target, data)  # a rename would leave the other names on the old text
    elif not _replace(target, data, found):
        _write_in_place(target, data)


def _replace(target: Path, data: bytes, found: os.stat_result | None) -> bool:
    """Atomic replace; False (nothing changed) when the new file could not
    have the old one's owner or be made in its folder. The old file is not
    touched until the rename, so any failure before it leaves it whole."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except PermissionError:
        if found is None:
            raise
        return False
    try:
        try:
            if not _same_owner_and_mode(tmp, found):
                Path(tmp).unlink()
                return False
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is out (it may take fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _same_owner_and_mode(tmp: str, found: os.stat_result | None) -> bool:
    if found is None:  # mkstemp makes it private; new results are for sharing
        os.chmod(tmp, 0o666 & ~_umask())
        return True
    if (found.st_uid, found.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.chown(tmp, found.st_uid, found.st_gid)
        except PermissionError:
            return False
    os.chmod(tmp, stat.S_IMODE(found.st_mode))
    return True


def _write_in_place(target: Path, data: bytes) -> None:
    try:
        with open(target, "r+b") as handle:
            handle.truncate(0)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except PermissionError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}", "give another file") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
