"""Mutation tests for the modules changed after the session-5 campaign
(docs/mutation.md, "Session 6 re-run of the changed modules"): the noise
margin and reach test of the gate, A/B's 60-round floor, rung_escape, the
flat-reading fast path of the decoder, the record's memoized series and the
reader's paused collector and min/max time checks."""

from __future__ import annotations

import dataclasses
import gc
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import make_record
from tests_helpers import ab_record as shared_ab_record

from graphbench.analyze import decide as decide_module
from graphbench.analyze.ab import compare_ab, judge_ratios, ratio_change
from graphbench.analyze.compare import DEVICE_SPREAD, Z_GATE, Z_POWER, between_processes
from graphbench.analyze.decide import (CHANGED, FASTER, NOT_GATEABLE, SAME, SLOWER, Change,
                                       decide, noise_margin)
from graphbench.analyze.intervals import median_interval
from graphbench.analyze.specs import parse_spec
from graphbench.analyze.stopping import (AB_MIN_ROUNDS, NOISE_TARGET, TIME_BUDGET, NoiseTarget,
                                         headline_noise, stop_rule)


# --- decide: noise_margin, Change.reach, the reach test ---

def test_noise_margin_is_one_plus_one_over_root_two_df_floored_at_one_df():
    assert noise_margin(8) == 1.25
    assert noise_margin(2) == 1.5
    assert noise_margin(1) == 1 + 1 / math.sqrt(2)
    assert noise_margin(0.5) == 1 + 1 / math.sqrt(2)   # below 1 df: as 1
    assert noise_margin(-3) == 1 + 1 / math.sqrt(2)
    assert noise_margin(50) == 1.1


def test_a_change_states_no_bound_floor_or_advice_unless_given():
    change = Change(0.10, 0.06, 0.12, 0.01)
    assert math.isnan(change.bound) and change.floor == 0.0 and change.advice is None
    # the advice is no part of a change's identity
    assert Change(0.1, 0.06, 0.12, 0.01, advice=lambda t: "x") == change


def test_slower_needs_more_than_the_edge_three_quarters_of_the_threshold():
    # 0.375 and 0.5 are exact in binary: the edge itself is not past it
    assert decide(Change(0.375, 0.25, 0.5, 0.01), 0.5) == (CHANGED, "")
    assert decide(Change(0.3751, 0.25, 0.5, 0.01), 0.5) == (SLOWER, "")
    assert decide(Change(-0.375, -0.5, -0.25, 0.01), 0.5) == (CHANGED, "")
    assert decide(Change(-0.3751, -0.5, -0.25, 0.01), 0.5) == (FASTER, "")
    # where the interval lies does not move the edge
    assert decide(Change(0.3751, 0.001, 0.9, 0.01), 0.5) == (SLOWER, "")


def test_higher_is_better_turns_the_edge_around():
    up = Change(0.04, 0.03, 0.05, 0.01)
    assert decide(up, 0.05, higher_is_better=True) == (FASTER, "")
    assert decide(up, 0.05) == (SLOWER, "")
    down = Change(-0.04, -0.05, -0.03, 0.01)
    assert decide(down, 0.05, higher_is_better=True) == (SLOWER, "")
    small = Change(-0.02, -0.03, -0.01, 0.01)
    assert decide(small, 0.05, higher_is_better=True) == (CHANGED, "")
    # an interval across 0 stays the same however wide
    assert decide(Change(0.0, -0.9, 0.9, 0.01), 0.05) == (SAME, "")


def test_detectable_beyond_the_threshold_is_not_gateable_whatever_the_change():
    verdict, note = decide(Change(0.30, 0.20, 0.40, 0.06), 0.05)
    assert verdict == NOT_GATEABLE
    assert note == "not gateable on this pair: it detects 6.0%, the threshold is 5.0%"
    advised = Change(0.30, 0.20, 0.40, 0.06, advice=lambda t: f"more at {t:.0%}")
    assert decide(advised, 0.05)[1].endswith("; more at 5%")
    assert decide(Change(0.30, 0.20, 0.40, 0.06, advice=lambda t: ""), 0.05)[1] == note


