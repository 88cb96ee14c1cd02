"""--grid and --block (issue 22, item 6) on CPU: parsing, refusal of bad
shapes before any GPU work, which stages take a shape, per-shape files and
the shapes table."""

import argparse
import dataclasses

import pytest

from conftest import make_record

from graphbench.cli import main
from graphbench.cli.shapes import per_shape_path, shapes_of
from graphbench.config import RunConfig
from graphbench.errors import ConfigError
from graphbench.launch_shape import GridRule, normal_grid, with_launch_shape
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.report.shapes import shapes_table
from graphbench.report.tables import to_text
from graphbench.pipeline.spec import AUTO


@pytest.mark.parametrize("text, normal", [("auto", "auto"), ("1056", "1056"), ("8/sm", "8/sm"),
                                          ("8x", "8/sm"), (" AUTO ", "auto")])
def test_grid_forms(text, normal):
    assert normal_grid(text) == normal


@pytest.mark.parametrize("argv, words", [
    (["--grid", "0"], "--grid: grid 0 must be from 1"),
    (["--grid", "0/sm"], "blocks per SM"),
    (["--grid", "lots"], "is not auto, a block count or N/sm"),
    (["--block", "2048"], "block must be from 1 to 1024 threads"),
    (["--block", "0"], "--block must be a positive integer"),
    (["--block", "128,1025"], "1 to 1024 threads")])
def test_bad_shapes_are_refused_before_any_gpu_work(argv, words, capsys):
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "driver" not in err


def test_config_refuses_bad_shapes_from_the_library():
    with pytest.raises(ConfigError, match="1024"):
        RunConfig(block=4096)
    with pytest.raises(ConfigError):
        RunConfig(grid="0")
    assert RunConfig(grid="8x").grid == "8/sm"


def test_shape_applies_to_grid_stride_stages_only():
    built_in = plan(load_pipeline(None).spec, 2**20)
    shaped, count = with_launch_shape(built_in, "1056", 256)
    assert count == 4  # three stages and the fused one
    assert {s.grid for s in shaped.stages} == {GridRule(1056)}
    softmax = plan(load_pipeline("softmax").spec, 2**20)
    kept, count = with_launch_shape(softmax, "1056", 128)
    assert count == 0 and kept.stages == softmax.stages  # fixed grids keep their shape
    assert with_launch_shape(built_in) == (built_in, None)
    per_sm, _ = with_launch_shape(built_in, "8/sm", 512)
    assert per_sm.stages[0].grid.resolve(132) == 1056 and per_sm.stages[0].block == (512,)
    auto, _ = with_launch_shape(built_in, AUTO, 128)
    assert auto.stages[0].grid == AUTO and auto.stages[0].block == (128,)


def test_several_shapes_mean_several_runs_with_their_own_files():
    args = argparse.Namespace(grid=("auto", "1056"), block=(128, 256))
    assert shapes_of(args) == [("auto", 128), ("1056", 128), ("auto", 256), ("1056", 256)]
    assert per_shape_path("out.json", "1056", 256) == "out.block256.grid1056.json"
    assert per_shape_path("out.json", "8/sm", None) == "out.block256.grid8-sm.json"


def test_several_shapes_refuse_one_stream(capsys):
    assert main(["run", "--grid", "auto,1056", "--json", "-"]) == 2
    assert "several launch shapes" in capsys.readouterr().err


def test_shapes_table_shows_busy_graph_wall_and_speedup():
    records = [make_record(), dataclasses.replace(
        make_record(), config=dataclasses.replace(make_record().config, grid="1056", block=256))]
    text = to_text(shapes_table(records), width=120)
    assert "grid auto x block 256" in text and "grid 1056 x block 256" in text
    assert "graph speedup" in text and "GPU busy" in text


def test_shapes_table_without_attribution_says_per_stage_needs_attribute():
    text = to_text(shapes_table([make_record()]), width=120)
    assert "per-stage GPU time per shape needs --attribute" in text
    assert "stages GPU" not in text.split("needs")[0]


def test_shapes_table_with_attribution_shows_per_stage_gpu_time_per_shape():
    from pathlib import Path

    from graphbench.record.codec import read_record

    traced = read_record(Path(__file__).resolve().parent / "records" / "attribution.json")
    other = dataclasses.replace(traced, config=dataclasses.replace(traced.config, grid="1056"))
    text = to_text(shapes_table([traced, other, make_record()]), width=200)
    assert "graph stages GPU" in text and "individual stages GPU" in text
    # the fixture's graph kernels are 0.96/0.96/1.06 us, eager ones 0.90 each
    assert text.count("2.98 = 0.96/0.96/1.06") == 2 and text.count("2.70 = 0.90/0.90/0.90") == 2
    assert "graph speedup" in text and "GPU busy" in text and "needs --attribute" not in text
    untraced_row = next(line for line in text.splitlines() if "3.27x" in line)
    assert untraced_row.count(" - ") >= 2  # a record without a trace shows no stage figures
