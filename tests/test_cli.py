"""Covers graphbench/__main__.py.
Covers graphbench/cli/commands.py.
Covers graphbench/cli/help.py.
Covers graphbench/cli/parser.py."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import gpu_unavailable_reason

from graphbench.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("argv, message", [
    (["run", "--elements", "0"], "--elements must be a positive integer, got 0"),
    (["run", "--elements", "-3"], "--elements must be a positive integer"),
    (["run", "--elements", "1.5"], "--elements must be a positive integer, got '1.5'"),
    (["run", "--iters", "zero"], "--iters must be a positive integer, got 'zero'"),
    (["run", "--iters", "0"], "--iters must be a positive integer"),
    (["run", "--device", "-1"], "--device must be 0 or more"),
    (["run", "--modes", "individual,warp"], "unknown mode(s) warp"),
    (["run", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_user_mistakes_exit_2_with_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("graphbench: error: ")


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("run", "sweep", "report", "compare", "kernels"):
        assert f"    {command} " in out, command


def test_run_help_has_examples_and_defaults_from_the_config(capsys):
    from graphbench.config import RunConfig

    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--help"])
    assert exit_info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # help wraps lines
    assert "examples:" in out and "exit codes" in out
    defaults = RunConfig()
    assert f"vector length (default {defaults.elements};" in out
    assert f"(default {defaults.min_rounds}:" in out


def test_sweep_options_come_from_the_same_fields_with_their_own_defaults():
    from graphbench.cli.commands import run_config, sweep_config
    from graphbench.cli.parser import build_parser
    from graphbench.config import RunConfig, SweepConfig

    run = build_parser().parse_args(["run"])
    assert run_config(run) == RunConfig()
    sweep = build_parser().parse_args(["sweep"])
    assert sweep_config(sweep) == SweepConfig()  # iters automatic, 1 s per point
    assert sweep_config(sweep).base.iters is None and sweep_config(sweep).base.max_time == 1.0


@pytest.mark.skipif(gpu_unavailable_reason() is None, reason="a GPU is present here")
def test_run_without_a_driver_exits_2_and_says_what_is_missing(capsys):
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "no NVIDIA driver found" in err or "no GPU" in err
    assert "graphbench kernels --arch sm_90" in err


@pytest.mark.skipif(gpu_unavailable_reason() is None, reason="a GPU is present here")
def test_python_m_graphbench_run_prints_no_traceback():
    result = subprocess.run([sys.executable, "-m", "graphbench", "run"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("graphbench: error: ")


def test_threshold_takes_the_form_speedups_print_in():
    from graphbench.cli.commands import sweep_config
    from graphbench.cli.parser import build_parser

    assert sweep_config(build_parser().parse_args(["sweep", "--threshold", "1.5x"])).threshold == 1.5


@pytest.mark.parametrize("command", ["run", "sweep", "report", "compare", "kernels"])
def test_every_commands_help_states_its_exit_codes_and_examples(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and "exit codes: 0" in out


def test_the_max_noise_example_runs_as_copied(capsys):
    """Each example line is a command and nothing else: copy-paste works."""
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()
             if line.strip().startswith("graphbench run --max-noise")]
    assert lines == ["graphbench run --max-noise 0.5% --max-time 10"]


def test_report_and_compare_leave_their_records_to_the_exit_not_the_collector(capsys):
    """A 20,000-round record is a million objects: the interpreter's last
    collection over them took 0.5 s after the report was printed."""
    import gc

    record = str(Path(__file__).parent / "records" / "attribution.json")
    try:
        for argv in (["report", record], ["compare", record, record]):
            gc.unfreeze()
            assert gc.get_freeze_count() == 0
            main(argv)
            assert gc.get_freeze_count() > 0, argv
    finally:
        gc.unfreeze()