# --- stopping: A/B's floor of 60 rounds ---

def test_an_ab_run_samples_at_least_sixty_rounds():
    assert AB_MIN_ROUNDS == 60
    config = SimpleNamespace(rounds=None, min_rounds=10, ab_source="base.cu", max_noise=0.02,
                             max_time=3.0)
    assert stop_rule(config) == NoiseTarget(0.02, 60, 3.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "min_rounds": 75})) == \
        NoiseTarget(0.02, 75, 3.0)
    assert stop_rule(SimpleNamespace(**{**vars(config), "ab_source": None})) == \
        NoiseTarget(0.02, 10, 3.0)


def test_the_noise_target_is_met_at_equality():
    walls = {"graph": [10.0, 10.2, 9.9, 10.1, 10.05, 9.95] * 4}
    noise = headline_noise(walls)
    assert 0 < noise < math.inf
    rule = NoiseTarget(noise, 3, 100.0)
    assert rule.reason_to_stop(24, 0.0, walls) == NOISE_TARGET
    assert NoiseTarget(noise * 0.999, 3, 100.0).reason_to_stop(24, 0.0, walls) is None
    assert NoiseTarget(noise * 0.999, 3, 1.0).reason_to_stop(24, 1.0, walls) == TIME_BUDGET


# --- ab: the margin widens detectable and is carried on ---

def _ratios(n=80, seed=3):
    rng = np.random.default_rng(seed)
    return list(1.01 + 0.004 * rng.standard_normal(n))


def test_ratio_change_widens_detectable_by_the_noise_margin_of_its_effective_pairs():
    from scipy import stats

    from graphbench.analyze.ab import paired_location

    ratios = _ratios()
    location = paired_location(np.log(ratios), 1e-4)
    assert location.effective_n >= 8
    df = location.effective_n - 1
    margin = 1 + 1 / math.sqrt(2 * df)
    se = location.se * math.exp(location.estimate)
    change = ratio_change(ratios)
    assert change.detectable == pytest.approx(4 * stats.t.ppf(0.95, df) * se * margin, rel=1e-3)
    assert change.bound == pytest.approx(stats.t.ppf(0.95, df) * se * margin, rel=1e-3)
    assert change.estimate == pytest.approx(math.exp(location.estimate) - 1, rel=1e-12)
    # the interval is not widened: significance is the plain 99% one
    assert change.high - change.estimate == pytest.approx(stats.t.ppf(0.995, df) * se, rel=1e-3)
    assert change.scope == "within one process, 80 pairs"


def test_judge_ratios_keeps_the_spec_text_and_no_estimate_where_a_ratio_is_infinite():
    spec = parse_spec("graph.wall:5%")
    verdict = judge_ratios(spec, _ratios(), 10.0, 10.1)
    assert verdict.threshold == "5%" and verdict.metric == "graph.wall"
    broken = judge_ratios(spec, [1.0, math.inf, 1.0], 10.0, 10.1)
    assert broken.verdict == NOT_GATEABLE
    assert broken.change is None and broken.detectable is None
    assert broken.change_low is None and broken.change_high is None
    assert broken.note == "a base round took no time: the ratio cannot be formed"


def test_compare_ab_reports_no_incompatibility():
    comparison = compare_ab(shared_ab_record({"individual": 14.0, "graph": 6.0}, rounds=60))
    assert comparison.incompatible == ()


# --- compare: the reach uses the widened spread ---

T995_5, T95_5 = 4.032143, 2.015048   # Student's t quantiles at 5 df (tables)


def t_quantile(p, df):
    assert df == 5
    return {0.995: T995_5, 0.95: T95_5}[p]


