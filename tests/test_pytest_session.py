"""The plugin's session habits (graphbench/pytest_session.py), on CPU with
the synthetic records of tests/test_pytest_plugin.py: --graphbench-skip and
--graphbench-only choose the tests, --graphbench-disable runs one checked
round with nothing saved, --graphbench-autosave stores each record in the
history, and a session that gates ends with one table of every gated
metric's verdict, `changed` ones included."""

from types import SimpleNamespace

import pytest
from conftest import make_record
from test_pytest_plugin import INNER, inner, seen_settings  # noqa: F401 - the fixture

from graphbench.history.store import History
from graphbench.pytest_session import Habits, disabled, keep_verdicts, verdict_table
from graphbench.record.comparison import Comparison, Verdict

pytest_plugins = ["pytester"]

OTHER = "\n\ndef test_plain():\n    assert True\n"


@pytest.fixture
def two_tests(pytester):
    pytester.makepyfile(test_inner=INNER + OTHER)


def test_skip_leaves_out_the_graphbench_tests_and_only_the_others(inner, two_tests):
    result = inner("same", "--graphbench-skip")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*graphbench test (--graphbench-skip)*"])
    result = inner("same", "--graphbench-only")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*not a graphbench test (--graphbench-only)*"])


def test_disable_runs_one_round_in_this_process(inner, tmp_path):
    inner("same", "--graphbench-disable").assert_outcomes(passed=1)
    assert seen_settings(tmp_path) == {"modes": "individual,graph", "rounds": 1}


def test_disabled_settings_drop_what_times_a_verdict():
    assert disabled({"processes": 3, "max_noise": 0.01, "gate_sizes": "2^20", "elements": 8,
                     "rounds": 50}) == {"elements": 8, "rounds": 1}


@pytest.mark.parametrize("options, said", [
    (["--graphbench-skip", "--graphbench-only"], "together run nothing"),
    (["--graphbench-disable", "--graphbench-autosave"], "measures nothing to save or gate"),
    (["--graphbench-history", "h.db"], "add --graphbench-autosave"),
    (["--graphbench-autosave", "--graphbench-history", "postgresql://nobody@127.0.0.1:1/x"],
     "--graphbench-history:"),
])
def test_contradictory_habits_are_one_usage_error_at_start(inner, options, said):
    result = inner("same", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{said}*"])
    assert "Traceback" not in result.stderr.str()


def test_autosave_stores_each_record_in_the_history(inner, tmp_path):
    where = str(tmp_path / "history.db")
    inner("same", "--graphbench-autosave", "--graphbench-history", where
          ).assert_outcomes(passed=1)
    with History.open(where, create=False) as history:
        keys = history.keys()
    assert len(keys) == 1 and keys[0].pipeline  # stored with its key


def test_a_gating_session_ends_with_every_verdict(inner, pytester):
    saved = pytester.path / "saved"
    inner("base", "--graphbench-save", str(saved)).assert_outcomes(passed=1)
    result = inner("same", "--graphbench-compare", str(saved))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*= graphbench verdicts =*", "*test_op*graph.wall*",
                                 "*same*"])
    result = inner("slow", "--graphbench-compare", str(saved))
    result.stdout.fnmatch_lines(["*= graphbench verdicts =*", "*test_op*graph.wall*slower*"])


class Lines:
    def __init__(self):
        self.lines = []

    def section(self, title, **kw):
        self.lines.append(f"== {title}")

    def line(self, text, **kw):
        self.lines.append((text, kw))


def test_the_table_shows_changed_and_same_not_only_failures():
    habits = Habits()
    verdicts = (Verdict("graph.wall", "changed", True, "10%", 5.0, 5.2, 0.037),
                Verdict("individual.busy", "same", True, "5%", 2.8, 2.8, 0.001),
                Verdict("fused.wall", "faster", False, "10%", 4.6, 4.0, -0.13))
    keep_verdicts("t.py::test_op", Comparison(verdicts, (), ()), habits)
    shown = Lines()
    verdict_table(shown, habits)
    assert shown.lines[0] == "== graphbench verdicts"
    rows = [text for text, _ in shown.lines[1:-1]]
    assert len(rows) == 2  # gated metrics only
    assert "graph.wall" in rows[0] and "+3.7%" in rows[0] and "changed (at 10%)" in rows[0]
    assert shown.lines[1][1]["yellow"] and not shown.lines[1][1]["red"]
    assert shown.lines[-1][0] == "1 changed, 1 same"


def test_no_gate_no_table():
    shown = Lines()
    verdict_table(shown, Habits())
    assert shown.lines == []
