"""One process's measurement, step by step: sampling the interleaved
rounds, the floor, lifecycle and update measurements, verification, and the
process's part of the record. graphbench.runner strings them together.

Timing comes before verification, and a run whose checks fail keeps none of
its figures: once checks have run, timed rounds after them can leave the
pipeline kernels slower for the rest of the process at an unchanged SM
clock, while rounds with no checks before them stay at the figure a bare
loop in a fresh process measures
(docs/measurement.md#time-first-verify-after-the-after-checks-state).
"""

from __future__ import annotations

from dataclasses import replace

from graphbench.ladder import HEADLINE, KERNELS
from graphbench.measure import provenance
from graphbench.measure.busy import Hold
from graphbench.measure.conditions import LaunchProbe
from graphbench.measure.cpu_seek import CpuSeeker, seeker
from graphbench.measure.costs import time_launch_floor, time_node_costs
from graphbench.measure.kernels import (EMPTY_KERNEL, HOLD_KERNEL, L2_FLUSH_KERNEL, PROBE_KERNEL,
                                        load_harness_source, source_digest)
from graphbench.measure.l2 import L2Flusher
from graphbench.measure.probes import Probes, busy_probe
from graphbench.measure.repoint import graph_update_experiment
from graphbench.measure.session import Session
from graphbench.measure.timing import ColdTimer, LoopHooks, Sampling, run_rounds
from graphbench.measure.verify import all_passed, compare_outputs
from graphbench.metrics import ROUND_METRICS
from graphbench.record.model import (Check, Environment, ModeSamples, PipelineInfo, ProcessRun,
                                     RunRecord)
from graphbench.record.machine import LAUNCH_PROBE
from graphbench.sampling import StopRule

ROUND_TARGET_S = 0.01   # auto --iters: long against timer resolution, short against drift
MIN_AUTO_ITERS, MAX_AUTO_ITERS = 10, 1000
NOT_RUN = "not-run: verification failed"
# a --gate-sizes point (RunConfig.gate_point) is timed for what the gate reads
# there, its busy readings (one a set of rounds, as in any run): shorter
# rounds and a submit reading every few sets (measure/probes.py); the rest is
# not measured
GATE_POINT_ROUND_S = 0.005
GATE_POINT_SKIPS = ("launch floor, graph lifecycle, node costs and graph update not measured "
                    "at a gate size: the gate reads only its GPU busy time there")


def run_record(session: Session, run: ProcessRun) -> RunRecord:
    """The record of one process's run, with where and with what it ran."""
    return RunRecord(tool=provenance.tool_info(), created=provenance.utc_timestamp(),
                     host=provenance.host_info(), packages=provenance.package_versions(),
                     device=session.info,
                     config=session.config.resolved(rtol=session.plan.rtol,
                                                    atol=session.plan.atol),
                     pipeline=describe_pipeline(session), runs=(run,))


def round_iterations(session: Session) -> dict[str, int]:
    """Pipeline iterations in one round of each mode: its calls times the
    iterations one call runs (what per-iteration figures divide by)."""
    return {mode.name: mode.calls_per_round(session.config.iters) * mode.iterations_per_call
            for mode in session.modes}


def process_run(session: Session, sampling: Sampling | None, checks: list[Check],
                extras: dict, elapsed_s: float) -> ProcessRun:
    config, iterations = session.config, round_iterations(session)
    workloads = {mode.name: mode.workload for mode in session.modes}
    modes = {name: ModeSamples(**{f"{metric}_us": tuple(sampling.per_iteration_us(
                                   name, metric, iterations[name])) for metric in ROUND_METRICS},
                               workload=workloads[name],
                               probe_before_us=tuple(a for a, _ in sampling.probes.get(name, ())),
                               probe_after_us=tuple(b for _, b in sampling.probes.get(name, ())))
             for name in (sampling.samples if sampling else {})}
    return ProcessRun(
        seed=config.seed, rounds=sampling.rounds if sampling else 0,
        stop_reason=sampling.stop_reason if sampling else NOT_RUN, elapsed_s=elapsed_s,
        sampling_s=sampling.elapsed_s if sampling else None, modes=modes,
        conditions=tuple(sampling.conditions) if sampling else (), checks=tuple(checks),
        environment=Environment(session.monitor.other_processes(), session.pinned_cpu,
                                sampling.cpu_moves if sampling else None,
                                sampling.interrupt_cpus if sampling else (), LAUNCH_PROBE,
                                session.earlier_runs),
        unavailable=session.unavailable, **extras)


