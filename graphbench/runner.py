"""A run, end to end: the data flow in one place.

arguments -> validated config (checked before any GPU work) -> device and
compiled kernels -> pipeline -> modes -> interleaved timed rounds, until the
stop rule (graphbench.gate.stopping) says enough -> floor, lifecycle and
update measurements -> verification -> the trace, taken in a fresh process,
and its escape checks (--attribute) -> the typed record, one per process,
merged (graphbench.stats.merge) -> the same at each gate size.

This is the one layer that joins measurement and statistics; the command
line, the Python API and the pytest plugin call it, and graphbench.measure
never imports graphbench.stats or graphbench.gate. `progress(total, unit)` is the caller's
display: a context manager giving a callback `(done, reason)` or None (the
CLI's shows a bar; the API's none)."""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import replace
from typing import Callable

from graphbench.config import DEFAULT_STAGES, RunConfig
from graphbench.ladder import KERNELS
from graphbench.errors import UsageError
from graphbench.record.model import RunRecord

Progress = Callable[[int | None, str], object]


def check_run(config: RunConfig, processes: int = 1, spec=None, name=None) -> None:
    """The pipeline, its sizes and the kernel sources, before any GPU work.
    `spec`: an already-built pipeline object instead of config.pipeline.
    `name`: a flag as the caller names it in messages (the API: ab_source
    for --ab); None: the flag itself."""
    from graphbench.counts import parse_processes
    from graphbench.measure.kernels import load_source
    from graphbench.pipeline.files import plan
    from graphbench.pipeline.objects import loaded_object
    from graphbench.preflight import as_flag, check_configs

    name = name or as_flag

    parse_processes(processes, "processes")  # the CLI's check of --processes, for every caller
    if config.attribute:  # before any GPU work: the trace comes last, after minutes of it
        from graphbench.measure.attribution import require_cupti

        require_cupti()
    if spec is None:
        check_configs([config], name)
        return
    if processes != 1 or config.gate_sizes:  # fresh processes read a file, not an object
        raise UsageError("a pipeline object runs only in this process: processes and "
                         "gate_sizes need its pipeline file",
                         "give the file's path or shipped name instead of the object")
    if config.depth != 1 or tuple(config.stages) != DEFAULT_STAGES or config.params:
        raise UsageError("a pipeline object is already built: depth, stages and params do "
                         "not apply", "build the object with the settings it should have")
    plan(loaded_object(spec).spec, config.elements)
    if config.kernel_source:
        load_source(config.kernel_source, name("--kernel-source"))
    if config.ab_source:
        from graphbench.pipeline.revision import load_base

        load_base(config, loaded_object(spec))


def measure(config: RunConfig, processes: int = 1, progress: Progress | None = None,
            spec=None) -> RunRecord:
    """The run, and the same run at each of its gate sizes.

    A size point runs in fresh processes even when the run itself does not:
    after one run's checks, a second run in the same process measures more
    busy time (see measure/benchmark.py), and its baseline's points ran
    fresh. It chooses its own iterations
    (about 5 ms per round, half a run's), and measures only what the gate
    reads there: busy time every set of rounds, the rest thinned or not
    measured (graphbench.gate.stopping.stop_rule; measure/benchmark.py).
    Fresh processes of the run and of its points run as one queue
    (graphbench.measure.processes.run_sets)."""
    from graphbench.measure.device import list_devices

    if processes > 1 or config.gate_sizes:
        list_devices()  # no usable GPU: a DeviceError, as in one process, not a child's failure
    main = replace(config, gate_sizes=())
    if not config.gate_sizes:
        return measure_one(main, processes, progress, spec)
    points = [replace(config, elements=size, gate_sizes=(), iters=None, gate_point=True)
              for size in config.gate_sizes]
    if processes == 1 and not fresh_process_needed(config.device):
        record, merged = measure_one(main, 1, progress, spec), fresh_sets(points, 1, progress)
    else:
        record, *merged = fresh_sets([main, *points], processes, progress)
    return replace(record, gate_points=tuple(merged))


def measure_one(config: RunConfig, processes: int = 1, progress: Progress | None = None,
                spec=None) -> RunRecord:
    """One run in this process, or `processes` fresh ones merged.

    One run goes to a fresh process too where this one has used the GPU
    before (fresh_process_needed): later runs in one process read higher
    busy time than the first (docs/measurement.md#time-first-verify-after-the-after-checks-state),
    and a sweep's later points, a second launch shape and the API's later
    calls were all such runs. A pipeline object, which
    no other process can rebuild, still runs here; its record counts the
    runs before it (Environment.earlier_runs) and its report warns."""
    shown = progress or (lambda total, unit: nullcontext(None))
    if processes == 1 and not (spec is None and fresh_process_needed(config.device)):
        with shown(config.rounds, "rounds") as on_round:
            return run_benchmark(config, on_round=on_round, spec=spec)
    return fresh_sets([config], processes, progress)[0]


