"""What a run reads after every set of timed rounds, beside the rounds
themselves: each GPU workload's busy time, each mode's held submit cost, the
GPU reference, NVML and the host (graphbench.measure.benchmark.sample)."""

from __future__ import annotations

from graphbench.measure.busy import BusyProbe, Hold, SubmitProbe
from graphbench.measure.conditions import round_probe_us
from graphbench.measure.kernels import HOLD_KERNEL
from graphbench.measure.reference import gpu_reference
from graphbench.measure.session import Session
from graphbench.record.model import Condition
from graphbench.sampling import round_order

GATE_POINT_SUBMIT_EVERY = 4  # a gate size's point reads submit every 4th set (Probes)


def busy_probe(session: Session, mode, hold, flush=None) -> BusyProbe | None:
    """A busy probe of `mode`'s GPU workload, captured by its pipeline's
    backend (an A/B base mode's pipeline runs the base build's kernels);
    None when the workload cannot be captured (torch-compile's own graphs)."""
    if mode.busy_enqueue is None:
        return None
    return BusyProbe(session.device, session.stream, mode.busy_enqueue, hold, flush,
                     capture=mode.pipeline.capture)


class Probes:
    """What is read after every set of rounds: one busy probe per GPU
    workload (individual and graph modes run the same kernels, so they share
    one; fused has its own), one submit probe per mode (at a gate size's
    point, every GATE_POINT_SUBMIT_EVERY-th set), NVML and the host."""

    def __init__(self, session: Session, flush) -> None:
        self.session = session
        # Two holds, each grown only as far as its own readings need: the
        # submit probes' covers 64 launches, a busy reading's one graph
        # launch. Sharing the longer one, every busy reading of a set would
        # wait it out (docs/measurement.md#the-probes).
        self.hold = Hold(session.device, session.stream, session.kernels[HOLD_KERNEL])
        self.submit_hold = Hold(session.device, session.stream, session.kernels[HOLD_KERNEL])
        self.busy: dict[str, BusyProbe] = {}
        for mode in session.modes:
            if mode.workload not in self.busy and mode.busy_enqueue is not None:
                self.busy[mode.workload] = busy_probe(session, mode, self.hold, flush)
        self.submit = {mode.name: SubmitProbe(session.stream, mode, self.submit_hold)
                       for mode in session.modes}
        self.reference = gpu_reference(session, self.hold)
        self.reads = 0
        # at large sizes the submit probes' queued launches (the GPU time of 64
        # graph replays) are a large share of a gate point's sampling
        # (docs/measurement.md#the-probes)
        self.submit_every = GATE_POINT_SUBMIT_EVERY if session.config.gate_point else 1

    def read(self, host_probe_before_us: float | None = None,
             host_probe_us: float | None = None) -> Condition:
        """One reading of every probe, in the order of the modes' rounds: an
        A/B run's pairs alternate which build is read first (a fixed order
        puts the first build's busy time above an identical second's:
        docs/gate.md#measured). The host probes come from the
        sampling loop, taken right around the set of rounds."""
        order = round_order(list(self.busy), self.reads)
        submit_due = self.reads % self.submit_every == 0
        self.reads += 1
        busy = {w: self.busy[w].measure() for w in order}
        submit = {m: probe.measure() for m, probe in self.submit.items()} if submit_due else {}
        return Condition(**self.session.monitor.read(), busy=dict(sorted(busy.items())),
                         submit=submit,
                         reference=self.reference.measure() if self.reference else {},
                         host_probe_us=host_probe_us,
                         host_probe_before_us=host_probe_before_us,
                         cpu_probe_us=round_probe_us())

    def close(self) -> None:
        for probe in self.busy.values():
            probe.close()
        if self.reference:
            self.reference.close()
        self.hold.close()
        self.submit_hold.close()