def calibrate_iters(session: Session) -> int:
    """Iterations for one round of the slowest mode to last about ROUND_TARGET_S
    (GATE_POINT_ROUND_S at a gate size's point)."""
    slowest = session.modes[0]  # individual launches, or the first rung asked for
    session.timer.time_round(slowest.step, 2)  # warm-up
    per_iteration = session.timer.time_round(slowest.step, 5).wall_s / (
        5 * slowest.iterations_per_call)
    target = GATE_POINT_ROUND_S if session.config.gate_point else ROUND_TARGET_S
    return int(min(MAX_AUTO_ITERS, max(MIN_AUTO_ITERS, target / per_iteration)))


def not_measured(session: Session) -> tuple[str, ...]:
    """What the record must say was not measured, never a made-up figure."""
    return tuple(f"busy time not measured for {mode.name}: its CUDA graphs are "
                 f"{mode.pipeline.framework}'s own and cannot be captured again"
                 for mode in session.modes if mode.busy_enqueue is None) + \
        tuple(getattr(session.pipeline, "notes", ()))


def fast_cpu_seeker(session: Session, probe) -> CpuSeeker | None:
    """Where the process is pinned, a seeker that starts each set of rounds
    on a CPU in the host's fast state, having surveyed them all once."""
    found = seeker(session.pinned_cpu, session.near_cpus, probe)
    if found:
        found.survey()
    return found


def sample(session: Session, rng, on_round, stop: StopRule) -> Sampling:
    config = session.config
    flusher = L2Flusher(session.info.l2_bytes, session.stream, session.kernels[L2_FLUSH_KERNEL],
                        session.info.multiprocessors) if config.flush_l2 else None
    timer = ColdTimer(session.device, session.stream, flusher.flush) if flusher else session.timer
    for mode in session.modes:
        mode.set_round_iterations(config.iters)
    probes = Probes(session, flusher.flush if flusher else None)
    calls = {mode.name: mode.calls_per_round(config.iters) for mode in session.modes}
    host_probe = LaunchProbe(session.stream, session.kernels[PROBE_KERNEL])
    seek = fast_cpu_seeker(session, host_probe)
    try:
        hooks = LoopHooks(warmup_rounds=config.warmup_rounds, on_round=on_round,
                          monitor=probes.read, host_probe=host_probe, set_probe=seek)
        sampling = run_rounds({mode.name: mode.step for mode in session.modes}, calls,
                              timer, stop, hooks)
        return replace(sampling, cpu_moves=seek.moves, interrupt_cpus=seek.avoided) \
            if seek else sampling
    finally:
        if seek:
            seek.restore()
        probes.close()
        if flusher:
            timer.close()
            flusher.release()


def busy_after_checks(session: Session) -> dict:
    """Each workload's busy time once more, after verification. Checks
    followed by timed work can leave the stage kernels slower for the rest
    of the process (see the module docstring): the state a user's
    application, which does its own CuPy work, may well be in. The gate
    uses the figure from before the checks; this one is reported beside it."""
    hold = Hold(session.device, session.stream, session.kernels[HOLD_KERNEL])
    readings = {}
    try:
        for mode in session.modes:
            if mode.workload not in readings and mode.busy_enqueue is not None:
                probe = busy_probe(session, mode, hold)
                readings[mode.workload] = probe.measure()
                probe.close()
    finally:
        hold.close()
    return readings


