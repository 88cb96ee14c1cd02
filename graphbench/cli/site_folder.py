"""The folder `history html DIR` writes its site into, taken only where
nothing of the user's can be lost.

The site goes only into a folder that is missing (it is made), empty, or
one graphbench made before: a folder holding its marker file, which names
every file graphbench wrote there. Any other entry (the user's own
index.html, a subfolder, a link) refuses the folder, before the history is
read. Every name written is the index, the marker or a page's name, which
is a hash (graphbench.report.trend_page.page_name), and each path is checked
to lie in the folder and not to be the results history's. Pages the site
no longer has are removed: they are graphbench's own, named in the marker."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from graphbench.errors import OutputError, UsageError
from graphbench.record.files import shown_path, write_text_atomic
from graphbench.record.output_paths import same_file
from graphbench.report.trend_page import INDEX, PAGE_NAME

MARKER = ".graphbench-site"
MARKER_HEAD = "written by graphbench history html; it rewrites only the files named here\n"
SHOWN_OTHERS = 3  # of the files that refuse a folder, named in the message
FOLDER_REMEDY = "give a new or empty folder, or one that history html wrote"


def site_files(directory: str) -> set[str]:
    """The files graphbench wrote in `directory` before (none if it is
    missing or empty); UsageError for a folder that holds anything else."""
    if directory == "":
        raise UsageError("history html '': an empty folder name",
                         "give the folder to write the site into, such as trends/")
    found = _stat(directory)
    if found is None:
        return set()
    if not stat.S_ISDIR(found.st_mode):
        raise UsageError(f"history html {shown_path(directory)} is a file, not a folder",
                         FOLDER_REMEDY)
    try:
        entries = set(os.listdir(directory))
    except OSError as exc:
        raise UsageError(f"history html {shown_path(directory)}: cannot list it "
                         f"({exc.strerror or exc})", FOLDER_REMEDY) from None
    ours = _marked(Path(directory)) if MARKER in entries else set()
    others = sorted(entries - ours - {MARKER}) + sorted(
        name for name in entries & ours if not _is_plain_file(Path(directory) / name))
    if others:
        names = ", ".join(shown_path(name) for name in others[:SHOWN_OTHERS])
        more = f" and {len(others) - SHOWN_OTHERS} more" if len(others) > SHOWN_OTHERS else ""
        raise UsageError(f"history html {shown_path(directory)} holds files graphbench did not "
                         f"write ({names}{more}): the site would overwrite or mix with them",
                         FOLDER_REMEDY)
    return ours


def write_site(directory: str, pages: dict[str, str], before: set[str],
               history: list[str]) -> None:
    """Every page into `directory`, the marker naming them; pages of the
    site before that it no longer has removed."""
    folder = Path(directory)
    for name in [*pages, MARKER]:
        _check_target(folder, name, history)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot make the folder {shown_path(folder)}: "
                          f"{exc.strerror or exc}", "give a folder this user can write") from None
    _write_marker(folder, before | set(pages))  # first: a write cut short leaves only ours
    for name, text in pages.items():
        write_text_atomic(folder / name, text)
    _write_marker(folder, set(pages))
    for stale in sorted(before - set(pages)):
        try:
            (folder / stale).unlink(missing_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot remove the old page {shown_path(folder / stale)}: "
                              f"{exc.strerror or exc}", "give a folder this user can write"
                              ) from None


def _check_target(folder: Path, name: str, history: list[str]) -> None:
    """A name graphbench makes, whose path stays in `folder` and is no history file."""
    target = folder / name
    inside = os.path.dirname(os.path.realpath(target)) == os.path.realpath(folder)
    if not (name in (INDEX, MARKER) or PAGE_NAME.fullmatch(name)) or not inside:
        raise OutputError(f"history html: refused to write {shown_path(target)}, which is not "
                          f"a file of the site in {shown_path(folder)}",
                          "report this as a bug of graphbench")
    for guarded in history:
        if same_file(target, guarded):
            raise UsageError(f"history html {shown_path(folder)}: {shown_path(target)} is the "
                             f"results history's {shown_path(guarded)}: writing it would "
                             "destroy the stored records", "write the site to another folder")


def _marked(folder: Path) -> set[str]:
    """The names the marker lists; UsageError unless graphbench wrote it."""
    marker = folder / MARKER
    try:
        text = marker.read_text(encoding="utf-8") if _is_plain_file(marker) else ""
    except (OSError, UnicodeDecodeError):
        text = ""
    names = text[len(MARKER_HEAD):].splitlines() if text.startswith(MARKER_HEAD) else None
    if names is None or not all(name == INDEX or PAGE_NAME.fullmatch(name) for name in names):
        raise UsageError(f"history html {shown_path(folder)}: its {MARKER} is not one "
                         "graphbench wrote", FOLDER_REMEDY)
    return set(names)


def _write_marker(folder: Path, names: set[str]) -> None:
    write_text_atomic(folder / MARKER, MARKER_HEAD + "".join(f"{n}\n" for n in sorted(names)))


def _is_plain_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _stat(directory: str) -> os.stat_result | None:
    try:
        return os.stat(directory)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UsageError(f"history html {shown_path(directory)}: "
                         f"{getattr(exc, 'strerror', None) or exc}", FOLDER_REMEDY) from None
