"""`graphbench report` of a hand-picked H200 record of every shape
(tests/records/h200) renders the text it did before the record model was
typed (tests/golden, made by make_golden.py), and one `compare` of two of
them the text it does now. A deliberate change of rendering regenerates the
golden files and names the change in its commit.

Covers graphbench/cli/reading.py."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from make_golden import GOLDEN, ROOT, golden_cases, render  # noqa: E402

CASES = golden_cases()


def test_every_picked_record_has_a_golden_text_and_no_golden_text_is_orphaned():
    assert 15 <= len(CASES) <= 20
    names = {name for name, _ in CASES}
    assert not [name for name in names if not (GOLDEN / name).is_file()]
    assert sorted(p.name for p in GOLDEN.glob("*.txt")) == sorted(names)


@pytest.mark.parametrize("name, args", CASES, ids=[name for name, _ in CASES])
def test_report_renders_as_before(name, args, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, text = render(args)
    assert f"exit {code}\n{text}" == (GOLDEN / name).read_text()
