"""Every figure of a run, derived from its raw samples: the one place that
turns a RunRecord into statistics. Rendering, the gate and the JSON summary
all read a RunSummary; none of them recomputes a figure on its own."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from statistics import median

import numpy as np

from graphbench.stats.host_readings import cpu_probe_median
from graphbench.stats.derived import (Breakdown, CacheState, break_even_iterations, cache_state,
                                      time_breakdown)
from graphbench.stats.node_costs import NodeCostFit, fit_node_costs
from graphbench.stats.intervals import hill_t_quantile, lag1_autocorrelation, median_interval
from graphbench.stats.stats import Summary, paired_ratios, summarize
from graphbench.stats.noise import headline_noise_parts
from graphbench.stats.warnings import Warning, record_warnings
from graphbench.ladder import BASELINE, HEADLINE, ORDER, launches_per_iteration
from graphbench.limits import MIN_PROCESSES
from graphbench.record.codec import to_json
from graphbench.record.graph_costs import LIFECYCLE_TIMES
from graphbench.record.model import TIME_METRICS, RunRecord

BUILD_PHASES = ("capture_us", "instantiate_us", "upload_us")


@dataclass(frozen=True)
class ModeSummary:
    wall: Summary
    submit: Summary                  # the rounds' enqueue time (may include back-pressure)
    device: Summary
    busy: Summary | None
    held_submit: Summary | None      # enqueue behind a hold: the CPU's launch cost alone
    busy_shared_with: tuple[str, ...] = ()  # modes whose busy readings are these same ones
    # lag-1 autocorrelation of each series within a process (of the first process)
    autocorrelation: dict[str, float] = dataclasses.field(default_factory=dict)
    cycles: Summary | None = None    # busy time in SM cycles, at the clock the hold measured

    @property
    def launch_cost(self) -> Summary:
        """The host's cost to enqueue an iteration: held when it was measured."""
        return self.held_submit or self.submit


@dataclass(frozen=True)
class SpeedupSummary:
    """individual wall / this mode's wall, paired round by round. The 95%
    interval holds for correlated rounds (graphbench.stats.intervals);
    `scope` says what it covers: this process's rounds, or, with 3 or more
    processes, the spread between processes. `interval` is None when too few
    independent rounds support one (`why`)."""

    stats: Summary
    interval: tuple[float, float] | None
    scope: str
    per_round: tuple[float, ...]
    why: str = ""
    effective_rounds: float | None = None  # what the rounds are worth as independent ones


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
    graph_memory_bytes: float | None = None  # median free-memory delta; None: not measured


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
    lifecycles: dict[str, LifecycleSummary]  # by graph mode
    update: UpdateSummary | None
    breakdown: dict[str, Breakdown]
    cache: CacheState
    warnings: tuple[Warning, ...]
    verified: bool
    unavailable: dict[str, str] = dataclasses.field(default_factory=dict)
    # by workload: (busy before the checks, the gate's figure; busy after them)
    busy_after_checks: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)
    node_costs: NodeCostFit | None = None  # capture and instantiate per node (the graph rung)
    # the median of the pure-Python probe after each set of rounds: the host CPU's
    # speed while the run ran (graphbench.gate.host_match); None: not read
    cpu_probe_us: float | None = None
    noise_drift: float | None = None       # the part of `noise` that is drift, not spread

    @property
    def lifecycle(self) -> LifecycleSummary | None:
        """The graph rung's one-off costs (the headline's)."""
        return self.lifecycles.get(HEADLINE)


_LAST: list = []  # (record, its summary): the report and its side-by-side table ask twice


def summarize_run(record: RunRecord) -> RunSummary:
    """The record's figures; the same record object asked again is not
    summarised again (records are frozen)."""
    if _LAST and _LAST[0][0] is record:
        return _LAST[0][1]
    summary = _summarize_run(record)
    _LAST[:] = [(record, summary)]
    return summary