def test_between_processes_widens_detectable_and_the_bound_but_not_the_interval():
    base = [(10.0, 10.1, 10.2), (10.3, 10.2, 10.4), (9.9, 10.0, 10.1), (10.1, 10.2, 10.0)]
    cur = [(10.5, 10.6, 10.4), (10.7, 10.5, 10.6), (10.4, 10.5, 10.6)]
    plain = between_processes(base, cur, other_gpu=False)
    b = [float(np.median(v)) for v in base]
    c = [float(np.median(v)) for v in cur]
    df = len(b) - 1 + len(c) - 1
    margin = 1 + 1 / math.sqrt(2 * df)
    half = plain.high - plain.estimate
    se = half / t_quantile(0.995, df)
    assert plain.bound == pytest.approx(t_quantile(0.95, df) * se * margin, rel=1e-5)
    assert plain.detectable == pytest.approx(4 * t_quantile(0.95, df) * se * margin, rel=1e-5)
    assert plain.estimate == pytest.approx(np.mean(c) / np.mean(b) - 1, rel=1e-12)
    assert plain.scope == "between 4 baseline and 3 current process(es)"
    gpus = between_processes(base, cur, other_gpu=True)
    gpu = math.sqrt(2) * DEVICE_SPREAD
    half2 = math.hypot(t_quantile(0.995, df) * se, Z_GATE * gpu)
    one_sided = math.hypot(t_quantile(0.95, df) * se * margin, Z_POWER * gpu)
    assert gpus.high - gpus.estimate == pytest.approx(half2, rel=1e-5)
    assert gpus.bound == pytest.approx(one_sided, rel=1e-5)
    assert gpus.detectable == pytest.approx(4 * one_sided, rel=1e-5)
    assert gpus.scope == "between 4 baseline and 3 current process(es), two physical GPUs"


# --- record/decode: the flat fast path ---

from graphbench.errors import RecordError  # noqa: E402
from graphbench.record import decode as decode_module  # noqa: E402
from graphbench.record.decode import MAX_INT, decode  # noqa: E402
from graphbench.record.machine import DeviceInfo, HostInfo, ToolInfo  # noqa: E402
from graphbench.record.model import BusyReading, Check, Condition, SubmitReading  # noqa: E402

NONE = type(None)


def test_flat_lists_each_field_s_plain_types_the_required_names_and_the_defaults():
    accepted, required, defaults = decode_module._flat(BusyReading)
    assert accepted == {"us": frozenset({float}), "hold_us": frozenset({float, NONE}),
                        "covered": frozenset({bool, NONE}),
                        "sm_clock_mhz": frozenset({float, NONE})}
    assert required == frozenset({"us"}) and type(required) is frozenset
    assert defaults == {"hold_us": None, "covered": None, "sm_clock_mhz": None}
    accepted, required, defaults = decode_module._flat(ToolInfo)
    assert accepted == {"name": frozenset({str}), "version": frozenset({str}),
                        "git_commit": frozenset({str, NONE}), "git_dirty": frozenset({bool, NONE})}
    assert required == {"name", "version"} and defaults == {"git_commit": None, "git_dirty": None}
    assert decode_module._flat(HostInfo) == (
        {"hostname": frozenset({str}), "platform": frozenset({str}), "processor": frozenset({str})},
        frozenset(), {"hostname": "", "platform": "", "processor": ""})


def test_a_class_with_a_structured_field_or_its_own_checks_is_not_flat():
    assert decode_module._flat(Condition) is None   # busy, submit: dicts of readings

    @dataclasses.dataclass(frozen=True)
    class Checked:
        us: float

        def __post_init__(self):
            if self.us > 5:
                raise ValueError("too big")

    assert decode_module._flat(Checked) is None

    @dataclasses.dataclass(frozen=True)
    class Late:        # a structured field after plain ones
        us: float
        names: tuple[str, ...] = ()

    assert decode_module._flat(Late) is None


