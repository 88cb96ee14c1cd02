"""The README stays a first page: the two set-up commands (.ci/run runs the
second), one real output, the commands, the output guarantees in short, and
links to docs/ pages that exist; the examples it and docs/gate.md show for
committed records exit as the text says."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_readme_is_short_and_keeps_the_two_setup_commands():
    assert len(README.encode()) < 6500
    assert 'pip install . && graphbench run' in README
    assert 'pip install ".[test]" && python -m pytest' in README
    assert 'pip install ".[test]" && python -m pytest' in (ROOT / ".ci" / "run").read_text()


def test_every_link_of_the_readme_and_docs_resolves():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)\)", page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name}: {target}"


@pytest.mark.parametrize("words", [
    "Nothing is written before the work it records exists", "replaced atomically",
    "keeps its mode and", "hard links", "symbolic link", "`-` is standard output",
    "stderr", "NO_COLOR", "--quiet"])
def test_the_readme_states_each_output_guarantee(words):
    assert words in README.replace("\n", " ").replace("  ", " ")


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
def test_the_shipped_examples_exit_as_the_docs_say(args, code):
    done = subprocess.run([sys.executable, "-m", "graphbench", *args, "-q"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == code, done.stderr
