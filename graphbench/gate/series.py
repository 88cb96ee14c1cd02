"""A figure over a series of records (graphbench.history.series forms the
series): each record's level, the steps of the series (history list and
the trend page name them) and a record judged against its series
(compare last FILE).

A record is one observation: its level is the mean of its processes'
medians (as compare forms a side's), at the metric's size. The series gives
its own spread between runs (graphbench.gate.steps): a one-process
record, which cannot be judged against one other record, is judged against
a series of MIN_SERIES or more. The current record is judged against the
series' current level (the records since its last step) with the spread of
every record of the series around its step model, by decide's rule.

GPU time (busy, cycles) is judged so: between records of one machine class
it is comparable. A host-bound figure (graphbench.gate.host_match) is
judged only where every record that gives the spread ran like with like
with the current one (or, for steps, with each other); elsewhere it is
shown and `not gateable`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphbench.gate.compare import (CLOCK_AGREEMENT, MIN_CURRENT_ROUNDS, point_at, relative_limit,
                                     shared_busy_note, verdict_on, with_note)
from graphbench.gate.context import measured_clock
from graphbench.gate.decide import MISSING, NOT_GATEABLE, Change, unjudgeable
from graphbench.stats.host_readings import cpu_probe_median
from graphbench.gate.host_match import host_mismatch, is_host_bound
from graphbench.stats.metrics import process_values
from graphbench.gate.specs import FailSpec, check_specs, default_specs
from graphbench.gate.steps import MAX_ADVICE, Steps, detect, level_change
from graphbench.limits import MIN_SERIES
from graphbench.record.model import Comparison, RunRecord, Verdict

SERIES_WINDOW = 60  # the newest earlier records compare last reads: the spread's records


@dataclass(frozen=True)
class Figure:
    """One metric over a series: the records that hold it (their indices),
    each one's level, and the steps found (None: not sought, `why`)."""

    spec: FailSpec
    indices: tuple[int, ...]
    values: tuple[float, ...]
    threshold: float                # relative
    found: Steps | None
    why: str = ""


def record_level(record: RunRecord, spec: FailSpec) -> float | None:
    """The mean of the record's process medians of the metric at its size."""
    point = point_at(record, spec.size)
    values = process_values(point, spec.metric) if point else []
    return float(np.mean([np.median(v) for v in values])) if values else None


def breaks(commits: Sequence[str | None]) -> list[bool]:
    """Where a step may start: at a record of another commit than the one
    before (a record of no commit is a commit of its own)."""
    return [i == 0 or c is None or c != commits[i - 1] for i, c in enumerate(commits)]


def figure(records: Sequence[RunRecord], commits: Sequence[str | None],
           spec: FailSpec) -> Figure:
    """The metric over the series, its steps sought where it may be judged."""
    levels = [record_level(record, spec) for record in records]
    indices = tuple(i for i, level in enumerate(levels) if level is not None)
    values = tuple(float(levels[i]) for i in indices)  # type: ignore[arg-type]
    threshold = relative_limit(spec, [(v,) for v in values])
    held = [records[i] for i in indices]
    why = series_host_mismatch([point_at(r, spec.size) for r in held], threshold) \
        if is_host_bound(spec.metric) else ""
    if why or not values:
        return Figure(spec, indices, values, threshold, None, why or "no record holds it")
    found = detect(values, threshold, spec.metric.startswith("speedup"),
                   breaks([commits[i] for i in indices]))
    return Figure(spec, indices, values, threshold, found)


def series_host_mismatch(points: Sequence[RunRecord | None], threshold: float) -> str:
    """Why a host-bound figure of these records cannot be read as one
    series ("" where every pair ran like with like, as host_match says)."""
    held = [p for p in points if p is not None]
    if len(held) < 2:
        return ""
    probes = [cpu_probe_median(p) for p in held]
    if None in probes:
        return host_mismatch(held[probes.index(None)], held[0], threshold)
    slowest, fastest = held[int(np.argmax(probes))], held[int(np.argmin(probes))]
    return next((why for why in (host_mismatch(held[0], p, threshold) for p in held[1:])
                 if why), host_mismatch(slowest, fastest, threshold))


def figures(records: Sequence[RunRecord], commits: Sequence[str | None],
            specs: list[FailSpec] | None = None) -> list[Figure]:
    """Every metric of the default gate of the newest record (or `specs`)."""
    if not records:
        return []
    specs = check_specs(specs) if specs else default_specs(records[-1])
    return [figure(records, commits, spec) for spec in specs]


def judge_series(earlier: Sequence[RunRecord], current: RunRecord,
                 specs: list[FailSpec] | None = None,
                 commits: Sequence[str | None] | None = None) -> Comparison:
    """The current record's verdicts against its series (`earlier`, oldest
    first, of the commits `commits`), one per metric of the default gate
    (or `specs`)."""
    specs = check_specs(specs) if specs else default_specs(current)
    commits = list(commits) if commits is not None else [None] * len(earlier)
    verdicts = tuple(series_verdict(spec, earlier, current, commits) for spec in specs)
    note = (f"judged against its series: {len(earlier)} earlier record(s) of this machine class "
            "and configuration")
    return Comparison(verdicts, (note,), ())


