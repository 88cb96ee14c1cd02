"""run --attribute on CPU: the raw CUPTI records of a stored, H200-shaped
fixture (tests/records/make_attribution.py) reduced to per-stage figures,
escapes caught, the report and timeline against golden output, the record
round trip, and the missing-extra error before any GPU work.

Covers graphbench/cli/attribution.py.
Covers graphbench/record/trace.py.
Covers graphbench/report/timeline.py."""

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from tests_helpers import iteration_kernels, kernel_trace, record_with_trace, trace_attribution

import graphbench.stats.attribution as A
import graphbench.stats.stage_figures as F
from graphbench.stats.attribution import capture_escapes
from graphbench.stats.stage_figures import all_rung_figures, rung_figures, timelines
from graphbench.cli import main
from graphbench.stats.attribution import escape_checks
from graphbench.record.codec import read_run, write_record
from graphbench.record.model import Check
from graphbench.report.attribution import attribution_report, stage_names, timeline_text
from graphbench.report.tables import to_text
from graphbench.report.timeline import svg_timeline

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "records" / "attribution.json"
GOLDEN = HERE / "golden" / "attribution"


@pytest.fixture(scope="module")
def record():
    return read_run(FIXTURE)


def figures(record, mode):
    return rung_figures(record, mode)


def without(record, mode, name):
    """The record with `mode`'s replay missing every `name` kernel (an escape)."""
    run = record.runs[0]
    trace = run.attribution.rungs[mode]
    kept = replace(trace, kernels=tuple(k for k in trace.kernels if k.name != name))
    attribution = replace(run.attribution, rungs={**run.attribution.rungs, mode: kept})
    return replace(record, runs=(replace(run, attribution=attribution),))


def test_graph_rung_per_stage_times_gaps_and_shares(record):
    graph = figures(record, "graph")
    assert [s.kernels for s in graph.stages] == [("vec_add",), ("vec_mul",), ("vec_sub",)]
    assert [s.gpu_us for s in graph.stages] == pytest.approx([0.96, 0.96, 1.06])
    assert [s.gap_us for s in graph.stages] == pytest.approx([3.0, 0.13, 0.13])
    assert graph.period_us == pytest.approx(6.24)
    assert graph.stages[2].share == pytest.approx(1.06 / 6.24)
    assert graph.kernels_per_iteration == 3 and graph.expected_kernels == 3
    assert graph.escape is None


def test_eager_gaps_and_cross_check(record):
    eager = figures(record, "individual")
    assert [s.gap_us for s in eager.stages] == pytest.approx([5.8] * 3)
    for found in all_rung_figures(record):  # stages + gaps (+ loop - overlap) = the period
        assert found.accounted_us == pytest.approx(found.period_us)


def test_pdl_overlap_is_reported_not_a_negative_gap(record):
    pdl = figures(record, "graph-pdl")
    assert [s.overlap_us for s in pdl.stages] == pytest.approx([0.0, 0.25, 0.25])
    assert min(s.gap_us for s in pdl.stages) == 0


def test_loop_conditional_cost(record):
    loop = figures(record, "loop")
    assert loop.loop_us == pytest.approx(0.2 + 1.0 + 3.0)  # before, loop_count, after
    assert loop.stages[0].gap_us is None  # its idle is the conditional's
    assert loop.kernels_per_iteration == 3


def once_per_launch(record, mode):
    """`mode`'s trace as CUPTI gave it on the H200 for the device loop: each
    body kernel once per graph launch, not once per iteration."""
    run = record.runs[0]
    trace = run.attribution.rungs[mode]
    seen, kept = set(), []
    for k in trace.kernels:
        if (k.batch, k.name) not in seen:
            seen.add((k.batch, k.name))
            kept.append(k)
    attribution = replace(run.attribution, rungs={**run.attribution.rungs,
                                                  mode: replace(trace, kernels=tuple(kept))})
    return replace(record, runs=(replace(run, attribution=attribution),))


def test_a_loop_body_traced_once_per_launch_is_no_escape(record):
    sparse = once_per_launch(record, "loop")
    assert len(sparse.runs[0].attribution.rungs["loop"].kernels) < \
        len(record.runs[0].attribution.rungs["loop"].kernels)
    assert figures(sparse, "loop").escape is None  # the report and the checks agree
    assert "loop" not in capture_escapes(sparse.runs[0].attribution)


