"""Covers graphbench/measure/repoint.py."""

import pytest
from conftest import make_record
from test_stopping import late_shift

import dataclasses

from graphbench.stats.derived import break_even_iterations, cache_state, time_breakdown
from graphbench.stats.summary import summarize_run
from graphbench.measure.repoint import chain_order
from graphbench.config import DEFAULT_STAGES
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.measure.verify import untouched
from graphbench.report.run import run_report
from graphbench.report.tables import to_text

import numpy as np


def test_break_even_is_build_cost_over_saving_per_iteration():
    assert break_even_iterations(80.0, 14.0, 4.0) == pytest.approx(8.0)
    assert break_even_iterations(80.0, 4.0, 4.0) is None   # replay saves nothing
    assert break_even_iterations(80.0, 4.0, 5.0) is None   # replay is slower


def test_working_set_counts_each_vector_once():
    def size(stages, depth):
        return plan(load_pipeline(None, depth, stages).spec, 4096).buffer_bytes

    assert size(DEFAULT_STAGES, 1) == 6 * 4096 * 4  # a, b, c, r1, r2, r3
    assert size(DEFAULT_STAGES, 4) == 15 * 4096 * 4  # a, b, c, r1..r12
    assert size(("add",), 1) == 4 * 4096 * 4  # a, b, c (all inputs are buffers), r1


def test_records_without_a_working_set_are_read_with_the_built_in_pipeline_files(tmp_path):
    import dataclasses

    from conftest import make_record
    from graphbench.record.codec import read_run, write_record

    record = make_record(depth=4)
    record = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, working_set_bytes=None))
    assert read_run(write_record(tmp_path / "old.json", record)).pipeline.working_set_bytes \
        == 15 * 4096 * 4


def test_a_pipeline_file_record_without_its_working_set_is_refused(tmp_path):
    import dataclasses

    from conftest import make_record
    from graphbench.errors import RecordError
    from graphbench.record.codec import read_run, write_record

    record = make_record()
    record = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, working_set_bytes=None, file="softmax"))
    with pytest.raises(RecordError, match="working_set_bytes"):
        read_run(write_record(tmp_path / "edited.json", record))


def test_cache_state_marks_l2_residency_and_flush():
    size = 6 * 4 * 4096
    assert cache_state(size, 60 * 2**20, False).l2_resident is True
    assert cache_state(size * 4096, 60 * 2**20, False).l2_resident is False
    assert cache_state(size, 60 * 2**20, True).l2_resident is False
    assert cache_state(size, None, False).l2_resident is None


def test_breakdown_splits_wall_into_busy_and_idle():
    row = time_breakdown(wall_us=14.0, round_submit_us=13.5, device_us=13.9, busy_us=3.0,
                         launches=3)
    assert row.submit_per_launch_us == pytest.approx(4.5)
    assert row.idle_gap_us == pytest.approx(11.0) and row.launch_bound is True
    gpu = time_breakdown(wall_us=180.0, round_submit_us=170.0, device_us=179.0, busy_us=178.0,
                         launches=1)
    assert gpu.launch_bound is False


def test_bound_label_compares_the_held_submit_with_busy_time():
    # graph at 4096 elements on the H200: wall 6.33, busy 3.38; the host needs
    # 4 us to enqueue a replay, more than the GPU needs to run it: launch-bound,
    # although wall > 2 x busy does not hold
    graph = time_breakdown(wall_us=6.33, round_submit_us=6.2, device_us=6.3, busy_us=3.38,
                           launches=1, held_submit_us=4.0)
    assert graph.launch_bound is True and graph.submit_per_launch_us == 4.0
    big = time_breakdown(wall_us=175.0, round_submit_us=172.7, device_us=175.0, busy_us=174.4,
                         launches=1, held_submit_us=4.5)
    assert big.launch_bound is False


