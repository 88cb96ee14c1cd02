"""Every figure a record holds per mode, written once: its name, unit, when
it is read (every timed round, or once per set of rounds), what sets its
pace (the host's CPU or the GPU), whether a gate may judge it, and what it
is. The record's per-round fields, the gate's field names and the fields
that move with the host are read from this table; so are the names of the
GPU workloads the rungs run. It imports nothing: every stage may read it."""

from __future__ import annotations

from dataclasses import dataclass

ROUND, SET = "round", "set"  # read every timed round; read once per set of rounds
HOST, GPU = "host", "gpu"    # what sets a figure's pace


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    cadence: str
    bound: str
    gateable: bool
    description: str
    # a record always holds it: one reading a round (a figure added later may
    # be absent from older records, and is then not measured there)
    required: bool = False
    may_be_zero: bool = False  # a reading of 0 is a measurement (enqueue below the clock's tick)


METRICS = (
    Metric("wall", "us", ROUND, HOST, True,
           "host clock around enqueue and synchronise, per iteration: what a user waits",
           required=True),
    Metric("submit", "us", ROUND, HOST, True,
           "host time to enqueue an iteration: the CPU's launch cost", required=True,
           may_be_zero=True),
    Metric("device", "us", ROUND, HOST, True,
           "CUDA events around the loop: the stream busy or waiting, per iteration",
           required=True),
    Metric("busy", "us", SET, GPU, True,
           "GPU time of one iteration's work queued behind a hold (the mode's workload's)"),
    Metric("cycles", "cycles", SET, GPU, True, "busy time in SM cycles at the measured clock"),
    Metric("relbusy", "ratio", SET, GPU, False,
           "busy time over the GPU reference's stream copy in the same set"),
    Metric("held_submit", "us", SET, HOST, False, "enqueue cost of a mode behind a hold"),
)
BY_NAME = {metric.name: metric for metric in METRICS}
ROUND_METRICS = tuple(m.name for m in METRICS if m.cadence == ROUND)
GATE_FIELDS = tuple(m.name for m in METRICS if m.gateable)
# every per-round figure moves with the host CPU's speed
HOST_BOUND_FIELDS = tuple(m.name for m in METRICS if m.cadence == ROUND and m.bound == HOST)

# The GPU work a rung runs (graphbench.ladder): the pipeline's stage kernels,
# the same with programmatic dependent launch, the fused kernel, or the
# graphs torch.compile makes itself
STAGES, STAGES_PDL, FUSED, COMPILED = "stages", "stages-pdl", "fused", "compiled"
