"""The host's speed, from the fixed CPU probe read between every two rounds
(so each round has a reading right before and right after it), and what it
does to host-bound figures.

Launch costs are CPU work. On the H200's host the probe sits in one of two
speed states (about 520-660 us or 860-1140 us), in phases that outlasted a
run at some hours and changed every few rounds at others, and
individual-launch wall follows it (19 processes: correlation 0.96 of the
process medians; per round, 0.85-0.95 within runs that saw both states).
Three uses, each with its own limit:

- Within a run, each round's figure is brought to the run's own median host
  speed with a slope fitted on that run's rounds (`within_fit`): the probe
  moves little there, so the slope is only ever applied over short distances.
  This removes host jitter from the rounds that the stop rule and the
  within-run interval judge ("at this run's host speed").
- Across host states a slope fitted inside one state does not carry: on the
  H200 the within-state slope of individual wall was 0.006 us/us in the slow
  state and 0.010 in the fast one, against 0.0092 across states. So a figure
  is brought to another state only along the slope of processes whose own
  rounds saw both states, never by extrapolating a one-state fit.
- `host_states` splits a run's probe readings into its speed states, so the
  report can state each state's figure and the gate can match states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from graphbench.analyze.stats import dot
from graphbench.record.columns import run_columns
from graphbench.limits import MIN_ROUNDS

# Two readings are one host state within this ratio; the H200 host's two
# states lie 1.6x apart, and its readings within a state 1.1-1.3x.
STATE_GAP = 1.35
MIN_STATE_SHARE = 0.1   # a state of fewer readings than this share is an outlier, not a state
MIN_FIT_ROUNDS = MIN_ROUNDS  # as few rounds as an interval is stated from
# The reference host speed every run's host-bound figures are also stated
# at: a host whose fixed probe reads this (the H200 host's fast state read
# 560-630 us). Reached only by interpolation, inside the probe readings the
# run saw in both states; never by extrapolating.
REFERENCE_PROBE_US = 600.0


def set_probes(conditions) -> list[float | None]:
    """One host-speed reading per set of rounds: the mean of the probes right
    before and right after the set (a record made before the before-probe
    existed has the after-probe alone); None where the set has none."""
    out = []
    for c in conditions:
        after, before = c.host_probe_us, c.host_probe_before_us
        out.append((after + before) / 2 if after and before else after or before or None)
    return out


def mode_probes(run, mode: str) -> list[float | None]:
    """The host-speed reading of each round of `mode` in one process: its
    own probes where the record has them, else its set's (older records)."""
    samples = run.modes.get(mode)
    if samples is not None and samples.probe_before_us:
        return list(samples.round_probes)
    cache = run.__dict__  # a report asks for them per mode and figure: walk the sets once
    if _SET_PROBES not in cache:
        cache[_SET_PROBES] = set_probes(run.conditions)
    return list(cache[_SET_PROBES])


_SET_PROBES, _PROBE_ARRAYS = "_set_probes", "_probe_arrays"


def at_reference_speed(values: Sequence[float],
                       probes: Sequence[float | None] | np.ndarray) -> tuple[float, ...] | None:
    """A CPU-bound figure's rounds at the reference host speed: each over its
    own probe reading, times REFERENCE_PROBE_US. None unless every round
    has a reading (a round without one cannot be stated so)."""
    readings = probe_array(probes)[:len(values)]
    if readings.size < len(values) or not np.all(readings > 0):
        return None
    return tuple((np.asarray(values, dtype=float) / readings * REFERENCE_PROBE_US).tolist())


def mode_probe_array(run, mode: str) -> np.ndarray:
    """mode_probes as a read-only array (probe_array), once per process and mode."""
    cache = run.__dict__.setdefault(_PROBE_ARRAYS, {})
    samples = run.modes.get(mode)
    key = mode if samples is not None and samples.probe_before_us else None  # None: the sets'
    if key not in cache:
        cache[key] = probe_array(mode_probes(run, mode)) if key else _set_probe_array(run)
        cache[key].flags.writeable = False
    return cache[key]


def _set_probe_array(run) -> np.ndarray:
    """probe_array(set_probes(run.conditions)), from the conditions' columns."""
    columns = run_columns(run)
    after, before = columns.column("host_probe_us"), columns.column("host_probe_before_us")
    has_after, has_before = np.nan_to_num(after) != 0, np.nan_to_num(before) != 0
    return np.where(has_after & has_before, (after + before) / 2,
                    np.where(has_after, after, np.where(has_before, before, 0.0)))


def probe_array(probes: Sequence[float | None] | np.ndarray) -> np.ndarray:
    """Probe readings as floats, a round without one as 0 (never a reading);
    an array (of mode_probe_array) as it is."""
    if isinstance(probes, np.ndarray):
        return probes
    found = np.array(probes, dtype=float)  # None is NaN here
    found[np.isnan(found)] = 0.0
    return found