def _summarize_run(record: RunRecord) -> RunSummary:
    modes = {name: mode_summary(record, name) for name in record.mode_names}
    walls = {mode: np.asarray(w, dtype=float) for mode, w in measured_walls(record).items()}
    parts = headline_noise_parts(walls) if walls else None
    noise = max(parts) if parts else None
    floor = _summaries(FloorSummary, record.extra_samples("launch_floor"))
    return RunSummary(
        modes=modes, speedup=run_speedups(record, walls), noise=noise,
        launch_floor=floor,
        lifecycles=lifecycles(record, modes),
        update=_summaries(UpdateSummary, record.extra_samples("graph_update")),
        breakdown=breakdowns(record, modes) if floor else {},
        cache=cache_state(working_set(record), record.device.l2_bytes, record.config.flush_l2),
        warnings=tuple(record_warnings(record, walls)), verified=record.verified,
        unavailable=record.unavailable, busy_after_checks=after_checks(record, modes),
        node_costs=fit_node_costs(record.node_cost_samples()),
        cpu_probe_us=cpu_probe_median(record),
        noise_drift=parts[1] if parts else None)


def measured_walls(record: RunRecord) -> dict[str, tuple[float, ...]]:
    """Each mode's wall rounds as measured, every process's in order."""
    return {name: record.samples(name, "wall") for name in record.mode_names}


def after_checks(record: RunRecord, modes: dict[str, ModeSummary]) -> dict:
    """Each workload's median busy time before the checks and after them."""
    result = {}
    for name, mode in modes.items():
        workload = record.workload(name)
        after = [run.busy_after_checks[workload].us for run in record.runs
                 if workload in run.busy_after_checks]
        if mode.busy and after and workload not in result:
            result[workload] = (mode.busy.median, summarize(after).median)
    return result


def working_set(record: RunRecord) -> int | None:
    """Bytes of every buffer of the pipeline (the reader fills it in for
    records from before pipeline files: graphbench.record.legacy)."""
    return record.pipeline.working_set_bytes


def mode_summary(record: RunRecord, name: str) -> ModeSummary:
    busy, held = record.series(name, "busy"), record.series(name, "held_submit")
    sharing = tuple(m for m in record.modes_sharing_busy(name) if m != name) if busy.size else ()
    first = record if len(record.runs) == 1 else dataclasses.replace(record, runs=record.runs[:1])
    correlation = {m: lag1_autocorrelation(first.series(name, m)) for m in TIME_METRICS
                   if first.series(name, m).size}
    cycles = record.series(name, "cycles")
    return ModeSummary(*(summarize(record.series(name, m)) for m in TIME_METRICS[:3]),
                       busy=summarize(busy) if busy.size else None,
                       held_submit=summarize(held) if held.size else None,
                       busy_shared_with=sharing, autocorrelation=correlation,
                       cycles=summarize(cycles) if cycles.size else None)


MIN_PROCESS_INTERVAL = MIN_PROCESSES  # processes for an interval between processes


def run_speedups(record: RunRecord, walls: dict | None = None) -> dict[str, SpeedupSummary]:
    """Speedups over the pooled rounds (`walls`: the record's measured_walls,
    when the caller has them); with 3 or more processes their interval is
    the one between the processes' medians, widened to the pooled rounds'
    own interval where that is wider."""
    pooled = speedups(measured_walls(record) if walls is None else walls)
    if record.process_count < MIN_PROCESS_INTERVAL or record.legacy_processes:
        scope = "within one process's rounds" if record.process_count == 1 else (
            f"over the rounds of {record.process_count} processes, not between them (that "
            f"takes {MIN_PROCESS_INTERVAL} or more)")
        return {mode: dataclasses.replace(entry, scope=scope) for mode, entry in pooled.items()}
    per_process = [speedups(measured_walls(dataclasses.replace(record, runs=(run,))))
                   for run in record.runs]
    return {mode: dataclasses.replace(entry, **between_process_interval(
                [p[mode].stats.median for p in per_process if mode in p], entry.interval))
            for mode, entry in pooled.items()}


