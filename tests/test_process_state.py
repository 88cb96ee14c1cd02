"""graphbench leaves the calling process as it found it (graphbench.process_state):
the CPU affinity of every thread, the environment, the working directory,
signal handlers and warnings filters, after the API, the CLI's main, the
pytest fixture and a failed run; on the GPU after a run that succeeds and
one that fails verification."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import pytest

import graphbench
from graphbench.cli import main
from graphbench.errors import GraphbenchError
from graphbench.process_state import kept

ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(elements=4096, iters=10, rounds=2)

needs_affinity = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two CPUs this process may use, to tell pinned from unpinned")


class CallerThread:
    """A thread of the caller's, alive through the call, whose CPUs are checked too."""

    def __enter__(self) -> "CallerThread":
        self.done, self.ready = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()
        self.ready.wait(5)
        return self

    def _wait(self) -> None:
        self.ready.set()
        self.done.wait(60)

    def cpus(self) -> set[int]:
        return os.sched_getaffinity(self.thread.native_id)

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join(5)


def everything_changed() -> None:
    """What a library could do to its caller, all at once."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for thread in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(thread), {min(os.sched_getaffinity(0))})
        except OSError:
            pass
    os.environ["GRAPHBENCH_TEST_LEFT_BEHIND"] = "1"
    os.chdir("/")
    signal.signal(signal.SIGUSR1, lambda *a: None)
    warnings.simplefilter("ignore")


@needs_affinity
@pytest.mark.parametrize("ending", ["returns", "raises", "interrupted"])
def test_kept_puts_back_every_piece_of_state_however_the_body_ends(ending, tmp_path,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = (os.sched_getaffinity(0), dict(os.environ), os.getcwd(),
              signal.getsignal(signal.SIGUSR1), list(warnings.filters))
    with CallerThread() as caller:
        caller_cpus = caller.cpus()
        with pytest.raises((RuntimeError, KeyboardInterrupt)) if ending != "returns" \
                else _nothing():
            with kept():
                everything_changed()
                assert caller.cpus() != caller_cpus  # the change did reach the caller's thread
                if ending == "raises":
                    raise RuntimeError("a GPU error")
                if ending == "interrupted":
                    raise KeyboardInterrupt
        assert caller.cpus() == caller_cpus
    after = (os.sched_getaffinity(0), dict(os.environ), os.getcwd(),
             signal.getsignal(signal.SIGUSR1), list(warnings.filters))
    assert after == before


def test_a_caller_whose_folder_was_removed_is_still_served(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with kept():
        pass  # no traceback on the way in or out


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@needs_affinity
@pytest.mark.parametrize("call", ["api run", "api bench", "main run", "main sweep"])
def test_a_run_that_fails_leaves_every_thread_on_its_cpus(call, capsys):
    """Without a GPU each call fails (DeviceError, exit 2) after the session
    pinned the process; on a GPU the same calls succeed. Either way the
    caller's CPUs are its own again."""
    calls = {
        "api run": lambda: graphbench.run(modes="individual,graph", **SMALL),
        "api bench": lambda: graphbench.bench(lambda x: x + 1, _array(), iters=10, rounds=2),
        "main run": lambda: main(["run", "--modes", "individual,graph", "--elements", "4096",
                                  "--iters", "10", "--rounds", "2", "--no-progress"]),
        "main sweep": lambda: main(["sweep", "--elements", "4096", "--depth", "1",
                                    "--iters", "10", "--rounds", "2", "--no-progress"]),
    }
    before = os.sched_getaffinity(0)
    with CallerThread() as caller:
        caller_cpus = caller.cpus()
        try:
            calls[call]()
        except GraphbenchError:
            pass
        assert caller.cpus() == caller_cpus
    assert os.sched_getaffinity(0) == before


def _array():
    try:
        import cupy

        return cupy.ones(16, dtype="float32")
    except Exception:  # no GPU: bench refuses before touching it
        import numpy

        return numpy.ones(16, dtype="float32")


@needs_affinity
def test_a_graphbench_test_leaves_the_rest_of_the_pytest_session_unpinned(tmp_path):
    """A user's session: a test that uses the fixture (skipped without a GPU,
    run with one), then a test that reads the session's CPUs."""
    (tmp_path / "test_user.py").write_text(textwrap.dedent(f"""
        import os
        START = os.sched_getaffinity(0)

        def test_a_benchmark(graphbench):
            graphbench.run(modes="individual,graph", elements=4096, iters=10, rounds=2)

        def test_after_it():
            assert os.sched_getaffinity(0) == START, os.sched_getaffinity(0)
    """))
    # -p: the plugin by name, also where graphbench runs from a checkout, not installed
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "graphbench.pytest_plugin", "test_user.py"], cwd=tmp_path,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout or "2 passed" in done.stdout, done.stdout


@pytest.mark.gpu
@needs_affinity
def test_on_the_gpu_a_good_run_and_a_wrong_one_leave_the_cpus_as_they_were(tmp_path):
    from graphbench.measure.kernels import load_source

    wrong = tmp_path / "wrong.cu"
    wrong.write_text(load_source().replace("out[i] = x[i] * y[i];",
                                           "out[i] = x[i] * y[i] + 1.0f;"))
    before = os.sched_getaffinity(0)
    with CallerThread() as caller:
        caller_cpus = caller.cpus()
        good = graphbench.run(modes="individual,graph", **SMALL)
        assert good.verified
        assert os.sched_getaffinity(0) == before and caller.cpus() == caller_cpus
        bad = graphbench.run(modes="individual,graph", kernel_source=str(wrong), **SMALL)
        assert not bad.verified
        assert os.sched_getaffinity(0) == before and caller.cpus() == caller_cpus
