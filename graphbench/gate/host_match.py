"""Whether two records' host-bound figures may be compared at all.

A figure the host's CPU sets the pace of (every wall, submit cost, the
speedup, the launch floor) moves with the host: another machine, or the
same machine's CPUs in another speed state, reads it far apart for the
same code (docs/measurement.md#the-hosts-speed-states). No model of the
host removes that without also removing a real change of the launch path
(a slower driver, interpreter or cuda-core slows a launch probe with the
figure). So a stored comparison judges such
a figure only like with like, as measured:
- the same host: the same hostname, CPU model and physical GPU (lent
  machines often all report one hostname, and the GPU's UUID tells them
  apart);
- in the same speed state: the medians of a probe that launches nothing
  (a fixed pure-Python loop read after every set of rounds,
  Condition.cpu_probe_us) lie within a quarter of the metric's threshold
  of each other (state_tolerance): a figure that follows the CPU in full
  then moves by at most T/4, well inside the T/2 the contract lets pass,
  where a CPU 9% slower read as "one state" moved identical code past the
  `slower` edge in a third of simulated pairs (tests/test_gate_contract.py).
Anything else is not gateable, with one line that points at `--ab`, which
pairs the two sides round by round and needs no such match.

A baseline whose processes sat in two speed states is judged by those of
its processes in the current record's state (in_current_state), where 3 or
more are: like with like, not an adjustment; with fewer, the whole baseline
is matched as one record, and refused if its probe median is another state.
"""

from __future__ import annotations

from dataclasses import replace


from graphbench.stats.host_readings import FLOOR_METRICS, cpu_probe_median
from graphbench.limits import MIN_PROCESSES
from graphbench.metrics import HOST_BOUND_FIELDS
from graphbench.record.model import RunRecord

# two speed states of one host lie much further apart than this on the probe
# (docs/measurement.md#the-hosts-speed-states): medians further apart than
# this are never one state, whatever the threshold
HOST_STATE_TOLERANCE = 0.10
AB_POINTER = "gate it with --ab, which pairs both sides in one process"
HOST_BOUND = "host-bound: "  # how the note of a figure not judged like with like opens


def is_host_bound(metric: str) -> bool:
    return metric.startswith("speedup") or metric in FLOOR_METRICS \
        or metric.split(".")[-1] in HOST_BOUND_FIELDS


def in_current_state(baseline: RunRecord, current: RunRecord, threshold: float) -> RunRecord:
    """The baseline's processes whose own CPU probe median lies within
    state_tolerance(threshold) of the current record's; the whole baseline
    where all of them do, or fewer than MIN_PROCESSES (host_mismatch then
    judges it as one record)."""
    target = cpu_probe_median(current)
    if target is None or baseline.legacy_processes is not None:
        return baseline
    kept = tuple(run for run in baseline.runs
                 if (own := cpu_probe_median(replace(baseline, runs=(run,)))) is not None
                 and abs(own / target - 1) <= state_tolerance(threshold))
    if len(kept) == len(baseline.runs) or len(kept) < MIN_PROCESSES:
        return baseline
    return replace(baseline, runs=kept)


def state_tolerance(threshold: float) -> float:
    """How far apart two records' CPU probe medians may lie for a host-bound
    figure gated at the relative `threshold` (the module docstring says why)."""
    return min(HOST_STATE_TOLERANCE, threshold / 4)


def host_mismatch(baseline: RunRecord, current: RunRecord, threshold: float) -> str:
    """Why a host-bound figure of `current` gated at the relative `threshold`
    cannot be judged against `baseline` (one line), or "" where both ran
    like with like."""
    b, c = baseline, current
    if (b.host.hostname, b.host.processor) != (c.host.hostname, c.host.processor):
        return f"{HOST_BOUND}the records ran on different hosts; {AB_POINTER}"
    if not b.device.uuid or b.device.uuid != c.device.uuid:
        return f"{HOST_BOUND}the records ran on different machines (GPUs); {AB_POINTER}"
    speeds = cpu_probe_median(b), cpu_probe_median(c)
    if speeds[0] is None or speeds[1] is None:
        return f"{HOST_BOUND}a record has no reading of its host's CPU speed; {AB_POINTER}"
    if abs(speeds[1] / speeds[0] - 1) > state_tolerance(threshold):
        return (f"{HOST_BOUND}the host's CPUs ran at another speed (probe {speeds[0]:.0f} vs "
                f"{speeds[1]:.0f} us); {AB_POINTER}")
    return ""