def series_verdict(spec: FailSpec, earlier: Sequence[RunRecord], current: RunRecord,
                   commits: Sequence[str | None]) -> Verdict:
    cur_point = point_at(current, spec.size)
    cur = process_values(cur_point, spec.metric) if cur_point else []
    if not cur or cur_point is None:
        return Verdict(spec.name, MISSING, spec.gated, spec.text, note="not in the current record")
    found = figure(earlier, commits, spec)
    if not found.values:
        return Verdict(spec.name, MISSING, spec.gated, spec.text,
                       note="not in its series' earlier records")
    base = [(v,) for v in _level_records(found)]
    change = against_level(found, cur, commits, cur_point.legacy_processes is not None,
                           earlier)
    if change.valid and is_host_bound(spec.metric):
        reason = next((why for why in (host_mismatch(point_at(earlier[i], spec.size) or
                                                     earlier[i], cur_point, found.threshold)
                                       for i in found.indices) if why), "")
        change = unjudgeable(reason) if reason else change
    verdict = verdict_on(spec, change, base, cur, spec.gated)
    if spec.metric.endswith(".busy") and verdict.verdict != NOT_GATEABLE and found.found:
        level = [earlier[i] for i in found.indices[found.found.fit.starts[-1]:]]
        verdict = in_cycles_too(spec, verdict, level, earlier, current, commits)
    return with_note(verdict, shared_busy_note(cur_point, spec.metric))


def in_cycles_too(spec: FailSpec, verdict: Verdict, level: Sequence[RunRecord],
                  earlier: Sequence[RunRecord], current: RunRecord,
                  commits: Sequence[str | None]) -> Verdict:
    """As compare's cycles check: where the current record's measured SM
    clock differs from its level's (their median), a verdict on GPU time
    must hold in SM cycles too: a clock change is not a code change."""
    points = [point_at(record, spec.size) for record in (*level, current)]
    clocks = [measured_clock(point) if point else None for point in points]
    if not all(clocks) or abs(clocks[-1] / float(np.median(clocks[:-1])) - 1) <= CLOCK_AGREEMENT:
        return verdict
    cycles = series_verdict(replace(spec, metric=spec.metric.replace(".busy", ".cycles")),
                            earlier, current, commits)
    if cycles.verdict == verdict.verdict:
        return verdict
    return with_note(replace(verdict, verdict=NOT_GATEABLE, note=(
        f"SM clock differs from the series' ({float(np.median(clocks[:-1])):.0f} vs "
        f"{clocks[-1]:.0f} MHz): {verdict.verdict} in time but {cycles.verdict} in cycles")),
        verdict.note)


def _level_records(found: Figure) -> list[float]:
    """The levels of the records since the series' last step."""
    if found.found is None:
        return list(found.values)
    return list(found.values[found.found.fit.starts[-1]:])


def against_level(found: Figure, cur: list[tuple[float, ...]], commits: Sequence[str | None],
                  medians_only: bool, earlier: Sequence[RunRecord]) -> Change:
    """The current record's change against the series' current level."""
    n = len(found.values)
    if n < MIN_SERIES or found.found is None:
        more = MIN_SERIES - n
        return unjudgeable(found.why or f"the series holds {n} earlier record(s) of it: "
                           f"{more} more make it judge one record")
    rounds = min(len(v) for v in cur)
    if rounds < MIN_CURRENT_ROUNDS and not medians_only:
        return unjudgeable(f"a current process of {rounds} round(s): its median scatters by "
                           f"more than it can show; run {MIN_CURRENT_ROUNDS} or more rounds")
    model = found.found.fit
    start = model.starts[-1]
    since = commits[found.indices[start]]
    current = float(np.mean([np.median(v) for v in cur]))
    # a current of fewer processes than the series' records scatters more than they do
    processes = float(np.median([earlier[i].process_count for i in found.indices[start:]]))
    variance = model.spread ** 2 * max(1.0, processes / len(cur))
    n_level = n - start
    scope = (f"against the level of its series' newest {n_level} record(s)"
             f"{f' (since {since[:8]})' if since and start else ''}, the spread of {n}")
    return level_change(model.levels[-1], n_level, current, variance, model.spread, model.df,
                        scope=scope, advice=_more_records(n_level, variance, model.spread,
                                                          model.df))


def _more_records(n_level: int, variance: float, spread: float, df: int):
    """The note's advice: how many more records of the series would make
    the current record gateable at a threshold (one record's own scatter
    stays whatever the series' length)."""
    def advice(threshold: float) -> str:
        for extra in range(1, MAX_ADVICE + 1):
            if level_change(1.0, n_level + extra, 1.0, variance, spread,
                            df + extra).detectable <= threshold:
                return f"{extra} more record(s) in the series would make it gateable"
        return (f"one record of this series scatters by {math.sqrt(variance):.1%}: no number "
                f"of records makes one record gateable at {threshold:.1%}")
    return advice
