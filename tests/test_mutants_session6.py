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


def test_reach_widens_each_side_about_the_estimate_by_the_margin():
    change = Change(0.10, 0.06, 0.12, 0.01, margin=1.5)
    low, high = change.reach()
    assert low == pytest.approx(0.04, abs=1e-15)     # 0.10 - 0.04 * 1.5
    assert high == pytest.approx(0.13, abs=1e-15)    # 0.10 + 0.02 * 1.5
    assert Change(0.1, 0.06, 0.12, 0.01).margin == 1.0
    assert Change(0.1, 0.06, 0.12, 0.01).reach() == (0.1 - (0.1 - 0.06), 0.1 + (0.12 - 0.1))


def test_a_significant_change_reaching_the_threshold_only_when_widened_is_slower():
    # interval 0.02..0.04 about 0.03: short of 5%; widened by 2: 0.01..0.05 reaches it
    assert decide(Change(0.03, 0.02, 0.04, 0.01), 0.05) == (CHANGED, "")
    assert decide(Change(0.03, 0.02, 0.04, 0.01, margin=2.0), 0.05) == (SLOWER, "")
    assert decide(Change(0.03, 0.02, 0.04, 0.01, margin=1.9), 0.05) == (CHANGED, "")
    # exactly at the threshold (0.5 is exact in binary): slower
    assert decide(Change(0.25, 0.125, 0.375, 0.01, margin=2.0), 0.5) == (SLOWER, "")
    # faster the same way
    assert decide(Change(-0.03, -0.04, -0.02, 0.01), 0.05) == (CHANGED, "")
    assert decide(Change(-0.03, -0.04, -0.02, 0.01, margin=2.0), 0.05) == (FASTER, "")
    assert decide(Change(-0.25, -0.375, -0.125, 0.01, margin=2.0), 0.5) == (FASTER, "")
    assert decide(Change(-0.03, -0.04, -0.02, 0.01, margin=1.9), 0.05) == (CHANGED, "")


def test_higher_is_better_turns_the_widened_reach_around():
    up = Change(0.03, 0.02, 0.04, 0.01, margin=2.0)
    assert decide(up, 0.05, higher_is_better=True) == (FASTER, "")
    assert decide(dataclasses.replace(up, margin=1.0), 0.05, higher_is_better=True) == \
        (CHANGED, "")
    down = Change(-0.03, -0.04, -0.02, 0.01, margin=2.0)
    assert decide(down, 0.05, higher_is_better=True) == (SLOWER, "")
    # the widened interval's far end, not its near end, decides
    lopsided = Change(0.03, 0.025, 0.04, 0.01, margin=2.0)   # reach 0.02..0.05
    assert decide(lopsided, 0.05) == (SLOWER, "")
    assert decide(lopsided, 0.051) == (CHANGED, "")
    # an interval across 0 stays the same however wide
    assert decide(Change(0.0, -0.01, 0.01, 0.01, margin=9.0), 0.05) == (SAME, "")


def test_detectable_beyond_the_threshold_is_not_gateable_whatever_the_margin():
    verdict, note = decide(Change(0.03, 0.02, 0.04, 0.06, margin=2.0), 0.05)
    assert verdict == NOT_GATEABLE
    assert note == "not gateable on this pair: it detects 6.0%, the threshold is 5.0%"


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
    walls = {"graph": [10.0, 10.2, 9.9, 10.1, 10.05, 9.95]}
    noise = headline_noise(walls)
    assert noise > 0
    rule = NoiseTarget(noise, 3, 100.0)
    assert rule.reason_to_stop(6, 0.0, walls) == NOISE_TARGET
    assert NoiseTarget(noise * 0.999, 3, 100.0).reason_to_stop(6, 0.0, walls) is None
    assert NoiseTarget(noise * 0.999, 3, 1.0).reason_to_stop(6, 1.0, walls) == TIME_BUDGET


# --- ab: the margin widens detectable and is carried on ---

def _ratios(n=80, seed=3):
    rng = np.random.default_rng(seed)
    return list(1.01 + 0.004 * rng.standard_normal(n))


def test_ratio_change_widens_detectable_by_the_noise_margin_of_its_effective_pairs():
    ratios = _ratios()
    gate, power = median_interval(ratios, 0.99), median_interval(ratios, 0.90)
    assert gate.valid and gate.effective_n >= 8
    margin = 1 + 1 / math.sqrt(2 * max(gate.effective_n - 1, 1))
    plain = max(gate.high - gate.estimate, gate.estimate - gate.low) + \
        max(power.high - power.estimate, power.estimate - power.low)
    change = ratio_change(ratios)
    assert change.margin == pytest.approx(margin, rel=1e-12)
    assert change.detectable == pytest.approx(plain * margin, rel=1e-12)
    assert (change.estimate, change.low, change.high) == \
        (gate.estimate - 1, gate.low - 1, gate.high - 1)
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


def test_between_processes_widens_detectable_and_the_reach_but_not_the_interval():
    base = [(10.0, 10.1, 10.2), (10.3, 10.2, 10.4), (9.9, 10.0, 10.1), (10.1, 10.2, 10.0)]
    cur = [(10.5, 10.6, 10.4), (10.7, 10.5, 10.6), (10.4, 10.5, 10.6)]
    plain = between_processes(base, cur, other_gpu=False)
    b = [float(np.median(v)) for v in base]
    c = [float(np.median(v)) for v in cur]
    df = len(b) - 1 + len(c) - 1
    margin = 1 + 1 / math.sqrt(2 * df)
    half = plain.high - plain.estimate
    se = half / t_quantile(0.995, df)
    assert plain.margin == pytest.approx(margin, rel=1e-12)
    assert plain.detectable == pytest.approx(
        (t_quantile(0.995, df) + t_quantile(0.95, df)) * se * margin, rel=1e-5)
    assert plain.estimate == pytest.approx(np.mean(c) / np.mean(b) - 1, rel=1e-12)
    assert plain.scope == "between 4 baseline and 3 current process(es)"
    gpus = between_processes(base, cur, other_gpu=True)
    gpu = math.sqrt(2) * DEVICE_SPREAD
    half2 = math.hypot(t_quantile(0.995, df) * se, Z_GATE * gpu)
    reach = math.hypot(t_quantile(0.995, df) * se * margin, Z_GATE * gpu)
    assert gpus.high - gpus.estimate == pytest.approx(half2, rel=1e-5)
    assert gpus.margin == pytest.approx(reach / half2, rel=1e-5)
    assert gpus.detectable == pytest.approx(
        reach + math.hypot(t_quantile(0.95, df) * se * margin, Z_POWER * gpu), rel=1e-5)
    assert gpus.scope == "between 4 baseline and 3 current process(es), two physical GPUs"
