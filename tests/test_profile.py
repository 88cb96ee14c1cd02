"""NVTX ranges and run --profile, on CPU: the
ranges' names and no-op path with a fake nvtx module, their count per round
(never per call), the profiling run's plan with fake modes and a fake
profiler, and the exact command lines it prints.

Covers graphbench/measure/nvtx.py."""

import pytest

from graphbench.gate.stopping import FixedRounds
from graphbench.cli import main
from graphbench.cli.profile import profile_commands
from graphbench.measure import nvtx
from graphbench.measure.nvtx import Ranges
from graphbench.measure.profile import PROFILE_ITERATIONS, profile_modes
from graphbench.measure.timing import LoopHooks, Sample, run_rounds


class FakeNvtx:
    def __init__(self):
        self.events, self.depth = [], 0

    def push_range(self, message=None, domain=None):
        self.events.append(("push", message, domain))
        self.depth += 1

    def pop_range(self, domain=None):
        self.events.append(("pop", domain))
        self.depth -= 1

    @property
    def pushed(self):
        return [e[1] for e in self.events if e[0] == "push"]


@pytest.fixture
def fake_nvtx(monkeypatch):
    fake = FakeNvtx()
    monkeypatch.setattr(nvtx, "RANGES", Ranges(fake, loaded=True))
    monkeypatch.setattr("graphbench.measure.timing.RANGES", nvtx.RANGES)
    return fake


class CountingTimer:
    """Calls each step `iters` times, as the real timer does, and notes the
    open NVTX ranges at each call."""

    def __init__(self, fake):
        self.fake, self.step_calls, self.depths = fake, 0, []

    def time_round(self, step, iters):
        for _ in range(iters):
            step()
            self.step_calls += 1
            self.depths.append(self.fake.depth)
        return Sample(wall_s=1e-3, submit_s=1e-4, device_s=1e-3)


def test_one_range_per_round_named_by_mode_and_none_per_call(fake_nvtx):
    timer = CountingTimer(fake_nvtx)
    steps = {"individual": lambda: None, "graph": lambda: None}
    run_rounds(steps, 500, timer, FixedRounds(4), LoopHooks(warmup_rounds=1))
    assert timer.step_calls == 2 * 500 * 5
    assert len(fake_nvtx.pushed) == 2 * 5  # rounds and warm-ups, whatever the calls per round
    assert "graphbench graph round 3" in fake_nvtx.pushed
    assert "graphbench individual warm-up 0" in fake_nvtx.pushed
    assert set(timer.depths) == {1} and fake_nvtx.depth == 0
    assert {e[-1] for e in fake_nvtx.events} == {"graphbench"}


def test_without_nvtx_the_ranges_are_no_ops():
    ranges = Ranges(None, loaded=True)
    assert not ranges.available
    with ranges.range("graphbench graph round 0"):
        pass
    assert ranges.range("a") is ranges.range("b")  # one shared no-op, nothing made per round


class FakeMode:
    def __init__(self, name, iterations_per_call=1, log=None):
        self.name, self.iterations_per_call, self.log = name, iterations_per_call, log
        self.step = lambda: log.append(name)

    def set_round_iterations(self, iters):
        if self.name == "loop":
            self.iterations_per_call = iters

    def calls_per_round(self, iters):
        return max(1, round(iters / self.iterations_per_call))


class FakeProfiler:
    def __init__(self, log):
        self.log = log

    def start(self):
        self.log.append("start")

    def stop(self):
        self.log.append("stop")


class FakeStream:
    def sync(self):
        pass


def test_profile_runs_a_fixed_plan_between_start_and_stop(fake_nvtx):
    log = []
    modes = [FakeMode("individual", log=log), FakeMode("graph", log=log),
             FakeMode("unrolled", 10, log), FakeMode("loop", 1000, log)]
    run = profile_modes(modes, FakeStream(), FakeProfiler(log), nvtx.RANGES)
    assert run.calls == {"individual": 20, "graph": 20, "unrolled": 2, "loop": 1}
    assert set(run.iterations.values()) == {PROFILE_ITERATIONS} and run.nvtx
    profiled = log[log.index("start") + 1:log.index("stop")]
    assert profiled == ["individual"] * 20 + ["graph"] * 20 + ["unrolled"] * 2 + ["loop"]
    assert log[:log.index("start")].count("graph") == 3  # warm-up, outside the range
    assert fake_nvtx.pushed[:2] == ["graphbench profile individual", "graphbench individual call 0"]
    assert "graphbench graph call 19" in fake_nvtx.pushed and fake_nvtx.depth == 0


def test_profiler_stops_when_a_step_fails(fake_nvtx):
    log = []
    mode = FakeMode("graph", log=log)
    mode.step = lambda: (_ for _ in ()).throw(RuntimeError("boom")) if "start" in log else None
    with pytest.raises(RuntimeError):
        profile_modes([mode], FakeStream(), FakeProfiler(log), nvtx.RANGES)
    assert log == ["start", "stop"] and fake_nvtx.depth == 0


def test_the_profiler_command_lines():
    argv = ["run", "--profile", "--modes", "individual,graph", "--elements", "2^20"]
    assert profile_commands(argv) == [
        "nsys profile --capture-range=cudaProfilerApi --cuda-graph-trace=node -o graphbench "
        "python -m graphbench run --profile --modes individual,graph --elements '2^20'",
        "ncu --graph-profiling node --profile-from-start off -o graphbench "
        "python -m graphbench run --profile --modes individual,graph --elements '2^20'"]


@pytest.mark.parametrize("extra, words", [(["--json", "out.json"], "--json"),
                                          (["--save"], "--save has nothing to write"),
                                          (["--processes", "3"], "--processes"),
                                          (["--device", "0,1"], "one device")])
def test_profile_refuses_what_it_cannot_give_before_the_gpu(extra, words, capsys):
    assert main(["run", "--profile", *extra]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("args, flags", [(["--rounds", "5"], "--rounds"),
                                         (["--max-noise", "2%", "--min-rounds", "30"],
                                          "--max-noise, --min-rounds"),
                                         (["--warmup", "3"], "--warmup")])
def test_profile_refuses_sampling_options_it_would_ignore(args, flags, capsys):
    from graphbench.cli import main

    assert main(["run", "--profile", *args]) == 2
    err = capsys.readouterr().err
    assert f"so {flags} would be ignored; refused" in err and "driver" not in err
