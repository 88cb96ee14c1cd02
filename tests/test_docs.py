"""The README stays a first page: the two set-up commands (.ci/run runs the
second), one real output, the commands, the output guarantees in short, and
links to docs/ pages that exist; the examples it and docs/gate.md show for
committed records exit as the text says, and every committed record
validates against the shipped schemas. The only test that reads results/."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
RESULTS = ROOT / "results"
# results/ holds the committed records; the sdist leaves it out (pyproject.toml),
# so a test that reads it skips there, saying why, rather than failing.
needs_results = pytest.mark.skipif(not RESULTS.is_dir(), reason="reads results/, the "
                                   "committed records, which the sdist leaves out")


def test_the_readme_is_short_and_keeps_the_two_setup_commands():
    assert len(README.encode()) < 6500
    assert 'pip install . && graphbench run' in README
    assert 'pip install ".[test]" && python -m pytest' in README
    assert 'pip install ".[test]" && python -m pytest' in (ROOT / ".ci" / "run").read_text()


def test_every_link_of_the_readme_and_docs_resolves():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)\)", page.read_text()):
            into_results = (page.parent / target).resolve().is_relative_to(RESULTS)
            if "://" not in target and (RESULTS.is_dir() or not into_results):  # sdist: none
                assert (page.parent / target).exists(), f"{page.name}: {target}"


@pytest.mark.parametrize("words", [
    "Nothing is written before the work it records exists", "replaced atomically",
    "keeps its mode and", "hard links", "symbolic link", "`-` is standard output",
    "stderr", "NO_COLOR", "--quiet"])
def test_the_readme_states_each_output_guarantee(words):
    assert words in README.replace("\n", " ").replace("  ", " ")


@pytest.mark.slow
@pytest.mark.parametrize("args, code", [
    # another physical GPU than the baseline's: busy time is gateable from 7%, not at 5%
    (["compare", "results/gate/baseline.json", "results/gate/same_1.json"], 2),
    (["compare", "results/gate/baseline.json", "results/gate/same_1.json", "--fail-on", "individual.busy:8%", "--fail-on", "individual.busy@2^20:8%",
      "--fail-on", "individual.busy@2^24:8%"], 0),
    (["compare", "results/gate/baseline.json", "results/gate/slow_bandwidth_1.json",
      "--fail-on", "individual.busy:8%", "--fail-on", "individual.busy@2^20:8%",
      "--fail-on", "individual.busy@2^24:8%"], 1),
    (["compare", "results/gate/baseline.json", "results/ladder/default_4096.json"], 2),
    (["compare", "results/stability/repeat_1.json", "results/stability/repeat_2.json"], 2),
    (["compare", "results/ab/softmax_identical_4096.json"], 0),
    (["report", "results/ladder/all_rungs_4096.json"], 0),
    (["report", "results/ladder/default_4096.json"], 0),
])
@needs_results
def test_the_shipped_examples_exit_as_the_docs_say(args, code):
    done = subprocess.run([sys.executable, "-m", "graphbench", *args, "-q"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == code, done.stderr


@needs_results
def test_every_committed_record_validates_against_the_shipped_schemas():
    pytest.importorskip("jsonschema")
    from test_schema import errors_of, records, validators

    checkers = validators()
    said = {str(p.relative_to(ROOT)): errors_of(p, checkers)[:1] for p in records(RESULTS)}
    assert said and {path: first for path, first in said.items() if first} == {}


def documented_modules() -> tuple[set[str], set[str]]:
    """The module paths docs/layout.md's source tree names: (one line each,
    the path from the indentation of the package lines above it; and the
    words of a package line that names its modules in its text, such as
    shipped/ and backends/)."""
    text = (ROOT / "docs" / "layout.md").read_text()
    block = text[text.index("```\ngraphbench/\n") + 4:]
    block = block[:block.index("```")]
    lines, words, packages = set(), set(), []
    for line in block.splitlines()[1:]:
        if not line.startswith("  "):
            break  # kernels/, tests/, ...: outside the package
        depth, token = (len(line) - len(line.lstrip())) // 2, line.split()[0]
        packages = packages[:depth - 1]
        prefix = "".join(packages)
        if token.endswith("/"):
            packages.append(token)
            stems = (w.strip(",():").removesuffix(".py") for w in line.split()[1:])
            words.update(f"{prefix}{token}{stem}.py" for stem in stems if stem.isidentifier())
        else:
            lines.add(prefix + token)
    return lines, words


def test_the_layout_doc_names_every_module_and_no_other():
    package = ROOT / "graphbench"
    modules = {str(p.relative_to(package)) for p in package.rglob("*.py")
               if p.name != "__init__.py" or p.parent == package}
    lines, words = documented_modules()
    assert sorted(modules - lines - words) == []
    assert sorted(lines - modules) == []  # a line for a module that is gone
