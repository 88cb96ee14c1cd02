"""graphbench.record.model: what a record derives from its processes (verified, series by mode and
metric, busy and cycles by workload, one-off costs) and how a sweep finds its points.

Covers graphbench/record/readings.py."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from conftest import make_record, make_run, with_runs
from tests_helpers import stored_document, with_busy

from graphbench.record import codec
from graphbench.record import model as model_module
from graphbench.record.model import BusyReading, Condition, ModeSamples, SubmitReading, SweepRecord


def test_a_merged_record_with_one_failed_process_is_not_verified():
    good, bad = make_run(seed=0), make_run(seed=1, passed=False)
    record = make_record(runs=[good, bad])
    assert not record.verified
    assert [c.name for c in record.checks] == ["process 1: graph", "process 2: graph"]
    assert make_record(runs=[good, make_run(seed=1)]).verified
    assert not dataclasses.replace(record, runs=(dataclasses.replace(good, checks=()),)).verified


def test_a_sweep_finds_its_point_by_size_and_depth():
    points = tuple(make_record(elements=e, depth=d) for e in (1024, 4096) for d in (1, 2))
    sweep = SweepRecord(points[0].tool, "", points[0].host, None, None, points, True)
    assert sweep.point(4096, 1) is points[2]
    assert sweep.point(1024, 2) is points[1]
    assert sweep.point(4096, 3) is None


def test_cycles_are_busy_time_times_the_measured_clock():
    record = with_busy(make_record({"individual": 14.0, "graph": 4.3}), clock=1500.0)
    busy, cycles = record.samples("graph", "busy"), record.samples("graph", "cycles")
    assert cycles == tuple(b * 1500.0 for b in busy) and len(busy) == 10
    assert record.samples("individual", "busy") == busy   # one workload, one series
    no_clock = dataclasses.replace(record.runs[0], conditions=tuple(dataclasses.replace(
        c, busy={w: dataclasses.replace(r, sm_clock_mhz=None) for w, r in c.busy.items()})
        for c in record.runs[0].conditions))
    assert dataclasses.replace(record, runs=(no_clock,)).samples("graph", "cycles") == ()
    assert record.workload("graph") == "stages" and record.workload("nope") is None
    assert record.samples("nope", "busy") == ()


def test_busy_readings_belong_to_the_mode_s_workload():
    record = codec.load_document(stored_document(), "r.json")
    assert record.workload("fused") == "fused" and record.workload("graph") == "stages"
    assert record.workload("no such mode") is None
    assert set(record.modes_sharing_busy("graph")) == {"individual", "graph"}
    assert record.modes_sharing_busy("fused") == ("fused",)
    stages = [c.busy["stages"] for c in record.conditions if "stages" in c.busy]
    assert stages
    assert record.samples("graph", "busy") == tuple(r.us for r in stages)
    assert record.samples("graph", "cycles") == \
        tuple(r.us * r.sm_clock_mhz for r in stages if r.sm_clock_mhz)


def test_one_off_costs_pool_over_the_processes_that_have_them():
    data = stored_document()
    data["runs"] = [data["runs"][0], {**data["runs"][0], "lifecycles": {}}, data["runs"][0]]
    record = codec.load_document(data, "r.json")
    one = data["runs"][0]["lifecycles"]["graph"]["capture_us"]
    assert record.lifecycle_samples("graph").capture_us == tuple(one + one)
    assert record.lifecycle_samples("no such mode") is None
    assert record.node_cost_samples() is None
    costs = {"nodes": [10, 20], "capture_us": [5.0, 9.0], "instantiate_us": [7.0, 12.0]}
    data["runs"][0] = {**data["runs"][0], "node_costs": costs}
    assert codec.load_document(data, "r.json").node_cost_samples().nodes == (10, 20)


def test_a_sweep_finds_its_point_by_size_depth_and_shape():
    from graphbench.config import SweepConfig
    from graphbench.record.model import HostInfo, SweepRecord, ToolInfo

    points = (make_record(elements=1024, depth=1), make_record(elements=1024, depth=2),
              make_record(elements=4096, depth=1),
              make_record(elements=1024, depth=1, grid="1056", block=128))
    sweep = SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(),
                        SweepConfig((1024, 4096), (1, 2)), None, points, True)
    assert sweep.point(1024, 1) is points[0]  # the first of any shape
    assert sweep.point(1024, 2) is points[1] and sweep.point(4096, 1) is points[2]
    assert sweep.point(1024, 1, ("1056", 128)) is points[3]
    assert sweep.point(1024, 1, ("auto", None)) is points[0]
    assert sweep.point(4096, 2) is None and sweep.point(4096, 1, ("1056", 128)) is None
    assert sweep.point(2048, 1) is None


def _two_process_record():
    record = make_record({"individual": 14.0, "graph": 4.3, "fused": 4.6}, rounds=3)
    first, second = record.runs[0], make_run({"individual": 14.0, "graph": 4.3, "fused": 4.6},
                                             rounds=3, seed=1, config=record.config)
    c1 = (Condition(busy={"stages": BusyReading(2.0, sm_clock_mhz=1000.0),
                          "fused": BusyReading(1.5)},
                    submit={"graph": SubmitReading(0.5)}),
          Condition(busy={"stages": BusyReading(3.0)}, submit={"individual": SubmitReading(7.0)}))
    c2 = (Condition(busy={"stages": BusyReading(4.0, sm_clock_mhz=1500.0),
                          "fused": BusyReading(1.25, sm_clock_mhz=2000.0)},
                    submit={"graph": SubmitReading(0.75)}),)
    return with_runs(record, dataclasses.replace(first, conditions=c1),
                     dataclasses.replace(second, conditions=c2))


def test_busy_and_cycles_are_the_workload_s_readings_over_every_process():
    record = _two_process_record()
    assert record.conditions == record.runs[0].conditions + record.runs[1].conditions
    assert len(record.conditions) == 3
    assert record.samples("individual", "busy") == (2.0, 3.0, 4.0)
    assert record.samples("graph", "busy") == (2.0, 3.0, 4.0)
    assert record.samples("fused", "busy") == (1.5, 1.25)
    assert record.samples("graph", "cycles") == (2000.0, 6000.0)   # 2 * 1000, 4 * 1500
    assert record.samples("fused", "cycles") == (2500.0,)
    assert record.samples("individual", "cycles") == (2000.0, 6000.0)
    assert record.samples("graph", "held_submit") == (0.5, 0.75)
    assert record.samples("individual", "held_submit") == (7.0,)
    assert record.samples("fused", "held_submit") == ()
    for metric in ("wall", "submit", "device"):
        key = f"{metric}_us"
        assert record.samples("graph", metric) == \
            getattr(record.runs[0].modes["graph"], key) + getattr(record.runs[1].modes["graph"], key)
    assert record.samples("graph", "wall") != record.samples("graph", "device")


def test_a_mode_only_one_process_ran_has_that_process_s_series():
    record = _two_process_record()
    first, second = record.runs
    extra = ModeSamples((1.0, 2.0, 3.0), (0.5,) * 3, (0.9,) * 3, "stages")
    lone = with_runs(record, dataclasses.replace(first, modes={**first.modes, "pdl": extra}),
                     second)
    assert lone.samples("pdl", "wall") == (1.0, 2.0, 3.0)
    assert type(lone.samples("pdl", "wall")) is tuple
    assert lone.samples("nope", "wall") == ()
    assert lone.samples("nope", "busy") == ()
    assert lone.workload("nope") is None
    listed = with_runs(record, dataclasses.replace(first, modes={"graph": dataclasses.replace(
        first.modes["graph"], wall_us=[5.0, 6.0, 7.0])}))
    assert listed.samples("graph", "wall") == (5.0, 6.0, 7.0)
    assert type(listed.samples("graph", "wall")) is tuple


def test_series_are_made_once_per_record_and_key():
    record = _two_process_record()
    assert record.samples("graph", "wall") is record.samples("graph", "wall")
    assert record.conditions is record.conditions
    assert record.samples("graph", "busy") is record.samples("individual", "busy")
    calls = []

    def make():
        calls.append(1)
        return (1.0,)

    holder = SimpleNamespace()
    assert model_module._memo(holder, "_t", "k", make) == (1.0,)
    assert model_module._memo(holder, "_t", "k", make) == (1.0,)
    assert model_module._memo(holder, "_t", "j", make) == (1.0,)
    assert calls == [1, 1]
    assert holder._t == {"k": (1.0,), "j": (1.0,)}
    assert model_module._memo(holder, "_u", "k", lambda: (2.0,)) == (2.0,)
    # a replaced record gathers its own
    other = dataclasses.replace(record, runs=record.runs[:1])
    assert other.samples("graph", "busy") == (2.0, 3.0)
    assert record.samples("graph", "busy") == (2.0, 3.0, 4.0)


def test_each_mode_s_busy_series_is_its_own_workload_s():
    record = make_record({"individual": 14.0, "graph": 4.3, "fused": 4.6})
    individual, fused = record.samples("individual", "busy"), record.samples("fused", "busy")
    assert individual and fused and individual != fused
    condition = record.runs[0].conditions[0]
    assert individual[0] == condition.busy[record.workload("individual")].us
    assert fused[0] == condition.busy[record.workload("fused")].us
    assert record.samples("graph", "busy") == individual  # the same workload's readings


def test_a_series_joins_every_process_s_rounds_and_is_empty_for_what_no_process_has():
    import numpy as np

    runs = [make_run({"individual": 14.0, "graph": 4.3}, rounds=10, seed=s) for s in (1, 2)]
    record = with_runs(make_record({"individual": 14.0, "graph": 4.3}, rounds=10), *runs)
    wall = record.series("graph", "wall")
    assert wall.tolist() == [x for run in runs for x in run.modes["graph"].wall_us]
    assert not wall.flags.writeable
    assert record.series("fused", "wall").size == 0  # no process ran it
    assert record.series("graph", "no-such-metric").size == 0
    held = record.series("graph", "held_submit")
    assert held.size == 20 and np.all(held > 0)
