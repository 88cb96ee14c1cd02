"""Host-bound figures between two moments: which processes of a stored
baseline can judge a current run, and at what host speed.

Every process's rounds are first brought to that process's own median host
speed (graphbench.analyze.host_speed.steadied). Then the two records'
processes are sorted into the host's speed states, from every set of
rounds both saw:
- all in one state: judged as they are;
- the baseline has processes in each state the current ran in: the current
  is judged against those alone (3 or more, the least a spread between
  processes is estimated from);
- the baseline itself saw both states: its rounds give the slope of the
  figure on the host probe across states (near zero for a figure that does
  not follow the host), each process is brought to the baseline's fastest
  state along it, and the slope's own error times the distance between the
  two records' host speeds joins the noise as a systematic term;
- otherwise nothing relates the two states and the metric is not gateable:
  a slope fitted inside one state does not carry to the other (on the H200
  host 0.006 us/us inside the slow state, 0.010 inside the fast one, 0.0092
  across them).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from graphbench.analyze.host_speed import (MIN_FIT_ROUNDS, HostStates, across_fit, at_probe,
                                           host_states, set_probes, steadied)
from graphbench.analyze.metrics import metric_values
from graphbench.analyze.summary import speedups, steady_walls
from graphbench.record.model import RunRecord

HOST_BOUND = ("wall", "submit", "device")  # figures that move with the host CPU's speed
MIN_MATCHED = 3  # baseline processes in the current's state: a spread needs 3


def is_host_bound(metric: str) -> bool:
    return metric.startswith("speedup") or metric.split(".")[-1] in HOST_BOUND


@dataclass(frozen=True)
class HostGate:
    """Per-process values of a host-bound metric for the gate: `base` and
    `cur` as graphbench.analyze.compare.between_processes takes them, the
    relative sd of a systematic error both share (`systematic`), and a note.
    `reason` is non-empty when the pair cannot be judged."""

    base: list[tuple[float, ...]]
    cur: list[tuple[float, ...]]
    systematic: float = 0.0
    note: str = ""
    reason: str = ""


def steady_process_values(record: RunRecord, metric: str) -> list[tuple[float, ...]]:
    """A host-bound metric's rounds in each process, at that process's own
    median host speed."""
    if record.legacy_processes is not None:
        return [(m,) for m in record.legacy_processes.medians.get(metric, ())]
    out = []
    for run in record.runs:
        single = dataclasses.replace(record, runs=(run,))
        values = _steady(single, run, metric)
        if values:
            out.append(tuple(values))
    return out


def _steady(single: RunRecord, run, metric: str) -> tuple[float, ...]:
    if metric.startswith("speedup"):
        other = "fused" if metric == "speedup.fused" else "graph"
        entry = speedups({m: w for m, w in steady_walls(single).items()
                          if m in ("individual", other)}).get(other)
        return entry.per_round if entry else ()
    mode, _, field = metric.partition(".")
    if mode not in run.modes:
        return ()
    return steadied(getattr(run.modes[mode], f"{field}_us"), set_probes(run.conditions))


def process_probes(record: RunRecord) -> list[float | None]:
    """Each process's median host probe reading (None: it has none)."""
    out = []
    for run in record.runs:
        readings = [p for p in set_probes(run.conditions) if p]
        out.append(float(np.median(readings)) if readings else None)
    return out


def joint_states(baseline: RunRecord, current: RunRecord) -> HostStates | None:
    return host_states(set_probes(baseline.conditions) + set_probes(current.conditions))


def gate_values(baseline: RunRecord, current: RunRecord, metric: str) -> HostGate:
    base, cur = steady_process_values(baseline, metric), steady_process_values(current, metric)
    states = joint_states(baseline, current)
    if not base or not cur or states is None or states.count == 1 \
            or baseline.legacy_processes is not None:
        return HostGate(base, cur)
    b_probe, c_probe = process_probes(baseline), process_probes(current)
    if None in b_probe or None in c_probe or len(b_probe) != len(base) \
            or len(c_probe) != len(cur):
        return HostGate(base, cur, reason="host speed states differ and a process has no host "
                        "probe reading to place it")
    b_state = [states.state_of(p) for p in b_probe]
    c_state = {states.state_of(p) for p in c_probe}
    if set(b_state) == c_state and len(c_state) == 1:
        return HostGate(base, cur)  # both in one state: as they are
    if len(c_state) == 1:
        (wanted,) = c_state
        matched = [v for v, s in zip(base, b_state) if s == wanted]
        if len(matched) >= MIN_MATCHED:
            return HostGate(matched, cur, note=(
                f"judged against the {len(matched)} of {len(base)} baseline processes in the "
                f"current's host speed state (probe about {states.medians[wanted]:.0f} us)"))
    return _across_states(baseline, base, cur, b_probe, c_probe, states, metric)


def _across_states(baseline: RunRecord, base, cur, b_probe, c_probe, states: HostStates,
                   metric: str) -> HostGate:
    """Bring every process to the baseline's fastest state along the slope
    the baseline's own rounds show across states."""
    own = host_states(set_probes(baseline.conditions))
    if own is None or own.count < 2:
        return HostGate(base, cur, reason=(
            f"host speed states differ (probe about {states.medians[0]:.0f} and "
            f"{states.medians[1]:.0f} us) and the baseline saw only one, so nothing relates "
            "this figure in one state to the other: make the baseline when the host is in the "
            "current's state too (its processes then cover both), or run the current again"))
    values, probes = [], []
    for run in baseline.runs:
        raw = metric_values(dataclasses.replace(baseline, runs=(run,)), metric)
        readings = set_probes(run.conditions)
        n = min(len(raw), len(readings))
        values += raw[:n]
        probes += readings[:n]
    fit = across_fit(values, probes)
    if fit.rounds < MIN_FIT_ROUNDS or not math.isfinite(fit.slope_se):
        return HostGate(base, cur, reason=f"the baseline has too few rounds with host probe "
                        f"readings ({fit.rounds}) to relate {metric} across host states")
    target = own.medians[0]
    base_at = [at_probe(v, [p] * len(v), fit.slope, target) for v, p in zip(base, b_probe)]
    cur_at = [at_probe(v, [p] * len(v), fit.slope, target) for v, p in zip(cur, c_probe)]
    level = abs(float(np.mean([np.median(v) for v in base_at]))) or math.inf
    distance = abs(float(np.mean(c_probe)) - float(np.mean(b_probe)))
    return HostGate(base_at, cur_at, systematic=fit.slope_se * distance / level,
                    note=f"both records brought to the host's fast state (probe "
                         f"{target:.0f} us) along the baseline's slope across states")
