"""Host-bound figures between two moments over the launch probe.

Records since the launch probe (graphbench.measure.conditions.LaunchProbe)
read, right before and right after every round, the host time of launches
of a kernel that does nothing with a built-in stage's arguments. A figure
the host's CPU sets the pace of is CPU work as those launches are, so it
moves with that probe in proportion: on the H200, individual-launch wall
over the probe varied 0.3-0.5% between fresh processes where the wall
itself varied 2-8%. A figure the GPU bounds (graph replay at 4096 elements,
anything at 2^24) does not move with it, and dividing it by the probe
would only add the host's jitter.

So each figure is first asked whether it is CPU-bound: its rung is not a
graph replay, and the GPU is busy for at most CPU_BOUND_BUSY of its wall
time (on the H200 at 4096 elements individual launches are busy 0.23 of
their wall and fused 0.22, graph replay 0.49; a CuPy callable chain's eager
stages 0.12; at 2^24 everything about 1). A CPU-bound figure is judged over
the probe, round by round (over it, such a chain varied 0.9% between
processes); whether it is is read from the baseline, so that both records
are judged alike. Any other figure is judged as measured, with its
elasticity on the probe times the two records' distance in host speed
joining the noise as a systematic error.

The elasticity is read within processes (log on log, Theil-Sen over both
records' rounds, each centred on its own process, so that a code change
between the records cannot enter it), corrected for the probe's own noise,
which flattens the slope (errors in the variable), by the readings'
reliability: the share of their spread between rounds that is not the noise
seen between the reading right before and right after one round. Where the
readings cannot tell a figure that follows the host in proportion from one
that does not, it is taken to follow in full: gateable only between records
of about the same host speed. Records whose probes differ in kind cannot be
related at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from graphbench.analyze.host_speed import MIN_FIT_ROUNDS, REFERENCE_PROBE_US, probe_array
from graphbench.ladder import rung
from graphbench.record.machine import LAUNCH_PROBE, PYTHON_PROBE
from graphbench.record.model import RunRecord

# a rung whose GPU is busy for at most this share of its wall is CPU-bound:
# the H200's CPU-bound rungs read up to 0.23, graph replay at 4096 0.49
CPU_BOUND_BUSY = 0.35
MIN_RELIABILITY = 0.05  # below it the readings are the probe's own noise
MAX_PAIRS_ROUNDS = 2000  # rounds the elasticity is read from (Theil-Sen is n^2 in them)


def probe_kinds(record: RunRecord) -> set[str]:
    """What the record's round probes timed (a version-1 record kept none)."""
    if record.legacy_processes is not None:
        return {PYTHON_PROBE}
    return {run.environment.host_probe for run in record.runs}


class Rounds(NamedTuple):
    """One process's rounds of a metric and their probe readings (as
    graphbench.analyze.host_gate.Process, whose rounds this module reads)."""

    values: tuple[float, ...]
    probes: np.ndarray  # probe_array's: 0 for a round without a reading


@dataclass(frozen=True)
class Elasticity:
    value: float        # corrected for the probe's noise; NaN: cannot be told
    low: float          # its 95% interval (Theil-Sen's, corrected alike)
    high: float
    reliability: float  # the share of the readings' spread that is the host's
    rounds: int


def elasticity(processes, noise_var: float = 0.0) -> Elasticity | None:
    """The metric's elasticity on the probe over `processes` (host_gate's
    Process, or Rounds), `noise_var` the variance of a log reading's own
    noise (probe_noise); None below MIN_FIT_ROUNDS rounds with a reading,
    or where the readings do not vary. Its value is NaN where the readings
    cannot tell a figure that follows the host in proportion (1) from one
    that does not follow it (0): its interval holds both, or the readings
    are almost all noise."""
    xs, ys = [], []
    for proc in processes:
        values, probes = np.asarray(proc.values, dtype=float), probe_array(proc.probes)
        keep = (probes > 0) & (values > 0)
        if np.count_nonzero(keep) < 2:
            continue
        x, y = np.log(probes[keep]), np.log(values[keep])
        xs.append(x - np.median(x))
        ys.append(y - np.median(y))
    x = np.concatenate(xs) if xs else np.zeros(0)
    y = np.concatenate(ys) if ys else np.zeros(0)
    if x.size < MIN_FIT_ROUNDS or np.ptp(x) == 0:
        return None
    from scipy.stats import theilslopes  # the gate's own import: 0.7 s a plain run need not pay

    step = max(1, math.ceil(x.size / MAX_PAIRS_ROUNDS))  # evenly thinned, every process kept
    fit = theilslopes(y[::step], x[::step])
    reliability = max(0.0, 1.0 - noise_var / float(np.var(x)))
    if reliability < MIN_RELIABILITY:
        return Elasticity(math.nan, -math.inf, math.inf, reliability, int(x.size))
    low, value, high = (float(v) / reliability for v in (fit.low_slope, fit.slope, fit.high_slope))
    told = not (low <= 0 and high >= 1)
    return Elasticity(value if told else math.nan, low, high, reliability, int(x.size))


