"""Covers graphbench/report/__init__.py.
Covers graphbench/report/run.py.
Covers graphbench/report/tables.py."""

import dataclasses

from conftest import make_record

from graphbench.stats.summary import summarize_run

from graphbench.report.run import run_report
from graphbench.report.tables import to_text


def test_table_shows_device_modes_speedup_and_verification(record):
    text = to_text(run_report(record), width=100)
    assert "NVIDIA H200" in text and "cc 9.0" in text
    for mode in ("individual", "graph", "fused"):
        assert mode in text
    summary = summarize_run(record)
    assert f"graph speedup {summary.speedup['graph'].stats.median:.2f}x" in text
    assert "verified: 1 checks passed" in text
    assert f"{summary.modes['graph'].wall.median:.2f}" in text


def test_table_is_not_squeezed_at_80_columns(record):
    text = to_text(run_report(record), width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text  # rich truncates cells with an ellipsis when squeezed


def test_failure_names_mode_error_and_index():
    text = to_text(run_report(make_record(passed=False)), width=100)
    assert "VERIFICATION FAILED" in text
    assert "graph: 1 of 8 elements wrong" in text and "first bad index 3" in text


def test_record_without_timing_still_renders():
    record = make_record(passed=False)
    record = dataclasses.replace(record, runs=(dataclasses.replace(
        record.runs[0], modes={}, rounds=0, launch_floor=None, lifecycles={},
        graph_update=None),))
    text = to_text(run_report(record))
    assert "VERIFICATION FAILED" in text and "graph speedup" not in text


def test_gate_size_points_are_shown_once_per_workload():
    import dataclasses

    point = make_record(elements=2**24, rounds=5, seed=3)
    record = dataclasses.replace(make_record(), gate_points=(point,))
    text = to_text(run_report(record), width=100)
    assert "16,777,216 elements: individual/graph 3.00, fused 3.00; verified" in text


import pytest  # noqa: E402


@pytest.mark.parametrize("width", [40, 60, 80])
def test_narrow_terminals_stack_the_figures_instead_of_cutting_them(width, record):
    from graphbench.stats.merge import merge_runs
    from graphbench.record.codec import read_record
    from graphbench.report.run import runs_side_by_side
    from graphbench.report.sweep import sweep_report
    from graphbench.report.tables import simple_table

    from pathlib import Path

    sweep = read_record(Path(__file__).resolve().parent / "records" / "sweep.json")
    several = [make_record(seed=i) for i in range(15)]
    side = simple_table("records side by side",
                        *runs_side_by_side(several, [f"run_{i}.json" for i in range(15)]))
    for renderable in (run_report(record, verbose=True), sweep_report(sweep), side,
                       run_report(merge_runs(several[:3]))):
        text = to_text(renderable, width=width)
        assert "…" not in text, text
        assert max(len(line) for line in text.splitlines()) <= width
    assert "14.0" in to_text(run_report(record), width=40)  # the individual wall, whole


def test_busy_before_and_after_the_checks_is_shown_with_which_the_gate_uses():
    import dataclasses

    from graphbench.record.model import BusyReading

    record = make_record()
    run = dataclasses.replace(record.runs[0], busy_after_checks={
        "stages": BusyReading(3.51, 100.0, True, 1980.0), "fused": BusyReading(3.0, 100.0, True)})
    text = to_text(run_report(dataclasses.replace(record, runs=(run,))), width=120)
    assert "GPU busy before -> after the checks: stages 3.00 -> 3.51 us (+17%)" in text
    assert "the gate uses the figure before" in text


def test_a_wide_speedup_interval_says_how_few_independent_rounds_it_rests_on():
    from types import SimpleNamespace

    from graphbench.stats.stats import summarize
    from graphbench.stats.summary import SpeedupSummary, speedups
    from graphbench.report.run import FEW_EFFECTIVE_ROUNDS, speedup_line

    drifting = {"individual": tuple(10.0 + 0.1 * i for i in range(30)), "graph": (4.0,) * 30}
    entry = speedups(drifting)["graph"]
    assert entry.interval is not None and entry.effective_rounds < FEW_EFFECTIVE_ROUNDS
    text = speedup_line(SimpleNamespace(speedup={"graph": entry})).plain
    assert f"wide: the 30 rounds are worth {entry.effective_rounds:.1f} independent ones" in text
    steady = SpeedupSummary(summarize([2.0] * 30), (1.9, 2.1), "within one process's rounds",
                            (2.0,) * 30, "", float(FEW_EFFECTIVE_ROUNDS))
    assert "wide:" not in speedup_line(SimpleNamespace(speedup={"graph": steady})).plain
