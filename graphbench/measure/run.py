"""A run as the library gives it: validated before any GPU work, measured
in this process or in fresh ones, and at each of its gate sizes.

`progress(total, unit)` is the caller's display: a context manager giving a
callback `(done, reason)` or None (the CLI's shows a bar; the API's none)."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from typing import Callable

from graphbench.config import DEFAULT_STAGES, RunConfig
from graphbench.errors import UsageError
from graphbench.record.model import RunRecord

Progress = Callable[[int | None, str], object]


def check_run(config: RunConfig, processes: int = 1, spec=None) -> None:
    """The pipeline, its sizes and the kernel sources, before any GPU work.
    `spec`: an already-built pipeline object instead of config.pipeline."""
    from graphbench.measure.kernels import load_source
    from graphbench.pipeline.files import plan
    from graphbench.preflight import check_configs
    from graphbench.pipeline.objects import loaded_object

    if not isinstance(processes, int) or isinstance(processes, bool) or processes < 1:
        raise UsageError(f"processes must be a positive integer, got {processes!r}")
    if config.attribute:  # before any GPU work: the trace comes last, after minutes of it
        from graphbench.measure.attribution import require_cupti

        require_cupti()
    if spec is None:
        check_configs([config])
        return
    if processes != 1 or config.gate_sizes:  # fresh processes read a file, not an object
        raise UsageError("a pipeline object runs only in this process: processes and "
                         "gate_sizes need its pipeline file",
                         "give the file's path or shipped name instead of the object")
    if config.depth != 1 or tuple(config.stages) != DEFAULT_STAGES:
        raise UsageError("a pipeline object is already built: depth and stages do not apply",
                         "build the object with the depth and stages it should have")
    plan(loaded_object(spec).spec, config.elements)
    for source in (config.kernel_source, config.ab_source):
        if source:
            load_source(source)


def measure(config: RunConfig, processes: int = 1, progress: Progress | None = None,
            spec=None) -> RunRecord:
    """The run, and the same run at each of its gate sizes.

    A size point runs in fresh processes even when the run itself does not:
    after one run's checks, a second run in the same process measured 10%
    more busy time at 2^20 elements on the H200 (see measure/benchmark.py),
    and its baseline's points ran fresh. It chooses its own iterations
    (about 10 ms per round, as a sweep does)."""
    from graphbench.analyze.merge import merge_runs
    from graphbench.measure.processes import run_processes

    record = measure_one(replace(config, gate_sizes=()), processes, progress, spec)
    points = tuple(merge_runs(run_processes(replace(config, elements=size, gate_sizes=(),
                                                    iters=None), processes))
                   for size in config.gate_sizes)
    return replace(record, gate_points=points) if points else record


def measure_one(config: RunConfig, processes: int = 1, progress: Progress | None = None,
                spec=None) -> RunRecord:
    """One run in this process, or `processes` fresh ones merged."""
    from graphbench.analyze.merge import merge_runs
    from graphbench.measure.benchmark import run_benchmark
    from graphbench.measure.processes import run_processes

    shown = progress or (lambda total, unit: nullcontext(None))
    if processes == 1:
        with shown(config.rounds, "rounds") as on_round:
            return run_benchmark(config, on_round=on_round, spec=spec)
    with shown(processes, "processes") as on_done:
        done = (lambda count: on_done(count, None)) if on_done else None
        return merge_runs(run_processes(config, processes, done))
