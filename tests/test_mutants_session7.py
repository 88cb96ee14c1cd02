"""Tests that kill the mutants session 7's changes left alive (mutmut over
analyze/intervals, analyze/stopping, analyze/summary and report/header)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from conftest import make_record

from graphbench._version import __version__
from graphbench.analyze.intervals import median_interval
from graphbench.analyze.summary import between_process_interval, speedups, summarize_run
from graphbench.report.header import _judged_by, header


def test_data_whose_largest_value_is_zero_keep_the_high_bound_at_zero():
    values = [0.0] + [-1.0 - i for i in range(19)]
    assert median_interval(values).high == 0.0
    assert median_interval([-v for v in values]).low == 0.0


def test_a_pooled_interval_that_only_touches_the_t_interval_does_not_widen_it():
    medians = [2.0, 2.5, 3.5, 3.0]
    plain = between_process_interval(medians)
    touching = between_process_interval(medians, plain["interval"])
    assert touching == plain and "widened" not in touching["scope"]


def test_no_effective_rounds_without_an_interval():
    few = {"individual": (10.0, 10.2, 9.9, 10.1, 10.0), "graph": (4.0,) * 5}
    entry = speedups(few)["graph"]
    assert entry.interval is None and entry.effective_rounds is None


def _stopped(reason="noise-target", processes=1, version="0.1.0", max_noise=0.01):
    return SimpleNamespace(stop_reason=reason, process_count=processes,
                           tool=SimpleNamespace(version=version),
                           config=SimpleNamespace(max_noise=max_noise))


def test_whose_judgement_a_met_noise_target_was():
    above, at = SimpleNamespace(noise=0.02), SimpleNamespace(noise=0.01)
    assert _judged_by(_stopped(), above) == " by graphbench 0.1.0's rule"
    assert _judged_by(_stopped(), at) == ""  # met at equality: nothing to explain
    assert _judged_by(_stopped(processes=2), above) == " in each process"
    assert _judged_by(_stopped(version=__version__), above) == ""
    assert _judged_by(_stopped(reason="time-budget"), above) == ""


def _styles(record):
    return [span.style for span in header(record, summarize_run(record)).spans]


def test_the_header_marks_a_run_out_budget_in_yellow_and_nothing_else():
    record = make_record(rounds=30)
    budget, target = (dataclasses.replace(record, runs=tuple(
        dataclasses.replace(run, stop_reason=reason) for run in record.runs))
        for reason in ("time-budget", "noise-target"))
    assert _styles(budget)[:3] == ["bold", "dim", "bold cyan"]
    assert "yellow" in _styles(budget)
    assert "yellow" not in _styles(target)
