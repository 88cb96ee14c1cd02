"""Host-bound figures between two moments: which processes of a stored
baseline can judge a current run, and at what host speed. Records of the
launch probe are judged by graphbench.analyze.launch_gate; what follows is
for records of the pure-Python probe.

Each round carries the host probe read right before and right after it.
The rounds of both records are sorted into the host's speed states, and:
- every process of both records in one and the same state: each process's
  rounds at its own median host speed (graphbench.analyze.host_speed.steadied),
  judged as they are;
- the current in one state, and 3 or more baseline processes in that state
  (the least a spread between processes is estimated from): the current is
  judged against those alone;
- processes that saw both states (on the H200 host most do: it changed state
  every few rounds in some hours and not for minutes in others): their rounds
  give the slope of the figure on the probe across states, each centred on
  its own process so that a code change between the records cannot enter it;
  every round of both records is brought to the host's fast state along it,
  and the slope's own error, times the distance between the two records'
  host speeds, joins the noise as a systematic term (a figure that does not
  follow the host has a slope near zero and is carried across unchanged);
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

from graphbench.analyze.host_speed import (MIN_FIT_ROUNDS, Fit, HostStates, at_probe,
                                           host_states, mode_probe_array, probe_array, steadied,
                                           within_fit)
from graphbench.analyze.launch_gate import launch_gate
from graphbench.analyze.metrics import metric_values
from graphbench.ladder import BASELINE
from graphbench.limits import MIN_PROCESSES
from graphbench.record.model import ROUND_METRICS, RunRecord

HOST_BOUND = ROUND_METRICS  # every per-round figure moves with the host CPU's speed
MIN_MATCHED = MIN_PROCESSES  # baseline processes in the current's state: a spread
MIN_IN_STATE = 5  # rounds of a process in a state before that process counts as seeing it
# two records whose probe medians lie further apart than this ran at different
# host speeds, whether or not the readings form two states
HOST_PROBE_TOLERANCE = 0.10


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


@dataclass(frozen=True)
class Process:
    """One process's rounds of a metric with the host reading of each."""

    values: tuple[float, ...]
    probes: tuple[float | None, ...] | np.ndarray  # an array: probe_array's, 0 for none

    def steady(self) -> tuple[float, ...]:
        return steadied(self.values, self.probes)

    def readings(self) -> np.ndarray:
        """The probe readings the rounds have, in order."""
        probes = probe_array(self.probes)
        return probes[probes != 0]

    def states_seen(self, states: HostStates) -> set[int]:
        counts = np.bincount(states.states_of(self.readings()), minlength=states.count)
        return {k for k, n in enumerate(counts.tolist()) if n >= MIN_IN_STATE}


def probe_mode(metric: str) -> str:
    """The mode whose probe readings go with the metric's rounds: a speedup's
    round is read by its individual-launch round, the one that follows the host."""
    return BASELINE if metric.startswith("speedup") else metric.partition(".")[0]


def processes(record: RunRecord, metric: str) -> list[Process]:
    """The metric's rounds in each process, with their host readings (probe_mode's)."""
    if record.legacy_processes is not None:
        return [Process((m,), (None,)) for m in record.legacy_processes.medians.get(metric, ())]
    out = []
    for run in record.runs:  # a one-process record is its own process (its figures kept)
        one = record if len(record.runs) == 1 else dataclasses.replace(record, runs=(run,))
        values = metric_values(one, metric)
        mode = probe_mode(metric)
        probes = mode_probe_array(run, mode) if mode in run.modes else np.zeros(0)
        if values:  # a round without a reading reads 0
            padded = np.zeros(len(values))
            padded[:min(probes.size, len(values))] = probes[:len(values)]
            out.append(Process(tuple(values), padded))
    return out


def pair_states(base: list[Process], cur: list[Process]) -> HostStates | None:
    """The host's speed states over both records' rounds; where the readings
    form one state but the two records' medians lie more than
    HOST_PROBE_TOLERANCE apart (a host slower by a third, say), each record's
    speed counts as a state of its own."""
    readings = [np.concatenate([proc.readings() for proc in side] or [np.zeros(0)])
                for side in (base, cur)]
    every = np.concatenate(readings)
    states = host_states(every)
    if states is None or states.count == 2 or not all(r.size for r in readings):
        return states
    b, c = (float(np.median(r)) for r in readings)
    if abs(c / b - 1) <= HOST_PROBE_TOLERANCE:
        return states
    split = math.sqrt(b * c)
    fast = int(np.count_nonzero(every < split))
    return HostStates((min(b, c), max(b, c)), (fast, every.size - fast), split)