def test_a_loop_body_traced_once_per_launch_gets_its_conditional_cost_from_device_time(record):
    import statistics

    sparse = once_per_launch(record, "loop")
    loop = figures(sparse, "loop")
    trace = sparse.runs[0].attribution.rungs["loop"]
    body = {}
    for k in trace.kernels:
        if k.name.startswith("vec_"):
            body.setdefault(k.name, []).append((k.end_ns - k.start_ns) / 1000)
    expected = statistics.median(sparse.samples("loop", "device")) - sum(
        statistics.median(v) for v in body.values())
    assert loop.loop_from_events and loop.loop_us == pytest.approx(expected)
    device = statistics.median(sparse.samples("loop", "device"))
    names = ["vec_add", "vec_mul", "vec_sub"]
    assert [s.kernels for s in loop.stages] == [(n,) for n in names]  # from the listed iteration
    assert [s.gpu_us for s in loop.stages] == pytest.approx(
        [statistics.median(body[n]) for n in names])
    assert all(s.gap_us is None for s in loop.stages)  # its gaps are the conditional's
    assert [s.share for s in loop.stages] == pytest.approx(
        [statistics.median(body[n]) / device for n in names])
    assert loop.iterations == len({k.batch for k in trace.kernels})  # one listed per launch
    text = to_text(attribution_report(sparse), width=200)
    assert f"loop conditional: {loop.loop_us:.2f} us per iteration (the loop's device time" in text
    assert not figures(record, "loop").loop_from_events  # a full trace: from the trace itself


def with_loop_device(record, values):
    run = record.runs[0]
    loop = replace(run.modes["loop"], device_us=tuple(values))
    return replace(record, runs=(replace(run, modes={**run.modes, "loop": loop}),))


def test_a_sparse_loop_trace_numbers_its_stages_and_survives_odd_device_times(record):
    from graphbench.stats.stage_figures import loop_cost

    sparse = once_per_launch(record, "loop")
    assert [s.index for s in figures(sparse, "loop").stages] == [1, 2, 3]
    zero = figures(with_loop_device(sparse, [0.0] * 5), "loop")
    assert [s.share for s in zero.stages] == [0.0, 0.0, 0.0]  # no device time: no share
    attribution = sparse.runs[0].attribution
    assert loop_cost(with_loop_device(sparse, []), attribution, "loop",
                     set(attribution.harness_kernels)) is None
    untimed = figures(with_loop_device(sparse, []), "loop")
    assert untimed.loop_us is None and [s.share for s in untimed.stages] == [0.0] * 3
    short = figures(with_loop_device(sparse, [0.5] * 5), "loop")  # shorter than a microsecond
    assert [s.share for s in short.stages] == pytest.approx([s.gpu_us / 0.5 for s in short.stages])
    assert all(s.overlap_us == 0.0 for s in short.stages)  # no overlap is claimed


def test_a_loop_batch_that_does_not_cut_into_iterations_gives_no_stage_times(record):
    sparse = once_per_launch(record, "loop")
    run = sparse.runs[0]
    trace = run.attribution.rungs["loop"]
    dropped = next(k for k in trace.kernels if k.name == "vec_mul")  # one batch loses a kernel
    cut = replace(trace, kernels=tuple(k for k in trace.kernels if k is not dropped))
    attribution = replace(run.attribution, rungs={**run.attribution.rungs, "loop": cut})
    odd = replace(sparse, runs=(replace(run, attribution=attribution),))
    loop = figures(odd, "loop")
    assert loop.stages == () and loop.loop_from_events  # the cost is still measured
    assert "no per-stage figures" in to_text(attribution_report(odd), width=200)


def test_a_loop_body_lacking_a_kernel_is_an_escape_in_the_figures_and_the_checks(record):
    sparse = without(once_per_launch(record, "loop"), "loop", "vec_mul")
    assert figures(sparse, "loop").escape.missing == (("vec_mul", 1.0),)
    assert capture_escapes(sparse.runs[0].attribution)["loop"].missing == (("vec_mul", 1.0),)


def test_inflation_is_kept(record):
    graph = figures(record, "graph")
    assert (graph.untraced_wall_us, graph.traced_wall_us) == pytest.approx((6.2, 8.06))


def test_a_graph_rung_missing_a_kernel_is_an_escape_naming_it(record):
    escaped = without(record, "graph", "vec_sub").runs[0].attribution
    found = capture_escapes(escaped)
    assert list(found) == ["graph"] and found["graph"].missing == (("vec_sub", 1.0),)
    checks = escape_checks(escaped)
    assert len(checks) == 1 and not checks[0].passed
    assert "graph: capture escape: replay lacks vec_sub" == checks[0].name
    assert capture_escapes(without(record, "individual", "vec_sub").runs[0].attribution) == {}


