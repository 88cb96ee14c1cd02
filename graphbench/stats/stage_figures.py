"""Per-stage figures and one-iteration timelines of a record's attribution
trace (the assignment of kernels to stages: graphbench.stats.attribution).

Every figure is a median over the traced iterations that follow another
iteration on the GPU (the first of each batch follows a host sync, so its
first gap says nothing about the rung)."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.stats.attribution import (NS_PER_US, Placed, RungFigures, StageFigures, batches,
                                          expected_stages, iterations, rung_escape)
from graphbench.stats.stats import median
from graphbench.ladder import ladder_order, rung
from graphbench.record.model import RunRecord
from graphbench.record.trace import Attribution, RungTrace


@dataclass(frozen=True)
class Segment:
    stage: int      # 0-based stage; -1: graphbench's loop kernels
    start_us: float  # from the end of the previous iteration
    end_us: float


@dataclass(frozen=True)
class Timeline:
    mode: str
    period_us: float
    segments: tuple[Segment, ...]


def record_attribution(record: RunRecord) -> Attribution | None:
    """The first process's trace (each process of a --processes run traces its own)."""
    return next((run.attribution for run in record.runs if run.attribution), None)


def _complete(found: list[list[Placed]]) -> list[tuple[list[Placed], float]]:
    """(iteration, period in us) for each iteration that follows another on the GPU."""
    out, previous_end = [], None
    for iteration in found:
        first, end = iteration[0], max(p.kernel.end_ns for p in iteration)
        if first.gap_ns is not None and previous_end is not None:
            out.append((iteration, (end - previous_end) / NS_PER_US))
        previous_end = end
    return out


def _stage_parts(iteration: list[Placed], stage: int) -> tuple[float, float, float]:
    """(kernel time, idle, overlap) of one stage in one iteration, in us.
    Idle after a loop kernel is the conditional node's, not the stage's."""
    gpu = idle = overlap = 0.0
    for one in iteration:
        if one.stage == stage:
            gpu += (one.kernel.end_ns - one.kernel.start_ns) / NS_PER_US
            gap = 0.0 if one.after_loop else (one.gap_ns or 0) / NS_PER_US
            idle, overlap = idle + max(gap, 0.0), overlap + max(-gap, 0.0)
    return gpu, idle, overlap


def _loop_part(iteration: list[Placed]) -> float:
    """The loop kernels' time, the idle before them and the idle after them
    (before the next stage kernel): the conditional node's cost."""
    total = 0.0
    for one in iteration:
        if one.stage == -1:
            total += one.kernel.end_ns - one.kernel.start_ns + max(one.gap_ns or 0, 0)
        elif one.after_loop:
            total += max(one.gap_ns or 0, 0)
    return total / NS_PER_US


def stage_figures(attribution: Attribution, trace: RungTrace,
                  complete: list[tuple[list[Placed], float]]) -> tuple[StageFigures, ...]:
    period = median([p for _, p in complete])
    out = []
    for index, (stage, names) in enumerate(expected_stages(attribution, trace.workload)):
        parts = [_stage_parts(iteration, index) for iteration, _ in complete]
        gpu, idle, overlap = (median([p[i] for p in parts]) for i in range(3))
        after_loop = all(p.after_loop for it, _ in complete for p in it if p.stage == index)
        out.append(StageFigures(index + 1, stage, names, gpu, None if after_loop else idle,
                                overlap, gpu / period if period > 0 else 0.0))
    return tuple(out)


def rung_figures(record: RunRecord, mode: str) -> RungFigures:
    attribution = record_attribution(record)
    trace = attribution.rungs[mode]
    found = iterations(attribution, trace)
    complete = _complete(found)
    harness = set(attribution.harness_kernels)
    runs = len({k.batch for k in trace.kernels}) * trace.iterations_per_batch or 1
    body = sum(1 for k in trace.kernels if k.name not in harness)
    has_loop = bool(complete) and any(p.stage == -1 for p in complete[0][0])
    expected = sum(len(names) for _, names in expected_stages(attribution, trace.workload))
    from_events = not complete and device_loop(mode)
    listed = listed_iterations(attribution, trace, harness) if from_events else []
    loop = loop_cost(record, attribution, mode, harness) if from_events else None
    return RungFigures(
        mode=mode, iterations=len(complete) or len(listed), kernels_per_iteration=body / runs,
        expected_kernels=expected,
        stages=stage_figures(attribution, trace, complete) if complete else
        listed_stage_figures(attribution, trace, listed, record, mode) if listed else (),
        period_us=median([p for _, p in complete]) if complete else None,
        loop_us=loop if from_events else
        median([_loop_part(it) for it, _ in complete]) if has_loop else None,
        loop_from_events=loop is not None,
        escape=rung_escape(attribution, mode),
        untraced_wall_us=median(trace.untraced_wall_us) if trace.untraced_wall_us else None,
        traced_wall_us=median(trace.traced_wall_us) if trace.traced_wall_us else None)


