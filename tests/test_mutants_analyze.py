"""Mutation tests for graphbench.analyze outside the gate modules (issue 19
item 9): the stability warnings' rules, boundaries and wording, the derived
figures, descriptive statistics, the comparison's context notes, the gate's
fail-closed checks, the ladder's verdict, merging, gate metrics and the
node-cost fit. Every figure here is recomputed from the synthetic data the
test builds, not copied from an output."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import device_info, make_record, make_run, with_runs

from graphbench.analyze import warnings as W
from graphbench.analyze.context import (config_mismatch, device_notes, difference_notes,
                                        measured_clock,
                                        same_hardware, same_physical_gpu)
from graphbench.analyze.derived import (BACK_PRESSURE, Crossover, back_pressured,
                                        break_even_iterations, cache_state, crossover,
                                        launch_bound, time_breakdown)
from graphbench.analyze.gate import check_decidable, check_judgeable, gate, judge, judged
from graphbench.analyze.ladder import gpu_floor, ladder
from graphbench.analyze.merge import merge_runs
from graphbench.analyze.metrics import metric_values, process_values
from graphbench.analyze.node_costs import fit_line, fit_node_costs
from graphbench.analyze.stats import median, paired_ratios, summarize
from graphbench.analyze.summary import summarize_run
from graphbench.errors import RecordError, UsageError, VerificationError
from graphbench.record.model import (BusyReading, Check, Comparison, Condition, Environment,
                                     LegacyProcesses, NodeCostSamples, SubmitReading, Verdict)


def replace_run(record, **changes):
    return dataclasses.replace(record, runs=(dataclasses.replace(record.runs[0], **changes),))


# ---------------------------------------------------------------- warnings

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
    found = W.record_warnings(record, {}, 0.0234)
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


def test_record_warnings_read_every_mode_and_the_records_iters():
    record = make_record(noise=0.001, iters=10)  # 14 us x 10: short rounds
    found = W.record_warnings(record, {m: record.samples(m, "wall") for m in record.mode_names},
                              None)
    assert [(w.code, w.subject) for w in found] == [
        ("short-round", "individual"), ("short-round", "graph"), ("short-round", "fused")]


def test_record_warnings_see_the_conditions_and_the_devices_maximum_clock():
    record = make_record(noise=0.001, info=device_info(sm_clock_max_mhz=3000))
    found = W.record_warnings(record, {}, None)
    assert [w.code for w in found] == ["clock-below-max"]  # the readings say 1980 MHz
    assert "below their 3000 MHz maximum" in found[0].message
    slow = replace_run(record, conditions=record.runs[0].conditions + (
        Condition(sm_clock_mhz=1000),))
    assert [w.code for w in W.record_warnings(slow, {}, None)] == ["clock-drop",
                                                                   "clock-below-max"]


# ----------------------------------------------------------------- derived

def test_break_even():
    assert break_even_iterations(100.0, 14.0, 4.0) == pytest.approx(10.0)
    assert break_even_iterations(100.0, 4.5, 4.0) == pytest.approx(200.0)  # under 1 us saved
    assert break_even_iterations(100.0, 4.0, 4.0) is None
    assert break_even_iterations(100.0, 4.0, 5.0) is None


def test_cache_state():
    assert cache_state(100, 100, False) == type(cache_state(1, 1, False))(100, 100, True, False)
    assert cache_state(101, 100, False).l2_resident is False
    assert cache_state(50, 100, True).l2_resident is False
    unknown = cache_state(50, None, False)
    assert unknown.l2_resident is None and unknown.working_set_bytes == 50
    assert unknown.l2_bytes is None and unknown.flush_l2 is False


def test_launch_bound_rules():
    assert launch_bound(10.0, 5.0, None, True) is None
    assert launch_bound(10.0, 5.0, 4.0, True) is True
    assert launch_bound(10.0, 4.0, 4.0, True) is False   # strictly longer
    assert launch_bound(10.0, 99.0, 5.0, False) is False  # wall, not submit: 10 = 2 x 5
    assert launch_bound(10.1, 0.0, 5.0, False) is True


def test_back_pressure_rule():
    assert back_pressured(3.0, None) is None
    assert back_pressured(BACK_PRESSURE * 2.0, 2.0) is False
    assert back_pressured(3.01, 2.0) is True


def test_time_breakdown_prefers_the_held_submit():
    held = time_breakdown(20.0, 9.0, 7.0, 6.0, 3.0, held_submit_us=3.0)
    assert held.launches_per_iteration == 3.0 and held.submit_per_launch_us == 1.0
    assert held.device_us == 7.0 and held.busy_us == 6.0 and held.idle_gap_us == 14.0
    assert held.launch_bound is False  # held submit 3 < busy 6
    assert held.back_pressured is True  # 9 > 1.5 x 3
    rounds = time_breakdown(20.0, 9.0, 7.0, 6.0, 3.0)
    assert rounds.submit_per_launch_us == 3.0 and rounds.back_pressured is None
    assert rounds.launch_bound is True  # wall 20 > 2 x 6
    none = time_breakdown(5.0, 9.0, 7.0, None, 2.0)
    assert none.idle_gap_us is None and none.launch_bound is None
    assert time_breakdown(5.0, 1.0, 7.0, 6.0, 1.0).idle_gap_us == 0.0


def test_crossover_interpolates_in_log2():
    found = crossover([(1024, 2.0), (256, 3.0), (4096, 0.5)], 1.5)
    # between 1024 (2.0) and 4096 (0.5): a third of the way in log2, 10 + 2/3 * 2
    assert found.status == "crossover" and found.between == (1024, 4096)
    assert found.elements == pytest.approx(2 ** (10 + 2 * (2.0 - 1.5) / (2.0 - 0.5)))
    assert crossover([(256, 1.0), (1024, 0.5)], 1.5) == Crossover("below-at-smallest", 256.0,
                                                                   (256, 256))
    assert crossover([(256, 2.0), (1024, 1.5)], 1.5) == Crossover("none-in-range", None, None)


# ------------------------------------------------------------------- stats

def test_summarize_every_field():
    s = summarize([1.0, 2.0, 3.0, 4.0, 10.0])
    assert (s.n, s.median, s.q1, s.q3, s.iqr, s.min, s.max) == (5, 3.0, 2.0, 4.0, 2.0, 1.0, 10.0)
    assert s.mean == 4.0
    assert s.stdev == pytest.approx(float(np.std([1, 2, 3, 4, 10], ddof=1)))
    assert s.cv == pytest.approx(s.stdev / 4.0)
    one = summarize([7.0])
    assert one.stdev == 0.0 and one.cv == 0.0 and one.n == 1
    assert math.isnan(summarize([0.0, 0.0]).cv)
    with pytest.raises(ValueError, match="^cannot summarize an empty sample$"):
        summarize([])


def test_single_precision_samples_are_summarized_in_double():
    values = np.array([1.0, 1 + 2**-23, 1 + 2**-22, 1.0], dtype=np.float32)
    assert summarize(values) == summarize(values.astype(np.float64))
    assert summarize(values).median == 1 + 2**-24


def test_median_and_paired_ratios():
    assert median([3, 1, 2, 10]) == 2.5
    assert paired_ratios([4.0, 9.0], [2.0, 3.0]) == [2.0, 3.0]
    with pytest.raises(ValueError, match="^paired samples must have the same length$"):
        paired_ratios([1.0], [1.0, 2.0])


# ----------------------------------------------------------------- context

def test_config_mismatch_names_each_key_and_the_pipeline():
    base = make_record()
    other = make_record(elements=2**20, iters=500, flush_l2=True, depth=2,
                        stages=("add", "mul"))
    other = dataclasses.replace(other, pipeline=dataclasses.replace(other.pipeline, name="mine"))
    b, c = base.config, other.config
    assert config_mismatch(base, other) == [
        "pipeline add_mul_sub vs mine", f"elements {b.elements} vs {c.elements}",
        "flush_l2 False vs True", f"stages {','.join(b.stages)} vs add,mul", f"depth {b.depth} vs 2"]
    assert config_mismatch(base, make_record()) == []
    # iterations per round follow the host's speed: a note, not a mismatch
    fewer = make_record(iters=500)
    assert config_mismatch(base, fewer) == []
    assert "iterations per round 1000 vs 500: figures are per iteration" in \
        difference_notes(base, fewer)


def test_hardware_and_physical_gpu_notes():
    base = make_record()
    other_driver = make_record(info=device_info(driver_version="999"))
    assert not same_hardware(base, other_driver)
    assert device_notes(base, other_driver) == [
        "different device or driver (NVIDIA H200 580.159.04 vs NVIDIA H200 999): times are "
        "shown, not gated"]
    assert device_notes(base, make_record(info=device_info("NVIDIA H100")))[0].startswith(
        "different device or driver (NVIDIA H200 580.159.04 vs NVIDIA H100 580.159.04)")
    other_gpu = make_record(info=device_info(uuid="GPU-0123456789abcdef"))
    assert same_hardware(base, other_gpu) and not same_physical_gpu(base, other_gpu)
    assert device_notes(base, other_gpu) == [
        "different physical GPUs (00000000-tes vs 0123456789ab): the spread between GPUs of "
        "one model is part of the noise"]
    assert device_notes(base, make_record()) == []
    unknown = make_record(info=device_info(uuid=None))
    assert not same_physical_gpu(unknown, unknown)
    assert device_notes(unknown, unknown)[0].startswith("different physical GPUs (? vs ?)")


def with_clock(record, mhz):
    return replace_run(record, conditions=tuple(
        dataclasses.replace(c, busy={w: dataclasses.replace(r, sm_clock_mhz=mhz)
                                     for w, r in c.busy.items()})
        for c in record.runs[0].conditions))


def test_difference_notes_each_kind():
    base = make_record()
    assert measured_clock(base) == 1980.0
    assert measured_clock(with_clock(base, None)) is None
    assert difference_notes(base, make_record()) == []
    other = dataclasses.replace(make_record(), pipeline=dataclasses.replace(
        base.pipeline, kernel_source="mine.cu", kernel_source_sha256="ab" * 32,
        harness_sha256="1" * 64), packages={**base.packages, "cuda-core": "9.9"})
    base_h = dataclasses.replace(base, pipeline=dataclasses.replace(base.pipeline,
                                                                    harness_sha256="2" * 64))
    other = replace_run(with_clock(other, 2030.0),
                        environment=Environment(other_gpu_processes=(), pinned_cpu=3))
    assert difference_notes(base_h, other) == [
        f"kernel sources differ (shipped {'0' * 12} vs mine.cu {'ab' * 6})",
        "graphbench's own harness kernels differ: the instrument changed",
        "one record pinned its launching thread and the other did not",
        "cuda-core 1.2.0 vs 9.9",
        "measured SM clock differs (1980 vs 2030 MHz): GPU time moves with it"]


def test_difference_notes_tolerances_and_unknowns():
    base = make_record()
    assert difference_notes(base, with_clock(make_record(), 2019.6)) == []  # within 2%
    at_1000 = with_clock(base, 1000.0)
    assert difference_notes(at_1000, with_clock(make_record(), 1020.0)) == []  # exactly 2%
    assert difference_notes(at_1000, with_clock(make_record(), 1020.1)) == [
        "measured SM clock differs (1000 vs 1020 MHz): GPU time moves with it"]  # of the base
    assert difference_notes(base, with_clock(make_record(), None)) == []
    assert difference_notes(with_clock(base, None), with_clock(make_record(), 1000.0)) == []
    one_harness = dataclasses.replace(base, pipeline=dataclasses.replace(
        base.pipeline, harness_sha256="1" * 64))
    assert difference_notes(one_harness, make_record()) == []  # unknown on one side
    assert difference_notes(make_record(), one_harness) == []
    no_digest = dataclasses.replace(base, pipeline=dataclasses.replace(
        base.pipeline, kernel_source_sha256=None))
    assert difference_notes(no_digest, base) == [
        f"kernel sources differ (shipped ? vs shipped {'0' * 12})"]
    bindings = dataclasses.replace(base, packages={**base.packages, "cuda-bindings": "13.0",
                                                   "cupy-cuda13x": None})
    assert difference_notes(base, bindings) == ["cuda-bindings None vs 13.0",
                                                "cupy-cuda13x 14.2 vs None"]


# -------------------------------------------------------------------- gate

def failing_check(name="graph"):
    return Check(name, False, 8, 1, None, 3)


def test_judged_checks_the_current_records_results_first():
    base, current = make_record(), make_record(passed=False)
    with pytest.raises(VerificationError) as caught:
        judged(base, current, None)
    assert caught.value.message == "the current record failed verification"
    assert caught.value.remedy == "fix the code until graphbench run verifies it"


def test_check_judgeable_messages():
    record = make_record()
    check_judgeable(record, "baseline")  # a complete record passes
    with pytest.raises(RecordError) as caught:
        check_judgeable(replace_run(record, checks=()), "baseline")
    assert caught.value.message == ("the baseline record has no verification checks, so it "
                                    "cannot be judged")
    assert caught.value.remedy == "give a record written by graphbench run --json"
    with pytest.raises(RecordError) as caught:
        check_judgeable(make_record(passed=False, elements=12345), "current")
    assert caught.value.message == ("the current record failed verification at 12,345 "
                                    "elements, so it cannot be judged")
    assert caught.value.remedy == "make the record again from code that verifies"
    with pytest.raises(RecordError) as caught:
        check_judgeable(replace_run(record, rounds=0), "current")
    assert caught.value.message == "the current record has no timed rounds"
    assert caught.value.remedy == "give a complete record"
    with pytest.raises(RecordError, match="the baseline record has no timed rounds"):
        check_judgeable(replace_run(record, modes={}), "baseline")
    point = make_record(passed=False, elements=4096)
    with pytest.raises(RecordError, match="failed verification at 4,096 elements"):
        check_judgeable(dataclasses.replace(record, gate_points=(point,)), "baseline")


def test_judged_refuses_a_bad_baseline_before_looking_at_the_current():
    with pytest.raises(RecordError, match="the baseline record failed verification"):
        judged(make_record(passed=False), make_record(passed=False), None)
    with pytest.raises(RecordError, match="the current record has no timed rounds"):
        judged(make_record(), replace_run(make_record(), rounds=0), None)


def ab(record):
    return make_record({"individual": 14.0, "graph": 4.3, "individual@base": 14.0,
                        "graph@base": 4.4})


def test_judge_refuses_mixing_ab_records_and_needs_one_or_the_other():
    base = make_record()
    for pair in ((ab(base), base), (base, ab(base))):
        with pytest.raises(UsageError) as caught:
            judge(*pair, None)
        assert caught.value.message == ("an A/B record holds both builds and is judged on its "
                                        "own, not against another record")
        assert caught.value.remedy == ("graphbench compare AB.json (one file: the candidate "
                                       "against its @base build)")
    with pytest.raises(UsageError) as caught:
        judge(None, base, None)
    assert caught.value.message == ("compare needs a baseline and a current record, or one A/B "
                                    "record")
    assert caught.value.remedy == ("graphbench compare BASE.json NEW.json; an A/B record comes "
                                   "from graphbench run --ab BASE.cu")


def test_judge_and_gate_use_the_given_specs():
    from graphbench.analyze.specs import parse_spec

    record = ab(None)
    specs = [parse_spec("graph.wall:50%")]
    assert [v.metric for v in judge(None, record, specs).verdicts] == ["graph.wall"]
    assert len(judge(None, record, None).verdicts) > 1  # the A/B defaults
    base = with_runs(make_record(), *(make_run(seed=s) for s in range(3)))
    gated = gate(base, make_record(seed=5), specs)
    assert [v.metric for v in gated.verdicts if v.gated] == ["graph.wall"]


def test_judge_compares_against_the_baseline():
    base = make_record()
    comparison = judge(base, make_record(seed=1), None)
    assert isinstance(comparison, Comparison) and comparison.verdicts


def verdict(metric, verdict="same", gated=True, note=""):
    return Verdict(metric=metric, verdict=verdict, gated=gated, threshold="5%", note=note)


def test_check_decidable_messages():
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison((verdict("speedup"),), (), ("elements 1 vs 2", "iters 3 vs 4")))
    assert caught.value.message == "records are not comparable: elements 1 vs 2; iters 3 vs 4"
    assert caught.value.remedy == ("compare records of the same pipeline, --elements, --iters, "
                                   "--depth, --stages and --flush-l2")
    missing = Comparison((verdict("speedup"), verdict("graph.busy", "missing", note="no busy"),
                          verdict("fused.wall", "missing", note="absent"),
                          verdict("pdl.wall", "missing", gated=False, note="ungated")), (), ())
    with pytest.raises(RecordError) as caught:
        check_decidable(missing)
    assert caught.value.message == "cannot judge graph.busy (no busy), fused.wall (absent)"
    assert caught.value.remedy == ("gate only what both records measured (--fail-on), or "
                                   "remake one")
    nothing = Comparison((verdict("speedup", "undecided", note="too few processes"),
                          verdict("graph.wall", "undecided", note="too few processes"),
                          verdict("fused.wall", "undecided", note="other device"),
                          verdict("pdl.wall", "same", gated=False, note="ungated"),
                          verdict("graph.busy", "undecided")), (), ())
    with pytest.raises(RecordError) as caught:
        check_decidable(nothing)
    assert caught.value.message == ("the gate judged nothing, so it has not passed (too few "
                                    "processes; other device)")
    assert caught.value.remedy == ("gate records of the same device model, from a baseline of 3 "
                                   "or more processes, or use run --ab")
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison((), (), ()))
    assert caught.value.message == ("the gate judged nothing, so it has not passed (no metric "
                                    "is gated on this pair)")
    check_decidable(Comparison((verdict("speedup", "slower"),), (), ()))  # decided: no error


def test_gate_decides_or_raises():
    base = with_runs(make_record(), *(make_run(seed=s) for s in range(3)))
    comparison = gate(base, make_record(seed=5))
    assert comparison.judged and comparison.passed
    with pytest.raises(RecordError) as caught:
        gate(make_record(), make_record(seed=5))
    assert caught.value.message.startswith("the gate judged nothing, so it has not passed (a "
                                           "baseline of 1 process(es) cannot tell")


# ------------------------------------------------------------------ ladder

def test_ladder_rows_floor_and_fastest():
    record = make_record({"individual": 14.0, "driver": 12.0, "graph": 4.3, "fused": 4.0},
                         noise=0.001)
    summary = summarize_run(record)
    found = ladder(summary)
    floor = summary.modes["individual"].busy.median
    assert found.floor_us == floor == gpu_floor(summary)
    assert [r.mode for r in found.rows] == ["individual", "driver", "graph", "fused"]
    first, _, graph, fused = found.rows
    assert first.speedup == 1.0 and first.wall_us == summary.modes["individual"].wall.median
    assert graph.speedup == summary.speedup["graph"].stats.median
    assert graph.from_floor == graph.wall_us / floor
    assert graph.submit_us == summary.modes["graph"].launch_cost.median
    assert graph.busy_us == summary.modes["graph"].busy.median
    assert graph.idle_gap_us == summary.breakdown["graph"].idle_gap_us
    assert found.fastest_unchanged == "graph" and found.fastest == "fused"


def test_ladder_without_busy_times_or_breakdowns():
    record = make_record({"individual": 14.0, "graph": 4.3}, noise=0.001)
    summary = summarize_run(record)
    bare = dataclasses.replace(summary, breakdown={}, speedup={}, modes={
        m: dataclasses.replace(s, busy=None) for m, s in summary.modes.items()})
    found = ladder(bare)
    assert found.floor_us is None and gpu_floor(bare) is None
    assert all(r.from_floor is None and r.busy_us is None and r.idle_gap_us is None
               for r in found.rows)
    assert [r.speedup for r in found.rows] == [1.0, None]


def test_gpu_floor_skips_kernel_changing_rungs_and_base_builds():
    record = make_record({"fused": 4.0, "graph@base": 1.0, "individual": 14.0, "graph": 4.3},
                         noise=0.001)
    summary = summarize_run(record)
    # fused changes the kernels; graph@base is not one of this build's rungs
    floor = summary.modes["individual"].busy.median
    assert gpu_floor(summary) == floor
    assert floor not in (summary.modes["fused"].busy.median,
                         summary.modes["graph@base"].busy.median)
    found = ladder(summary)
    assert "graph@base" in [r.mode for r in found.rows]  # shown, but not one of this build's
    assert found.fastest == "fused" and found.fastest_unchanged == "graph"
    only_fused = make_record({"fused": 4.0, "pdl": 6.0}, noise=0.001)
    assert gpu_floor(summarize_run(only_fused)) is None
    found = ladder(summarize_run(only_fused))
    assert found.fastest_unchanged is None and found.fastest == "fused"


# ------------------------------------------------------------------- merge

def test_merge_concatenates_runs_and_checks_keys():
    a, b = make_record(seed=0), make_record(seed=1)
    merged = merge_runs([a, b])
    assert merged.runs == a.runs + b.runs and merged.config == a.config
    assert merge_runs([a]).runs == a.runs
    with pytest.raises(RecordError) as caught:
        merge_runs([])
    assert caught.value.message == "no records to merge"
    with pytest.raises(RecordError) as caught:
        merge_runs([a, b, make_record(elements=2**20, depth=2)])
    assert caught.value.message == "cannot merge runs that differ in elements, depth"
    assert merge_runs([a, make_record(iters=77)]).runs[1].modes  # iters may differ


def test_merge_refuses_version_one_merged_records():
    legacy = dataclasses.replace(make_record(), legacy_processes=LegacyProcesses(2, {}))
    for records in ([legacy, make_record()], [make_record(), legacy]):
        with pytest.raises(RecordError) as caught:
            merge_runs(records)
        assert caught.value.message == "cannot merge a version-1 merged record"
        assert caught.value.remedy == "make the baseline again with graphbench run --processes N"


# ----------------------------------------------------------------- metrics

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


# -------------------------------------------------------------- node costs

def test_fit_line_and_node_costs():
    line = fit_line([1, 2, 3, 4], [12.0, 14.0, 16.0, 18.5])
    slope, intercept = np.polyfit([1, 2, 3, 4], [12.0, 14.0, 16.0, 18.5], 1)
    assert line.per_node_us == pytest.approx(slope) and line.fixed_us == pytest.approx(intercept)
    residual = np.sqrt(np.mean((np.array([12, 14, 16, 18.5]) -
                                (intercept + slope * np.array([1, 2, 3, 4]))) ** 2))
    assert line.residual_us == pytest.approx(residual) and line.residual_us > 0
    assert line.samples == 4
    samples = NodeCostSamples(nodes=(10, 20, 40, 10), capture_us=(20.0, 30.0, 50.0, 20.0),
                              instantiate_us=(5.0, 7.0, 11.0, 5.0),
                              graph_memory_bytes=(1000.0, 2000.0, 4000.0, 1000.0))
    fit = fit_node_costs(samples)
    assert fit.capture.per_node_us == pytest.approx(1.0)
    assert fit.capture.fixed_us == pytest.approx(10.0)
    assert fit.instantiate.per_node_us == pytest.approx(0.2)
    assert fit.instantiate.fixed_us == pytest.approx(3.0)
    assert fit.nodes == (10, 40) and fit.memory_per_node_bytes == pytest.approx(100.0)
    assert fit_node_costs(dataclasses.replace(samples, graph_memory_bytes=())
                          ).memory_per_node_bytes is None
    assert fit_node_costs(None) is None
    two = NodeCostSamples(nodes=(10, 20), capture_us=(20.0, 30.0), instantiate_us=(5.0, 7.0))
    assert fit_node_costs(two).capture.per_node_us == pytest.approx(1.0)  # two counts: a line
    one_count = NodeCostSamples(nodes=(10, 10), capture_us=(1.0, 2.0), instantiate_us=(1.0, 1.0),
                                graph_memory_bytes=())
    assert fit_node_costs(one_count) is None


# ---------------------------------------------- attribution and stage figures
# A synthetic trace: each kernel (name, gap before in ns, duration in ns) in
# launch order; a batch starts after a host sync (a long gap, left out).

from graphbench.analyze import attribution as A  # noqa: E402
from graphbench.analyze import stage_figures as F  # noqa: E402
from graphbench.record.trace import Attribution, KernelActivity, RungTrace, StageWindow  # noqa: E402


def windows(stages, workload="stages"):
    """StageWindows whose kernels are listed out of launch order (sorting must fix it)."""
    out, t = [], 0
    for stage, names in stages:
        kernels = [KernelActivity(n, t + 10 * i, t + 10 * i + 5, correlation_id=i)
                   for i, n in enumerate(names)]
        out.append(StageWindow(stage, workload, tuple(reversed(kernels))))
        t += 1000
    return tuple(out)


def trace(batches, per_batch, workload="stages", **times):
    kernels, t, cid = [], 0, 0
    for b, seq in enumerate(batches):
        t += 10**6
        for name, gap, duration in seq:
            t += gap
            kernels.append(KernelActivity(name, t, t + duration, correlation_id=cid, batch=b))
            t += duration
            cid += 1
    return RungTrace(workload, per_batch, tuple(kernels), **times)


STAGES = (("a", ("k1",)), ("b", ("k2", "k3")))


def attribution(rungs, stages=STAGES, harness=("loop_count",)):
    return Attribution(windows(stages), rungs, harness)


def iteration(gap=100, duration=1000, names=("k1", "k2", "k3")):
    return [(n, gap, duration) for n in names]


def test_expected_stages_sort_each_stages_kernels_by_launch():
    found = A.expected_stages(attribution({}), "stages")
    assert found == [("a", ("k1",)), ("b", ("k2", "k3"))]
    assert A.expected_stages(attribution({}), "fused") == []


def test_escape_counts_per_iteration_and_its_text():
    body = iteration() + iteration()
    short = [k for k in body if k[0] != "k3"][:-1] + [("k3", 100, 10)] + \
        [("k9", 5, 5), ("k9", 5, 5), ("loop_count", 5, 5), ("k2", 5, 5), ("k2", 5, 5)]
    found = A.escape_of(attribution({}), trace([body, short], 2))
    # 4 iterations: k3 ran 3 times (one short), k2 5 times, k9 twice
    assert found.missing == (("k3", 0.25),)
    assert found.extra == (("k2", 0.25), ("k9", 0.5))
    assert found.text() == "replay lacks k3 x0.25; replay adds k2 x0.25, k9 x0.5"
    assert A.escape_of(attribution({}), trace([body, body], 2)) is None
    assert A.escape_of(attribution({}), trace([body], 2, workload="fused")) is None


def test_escape_text_of_one_side_and_whole_counts():
    assert A.Escape((("k3", 1.0),), ()).text() == "replay lacks k3"
    assert A.Escape((), (("k9", 2.0), ("k8", 1.0))).text() == "replay adds k9 x2, k8"
    assert A.Escape((("a", 1.0), ("b", 0.5)), (("c", 1.0),)).text() == \
        "replay lacks a, b x0.5; replay adds c"


def test_a_trace_of_no_whole_batches_counts_as_one_run():
    once = trace([iteration()], 0)  # no iterations per batch known: one run
    assert A.escape_of(attribution({}), once) is None
    found = F.rung_figures(record_with({"graph": once}), "graph")
    assert found.kernels_per_iteration == 3.0 and found.iterations == 0


def test_loop_escapes_go_by_name_only():
    # CUPTI reports the loop's body once per launch: counts say nothing there
    once = trace([[("loop_count", 10, 10)] + iteration()], 8)
    rungs = {"loop": once, "graph": trace([iteration() * 8], 8)}
    assert A.capture_escapes(attribution(rungs)) == {}
    assert A.escape_of(attribution(rungs), once) is not None  # by count it would be one
    odd = trace([[("loop_count", 10, 10), ("k1", 1, 1), ("k9", 1, 1), ("k2", 1, 1)]], 8)
    found = A.capture_escapes(attribution({"loop": odd, "graph": trace([iteration()], 1)}))
    assert found == {"loop": A.Escape((("k3", 1.0),), (("k9", 1.0),))}
    assert A.loop_escape_of(attribution({}), trace([[("k9", 1, 1)]], 1, workload="x")) is None
    missing_only = trace([[("k1", 1, 1), ("k2", 1, 1)]], 1)
    assert A.loop_escape_of(attribution({}), missing_only) == A.Escape((("k3", 1.0),), ())
    extra_only = trace([iteration() + [("k7", 1, 1), ("k0", 1, 1)]], 1)
    assert A.loop_escape_of(attribution({}), extra_only) == A.Escape(
        (), (("k0", 1.0), ("k7", 1.0)))


def test_a_graph_rung_that_runs_its_kernels_twice_escapes_by_count():
    twice = trace([iteration() * 2], 1)
    found = A.capture_escapes(attribution({"graph": twice, "loop": twice}))
    assert found == {"graph": A.Escape((), (("k1", 1.0), ("k2", 1.0), ("k3", 1.0)))}


def test_capture_escapes_only_on_graph_rungs():
    bad = trace([[("k1", 1, 1)]], 1)
    rungs = {"individual": bad, "driver": bad, "custom": bad, "graph": bad, "unrolled": bad}
    found = A.capture_escapes(attribution(rungs))
    assert list(found) == ["graph", "unrolled"]
    assert found["graph"] == A.Escape((("k2", 1.0), ("k3", 1.0)), ())


def placed(found):
    return [[(p.stage, p.kernel.name, p.gap_ns, p.after_loop) for p in it] for it in found]


def test_iterations_split_batches_and_place_kernels_in_order():
    seq = [("k1", 0, 10), ("k2", 5, 10), ("loop_count", 7, 3), ("k3", 2, 10),
           ("k1", 4, 10), ("k2", 0, 10), ("k3", 1, 10), ("loop_count", 6, 3)]
    found = A.iterations(attribution({}), trace([seq], 2))
    assert placed(found) == [
        [(0, "k1", None, False), (1, "k2", 5, False), (-1, "loop_count", 7, False),
         (1, "k3", 2, True)],
        [(0, "k1", 4, False), (1, "k2", 0, False), (1, "k3", 1, False),
         (-1, "loop_count", 6, False)]]
    assert A.iterations(attribution({}), trace([seq[:-2]], 2)) == []  # not whole iterations
    assert A.iterations(attribution({}, stages=()), trace([seq], 2)) == []


def test_iterations_of_an_even_plan_split_every_plan_length():
    stages = (("a", ("k1",)), ("b", ("k2",)))
    seq = [("k1", 1, 1), ("k2", 1, 1)] * 3
    found = A.iterations(attribution({}, stages), trace([seq], 3))
    assert [[p.kernel.name for p in it] for it in found] == [["k1", "k2"]] * 3
    assert [[p.stage for p in it] for it in found] == [[0, 1]] * 3


def test_kernels_out_of_order_are_placed_by_name():
    seq = [("k2", 1, 1), ("loop_count", 2, 1), ("k1", 3, 1), ("k3", 4, 1)]
    (found,) = A.iterations(attribution({}), trace([seq], 1))
    assert [(p.stage, p.kernel.name, p.gap_ns, p.after_loop) for p in found] == [
        (1, "k2", None, False), (-1, "loop_count", 2, False), (0, "k1", 3, True),
        (1, "k3", 4, False)]
    assert [p.kernel for p in found] == list(trace([seq], 1).kernels)


def test_repeated_names_take_the_earliest_unplaced_kernel():
    stages = (("a", ("k1",)), ("b", ("k1",)), ("c", ("k2",)))
    seq = [("k2", 1, 1), ("k1", 2, 1), ("k1", 3, 1)]
    (found,) = A.iterations(attribution({}, stages), trace([seq], 1))
    assert [(p.stage, p.gap_ns) for p in found] == [(2, None), (0, 2), (1, 3)]


def test_an_unknown_kernel_keeps_the_first_stage():
    seq = [("k1", 1, 1), ("k9", 2, 1), ("k3", 3, 1)]
    (found,) = A.iterations(attribution({}), trace([seq], 1))
    assert [(p.stage, p.kernel.name) for p in found] == [(0, "k1"), (0, "k9"), (1, "k3")]


def record_with(rungs, stages=STAGES, **run_changes):
    record = make_record({"individual": 14.0, "graph": 4.3, "loop": 4.0}, noise=0.001)
    return replace_run(record, attribution=attribution(rungs, stages), **run_changes)


def test_stage_figures_sum_kernels_and_zero_gaps():
    # every gap 0 ns: a stage's idle is 0, not rounded up; k2 + k3 add up
    body = [("k1", 0, 400), ("k2", 0, 300), ("k3", 0, 200)] * 3
    record = record_with({"graph": trace([body], 3, untraced_wall_us=(1.0, 3.0, 2.0),
                                         traced_wall_us=(5.0, 4.0))})
    found = F.rung_figures(record, "graph")
    assert found.iterations == 2 and found.period_us == pytest.approx(0.9)
    first, second = found.stages
    assert (first.index, first.stage, first.kernels) == (1, "a", ("k1",))
    assert (second.index, second.stage, second.kernels) == (2, "b", ("k2", "k3"))
    assert (first.gpu_us, first.gap_us, first.overlap_us) == (0.4, 0.0, 0.0)
    assert second.gpu_us == pytest.approx(0.5) and second.gap_us == 0.0
    assert second.share == pytest.approx(0.5 / 0.9) and first.share == pytest.approx(0.4 / 0.9)
    assert found.loop_us is None and found.escape is None
    assert (found.untraced_wall_us, found.traced_wall_us) == (2.0, 4.5)
    assert found.kernels_per_iteration == 3.0 and found.expected_kernels == 3


def test_loop_rung_conditional_with_zero_gaps():
    body = [("k1", 0, 400), ("k2", 0, 300), ("k3", 0, 200), ("loop_count", 0, 100)] * 2
    found = F.rung_figures(record_with({"loop": trace([body], 2)}), "loop")
    assert found.iterations == 1
    assert found.loop_us == pytest.approx(0.1)  # only the loop kernel's own time
    assert found.stages[0].gap_us is None  # k1 follows the loop kernel: its idle is the loop's
    assert found.stages[1].gap_us == 0.0
    gappy = [("k1", 50, 400), ("k2", 0, 300), ("k3", 0, 200), ("loop_count", 20, 100)] * 2
    found = F.rung_figures(record_with({"loop": trace([gappy], 2)}), "loop")
    assert found.loop_us == pytest.approx((20 + 100 + 50) / 1000)
    assert found.stages[0].gap_us is None  # its idle is the conditional's
    assert found.escape is None and found.kernels_per_iteration == 3.0


def test_a_loop_kernel_inside_a_stage_splits_its_idle_from_the_conditionals():
    # k2, then the loop kernel, then k3 (stage b's second kernel) after it
    body = [("k1", 30, 400), ("k2", 40, 300), ("loop_count", 50, 100), ("k3", 60, 200)] * 2
    found = F.rung_figures(record_with({"loop": trace([body], 2)}), "loop")
    a, b = found.stages
    assert b.gpu_us == pytest.approx(0.5)
    assert b.gap_us == pytest.approx(0.04)  # k3's 60 ns are the conditional's
    assert a.gap_us == pytest.approx(0.03)
    assert found.loop_us == pytest.approx((50 + 100 + 60) / 1000)
    assert found.accounted_us == pytest.approx(found.period_us)


def test_a_period_of_exactly_zero_has_no_shares():
    body = [("k1", 100, 1000), ("k2", -900, 10), ("k3", 0, 10),
            ("k1", 10, 10), ("k2", 0, 10), ("k3", 0, 850)]
    found = F.rung_figures(record_with({"graph": trace([body], 2)}), "graph")
    assert found.period_us == 0.0 and [s.share for s in found.stages] == [0.0, 0.0]


def test_overlap_and_a_period_of_under_one_microsecond():
    body = [("k1", 100, 200), ("k2", -50, 100), ("k3", 0, 100)] * 3
    found = F.rung_figures(record_with({"graph": trace([body], 3)}), "graph")
    assert found.period_us == pytest.approx(0.45)
    a, b = found.stages
    assert a.gap_us == pytest.approx(0.1) and a.overlap_us == 0.0
    assert b.gap_us == 0.0 and b.overlap_us == pytest.approx(0.05)
    assert b.share == pytest.approx(0.2 / 0.45)


def test_a_period_that_is_not_positive_has_no_shares():
    body = [("k1", 100, 1000), ("k2", -900, 10), ("k3", 0, 10),
            ("k1", 10, 10), ("k2", 0, 10), ("k3", 0, 10)]
    found = F.rung_figures(record_with({"graph": trace([body], 2)}), "graph")
    assert found.period_us < 0 and [s.share for s in found.stages] == [0.0, 0.0]


def test_rung_figures_without_whole_iterations_or_on_an_eager_rung():
    escaped = trace([[("k1", 1, 1), ("k2", 1, 1)]], 1)
    record = record_with({"graph": escaped, "individual": escaped})
    graph = F.rung_figures(record, "graph")
    assert graph.stages == () and graph.period_us is None and graph.loop_us is None
    assert graph.iterations == 0 and graph.escape == A.Escape((("k3", 1.0),), ())
    assert graph.untraced_wall_us is None and graph.traced_wall_us is None
    assert F.rung_figures(record, "individual").escape is None
    assert F.record_rung_is_graph("graph") and not F.record_rung_is_graph("individual")
    assert not F.record_rung_is_graph("custom")


def test_busy_us_of_a_mode():
    record = record_with({})
    assert F.busy_us(record, "graph") == median(record.samples("graph", "busy"))
    assert F.busy_us(record, "pdl") is None
    no_busy = replace_run(record, conditions=tuple(dataclasses.replace(c, busy={})
                                                   for c in record.runs[0].conditions))
    assert F.busy_us(no_busy, "graph") is None


def test_timeline_takes_the_iteration_nearest_the_median():
    # periods 1.5, 1.0, 1.1, 1.3, 1.05 us after the first: median 1.1
    gaps = [0, 500, 0, 100, 300, 50]
    body = []
    for gap in gaps:
        body += [("k1", gap, 400), ("k2", 0, 300), ("k3", 0, 300)]
    record = record_with({"graph": trace([body], 6)})
    found = F.timeline(record, "graph")
    assert found.mode == "graph" and found.period_us == pytest.approx(1.1)
    assert [(s.stage, s.start_us, s.end_us) for s in found.segments] == [
        (0, pytest.approx(0.1), pytest.approx(0.5)), (1, pytest.approx(0.5), pytest.approx(0.8)),
        (1, pytest.approx(0.8), pytest.approx(1.1))]
    assert F.timeline(record_with({"graph": trace([body[:3]], 1)}), "graph") is None
    assert [t.mode for t in F.timelines(record)] == ["graph"]
    assert F.timelines(make_record()) == [] and F.all_rung_figures(make_record()) == []


def test_the_first_process_that_traced_is_read():
    traced = record_with({"graph": trace([iteration() * 2], 2)})
    plain = make_record().runs[0]
    both = with_runs(traced, plain, traced.runs[0])
    assert F.record_attribution(both) is traced.runs[0].attribution
    assert F.record_attribution(make_record()) is None
    assert [f.mode for f in F.all_rung_figures(both)] == ["graph"]