def probe_noise(records) -> float:
    """The variance of a round's log reading's own noise, pooled over every
    mode of the records' processes (one instrument): from the readings right
    before and right after each round (the host's own change within a round
    counts as noise here, which can only lower the reliability)."""
    gaps = []
    for record in records:
        for run in record.runs:
            for samples in run.modes.values():
                if not samples.probe_before_us:
                    continue
                before = np.asarray(samples.probe_before_us, dtype=float)
                after = np.asarray(samples.probe_after_us, dtype=float)
                keep = (before > 0) & (after > 0)
                gaps.append(np.log(after[keep]) - np.log(before[keep]))
    every = np.concatenate(gaps) if gaps else np.zeros(0)
    # the noise of one reading is var(gap) / 2; of a round's mean of two, var(gap) / 4
    return float(np.var(every)) / 4 if every.size > 1 else 0.0


def over_probe(proc) -> tuple[float, ...]:
    """The rounds' figures over their probe readings (rounds without one dropped)."""
    values, probes = np.asarray(proc.values, dtype=float), probe_array(proc.probes)
    keep = probes > 0
    return tuple((values[keep] / probes[keep]).tolist())


def median_probe(processes) -> float:
    readings = np.concatenate([p.readings() for p in processes] or [np.zeros(0)])
    return float(np.median(readings)) if readings.size else math.nan


def cpu_bound(record: RunRecord, mode: str) -> bool:
    """Whether the host's CPU sets `mode`'s pace in `record` (is_cpu_bound)."""
    if mode not in record.mode_names:
        return False
    busy, wall = record.series(mode, "busy"), record.series(mode, "wall")
    busy = busy[np.isfinite(busy)]
    if not busy.size or not wall.size:
        return False
    return is_cpu_bound(mode, float(np.median(busy)), float(np.median(wall)))


def is_cpu_bound(mode: str, busy: float, wall: float) -> bool:
    """Whether the host's CPU sets the pace of a rung whose GPU is busy for
    `busy` of its `wall` (any one unit; the module docstring): not a graph
    replay, and busy at most CPU_BOUND_BUSY of the wall."""
    found = rung(mode)
    return found is not None and not found.graph and busy <= CPU_BOUND_BUSY * wall


def launch_gate(baseline: RunRecord, current: RunRecord, mode: str, base: list, cur: list,
                gate):
    """The HostGate (`gate`, host_gate's class) of a pair of records either
    of which read the launch probe, for a metric whose processes are `base`
    and `cur` and whose rounds `mode`'s probe readings go with; None for a
    pair of older records."""
    kinds = probe_kinds(baseline) | probe_kinds(current)
    if LAUNCH_PROBE not in kinds:
        return None
    steady = [[p.steady() for p in side] for side in (base, cur)]
    if kinds != {LAUNCH_PROBE}:
        return gate(*steady, reason=(
            f"the records' host probes differ in kind ({', '.join(sorted(kinds))}), so their "
            "host speeds cannot be related: make the baseline again with this graphbench"))
    if cpu_bound(baseline, mode):  # stated at the reference, as the report states it
        at_reference = [[tuple(REFERENCE_PROBE_US * x for x in over_probe(p)) for p in side]
                        for side in (base, cur)]
        return gate(*at_reference, note=(
            f"CPU-bound ({mode}'s GPU busy at most {CPU_BOUND_BUSY:.0%} of its wall in the "
            f"baseline): judged at the reference host speed, each round over the launch probe "
            f"read beside it times {REFERENCE_PROBE_US:.0f} us"))
    found = elasticity(base + cur, probe_noise((baseline, current)))
    if found is None:
        return gate(*steady, reason=(
            f"fewer than {MIN_FIT_ROUNDS} rounds with a launch-probe reading, so how the "
            "figure follows the host cannot be told: run more rounds"))
    distance = abs(math.log(median_probe(cur) / median_probe(base)))
    if not math.isfinite(distance):  # one record read no probe: its host speed is unknown
        return gate(*steady, reason="one record has no launch-probe reading, so the two "
                                    "host speeds cannot be related: run it again")
    apart = f"the records' launch probes lie {math.expm1(distance):.1%} apart"
    if math.isnan(found.value):
        return gate(*steady, systematic=distance, note=(
            f"judged as measured, taken to follow the host in full: the host moved too little "
            f"within the processes to tell how much the figure follows it; {apart}"))
    share = min(1.0, max(0.0, found.value))
    return gate(*steady, systematic=share * distance,
                note=f"judged as measured (elasticity {found.value:.2f} on the launch probe "
                     f"within processes; {apart})")