@dataclass(frozen=True)
class HostStates:
    """A run's host speed states, fastest first: each state's median probe
    and how many readings fell in it."""

    medians: tuple[float, ...]
    counts: tuple[int, ...]
    split: float | None  # readings at or above this probe time are the slower state

    @property
    def count(self) -> int:
        return len(self.medians)

    def state_of(self, probe: float) -> int:
        return 0 if self.split is None or probe < self.split else 1

    def states_of(self, probes: np.ndarray) -> np.ndarray:
        """state_of for every reading of an array at once."""
        if self.split is None:
            return np.zeros(probes.shape, dtype=int)
        return (probes >= self.split).astype(int)


def host_states(probes: Sequence[float | None]) -> HostStates | None:
    """One or two states from the readings: two when the largest gap in the
    sorted readings separates groups whose medians lie more than STATE_GAP
    apart and each holds at least MIN_STATE_SHARE of them. None without readings."""
    data = np.sort(probes[probes != 0] if isinstance(probes, np.ndarray)
                   else np.asarray([p for p in probes if p], dtype=float))
    if data.size == 0:
        return None
    whole = HostStates((float(np.median(data)),), (int(data.size),), None)
    least = max(2, math.ceil(MIN_STATE_SHARE * data.size))
    if data.size < 2 * least:
        return whole
    ratios = data[least:data.size - least + 1] / data[least - 1:data.size - least]
    cut = least + int(np.argmax(ratios))  # first index of the slower group
    fast, slow = data[:cut], data[cut:]
    medians = float(np.median(fast)), float(np.median(slow))
    if medians[1] < STATE_GAP * medians[0]:
        return whole
    return HostStates(medians, (int(fast.size), int(slow.size)),
                      float(math.sqrt(fast[-1] * slow[0])))


@dataclass(frozen=True)
class Fit:
    """A figure against the host probe: slope in figure units per probe us,
    its standard error, the correlation, and how many rounds it used."""

    slope: float
    slope_se: float
    correlation: float
    rounds: int

    @property
    def significant(self) -> bool:
        return self.rounds >= MIN_FIT_ROUNDS and self.slope > 3 * self.slope_se


NO_FIT = Fit(0.0, math.inf, 0.0, 0)


def _paired(values: Sequence[float], probes: Sequence[float | None]):
    n = min(len(values), len(probes))
    x = probe_array(probes[:n])
    keep = x != 0
    return np.asarray(values[:n], dtype=float)[keep], x[keep]


def _ols(x: np.ndarray, y: np.ndarray, groups: int) -> Fit:
    """Least squares through the (already centred) points, with the
    residual degrees of freedom reduced by the groups' own means."""
    sxx, n = float(dot(x, x)), x.size
    if n - groups - 1 < 2 or sxx <= 0:
        return NO_FIT
    slope = float(dot(x, y)) / sxx
    residual = y - slope * x
    se = math.sqrt(float(dot(residual, residual)) / (n - groups - 1) / sxx)
    syy = float(dot(y, y))
    return Fit(slope, se, float(dot(x, y)) / math.sqrt(sxx * syy) if syy > 0 else 0.0, n)


def within_fit(values_by_process: Sequence[Sequence[float]],
               probes_by_process: Sequence[Sequence[float | None]]) -> Fit:
    """The slope of round figures on the host probe inside each process
    (each process centred on its own means), pooled over processes."""
    xs, ys, groups = [], [], 0
    for values, probes in zip(values_by_process, probes_by_process):
        y, x = _paired(values, probes)
        if y.size >= 2:
            xs.append(x - x.mean())
            ys.append(y - y.mean())
            groups += 1
    if not xs:
        return NO_FIT
    return _ols(np.concatenate(xs), np.concatenate(ys), groups)


def at_probe(values: Sequence[float], probes: Sequence[float | None], slope: float,
             target: float) -> tuple[float, ...]:
    """Each round's figure as it would read at probe time `target`; a round
    without a reading is kept as it is."""
    n = min(len(values), len(probes))
    return tuple(moved_to(values, probes, slope, target).tolist()) + tuple(values[n:])


def moved_to(values: Sequence[float], probes: Sequence[float | None], slope: float,
             target: float) -> np.ndarray:
    """at_probe's rounds that have a probe reading's place, as an array."""
    n = min(len(values), len(probes))
    x, v = probe_array(probes[:n]), np.asarray(values[:n], dtype=float)
    return np.where(x != 0, v - slope * (x - target), v)


def steadied(values: Sequence[float], probes: Sequence[float | None]) -> tuple[float, ...]:
    """The rounds of one run at its own median host speed: where the rounds
    ran in two host states and show a significant positive slope on the
    probe, each is moved along it; the rounds unchanged otherwise. Inside
    one state the probe varies mostly by its own jitter, and moving rounds
    by it adds that jitter to them: on the H200, of 10 runs whose rounds
    graphbench.measure.cpu_seek kept in the fast state, moved rounds gave the
    speedup a noise of 1.7-4.6% where the rounds as they were gave 1.2-3.0%."""
    readings = probe_array(probes[:len(values)])
    readings = readings[readings != 0]
    states = host_states(readings)
    if states is None or states.count < 2:
        return tuple(values)
    fit = within_fit([values], [probes])
    if not fit.significant:
        return tuple(values)
    return at_probe(values, probes, fit.slope, float(np.median(readings)))
