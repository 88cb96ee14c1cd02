"""--grid and --block as sweep axes on CPU: parsing and
refusal before any GPU work, how points cross, the shape column of the
report and the chart's series per shape, and that a sweep of one shape
(every sweep record before these axes) reads and renders as before.

Covers graphbench/report/shapes.py."""

import dataclasses
from pathlib import Path

import pytest

from conftest import synthetic_point
from tests_helpers import scaled_busy, short_error

from graphbench.cli import main
from graphbench.cli.commands import sweep_config
from graphbench.cli.parser import build_parser
from graphbench.config import SweepConfig
from graphbench.errors import ConfigError
from graphbench.measure.sweep import run_sweep
from graphbench.record.codec import read_record, write_record
from graphbench.report.chart import sweep_panels
from graphbench.report.shapes import default_against_per_element
from graphbench.report.sweep import crossover_rows, sweep_markdown, sweep_report, sweep_rows
from graphbench.report.tables import to_text

RECORDS = Path(__file__).resolve().parent / "records"


def shaped_point(config):
    """synthetic_point, its record keeping the point's launch shape, as
    run_benchmark's does."""
    record = synthetic_point(config)
    record = dataclasses.replace(record, config=dataclasses.replace(
        record.config, grid=config.grid, block=config.block))
    return record


def shape_sweep(**changes):
    config = SweepConfig(elements=(4096, 65536, 2**20), depths=(1, 4),
                         grids=("auto", "1056"), blocks=(None,), **changes)
    return run_sweep(config, shaped_point)


def test_sweep_parses_grid_and_block_axes():
    args = build_parser().parse_args(["sweep", "--grid", "auto,1056,8x", "--block", "128,256"])
    config = sweep_config(args)
    assert config.grids == ("auto", "1056", "8/sm") and config.blocks == (128, 256)
    assert config.base.grid == "auto" and config.base.block is None
    default = sweep_config(build_parser().parse_args(["sweep"]))
    assert default.grids == ("auto",) and default.blocks == (None,)
    named = sweep_config(build_parser().parse_args(["sweep", "--grid", "auto,PER-ELEMENT"]))
    assert named.grids == ("auto", "per-element")
    assert {p.grid for p in named.points()} == {"auto", "per-element"}


@pytest.mark.parametrize("argv, words", [
    (["--grid", "0"], "--grid 0 must be from 1"),
    (["--grid", "auto,lots"], "is not auto, per-element, a block count or N/sm"),
    (["--grid", "auto,per-elemnt"], "'per-elemnt' is not auto, per-element"),
    (["--grid", "per-element", "--block", "1", "--elements", "2^12,2^32", "--depth", "1"],
     "--grid per-element at 4,294,967,296 elements needs 4,294,967,296 blocks of 1"),
    (["--block", "2048"], "1 to 1024 threads"),
    (["--grid", "auto,1056", "--block", "128,256", "--elements", "2^1..2^24",
      "--depth", "1..1024"], "--grid and --block make 1,056 points")])
