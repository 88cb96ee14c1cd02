"""graphbench.report.header: how the report's first lines say why sampling stopped."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from conftest import make_record

from graphbench._version import __version__
from graphbench.stats.summary import summarize_run
from graphbench.report.header import _judged_by, header


def _stopped(reason="noise-target", processes=1, version="0.1.0", max_noise=0.01):
    return SimpleNamespace(stop_reason=reason, process_count=processes,
                           tool=SimpleNamespace(version=version),
                           config=SimpleNamespace(max_noise=max_noise))


def _styles(record):
    return [span.style for span in header(record, summarize_run(record)).spans]


def test_whose_judgement_a_met_noise_target_was():
    above, at = SimpleNamespace(noise=0.02), SimpleNamespace(noise=0.01)
    assert _judged_by(_stopped(), above) == " by graphbench 0.1.0's rule"
    assert _judged_by(_stopped(), at) == ""  # met at equality: nothing to explain
    assert _judged_by(_stopped(processes=2), above) == " in each process"
    assert _judged_by(_stopped(version=__version__), above) == ""
    assert _judged_by(_stopped(reason="time-budget"), above) == ""


def test_the_header_marks_a_run_out_budget_in_yellow_and_nothing_else():
    record = make_record(rounds=30)
    budget, target = (dataclasses.replace(record, runs=tuple(
        dataclasses.replace(run, stop_reason=reason) for run in record.runs))
        for reason in ("time-budget", "noise-target"))
    assert _styles(budget)[:3] == ["bold", "dim", "bold cyan"]
    assert "yellow" in _styles(budget)
    assert "yellow" not in _styles(target)
