"""A run's host-bound figures against the host's speed: each process's
rounds at its own median host speed (what the stop rule and the intervals
judge), the host's speed states, and the figures at the reference host
speed (graphbench.analyze.host_speed says why each is reached as it is)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import chain
from statistics import median

import numpy as np

from graphbench.analyze.host_speed import (REFERENCE_PROBE_US, Fit, HostStates,
                                           at_reference_speed, host_states, mode_probe_array,
                                           moved_to, probe_array, steadied, within_fit)
from graphbench.analyze.launch_gate import Rounds, cpu_bound, over_probe, probe_kinds
from graphbench.ladder import BASE_SUFFIX, BASELINE, HEADLINE
from graphbench.record.columns import round_array
from graphbench.record.machine import LAUNCH_PROBE
from graphbench.record.model import RunRecord


@dataclass(frozen=True)
class HostSummary:
    """The host's speed states during the run; each mode's median wall time
    in each state (fastest first) where the run saw more than one; and each
    mode's wall at the reference host speed: from a straight-line fit of its
    rounds on their probe readings (`fits`), where the run saw both states
    and the reference lies within REFERENCE_REACH of them; in a record of the
    launch probe, over the probe for the modes in `cpu_bound`.
    `why_not` says why no reference figure is stated."""

    states: HostStates
    walls: dict[str, tuple[float, ...]]
    reference_us: float = REFERENCE_PROBE_US
    at_reference: dict[str, float] = dataclasses.field(default_factory=dict)
    fits: dict[str, Fit] = dataclasses.field(default_factory=dict)
    why_not: str = ""
    # records of the launch probe: the modes stated over it (launch_gate.cpu_bound)
    cpu_bound: tuple[str, ...] | None = None

    def speedup_at_reference(self, other: str = HEADLINE) -> float | None:
        ind, rung = self.at_reference.get(BASELINE), self.at_reference.get(other)
        return ind / rung if ind and rung else None


def steady_walls(record: RunRecord) -> dict[str, tuple[float, ...]]:
    """Each mode's wall rounds, every process's at its own median host speed
    (graphbench.analyze.host_speed.steadied), concatenated in order."""
    def one(run, name):
        return steadied(run.modes[name].wall_us, mode_probe_array(run, name))

    return {name: tuple(chain.from_iterable(one(run, name) for run in record.runs
                                            if name in run.modes))
            for name in record.mode_names}


def stated_walls(record: RunRecord) -> tuple[dict[str, tuple[float, ...]], bool]:
    """Each mode's wall rounds as the record states them at the reference
    host speed, every process's concatenated in order, and whether host
    phases are out of them (the stop rule's series,
    graphbench.analyze.stopping.stated_walls): in a record of the launch
    probe each CPU-bound mode over its probe readings, the others as
    measured; otherwise, and in an A/B record (whose ratios share their host
    phases, so the stop rule judges them at each process's own speed), every
    mode at its process's own host speed."""
    if any(name + BASE_SUFFIX in record.mode_names for name in record.mode_names):
        return steady_walls(record), False
    stated = {}
    for name in record.mode_names:
        if probe_kinds(record) == {LAUNCH_PROBE} and cpu_bound(record, name):
            runs = [at_reference_speed(run.modes[name].wall_us, mode_probe_array(run, name))
                    for run in record.runs if name in run.modes]
            if all(values is not None for values in runs):
                stated[name] = tuple(chain.from_iterable(runs))
    if not stated:
        return steady_walls(record), False

    def as_measured(name):
        return tuple(chain.from_iterable(run.modes[name].wall_us for run in record.runs
                                         if name in run.modes))

    return {name: stated[name] if name in stated else as_measured(name)
            for name in record.mode_names}, True


# how far beyond its two states' medians a run's fit may carry a figure, as a
# share of the distance between them: the fit spans both states, and the
# H200 host's fast state read 560-720 us between runs
REFERENCE_REACH = 0.25
# a run in one state is at the reference speed when its probe median lies
# within this ratio of it: the H200 host's fast state read 520-720 us between runs
ONE_STATE_WITHIN = 1.2


def host_summary(record: RunRecord) -> HostSummary | None:
    """The run's host speed states; with two, each mode's median wall time
    in each (a round belongs to the state of the probes around it) and its
    wall at the reference host speed."""
    states = host_states(np.concatenate([mode_probe_array(run, mode) for run in record.runs
                                         for mode in run.modes] or [np.zeros(0)]))
    if states is None:
        return None
    walls = _state_walls(record, states) if states.count > 1 else {}
    if probe_kinds(record) == {LAUNCH_PROBE}:
        return _over_launches(record, HostSummary(states, walls))
    why_not = _unreachable(states)
    if why_not:
        return HostSummary(states, walls, why_not=why_not)
    fits, at_reference = {}, {}
    nearer = states.state_of(REFERENCE_PROBE_US)
    for name in record.mode_names:
        runs = [run for run in record.runs if name in run.modes]
        values = [round_array(run.modes[name], "wall") for run in runs]
        probes = [mode_probe_array(run, name) for run in runs]
        fit = within_fit(values, probes)
        fits[name] = fit
        # a figure with no clear slope across both states does not follow the
        # host; in one state at the reference its rounds stand as they are
        # (graphbench.analyze.host_speed.steadied says why)
        slope = fit.slope if fit.significant and states.count > 1 else 0.0
        # from the rounds of the state nearer the reference alone, so that the
        # line carries them a short way: across states the relation bends
        # (on the H200 host 0.010 us/us inside the fast state, 0.006 inside the slow)
        at_reference[name] = _median([_in_state(moved_to(v, p, slope, REFERENCE_PROBE_US), p,
                                                states, nearer) for v, p in zip(values, probes)])
    return HostSummary(states, walls, at_reference=at_reference, fits=fits)


def _over_launches(record: RunRecord, summary: HostSummary) -> HostSummary:
    """A record of the launch probe: a CPU-bound mode's wall
    (graphbench.analyze.launch_gate) is stated at the reference as its
    rounds' median over their readings, times the reference; any other as
    measured. On the H200, individual wall so stated varied 0.5% between 10
    fresh processes where the raw figure varied 8.4%."""
    at_reference, bound = {}, []
    for name in record.mode_names:
        runs = [run for run in record.runs if name in run.modes]
        if cpu_bound(record, name):
            bound.append(name)
            parts = [np.asarray(over_probe(Rounds(round_array(run.modes[name], "wall"),
                                                  mode_probe_array(run, name)))) for run in runs]
            at_reference[name] = _median(parts) * REFERENCE_PROBE_US
        else:
            at_reference[name] = _median([round_array(run.modes[name], "wall") for run in runs])
    return dataclasses.replace(summary, at_reference=at_reference, cpu_bound=tuple(bound))


def _unreachable(states: HostStates) -> str:
    """Why the run's states cannot carry a figure to the reference host
    speed; "" where they can: two states around it, or one state at it (a
    run whose rounds all ran in the fast state, as graphbench.measure.cpu_seek
    makes them, is at the reference speed already)."""
    if states.count == 1:
        only = states.medians[0]
        if REFERENCE_PROBE_US / ONE_STATE_WITHIN <= only <= REFERENCE_PROBE_US * ONE_STATE_WITHIN:
            return ""
        return (f"one host speed state seen (probe about {only:.0f} us): the figures stand at "
                "this host's speed")
    low, high = states.medians
    reach = REFERENCE_REACH * (high - low)
    if low - reach <= REFERENCE_PROBE_US <= high + reach:
        return ""
    return (f"the reference host speed (probe {REFERENCE_PROBE_US:.0f} us) lies too far from "
            f"this run's states (probe about {low:.0f} and {high:.0f} us) to reach")


def _in_state(values, probes, states: HostStates, state: int) -> np.ndarray:
    """The values whose round has a probe reading in host state `state`, in order."""
    n = min(len(values), len(probes))
    x = probe_array(probes[:n])
    keep = (x != 0) & (states.states_of(x) == state)
    return np.asarray(values[:n], dtype=float)[keep]


def _median(parts: list[np.ndarray]) -> float:
    """statistics.median of the parts' values together (the same figure, from an array)."""
    values = np.concatenate(parts or [np.zeros(0)])
    return float(np.median(values)) if values.size else median(())


def _state_walls(record: RunRecord, states: HostStates) -> dict[str, tuple[float, ...]]:
    walls = {}
    for name in record.mode_names:
        by_state: list[list[np.ndarray]] = [[] for _ in range(states.count)]
        for run in record.runs:
            if name in run.modes:
                wall, probes = round_array(run.modes[name], "wall"), mode_probe_array(run, name)
                for state, group in enumerate(by_state):
                    group.append(_in_state(wall, probes, states, state))
        if all(sum(part.size for part in group) for group in by_state):
            walls[name] = tuple(_median(group) for group in by_state)
    return walls