def test_bad_sweep_shapes_are_refused_before_any_gpu_work(argv, words, capsys):
    assert main(["sweep", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "driver" not in err
    assert "Traceback" not in err and short_error(err)


def test_library_sweep_config_checks_and_normalizes_shapes():
    assert SweepConfig(grids=("8x", "8/sm", "auto")).grids == ("8/sm", "auto")
    with pytest.raises(ConfigError):
        SweepConfig(blocks=(4096,))
    with pytest.raises(ConfigError, match="empty"):
        SweepConfig(grids=())


def test_points_cross_shapes_with_elements_and_depths():
    config = SweepConfig(elements=(4096, 65536), depths=(1, 4), grids=("auto", "1056"),
                         blocks=(None, 128))
    points = config.points()
    assert len(points) == 2 * 2 * 4 == len({(p.elements, p.depth, p.grid, p.block)
                                            for p in points})
    assert [(p.grid, p.block) for p in points[:4]] == [("auto", None)] * 4  # shapes outermost
    assert config.shapes == [("auto", None), ("1056", None), ("auto", 128), ("1056", 128)]
    one = SweepConfig(elements=(4096, 65536), depths=(1, 4))
    assert [(p.elements, p.depth) for p in one.points()] == [
        (4096, 1), (65536, 1), (4096, 4), (65536, 4)]  # the order it always had


def test_report_shows_a_shape_column_per_table_and_a_series_per_shape():
    sweep = shape_sweep()
    assert len(sweep.points) == 12 and sweep.complete
    columns, rows = sweep_rows(sweep)
    assert columns[0] == "shape" and len(rows) == 6
    assert {r[0] for r in rows} == {"grid auto x block 256", "grid 1056 x block 256"}
    columns, rows = crossover_rows(sweep)
    assert columns[:2] == ["shape", "depth"]
    assert {(r[0], r[1]) for r in rows} == {(s, d) for s in ("grid auto x block 256",
                                                              "grid 1056 x block 256")
                                            for d in ("1", "4")}
    labels = [s.label for s in sweep_panels(sweep)[0].series]
    assert labels == ["d1 autox256", "d4 autox256", "d1 1056x256", "d4 1056x256"]
    text = to_text(sweep_report(sweep), width=140)
    assert "12 of 12 points" in text and "grid 1056 x block 256" in text
    assert "| shape |" in sweep_markdown(sweep)


def test_a_shape_sweep_round_trips(tmp_path):
    sweep = shape_sweep()
    again = read_record(write_record(tmp_path / "s.json", sweep))
    assert again == sweep and again.config.grids == ("auto", "1056")
    assert again.point(4096, 1, ("1056", None)).config.grid == "1056"


def test_a_sweep_of_one_shape_has_no_shape_column():
    old = read_record(RECORDS / "sweep.json")
    assert old.config.grids == ("auto",) and old.config.blocks == (None,)
    assert "shape" not in sweep_rows(old)[0] and "shape" not in crossover_rows(old)[0]
    assert [s.label for s in sweep_panels(old)[0].series][0].startswith("depth ")


H200_SMS = 132


def sample_shape_point(config, per_element_busy=1.055):
    """A point as the H200 launches it: auto caps at 32 blocks per SM, per-
    element does not; where their grids differ, per-element's stage kernels
    take `per_element_busy` times auto's busy time (nvbench's 182-184 us
    against graphbench's 173.5 at 2^24)."""
    record = shaped_point(config)
    block = config.block or 256
    blocks = -(-config.elements // block)
    if config.grid == "auto":
        blocks = min(blocks, 32 * H200_SMS)
    record = dataclasses.replace(record, pipeline=dataclasses.replace(
        record.pipeline, grid=(blocks, 1, 1), block=(block, 1, 1)))
    if config.grid == "per-element" and blocks > 32 * H200_SMS:
        record = scaled_busy(record, per_element_busy)
    return record


def auto_against_per_element(elements=(2**20, 2**24), depths=(1,), factor=1.055):
    config = SweepConfig(elements=elements, depths=depths, grids=("auto", "per-element"))
    return run_sweep(config, lambda c: sample_shape_point(c, factor))


def test_a_sweep_of_auto_and_per_element_states_the_busy_difference_where_grids_differ():
    sweep = auto_against_per_element()
    lines = default_against_per_element(sweep.points)
    # 1 - 1/1.055: auto's busy is 5.2% less; at 2^20 both launch 4,096 blocks
    assert len(lines) == 2
    assert lines[0].startswith("auto takes 5.2% less GPU busy time than per-element at 2^24 "
                               "elements: 3.00 vs 3.1")
    assert lines[0].endswith(" us per iteration (4,224 vs 65,536 blocks)")
    assert lines[1] == "at 1 other point the two launched the same grid (auto's cap of 32 " \
                       "blocks per SM not reached)"
    text = to_text(sweep_report(sweep), width=200)
    assert lines[0] in text and lines[1] in text
    assert f"- {lines[0]}" in sweep_markdown(sweep)


def test_the_difference_says_more_when_auto_is_slower_and_names_depths():
    sweep = auto_against_per_element(elements=(2**22, 2**24), depths=(1, 4), factor=0.9)
    lines = default_against_per_element(sweep.points)
    assert len(lines) == 4 and all("11.1% more GPU busy time" in line for line in lines)
    assert [line.split(" at ")[1].split(":")[0] for line in lines] == [
        "2^22 elements, depth 1", "2^24 elements, depth 1", "2^22 elements, depth 4",
        "2^24 elements, depth 4"]


def test_the_difference_says_when_the_two_launched_one_grid_everywhere():
    sweep = auto_against_per_element(elements=(4096, 2**20))
    assert default_against_per_element(sweep.points) == [
        "auto and per-element launched the same grid at every point both ran: auto's cap of "
        "32 blocks per SM was not reached, so they are one workload"]


def test_sweeps_without_both_shapes_state_no_difference():
    assert default_against_per_element(shape_sweep().points) == []  # auto and 1056
    old = read_record(RECORDS / "sweep.json")
    assert default_against_per_element(old.points) == []
    assert "per-element" not in to_text(sweep_report(old), width=140)
    assert "per-element" not in sweep_markdown(old)