def check_mode(session: Session, mode, label: str) -> list[Check]:
    """Poison, run one call of `mode`, and compare every checked output
    with the reference on the same inputs."""
    pipeline = session.pipeline
    expected = pipeline.reference()
    pipeline.poison()
    mode.step()
    session.stream.sync()
    return compare_outputs(label, pipeline.result(), expected, session.tolerance)


def verify_modes(session: Session, rng) -> list[Check]:
    """Every mode on random data; then every graph rung replayed on new
    contents of the same buffers (a graph bakes in pointers, not data) and
    on constant inputs (input k holds k + 1)."""
    pipeline = session.pipeline
    pipeline.fill_random(rng)
    checks = [c for mode in session.modes for c in check_mode(session, mode, mode.name)]
    for graph in (mode for mode in session.modes if mode.is_graph):
        pipeline.fill_random(rng)
        checks += check_mode(session, graph, f"{graph.name}: replay with new data")
        pipeline.fill_constant()
        checks += check_mode(session, graph, f"{graph.name}: constant inputs 1, 2, 3...")
    return checks


def measure_extras(session: Session, sampling: Sampling, rng) -> tuple[dict, list[Check]]:
    """Launch floor; each graph rung's lifecycle; with the graph rung of a
    kernels pipeline, capture and instantiate at several node counts and the
    update costs, with the update's own checks. None at a gate size's point."""
    if session.config.gate_point:
        return {"skipped": (GATE_POINT_SKIPS,)}, []
    stream, pipeline = session.stream, session.pipeline
    skipped = not_measured(session)
    extras: dict = {"launch_floor": time_launch_floor(stream, session.kernels[EMPTY_KERNEL]),
                    "lifecycles": {mode.name: mode.lifecycle()
                                   for mode in session.modes if mode.is_graph},
                    "skipped": skipped}
    if HEADLINE not in sampling.samples:
        return extras, []
    if pipeline.framework != KERNELS:
        return {**extras, "skipped": skipped + (
            f"graph update not measured: it re-points cuda.core kernel nodes, the "
            f"{session.plan.name} pipeline is {pipeline.framework} callables",)}, []
    extras = {**extras, "node_costs": time_node_costs(
        stream, _graph_mode(session).capture_enqueue, len(session.plan.stages))}
    if session.update_skipped:
        return {**extras, "skipped": skipped + (session.update_skipped,)}, []
    update, update_checks = graph_update_experiment(stream, pipeline, session.new_pipeline(),
                                                    rng, session.tolerance)
    return {**extras, "graph_update": update}, update_checks


def _graph_mode(session: Session):
    return next(mode for mode in session.modes if mode.name == HEADLINE)


def describe_pipeline(session: Session) -> PipelineInfo:
    config, launch, plan = session.config, session.pipeline.launch_config, session.plan
    loaded = session.loaded
    return PipelineInfo(stages=config.stages, depth=config.depth,
                        framework=session.pipeline.framework,
                        framework_version=session.pipeline.framework_version,
                        shaped_stages=session.shaped_stages,
                        kernel_launches_per_iteration=len(plan.stages),
                        name=plan.name, description=plan.description,
                        file=session.pipeline_file, file_sha256=loaded.file_sha256,
                        working_set_bytes=plan.buffer_bytes, checked=session.pipeline.checked,
                        grid=_dims(launch.grid) if launch else (),
                        block=_dims(launch.block) if launch else (),
                        kernel_source=config.kernel_source or "shipped",
                        kernel_source_sha256=source_digest(session.source),
                        harness_sha256=source_digest(load_harness_source()),
                        ab_source=config.ab_source,
                        ab_source_sha256=session.base.digest if session.base else None)


def _dims(value) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, tuple) else (int(value),)
