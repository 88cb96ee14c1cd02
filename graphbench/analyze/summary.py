"""Every figure of a run, derived from its raw samples: the one place that
turns a RunRecord into statistics. Rendering, the gate and the JSON summary
all read a RunSummary; none of them recomputes a figure on its own."""

from __future__ import annotations

from dataclasses import dataclass, fields

from graphbench.analyze.derived import (Breakdown, CacheState, break_even_iterations,
                                        cache_state, time_breakdown)
from graphbench.analyze.stats import Summary, median, median_ci, paired_ratios, summarize
from graphbench.analyze.stopping import headline_noise
from graphbench.analyze.warnings import Warning, record_warnings
from graphbench.measure.stages import expand
from graphbench.record.model import TIME_METRICS, RunRecord

BUILD_PHASES = ("capture_us", "instantiate_us", "upload_us")
SINGLE_LAUNCH_MODES = ("graph", "fused")  # one launch call per iteration


@dataclass(frozen=True)
class ModeSummary:
    wall: Summary
    submit: Summary
    device: Summary
    busy: Summary | None


@dataclass(frozen=True)
class SpeedupSummary:
    """individual wall / this mode's wall, paired round by round."""

    stats: Summary
    ci95: tuple[float, float]
    per_round: tuple[float, ...]


@dataclass(frozen=True)
class FloorSummary:
    kernel_launch_us: Summary
    graph_replay_us: Summary


@dataclass(frozen=True)
class LifecycleSummary:
    capture_us: Summary
    instantiate_us: Summary
    upload_us: Summary
    first_launch_us: Summary
    build_us: float               # capture + instantiate + upload
    break_even_iterations: float | None


@dataclass(frozen=True)
class UpdateSummary:
    node_update_us: Summary
    whole_graph_update_us: Summary
    recapture_instantiate_us: Summary


@dataclass(frozen=True)
class RunSummary:
    modes: dict[str, ModeSummary]
    speedup: dict[str, SpeedupSummary]
    noise: float | None
    launch_floor: FloorSummary | None
    lifecycle: LifecycleSummary | None
    update: UpdateSummary | None
    breakdown: dict[str, Breakdown]
    cache: CacheState
    warnings: tuple[Warning, ...]
    verified: bool


def summarize_run(record: RunRecord) -> RunSummary:
    modes = {name: mode_summary(record, name) for name in record.mode_names}
    walls = {name: record.samples(name, "wall") for name in record.mode_names}
    noise = headline_noise(walls) if walls else None
    floor = _summaries(FloorSummary, record.extra_samples("launch_floor"))
    return RunSummary(
        modes=modes, speedup=speedups(walls), noise=noise, launch_floor=floor,
        lifecycle=lifecycle(record, modes),
        update=_summaries(UpdateSummary, record.extra_samples("graph_update")),
        breakdown=breakdowns(record, modes) if floor else {},
        cache=cache_state(record.config.elements, expand(record.config.stages, record.config.depth),
                          record.device.l2_bytes, record.config.flush_l2),
        warnings=tuple(record_warnings(record, walls, noise)), verified=record.verified)


def mode_summary(record: RunRecord, name: str) -> ModeSummary:
    busy = record.samples(name, "busy")
    return ModeSummary(*(summarize(record.samples(name, m)) for m in TIME_METRICS[:3]),
                       busy=summarize(busy) if busy else None)


def speedups(walls: dict[str, tuple[float, ...]]) -> dict[str, SpeedupSummary]:
    if "individual" not in walls:
        return {}
    result = {}
    for other in SINGLE_LAUNCH_MODES:
        if other in walls:
            ratios = paired_ratios(walls["individual"], walls[other])
            result[other] = SpeedupSummary(summarize(ratios), median_ci(ratios), tuple(ratios))
    return result


def lifecycle(record: RunRecord, modes: dict[str, ModeSummary]) -> LifecycleSummary | None:
    samples = record.extra_samples("graph_lifecycle")
    if samples is None or "graph" not in modes or "individual" not in modes:
        return None
    phases = {f.name: summarize(getattr(samples, f.name)) for f in fields(samples)}
    build = sum(phases[name].median for name in BUILD_PHASES)
    return LifecycleSummary(**phases, build_us=build, break_even_iterations=break_even_iterations(
        build, modes["individual"].wall.median, modes["graph"].wall.median))


def breakdowns(record: RunRecord, modes: dict[str, ModeSummary]) -> dict[str, Breakdown]:
    launches = record.pipeline.kernel_launches_per_iteration
    return {name: time_breakdown(m.wall.median, m.submit.median, m.device.median,
                                 m.busy.median if m.busy else None,
                                 1 if name in SINGLE_LAUNCH_MODES else launches)
            for name, m in modes.items()}


def process_medians(record: RunRecord, metric: str) -> list[float]:
    """A gate metric's median in each process of the record (one value for a
    one-process record): how far processes of the same code land apart."""
    if record.legacy_processes is not None:
        return list(record.legacy_processes.medians.get(metric, ()))
    values = [metric_values(RunRecord(**{**vars(record), "runs": (run,)}), metric)
              for run in record.runs]
    return [median(v) for v in values if v]


def metric_values(record: RunRecord, metric: str) -> tuple[float, ...]:
    """The per-round samples a gate metric is judged on ('speedup',
    'speedup.fused', 'graph.wall', ...); empty when the record lacks it."""
    if metric.startswith("speedup"):
        other = "fused" if metric == "speedup.fused" else "graph"
        walls = {m: record.samples(m, "wall") for m in ("individual", other)
                 if m in record.mode_names}
        entry = speedups(walls).get(other)
        return entry.per_round if entry else ()
    mode, _, field = metric.partition(".")
    return record.samples(mode, field) if mode in record.mode_names else ()


def summary_document(record: RunRecord) -> dict:
    """The derived figures as the JSON writer adds them (never read back)."""
    from graphbench.record.codec import to_json

    return to_json(summarize_run(record))


def _summaries(cls, samples):
    """`cls` with a Summary of each same-named series of `samples` (None stays None)."""
    if samples is None:
        return None
    return cls(**{f.name: summarize(getattr(samples, f.name)) for f in fields(cls)})
