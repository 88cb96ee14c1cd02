"""graphbench.stats.warnings: each stability warning's rule, its boundary and its wording."""

from __future__ import annotations

import dataclasses

from conftest import device_info, make_record, with_runs
from tests_helpers import replace_run

import graphbench.stats.warnings as W
from graphbench.stats.stats import summarize
from graphbench.record.model import (BusyReading, Condition, Environment, LegacyProcesses,
                                     SubmitReading)


def test_high_cv_warning_text_and_two_round_series():
    values = [9.0, 11.0]  # n = 2: the rule needs more than one round, not more than two
    s = summarize(values)
    (cv,) = [w for w in W.mode_warnings("graph", values, 10**6) if w.code == "high-cv"]
    assert cv == W.Warning("high-cv", "graph", f"graph: wall time varies by {s.cv:.0%} (CV) "
                           "between rounds", "close other GPU and CPU work, or raise --iters")
    assert "14%" in cv.message


def test_high_cv_fires_at_exactly_the_threshold(monkeypatch):
    values = [10.0, 10.4, 9.7, 10.2]
    monkeypatch.setattr(W, "HIGH_CV", summarize(values).cv)
    monkeypatch.setattr(W, "OUTLIER_HIGH", 10.0)
    monkeypatch.setattr(W, "OUTLIER_LOW", 0.0)
    assert [w.code for w in W.mode_warnings("graph", values, 10**6)] == ["high-cv"]
    monkeypatch.setattr(W, "HIGH_CV", summarize(values).cv * 1.0001)
    assert W.mode_warnings("graph", values, 10**6) == []


def test_one_round_never_draws_high_cv(monkeypatch):
    monkeypatch.setattr(W, "HIGH_CV", -1.0)  # any cv would fire, but one round has none
    assert W.mode_warnings("graph", [10.0], 10**6) == []


def test_outlier_bounds_are_inclusive_and_the_message_names_them(monkeypatch):
    monkeypatch.setattr(W, "HIGH_CV", 10.0)
    high = [10.0, 10.0, 10.0, 12.5]  # max exactly 1.25 x the median
    (found,) = W.mode_warnings("fused", high, 10**6)
    assert found == W.Warning("outliers", "fused", "fused: rounds range 10.00..12.50 us around "
                              "a median of 10.00 us", "the machine changed speed during "
                              "sampling; run again or raise --min-rounds")
    low = [10.0, 10.0, 10.0, 8.0]  # min exactly 0.8 x the median
    assert [w.code for w in W.mode_warnings("fused", low, 10**6)] == ["outliers"]
    inside = [10.0, 10.0, 10.0, 12.49, 8.01]
    assert W.mode_warnings("fused", inside, 10**6) == []


def test_short_round_boundary_and_wording():
    # 4 us x 250 = exactly 1 ms: not short
    assert W.mode_warnings("graph", [4.0] * 5, 250) == []
    (short,) = W.mode_warnings("graph", [4.0] * 5, 249)
    assert short == W.Warning("short-round", "graph", "graph: a round lasts only 996 us, close "
                              "to the timers' resolution", "raise --iters to at least 251")


def test_short_round_remedy_rounds_up_to_a_whole_millisecond():
    (short,) = W.mode_warnings("graph", [4.0000001] * 5, 100)
    assert short.remedy == "raise --iters to at least 250"  # 250 x 4.0000001 us > 1 ms


def test_clock_drop_boundary_and_wording():
    assert W.condition_warnings([Condition(sm_clock_mhz=1000), Condition(sm_clock_mhz=900)]) == []
    (drop,) = W.condition_warnings([Condition(sm_clock_mhz=1000), Condition(sm_clock_mhz=899),
                                    Condition(sm_clock_mhz=None)])
    assert drop == W.Warning("clock-drop", "device", "SM clock fell from 1000 to 899 MHz during "
                             "sampling", "the GPU changed speed (power or thermal management); "
                             "let it cool or check its cooling and power limits")


def test_clock_drop_ignores_unread_clocks():
    # a missing (0 or None) reading is not a drop to zero
    assert W.condition_warnings([Condition(sm_clock_mhz=1000), Condition(sm_clock_mhz=0)]) == []


def test_throttle_reasons_are_sorted_and_deduplicated():
    conditions = [Condition(throttle_reasons=("SW_POWER_CAP", "HW_SLOWDOWN")),
                  Condition(throttle_reasons=("HW_SLOWDOWN",))]
    (found,) = W.condition_warnings(conditions)
    assert found == W.Warning("throttled", "device", "the driver reported clock throttling: "
                              "HW_SLOWDOWN, SW_POWER_CAP", "check cooling, power and other load")


def test_hold_too_short_counts_busy_and_submit_readings():
    conditions = [Condition(busy={"stages": BusyReading(3.0, covered=False),
                                  "fused": BusyReading(2.0, covered=None)},
                            submit={"graph": SubmitReading(1.0, covered=False),
                                    "fused": SubmitReading(1.0, covered=True)})]
    (found,) = W.probe_warnings(conditions, None)
    assert found == W.Warning("hold-too-short", "device", "in 2 of 4 held readings the hold "
                              "kernel ended before the host had queued the work, so host time "
                              "may be in those figures", "the host was slower than 20 ms per "
                              "replay; quiet the machine")
    covered = [Condition(busy={"stages": BusyReading(3.0, covered=True)})]
    assert W.probe_warnings(covered, None) == []


