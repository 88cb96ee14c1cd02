"""`graphbench report` of every committed record renders the text it did
before the record model was typed (tests/golden, made by make_golden.py
from the code of that time). A deliberate change of rendering regenerates
the golden files and names the change in its commit.

Covers graphbench/cli/reading.py."""

import sys
from pathlib import Path

import pytest
from conftest import needs_results

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from make_golden import GOLDEN, ROOT, golden_cases, render  # noqa: E402

CASES = golden_cases()


@needs_results
def test_every_committed_record_has_a_golden_text():
    assert len(CASES) >= 50  # results/ holds this many renders
    missing = [name for name, _ in CASES if not (GOLDEN / name).is_file()]
    assert not missing


@pytest.mark.parametrize("name, args", CASES, ids=[name for name, _ in CASES])
def test_report_renders_as_before(name, args, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, text = render(args)
    assert f"exit {code}\n{text}" == (GOLDEN / name).read_text()