def device_loop(mode: str) -> bool:
    """The device-loop rung: one launch runs --iters iterations."""
    found = rung(mode)
    return bool(found and found.launches == "per-iters")


def listed_iterations(attribution: Attribution, trace: RungTrace, harness: set) -> list[list]:
    """The device loop's iterations CUPTI did list (it may list one per
    launch: docs/profiling.md#per-stage-attribution-run---attribute): each
    batch's body kernels in start order, cut into whole iterations, each
    kernel with its stage; [] where a batch does not cut."""
    plan = [i for i, (_, names) in enumerate(expected_stages(attribution, trace.workload))
            for _ in names]
    if not plan:
        return []
    out = []
    for batch in batches(trace):
        body = [k for k in batch if k.name not in harness]
        if not body or len(body) % len(plan):
            return []
        out += [list(zip(plan, body[i:i + len(plan)])) for i in range(0, len(body), len(plan))]
    return out


def listed_stage_figures(attribution: Attribution, trace: RungTrace, listed: list[list],
                         record: RunRecord, mode: str) -> tuple[StageFigures, ...]:
    """Per-stage GPU time from the listed iterations; no gaps (the loop's
    are the conditional node's), shares of the loop's device time per iteration."""
    device = record.samples(mode, "device")  # empty for a mode the record lacks
    period = median(device) if device else 0.0
    out = []
    for index, (stage, names) in enumerate(expected_stages(attribution, trace.workload)):
        gpu = median([sum((k.end_ns - k.start_ns) / NS_PER_US for i, k in iteration
                          if i == index) for iteration in listed])
        out.append(StageFigures(index + 1, stage, names, gpu, None, 0.0,
                                gpu / period if period > 0 else 0.0))
    return tuple(out)


def loop_cost(record: RunRecord, attribution: Attribution, mode: str, harness: set
              ) -> float | None:
    """The conditional node's GPU cost per iteration where CUPTI lists the
    loop's body fewer times than it ran (it may list it once per launch): the
    loop's device time per iteration in the timed rounds (CUDA events around
    launches of --iters iterations each) less one iteration's body kernels,
    each at its median traced duration. None without device times or body."""
    device, trace = record.samples(mode, "device"), attribution.rungs[mode]
    durations: dict[str, list[float]] = {}
    for kernel in trace.kernels:
        if kernel.name not in harness:
            durations.setdefault(kernel.name, []).append(
                (kernel.end_ns - kernel.start_ns) / NS_PER_US)
    names = [n for _, ns in expected_stages(attribution, trace.workload) for n in ns]
    if not device or not names or any(n not in durations for n in names):
        return None
    return median(device) - sum(median(durations[n]) for n in names)


def record_rung_is_graph(mode: str) -> bool:
    found = rung(mode)
    return bool(found and found.graph)


def busy_us(record: RunRecord, mode: str) -> float | None:
    """The timed run's busy time per iteration (None: not measured)."""
    values = record.samples(mode, "busy") if mode in record.mode_names else ()
    return median(values) if values else None


def all_rung_figures(record: RunRecord) -> list[RungFigures]:
    attribution = record_attribution(record)
    if attribution is None:
        return []
    return [rung_figures(record, mode) for mode in ladder_order(attribution.rungs)]


def timeline(record: RunRecord, mode: str) -> Timeline | None:
    """The iteration whose period is nearest the median, its kernels as
    segments from the end of the iteration before it."""
    attribution = record_attribution(record)
    complete = _complete(iterations(attribution, attribution.rungs[mode]))
    if not complete:
        return None
    middle = median([p for _, p in complete])
    iteration, period = min(complete, key=lambda pair: abs(pair[1] - middle))
    origin = max(p.kernel.end_ns for p in iteration) - period * NS_PER_US
    return Timeline(mode, period, tuple(
        Segment(p.stage, (p.kernel.start_ns - origin) / NS_PER_US,
                (p.kernel.end_ns - origin) / NS_PER_US) for p in iteration
))


def timelines(record: RunRecord) -> list[Timeline]:
    attribution = record_attribution(record)
    if attribution is None:
        return []
    found = (timeline(record, mode) for mode in ladder_order(attribution.rungs))
    return [t for t in found if t is not None]
