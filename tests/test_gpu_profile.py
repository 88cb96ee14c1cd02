"""GPU tests of run --profile: it runs without a profiler
(cuProfilerStart/Stop are then no-ops), and ncu profiles its graph nodes."""

import os
import shutil
import subprocess
import sys

import pytest

from graphbench.cli import main

pytestmark = pytest.mark.gpu

# The H200 image has ncu at /usr/local/cuda/bin/ncu, which may not be on PATH.
NCU = shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu",) if os.access(p, os.X_OK)),
                                  None)


def test_profile_runs_without_a_profiler_and_says_what_it_ran(capsys):
    assert main(["run", "--profile", "--modes", "individual,graph,unrolled,loop"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps lines at the terminal's width
    assert "ncu --graph-profiling node --profile-from-start off -o graphbench" in out
    assert "individual 20 calls (20 iterations)" in out and "unrolled 2 calls" in out
    assert "loop 1 call (20 iterations)" in out


@pytest.mark.skipif(NCU is None, reason="ncu (Nsight Compute) is not installed")
def test_ncu_profiles_the_profiling_run(tmp_path):
    report = tmp_path / "graphbench"
    command = [NCU, "--graph-profiling", "node", "--profile-from-start", "off",
               "--target-processes", "all", "--launch-count", "12", "-o", str(report),
               sys.executable, "-m", "graphbench", "run", "--profile",
               "--modes", "individual,graph", "--no-progress"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "graphbench.ncu-rep").is_file(), done.stdout[-3000:]