def test_clock_below_max_boundary_and_wording():
    def at(*mhz):
        return [Condition(busy={"stages": BusyReading(3.0, sm_clock_mhz=m)}) for m in mhz]

    assert W.probe_warnings(at(970.0, 1000.0), 1000) == []   # 0.97 x the maximum: fine
    assert W.probe_warnings(at(900.0), None) == []           # no maximum known
    assert W.probe_warnings(at(None), 1000) == []            # no clock measured
    assert W.probe_warnings([Condition(host_probe_us=600.0)], 1000) == []   # no busy reading
    assert W.probe_warnings([], 1000) == []
    (found,) = W.probe_warnings(at(969.0, None, 990.4), 1000)
    assert found == W.Warning("clock-below-max", "device", "the SMs ran at 969..990 MHz during "
                              "the timed work (measured with clock64), below their 1000 MHz "
                              "maximum", "busy times are slower than the GPU can be: check "
                              "power and thermal limits, or compare only records made at the "
                              "same clock")


def test_other_processes_skipped_notes_and_missed_noise_target():
    record = make_record(noise=0.001)
    run = dataclasses.replace(
        record.runs[0], environment=Environment(other_gpu_processes=(41, 42)),
        skipped=("update: not enough device memory", "lifecycle: needs 3 GiB",
                 "floor: not for this pipeline"), stop_reason="time-budget")
    record = with_runs(record, run)
    found = W.record_warnings(record, {})
    assert found[0] == W.Warning("other-processes", "device", "2 other process(es) use this GPU "
                                 "(pids 41, 42)", "run graphbench on an idle GPU")
    assert [(w.code, w.subject, w.message, w.remedy) for w in found[1:4]] == [
        ("skipped", "run", "update: not enough device memory",
         "free device memory, or choose a smaller --elements"),
        ("skipped", "run", "lifecycle: needs 3 GiB",
         "free device memory, or choose a smaller --elements"),
        ("skipped", "run", "floor: not for this pipeline",
         "this figure does not apply to this pipeline or rung")]
    assert len(found) == 4  # a run-out budget is said in the header, not warned about


def test_a_run_after_earlier_runs_in_its_process_is_warned_about_and_a_fresh_one_is_not():
    record = make_record(noise=0.001)
    assert "earlier-runs" not in [w.code for w in W.record_warnings(record, {})]
    later = with_runs(record, dataclasses.replace(
        record.runs[0], environment=Environment(earlier_runs=2)))
    found = [w for w in W.record_warnings(later, {}) if w.code == "earlier-runs"]
    assert found == [W.Warning("earlier-runs", "run", "measured in a process that had run "
                               "graphbench 2 time(s) before: there the GPU-bound figures of "
                               "small kernels read up to 35% higher than in a fresh process",
                               "give the pipeline as a file or shipped name, which graphbench "
                               "measures in a fresh process")]
    # merged processes: one run measured after others is enough
    merged = with_runs(record, record.runs[0], later.runs[0])
    assert [w.code for w in W.record_warnings(merged, {})].count("earlier-runs") == 1


def test_record_warnings_read_every_mode_and_the_records_iters():
    record = make_record(noise=0.001, iters=10)  # 14 us x 10: short rounds
    found = W.record_warnings(record, {m: record.samples(m, "wall") for m in record.mode_names})
    assert [(w.code, w.subject) for w in found] == [
        ("short-round", "individual"), ("short-round", "graph"), ("short-round", "fused")]


def test_record_warnings_see_the_conditions_and_the_devices_maximum_clock():
    record = make_record(noise=0.001, info=device_info(sm_clock_max_mhz=3000))
    found = W.record_warnings(record, {})
    assert [w.code for w in found] == ["clock-below-max"]  # the readings say 1980 MHz
    assert "below their 3000 MHz maximum" in found[0].message
    slow = replace_run(record, conditions=record.runs[0].conditions + (
        Condition(sm_clock_mhz=1000),))
    assert [w.code for w in W.record_warnings(slow, {})] == ["clock-drop",
                                                                   "clock-below-max"]


def test_one_earlier_run_in_the_process_is_enough_to_warn():
    record = make_record(noise=0.001)
    second = with_runs(record, dataclasses.replace(
        record.runs[0], environment=Environment(earlier_runs=1)))
    found = [w.message for w in W.record_warnings(second, {}) if w.code == "earlier-runs"]
    assert found == ["measured in a process that had run graphbench 1 time(s) before: there the "
                     "GPU-bound figures of small kernels read up to 35% higher than in a fresh "
                     "process"]


def test_a_record_of_no_process_runs_draws_no_earlier_runs_warning():
    # a version-1 merged record's processes may be known only by count (record.arguments
    # accepts it): nothing says its runs came after others
    record = dataclasses.replace(make_record(noise=0.001), runs=(),
                                 legacy_processes=LegacyProcesses(2, {}))
    assert W.record_warnings(record, {}) == []
