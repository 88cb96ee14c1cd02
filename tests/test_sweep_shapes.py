"""--grid and --block as sweep axes (issue 22, item 6) on CPU: parsing and
refusal before any GPU work, how points cross, the shape column of the
report and the chart's series per shape, and that a sweep of one shape
(every sweep record before these axes) reads and renders as before."""

import dataclasses
from pathlib import Path

import pytest

from conftest import synthetic_point

from graphbench.cli import main
from graphbench.cli.commands import sweep_config
from graphbench.cli.parser import build_parser
from graphbench.config import SweepConfig
from graphbench.errors import ConfigError
from graphbench.measure.sweep import run_sweep
from graphbench.record.codec import read_record, write_record
from graphbench.report.chart import sweep_panels
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


@pytest.mark.parametrize("argv, words", [
    (["--grid", "0"], "--grid: grid 0 must be from 1"),
    (["--grid", "auto,lots"], "is not auto, a block count or N/sm"),
    (["--block", "2048"], "1 to 1024 threads"),
    (["--grid", "auto,1056", "--block", "128,256", "--elements", "2^1..2^24",
      "--depth", "1..1024"], "--grid and --block make 1,056 points")])
def test_bad_sweep_shapes_are_refused_before_any_gpu_work(argv, words, capsys):
    assert main(["sweep", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "driver" not in err


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