def test_an_escaped_rung_still_reports_counts(record):
    graph = figures(without(record, "graph", "vec_sub"), "graph")
    assert graph.kernels_per_iteration == 2 and graph.stages == ()
    assert "CAPTURE ESCAPE: replay lacks vec_sub" in to_text(
        attribution_report(without(record, "graph", "vec_sub")), width=100)


def test_report_and_timeline_match_golden(record):
    assert to_text(attribution_report(record), width=100) == \
        (GOLDEN / "report.txt").read_text()
    assert svg_timeline(timelines(record), stage_names(record)) == \
        (GOLDEN / "timeline.svg").read_text()


def test_terminal_timeline_scales_to_the_width(record):
    for width in (60, 100):
        lines = timeline_text(timelines(record), width).plain.splitlines()[1:]
        assert max(len(line) for line in lines) <= width


def test_record_round_trips_through_the_codec(record, tmp_path):
    path = write_record(tmp_path / "again.json", record)
    assert read_run(path) == record


def test_report_command_shows_the_trace_and_writes_the_timeline(tmp_path, capsys):
    svg = tmp_path / "t.svg"
    assert main(["report", str(FIXTURE), "--timeline", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "loop conditional" in out and "one iteration per rung" in out
    assert svg.read_text() == (GOLDEN / "timeline.svg").read_text()
    assert main(["report", str(HERE / "records" / "baseline.json"), "--timeline",
                 str(svg)]) == 2


def test_attribute_without_cupti_exits_2_before_any_gpu_work(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "cupti", None)  # import cupti fails
    import graphbench.measure.session as session

    monkeypatch.setattr(session, "open_device", lambda *a: pytest.fail("GPU work started"))
    assert main(["run", "--attribute", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'pip install ".[cupti]" in the graphbench checkout' in err[0]
    assert "--attribute" in err[0]


def test_timeline_needs_attribute_and_a_known_suffix(tmp_path, capsys):
    assert main(["run", "--timeline", str(tmp_path / "t.svg")]) == 2
    assert "add --attribute" in capsys.readouterr().err
    assert main(["run", "--attribute", "--timeline", str(tmp_path / "t.pdf")]) == 2
    assert ".svg or .png" in capsys.readouterr().err


def placed(found):
    return [[(p.stage, p.kernel.name, p.gap_ns, p.after_loop) for p in it] for it in found]


def test_expected_stages_sort_each_stages_kernels_by_launch():
    found = A.expected_stages(trace_attribution({}), "stages")
    assert found == [("a", ("k1",)), ("b", ("k2", "k3"))]
    assert A.expected_stages(trace_attribution({}), "fused") == []


def test_escape_counts_per_iteration_and_its_text():
    body = iteration_kernels() + iteration_kernels()
    short = [k for k in body if k[0] != "k3"][:-1] + [("k3", 100, 10)] + \
        [("k9", 5, 5), ("k9", 5, 5), ("loop_count", 5, 5), ("k2", 5, 5), ("k2", 5, 5)]
    found = A.escape_of(trace_attribution({}), kernel_trace([body, short], 2))
    # 4 iterations: k3 ran 3 times (one short), k2 5 times, k9 twice
    assert found.missing == (("k3", 0.25),)
    assert found.extra == (("k2", 0.25), ("k9", 0.5))
    assert found.extra_us == (1.0, 0.005)  # each added kernel's median time per launch
    assert found.text() == ("replay lacks k3 x0.25; replay adds k2 x0.25 (1.00 us each), "
                            "k9 x0.5 (0.01 us each)")
    assert A.escape_of(trace_attribution({}), kernel_trace([body, body], 2)) is None
    assert A.escape_of(trace_attribution({}), kernel_trace([body], 2, workload="fused")) is None


def test_escape_text_of_one_side_and_whole_counts():
    assert A.Escape((("k3", 1.0),), ()).text() == "replay lacks k3"
    assert A.Escape((), (("k9", 2.0), ("k8", 1.0))).text() == "replay adds k9 x2, k8"
    assert A.Escape((("a", 1.0), ("b", 0.5)), (("c", 1.0),)).text() == \
        "replay lacks a, b x0.5; replay adds c"


def test_a_trace_of_no_whole_batches_counts_as_one_run():
    once = kernel_trace([iteration_kernels()], 0)  # no iterations per batch known: one run
    assert A.escape_of(trace_attribution({}), once) is None
    found = F.rung_figures(record_with_trace({"graph": once}), "graph")
    assert found.kernels_per_iteration == 3.0 and found.iterations == 0


def test_loop_escapes_go_by_name_only():
    # CUPTI reports the loop's body once per launch: counts say nothing there
    once = kernel_trace([[("loop_count", 10, 10)] + iteration_kernels()], 8)
    rungs = {"loop": once, "graph": kernel_trace([iteration_kernels() * 8], 8)}
    assert A.capture_escapes(trace_attribution(rungs)) == {}
    assert A.escape_of(trace_attribution(rungs), once) is not None  # by count it would be one
    odd = kernel_trace([[("loop_count", 10, 10), ("k1", 1, 1), ("k9", 1, 1), ("k2", 1, 1)]], 8)
    found = A.capture_escapes(trace_attribution({"loop": odd, "graph": kernel_trace([iteration_kernels()], 1)}))
    assert found == {"loop": A.Escape((("k3", 1.0),), (("k9", 1.0),), (0.001,))}
    assert A.loop_escape_of(trace_attribution({}), kernel_trace([[("k9", 1, 1)]], 1, workload="x")) is None
    missing_only = kernel_trace([[("k1", 1, 1), ("k2", 1, 1)]], 1)
    assert A.loop_escape_of(trace_attribution({}), missing_only) == A.Escape((("k3", 1.0),), ())
    extra_only = kernel_trace([iteration_kernels() + [("k7", 1, 1), ("k0", 1, 1)]], 1)
    assert A.loop_escape_of(trace_attribution({}), extra_only) == A.Escape(
        (), (("k0", 1.0), ("k7", 1.0)), (0.001, 0.001))


def test_a_graph_rung_that_runs_its_kernels_twice_escapes_by_count():
    twice = kernel_trace([iteration_kernels() * 2], 1)
    found = A.capture_escapes(trace_attribution({"graph": twice, "loop": twice}))
    assert found == {"graph": A.Escape((), (("k1", 1.0), ("k2", 1.0), ("k3", 1.0)),
                                       (1.0, 1.0, 1.0))}


def test_kernels_a_replay_adds_are_shown_with_their_times_and_fail_nothing():
    """Under capture a library may pick another kernel sequence (an fp16
    attention chain's replay added memcpy32_post on the H200): a difference
    to show, not an escape. Only kernels the replay lacks fail the run."""
    from graphbench.report.attribution import rung_lines
    from graphbench.report.tables import to_text

    added = kernel_trace([iteration_kernels() + [("memcpy32_post", 1, 2000)]], 1)
    attribution = trace_attribution({"graph": added})
    assert A.escape_checks(attribution) == []
    escape = A.capture_escapes(attribution)["graph"]
    assert not escape.fails and escape.extra == (("memcpy32_post", 1.0),)
    record = record_with_trace({"graph": added})
    text = to_text(rung_lines(record, F.rung_figures(record, "graph")))
    assert "replay adds memcpy32_post (2.00 us each)" in text and "CAPTURE ESCAPE" not in text
    lacking = kernel_trace([[k for k in iteration_kernels() if k[0] != "k2"]], 1)
    checks = A.escape_checks(trace_attribution({"graph": lacking}))
    assert [c.name for c in checks] == ["graph: capture escape: replay lacks k2"]
    assert not checks[0].passed


def test_capture_escapes_only_on_graph_rungs():
    bad = kernel_trace([[("k1", 1, 1)]], 1)
    rungs = {"individual": bad, "driver": bad, "custom": bad, "graph": bad, "unrolled": bad}
    found = A.capture_escapes(trace_attribution(rungs))
    assert list(found) == ["graph", "unrolled"]
    assert found["graph"] == A.Escape((("k2", 1.0), ("k3", 1.0)), ())


def test_iterations_split_batches_and_place_kernels_in_order():
    seq = [("k1", 0, 10), ("k2", 5, 10), ("loop_count", 7, 3), ("k3", 2, 10),
           ("k1", 4, 10), ("k2", 0, 10), ("k3", 1, 10), ("loop_count", 6, 3)]
    found = A.iterations(trace_attribution({}), kernel_trace([seq], 2))
    assert placed(found) == [
        [(0, "k1", None, False), (1, "k2", 5, False), (-1, "loop_count", 7, False),
         (1, "k3", 2, True)],
        [(0, "k1", 4, False), (1, "k2", 0, False), (1, "k3", 1, False),
         (-1, "loop_count", 6, False)]]
    assert A.iterations(trace_attribution({}), kernel_trace([seq[:-2]], 2)) == []  # not whole iterations
    assert A.iterations(trace_attribution({}, stages=()), kernel_trace([seq], 2)) == []


def test_iterations_of_an_even_plan_split_every_plan_length():
    stages = (("a", ("k1",)), ("b", ("k2",)))
    seq = [("k1", 1, 1), ("k2", 1, 1)] * 3
    found = A.iterations(trace_attribution({}, stages), kernel_trace([seq], 3))
    assert [[p.kernel.name for p in it] for it in found] == [["k1", "k2"]] * 3
    assert [[p.stage for p in it] for it in found] == [[0, 1]] * 3


def test_kernels_out_of_order_are_placed_by_name():
    seq = [("k2", 1, 1), ("loop_count", 2, 1), ("k1", 3, 1), ("k3", 4, 1)]
    (found,) = A.iterations(trace_attribution({}), kernel_trace([seq], 1))
    assert [(p.stage, p.kernel.name, p.gap_ns, p.after_loop) for p in found] == [
        (1, "k2", None, False), (-1, "loop_count", 2, False), (0, "k1", 3, True),
        (1, "k3", 4, False)]
    assert [p.kernel for p in found] == list(kernel_trace([seq], 1).kernels)


def test_repeated_names_take_the_earliest_unplaced_kernel():
    stages = (("a", ("k1",)), ("b", ("k1",)), ("c", ("k2",)))
    seq = [("k2", 1, 1), ("k1", 2, 1), ("k1", 3, 1)]
    (found,) = A.iterations(trace_attribution({}, stages), kernel_trace([seq], 1))
    assert [(p.stage, p.gap_ns) for p in found] == [(2, None), (0, 2), (1, 3)]


def test_an_unknown_kernel_keeps_the_first_stage():
    seq = [("k1", 1, 1), ("k9", 2, 1), ("k3", 3, 1)]
    (found,) = A.iterations(trace_attribution({}), kernel_trace([seq], 1))
    assert [(p.stage, p.kernel.name) for p in found] == [(0, "k1"), (0, "k9"), (1, "k3")]


def test_one_flush_per_rung_puts_each_record_in_the_batch_whose_clock_window_holds_it(
        monkeypatch):
    """A forced flush per batch made CUPTI ask for a new buffer inside every
    batch (80 us per iteration on the H200); the records are split by CUPTI's
    clock instead, and a warm-up batch's records (outside every window) dropped."""
    from types import SimpleNamespace

    from graphbench.measure import attribution as M

    tracer = object.__new__(M.Tracer)
    tracer.cupti = SimpleNamespace(activity_flush_all=lambda flag: None)
    monkeypatch.setattr(M, "_SINK", [("warm", 5, 6, 0, 0, 1, 7), ("k1", 10, 11, 0, 0, 2, 7),
                                     ("k2", 12, 14, 0, 0, 3, 7), ("k1", 30, 31, 0, 0, 4, 7),
                                     ("late", 99, 100, 0, 0, 5, 7)])
    found = tracer.take_batches([(9, 20), (25, 40)])
    assert [(k.name, k.batch) for k in found] == [("k1", 0), ("k2", 0), ("k1", 1)]
    assert M._SINK == []


def test_the_report_says_which_process_took_the_trace(record):
    """A record without the field was traced in the measuring process."""
    from graphbench.record.trace import FRESH

    assert record.runs[0].attribution.process == "measuring"
    measuring = to_text(attribution_report(record), width=120)
    assert "traced in the measuring process, after its timed rounds" in measuring
    run = record.runs[0]
    fresh = replace(record, runs=(replace(run, attribution=replace(run.attribution,
                                                                   process=FRESH)),))
    text = to_text(attribution_report(fresh), width=120)
    assert "traced in a fresh process: the same config, seed and inputs" in text
    assert "measuring process" not in text


def test_every_rung_lacking_a_kernel_is_one_failed_check_counting_what_it_lacks(record):
    """A replay that only adds a kernel fails no check; one that lacks one fails a check
    whose counts are its stages' kernels and the kernels missing per iteration."""
    run = record.runs[0]
    graph = run.attribution.rungs["graph"]
    added = replace(graph, kernels=graph.kernels + tuple(
        replace(k, name="extra_copy") for k in graph.kernels if k.name == "vec_add"))
    attribution = replace(run.attribution, rungs={**run.attribution.rungs, "graph": added})
    both = without(replace(record, runs=(replace(run, attribution=attribution),)),
                   "graph-pdl", "vec_sub_pdl").runs[0].attribution
    assert list(capture_escapes(both)) == ["graph", "graph-pdl"]
    assert escape_checks(both) == [Check("graph-pdl: capture escape: replay lacks vec_sub_pdl",
                                         False, 3, 1, None, None)]