def _instance(cls, entries):
    return decode_module._flat_instance(cls, decode_module._flat(cls), entries)


def test_flat_instance_takes_only_dicts_of_plain_known_finite_values_with_every_required_one():
    made = _instance(BusyReading, {"us": 2.5, "covered": True})
    assert type(made) is BusyReading and made == BusyReading(2.5, None, True, None)
    assert vars(made) == {"us": 2.5, "hold_us": None, "covered": True, "sm_clock_mhz": None}
    assert _instance(BusyReading, {"us": 2.5, "hold_us": None}) == BusyReading(2.5)
    for refused in ([("us", 2.5)], {"us": 2.5, "extra": 1.0}, {"us": 2}, {"us": "2.5"},
                    {"us": math.inf}, {"us": -math.inf}, {"us": math.nan}, {"hold_us": 1.0},
                    {"us": 1.0, "covered": 1}, {"us": None}):
        assert _instance(BusyReading, refused) is None, refused

    class Mapping(dict):
        pass

    assert _instance(BusyReading, Mapping(us=2.5)) is None
    whole = {"name": "graph", "passed": True, "elements": MAX_INT, "bad_elements": -MAX_INT,
             "max_abs_error": 0.0, "first_bad_index": None}
    assert _instance(Check, whole) == Check("graph", True, MAX_INT, -MAX_INT, 0.0, None)
    assert _instance(Check, {**whole, "elements": MAX_INT + 1}) is None
    assert _instance(Check, {**whole, "bad_elements": -MAX_INT - 1}) is None
    assert _instance(Check, {**whole, "first_bad_index": 3}).first_bad_index == 3
    assert _instance(HostInfo, {}) == HostInfo()


def test_values_the_fast_path_refuses_are_read_or_refused_by_the_checked_path_by_name():
    hint = dict[str, BusyReading]
    read = decode(hint, {"a": {"us": 1}, "b": {"us": 2.0, "extra": 1}}, "runs[0].busy")
    assert read == {"a": BusyReading(1.0), "b": BusyReading(2.0)}
    assert type(read["a"].us) is float and list(read) == ["a", "b"]
    with pytest.raises(RecordError) as info:
        decode(hint, {"a": {"us": 1.0}, "b": {"us": "x"}}, "runs[0].busy")
    assert info.value.message == 'runs[0].busy.b.us: expected a number, got "x"'
    with pytest.raises(RecordError) as info:
        decode(hint, {"a": {"hold_us": 1.0}}, "c")
    assert info.value.message == "c.a.us: required field is missing"
    with pytest.raises(RecordError) as info:
        decode(hint, {"w": 3}, "c")
    assert info.value.message == "c.w: expected an object, got 3"
    with pytest.raises(RecordError) as info:
        decode(hint, [1], "c")
    assert info.value.message == "c: expected an object, got a list"
    assert decode(dict[str, SubmitReading], {"m": {"us": 0.5, "covered": False}}, "") == \
        {"m": SubmitReading(0.5, False)}
    # a dict of structured values takes the general way
    assert decode(dict[str, Condition], {"x": {"busy": {"w": {"us": 1.0}}}}, "") == \
        {"x": Condition(busy={"w": BusyReading(1.0)})}


def test_a_flat_class_read_alone_skips_init_and_a_refused_one_is_named():
    device = decode(DeviceInfo, {"index": 0, "name": "H200", "compute_capability": "9.0",
                                 "arch": "sm_90", "l2_bytes": 52428800}, "device")
    assert device == DeviceInfo(0, "H200", "9.0", "sm_90", l2_bytes=52428800)
    with pytest.raises(RecordError) as info:
        decode(DeviceInfo, {"index": 0, "name": "H200", "compute_capability": "9.0"}, "device")
    assert info.value.message == "device.arch: required field is missing"
    with pytest.raises(RecordError) as info:
        decode(DeviceInfo, {"index": 0.5, "name": "H200", "compute_capability": "9.0",
                            "arch": "sm_90"}, "device")
    assert info.value.message.startswith("device.index: ")


