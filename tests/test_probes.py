"""graphbench.measure.probes without a GPU: which probes a set of rounds reads,
with the holds, busy, submit and reference probes replaced by counters."""

from types import SimpleNamespace

import pytest

import graphbench.measure.probes as probes_module
from graphbench.config import RunConfig
from graphbench.measure.probes import GATE_POINT_SUBMIT_EVERY, Probes


class Counter:
    """A probe that counts its readings; every reading is its count."""

    def __init__(self, *args, **kwargs):
        self.reads = 0

    def measure(self):
        self.reads += 1
        return self.reads

    def close(self):
        pass


@pytest.fixture
def fake_probes(monkeypatch):
    for name in ("Hold", "BusyProbe", "SubmitProbe"):
        monkeypatch.setattr(probes_module, name, Counter)
    monkeypatch.setattr(probes_module, "gpu_reference", lambda session, hold: None)

    def made(gate_point: bool) -> Probes:
        modes = [SimpleNamespace(name=name, workload=workload, busy_enqueue=object(),
                                 pipeline=SimpleNamespace(capture=None))
                 for name, workload in (("individual", "stages"), ("graph", "stages"),
                                        ("fused", "fused"))]
        session = SimpleNamespace(
            config=RunConfig(elements=1 << 24, gate_point=gate_point), modes=modes,
            device=None, stream=None, kernels={probes_module.HOLD_KERNEL: None},
            monitor=SimpleNamespace(read=lambda: {"sm_clock_mhz": 1980,
                                                  "throttle_reasons": ()}))
        return Probes(session, None)

    return made


def test_a_run_reads_every_probe_after_every_set_of_rounds(fake_probes):
    probes = fake_probes(gate_point=False)
    conditions = [probes.read(600.0, 610.0) for _ in range(9)]
    assert all(set(c.busy) == {"stages", "fused"} for c in conditions)
    assert all(set(c.submit) == {"individual", "graph", "fused"} for c in conditions)
    assert probes.submit["graph"].reads == 9


def test_a_gate_point_reads_busy_every_set_and_submit_every_few(fake_probes):
    # the gate reads a gate size's busy time; at 2^24 elements the submit
    # probes' queued launches were a third of such a point's sampling
    probes = fake_probes(gate_point=True)
    conditions = [probes.read(600.0, 610.0) for _ in range(20)]
    assert all(set(c.busy) == {"stages", "fused"} for c in conditions)
    assert [i for i, c in enumerate(conditions) if c.submit] == \
        list(range(0, 20, GATE_POINT_SUBMIT_EVERY))
    assert probes.busy["stages"].reads == 20
    assert probes.submit["fused"].reads == 20 // GATE_POINT_SUBMIT_EVERY
    assert conditions[-1].host_probe_us == 610.0 and conditions[-1].host_probe_before_us == 600.0
