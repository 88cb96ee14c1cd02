"""The pytest plugin's session-wide habits, as pytest-benchmark users know
them: which tests run (`--graphbench-skip`, `--graphbench-only`,
`--graphbench-disable`), every record kept in the results history
(`--graphbench-autosave`, graphbench.history), and one table of every gated
metric's verdict at the end of the session, `changed` ones included, so a
change within the threshold is seen even when every test passed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

SKIP, ONLY, DISABLE = "--graphbench-skip", "--graphbench-only", "--graphbench-disable"
AUTOSAVE, HISTORY = "--graphbench-autosave", "--graphbench-history"
AB = "--graphbench-ab"
FIXTURE = "graphbench"


def add_options(group) -> None:
    group.addoption(SKIP, action="store_true", default=False,
                    help="skip every test that uses the graphbench fixture")
    group.addoption(ONLY, action="store_true", default=False,
                    help="run only the tests that use the graphbench fixture")
    group.addoption(DISABLE, action="store_true", default=False,
                    help="run graphbench tests once to check their results: one round, "
                    "nothing saved or gated")
    group.addoption(AUTOSAVE, action="store_true", default=False,
                    help="store each test's record in the results history "
                    "(.graphbench/history.db, or --graphbench-history URL)")
    group.addoption(HISTORY, metavar="URL", default=None,
                    help="the history --graphbench-autosave stores in: a SQLite file or "
                    "postgresql://...")
    group.addoption(AB, metavar="REF|FILE", default=None,
                    help="run every graphbench test as an A/B against this base side (a git "
                    "revision such as origin/main, a pipeline file or a .cu file) and gate "
                    "it on paired rounds, as graphbench run --ab does")


@dataclass
class Habits:
    skip: bool = False
    only: bool = False
    disable: bool = False
    autosave: bool = False
    history: str | None = None
    ab: str | None = None  # --graphbench-ab: every test's base side
    verdicts: list[tuple[str, object]] = field(default_factory=list)  # (test, Verdict)


def session_habits(get, saving: bool, comparing: bool) -> Habits:
    """The options read by `get` (pytest's getoption), checked together."""
    habits = Habits(*(bool(get(name)) for name in ("graphbench_skip", "graphbench_only",
                                                   "graphbench_disable", "graphbench_autosave")),
                    get("graphbench_history"), get("graphbench_ab"))
    if habits.ab is not None and comparing:
        raise pytest.UsageError(f"{AB} judges each test against its base side in the same "
                                "process; a saved record is not needed: leave out one of them")
    if habits.skip and habits.only:
        raise pytest.UsageError(f"{SKIP} and {ONLY} together run nothing: give one")
    if habits.disable and (saving or comparing or habits.autosave):
        raise pytest.UsageError(f"{DISABLE} measures nothing to save or gate: leave out the "
                                "save, compare and autosave options, or leave out " + DISABLE)
    if habits.history is not None and not habits.autosave:
        raise pytest.UsageError(f"{HISTORY} names where {AUTOSAVE} stores: add {AUTOSAVE}")
    if habits.autosave:
        open_history(habits.history)  # a wrong URL or folder: now, before any test runs
    return habits


def open_history(where: str | None):
    from graphbench.errors import GraphbenchError
    from graphbench.history.store import History
    from graphbench.record.printable import printable

    try:
        return History.open(where, create=True)
    except GraphbenchError as exc:
        line = printable(exc.one_line())
    raise pytest.UsageError(f"{HISTORY}: {line}")


def deselected(items, habits: Habits) -> None:
    """Mark the tests the habits leave out as skipped, with the option that did."""
    if not (habits.skip or habits.only):
        return
    for item in items:
        uses = FIXTURE in getattr(item, "fixturenames", ())
        if habits.skip and uses:
            item.add_marker(pytest.mark.skip(reason=f"graphbench test ({SKIP})"))
        elif habits.only and not uses:
            item.add_marker(pytest.mark.skip(reason=f"not a graphbench test ({ONLY})"))


def disabled(settings: dict) -> dict:
    """One round in this process: the pipeline runs on every rung and is
    checked, and nothing is timed for a verdict."""
    timing = ("max_noise", "max_time", "min_rounds", "gate_sizes", "processes", "rounds")
    return {**{k: v for k, v in settings.items() if k not in timing}, "rounds": 1}


def bare_run(fn, inputs, settings: dict) -> tuple:
    """(the bare function's pipeline, its run settings), as graphbench.bench
    makes them; a bad function or input fails the test in one line."""
    from graphbench.errors import GraphbenchError
    from graphbench.pipeline.bare import bare_pipeline, bench_settings

    known = {k: settings.pop(k) for k in ("rtol", "atol", "reference") if k in settings}
    try:
        return bare_pipeline(fn, inputs, **known), bench_settings(inputs, settings)
    except GraphbenchError as exc:
        line = f"graphbench: {exc.one_line()}"
    pytest.fail(line, pytrace=False)


def autosave(record, habits: Habits) -> None:
    from graphbench.report.outputs import record_text
    from graphbench.history.keys import key_for
    from graphbench.history.repo import run_commit

    text = record_text(record)
    with open_history(habits.history) as history:
        history.save(key_for(record, text, run_commit(None)), text)


def keep_verdicts(node_id: str, comparison, habits: Habits) -> None:
    habits.verdicts += [(node_id, v) for v in comparison.verdicts if v.gated]


def verdict_table(terminalreporter, habits: Habits) -> None:
    """Every gated metric of the session: test, metric, change, verdict."""
    if not habits.verdicts:
        return
    terminalreporter.section("graphbench verdicts", sep="=", bold=True)
    width = max(len(node) for node, _ in habits.verdicts)
    for node, v in habits.verdicts:
        change = "" if v.change is None else f"{v.change * 100:+.1f}%"
        line = f"{node:<{width}}  {v.metric:<24} {change:>8}  {v.verdict} (at {v.threshold})"
        terminalreporter.line(line, red=v.verdict == "slower", yellow=v.verdict == "changed")
    counts = {}
    for _, v in habits.verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    terminalreporter.line(", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())))


def verification_text(record) -> str:
    from graphbench.report.run import failure_text

    failed = [c for p in (record, *record.gate_points) for c in p.checks if not c.passed]
    return "graphbench: verification failed: " + "; ".join(map(failure_text, failed))


def verdict_text(comparison, saved: Path | str) -> str:
    from graphbench.report.compare import comparison_report, decision_line
    from graphbench.report.tables import to_text

    return (f"graphbench: {decision_line(comparison)} (against {saved})\n"
            + to_text(comparison_report(comparison)))
