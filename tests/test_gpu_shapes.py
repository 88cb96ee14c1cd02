"""GPU tests of --grid and --block."""

import pytest

from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark
from graphbench.record.codec import read_run

pytestmark = pytest.mark.gpu


def test_1056_blocks_of_256_at_2_to_the_20_verify():
    record = run_benchmark(RunConfig(elements=2**20, iters=20, rounds=10, grid="1056", block=256))
    assert record.verified, [c for c in record.checks if not c.passed]
    assert record.pipeline.grid[0] == 1056 and record.pipeline.block[0] == 256
    assert record.pipeline.shaped_stages == 4  # add, mul, sub and the fused kernel


def test_several_shapes_write_one_record_each(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["run", "--elements", "2^20", "--iters", "20", "--rounds", "10",
                 "--modes", "individual,graph", "--grid", "auto,8/sm", "--block", "256",
                 "--json", str(out), "--no-progress"]) == 0
    auto = read_run(tmp_path / "out.block256.gridauto.json")
    per_sm = read_run(tmp_path / "out.block256.grid8-sm.json")
    assert auto.pipeline.shaped_stages == per_sm.pipeline.shaped_stages == 4  # --block given
    assert per_sm.pipeline.grid[0] == 8 * per_sm.device.multiprocessors
    assert "launch shapes side by side" in capsys.readouterr().out
