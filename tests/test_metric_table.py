"""The metrics table (graphbench.metrics) is what the record, the gate and
the ladder read: a figure named there is a field of the record, a metric the
gate parses, host-bound or not as the table says.

Covers graphbench/metrics.py."""

from __future__ import annotations

import dataclasses

import pytest

from graphbench.errors import UsageError
from graphbench.gate.host_match import is_host_bound
from graphbench.gate.specs import parse_spec
from graphbench.ladder import RUNGS
from graphbench.metrics import (BY_NAME, COMPILED, FUSED, GATE_FIELDS, GPU, HOST, METRICS,
                                ROUND, ROUND_METRICS, STAGES, STAGES_PDL)
from graphbench.record.model import ModeSamples


def test_every_per_round_metric_is_a_field_of_a_mode_s_samples():
    fields = {f.name for f in dataclasses.fields(ModeSamples)}
    assert {f"{name}_us" for name in ROUND_METRICS} <= fields
    assert {"wall", "submit", "device"} <= set(ROUND_METRICS)


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: m.name)
def test_the_gate_parses_a_metric_exactly_when_the_table_calls_it_gateable(metric):
    text = f"graph.{metric.name}:5%"
    if metric.gateable:
        assert parse_spec(text).metric == f"graph.{metric.name}"
        assert is_host_bound(f"graph.{metric.name}") == (metric.bound == HOST
                                                          and metric.cadence == ROUND)
    else:
        with pytest.raises(UsageError):
            parse_spec(text)


def test_names_units_and_kinds_are_stated_once_and_well_formed():
    assert len(BY_NAME) == len(METRICS) and set(GATE_FIELDS) <= set(BY_NAME)
    assert all(m.bound in (HOST, GPU) and m.unit and m.description for m in METRICS)
    assert BY_NAME["busy"].bound == GPU and BY_NAME["wall"].bound == HOST


def test_every_rung_runs_a_workload_the_table_names():
    assert {rung.workload for rung in RUNGS} <= {STAGES, STAGES_PDL, FUSED, COMPILED}


def test_a_stored_record_missing_a_required_figure_is_refused(tmp_path):
    """wall, submit and device are in every record; submit may read 0."""
    import json

    from conftest import make_record

    from graphbench.errors import RecordError
    from graphbench.record.codec import read_record, write_record

    assert all(BY_NAME[name].required for name in ("wall", "submit", "device"))
    assert BY_NAME["submit"].may_be_zero and not BY_NAME["wall"].may_be_zero
    document = json.loads(write_record(tmp_path / "r.json", make_record()).read_text())
    document["runs"][0]["modes"]["graph"]["device_us"] = []
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(RecordError, match=r"graph.device_us: 0 samples for \d+ rounds"):
        read_record(tmp_path / "bad.json")