def between_process_interval(medians: list[float],
                             pooled: tuple[float, float] | None = None) -> dict:
    """Student's t interval of the process medians, widened to `pooled` (the
    interval of all the processes' rounds) where that reaches further. A slow
    host phase skews process medians: when every process missed it, their t
    interval alone covered the process median 89-93% of the time at 10-30
    rounds each; the widened one at least 97% (tests/test_calibration.py).
    The interval is formed on the logarithms: a speedup is a ratio, and three
    processes at 2.2x and 3.0x gave "0.00..3.67" on the linear scale. Its t
    quantile is Hill's (graphbench.stats.intervals), not scipy's: importing
    scipy.stats would be most of the parent's time after a multi-process
    run's last process (and of `graphbench report` on such a record;
    docs/measurement.md#host-side-costs), and from 3
    processes (2 degrees of freedom) Hill's is within 4e-4 of it; below 3
    it is not, so fewer medians are refused."""
    if len(medians) < MIN_PROCESS_INTERVAL:
        raise ValueError(f"an interval between processes takes {MIN_PROCESS_INTERVAL} or more "
                         f"process medians, not {len(medians)}")
    logs = np.log(np.asarray(medians, dtype=float))
    half = float(hill_t_quantile(0.975, np.array([len(medians) - 1]))[0] * np.std(logs, ddof=1)
                 / np.sqrt(len(medians)))
    centre = float(np.mean(logs))
    low, high = float(np.exp(centre - half)), float(np.exp(centre + half))
    scope = f"between {len(medians)} processes (t interval of their medians"
    if pooled is not None and (pooled[0] < low or pooled[1] > high):
        low, high = min(low, pooled[0]), max(high, pooled[1])
        scope += ", widened to their pooled rounds' interval"
    return {"interval": (low, high), "why": "", "scope": scope + ")"}


def speedups(walls: dict[str, tuple[float, ...]]) -> dict[str, SpeedupSummary]:
    """individual wall / wall of every other rung (not the A/B base build's)."""
    if BASELINE not in walls:
        return {}
    result = {}
    for other in ORDER[1:]:
        if other in walls:
            ratios = paired_ratios(walls[BASELINE], walls[other])
            array = np.asarray(ratios, dtype=float)  # once, for both figures
            interval = median_interval(array, 0.95)
            result[other] = SpeedupSummary(
                summarize(array), (interval.low, interval.high) if interval.valid else None,
                "within one process's rounds", tuple(ratios), interval.reason,
                interval.effective_n if interval.valid else None)
    return result


def lifecycles(record: RunRecord, modes: dict[str, ModeSummary]) -> dict[str, LifecycleSummary]:
    """Each graph rung's one-off costs, and the iterations after which its
    saving per iteration against individual launches has paid for them."""
    result = {}
    for name in modes:
        samples = record.lifecycle_samples(name)
        if samples is None or BASELINE not in modes:
            continue
        phases = {phase: summarize(getattr(samples, phase)) for phase in LIFECYCLE_TIMES}
        build = sum(phases[phase].median for phase in BUILD_PHASES)
        memory = samples.graph_memory_bytes
        result[name] = LifecycleSummary(**phases, build_us=build,
                                        graph_memory_bytes=float(median(memory))
                                        if memory else None,
                                        break_even_iterations=break_even_iterations(
                                            build, modes[BASELINE].wall.median,
                                            modes[name].wall.median))
    return result


def breakdowns(record: RunRecord, modes: dict[str, ModeSummary]) -> dict[str, Breakdown]:
    stage_launches, cfg = record.pipeline.kernel_launches_per_iteration, record.config
    return {name: time_breakdown(m.wall.median, m.submit.median, m.device.median,
                                 m.busy.median if m.busy else None,
                                 launches_per_iteration(name, stage_launches, cfg.unroll,
                                                        cfg.iters),
                                 m.held_submit.median if m.held_submit else None)
            for name, m in modes.items()}


def summary_document(record: RunRecord) -> dict:
    """The derived figures as the JSON writer adds them (never read back)."""
    return to_json(summarize_run(record))


def _summaries(cls, samples):
    """`cls` with a Summary of each same-named series of `samples` (None stays None)."""
    if samples is None:
        return None
    return cls(**{f.name: summarize(getattr(samples, f.name)) for f in fields(cls)})
