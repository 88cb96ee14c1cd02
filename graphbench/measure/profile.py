"""run --profile: a fixed, small number of iterations of every rung for a
profiler to look at, bracketed by cuProfilerStart/cuProfilerStop and named
by NVTX ranges. Nothing is timed and no round is adaptive: the figures a
profiler reports are its own (kernel times with the profiler attached),
never graphbench's, so a profiling run writes no record.

What runs: each rung's step warmed up (outside the profiled range, so
compilation, module loading and first-launch costs stay out of it), then,
between one cuProfilerStart and one cuProfilerStop, PROFILE_ITERATIONS
pipeline iterations of each rung in ladder order: 20 calls of a one-iteration
step, 2 of the unrolled rung's 10-iteration step, one device-loop launch of
20 iterations. Each rung sits in an NVTX range `graphbench profile MODE`
and each call in `graphbench MODE call I` (replays of an already captured
graph: no range is opened during a capture, see graphbench.measure.nvtx)."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.errors import DeviceError
from graphbench.measure.nvtx import DOMAIN, RANGES

PROFILE_ITERATIONS = 20   # per rung: enough to see the steady state, few for ncu to replay
PROFILE_WARMUP_CALLS = 3  # per rung, before the profiled range


@dataclass(frozen=True)
class ProfileRun:
    """What a profiling run ran, for the CLI to say."""

    modes: tuple[str, ...]
    calls: dict[str, int]        # profiled calls of each rung's step
    iterations: dict[str, int]   # pipeline iterations those calls ran
    nvtx: bool                   # whether the ranges were emitted
    device: str = ""


class CudaProfiler:
    """cuProfilerStart/Stop through cuda.bindings: what nsys's
    --capture-range=cudaProfilerApi and ncu's --profile-from-start off wait for."""

    def start(self) -> None:
        self._call("cuProfilerStart")

    def stop(self) -> None:
        self._call("cuProfilerStop")

    @staticmethod
    def _call(name: str) -> None:
        from cuda.bindings import driver

        result = getattr(driver, name)()
        err = result[0] if isinstance(result, tuple) else result
        if err != driver.CUresult.CUDA_SUCCESS:
            raise DeviceError(f"{name} failed ({err})", "run graphbench run --profile on a "
                              "device the current CUDA driver can profile")


def profile_plan(modes) -> dict[str, int]:
    """Calls of each rung's step for PROFILE_ITERATIONS pipeline iterations."""
    return {mode.name: mode.calls_per_round(PROFILE_ITERATIONS) for mode in modes}


def profile_modes(modes, stream, profiler, ranges=RANGES) -> ProfileRun:
    """Warm every rung up, then run the plan between profiler start and stop."""
    for mode in modes:
        mode.set_round_iterations(PROFILE_ITERATIONS)
    calls = profile_plan(modes)
    for mode in modes:
        for _ in range(PROFILE_WARMUP_CALLS):
            mode.step()
    stream.sync()
    profiler.start()
    try:
        for mode in modes:
            with ranges.range(f"{DOMAIN} profile {mode.name}"):
                for index in range(calls[mode.name]):
                    with ranges.range(f"{DOMAIN} {mode.name} call {index}"):
                        mode.step()
                stream.sync()  # each rung's work ends inside its own range
    finally:
        profiler.stop()
    return ProfileRun(tuple(mode.name for mode in modes), calls,
                      {mode.name: calls[mode.name] * mode.iterations_per_call for mode in modes},
                      ranges.available)


def run_profile(config, profiler=None) -> ProfileRun:
    """A profiling run of `config` on its device (graphbench run --profile)."""
    import numpy as np

    from graphbench.measure.session import Session

    with Session(config, None) as session:
        session.pipeline.fill_random(np.random.default_rng(config.seed))
        run = profile_modes(session.modes, session.stream, profiler or CudaProfiler())
        return ProfileRun(run.modes, run.calls, run.iterations, run.nvtx,
                          f"device {config.device} ({session.info.name})")
