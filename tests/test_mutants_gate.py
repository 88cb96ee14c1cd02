"""Tests that pin the gate's verdicts, written against mutation testing
(issue 19, item 9; `mutmut run`, configured in pyproject.toml). Each asserts
behaviour a user sees: a verdict, a gated flag, a note, an interval."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import device_info, make_record, make_run
from scipy import stats

from graphbench.analyze.compare import (between_processes, compare_records, median_noise,
                                        verdict_on)
from graphbench.analyze.decide import (CHANGED, FASTER, INCOMPATIBLE, MISSING, NOT_GATEABLE,
                                       SAME, SLOWER, Change, decide, unjudgeable)
from graphbench.analyze.specs import parse_spec


def process(level, n=10, spread=0.001, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(float(x) for x in level * (1 + spread * rng.standard_normal(n)))


def baseline_of(levels, n=10, spread=0.001, seed=0):
    return [process(level, n, spread, seed + i) for i, level in enumerate(levels)]


# --- MIN_PROCESSES, GATE_LEVEL, the t quantiles and degrees of freedom ---

def test_two_baseline_processes_are_not_gateable_and_three_are():
    cur = [process(1.10, seed=99)]
    two = between_processes(baseline_of([1.0, 1.002]), cur, False)
    assert not two.valid and "2 process(es)" in two.reason and "--processes 3" in two.reason
    assert decide(two, 0.05)[0] == NOT_GATEABLE
    three = between_processes(baseline_of([1.0, 1.002, 0.998]), cur, False)
    assert three.valid and decide(three, 0.05)[0] == SLOWER
    assert three.scope == "between 3 baseline and 1 current process(es)"


def test_the_change_interval_is_the_pooled_t_interval_at_99_percent():
    """Independent arithmetic: pooled variance over both sides, Student's t
    with n_b - 1 + n_c - 1 degrees of freedom, the 99% two-sided quantile."""
    base = baseline_of([1.00, 1.01, 0.99, 1.005], spread=0.0)
    cur = baseline_of([1.03, 1.04], spread=0.0, seed=10)
    change = between_processes(base, cur, False)
    b = [np.median(v) for v in base]
    c = [np.median(v) for v in cur]
    pooled = (3 * np.var(b, ddof=1) + 1 * np.var(c, ddof=1)) / 4
    se = math.sqrt(pooled / 4 + pooled / 2) / np.mean(b)
    assert change.estimate == pytest.approx(np.mean(c) / np.mean(b) - 1, rel=1e-12)
    half = stats.t.ppf(0.995, 4) * se
    assert change.high - change.estimate == pytest.approx(half, rel=1e-9)
    assert change.estimate - change.low == pytest.approx(half, rel=1e-9)
    margin = 1 + 1 / math.sqrt(2 * 4)  # the noise estimate's own error, 4 degrees of freedom
    # the smallest threshold it gates: a one-sided 95% width for the bound and one for
    # the power, each side of half the threshold
    assert change.detectable == pytest.approx(4 * stats.t.ppf(0.95, 4) * se * margin,
                                              rel=1e-9)
    assert change.bound == pytest.approx(stats.t.ppf(0.95, 4) * se * margin, rel=1e-9)


def test_a_change_whose_99_percent_interval_just_includes_zero_is_same():
    base = baseline_of([1.00, 1.01, 0.99], spread=0.0)
    probe = between_processes(base, [process(1.0, spread=0.0)], False)
    half = probe.high - probe.estimate
    half98 = half * stats.t.ppf(0.99, 2) / stats.t.ppf(0.995, 2)
    shift = (half + half98) / 2    # outside the 98% interval, inside the 99%
    change = between_processes(base, [process(1.0 + shift, spread=0.0)], False)
    assert change.low < 0 < change.low + (half - half98)
    assert decide(change, 1.0)[0] == SAME


def test_current_processes_join_the_degrees_of_freedom():
    base = baseline_of([1.00, 1.01, 0.99], spread=0.0)
    one = between_processes(base, [process(1.0, spread=0.0)], False)
    two = between_processes(base, [process(1.0, spread=0.0), process(1.0, spread=0.0)], False)
    # the same pooled squares over 3 df instead of 2 and half the current variance
    ratio = (two.high - two.estimate) / (one.high - one.estimate)
    expected = (stats.t.ppf(0.995, 3) * math.sqrt(2 / 3 * (1 / 3 + 1 / 2))) / \
        (stats.t.ppf(0.995, 2) * math.sqrt(1 / 3 + 1))
    assert ratio == pytest.approx(expected, rel=1e-9)


def test_a_zero_baseline_is_not_gateable_with_a_reason():
    change = between_processes([(0.0,) * 5] * 3, [(1.0,) * 5], False)
    assert not change.valid
    assert change.reason == "the baseline's median is 0: a relative change cannot be formed"


def test_identical_medians_still_have_the_resolution_floor():
    base = [(2.0,) * 5] * 3
    change = between_processes(base, [(2.0,) * 5], False)
    se = math.sqrt((1e-4 * 2.0) ** 2 * (1 / 3 + 1)) / 2.0
    assert change.high == pytest.approx(stats.t.ppf(0.995, 2) * se, rel=1e-9)
    big = between_processes([(2000.0,) * 5] * 3, [(2000.0,) * 5], False)
    assert big.high == pytest.approx(change.high, rel=1e-9)   # relative, whatever the scale


def test_another_physical_gpu_adds_the_device_spread_with_normal_quantiles():
    base = [(2.0,) * 5] * 3
    same = between_processes(base, [(2.0,) * 5], False)
    other = between_processes(base, [(2.0,) * 5], True)
    gpu = math.sqrt(2) * 0.0075
    assert other.high == pytest.approx(math.hypot(same.high, 2.5758 * gpu), rel=1e-9)
    se = same.high / stats.t.ppf(0.995, 2)
    wide = se * (1 + 1 / math.sqrt(2 * 2))  # widened for the noise estimate's own error
    assert other.detectable == pytest.approx(
        4 * math.hypot(stats.t.ppf(0.95, 2) * wide, 1.6449 * gpu), rel=1e-9)
    assert other.scope.endswith(", two physical GPUs") and "GPUs" not in same.scope
    # two GPUs' spread alone detects 7%: not gateable at 5%, whatever the processes
    assert decide(other, 0.05)[0] == NOT_GATEABLE
    # a 1.3% difference between two H200s is within the noise: not slower at 10%
    moved = between_processes(base, [(2.0 * 1.013,) * 5], True)
    assert moved.low < 0 and decide(moved, 0.10)[0] == SAME
    assert decide(between_processes(base, [(2.0 * 1.013,) * 5], False), 0.05)[0] == CHANGED


def test_a_noisy_side_widens_the_interval_by_its_own_noise():
    quiet = [(1.0,) * 10] * 3
    rng = np.random.default_rng(3)
    noisy = tuple(float(x) for x in 1 + 0.05 * rng.standard_normal(40))
    loose = between_processes(quiet, [noisy], False)
    tight = between_processes(quiet, [(1.0,) * 40], False)
    own = median_noise(noisy) ** 2
    assert loose.high - loose.estimate == pytest.approx(
        stats.t.ppf(0.995, 2) * math.sqrt((1e-4) ** 2 / 3 + own), rel=1e-9)
    assert tight.high - tight.estimate < loose.high - loose.estimate
    noisy_base = between_processes([noisy] * 3, [(1.0,) * 40], False)
    b = float(np.median(noisy))
    assert noisy_base.high - noisy_base.estimate == pytest.approx(
        stats.t.ppf(0.995, 2) * math.sqrt(own / 3 + (1e-4 * b) ** 2) / b, rel=1e-9)


def test_median_noise_is_the_autocorrelation_stretched_robust_standard_error():
    from graphbench.analyze.intervals import robust_scale

    assert median_noise([1.0, 2.0]) == 0.0
    assert median_noise([1, 2, 3]) > 0            # three rounds are enough, ints welcome
    rng = np.random.default_rng(0)
    white = rng.standard_normal(200)
    rho = stats.pearsonr(white[:-1], white[1:])[0]
    assert median_noise(white) == pytest.approx(
        1.2533 * np.std(white, ddof=1) / math.sqrt(200) * math.sqrt(
            (1 + max(rho, 0)) / (1 - max(rho, 0))), rel=0.1)
    spiked = white.copy()
    spiked[7] = 60.0   # one outlier round: the sd would read 4.3 times larger
    assert median_noise(spiked) == pytest.approx(median_noise(white), rel=0.05)
    ar = np.zeros(400)
    for i in range(1, 400):
        ar[i] = 0.99 * ar[i - 1] + rng.standard_normal()
    capped = 1.2533 * robust_scale(ar) * math.sqrt(1.95 / 0.05 / 400)
    assert median_noise(ar) == pytest.approx(capped, rel=1e-9)   # rho capped at 0.95


# --- decide ---

def test_decide_at_the_edges():
    assert decide(Change(0.05, 0.01, 0.05, 0.04), 0.05) == (SLOWER, "")
    assert decide(Change(0.03, 0.01, 0.0499, 0.04), 0.05) == (CHANGED, "")
    assert decide(Change(-0.05, -0.05, -0.01, 0.04), 0.05) == (FASTER, "")
    assert decide(Change(-0.03, -0.0499, -0.01, 0.04), 0.05) == (CHANGED, "")
    assert decide(Change(0.0, 0.0, 0.01, 0.04), 0.05) == (SAME, "")
    assert decide(Change(0.0, -0.01, 0.0, 0.04), 0.05) == (SAME, "")
    assert decide(Change(0.1, 0.06, 0.14, 0.05), 0.05)[0] == SLOWER   # detectable == threshold
    verdict, note = decide(Change(0.1, 0.06, 0.14, 0.0501), 0.05)
    assert verdict == NOT_GATEABLE
    assert note == "not gateable on this pair: it detects 5.0%, the threshold is 5.0%"
    # higher is better (speedup): a fall is worse
    assert decide(Change(-0.1, -0.14, -0.06, 0.04), 0.05, higher_is_better=True)[0] == SLOWER
    assert decide(Change(0.1, 0.06, 0.14, 0.04), 0.05, higher_is_better=True)[0] == FASTER


def test_unjudgeable_is_invalid_with_unbounded_interval():
    change = unjudgeable("why", 0.3)
    assert change == Change(0.3, -math.inf, math.inf, math.inf, False, "why")
    assert math.isnan(unjudgeable("why").estimate)
    assert decide(change, 0.05) == (NOT_GATEABLE, "why")


# --- compare_records on records ---

def with_busy(record, factor=1.0, clock=None):
    runs = []
    for run in record.runs:
        conditions = tuple(dataclasses.replace(c, busy={w: dataclasses.replace(
            r, us=r.us * factor, sm_clock_mhz=clock or r.sm_clock_mhz) for w, r in c.busy.items()})
            for c in run.conditions)
        runs.append(dataclasses.replace(run, conditions=conditions))
    return dataclasses.replace(record, runs=tuple(runs))


WALLS = {"individual": 14.0, "graph": 4.3}


def record_of(processes=3, wall_factor=1.0, seed=0, info=None, rounds=10):
    walls = {m: us * wall_factor for m, us in WALLS.items()}
    runs = [make_run(walls, rounds=rounds, seed=seed + i) for i in range(processes)]
    return make_record(walls, rounds=rounds, runs=runs, info=info)


def by_metric(comparison):
    return {v.metric: v for v in comparison.verdicts}


def test_a_2_process_baseline_says_so_and_nothing_is_gated_between_processes():
    two = compare_records(record_of(2), record_of(1, 1.2, seed=50))
    assert ("the baseline has 2 process(es): nothing can be gated between processes; make it "
            "with --processes 3 or more") in two.notes
    verdicts = by_metric(two)
    assert verdicts["graph.wall"].verdict == NOT_GATEABLE and verdicts["graph.wall"].gated
    assert not two.passed
    three = compare_records(record_of(3), record_of(1, 1.2, seed=50))
    assert not any("process(es)" in n for n in three.notes)
    assert by_metric(three)["graph.wall"].verdict == SLOWER
    assert [v.metric for v in three.regressions] == ["individual.wall", "graph.wall"]


def test_a_slower_verdict_carries_its_figures():
    verdict = by_metric(compare_records(record_of(3), record_of(1, 1.2, seed=50)))["graph.wall"]
    assert verdict.threshold == "10%" and verdict.gated and verdict.note == ""
    assert verdict.baseline == pytest.approx(4.3, rel=0.01)
    assert verdict.current == pytest.approx(4.3 * 1.2, rel=0.01)
    assert verdict.change == pytest.approx(0.2, abs=0.01)
    assert verdict.change_low < verdict.change < verdict.change_high
    assert 0 < verdict.detectable < 0.05 and verdict.p_value is None
    assert verdict.scope == "between 3 baseline and 1 current process(es)"


def test_a_metric_one_record_lacks_is_missing_and_blocks_the_pass():
    base = record_of(3)
    cur = record_of(1, seed=50)
    spec = parse_spec("fused.wall:5%")
    verdict = by_metric(compare_records(base, cur, [spec, parse_spec("graph.wall:5%")]))
    assert verdict["fused.wall"].verdict == MISSING and verdict["fused.wall"].gated
    assert verdict["fused.wall"].note == "not in the baseline record"
    assert verdict["fused.wall"].threshold == "5%"
    full = make_record({"individual": 14.0, "graph": 4.3, "fused": 4.6}, runs=[make_run(
        {"individual": 14.0, "graph": 4.3, "fused": 4.6}, seed=i) for i in range(3)])
    other = by_metric(compare_records(full, cur, [spec]))["fused.wall"]
    assert other.note == "not in the current record"
    assert not compare_records(base, cur, [spec]).passed
    shown = parse_spec("fused.wall:5%", gated=False)
    assert not by_metric(compare_records(base, cur, [shown]))["fused.wall"].gated


def test_gate_sizes_are_judged_at_their_own_point():
    base, cur = record_of(3), record_of(1, seed=50)
    slow = with_busy(cur, 1.2)
    size = 1 << 20
    point = lambda r: dataclasses.replace(r, config=dataclasses.replace(r.config, elements=size))
    base = dataclasses.replace(base, gate_points=(point(base),))
    cur = dataclasses.replace(cur, gate_points=(point(slow),))
    verdicts = by_metric(compare_records(base, cur, [parse_spec("graph.busy@2^20:5%"),
                                                     parse_spec("graph.busy:5%")]))
    assert verdicts["graph.busy@2^20"].verdict == SLOWER
    assert verdicts["graph.busy"].verdict in (SAME, CHANGED)
    missing = by_metric(compare_records(base, cur, [parse_spec("graph.busy@2^22:5%")]))
    assert missing["graph.busy@2^22"].verdict == MISSING


def test_another_gpu_model_shows_but_does_not_gate():
    cur = record_of(1, 1.2, seed=50, info=device_info("NVIDIA B200"))
    verdicts = by_metric(compare_records(record_of(3), cur))
    wall = verdicts["graph.wall"]
    assert wall.verdict == SLOWER and not wall.gated
    assert wall.note == "different hardware: shown, not gated"
    assert "different hardware" not in verdicts["speedup"].note  # never gated by default


def test_another_physical_gpu_widens_busy_but_not_wall():
    cur = record_of(1, seed=50, info=device_info(uuid="GPU-other"))
    verdicts = by_metric(compare_records(record_of(3), cur))
    assert verdicts["individual.busy"].scope.endswith("two physical GPUs")
    assert not verdicts["graph.wall"].scope.endswith("two physical GPUs")
    assert verdicts["individual.busy"].detectable > 0.02


def test_busy_shared_by_two_modes_says_so():
    verdict = by_metric(compare_records(record_of(3), record_of(1, seed=50)))["individual.busy"]
    assert verdict.note == "GPU time of individual, graph (one series)"


def test_a_clock_change_that_explains_the_time_is_not_a_code_change():
    """5% slower busy time at a 5% lower clock: the same cycles, so not `slower`."""
    base = record_of(3)
    cur = with_busy(record_of(1, seed=50), 1.0 / 0.95, clock=1980 * 0.95)
    verdict = by_metric(compare_records(base, cur, [parse_spec("individual.busy:2%")]))[
        "individual.busy"]
    assert verdict.verdict == NOT_GATEABLE
    assert verdict.note.startswith("SM clock differs (1980 vs 1881 MHz): slower in time but ")
    assert "same in cycles" in verdict.note or "changed in cycles" in verdict.note
    assert verdict.gated


def test_a_clock_change_that_agrees_with_the_time_keeps_the_verdict():
    base = record_of(3)
    cur = with_busy(record_of(1, seed=50), 1.2, clock=1980 * 0.95)
    verdict = by_metric(compare_records(base, cur, [parse_spec("individual.busy:5%")]))[
        "individual.busy"]
    assert verdict.verdict == SLOWER and verdict.note == "GPU time of individual, graph (one series)"
    small = with_busy(record_of(1, seed=50), 1.2, clock=1980 * 0.995)  # within 1%: no check
    assert by_metric(compare_records(base, small, [parse_spec("individual.busy:5%")]))[
        "individual.busy"].verdict == SLOWER


def test_cycles_are_busy_time_times_the_measured_clock():
    record = with_busy(record_of(1), clock=1500.0)
    busy, cycles = record.samples("graph", "busy"), record.samples("graph", "cycles")
    assert cycles == tuple(b * 1500.0 for b in busy) and len(busy) == 10
    assert record.samples("individual", "busy") == busy   # one workload, one series
    no_clock = dataclasses.replace(record.runs[0], conditions=tuple(dataclasses.replace(
        c, busy={w: dataclasses.replace(r, sm_clock_mhz=None) for w, r in c.busy.items()})
        for c in record.runs[0].conditions))
    assert dataclasses.replace(record, runs=(no_clock,)).samples("graph", "cycles") == ()
    assert record.workload("graph") == "stages" and record.workload("nope") is None
    assert record.samples("nope", "busy") == ()


def test_incompatible_records_say_why_and_gate():
    base = record_of(3)
    cur = dataclasses.replace(record_of(1, seed=50), config=dataclasses.replace(
        record_of(1).config, depth=7))
    comparison = compare_records(base, cur, [parse_spec("graph.wall:5%")])
    verdict = comparison.verdicts[0]
    assert verdict.verdict == INCOMPATIBLE and verdict.gated and verdict.metric == "graph.wall"
    assert verdict.threshold == "5%" and verdict.note == "; ".join(comparison.incompatible)
    assert verdict.note and not comparison.passed


def test_an_absolute_threshold_is_made_relative_to_the_baseline():
    base, cur = record_of(3), record_of(1, 1.10, seed=50)
    spec = parse_spec("graph.wall:0.3us")   # about 7% of 4.3 us
    verdict = by_metric(compare_records(base, cur, [spec]))["graph.wall"]
    assert verdict.verdict == SLOWER and verdict.threshold == "0.3us"
    loose = by_metric(compare_records(base, cur, [parse_spec("graph.wall:0.6us")]))["graph.wall"]
    assert loose.verdict == CHANGED   # 10% < 0.6 / 4.3


def test_verdict_on_an_unjudgeable_change_still_shows_the_raw_change():
    spec = parse_spec("graph.wall:5%")
    verdict = verdict_on(spec, unjudgeable("too few"), [(2.0, 2.0)], [(3.0, 3.0)], True)
    assert verdict.verdict == NOT_GATEABLE and verdict.note == "too few"
    assert verdict.change == pytest.approx(0.5) and verdict.baseline == 2.0
    assert verdict.current == 3.0 and verdict.detectable is None
    assert verdict.change_low is None and verdict.change_high is None
    zero = verdict_on(spec, unjudgeable("zero"), [(0.0,)], [(3.0,)], True)
    assert zero.change is None
    absolute = verdict_on(parse_spec("graph.wall:1us"), unjudgeable("zero"), [(0.0,)], [(3.0,)],
                          True)
    assert absolute.verdict == NOT_GATEABLE


def test_a_slow_host_makes_host_bound_figures_not_gateable():
    base = record_of(3)
    cur = record_of(1, seed=50)
    slow_host = tuple(dataclasses.replace(c, host_probe_us=c.host_probe_us * 2)
                      for c in cur.runs[0].conditions)
    cur = dataclasses.replace(cur, runs=(dataclasses.replace(cur.runs[0],
                                                             conditions=slow_host),))
    comparison = compare_records(base, cur)
    verdicts = by_metric(comparison)
    assert verdicts["graph.wall"].verdict == NOT_GATEABLE
    assert verdicts["graph.wall"].note.startswith("host CPU speed differs")
    assert verdicts["individual.busy"].verdict != NOT_GATEABLE


def test_slower_is_past_the_bound_at_the_largest_gateable_noise():
    """T/2 + T bound / detectable: 3T/4 when the bound is a quarter of
    detectable (equal levels), wherever the interval lies."""
    assert decide(Change(0.0376, 0.030, 0.045, detectable=0.02), 0.05)[0] == SLOWER
    assert decide(Change(0.0374, 0.030, 0.045, detectable=0.02), 0.05)[0] == CHANGED
    assert decide(Change(-0.0376, -0.045, -0.030, 0.02), 0.05)[0] == FASTER
    assert decide(Change(-0.0374, -0.045, -0.030, 0.02), 0.05)[0] == CHANGED
    # a bound stated as a larger share of detectable moves the edge out
    assert decide(Change(0.0376, 0.030, 0.045, 0.02, bound=0.006), 0.05)[0] == CHANGED
    assert decide(Change(0.0401, 0.030, 0.045, 0.02, bound=0.006), 0.05)[0] == SLOWER
    # significance is the 99% interval's, and needs the resolution floor
    assert decide(Change(0.010, -0.001, 0.021, 0.02), 0.05)[0] == SAME
    assert decide(Change(0.0005, 0.0001, 0.0009, 0.02, floor=0.001), 0.05)[0] == SAME
    assert decide(Change(0.0015, 0.0001, 0.0029, 0.02, floor=0.001), 0.05)[0] == CHANGED