# --- record/model: series gathered once, busy and cycles by workload ---

from conftest import make_run, with_runs  # noqa: E402

from graphbench.record import model as model_module  # noqa: E402
from graphbench.record.model import ModeSamples  # noqa: E402


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
    assert record.busy_readings("fused") == (BusyReading(1.5), BusyReading(1.25, None, None, 2000.0))
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
    assert record.busy_readings("graph") is record.busy_readings("individual")
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


def test_busy_series_of_readings_by_metric():
    readings = (BusyReading(2.0, sm_clock_mhz=1000.0), BusyReading(3.0),
                BusyReading(0.5, sm_clock_mhz=0.0), BusyReading(4.0, sm_clock_mhz=10.0))
    assert model_module._busy_series(readings, "busy") == (2.0, 3.0, 0.5, 4.0)
    assert model_module._busy_series(readings, "cycles") == (2000.0, 40.0)


# --- stopping: drift, the watched series ---

from graphbench.analyze.stopping import drift, series_noise, watched_series  # noqa: E402


def test_drift_compares_the_outer_thirds_medians():
    # 12 rounds: thirds of 4; first third median 1.0, last 2.0, overall 1.5
    values = [1.0] * 4 + [1.5] * 4 + [2.0] * 4
    assert drift(values) == pytest.approx(1 / 1.5, rel=1e-12)
    # quarters would read 1.0 and 2.0 as well, so a series whose thirds and quarters differ
    values = [1.0, 1.0, 1.0, 3.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 1.0]
    # thirds: [1,1,1,3] median 1.0, [3,3,3,1] median 3.0; overall median 2.0
    assert drift(values) == 1.0
    assert drift([1.0, 2.0, 3.0, 4.0, 5.0]) == 0.0        # under 6 rounds
    assert drift([0.0] * 3 + [1.0] * 0 + [0.0] * 3) == math.inf


def test_series_noise_takes_the_drift_where_it_is_larger():
    rng = np.random.default_rng(0)
    values = [float(x) * (1.05 if i >= 80 else 1.0)
              for i, x in enumerate(1 + 0.01 * rng.standard_normal(120))]
    hw = median_interval(values, 0.95).relative_half_width
    assert 0 < hw < 0.035 < drift(values)
    assert series_noise(values) == drift(values)
    assert series_noise(values[:80]) == median_interval(values[:80], 0.95).relative_half_width


def test_watched_series_needs_both_individual_and_graph_for_the_speedup():
    assert watched_series({"individual": [2.0, 4.0]}) == [[2.0, 4.0]]
    assert watched_series({"graph": [2.0, 4.0], "fused": [1.0]}) == [[2.0, 4.0], [1.0]]
    assert watched_series({"individual": [2.0, 4.0], "graph": [1.0, 2.0]}) == [[2.0, 2.0]]


# --- compare: verdict_on's change, the shared-busy note, the clock check ---

from graphbench.analyze.compare import compare_records, shared_busy_note, verdict_on  # noqa: E402


def test_a_valid_change_s_estimate_is_reported_not_the_pooled_medians_ratio():
    base, cur = [(1.0, 1.0, 9.0)], [(2.0, 2.0, 2.0)]    # pooled medians 1.0 and 2.0
    verdict = verdict_on(parse_spec("graph.wall:50%"), Change(0.25, 0.2, 0.3, 0.1), base, cur,
                         True)
    assert verdict.change == 0.25 and (verdict.baseline, verdict.current) == (1.0, 2.0)
    assert (verdict.change_low, verdict.change_high) == (0.2, 0.3)
    invalid = verdict_on(parse_spec("graph.wall:50%"), decide_module.unjudgeable("why"), base,
                         cur, True)
    assert invalid.change == 1.0 and invalid.change_low is None and invalid.detectable is None


