"""Sweeps without a GPU: grid parsing, crossover, the sweep loop, charts, reports.

Covers graphbench/stats/sweeps.py."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import device_info, make_record, synthetic_point

from graphbench.stats.derived import Crossover, crossover
from graphbench.stats.sweeps import (bytes_per_element, crossover_table, point_speedups, points_at,
                                     several_shapes, short_shape)
from graphbench.cli import main
from graphbench.config.values import parse_grid
from graphbench.config import RunConfig, SweepConfig
from graphbench.errors import UsageError
from graphbench.pipeline.spec import SpecError
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.measure.sweep import run_sweep
from graphbench.record.codec import read_record, sweep_document
from graphbench.record.model import HostInfo, SweepRecord, ToolInfo
from graphbench.report.chart import Panel, Series, sweep_panels, terminal_chart
from graphbench.report.chart_files import write_chart
from graphbench.report.sweep import sweep_report
from graphbench.report.tables import to_text

SWEEP = Path(__file__).resolve().parent / "records" / "sweep.json"


@pytest.mark.parametrize("text, values", [
    ("4096,65536", [4096, 65536]),
    ("2^12..2^16", [4096, 8192, 16384, 32768, 65536]),
    ("2^12..2^24:x4", [4096, 16384, 65536, 262144, 1048576, 4194304, 16777216]),
    ("1..16", [1, 2, 4, 8, 16]),
    ("16,1,4", [1, 4, 16]),
    ("1000..5000", [1000, 2000, 4000]),
])
def test_grids_accept_lists_and_ranges(text, values):
    assert parse_grid(text, "--elements") == tuple(values)


@pytest.mark.parametrize("text", ["", "0,4", "2^16..2^12", "1..8:x1", "a..b", "4096,,x",
                                  "16,1,4,4"])  # a value named twice is a typo
def test_bad_grids_are_usage_errors(text):
    with pytest.raises(UsageError):
        parse_grid(text, "--elements")


def test_bad_grid_on_the_command_line_exits_2(capsys):
    assert main(["sweep", "--depth", "0,4"]) == 2
    assert capsys.readouterr().err.startswith("graphbench: error: --depth must be a positive")


def test_a_sweep_whose_largest_point_no_gpu_holds_is_refused_from_that_point_alone(
        capsys, monkeypatch):
    """2^34 elements at depth 1024 (3,075 buffers): refused from that one
    plan, before the other 384 points' (3,000 stages each at depth 1024)
    are planned; the driver is never asked."""
    import graphbench.preflight

    planned = []
    counting = lambda spec, n, origin="": planned.append(n) or plan(spec, n, origin)  # noqa: E731
    monkeypatch.setattr(graphbench.preflight, "plan", counting)
    assert main(["sweep", "--elements", "1..2^34", "--depth", "1..1024"]) == 2
    err = capsys.readouterr().err
    assert "take more than 1 TiB at n = 17,179,869,184" in err and "driver" not in err
    assert planned == [2**34]


def test_buffers_too_large_together_are_refused_as_soon_as_their_sum_is():
    with pytest.raises(SpecError, match=r"17 of its 3,075 already 1,088 GiB"):
        plan(load_pipeline(None, 1024).spec, 2**34)
    # under 1 TiB in all: the run's own memory check judges it on the device
    assert plan(load_pipeline(None, 2).spec, 2**34).buffer_bytes == 9 * 2**36


def test_crossover_interpolates_in_log2_elements():
    points = [(2**12, 3.0), (2**16, 1.5), (2**20, 0.9)]
    found = crossover(points, 1.1)
    assert found.status == "crossover" and found.between == (2**16, 2**20)
    # 1.5 -> 0.9 over 4 octaves; 1.1 is 2/3 of the way: 2^(16 + 8/3)
    assert found.elements == pytest.approx(2 ** (16 + 8 / 3))


def test_crossover_at_the_first_point_and_never():
    assert crossover([(4096, 1.0), (65536, 0.9)], 1.1).status == "below-at-smallest"
    none = crossover([(4096, 3.0), (65536, 2.0)], 1.1)
    assert none == Crossover("none-in-range", None, None)


def test_sweep_runs_every_point_and_saves_after_each():
    config = SweepConfig((4096, 1 << 20), (1, 8), base=RunConfig(iters=None))
    saved = []
    sweep = run_sweep(config, synthetic_point, save=saved.append)
    assert len(sweep.points) == 4 and sweep.complete
    assert [len(s.points) for s in saved] == [1, 2, 3, 4]  # nothing before the first point
    assert [s.complete for s in saved] == [False, False, False, True]
    assert [(p.config.elements, p.config.depth) for p in sweep.points] == \
        [(4096, 1), (1 << 20, 1), (4096, 8), (1 << 20, 8)]
    assert {row.depth for row in crossover_table(sweep)} == {1, 8}


def test_an_interrupted_sweep_keeps_what_it_measured():
    config = SweepConfig((4096, 65536, 1 << 20), (1,), base=RunConfig(iters=None))
    saved = []

    def point(cfg):
        if cfg.elements == 1 << 20:
            raise KeyboardInterrupt
        return synthetic_point(cfg)

    with pytest.raises(KeyboardInterrupt):
        run_sweep(config, point, save=saved.append)
    assert len(saved[-1].points) == 2 and not saved[-1].complete


def test_stored_sweep_renders_the_same_table_as_live():
    stored = read_record(SWEEP)
    config = SweepConfig(stored.config.elements, stored.config.depths, base=RunConfig(iters=None))
    live = run_sweep(config, synthetic_point)
    assert to_text(sweep_report(live)) == to_text(sweep_report(stored))
    assert "crossover at" in to_text(sweep_report(stored))


def test_terminal_chart_fits_80_columns_and_shows_every_depth():
    stored = read_record(SWEEP)
    text = terminal_chart(sweep_panels(stored)[0], width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "* depth 1" in text and "o depth 4" in text and "2^12" in text and "2^24" in text


def test_terminal_chart_places_points_by_value():
    panel = Panel("t", "speedup", (Series("s", (4096.0, 65536.0), (1.0, 3.0)),))
    rows = terminal_chart(panel, width=40, height=5).splitlines()[1:6]
    assert rows[0].rstrip().endswith("*")        # high value, right end, top row
    assert rows[-1].split("|", 1)[1].startswith("*")  # low value, left end, bottom row


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_chart_files_are_written_from_a_stored_sweep(tmp_path, suffix):
    if suffix == ".png":
        pytest.importorskip("matplotlib", reason="PNG output needs the plot extra")
    target = write_chart(str(tmp_path / f"sweep{suffix}"), sweep_panels(read_record(SWEEP)))
    assert target.stat().st_size > 1000
    if suffix == ".svg":
        text = target.read_text()
        assert text.startswith("<svg") and "depth 4" in text and "polyline" in text
    else:
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_chart_rejects_other_formats():
    with pytest.raises(UsageError, match=".svg or .png"):
        write_chart("chart.gif", [])


def test_report_renders_sweep_and_writes_markdown_and_plot(tmp_path, capsys):
    md, svg = tmp_path / "s.md", tmp_path / "s.svg"
    assert main(["report", str(SWEEP), "--markdown", str(md), "--plot", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "speedup over individual falls below 1.1x" in out and "depth 4" in out
    assert "| elements | depth 1 | depth 4 | fits in L2 |" in md.read_text()
    assert svg.stat().st_size > 0


def test_report_puts_several_runs_side_by_side(capsys):
    records = SWEEP.parent
    assert main(["report", str(records / "baseline.json"),
                 str(records / "other_device_slower_times.json")]) == 0
    out = capsys.readouterr().out
    assert "records side by side" in out and "NVIDIA H100" in out and "NVIDIA H200" in out


def test_report_of_a_broken_sweep_exits_2(tmp_path, capsys):
    broken = tmp_path / "sweep.json"
    data = sweep_document(read_record(SWEEP))
    data["points"][1]["runs"][0]["modes"]["graph"]["wall_us"][0] = "slow"
    broken.write_text(json.dumps(data))
    assert main(["report", str(broken)]) == 2
    assert "points[1].runs[0].modes[...].wall_us[0]" in capsys.readouterr().err


def test_stage_lists_and_depth_build_the_reference():
    inputs = {k: np.random.default_rng(3).uniform(-1, 1, 50).astype(np.float32) for k in "abc"}
    a, b, c = inputs["a"], inputs["b"], inputs["c"]
    def reference(stages, depth):
        return load_pipeline(None, depth, stages).spec.reference(inputs, 50)

    np.testing.assert_allclose(reference(["mul", "add"], 1)["r2"], a * c + b)
    once = (a + b) * c - a
    np.testing.assert_allclose(reference(["add", "mul", "sub"], 2)["r6"], (once + b) * c - a,
                               rtol=1e-6)
    assert len(plan(load_pipeline(None, 10).spec, 64).stages) == 30


def test_the_built_in_pipeline_checks_stages_and_has_fused_only_for_its_chain():
    with pytest.raises(UsageError, match="unknown stage"):
        load_pipeline(None, 1, ("add", "div"))
    assert load_pipeline(None, 4).spec.fused is None
    assert load_pipeline(None, 1, ("add", "mul")).spec.fused is None
    assert load_pipeline(None).spec.fused.kernel == "fused"


def test_device_lists_parse(capsys):
    from graphbench.cli.commands import per_device_path
    from graphbench.config.values import parse_device_spec

    assert parse_device_spec("1,0") == [0, 1] and parse_device_spec("ALL") == "all"
    with pytest.raises(UsageError, match="names a device twice"):
        parse_device_spec("1,0,1")
    with pytest.raises(UsageError):
        parse_device_spec("gpu0")
    assert per_device_path("out/run.json", 1, 2) == "out/run.dev1.json"
    assert per_device_path("run.json", 0, 1) == "run.json"


def test_l2_column_names_the_depths_whose_working_set_fits():
    from graphbench.report.sweep import sweep_rows

    sweep = read_record(SWEEP)  # 2^20 elements: 24 MiB at depth 1, 60 MiB at depth 4
    device = dataclasses.replace(sweep.device, l2_bytes=30 * 2**20)
    points = tuple(dataclasses.replace(p, device=device) for p in sweep.points)
    _, rows = sweep_rows(dataclasses.replace(sweep, points=points))
    assert [row[-1] for row in rows] == ["all", "all", "d1", "none"]


def test_a_sweep_interrupted_before_its_first_point_leaves_the_file_as_it_was(
        tmp_path, monkeypatch, capsys):
    """Nothing is written before the work it records exists: no new file,
    and an existing one stays byte for byte."""
    import graphbench.runner as benchmark

    def interrupted(config, on_round=None, kernels=None, spec=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(benchmark, "run_benchmark", interrupted)
    monkeypatch.setattr("graphbench.cli.commands.resolve_devices", lambda spec: [0])
    path = tmp_path / "sw.json"
    argv = ["sweep", "--elements", "4096,65536", "--depth", "1", "--json", str(path),
            "--no-progress"]
    assert main(argv) == 130
    assert "sweep interrupted after 0 of 2 points (nothing written)" in capsys.readouterr().err
    assert not path.exists()
    path.write_bytes(b"PRECIOUS\n")
    assert main(argv) == 130
    assert path.read_bytes() == b"PRECIOUS\n"


def point(elements, depth, walls, grid="auto", block=None, working_set=None):
    record = make_record(walls, noise=0.0, elements=elements, depth=depth, grid=grid,
                         block=block)
    if working_set is not None:
        record = dataclasses.replace(record, pipeline=dataclasses.replace(
            record.pipeline, working_set_bytes=working_set))
    return record


def sweep(points, l2=10**6, device=True, **config):
    cfg = SweepConfig(**config)
    return SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(), cfg,
                       device_info(l2_bytes=l2) if device else None, tuple(points), True)


def test_points_at_a_depth_and_shape():
    points = [point(1024, 1, {"individual": 3.0, "graph": 1.0}),
              point(1024, 2, {"individual": 3.0, "graph": 1.0}),
              point(1024, 1, {"individual": 3.0, "graph": 1.0}, grid="1056", block=128)]
    found = sweep(points, elements=(1024,), depths=(1, 2), grids=("auto", "1056"),
                  blocks=(None, 128))
    assert points_at(found, 1, ("auto", None)) == [points[0]]
    assert points_at(found, 2, ("auto", None)) == [points[1]]
    assert points_at(found, 1, ("1056", 128)) == [points[2]]
    assert points_at(found, 2, ("1056", 128)) == []
    assert several_shapes(sweep(points, elements=(1024,), depths=(1, 2), grids=("auto", "1056")))
    assert several_shapes(found) and not several_shapes(sweep(points[:1], elements=(1024,),
                                                              depths=(1,)))
    assert short_shape(("auto", None)) == "autox256" and short_shape(("1056", 128)) == "1056x128"


def test_points_of_parameter_values_and_the_labels_that_tell_variants_apart():
    from graphbench.stats.sweeps import variant_label

    walls = {"individual": 3.0, "graph": 1.0}
    points = [make_record(walls, noise=0.0, elements=1024, depth=1, params={"cols": c, "k": "1"})
              for c in ("256", "1024")]
    found = sweep(points, elements=(1024,), depths=(1,), params={"cols": ("256", "1024")})
    assert points_at(found, 1, ("auto", None), {"cols": "1024"}) == [points[1]]
    assert points_at(found, 1, ("auto", None), {"cols": "256", "k": "1"}) == [points[0]]
    assert points_at(found, 1, ("auto", None), {"cols": "64"}) == []
    assert points_at(found, 1, ("auto", None)) == points
    assert variant_label(found, ("auto", None), {"cols": "256"}) == "cols=256"
    assert variant_label(found, ("auto", None), {}) == ""
    shapes = sweep(points, elements=(1024,), depths=(1,), grids=("auto", "1056"))
    assert variant_label(shapes, ("1056", 128), {"cols": "256"}) == "1056x128 cols=256"
    assert variant_label(shapes, ("1056", 128), {"cols": "256"}, long=True) == \
        "grid 1056 x block 128, cols=256"
    assert variant_label(shapes, ("1056", 128), {}, long=True) == "grid 1056 x block 128"


def test_point_speedups_and_bytes_per_element():
    p = point(1024, 1, {"individual": 3.0, "graph": 1.5, "fused": 1.0}, working_set=8192)
    assert point_speedups(p) == {"graph": 2.0, "fused": 3.0}
    assert bytes_per_element(p) == 8.0


def test_crossover_table_per_shape_depth_and_rung():
    walls = {1024: (3.0, 1.0, 2.0), 4096: (3.0, 1.5, 2.0), 16384: (3.0, 3.0, 2.0)}
    points = [point(n, 1, {"individual": i, "graph": g, "fused": f}, working_set=8 * n)
              for n, (i, g, f) in walls.items()]
    points += [point(n, 2, {"individual": 3.0, "graph": 2.0}, working_set=8 * n)
               for n in walls]
    found = crossover_table(sweep(points, l2=8 * 16384, elements=tuple(walls), depths=(1, 2),
                                  threshold=1.5))
    assert [(r.depth, r.mode, r.shape) for r in found] == [
        (1, "graph", ("auto", None)), (1, "fused", ("auto", None)), (2, "graph", ("auto", None))]
    graph, fused, deep = found
    # graph: 3.0 -> 2.0 -> 1.0; 1.5 is crossed halfway from 4096 to 16384 in log2
    assert graph.crossover == Crossover("crossover", 2.0 ** 13, (4096, 16384))
    assert graph.fits_in_l2 is True  # 8 B x 8192 < 8 x 16384
    assert fused.crossover == Crossover("none-in-range", None, None) and fused.fits_in_l2 is None
    assert deep.crossover == Crossover("none-in-range", None, None)


def test_fits_in_l2_at_the_boundary_and_from_the_first_points_bytes():
    points = [point(1024, 1, {"individual": 3.0, "graph": 3.0}, working_set=8192),
              point(4096, 1, {"individual": 3.0, "graph": 3.0}, working_set=4 * 4096)]
    config = dict(elements=(1024, 4096), depths=(1,), threshold=1.5)
    (row,) = crossover_table(sweep(points, l2=8192, **config))
    assert row.crossover == Crossover("below-at-smallest", 1024.0, (1024, 1024))
    assert row.fits_in_l2 is True  # 8 B per element (the first point's) x 1024 = 8192
    (row,) = crossover_table(sweep(points, l2=8191, **config))
    assert row.fits_in_l2 is False
    (row,) = crossover_table(sweep(points, device=False, **config))
    assert row.fits_in_l2 is None and row.crossover.status == "below-at-smallest"
    (row,) = crossover_table(sweep(points, l2=None, **config))
    assert row.fits_in_l2 is None


def test_crossover_rows_name_their_shape():
    points = [point(n, 1, {"individual": 3.0, "graph": 1.0}, grid="1056") for n in (1024, 4096)]
    rows = crossover_table(sweep(points, elements=(1024, 4096), depths=(1,), grids=("1056",)))
    assert [(r.mode, r.shape) for r in rows] == [("graph", ("1056", None))]


def test_a_rung_missing_at_some_points_is_judged_where_it_ran():
    points = [point(1024, 1, {"individual": 3.0, "graph": 1.0}),
              point(4096, 1, {"individual": 3.0, "graph": 1.0, "fused": 1.0}),
              point(16384, 1, {"individual": 3.0, "graph": 1.0, "fused": 3.0})]
    rows = crossover_table(sweep(points, elements=(1024, 4096, 16384), depths=(1,),
                                 threshold=1.5))
    fused = next(r for r in rows if r.mode == "fused")
    assert fused.crossover == Crossover("crossover", 2.0 ** 13.5, (4096, 16384))
