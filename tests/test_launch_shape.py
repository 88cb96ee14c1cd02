"""--grid and --block on CPU: parsing, refusal of bad
shapes before any GPU work, which stages take a shape, per-shape files and
the shapes table.

Covers graphbench/cli/shapes.py."""

import argparse
import dataclasses

import pytest
from tests_helpers import short_error

from conftest import make_record

from graphbench.cli import main
from graphbench.cli.shapes import per_shape_path, shapes_of
from graphbench.config import RunConfig
from graphbench.errors import ConfigError, UsageError
from graphbench.launch_shape import (AUTO_BLOCKS_PER_SM, GridRule, ShapeError, normal_grid,
                                     per_element_blocks, with_launch_shape)
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.report.shapes import shapes_table
from graphbench.report.tables import to_text
from graphbench.pipeline.spec import AUTO


@pytest.mark.parametrize("text, normal", [("auto", "auto"), ("1056", "1056"), ("8/sm", "8/sm"),
                                          ("8x", "8/sm"), (" AUTO ", "auto"),
                                          ("per-element", "per-element"),
                                          ("PER-ELEMENT", "per-element"),
                                          (" Per-Element ", "per-element")])
def test_grid_forms(text, normal):
    assert normal_grid(text) == normal


@pytest.mark.parametrize("argv, words", [
    (["--grid", "0"], "--grid 0 must be from 1"),
    (["--grid", "0/sm"], "blocks per SM"),
    (["--grid", "lots"], "is not auto, per-element, a block count or N/sm"),
    (["--grid", "per-elemnt"], "'per-elemnt' is not auto, per-element"),
    (["--grid", "per_element"], "'per_element' is not auto, per-element"),
    (["--grid", "auto,per-elements"], "'per-elements' is not auto, per-element"),
    (["--grid", "per-element", "--block", "1", "--elements", "2^32"],
     "--grid per-element at 4,294,967,296 elements needs 4,294,967,296 blocks of 1, more than "
     "CUDA's grid-x limit 2,147,483,647 graphbench: what to do: use a larger --block, or --grid "
     "auto"),
    (["--block", "2048"], "block must be from 1 to 1024 threads"),
    (["--block", "0"], "--block must be a positive integer"),
    (["--block", "128,1025"], "1 to 1024 threads")])
def test_bad_shapes_are_refused_before_any_gpu_work(argv, words, capsys):
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err
    assert words in short_error(err) and "driver" not in err and "Traceback" not in err


def test_config_refuses_bad_shapes_from_the_library():
    with pytest.raises(ConfigError, match="1024"):
        RunConfig(block=4096)
    with pytest.raises(ConfigError):
        RunConfig(grid="0")
    assert RunConfig(grid="8x").grid == "8/sm"
    assert RunConfig(grid="PER-ELEMENT").grid == "per-element"
    with pytest.raises(ConfigError, match="grid-x limit") as refused:
        RunConfig(grid="per-element", block=7, elements=2**34)
    assert refused.value.field == "grid" and "--block" in refused.value.remedy
    # the last element count that fits: 2^31 - 1 blocks of one thread
    assert RunConfig(grid="per-element", block=1, elements=2**31 - 1).grid == "per-element"
    with pytest.raises(ConfigError, match="2,147,483,648 blocks of 1"):
        RunConfig(grid="per-element", block=1, elements=2**31)
    assert RunConfig(grid="auto", block=1, elements=2**34).grid == "auto"  # auto is capped


def test_the_python_api_takes_the_named_grid_and_refuses_others_before_any_gpu_work():
    from graphbench import api

    assert api.run_config(grid="Per-Element", elements="2^24").grid == "per-element"
    with pytest.raises(ConfigError, match="per-elemnt"):
        api.run(grid="per-elemnt")
    with pytest.raises(ConfigError, match="grid-x limit"):
        api.run(grid="per-element", block=1, elements="2^32")