def test_the_shared_busy_note_needs_two_modes_on_one_workload():
    record = make_record({"individual": 14.0, "graph": 4.3, "fused": 4.6}, rounds=3)
    assert shared_busy_note(record, "graph.busy") == "GPU time of individual, graph (one series)"
    assert shared_busy_note(record, "fused.busy") == ""
    assert shared_busy_note(record, "graph.wall") == ""


def _clocked(busy_us, clock, seed, rounds=10):
    """Three processes whose every busy reading is busy_us (scattered 0.01%) at `clock`."""
    rng = np.random.default_rng(seed)
    base = make_record({"individual": 14.0, "graph": 4.3}, rounds=rounds)
    runs = []
    for p in range(3):
        run = make_run({"individual": 14.0, "graph": 4.3}, rounds=rounds, seed=seed + p,
                       config=base.config)
        conditions = tuple(dataclasses.replace(c, busy={w: BusyReading(
            busy_us * (1 + 1e-4 * rng.standard_normal()), 100.0, True, clock)
            for w in c.busy}) for c in run.conditions)
        runs.append(dataclasses.replace(run, conditions=conditions))
    return with_runs(base, *runs)


def test_a_busy_change_the_cycles_do_not_show_is_not_gateable_when_the_clock_moved():
    base = _clocked(3.0, 1980.0, 10)
    slower = compare_records(base, _clocked(3.15, 1980.0 / 1.05, 20), [parse_spec("graph.busy:2%")])
    (verdict,) = slower.verdicts
    assert verdict.verdict == NOT_GATEABLE
    assert verdict.note.startswith("SM clock differs (1980 vs 1886 MHz): slower in time but "
                                   "same in cycles (")


def test_within_the_clock_agreement_time_alone_decides():
    base = _clocked(3.0, 2000.0, 10)
    # 1.5% more time at a clock 0.9% lower: cycles +0.6%, short of the 1% threshold
    (verdict,) = compare_records(base, _clocked(3.045, 2000.0 * 0.991, 20),
                                 [parse_spec("graph.busy:1%")]).verdicts
    assert verdict.verdict == SLOWER
    (cycles,) = compare_records(base, _clocked(3.045, 2000.0 * 0.991, 20),
                                [parse_spec("graph.cycles:1%")]).verdicts
    assert cycles.verdict != SLOWER


def test_without_a_measured_clock_the_busy_verdict_stands():
    base, cur = _clocked(3.0, None, 10), _clocked(3.15, None, 20)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:2%")]).verdicts
    assert verdict.verdict == SLOWER


# --- summary: the lag-1 autocorrelation of the first process only ---

from graphbench.analyze.intervals import lag1_autocorrelation  # noqa: E402
from graphbench.analyze.summary import mode_summary  # noqa: E402


def test_autocorrelation_is_the_first_process_s_even_with_two():
    record = make_record({"individual": 14.0, "graph": 4.3}, rounds=8)
    second = make_run({"individual": 14.0, "graph": 4.3}, rounds=8, seed=5, config=record.config)
    second = dataclasses.replace(second, modes={m: dataclasses.replace(
        s, wall_us=tuple(w * (1 + 0.2 * i) for i, w in enumerate(s.wall_us)))
        for m, s in second.modes.items()})
    two = with_runs(record, record.runs[0], second)
    summary = mode_summary(two, "graph")
    assert summary.autocorrelation["wall"] == \
        lag1_autocorrelation(record.runs[0].modes["graph"].wall_us)
    assert summary.autocorrelation["wall"] != lag1_autocorrelation(two.samples("graph", "wall"))
    assert summary.wall.n == 16


# --- record/codec: the paused collector, times by min and max, version-1 problems named ---

from graphbench.record import codec  # noqa: E402


