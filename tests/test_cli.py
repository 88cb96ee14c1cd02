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


def test_help_lists_commands_and_run_help_has_examples(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--elements" in out and "exit codes" in out


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
