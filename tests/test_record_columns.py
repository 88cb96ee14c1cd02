"""graphbench.record.columns: a process's readings as read-only arrays, by
workload or mode, made once and read by the range checks and the statistics."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from graphbench.record import ranges
from graphbench.record.columns import (busy_array, columns_of, floats, joined, made_columns,
                                       made_round_array, relative_busy, round_array, run_columns)
from graphbench.record.model import BusyReading, Condition, ModeSamples, SubmitReading

SETS = (Condition(busy={"stages": BusyReading(2.0, 400.0, True, 1000.0)},
                  submit={"graph": SubmitReading(0.5, False)}, host_probe_us=600.0),
        Condition(busy={"stages": BusyReading(3.0), "fused": BusyReading(1.5, covered=False)},
                  reference={"stream": BusyReading(6.0)}),
        Condition(busy={"stages": BusyReading(4.0, sm_clock_mhz=0.0)},
                  submit={"graph": SubmitReading(0.75)},
                  reference={"stream": BusyReading(2.0)}))


def test_readings_are_columns_by_workload_with_the_sets_that_have_them():
    columns = columns_of(SETS)
    assert columns.count == 3 and list(columns.busy) == ["stages", "fused"]
    stages, fused = columns.busy["stages"], columns.busy["fused"]
    assert stages.us.tolist() == [2.0, 3.0, 4.0] and stages.sets.tolist() == [0, 1, 2]
    assert fused.us.tolist() == [1.5] and fused.sets.tolist() == [1]
    assert columns.submit["graph"].sets.tolist() == [0, 2]
    assert stages.clocks.tolist() == [1000.0]  # no clock, and a clock of 0, are left out
    assert np.isnan(stages.column("hold_us")[1]) and stages.column("hold_us")[0] == 400.0
    assert [r.uncovered for r in columns.every_reading()] == [0, 1, 1]
    assert columns.submit["graph"].column("sm_clock_mhz").tolist() != [0.0, 0.0]  # NaN: none
    assert not stages.us.flags.writeable
    assert columns.column("host_probe_us")[0] == 600.0
    assert columns_of(()).busy == {} and columns_of(()).count == 0


def test_busy_in_cycles_and_over_the_reference():
    columns = columns_of(SETS)
    assert busy_array(columns.busy["stages"], "busy").tolist() == [2.0, 3.0, 4.0]
    assert busy_array(columns.busy["stages"], "cycles").tolist() == [2000.0]
    assert busy_array(None, "busy").size == 0
    ratios = relative_busy(columns.busy["stages"], columns.reference["stream"])
    assert ratios.tolist() == [3.0 / 6.0, 4.0 / 2.0]
    assert relative_busy(columns.busy["fused"], columns.reference["stream"]).tolist() == [0.25]
    assert relative_busy(columns.busy["stages"], None).size == 0


def test_processes_join_one_after_another():
    first, second = columns_of(SETS[:2]), columns_of(SETS[2:])
    both = joined([first, second])
    assert both.count == 3 and both.busy["stages"].sets.tolist() == [0, 1, 2]
    assert both.busy["fused"].sets.tolist() == [1]
    assert both.submit["graph"].sets.tolist() == [0, 2]
    assert both.reference["stream"].us.tolist() == [6.0, 2.0]
    assert joined([first]) is first


def test_a_process_makes_its_columns_once_and_a_range_check_reads_them():
    from conftest import make_run

    run = make_run()
    assert made_columns(run, "conditions") is None
    made = run_columns(run)
    assert run_columns(run) is made and made_columns(run, "conditions") is made
    assert made_columns(run, "checks") is None
    samples = ModeSamples((1.0, 2.0), (0.5, 0.5), (0.9, 0.9))
    assert round_array(samples, "wall") is round_array(samples, "wall")
    assert round_array(samples, "wall").tolist() == [1.0, 2.0]
    bad = dataclasses.replace(run, conditions=(Condition(busy={"stages": BusyReading(1e-9)}),))
    run_columns(bad)
    with pytest.raises(Exception, match=r"conditions\[0\]\.busy\.stages\.us"):
        ranges._walk(type(bad), bad, "runs[0]", "")


def test_a_range_check_reads_the_rounds_arrays_made_and_names_a_bad_round():
    samples = ModeSamples((1.0, 2.0), (0.5, 1e-9), (0.9, 0.9))
    assert made_round_array(samples, "wall_us") is None  # not made: not made here either
    made = round_array(samples, "submit")
    assert made_round_array(samples, "submit_us") is made
    assert made_round_array(samples, "submit") is None
    assert made_round_array(samples, "probe_before_us") is None
    assert not ranges._field_fits("submit_us", tuple[float, ...], [samples])
    with pytest.raises(Exception, match=r"^modes\.graph\.submit_us\[1\]: a time of 1e-09 us"):
        ranges._walk(dict[str, ModeSamples], {"graph": samples}, "modes", "modes")


def test_floats_read_none_as_nan():
    assert floats([1.0, 2]).tolist() == [1.0, 2.0]
    assert np.isnan(floats([1.0, None])[1])
    assert floats(np.array([3, 4])).tolist() == [3.0, 4.0]
    assert floats(np.array([3, 4])).dtype == float  # an array of ints is read as floats too
    assert floats(np.array([0.1], dtype=np.float32)).dtype == float


def test_a_field_some_readings_lack_is_none_there_and_nan_in_its_column():
    from graphbench.record.columns import Readings

    mixed = Readings([BusyReading(2.0, sm_clock_mhz=1000.0), SubmitReading(0.5)], np.arange(2))
    assert mixed.values("sm_clock_mhz") == [1000.0, None]
    column = mixed.column("sm_clock_mhz")
    assert column.shape == (2,) and column[0] == 1000.0 and np.isnan(column[1])
    submit = columns_of(SETS).submit["graph"]
    assert submit.values("sm_clock_mhz") == [None, None]
    assert submit.column("sm_clock_mhz").shape == (2,)
    assert np.isnan(submit.column("sm_clock_mhz")).all()


def test_busy_over_a_reference_of_0_is_left_out_and_a_reference_under_1_us_kept():
    sets = (Condition(busy={"stages": BusyReading(2.0)}, reference={"stream": BusyReading(0.5)}),
            Condition(busy={"stages": BusyReading(3.0)}, reference={"stream": BusyReading(0.0)}))
    columns = columns_of(sets)
    assert relative_busy(columns.busy["stages"], columns.reference["stream"]).tolist() == [4.0]
