"""GPU tests: run only where a driver and a GPU are present.

Covers graphbench/measure/device.py.
Covers graphbench/measure/graphs.py."""

import pytest

from graphbench.stats.summary import summarize_run
from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.runner import run_benchmark
from graphbench.measure.device import describe, open_device
from graphbench.measure.kernels import load_source
from graphbench.measure.session import load_kernels
from graphbench.pipeline.files import load_pipeline, plan
from graphbench.record.codec import read_run

pytestmark = pytest.mark.gpu

SMALL = dict(elements=10_000, iters=20, rounds=3)


def kernels_from(source: str) -> dict:
    built_in = plan(load_pipeline(None).spec, 4096)
    return load_kernels(describe(open_device(0)).arch, source, built_in)


def checks_by_name(record):
    return {c.name: c for c in record.checks}


def test_every_mode_verifies_and_graph_replays_new_data():
    record = run_benchmark(RunConfig(**SMALL))
    checks = checks_by_name(record)
    assert record.verified, checks
    for name in ("individual", "graph", "fused", "graph: replay with new data",
                 "graph: constant inputs 1, 2, 3..."):
        name += " [r3]"  # every check names the output it compares
        assert checks[name].passed and checks[name].elements == 10_000
    assert record.rounds > 0  # checked after timing: the figures stand


def test_wrong_stage_kernel_is_caught_in_individual_and_graph():
    wrong = load_source().replace("out[i] = x[i] - y[i];", "out[i] = x[i] + y[i];")
    record = run_benchmark(RunConfig(**SMALL), kernels=kernels_from(wrong))
    checks = checks_by_name(record)
    assert not record.verified
    assert not checks["individual [r3]"].passed and not checks["graph [r3]"].passed
    assert checks["fused [r3]"].passed  # the fused kernel was left correct
    assert record.mode_names == () and record.rounds == 0  # nothing is timed when results are wrong


def test_unwritten_last_element_is_caught_by_the_poison():
    skip_last = load_source().replace("i < N;", "i + 1 < N;")
    record = run_benchmark(RunConfig(**SMALL), kernels=kernels_from(skip_last))
    check = checks_by_name(record)["individual [r3]"]
    assert not check.passed and check.first_bad_index == 9_999
    assert check.max_abs_error is None  # NaN left in place: an infinite error


def test_cli_run_writes_a_complete_record(tmp_path, capsys):
    path = tmp_path / "run.json"
    assert main(["run", "--elements", "4096", "--iters", "50", "--rounds", "4",
                 "--json", str(path)]) == 0
    record = read_run(path)
    assert record.device.compute_capability and record.device.uuid
    assert record.device.total_memory_bytes > 0
    assert record.config.iters == 50
    summary = summarize_run(record)
    for mode in ("individual", "graph", "fused"):
        assert len(record.samples(mode, "wall")) == 4
        assert summary.modes[mode].wall.median > 0
    assert summary.speedup["graph"].stats.median > 0
    assert "graph speedup" in capsys.readouterr().out


@pytest.mark.parametrize("fresh", [False, True], ids=["in-process", "fresh-process"])
def test_wrong_kernel_exits_1_through_the_cli(tmp_path, monkeypatch, capsys, fresh):
    """Measured here or, once the process has used the GPU, in a fresh
    process (graphbench.runner.measure_one): wrong results fail either way."""
    wrong = tmp_path / "wrong.cu"
    wrong.write_text(load_source().replace("out[i] = x[i] * y[i];",
                                           "out[i] = x[i] * y[i] + 1.0f;"))
    monkeypatch.setattr("graphbench.runner.fresh_process_needed", lambda device: fresh)
    assert main(["run", "--kernel-source", str(wrong), "--elements", "4096", "--iters", "10",
                 "--rounds", "2", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "verification failed: individual" in err and "first bad index" in err


def test_variant_without_a_stage_kernel_exits_2_naming_it(tmp_path, capsys):
    variant = tmp_path / "no_sub.cu"
    variant.write_text(load_source().replace("void vec_sub(", "void vec_minus("))
    assert main(["run", "--kernel-source", str(variant), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "stage 3 (vec_sub): kernel:" in err and "no kernel named vec_sub" in err


def test_device_out_of_range_lists_devices(capsys):
    assert main(["run", "--device", "99"]) == 2
    err = capsys.readouterr().err
    assert "--device 99 is out of range" in err and "0: " in err


def test_too_many_elements_for_memory_says_needed_and_free(capsys):
    assert main(["run", "--elements", str(2**33)]) == 2  # 192 GiB of buffers: within the bound, beyond any H200
    err = capsys.readouterr().err
    assert "GiB of device memory" in err and "free" in err


def test_run_gates_against_a_record_made_a_moment_before(tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    assert main(["run", "--no-progress", "--processes", "3", "--json", str(baseline)]) == 0
    summary = tmp_path / "summary.md"
    assert main(["run", "--no-progress", "--baseline", str(baseline), "--markdown",
                 str(summary)]) == 0
    assert "PASS" in capsys.readouterr().out and "| individual.busy |" in summary.read_text()


def test_kernel_source_variant_runs_verifies_and_is_recorded(tmp_path, slow_build):
    slow = slow_build(work=32)
    record = run_benchmark(RunConfig(**SMALL, kernel_source=str(slow)))
    assert record.verified
    assert record.pipeline.kernel_source == str(slow)
    assert len(record.pipeline.kernel_source_sha256) == 64


def test_processes_merge_into_one_record(tmp_path):
    path = tmp_path / "merged.json"
    assert main(["run", "--processes", "2", "--max-time", "0.3", "--no-progress", "--json",
                 str(path)]) == 0
    record = read_run(path)
    assert record.process_count == 2 and record.verified
    assert [run.seed for run in record.runs] == [0, 1]  # each process its own inputs
