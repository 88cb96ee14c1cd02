"""Each stability warning fires on data built to trigger it, and stays silent on clean data."""

import dataclasses

from conftest import make_record

from graphbench.stats.summary import summarize_run
from graphbench.stats.warnings import condition_warnings, mode_warnings
from graphbench.record.model import Condition, Environment


def codes(warnings):
    return sorted(w.code for w in warnings)


def record_warnings(record):
    return list(summarize_run(record).warnings)


def test_clean_data_draws_no_warning():
    assert record_warnings(make_record(noise=0.005)) == []


def test_every_warning_has_a_message_and_a_remedy():
    found = record_warnings(make_record(noise=0.3))
    assert found
    for warning in found:
        assert warning.message and warning.remedy and warning.subject


def test_high_cv_fires_at_ten_percent():
    steady = [10.0, 10.1, 9.9, 10.0, 10.05]
    assert "high-cv" not in codes(mode_warnings("graph", steady, 1000))
    swinging = [8.0, 12.0, 8.5, 11.5, 10.0]
    assert "high-cv" in codes(mode_warnings("graph", swinging, 1000))


def test_far_outlier_fires_even_with_low_cv():
    rounds = [10.0] * 30 + [14.0]
    found = mode_warnings("individual", rounds, 1000)
    assert codes(found) == ["outliers"]
    assert "10.00..14.00" in found[0].message


def test_short_round_says_how_many_iterations_are_enough():
    (warning,) = mode_warnings("graph", [4.0] * 10, 100)  # 400 us rounds
    assert warning.code == "short-round" and "--iters to at least 251" in warning.remedy
    assert mode_warnings("graph", [4.0] * 10, 1000) == []


def test_clock_drop_and_throttle_reasons():
    falling = [Condition(sm_clock_mhz=1980),
               Condition(sm_clock_mhz=1410, throttle_reasons=("SW_THERMAL_SLOWDOWN",))]
    found = condition_warnings(falling)
    assert codes(found) == ["clock-drop", "throttled"]
    assert "1980 to 1410 MHz" in found[0].message
    steady = [Condition(sm_clock_mhz=1980)] * 5
    assert condition_warnings(steady) == []
    assert condition_warnings([Condition(sm_clock_mhz=None)]) == []


def test_other_processes_warn_and_a_missed_noise_target_is_said_once_in_the_header():
    record = make_record(noise=0.02)
    run = dataclasses.replace(record.runs[0], stop_reason="time-budget",
                              environment=Environment(other_gpu_processes=(4242,)))
    record = dataclasses.replace(record, runs=(run,))
    found = {w.code: w for w in record_warnings(record)}
    assert sorted(found) == ["other-processes"]
    assert "4242" in found["other-processes"].message


def test_host_speed_states_draw_no_warning():
    # the host's states are shown on the report's host line (with each state's
    # figures), not warned about: on the H200 most runs see both
    probes = [600, 610, 590, 620, 605] * 3 + [1000, 1020, 990, 1010, 1005] * 2
    assert condition_warnings([Condition(sm_clock_mhz=1980, host_probe_us=us)
                               for us in probes]) == []


def test_a_hold_that_ended_too_soon_is_reported():
    from graphbench.stats.warnings import probe_warnings
    from graphbench.record.model import BusyReading, SubmitReading

    good = Condition(busy={"stages": BusyReading(3.0, 100.0, True, 1980.0)},
                     submit={"graph": SubmitReading(4.0, True)})
    short = Condition(busy={"stages": BusyReading(3.4, 20000.0, False, 1980.0)},
                      submit={"graph": SubmitReading(4.0, True)})
    assert probe_warnings([good] * 3, 1980) == []
    (warning,) = probe_warnings([good, short], 1980)
    assert warning.code == "hold-too-short" and "1 of 4 held readings" in warning.message


def test_a_clock_below_the_maximum_during_timed_work_is_reported():
    from graphbench.stats.warnings import probe_warnings
    from graphbench.record.model import BusyReading

    at_max = [Condition(busy={"stages": BusyReading(3.0, 100.0, True, mhz)}) for mhz in (1979, 1980)]
    assert probe_warnings(at_max, 1980) == []
    slow = [Condition(busy={"stages": BusyReading(3.4, 100.0, True, mhz)}) for mhz in (1980, 1755)]
    (warning,) = probe_warnings(slow, 1980)
    assert warning.code == "clock-below-max" and "1755..1980 MHz" in warning.message
    assert probe_warnings(slow, None) == []  # no maximum known: nothing to compare with


def test_a_skipped_measurement_is_a_warning_with_its_reason():
    record = make_record()
    note = "graph update not measured: its second set of buffers would need 144.00 GiB in all"
    record = dataclasses.replace(record, runs=(dataclasses.replace(record.runs[0], skipped=(note,)),))
    (warning,) = [w for w in record_warnings(record) if w.code == "skipped"]
    assert warning.message == note and "--elements" in warning.remedy


def test_memory_is_counted_for_the_modes_chosen():
    import pytest as _pytest
    from conftest import device_info

    from graphbench.config import RunConfig
    from graphbench.errors import DeviceError
    from graphbench.measure.session import memory_plan

    from graphbench.pipeline.files import load_pipeline, plan

    info = device_info(free_memory_bytes=139 * 2**30)
    huge = 2147483653  # about 72 GiB per set of buffers on the H200
    built_in = plan(load_pipeline(None).spec, huge)
    assert memory_plan(RunConfig(elements=huge, modes=("individual", "fused")), info,
                       built_in) is None
    reason = memory_plan(RunConfig(elements=huge), info, built_in)  # graph: no room to update
    assert reason.startswith("graph update not measured")
    with _pytest.raises(DeviceError, match="GiB of device memory"):
        memory_plan(RunConfig(elements=2**34), info, plan(load_pipeline(None).spec, 2**34))
