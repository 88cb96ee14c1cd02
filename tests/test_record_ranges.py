"""graphbench.record.ranges: the range of every number a record holds, by the unit its
field's name states, at each edge; the one line a number outside it gets; and a whole
record checked field by field, the first bad number named by its path."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
from conftest import make_record

from graphbench.counts import MAX_COUNT
from graphbench.errors import RecordError
from graphbench.record.ranges import check_numbers, floats_fit, numbers_fit, refusal, unit_of

SMALLEST = sys.float_info.min
SUBNORMAL = 5e-324


def test_a_field_s_unit_is_read_from_its_name():
    assert unit_of("us") == unit_of("medians") == unit_of("wall_us") == (
        1e-6, 1e12, "a time", "us")
    assert unit_of("elapsed_s") == (1e-12, 1e6, "a time", "s")
    assert unit_of("sm_clock_mhz") == (1e-3, 1e6, "a clock", "MHz")
    assert unit_of("start_ns") == (1, 2**62, "a timestamp", "ns")
    assert unit_of("rounds") is None and unit_of("status") is None and unit_of("bus") is None


# (field, values that fit, values that do not): the edges of each unit's range
EDGES = [
    ("wall_us", [0.0], [-1e-6]),
    ("wall_us", [1e-6, 1e12], [9.9e-7]),
    ("wall_us", [0.0, 1e-6], [1.0001e12]),
    ("wall_us", [0.0, 5.0], [0.0, 5e-7]),
    ("medians", [1e-6, 3.0], [SUBNORMAL]),
    ("elapsed_s", [1e-12, 1e6], [1e6 * 1.0001]),
    ("elapsed_s", [0.0, 1e-12], [0.0, 9e-13]),
    ("sm_clock_mhz", [0, 1e-3, 1e6], [1e6 + 1]),
    ("start_ns", [0, 1, 2**62], [2**62 + 1]),
    ("start_ns", [0, 7], [-1, 7]),
    ("count", [-MAX_COUNT, MAX_COUNT], [MAX_COUNT + 1]),
    ("count", [0, 3], [-MAX_COUNT - 1, 0]),
    ("error", [SMALLEST, 1.0], [SUBNORMAL]),
    ("error", [-1.0, -SMALLEST], [-SUBNORMAL]),
    ("error", [-1.0, 0.0, 1.0], [-1.0, SUBNORMAL, 1.0]),
    ("error", [-1.0, -SMALLEST, SMALLEST, 1.0], [-1.0, -SUBNORMAL, 1.0]),
]


@pytest.mark.parametrize("name, fit, unfit", EDGES)
def test_numbers_fit_their_field_up_to_each_edge(name, fit, unfit):
    assert numbers_fit(name, fit) and numbers_fit(name, list(reversed(fit)))
    assert not numbers_fit(name, unfit)
    assert numbers_fit(name, [])


@pytest.mark.parametrize("name, fit, unfit", EDGES)
def test_many_floats_are_judged_as_a_few_are(name, fit, unfit):
    """64 values or more are judged in numpy; None (NaN) is left out. (Whole numbers past
    2^53 are no floats: an int field is judged by numbers_fit.)"""
    if any(isinstance(v, int) and abs(v) > 2**53 for v in fit + unfit):
        return
    for size in (8, 64, 100):
        for values, fits in ((fit, True), (unfit, False)):
            many = np.resize(np.array(values, dtype=float), size)
            assert floats_fit(name, many) is fits, (size, values)
            with_none = [None] + [float(v) for v in many]
            assert floats_fit(name, with_none) is fits, (size, values)
    assert floats_fit(name, [None] * 70) and floats_fit(name, np.zeros(0))


def test_a_number_outside_its_field_is_one_line_saying_what_it_is():
    time = refusal("wall_us", 2e12, "runs[0].modes.graph.wall_us[3]")
    assert (time.message, time.remedy) == (
        "runs[0].modes.graph.wall_us[3]: a time of 2e+12 us, outside what graphbench measures "
        "(0, or 1e-06 to 1e+12 us)", "was the record written by graphbench?")
    clock = refusal("sm_clock_mhz", 1e9, "device.sm_clock_mhz")
    assert clock.message == ("device.sm_clock_mhz: a clock of 1e+09 MHz, outside what graphbench "
                             "measures (0, or 0.001 to 1e+06 MHz)")
    whole = refusal("count", 2**64, "runs[0].rounds")
    assert (whole.message, whole.remedy) == (
        "runs[0].rounds: a whole number beyond 2^63, which no record holds", "")
    tiny = refusal("error", SUBNORMAL, "runs[0].checks[0].max_abs_error")
    assert (tiny.message, tiny.remedy) == (
        "runs[0].checks[0].max_abs_error: 5e-324 is too small to compute with (subnormal)",
        "was the record written by graphbench?")


def _refused(record) -> str:
    with pytest.raises(RecordError) as info:
        check_numbers(record)
    return info.value.message


def test_a_record_s_first_bad_number_is_named_by_its_path():
    record = make_record()
    check_numbers(record)  # a record as graphbench writes it fits
    run = record.runs[0]
    graph = dataclasses.replace(run.modes["graph"], wall_us=(4.3, 4.3, 4.3, SUBNORMAL))
    bad = dataclasses.replace(record, runs=(dataclasses.replace(
        run, modes={**run.modes, "graph": graph}),))
    assert _refused(bad).startswith("runs[0].modes.graph.wall_us[3]: a time of 4.94e-324 us")

    conditions = list(run.conditions)
    busy = conditions[2].busy
    workload = next(iter(busy))
    conditions[2] = dataclasses.replace(conditions[2], busy={
        **busy, workload: dataclasses.replace(busy[workload], sm_clock_mhz=1e300)})
    bad = dataclasses.replace(record, runs=(dataclasses.replace(
        run, conditions=tuple(conditions)),))
    assert _refused(bad).startswith(
        f"runs[0].conditions[2].busy.{workload}.sm_clock_mhz: a clock of 1e+300 MHz")

    conditions = list(run.conditions)
    conditions[1] = dataclasses.replace(conditions[1], host_probe_us=1e-300)
    bad = dataclasses.replace(record, runs=(dataclasses.replace(
        run, conditions=tuple(conditions)),))
    assert _refused(bad).startswith("runs[0].conditions[1].host_probe_us: a time of 1e-300 us")

    device = dataclasses.replace(record.device, sm_clock_mhz=10**9)
    assert _refused(dataclasses.replace(record, device=device)).startswith(
        "device.sm_clock_mhz: a clock of 1e+09 MHz")
    bad = dataclasses.replace(record, runs=(dataclasses.replace(run, elapsed_s=1e300),))
    assert _refused(bad).startswith("runs[0].elapsed_s: a time of 1e+300 s")


def test_a_number_in_a_mapping_or_a_later_process_is_named_by_its_key_and_index():
    record = make_record()
    run = record.runs[0]
    later = dataclasses.replace(run, sampling_s=-1.0)
    two = dataclasses.replace(record, runs=(run, later))
    assert _refused(two).startswith("runs[1].sampling_s: a time of -1 s")
    modes = {**run.modes, "graph": dataclasses.replace(run.modes["graph"],
                                                       device_us=(1.0, 2e12))}
    bad = dataclasses.replace(record, runs=(dataclasses.replace(run, modes=modes),))
    assert _refused(bad).startswith("runs[0].modes.graph.device_us[1]: a time of 2e+12 us")


def test_many_floats_without_a_unit_are_held_within_2_to_the_63():
    for edge, fits in ((2.0**63, True), (-2.0**63, True), (2.0**64, False), (-2.0**64, False)):
        assert floats_fit("max_abs_error", [1.0] * 70 + [edge]) is fits, edge
        assert floats_fit("max_abs_error", [edge] + [-1.0] * 70) is fits, edge


def test_an_integer_too_large_for_a_float_is_shown_by_its_digit_count():
    assert refusal("wall_us", 10**4000 - 1, "p").message.startswith(
        "p: a time of a 4,000-digit number us")
    for huge in (10**4000, 10**5000):
        assert refusal("wall_us", huge, "p").message.startswith(
            "p: a time of a number of thousands of digits us")


def test_a_bad_number_in_an_optional_part_of_a_process_is_named_by_its_path():
    from graphbench.record.model import LaunchFloorSamples

    record = make_record()
    run = dataclasses.replace(record.runs[0], launch_floor=LaunchFloorSamples(
        kernel_launch_us=(2.0, 1e-9), graph_replay_us=(1.0, 1.0)))
    bad = dataclasses.replace(record, runs=(run,))
    assert _refused(bad).startswith("runs[0].launch_floor.kernel_launch_us[1]: a time of 1e-09 us")


def test_a_condition_s_clock_out_of_range_is_found_in_its_made_columns():
    from graphbench.record.columns import run_columns

    record = make_record()
    run = record.runs[0]
    conditions = (dataclasses.replace(run.conditions[0], sm_clock_mhz=10**7), *run.conditions[1:])
    bad = dataclasses.replace(run, conditions=conditions)
    run_columns(bad)  # as reading a record makes them, before the range check
    assert _refused(dataclasses.replace(record, runs=(bad,))).startswith(
        "runs[0].conditions[0].sm_clock_mhz: a clock of 1e+07 MHz")


def test_a_version_1_record_s_medians_are_times_named_by_mode_and_index():
    from graphbench.record.model import LegacyProcesses

    record = make_record()
    check_numbers(dataclasses.replace(record, legacy_processes=LegacyProcesses(
        count=2, medians={"graph": (4.0, 4.5)})))
    bad = dataclasses.replace(record, legacy_processes=LegacyProcesses(
        count=2, medians={"graph": (4.0, 1e-9)}))
    assert _refused(bad).startswith("legacy_processes.medians.graph[1]: a time of 1e-09 us")