@pytest.mark.parametrize("work, block, blocks", [
    (1, 256, 1), (255, 256, 1), (256, 256, 1), (257, 256, 2), (1000, 256, 4), (4096, 256, 16),
    (1000, 128, 8), (2**20, 256, 4096), (2**24, 256, 65536), (2**24 + 1, 256, 65537),
    (2**24 - 1, 256, 65536), (2**24, 1024, 16384), (3 * 10**6, 96, 31250),
    (2**31 - 1, 1, 2**31 - 1)])
def test_per_element_is_one_thread_per_element_uncapped(work, block, blocks):
    assert per_element_blocks(work, block) == blocks


def test_per_element_beyond_cudas_grid_limit_names_the_remedy():
    with pytest.raises(ShapeError, match="2,147,483,648 blocks of 1") as refused:
        per_element_blocks(2**31, 1)
    assert "larger --block" in refused.value.remedy


def test_auto_caps_where_per_element_does_not():
    """The two launch the same grid until auto's cap (32 blocks per SM)
    binds: 4,224 blocks on a 132-SM H200, past 2^20 elements."""
    from graphbench.measure.pipeline import GRID_BLOCKS_PER_SM, grid_size

    assert AUTO_BLOCKS_PER_SM == GRID_BLOCKS_PER_SM  # the report states the launches' cap
    for n in (4096, 2**20, 1_081_344):
        assert grid_size(n, 256, 132) == per_element_blocks(n, 256)
    assert grid_size(2**24, 256, 132) == 4224 and per_element_blocks(2**24, 256) == 65536


def test_shape_applies_to_grid_stride_stages_only():
    built_in = plan(load_pipeline(None).spec, 2**20)
    shaped, count = with_launch_shape(built_in, "1056", 256)
    assert count == 4  # three stages and the fused one
    assert {s.grid for s in shaped.stages} == {GridRule(1056)}
    softmax = plan(load_pipeline("softmax").spec, 2**20)
    with pytest.raises(UsageError, match="the softmax pipeline has none"):
        with_launch_shape(softmax, "1056", 128)  # fixed grids: the shape would be ignored
    assert with_launch_shape(softmax) == (softmax, None)
    assert with_launch_shape(built_in) == (built_in, None)
    per_sm, _ = with_launch_shape(built_in, "8/sm", 512)
    assert per_sm.stages[0].grid.resolve(132) == 1056 and per_sm.stages[0].block == (512,)
    auto, _ = with_launch_shape(built_in, AUTO, 128)
    assert auto.stages[0].grid == AUTO and auto.stages[0].block == (128,)


@pytest.mark.parametrize("n, block, blocks", [(2**24, None, 65536), (2**24, 128, 131072),
                                              (1000, None, 4), (4096, 512, 8)])
def test_per_element_resolves_every_grid_stride_stage_at_its_work(n, block, blocks):
    built_in = plan(load_pipeline(None).spec, n)
    shaped, count = with_launch_shape(built_in, "per-element", block)
    assert count == 4
    kernels = (*shaped.stages, shaped.fused)
    assert {s.grid for s in kernels} == {GridRule(blocks)}
    assert {s.block for s in kernels} == {(block or 256,)}
    # a count, whatever the device's SM count: uncapped
    assert shaped.stages[0].grid.resolve(132) == shaped.stages[0].grid.resolve(None) == blocks


def test_per_element_is_refused_where_every_stage_fixes_its_own_grid():
    softmax = plan(load_pipeline("softmax").spec, 2**20)
    with pytest.raises(UsageError, match="--grid per-element shape the grid-stride stages"):
        with_launch_shape(softmax, "per-element")


def test_per_element_past_the_limit_at_a_stages_own_work_is_a_usage_error():
    """Each stage's own work (a file's may differ from the element count) is
    checked at its plan, before the device is opened, with the remedy (exit 2)."""
    from graphbench.errors import EXIT_USAGE

    built_in = plan(load_pipeline(None).spec, 2**32)
    with pytest.raises(UsageError, match="^--grid per-element at 4,294,967,296 elements") as bad:
        with_launch_shape(built_in, "per-element", 1)
    assert bad.value.exit_code == EXIT_USAGE and "--grid auto" in bad.value.remedy
    assert with_launch_shape(built_in, "per-element", 4)[1] == 4  # 2^30 blocks of 4 fit


