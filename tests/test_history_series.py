"""The history judges a series, not a pair: records of one pipeline, machine
class (GPU model, driver, CPU: not the GPU's UUID) and configuration form a
series (graphbench.history.series); `compare last FILE` judges FILE against
its series' level with its own spread, `history list` and the trend page
name the first commit of each step (graphbench.analyze.series, .steps).

Records are the synthetic ones of tests/conftest.py (one process, as run
--save makes by default), their GPU busy time scaled per record, stored in
a real SQLite history and judged through the commands a user runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import device_info, make_record

from graphbench.history.keys import key_for
from graphbench.history.series import SeriesKey, configuration, series_runs
from graphbench.history.store import History
from graphbench.record.codec import run_document
from graphbench.record.model import HostInfo, RunRecord

H200 = device_info()
OTHER_H200 = device_info(uuid="GPU-11111111-other")


def scaled(record: RunRecord, busy: float) -> RunRecord:
    """The record with every GPU busy reading times `busy`."""
    def one(run):
        return dataclasses.replace(run, conditions=tuple(dataclasses.replace(c, busy={
            w: dataclasses.replace(r, us=r.us * busy) for w, r in c.busy.items()})
            for c in run.conditions))
    return dataclasses.replace(record, runs=tuple(one(run) for run in record.runs))


def made(hour: int, busy: float = 1.0, info=H200, **config) -> RunRecord:
    """A one-process record made at `hour` (hours after 2026-12-01 00:00 UTC)."""
    record = scaled(make_record(seed=hour, info=info, **config), busy)
    day, hour = divmod(hour, 24)
    return dataclasses.replace(record, created=f"2026-12-{1 + day:02d}T{hour:02d}:00:00+00:00")


def text_of(record: RunRecord) -> str:
    return json.dumps(run_document(record)) + "\n"


def commit(i: int) -> str:
    return f"{i + 1:08x}" + "c" * 32


def store(path, records, commits=None) -> None:
    with History.open(str(path)) as history:
        for i, record in enumerate(records):
            text = text_of(record)
            assert history.save(key_for(record, text, commits[i] if commits else commit(i)),
                                text)


def series_of(record: RunRecord) -> SeriesKey:
    return SeriesKey.of(key_for(record, text_of(record), None), record)


# --- what a series is ------------------------------------------------------------------

def test_physical_gpus_of_one_model_are_one_series():
    assert series_of(made(0)) == series_of(made(1, info=OTHER_H200))


@pytest.mark.parametrize("other", [
    dict(info=device_info(driver_version="590.1")), dict(info=device_info("NVIDIA H100")),
    dict(elements=2 ** 20), dict(flush_l2=True), dict(depth=2), dict(stages=("add", "mul")),
    dict(params={"cols": "256"}), dict(grid="per-element"), dict(unroll=20)])
def test_another_class_or_configuration_is_another_series(other):
    assert series_of(made(0)) != series_of(made(1, **other))


def test_another_cpu_model_is_another_class_and_iterations_are_not_configuration():
    host = dataclasses.replace(made(1), host=HostInfo("host", "Linux", "EPYC 9654"))
    assert series_of(made(0)) != series_of(host)
    assert series_of(made(0)) == series_of(made(1, iters=50))


def test_gate_sizes_are_part_of_the_configuration():
    point = made(1, elements=2 ** 20, gate_point=True)
    assert configuration(dataclasses.replace(made(1), gate_points=(point,)))["gate_sizes"] \
        == [2 ** 20]
    assert series_of(made(0)) != series_of(dataclasses.replace(made(1), gate_points=(point,)))


def test_a_series_is_read_oldest_first_to_a_time_and_a_count(tmp_path):
    records = [made(i) for i in range(6)] + [made(6, elements=2 ** 20), made(7, info=OTHER_H200)]
    store(tmp_path / "h.db", records)
    with History.open(str(tmp_path / "h.db"), create=False) as history:
        every = series_runs(history, series_of(made(0)))
        assert [r.created[11:13] for _, r in every] == ["00", "01", "02", "03", "04", "05", "07"]
        newest = series_runs(history, series_of(made(0)), until="2026-12-01T05:00:00+00:00",
                             exclude=every[-2][0].id, limit=2)
    assert [r.created[11:13] for _, r in newest] == ["03", "04"]
