"""graphbench.stats.metrics: the values of a gate metric, pooled and per process."""

from __future__ import annotations

import dataclasses

from conftest import make_record, make_run, with_runs

from graphbench.stats.metrics import metric_values, process_values
from graphbench.record.model import LegacyProcesses


def test_metric_values_for_speedups_and_mode_metrics():
    record = make_record(noise=0.01)
    walls = {m: record.samples(m, "wall") for m in record.mode_names}
    assert metric_values(record, "speedup") == tuple(
        i / g for i, g in zip(walls["individual"], walls["graph"]))
    assert metric_values(record, "speedup.fused") == tuple(
        i / f for i, f in zip(walls["individual"], walls["fused"]))
    assert metric_values(record, "graph.wall") == walls["graph"]
    assert metric_values(record, "fused.busy") == record.samples("fused", "busy")
    assert metric_values(record, "pdl.wall") == ()
    no_graph = make_record({"individual": 14.0, "fused": 4.6})
    assert metric_values(no_graph, "speedup") == ()
    assert metric_values(no_graph, "speedup.fused") != ()
    no_individual = make_record({"pdl": 6.0, "fused": 4.6})
    assert metric_values(no_individual, "speedup.fused") == ()


def test_process_values_per_run_and_legacy_medians():
    record = with_runs(make_record(), make_run(seed=0), make_run(seed=1))
    values = process_values(record, "graph.wall")
    assert values == [r.modes["graph"].wall_us for r in record.runs]
    assert process_values(record, "pdl.wall") == []
    legacy = dataclasses.replace(record, legacy_processes=LegacyProcesses(
        2, {"graph.wall": (4.0, 4.5)}))
    assert process_values(legacy, "graph.wall") == [(4.0,), (4.5,)]
    assert process_values(legacy, "speedup") == []
