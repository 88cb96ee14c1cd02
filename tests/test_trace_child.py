"""run --attribute's trace in a fresh process, on CPU: the child's command
line, the config it is given and the trace it writes back, a failing child
as one GraphbenchError line, and which process run_benchmark traces in (a
pipeline object keeps the measuring process's trace)."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from graphbench.config import RunConfig
from graphbench.errors import EXIT_OK, EXIT_USAGE, GraphbenchError
from graphbench.measure import trace_child as T
from graphbench.record.codec import decode, parse_json, read_run, to_json
from graphbench.record.trace import FRESH, MEASURING, Attribution

HERE = Path(__file__).resolve().parent
# as the measuring process holds it after calibration: iterations set, rungs chosen
CONFIG = RunConfig(elements=4096, iters=137, seed=11, modes=("individual", "graph"),
                   attribute=True)


@pytest.fixture(scope="module")
def fixture_trace() -> Attribution:
    return replace(read_run(HERE / "records" / "attribution.json").runs[0].attribution,
                   process=FRESH)


def test_the_child_is_this_python_running_the_trace_module():
    assert T.trace_command("c.json", "t.json") == [
        sys.executable, "-m", "graphbench.measure.trace_child", "c.json", "t.json"]


def test_the_child_gets_the_config_as_the_parent_holds_it_and_its_trace_comes_back(
        monkeypatch, fixture_trace):
    """The whole exchange, the child's main run in this process: the config
    file decodes to the parent's config, the trace file to the child's trace."""
    seen = []

    def child_trace(config):
        seen.append(config)
        return fixture_trace

    def run(command, **kwargs):
        assert command[:3] == [sys.executable, "-m", T.TRACE_MODULE]
        assert kwargs["stdout"] == subprocess.DEVNULL  # nothing of the child's on the terminal
        return subprocess.CompletedProcess(command, T.main(command[3:]), "", "")

    monkeypatch.setattr(T, "trace_config", child_trace)
    monkeypatch.setattr(T.subprocess, "run", run)
    assert T.trace_fresh(CONFIG) == fixture_trace
    assert seen == [CONFIG]


def test_the_config_file_round_trips(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(to_json(CONFIG)))
    assert decode(RunConfig, parse_json(path.read_text(), str(path)), "config") == CONFIG


def test_the_child_writes_a_trace_the_parent_reads(monkeypatch, tmp_path, fixture_trace):
    config, trace = tmp_path / "config.json", tmp_path / "trace.json"
    config.write_text(json.dumps(to_json(CONFIG)))
    monkeypatch.setattr(T, "trace_config", lambda c: fixture_trace)
    assert T.main([str(config), str(trace)]) == EXIT_OK
    found = T.read_trace(trace)
    assert found == fixture_trace and found.process == FRESH


def test_an_old_trace_without_its_process_reads_as_the_measuring_process(tmp_path,
                                                                          fixture_trace):
    document = to_json(fixture_trace)
    del document["process"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    assert T.read_trace(path).process == MEASURING


def one_line_error(call) -> str:
    with pytest.raises(GraphbenchError) as info:
        call()
    line = info.value.one_line()
    assert "\n" not in line
    return line


def test_a_failing_child_is_one_graphbench_error_naming_its_cause():
    """A real child: its pipeline file is missing, on any machine."""
    config = replace(CONFIG, pipeline="/nonexistent/stages.py")
    line = one_line_error(lambda: T.trace_fresh(config))
    assert line.startswith("the trace's fresh process failed (exit 2): pipeline file "
                           "'/nonexistent/stages.py' not found")
    assert "graphbench: error" not in line


@pytest.mark.parametrize("code, stderr, said", [
    (1, "Traceback (most recent call last):\n  ...\nRuntimeError: CUPTI_ERROR_UNKNOWN\n",
     "the trace's fresh process failed (exit 1): RuntimeError: CUPTI_ERROR_UNKNOWN"),
    (-11, "", "the trace's fresh process failed (exit -11): no message"),
    (0, "", "the trace's fresh process wrote no readable trace: "),
])
def test_a_child_that_dies_or_writes_nothing_is_one_line(monkeypatch, code, stderr, said):
    monkeypatch.setattr(T.subprocess, "run", lambda command, **kw:
                        subprocess.CompletedProcess(command, code, "", stderr))
    assert one_line_error(lambda: T.trace_fresh(CONFIG)).startswith(said)


def test_the_child_refuses_a_wrong_command_line_and_a_bad_config(tmp_path, capsys):
    assert T.main(["only-one"]) == EXIT_USAGE
    assert "usage: python -m graphbench.measure.trace_child" in capsys.readouterr().err
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    assert T.main([str(bad), str(tmp_path / "trace.json")]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("graphbench: error: ") and "not valid JSON" in err[0]
    assert not (tmp_path / "trace.json").exists()


class FakeSession:
    """Just enough of a Session for run_benchmark with its GPU work stubbed."""

    framework = "cuda.core"

    def __init__(self, config, kernels, spec=None):
        self.config = config
        self.pipeline = SimpleNamespace(fill_random=lambda rng: None, reference=lambda: None)
        self.plan = SimpleNamespace(framework=self.framework)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


@pytest.fixture
def traced_where(monkeypatch):
    """run_benchmark with no GPU work; which trace it took, and with what."""
    from graphbench.measure import attribution, benchmark, session

    calls = []
    monkeypatch.setattr(session, "Session", FakeSession)
    for name, stub in {"sample": lambda *a: None, "measure_extras": lambda *a: ({}, []),
                       "verify_modes": lambda *a: [], "busy_after_checks": lambda *a: {},
                       "process_run": lambda s, sampling, checks, extras, t: extras,
                       "run_record": lambda s, run: run}.items():
        monkeypatch.setattr(benchmark, name, stub)
    monkeypatch.setattr(attribution, "trace_rungs", lambda s, process=MEASURING:
                        calls.append(("measuring", s.config)) or Attribution((), process=process))
    monkeypatch.setattr(T, "trace_fresh", lambda config:
                        calls.append(("fresh", config)) or Attribution((), process=FRESH))
    return calls


def test_run_benchmark_traces_in_a_fresh_process_by_default(traced_where):
    from graphbench.runner import run_benchmark

    extras = run_benchmark(CONFIG)
    assert traced_where == [("fresh", CONFIG)] and extras["attribution"].process == FRESH


def test_a_pipeline_object_keeps_the_trace_in_the_measuring_process(traced_where):
    """No other process can rebuild an object the API was given, nor a
    kernel set a test plants: the trace says where it was taken."""
    from graphbench.runner import run_benchmark

    assert run_benchmark(CONFIG, spec=object())["attribution"].process == MEASURING
    assert run_benchmark(CONFIG, kernels={"planted": None})["attribution"].process == MEASURING
    assert [where for where, _ in traced_where] == ["measuring", "measuring"]
    assert "attribution" not in run_benchmark(replace(CONFIG, attribute=False))  # none asked
    assert len(traced_where) == 2


@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_a_callable_pipeline_is_traced_in_the_measuring_process(traced_where, monkeypatch,
                                                                 framework):
    """Its libraries choose kernels by the process's state (a fresh process's
    torch replay ran other kernels than the timed one's)."""
    from graphbench.runner import run_benchmark

    monkeypatch.setattr(FakeSession, "framework", framework)
    assert run_benchmark(CONFIG)["attribution"].process == MEASURING
    assert [where for where, _ in traced_where] == ["measuring"]


def test_the_trace_process_runs_unpinned_on_every_cpu_it_may_use(monkeypatch):
    """CUPTI's threads would otherwise share the launching thread's one CPU,
    inherited from the measuring process's pinning."""
    import os

    from graphbench.measure import attribution, session

    seen = {}

    class FakeSession:
        def __init__(self, config, kernels):
            seen["pin_cpu"] = config.pin_cpu
            self.pipeline = SimpleNamespace(fill_random=lambda rng: None)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(session, "Session", FakeSession)
    monkeypatch.setattr(attribution, "trace_rungs", lambda s, process=FRESH: "trace")
    monkeypatch.setattr(os, "sched_setaffinity",
                        lambda pid, cpus: seen.setdefault("cpus", set(cpus)))
    assert T.trace_config(CONFIG) == "trace"
    assert seen["pin_cpu"] is False
    assert seen["cpus"] == set(range(os.cpu_count()))