def fresh_sets(configs: list[RunConfig], processes: int,
               progress: Progress | None = None) -> list[RunRecord]:
    """Each config in `processes` fresh processes, merged: one record a config."""
    from graphbench.stats.merge import merge_runs
    from graphbench.measure.processes import run_sets

    shown = progress or (lambda total, unit: nullcontext(None))
    with shown(len(configs) * processes, "processes") as on_done:
        done = (lambda count: on_done(count, None)) if on_done else None
        return [merge_runs(records) for records in run_sets(configs, processes, done)]


def fresh_process_needed(device: int) -> bool:
    """Whether this process has used `device` (or run graphbench) already."""
    from graphbench.measure.device import gpu_in_use
    from graphbench.measure.session import sessions_opened

    return sessions_opened() > 0 or gpu_in_use(device)


def preload() -> None:
    """Import what run_benchmark runs on, touching no GPU: a process started
    ahead of its turn does its imports while those before it check and set
    up, never while one times (graphbench.measure.processes.Child)."""
    import cupy  # noqa: F401 - the checks' reference; importing it opens no CUDA context

    import graphbench.stats.attribution  # noqa: F401
    import graphbench.gate.stopping  # noqa: F401
    import graphbench.measure.benchmark  # noqa: F401
    import graphbench.measure.session  # noqa: F401


def run_benchmark(config: RunConfig, on_round: Callable | None = None,
                  kernels: dict | None = None, spec=None,
                  on_timed: Callable[[], object] | None = None,
                  before_timing: Callable[[], object] | None = None) -> RunRecord:
    """Run `config` in this process, on its device, and return the record.

    `kernels` replaces the shipped kernels (a test plants a wrong one); `spec`,
    a pipeline object, config.pipeline's file. `before_timing` is called once
    device, kernels and inputs are ready (a fresh process waits there:
    graphbench.measure.processes); `on_timed` once the last figure the host
    times is taken (the checks and the busy time after them follow)."""
    import numpy as np

    from graphbench.measure.benchmark import (busy_after_checks, process_run, run_record,
                                              verify_modes)
    from graphbench.measure.session import Session
    from graphbench.measure.verify import all_passed
    from graphbench.pipeline.files import no_hard_exit

    started, timed = time.perf_counter(), on_timed or (lambda: None)
    with no_hard_exit("the pipeline"), Session(config, kernels, spec) as session:
        rng = np.random.default_rng(config.seed)
        session.pipeline.fill_random(rng)  # time on fresh random data, not the constants
        session.pipeline.reference()  # a reference that raises or misshapes fails before timing
        sampling, extras, checks = timed_work(session, rng, on_round, before_timing)
        if not config.attribute:
            timed()
        checks = verify_modes(session, rng) + checks
        if all_passed(checks):
            extras = {**extras, "busy_after_checks": busy_after_checks(session)}
        if config.attribute:
            extras, checks = traced(session, spec, kernels, extras, checks)
            timed()
        if not all_passed(checks):  # no figures for wrong results; a trace shows the escape
            sampling, extras = None, {k: v for k, v in extras.items() if k == "attribution"}
        run = process_run(session, sampling, checks, extras, time.perf_counter() - started)
        return run_record(session, run)


def timed_work(session, rng, on_round: Callable | None, before_timing: Callable | None):
    """Once `before_timing` has returned: the iterations a round (unless
    given), the timed rounds, and the extras with their checks."""
    from graphbench.gate.stopping import stop_rule
    from graphbench.measure.benchmark import calibrate_iters, measure_extras, sample

    if before_timing:
        before_timing()
    if session.config.iters is None:
        session.config = replace(session.config, iters=calibrate_iters(session))
    sampling = sample(session, rng, on_round, stop_rule(session.config))
    return (sampling, *measure_extras(session, sampling, rng))


def traced(session, spec, kernels, extras: dict, checks: list) -> tuple[dict, list]:
    """run --attribute's trace and its escape checks, last, after every timed
    figure; also after a failed check: a kernel that escaped capture is the
    likeliest cause of a wrong result."""
    from graphbench.stats.attribution import escape_checks

    trace = take_trace(session, fresh=fresh_trace(session, spec, kernels))
    return {**extras, "attribution": trace}, checks + escape_checks(trace)


def fresh_trace(session, spec, kernels) -> bool:
    """Whether the trace is taken in a fresh process (take_trace says when not)."""
    return spec is None and kernels is None and getattr(session.plan, "framework", KERNELS) == KERNELS


def take_trace(session, fresh: bool):
    """run --attribute's trace of every rung: in a fresh process of the same
    config, seed and inputs (graphbench.measure.attribution says why), or in
    this one, its Attribution saying so: for a pipeline object or planted
    kernels, which no other process can rebuild, and for torch and CuPy
    callables, whose libraries choose kernels by the process's state (a
    fresh process may replay other kernels than the process that was timed:
    docs/profiling.md#per-stage-attribution-run---attribute)."""
    from graphbench.measure.attribution import trace_rungs
    from graphbench.measure.trace_child import trace_fresh
    from graphbench.record.trace import MEASURING

    return trace_fresh(session.config) if fresh else trace_rungs(session, MEASURING)
