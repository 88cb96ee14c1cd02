"""What is read after each set of rounds, beside the timed rounds
themselves: GPU busy time behind the hold, the host's held launch cost, the
GPU reference, NVML's clock and throttle reasons, and the host probe.

A record holds one Condition per set of rounds and a dozen readings in each:
millions for a long run. They are slotted (no __dict__): read and walked in
a little over half the time."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BusyReading:
    """GPU us per iteration of one workload, from a replay queued behind a
    hold kernel; the hold's length, whether it outlasted the host's submission,
    and the SM clock the hold measured (clock64 against %globaltimer)."""

    us: float
    hold_us: float | None = None
    covered: bool | None = None
    sm_clock_mhz: float | None = None


@dataclass(frozen=True, slots=True)
class SubmitReading:
    """Host time per iteration to enqueue a few iterations behind a hold
    kernel, so the launch queue can neither drain nor fill: the CPU's cost
    of launching, free of back-pressure."""

    us: float
    covered: bool | None = None


@dataclass(frozen=True, slots=True)
class Condition:
    """Device and host readings after one set of rounds."""
    sm_clock_mhz: int | None = None           # NVML's reading
    throttle_reasons: tuple[str, ...] = ()
    host_probe_us: float | None = None        # the host probe right after the set
    host_probe_before_us: float | None = None  # ... and right before it (older records: None)
    # a fixed pure-Python loop right after the set: the host CPU's speed, read by
    # a probe that launches nothing, so a slower launch path cannot move it
    # (graphbench.gate.host_match; older records: None)
    cpu_probe_us: float | None = None
    busy: dict[str, BusyReading] = field(default_factory=dict)      # by workload
    submit: dict[str, SubmitReading] = field(default_factory=dict)  # by mode
    # the GPU reference's fixed workloads (graphbench.measure.reference), by name
    reference: dict[str, BusyReading] = field(default_factory=dict)
