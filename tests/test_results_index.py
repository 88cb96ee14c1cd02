"""results/README.md is the one index of the committed records: its table
names every file under results/ (by path or by a glob relative to results/),
and every path or glob it names matches a file there; results/ stays within
3 MB."""

import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
INDEX = RESULTS / "README.md"


def files() -> list[str]:
    """The files under results/ (tracked ones where git can say; the index itself left out)."""
    try:
        listed = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split()
        names = [name.removeprefix("results/") for name in listed]
    except (OSError, subprocess.CalledProcessError):
        names = []
    if not names:  # not a git checkout (an unpacked sdist has no results/ anyway)
        names = [p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*") if p.is_file()]
    return sorted(name for name in names if name != "README.md")


def entries() -> list[str]:
    """The paths and globs in the first cell of every row of the index's table."""
    named = []
    for line in INDEX.read_text().splitlines():
        if line.startswith("| ") and not line.startswith("| ---"):
            first = line.split(" | ")[0]
            named += [item for item in re.findall(r"`([^`]+)`", first) if "/" in item]
    return named


pytestmark = pytest.mark.skipif(not INDEX.is_file(), reason="no results/ in this tree")


def test_the_index_has_one_table_and_no_section_per_batch_of_work():
    text = INDEX.read_text()
    assert text.count("| file | command | what it shows |") == 1
    assert not re.search(r"(?i)session ?\d|call ?\d", text)
    assert len(entries()) >= 40


def test_every_file_under_results_is_named_in_the_index():
    named = entries()
    unnamed = [name for name in files() if not any(fnmatch.fnmatchcase(name, e) for e in named)]
    assert not unnamed, f"results/README.md does not name: {unnamed}"


def test_every_path_or_glob_of_the_index_names_a_file():
    present = files()
    stale = [e for e in entries() if not any(fnmatch.fnmatchcase(name, e) for name in present)]
    assert not stale, f"results/README.md names what results/ does not hold: {stale}"


def test_no_path_under_results_carries_a_name_of_when_it_was_made():
    assert not [name for name in files() if re.search(r"(?i)session|call\d|h200_", name)]


def test_the_records_stay_within_3_mb():
    total = sum((RESULTS / name).stat().st_size for name in files() + ["README.md"])
    assert total <= 3 * 2**20, f"results/ holds {total / 2**20:.2f} MiB"