def _written(tmp_path, record=None):
    path = tmp_path / "run.json"
    codec.write_json(path, codec.run_document(record or make_record(rounds=3)))
    return path


def test_reading_a_record_pauses_the_collector_and_restores_it(tmp_path, monkeypatch):
    path = _written(tmp_path)
    seen = []
    real = codec.load_document

    def spy(data, source):
        seen.append(gc.isenabled())
        return real(data, source)

    monkeypatch.setattr(codec, "load_document", spy)
    assert gc.isenabled()
    record = codec.read_record(path)
    assert seen == [False] and gc.isenabled()
    assert record.samples("graph", "wall") == make_record(rounds=3).samples("graph", "wall")
    gc.disable()
    try:
        codec.read_record(path)
        assert seen == [False, False] and not gc.isenabled()   # left as it was
    finally:
        gc.enable()
    path.write_text('{"schema": "graphbench/run", "schema_version": 99}')
    with pytest.raises(RecordError):
        codec.read_record(path)
    assert gc.isenabled()
    with codec._no_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        with codec._no_collection():
            1 / 0
    assert gc.isenabled()


def test_times_are_checked_whole_by_min_and_max():
    check = codec._check_times
    check([], "t")
    check([1e-9, codec.MAX_US], "t")
    check([0.0, 1.0], "t", allow_zero=True)
    for values, allow_zero, message in (
            ([1.0, 0.0], False, "t[1]: a time of 0.0 us, not positive"),
            ([1.0, -1.0], True, "t[1]: a time of -1.0 us, not 0 or more"),
            ([-2.0, 1.0], False, "t[0]: a time of -2.0 us, not positive"),
            ([1.0, 2e12], False, "t[1]: a time of 2e+12 us, beyond any measured figure "
                                 "(at most 1e+12 us)"),
            ([0.0, 2e12], True, "t[1]: a time of 2e+12 us, beyond any measured figure "
                                "(at most 1e+12 us)")):
        with pytest.raises(RecordError) as info:
            check(values, "t", allow_zero=allow_zero)
        assert info.value.message == message


def test_a_zero_or_huge_reading_in_a_run_is_refused_with_its_process():
    record = make_record(rounds=3)
    run = record.runs[0]
    for us, message in ((0.0, "runs[0]: a measured time that is not positive"),
                        (2e12, "runs[0]: a measured time beyond 1e+12 us")):
        conditions = (dataclasses.replace(run.conditions[0], busy={
            w: dataclasses.replace(r, us=us) for w, r in run.conditions[0].busy.items()}),
            *run.conditions[1:])
        bad = with_runs(record, dataclasses.replace(run, conditions=conditions))
        with pytest.raises(RecordError) as info:
            codec.check_consistent(bad)
        assert info.value.message == message
    codec.check_consistent(record)


def test_a_version_1_record_s_upgrade_problem_is_named_with_its_file():
    document = {"schema": "graphbench/run", "schema_version": 1, "tool": {}, "device": {},
                "config": {},
                "modes": {"graph": {"samples": {"wall_us": [1.0]}}},
                "verification": {"checks": []}}
    with pytest.raises(RecordError) as info:
        codec.load_document(document, "old.json")
    assert info.value.message == \
        "old.json: config.seed: required field is missing (schema version 1)"


def test_a_time_of_exactly_the_ceiling_is_accepted_on_the_checked_path_too():
    with pytest.raises(RecordError) as info:
        codec._check_times([codec.MAX_US, 0.0], "t")
    assert info.value.message == "t[1]: a time of 0.0 us, not positive"


def test_a_run_with_no_readings_and_no_one_off_costs_is_consistent():
    record = make_record({"individual": 14.0}, rounds=2)
    run = make_run({"individual": 14.0}, rounds=2, extras=False, config=record.config)
    bare = with_runs(record, dataclasses.replace(run, conditions=()))
    codec.check_consistent(bare)
    assert bare.samples("individual", "busy") == () and bare.conditions == ()


