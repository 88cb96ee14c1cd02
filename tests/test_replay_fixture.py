"""The graphbench fixture's check_replay (graphbench.pytest_plugin): a stale
replay fails the test in one line naming each finding, a passing one lets it
pass, and one that cannot be judged fails it; with graphbench.check_replay
stood in by a recorded check (the real one needs a GPU)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INNER = '''
import os
import pytest
import graphbench.api
from graphbench.replay.check import ReplayCheck
from graphbench.replay.outcomes import CaptureFacts, CaseOutcome, OutputOutcome, ReplayRecord
from graphbench.replay.verdicts import judge


def recorded(fn, *args, **options):
    wrong = int(os.environ["GB_WRONG"])
    captured = wrong >= 0
    cases = tuple(CaseOutcome(i, "fresh", i, (OutputOutcome("y", 8, max(wrong, 0), 0),))
                  for i in range(2)) if captured else ()
    facts = CaptureFacts(captured, error="" if captured else "RuntimeError: out of memory")
    record = ReplayRecord("fn", ("x",), ("y",), (), facts, cases)
    return ReplayCheck(record, judge(record))


@pytest.fixture(autouse=True)
def stand_in(monkeypatch):
    monkeypatch.setattr(graphbench.api, "check_replay", recorded)


def test_replay(graphbench):
    check = graphbench.check_replay(lambda x: x, object())
    assert check.passed
'''


@pytest.mark.parametrize("wrong, outcome, said", [
    (0, "passed", ""),
    (8, "failed", "graphbench: stale replay: stale: stale: output `y` differs from eager"),
    (-1, "failed", "graphbench: cannot judge the replay: the callable could not be captured"),
])
def test_the_fixture_fails_a_stale_or_unjudged_replay_in_one_line(pytester, monkeypatch,
                                                                   wrong, outcome, said):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("GB_WRONG", str(wrong))
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest("-p", "graphbench.pytest_plugin", "-p", "no:cacheprovider",
                                "-rf")
    result.assert_outcomes(**{outcome: 1})
    if said:
        assert any(said in line for line in result.outlines), result.outlines