def test_several_shapes_mean_several_runs_with_their_own_files():
    args = argparse.Namespace(grid=("auto", "1056"), block=(128, 256))
    assert shapes_of(args) == [("auto", 128), ("1056", 128), ("auto", 256), ("1056", 256)]
    assert per_shape_path("out.json", "1056", 256) == "out.block256.grid1056.json"
    assert per_shape_path("out.json", "8/sm", None) == "out.block256.grid8-sm.json"
    assert per_shape_path("out.json", "per-element", None) == \
        "out.block256.gridper-element.json"


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


def shaped_record(grid="auto", blocks=16, block=None, shaped=None, elements=4096, **changes):
    """make_record as a run at `grid` x `block` records it: the first stage's
    launch and how many stages took an asked shape."""
    record = make_record(elements=elements, grid=grid, block=block)
    pipeline = dataclasses.replace(record.pipeline, grid=(blocks, 1, 1),
                                   block=(block or 256, 1, 1), shaped_stages=shaped, **changes)
    return dataclasses.replace(record, pipeline=pipeline)


def report_text(record):
    from graphbench.report.run import run_report

    return " ".join(to_text(run_report(record), width=400).split())


@pytest.mark.parametrize("record, line", [
    (shaped_record("per-element", 65536, shaped=4, elements=2**24),
     "launch shape: per-element (one thread per element, uncapped, as NVIDIA's cudaGraphs "
     "sample), 65,536 blocks of 256; 4 grid-stride kernels took it (stages and any fused "
     "kernel) "),
    (shaped_record("auto", 4224, elements=2**24),
     "launch shape: auto (one thread per element, at most 32 blocks per SM), 4,224 blocks of "
     "256: the cap (32 x 132 SMs); --grid per-element launches uncapped, as NVIDIA's "
     "cudaGraphs sample does "),
    (shaped_record("auto", 16),
     "launch shape: auto (one thread per element, at most 32 blocks per SM), 16 blocks of 256 "),
    (shaped_record("auto", 8200, block=128, shaped=4, elements=2**20),
     "launch shape: auto (one thread per element, at most 32 blocks per SM), 8,200 blocks of "
     "128; 4 grid-stride kernels took it"),
    (shaped_record("1056", 1056, shaped=4),
     "launch shape: grid 1056, 1,056 blocks of 256; 4 grid-stride kernels took it"),
    (shaped_record("8/sm", 1056, block=512, shaped=4),
     "launch shape: grid 8/sm, 1,056 blocks of 512; 4 grid-stride kernels took it"),
    (shaped_record("auto", 16384, file="softmax", elements=2**24),
     "launch shape: the first stage launched 16,384 blocks of 256, its own grid (more than auto "
     "gives); grid-stride stages: auto (one thread per element, at most 32 blocks per SM); a "
     "stage that fixes its own grid or block keeps it "),
    (shaped_record("per-element", 1024, shaped=0, file="softmax", elements=2**20),
     "launch shape: the first stage launched 1,024 blocks of 256; grid per-element x block 256 "
     "asked, but no stage is grid-stride: each kept its own grid and block "),
    (shaped_record("per-element", 65536, shaped=2, file="mine.py", elements=2**24),
     "launch shape: the first stage launched 65,536 blocks of 256; grid-stride stages: "
     "per-element (one thread per element, uncapped, as NVIDIA's cudaGraphs sample); 2 "
     "grid-stride kernels took it (stages and any fused kernel); a stage that fixes its own "
     "grid or block keeps it ")],
    ids=["per-element", "auto-capped", "auto-small", "auto-block", "count", "per-sm",
         "file-own-grid", "file-none-shaped", "file-shaped"])
def test_the_run_report_names_the_launch_shape_that_ran(record, line):
    text = report_text(record)
    assert line in text + " " and text.count("launch shape:") == 1