def gate_values(baseline: RunRecord, current: RunRecord, metric: str) -> HostGate:
    base, cur = processes(baseline, metric), processes(current, metric)
    over_launches = launch_gate(baseline, current, probe_mode(metric), base, cur, HostGate)
    if over_launches is not None:
        return over_launches  # records of the launch probe (graphbench.analyze.launch_gate)
    states = pair_states(base, cur)
    as_they_are = HostGate([p.steady() for p in base], [p.steady() for p in cur])
    if not base or not cur or states is None or states.count == 1:
        return as_they_are
    b_seen, c_seen = [p.states_seen(states) for p in base], [p.states_seen(states) for p in cur]
    single = {frozenset(s) for s in b_seen + c_seen}
    if len(single) == 1 and len(next(iter(single))) == 1:
        return as_they_are  # every process in one and the same state
    c_states = set().union(*c_seen)
    if len(c_states) == 1 and all(len(s) == 1 for s in c_seen):
        matched = [p.steady() for p, s in zip(base, b_seen) if s == c_states]
        if len(matched) >= MIN_MATCHED:
            (wanted,) = c_states
            return HostGate(matched, as_they_are.cur, note=(
                f"judged against the {len(matched)} of {len(base)} baseline processes in the "
                f"current's host speed state (probe about {states.medians[wanted]:.0f} us)"))
    return _across_states(base, cur, b_seen + c_seen, states)


def _across_states(base: list[Process], cur: list[Process], seen: list[set[int]],
                   states: HostStates) -> HostGate:
    """Bring every round to the host's fast state along a slope of the
    processes that saw both states: each record's own where it has such
    processes (a host-side regression steepens the slope: moved along the
    baseline's, a current 5% slower read 6.5% slower from its slow rounds),
    else the other record's; each slope's error, times how far its record's
    rounds were moved, joins the noise."""
    spanning = [[p for p, s in zip(side, marks) if len(s) > 1]
                for side, marks in ((base, seen[:len(base)]), (cur, seen[len(base):]))]
    fits = [_fit(procs) for procs in spanning]
    usable = [f for f in fits if f is not None]
    if not usable:
        return HostGate([p.steady() for p in base], [p.steady() for p in cur], reason=(
            f"host CPU speed differs (probe about {states.medians[0]:.0f} and "
            f"{states.medians[1]:.0f} us) and no process saw both speeds, so nothing relates "
            "this figure at one to the other: run the current again, or make the baseline "
            "when the host runs at the current's speed too"))
    counts = [len(procs) for procs, fit in zip(spanning, fits) if fit is not None]
    fits = [f or usable[0] for f in fits]
    target = states.medians[0]
    sides = [[at_probe(p.values, p.probes, fit.slope, target) for p in side]
             for side, fit in zip((base, cur), fits)]
    level = abs(float(np.mean([np.median(v) for v in sides[0]]))) or math.inf
    systematic = math.hypot(*(fit.slope_se * abs(_mean_probe(side) - target)
                              for side, fit in zip((base, cur), fits))) / level
    along = (f"each record's own slope ({counts[0]} and {counts[1]} processes that saw both "
             "states)" if len(counts) == 2 else
             f"the slope of {counts[0]} process(es) that saw both states")
    return HostGate(sides[0], sides[1], systematic=systematic,
                    note=f"every round brought to the host's fast state (probe {target:.0f} "
                         f"us) along {along}")


def _fit(spanning: list[Process]) -> Fit | None:
    fit = within_fit([p.values for p in spanning], [p.probes for p in spanning])
    if fit.rounds < MIN_FIT_ROUNDS or not math.isfinite(fit.slope_se):
        return None
    return fit


def _mean_probe(side: list[Process]) -> float:
    readings = np.concatenate([proc.readings() for proc in side] or [np.zeros(0)])
    return float(np.mean(readings)) if readings.size else 0.0