def test_exactly_the_minimum_of_independent_pairs_is_enough_for_an_ab_verdict(monkeypatch):
    import graphbench.analyze.ab as ab

    ratios = [1.0 + 0.01 * (-1) ** i * (1 + 0.1 * (i % 3)) for i in range(20)]
    worth = ab.paired_location(np.log(ratios), 1e-4).effective_n
    monkeypatch.setattr(ab, "MIN_EFFECTIVE_PAIRS", worth)
    change = ratio_change(ratios)
    assert change.valid and change.scope == "within one process, 20 pairs"
    monkeypatch.setattr(ab, "MIN_EFFECTIVE_PAIRS", worth + 0.01)
    assert not ratio_change(ratios).valid


def test_whole_numbers_in_a_list_stay_integers():
    grid = decode(tuple[int, ...], [16, 1, 1], "pipeline.grid")
    assert grid == (16, 1, 1) and [type(v) for v in grid] == [int, int, int]
    assert [type(v) for v in decode(tuple[float, ...], [1, 2.5], "x")] == [float, float]
    record = make_record(rounds=3)
    again = codec.load_document(json.loads(json.dumps(codec.run_document(record))), "r.json")
    assert [type(v) for v in again.pipeline.grid] == [int, int, int]


def test_a_clock_check_between_two_gpus_allows_for_their_spread_in_cycles_too():
    from conftest import device_info

    def on(gpu, busy_us, clock, seed):
        record = _clocked(busy_us, clock, seed)
        return dataclasses.replace(record, device=device_info(uuid=gpu))

    base = on("GPU-a", 3.0, 2000.0, 10)
    # time +5%, cycles +2% (clock 1.02 / 1.05 of the base's): across two GPUs a 2% change
    # in cycles is within their spread, so the two disagree and the pair is not gateable
    cur = on("GPU-b", 3.15, 2000.0 * 1.02 / 1.05, 20)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:10%")]).verdicts
    assert verdict.verdict == NOT_GATEABLE
    assert verdict.note.startswith("SM clock differs (2000 vs 1943 MHz): changed in time but "
                                   "same in cycles (+2.0%)")


# --- compare.verdict_for: mismatches joined, speedups gated across hardware, host-bound ---

from conftest import device_info  # noqa: E402


def _processes(seed, host_probe_us=300.0, **config):
    record = make_record({"individual": 14.0, "graph": 4.3}, rounds=10, **config)
    runs = [make_run({"individual": 14.0, "graph": 4.3}, rounds=10, seed=seed + p,
                     host_probe_us=host_probe_us, config=record.config) for p in range(3)]
    return with_runs(record, *runs)


def test_every_config_mismatch_is_named_in_the_incompatible_verdict():
    base, cur = _processes(1), _processes(2, elements=1000, depth=16)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.wall:5%")]).verdicts
    assert verdict.verdict == decide_module.INCOMPATIBLE and verdict.gated
    assert verdict.note == "elements 4096 vs 1000; depth 1 vs 16"


def test_a_speedup_is_gated_on_other_hardware_and_refused_when_the_host_speed_differs():
    base = _processes(1)
    other = dataclasses.replace(_processes(2), device=device_info("NVIDIA A100"))
    verdicts = {v.metric: v for v in compare_records(
        base, other, [parse_spec("speedup:5%"), parse_spec("graph.wall:5%")]).verdicts}
    assert verdicts["speedup"].gated and not verdicts["graph.wall"].gated
    slow_host = _processes(2, host_probe_us=400.0)
    (speedup,) = compare_records(base, slow_host, [parse_spec("speedup:5%")]).verdicts
    assert speedup.verdict == NOT_GATEABLE
    assert speedup.note.startswith("host CPU speed differs (probe about 300 and 400 us) and no "
                                   "process saw both speeds")