def test_records_of_callables_or_without_a_launch_have_no_shape_line():
    assert "launch shape" not in report_text(shaped_record("auto", 16, framework="torch"))
    no_launch = make_record()
    no_launch = dataclasses.replace(no_launch, pipeline=dataclasses.replace(
        no_launch.pipeline, grid=(), block=()))
    assert "launch shape" not in report_text(no_launch)


def test_the_cap_is_named_only_where_auto_reached_it():
    assert "the cap" not in report_text(shaped_record("auto", 4223, elements=4223 * 256))
    assert "the cap" not in report_text(shaped_record("per-element", 4224, shaped=4,
                                                      elements=4224 * 256))
    other_gpu = shaped_record("auto", 4224, elements=2**24)
    other_gpu = dataclasses.replace(other_gpu, device=dataclasses.replace(
        other_gpu.device, multiprocessors=108))  # an A100's cap is 3,456
    assert "the cap" not in report_text(other_gpu)


def test_the_shape_table_states_how_much_less_busy_time_auto_took():
    from tests_helpers import scaled_busy

    auto = shaped_record("auto", 4224, elements=2**24)
    per = scaled_busy(shaped_record("per-element", 65536, shaped=4, elements=2**24), 1.055)
    text = " ".join(to_text(shapes_table([auto, per]), width=200).split())
    assert "grid per-element x block 256" in text and "65536x1x1x256x1x1" in text
    # 1 - 1/1.055 of the synthetic 3 us
    assert "auto takes 5.2% less GPU busy time than per-element at 2^24 elements: 3.00 vs " \
           "3.1" in text and "us per iteration (4,224 vs 65,536 blocks)" in text
    slower = scaled_busy(per, 0.9 / 1.055)
    text = " ".join(to_text(shapes_table([slower, auto]), width=200).split())
    assert "auto takes 11.1% more GPU busy time than per-element" in text
    # another block, another device or a failed check is no pair
    for other in (scaled_busy(shaped_record("per-element", 131072, block=128, shaped=4,
                                            elements=2**24), 1.055),
                  dataclasses.replace(per, device=dataclasses.replace(per.device, index=1)),
                  dataclasses.replace(per, runs=(make_record(passed=False).runs[0],))):
        assert "GPU busy time than" not in to_text(shapes_table([auto, other]), width=200)
    assert "GPU busy time than" not in to_text(shapes_table(
        [auto, shaped_record("1056", 1056, shaped=4, elements=2**24)]), width=200)


@pytest.mark.parametrize("text, grid", [("2^10", "1024"), ("1e3", "1000"), ("2^3/sm", "8/sm"),
                                        ("2^31", None)])
def test_a_grid_takes_the_count_forms_every_count_option_takes(text, grid):
    if grid is None:
        with pytest.raises(ShapeError, match="must be from 1 to 2,147,483,647 blocks"):
            normal_grid(text)
    else:
        assert normal_grid(text) == grid


@pytest.mark.parametrize("args, message", [
    (["--grid", "-1/sm"], "grid '-1/sm' is not auto, per-element"),
    (["--grid", "８/sm"], "grid '８/sm' is not auto"),
    (["--grid", "8/sm,8x"], "--grid names 8/sm twice"),
    (["--grid", "1024,2^10"], "--grid names 1024 twice"),
    (["--grid", "auto,AUTO"], "--grid names auto twice"),
    (["--block", "128,128"], "--block names 128 twice"),
    (["--pipeline", "softmax", "--grid", "8/sm"],
     "--grid 8/sm shape the grid-stride stages .* the softmax pipeline has none"),
    (["--pipeline", "cupy_chain", "--block", "128"],
     "the cupy_chain pipeline is cupy callables: --grid and --block shape CUDA kernel stages"),
])
def test_a_launch_shape_that_cannot_run_or_would_be_ignored_is_one_line(args, message, capsys):
    import re

    assert main(["run", *args]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and len(err.strip().splitlines()) == 1, err
    assert "driver" not in err  # refused before the driver is asked
