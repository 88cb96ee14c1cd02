"""graphbench.stats.stage_figures on synthetic traces: per-stage GPU time, idle gaps, overlap and
shares, the loop's conditional cost, and the timeline's iteration."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import make_record, with_runs
from tests_helpers import iteration_kernels, kernel_trace, record_with_trace, replace_run

import graphbench.stats.attribution as A
import graphbench.stats.stage_figures as F
from graphbench.stats.stats import median


def test_stage_figures_sum_kernels_and_zero_gaps():
    # every gap 0 ns: a stage's idle is 0, not rounded up; k2 + k3 add up
    body = [("k1", 0, 400), ("k2", 0, 300), ("k3", 0, 200)] * 3
    record = record_with_trace({"graph": kernel_trace([body], 3, untraced_wall_us=(1.0, 3.0, 2.0),
                                         traced_wall_us=(5.0, 4.0))})
    found = F.rung_figures(record, "graph")
    assert found.iterations == 2 and found.period_us == pytest.approx(0.9)
    first, second = found.stages
    assert (first.index, first.stage, first.kernels) == (1, "a", ("k1",))
    assert (second.index, second.stage, second.kernels) == (2, "b", ("k2", "k3"))
    assert (first.gpu_us, first.gap_us, first.overlap_us) == (0.4, 0.0, 0.0)
    assert second.gpu_us == pytest.approx(0.5) and second.gap_us == 0.0
    assert second.share == pytest.approx(0.5 / 0.9) and first.share == pytest.approx(0.4 / 0.9)
    assert found.loop_us is None and found.escape is None
    assert (found.untraced_wall_us, found.traced_wall_us) == (2.0, 4.5)
    assert found.kernels_per_iteration == 3.0 and found.expected_kernels == 3


def test_loop_rung_conditional_with_zero_gaps():
    body = [("k1", 0, 400), ("k2", 0, 300), ("k3", 0, 200), ("loop_count", 0, 100)] * 2
    found = F.rung_figures(record_with_trace({"loop": kernel_trace([body], 2)}), "loop")
    assert found.iterations == 1
    assert found.loop_us == pytest.approx(0.1)  # only the loop kernel's own time
    assert found.stages[0].gap_us is None  # k1 follows the loop kernel: its idle is the loop's
    assert found.stages[1].gap_us == 0.0
    gappy = [("k1", 50, 400), ("k2", 0, 300), ("k3", 0, 200), ("loop_count", 20, 100)] * 2
    found = F.rung_figures(record_with_trace({"loop": kernel_trace([gappy], 2)}), "loop")
    assert found.loop_us == pytest.approx((20 + 100 + 50) / 1000)
    assert found.stages[0].gap_us is None  # its idle is the conditional's
    assert found.escape is None and found.kernels_per_iteration == 3.0


def test_a_loop_kernel_inside_a_stage_splits_its_idle_from_the_conditionals():
    # k2, then the loop kernel, then k3 (stage b's second kernel) after it
    body = [("k1", 30, 400), ("k2", 40, 300), ("loop_count", 50, 100), ("k3", 60, 200)] * 2
    found = F.rung_figures(record_with_trace({"loop": kernel_trace([body], 2)}), "loop")
    a, b = found.stages
    assert b.gpu_us == pytest.approx(0.5)
    assert b.gap_us == pytest.approx(0.04)  # k3's 60 ns are the conditional's
    assert a.gap_us == pytest.approx(0.03)
    assert found.loop_us == pytest.approx((50 + 100 + 60) / 1000)
    assert found.accounted_us == pytest.approx(found.period_us)


def test_a_period_of_exactly_zero_has_no_shares():
    body = [("k1", 100, 1000), ("k2", -900, 10), ("k3", 0, 10),
            ("k1", 10, 10), ("k2", 0, 10), ("k3", 0, 850)]
    found = F.rung_figures(record_with_trace({"graph": kernel_trace([body], 2)}), "graph")
    assert found.period_us == 0.0 and [s.share for s in found.stages] == [0.0, 0.0]


def test_overlap_and_a_period_of_under_one_microsecond():
    body = [("k1", 100, 200), ("k2", -50, 100), ("k3", 0, 100)] * 3
    found = F.rung_figures(record_with_trace({"graph": kernel_trace([body], 3)}), "graph")
    assert found.period_us == pytest.approx(0.45)
    a, b = found.stages
    assert a.gap_us == pytest.approx(0.1) and a.overlap_us == 0.0
    assert b.gap_us == 0.0 and b.overlap_us == pytest.approx(0.05)
    assert b.share == pytest.approx(0.2 / 0.45)


def test_a_period_that_is_not_positive_has_no_shares():
    body = [("k1", 100, 1000), ("k2", -900, 10), ("k3", 0, 10),
            ("k1", 10, 10), ("k2", 0, 10), ("k3", 0, 10)]
    found = F.rung_figures(record_with_trace({"graph": kernel_trace([body], 2)}), "graph")
    assert found.period_us < 0 and [s.share for s in found.stages] == [0.0, 0.0]


def test_rung_figures_without_whole_iterations_or_on_an_eager_rung():
    escaped = kernel_trace([[("k1", 1, 1), ("k2", 1, 1)]], 1)
    record = record_with_trace({"graph": escaped, "individual": escaped})
    graph = F.rung_figures(record, "graph")
    assert graph.stages == () and graph.period_us is None and graph.loop_us is None
    assert graph.iterations == 0 and graph.escape == A.Escape((("k3", 1.0),), ())
    assert graph.untraced_wall_us is None and graph.traced_wall_us is None
    assert F.rung_figures(record, "individual").escape is None
    assert F.record_rung_is_graph("graph") and not F.record_rung_is_graph("individual")
    assert not F.record_rung_is_graph("custom")


def test_busy_us_of_a_mode():
    record = record_with_trace({})
    assert F.busy_us(record, "graph") == median(record.samples("graph", "busy"))
    assert F.busy_us(record, "pdl") is None
    no_busy = replace_run(record, conditions=tuple(dataclasses.replace(c, busy={})
                                                   for c in record.runs[0].conditions))
    assert F.busy_us(no_busy, "graph") is None


def test_timeline_takes_the_iteration_nearest_the_median():
    # periods 1.5, 1.0, 1.1, 1.3, 1.05 us after the first: median 1.1
    gaps = [0, 500, 0, 100, 300, 50]
    body = []
    for gap in gaps:
        body += [("k1", gap, 400), ("k2", 0, 300), ("k3", 0, 300)]
    record = record_with_trace({"graph": kernel_trace([body], 6)})
    found = F.timeline(record, "graph")
    assert found.mode == "graph" and found.period_us == pytest.approx(1.1)
    assert [(s.stage, s.start_us, s.end_us) for s in found.segments] == [
        (0, pytest.approx(0.1), pytest.approx(0.5)), (1, pytest.approx(0.5), pytest.approx(0.8)),
        (1, pytest.approx(0.8), pytest.approx(1.1))]
    assert F.timeline(record_with_trace({"graph": kernel_trace([body[:3]], 1)}), "graph") is None
    assert [t.mode for t in F.timelines(record)] == ["graph"]
    assert F.timelines(make_record()) == [] and F.all_rung_figures(make_record()) == []


def test_the_first_process_that_traced_is_read():
    traced = record_with_trace({"graph": kernel_trace([iteration_kernels() * 2], 2)})
    plain = make_record().runs[0]
    both = with_runs(traced, plain, traced.runs[0])
    assert F.record_attribution(both) is traced.runs[0].attribution
    assert F.record_attribution(make_record()) is None
    assert [f.mode for f in F.all_rung_figures(both)] == ["graph"]