def test_back_pressure_is_a_round_enqueue_far_above_the_held_figure():
    # 2^24 elements: each round's enqueue waited for the GPU (172.7 us per launch)
    big = time_breakdown(wall_us=175.0, round_submit_us=172.7, device_us=175.0, busy_us=174.4,
                         launches=1, held_submit_us=4.5)
    assert big.back_pressured is True
    small = time_breakdown(wall_us=6.33, round_submit_us=5.0, device_us=6.3, busy_us=3.38,
                           launches=1, held_submit_us=4.0)
    assert small.back_pressured is False
    old = time_breakdown(wall_us=6.33, round_submit_us=6.2, device_us=6.3, busy_us=3.38, launches=1)
    assert old.back_pressured is None  # a record without the held probe cannot tell


def test_chain_order_follows_the_edges():
    assert chain_order({"c", "a", "b"}, {("b", "c"), ("a", "b")}) == ["a", "b", "c"]
    assert chain_order({"x"}, set()) == ["x"]
    with pytest.raises(ValueError):
        chain_order({"a", "b", "c"}, {("a", "b"), ("a", "c")})


def test_untouched_finds_the_first_written_element():
    arrays = [np.full(4, np.nan, dtype=np.float32), np.full(4, np.nan, dtype=np.float32)]
    assert untouched("old", arrays).passed
    arrays[1][2] = 1.0
    check = untouched("old", arrays)
    assert not check.passed and check.first_bad_index == 6 and check.bad_elements == 1


def test_summary_derives_the_extras_from_their_samples(record):
    summary = summarize_run(record)
    assert summary.noise is not None
    assert summary.launch_floor.kernel_launch_us.median == pytest.approx(4.1)
    assert summary.lifecycle.first_launch_us.n == 3
    assert summary.lifecycle.build_us == pytest.approx(80.0)  # capture + instantiate + upload
    wall = {m: summary.modes[m].wall.median for m in ("individual", "graph")}
    assert summary.lifecycle.break_even_iterations == pytest.approx(
        80.0 / (wall["individual"] - wall["graph"]))
    assert summary.update.node_update_us.median == 6.0
    assert set(summary.breakdown) == {"individual", "graph", "fused"}
    assert summary.breakdown["individual"].launches_per_iteration == 3
    assert summary.cache.l2_resident is True
    assert summary.warnings == ()


def test_summary_lines_and_verbose_tables_render(record):
    plain = to_text(run_report(record), width=100)
    assert "graph build 80.0 us" in plain and "pays off after" in plain
    assert "where the time goes" not in plain
    verbose = to_text(run_report(record, verbose=True), width=100)
    assert "where the time goes" in verbose and "graph lifecycle: instantiate" in verbose
    assert max(len(line) for line in verbose.splitlines()) <= 100


def test_a_run_out_time_budget_is_said_once_with_its_cause():
    record = make_record(noise=0.05, rounds=30, max_noise=0.03)  # 6.4% spread, 1.7% drift
    record = dataclasses.replace(record, runs=(dataclasses.replace(record.runs[0],
                                                                   stop_reason="time-budget"),))
    text = to_text(run_report(record), width=200)
    assert text.count("time budget ran out") == 1 and "noise-target" not in text
    assert "the rounds' spread needs more of them (--max-time)" in text
    # a drifting run: its last quarter 5% slower, 1% spread (the outer thirds'
    # medians 4.2% apart, 2.4% beyond what the spread explains)
    quiet = make_record(noise=0.001, rounds=240)
    walls = tuple(14.0 * v for v in late_shift())
    run = dataclasses.replace(quiet.runs[0], stop_reason="time-budget")
    modes = {**run.modes, "individual": dataclasses.replace(run.modes["individual"],
                                                            wall_us=walls)}
    drifting = dataclasses.replace(quiet, runs=(dataclasses.replace(run, modes=modes),))
    text = to_text(run_report(drifting), width=200)
    assert "drifted 2.4% beyond their spread" in text and "--max-noise 3%" in text
