"""GPU tests of pipeline depth and sweeps."""

import pytest

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark
from graphbench.record.codec import read_record, read_run

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("depth", [1, 8])
def test_deep_pipelines_verify_including_replay_with_new_data(depth):
    record = run_benchmark(RunConfig(elements=50_000, iters=20, rounds=3, depth=depth))
    checks = {c.name: c for c in record.checks}
    assert record.verified, checks
    assert checks[f"graph: replay with new data [r{3 * depth}]"].passed
    assert record.pipeline.kernel_launches_per_iteration == 3 * depth
    assert ("fused" in record.mode_names) == (depth == 1)


def test_other_stage_lists_verify():
    record = run_benchmark(RunConfig(elements=10_000, iters=20, rounds=3, stages=("mul", "add"),
                                     depth=3))
    assert record.verified


def test_two_point_sweep_writes_a_record_with_both_points(tmp_path):
    path = tmp_path / "sweep.json"
    assert main(["sweep", "--elements", "4096,65536", "--depth", "1", "--max-time", "0.3",
                 "--no-progress", "--json", str(path)]) == 0
    sweep = read_record(path)
    assert sweep.complete and len(sweep.points) == 2
    assert [p.config.elements for p in sweep.points] == [4096, 65536]
    assert all(p.verified for p in sweep.points)
    assert all(10 <= p.config.iters <= 1000 for p in sweep.points)  # auto iterations


def test_a_sweep_over_launch_shapes_keeps_each_point_shape(tmp_path):
    path = tmp_path / "sweep.json"
    assert main(["sweep", "--elements", "4096,2^20", "--depth", "1", "--grid", "auto,8/sm",
                 "--block", "256", "--max-time", "0.3", "--no-progress", "--json",
                 str(path)]) == 0
    sweep = read_record(path)
    assert sweep.complete and len(sweep.points) == 4
    assert [(p.config.grid, p.config.block) for p in sweep.points] == [
        ("auto", 256), ("auto", 256), ("8/sm", 256), ("8/sm", 256)]
    assert all(p.verified and p.pipeline.shaped_stages for p in sweep.points)
    grids = {p.config.grid: p.pipeline.grid[0] for p in sweep.points if p.config.elements > 4096}
    assert grids["8/sm"] == 8 * sweep.device.multiprocessors


def _device_ids():
    from graphbench.measure.device import list_devices

    return [d.device_id for d in list_devices()]


def _paths(path, ids):
    return [path] if len(ids) == 1 else [path.with_name(f"{path.stem}.dev{i}{path.suffix}")
                                         for i in ids]


def test_run_on_every_device_writes_one_verified_record_each(tmp_path, capsys):
    ids = _device_ids()
    path = tmp_path / "run.json"
    assert main(["run", "--device", "all", "--max-time", "0.3", "--no-progress",
                 "--json", str(path)]) == 0
    records = [read_run(p) for p in _paths(path, ids)]
    assert [r.device.index for r in records] == ids
    assert all(r.verified for r in records)
    assert ("devices side by side" in capsys.readouterr().out) == (len(ids) > 1)


def test_sweep_on_every_device_writes_one_sweep_record_each(tmp_path):
    ids = _device_ids()
    path = tmp_path / "sweep.json"
    assert main(["sweep", "--device", "all", "--elements", "4096", "--depth", "1,2",
                 "--max-time", "0.2", "--no-progress", "--json", str(path)]) == 0
    for device, p in zip(ids, _paths(path, ids)):
        sweep = read_record(p)
        assert sweep.device.index == device and len(sweep.points) == 2


def test_a_sweep_over_a_pipeline_parameter_runs_each_value(tmp_path):
    """sweep --param: softmax's row width as an axis, each point's pipeline()
    called with its value (its description and the record say so)."""
    path = tmp_path / "sweep.json"
    assert main(["sweep", "--pipeline", "softmax", "--elements", "2^16", "--depth", "1",
                 "--param", "cols=256,4096", "--max-time", "0.3", "--no-progress",
                 "--json", str(path)]) == 0
    sweep = read_record(path)
    assert sweep.complete and sweep.config.params == {"cols": ("256", "4096")}
    assert [p.config.params for p in sweep.points] == [{"cols": "256"}, {"cols": "4096"}]
    assert all(p.verified for p in sweep.points)
    assert [p.pipeline.description.split(":")[0] for p in sweep.points] == [
        "row-wise softmax of (n // 256) x 256", "row-wise softmax of (n // 4096) x 4096"]
