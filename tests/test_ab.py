"""The A/B decision rule: paired round ratios of two builds in one process."""

import dataclasses
import math

import numpy as np
import pytest
from conftest import make_record
from tests_helpers import ab_record as shared_ab_record

from graphbench.gate.ab import (MIN_EFFECTIVE_PAIRS, candidate_modes, compare_ab, default_ab_specs,
                                is_ab, judge_ratios, ratio_change)
from graphbench.gate.decide import MISSING, NOT_GATEABLE, SAME, SLOWER
import graphbench.stats.intervals as I
from graphbench.stats.intervals import median_interval
from graphbench.gate.specs import parse_spec
from graphbench.cli import main
from graphbench.record.codec import write_record

BUILD = {"individual": 14.0, "graph": 6.0, "fused": 4.6}


def ab_record(factor=1.0, busy_factor=1.0, noise=0.005, seed=0, rounds=30):
    return shared_ab_record(BUILD, factor, busy_factor, noise, seed, rounds)


def verdicts(record):
    return {v.metric: v.verdict for v in compare_ab(record).verdicts}


def test_an_ab_record_gates_each_mode_and_each_workload_once():
    record = ab_record()
    assert is_ab(record)
    assert [s.name for s in default_ab_specs(record)] == [
        "speedup", "speedup.fused", "individual.wall", "graph.wall", "fused.wall",
        "individual.busy", "fused.busy"]


def test_the_speedup_is_judged_on_paired_rounds():
    """Identical builds: the speedup is the same. A graph replay 20% slower
    in the candidate: its speedup is slower, though individual launches
    did not change."""
    assert verdicts(ab_record())["speedup"] == SAME
    walls = {**BUILD, **{f"{m}@base": us for m, us in BUILD.items()}, "graph": BUILD["graph"] * 1.2}
    record = shared_ab_record(BUILD, seed=1)
    slower_graph = dataclasses.replace(record, runs=(dataclasses.replace(
        record.runs[0], modes=make_record(walls, rounds=30, noise=0.005, seed=1).runs[0].modes),))
    judged = verdicts(slower_graph)
    assert judged["speedup"] == SLOWER and judged["graph.wall"] == SLOWER
    assert judged["individual.wall"] == SAME


def test_identical_builds_pass():
    comparison = compare_ab(ab_record())
    assert comparison.passed and set(verdicts(ab_record()).values()) == {"same"}


def test_a_build_5_percent_slower_on_the_gpu_fails():
    comparison = compare_ab(ab_record(busy_factor=1.05))
    assert [v.metric for v in comparison.regressions] == ["individual.busy", "fused.busy"]


def test_a_faster_build_passes_as_faster():
    record = ab_record(factor=0.9, busy_factor=0.95)  # walls gate at 5%, busy at 2%
    assert compare_ab(record).passed
    assert verdicts(record)["graph.wall"] == "faster" and verdicts(record)["fused.busy"] == "faster"


def test_a_host_side_regression_fails_on_the_walls():
    record = ab_record(factor=1.33)  # one more launch of four per iteration
    failed = [v.metric for v in compare_ab(record).regressions]
    assert "individual.wall" in failed


def test_noisy_builds_are_not_gateable_rather_than_failed():
    record = ab_record(factor=1.06, noise=0.3, seed=3)
    comparison = compare_ab(record)
    assert comparison.passed
    assert verdicts(record)["individual.wall"] == "not gateable"


def test_compare_and_report_understand_an_ab_record(tmp_path, capsys):
    import json

    path = write_record(tmp_path / "ab.json", ab_record(busy_factor=1.05))
    verdicts_file = tmp_path / "verdicts.json"
    assert main(["compare", str(path), "--json", str(verdicts_file)]) == 1
    captured = capsys.readouterr()
    assert "individual.busy" in captured.out and "against base base.cu" in captured.out
    assert "FAIL: regression in individual.busy" in captured.err
    busy = next(v for v in json.loads(verdicts_file.read_text())["verdicts"]
                if v["metric"] == "individual.busy")
    assert busy["verdict"] == "slower" and busy["note"].startswith("paired ratio 1.05")
    assert main(["report", str(path)]) == 0
    assert "graph@base" in capsys.readouterr().out


def test_compare_of_one_plain_record_says_what_it_needs(capsys, record, tmp_path):
    path = write_record(tmp_path / "run.json", record)
    assert main(["compare", str(path)]) == 2
    assert "or one A/B record" in capsys.readouterr().err


def test_ab_and_baseline_together_are_refused(capsys):
    assert main(["run", "--ab", "base.cu", "--baseline", "b.json"]) == 2
    assert "--ab gates against its own base build" in capsys.readouterr().err


def test_an_ab_record_given_with_a_second_file_says_what_to_do(capsys, tmp_path):
    path = write_record(tmp_path / "ab.json", ab_record())
    other = write_record(tmp_path / "run.json", make_record(rounds=20, seed=5))
    for argv in (["compare", str(path), str(other)], ["compare", str(other), str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "A/B record holds both builds" in err and "--fail-on" not in err


# --- the verdict contract (tests/test_verdict_contract.py measures it) ---

def wall_ab(base, candidate):
    """An A/B record whose graph mode's walls are these series."""
    import dataclasses

    from graphbench.record.model import ModeSamples

    record = ab_record(rounds=len(base))
    run = record.runs[0]
    cand, base = tuple(map(float, candidate)), tuple(map(float, base))
    modes = {**run.modes, "graph": ModeSamples(cand, cand, cand),
             "graph@base": ModeSamples(base, base, base)}
    return dataclasses.replace(record, runs=(dataclasses.replace(run, modes=modes),))


def test_detects_is_two_widened_one_sided_widths_each_side_of_half_the_threshold():
    """detects = 2 (b + p), each one-sided 95% width widened for the noise
    estimate's own error: over 60 independent pairs, at least 2.6 times the
    99% half-width (2.5 without the widening, 2.76 with it at 45 degrees of
    freedom). Narrower, pairs gated only because their noise read low would
    catch the threshold less than 95% of the time."""
    import numpy as np

    from graphbench.gate.specs import parse_spec

    rng = np.random.default_rng(4)
    for _ in range(5):
        base, cand = 10 + 0.05 * rng.standard_normal((2, 60))
        verdict = compare_ab(wall_ab(base, cand), [parse_spec("graph.wall:5%")]).verdicts[0]
        half = (verdict.change_high - verdict.change_low) / 2
        assert 2.6 * half < verdict.detectable < 3.2 * half


def test_a_real_change_of_the_threshold_on_a_timer_grid_is_slower():
    """Rounds of 10 us on a 0.5 us tick: a +5% candidate is a tick slower in
    half the pairs, so the median ratio sits at 1 or 1.05 by chance; the mean
    of log ratios reads +5%."""
    import numpy as np

    from graphbench.gate.specs import parse_spec

    rng = np.random.default_rng(6)
    base = 0.5 * np.floor((10.0 + 0.1 * rng.standard_normal(100)) / 0.5 + rng.random(100))
    cand = 0.5 * np.floor((10.5 + 0.1 * rng.standard_normal(100)) / 0.5 + rng.random(100))
    verdict = compare_ab(wall_ab(base, cand), [parse_spec("graph.wall:5%")]).verdicts[0]
    assert verdict.verdict == "slower" and abs(verdict.change - 0.05) < 0.01


def test_fewer_than_20_pairs_are_not_gateable_however_clear():
    from graphbench.gate.specs import parse_spec

    record = wall_ab([10.0 + 0.01 * i for i in range(19)], [20.0 + 0.01 * i for i in range(19)])
    verdict = compare_ab(record, [parse_spec("graph.wall:5%")]).verdicts[0]
    assert verdict.verdict == "not gateable" and verdict.note.startswith("19 pairs: ")


TWO_RUNGS = {"individual": 14.0, "graph": 6.0}


def two_rung_ab_record(busy_factor=1.0, rounds=30, noise=0.005):
    return shared_ab_record(TWO_RUNGS, busy_factor=busy_factor, rounds=rounds, noise=noise)


def test_default_ab_thresholds_catch_a_3_percent_busy_regression_and_pass_1_percent():
    """Busy at 2%: +3% fails; wall at 5%: the same +3% on the walls would not."""
    specs = {s.name: s.text for s in default_ab_specs(two_rung_ab_record())}
    assert specs == {"speedup": "5%", "individual.wall": "5%", "graph.wall": "5%",
                     "individual.busy": "2%"}
    slow = {v.metric: v for v in compare_ab(two_rung_ab_record(1.03)).verdicts}
    assert slow["individual.busy"].verdict == SLOWER and slow["individual.busy"].gated
    quiet = {v.metric: v for v in compare_ab(two_rung_ab_record(1.0)).verdicts}
    assert quiet["individual.busy"].verdict == SAME


def test_an_unpaired_spec_is_missing_and_gated_so_the_gate_fails_closed():
    record = two_rung_ab_record()
    comparison = compare_ab(record, [parse_spec("fused.wall:5%"), parse_spec("individual.wall:1us"),
                                     parse_spec("graph.wall:5%")])
    fused, absolute, wall = comparison.verdicts
    for verdict in (fused, absolute):
        assert verdict.verdict == MISSING and verdict.gated
        assert verdict.note == "not paired in this A/B record (relative specs only)"
    assert fused.metric == "fused.wall" and fused.threshold == "5%"
    assert wall.verdict == SAME   # the loop goes on past a missing one
    assert not comparison.passed and comparison.unjudged == [fused, absolute]
    assert comparison.notes == ("A/B in one process: new.cu against base base.cu, rounds "
                                "alternating on the same buffers",)


def test_a_verdict_on_paired_ratios_carries_its_figures():
    record = two_rung_ab_record(1.03)
    verdict = {v.metric: v for v in compare_ab(record).verdicts}["individual.busy"]
    base = record.samples("individual@base", "busy")
    cand = record.samples("individual", "busy")
    assert verdict.baseline == pytest.approx(float(np.median(base)))
    assert verdict.current == pytest.approx(float(np.median(cand)))
    from scipy import stats

    from graphbench.gate.ab import paired_location, ratio_quantum

    ratios = [c / b for c, b in zip(cand, base)]
    # the mean of the log ratios, its spread floored at the readings' tick / sqrt(12)
    floor = max(ratio_quantum(base, cand) / 12 ** 0.5, 1e-4)
    location = paired_location(np.log(ratios), floor)
    scale = np.exp(location.estimate)
    estimate, se, df = scale - 1, location.se * scale, location.effective_n - 1
    half = stats.t.ppf(0.995, df) * se
    assert verdict.change == pytest.approx(estimate)
    assert verdict.change_low == pytest.approx(estimate - half, rel=1e-3)
    assert verdict.change_high == pytest.approx(estimate + half, rel=1e-3)
    assert verdict.scope == "within one process, 30 pairs"
    assert verdict.note == (f"paired ratio {estimate + 1:.3f} (99% interval "
                            f"{verdict.change_low + 1:.3f}..{verdict.change_high + 1:.3f}, 30 pairs)")
    margin = 1 + 1 / (2 * df) ** 0.5  # for the noise estimate's own error
    assert verdict.detectable == pytest.approx(4 * stats.t.ppf(0.95, df) * se * margin, rel=1e-3)
    assert verdict.resolution == 0.001


def test_a_base_round_of_zero_is_not_gateable():
    change = ratio_change([1.0, math.inf, 1.0])
    assert not change.valid
    assert change.reason == "a base round took no time: the ratio cannot be formed"
    record = two_rung_ab_record()
    run = record.runs[0]
    zero = dataclasses.replace(run.modes["graph@base"], wall_us=(0.0,) * 30)
    record = dataclasses.replace(record, runs=(dataclasses.replace(
        run, modes={**run.modes, "graph@base": zero}),))
    verdict = {v.metric: v for v in compare_ab(record).verdicts}["graph.wall"]
    assert verdict.verdict == NOT_GATEABLE and verdict.note == change.reason
    assert verdict.detectable is None and verdict.change_low is None


def test_too_few_pairs_are_not_gateable_with_the_estimate_kept():
    change = ratio_change([1.1, 1.1, 1.1, 1.1])
    assert not change.valid and change.reason.startswith("4 pairs: ")
    assert change.estimate == pytest.approx(0.1)
    verdict = judge_ratios(parse_spec("graph.wall:5%"), [1.1, 1.1, 1.1, 1.1], 1.0, 1.1)
    assert verdict.verdict == NOT_GATEABLE and verdict.change == pytest.approx(0.1)
    assert verdict.note == change.reason and verdict.change_high is None


def test_correlated_pairs_below_min_effective_pairs_are_not_gateable():
    rng = np.random.default_rng(1)
    ar = np.zeros(40)
    for i in range(1, 40):
        ar[i] = 0.9 * ar[i - 1] + 0.002 * rng.standard_normal()
    ratios = list(1.05 + ar)
    from graphbench.gate.ab import paired_location

    location = paired_location(np.log(ratios), 1e-4)
    assert location.effective_n < MIN_EFFECTIVE_PAIRS
    change = ratio_change(ratios)
    assert not change.valid
    assert change.reason.startswith(f"40 pairs are worth only {location.effective_n:.1f} "
                                    "independent")
    assert change.estimate == pytest.approx(np.exp(location.estimate) - 1)
    white = list(1.0 + 0.002 * rng.standard_normal(40))
    assert ratio_change(white).valid
    assert paired_location(np.log(white), 1e-4).effective_n >= MIN_EFFECTIVE_PAIRS


def test_candidate_modes_pair_each_mode_with_its_base():
    assert candidate_modes(two_rung_ab_record()) == ["individual", "graph"]
    lone = make_record({"individual": 14.0, "graph@base": 6.0})
    assert candidate_modes(lone) == []


def test_ab_ratios_worth_fewer_than_8_independent_pairs_are_not_gateable():
    """24 correlated pairs (AR(1) 0.6) whose 99% interval is valid but worth
    about 6 independent pairs: too few for the power promise."""

    rng, state, series = np.random.default_rng(1), 0.0, []
    for _ in range(24):
        state = 0.6 * state + rng.standard_normal()
        series.append(1.0 + 0.001 * state)
    interval = median_interval(series, 0.99, shared_phases=True)
    assert interval.valid and 4 < interval.effective_n < MIN_EFFECTIVE_PAIRS
    change = ratio_change(series)
    assert not change.valid and "independent ones" in change.reason


def _ratios(n=80, seed=3):
    rng = np.random.default_rng(seed)
    return list(1.01 + 0.004 * rng.standard_normal(n))


def test_ratio_change_widens_detectable_by_the_noise_margin_of_its_effective_pairs():
    from scipy import stats

    from graphbench.gate.ab import paired_location

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


def test_exactly_the_minimum_of_independent_pairs_is_enough_for_an_ab_verdict(monkeypatch):
    import graphbench.gate.ab as ab

    ratios = [1.0 + 0.01 * (-1) ** i * (1 + 0.1 * (i % 3)) for i in range(20)]
    worth = ab.paired_location(np.log(ratios), 1e-4).effective_n
    monkeypatch.setattr(ab, "MIN_EFFECTIVE_PAIRS", worth)
    change = ratio_change(ratios)
    assert change.valid and change.scope == "within one process, 20 pairs"
    monkeypatch.setattr(ab, "MIN_EFFECTIVE_PAIRS", worth + 0.01)
    assert not ratio_change(ratios).valid


def test_the_advice_names_the_fewest_pairs_in_steps_of_a_tenth_that_make_a_metric_gateable():
    import math

    from graphbench.gate import ab

    def width(n, effective_n, se, pairs):
        return 2 * sum(ab._widths(se * math.sqrt(n / pairs), effective_n * pairs / n - 1))

    def advised(pairs):
        return (f"about {pairs} pairs would make it gateable (more rounds: --min-rounds {pairs} "
                "or a longer --max-time)")

    # from 5 pairs the next step is 6: a threshold exactly as wide as 6 pairs' interval
    assert ab._more_pairs(5, 5.0, 0.01)(width(5, 5.0, 0.01, 6)) == advised(6)
    assert ab._more_pairs(5, 5.0, 0.01)(width(5, 5.0, 0.01, 6) * 0.999) == advised(7)
    assert ab._more_pairs(10, 10.0, 0.01)(0.05) == advised(27)
    assert ab._more_pairs(20, 5.0, 0.02)(0.03) == advised(461)
    assert ab._more_pairs(30, 30.0, 0.001)(0.05) == advised(33)
    assert ab._more_pairs(10, 10.0, 0.01)(1e-9) == "not even 100000 pairs would make it gateable"


def test_a_paired_location_leaves_out_what_lies_beyond_five_robust_sds():
    from graphbench.gate import ab

    for values in ([1.0, 2.0], [1.0, 2.0, math.nan], [1.0, math.inf, 2.0, 3.0]):
        with pytest.raises(ValueError, match="^a location needs 3 or more finite values$"):
            ab.paired_location(values)
    three = ab.paired_location([10.0, 10.4, 100.0])  # 100 dropped; two values kept
    assert (three.estimate, three.n, three.dropped) == (pytest.approx(10.2), 2, 1)
    assert three.se == pytest.approx(np.std([10.0, 10.4], ddof=1) / math.sqrt(2))
    assert three.effective_n == 2.0
    # no spread at all: nothing is an outlier
    flat = ab.paired_location([1.0, 1.0, 1.0, 1.0, 5.0])
    assert (flat.estimate, flat.n, flat.dropped) == (pytest.approx(1.8), 5, 0)
    # the floor is the scale: a value exactly 5 floors away is kept, one beyond is not
    kept = ab.paired_location([10.0] * 7 + [12.5], 0.5)
    assert (kept.n, kept.dropped, kept.estimate) == (8, 0, 10.3125)
    cut = ab.paired_location([10.0] * 7 + [12.5000001], 0.5)
    assert (cut.n, cut.dropped, cut.estimate) == (7, 1, 10.0)
    # with no outlier: the mean, and the sd (never below the floor) over sqrt(n / tau)
    values = np.random.default_rng(5).normal(0.0, 0.01, 40)
    location = ab.paired_location(values)
    tau = ab.mean_tau(values)
    assert location.estimate == pytest.approx(float(np.mean(values)), rel=1e-12)
    assert location.se == pytest.approx(np.std(values, ddof=1) * math.sqrt(tau / 40), rel=1e-12)
    assert (location.n, location.effective_n, location.dropped) == (40, 40 / tau, 0)
    assert ab.paired_location(values, 1.0).se == pytest.approx(math.sqrt(tau / 40), rel=1e-12)
    assert ab.paired_location([0.1, 0.2, 0.3]).se == ab.paired_location([0.1, 0.2, 0.3], 0.0).se


def test_the_mean_s_autocorrelation_time_is_1_below_three_values():
    from graphbench.gate import ab

    assert ab.mean_tau([1.0, 2.0]) == 1.0 and ab.mean_tau([]) == 1.0
    assert ab.mean_tau([1.0, 3.0, 2.0]) == pytest.approx(9.472135954999581)
    assert ab.mean_tau([1.0, 3.0, 2.0, 5.0]) == pytest.approx(199.0)
    ten = np.random.default_rng(2).normal(0.0, 1.0, 10)
    assert ab.mean_tau(ten) == pytest.approx(1.924950591148529, rel=1e-9)
    drifting = np.cumsum(np.random.default_rng(2).normal(0.0, 1.0, 10))
    assert ab.mean_tau(drifting) == pytest.approx(37.47321412609312, rel=1e-9)


def test_a_candidate_round_of_zero_or_too_few_pairs_are_refused_in_words():
    from graphbench.stats.intervals import MIN_ROUNDS, _invalid_reason

    for ratios in ([1.0, 0.0, 1.0], [1.0, -0.5, 1.0]):
        change = ratio_change(ratios)
        assert not change.valid
        assert change.reason == "a candidate round took no time: the ratio cannot be judged"
    few = [1.1] * (MIN_ROUNDS - 1)
    assert ratio_change(few).reason == f"{MIN_ROUNDS - 1} pairs: {_invalid_reason(MIN_ROUNDS - 1)}"
    empty = ratio_change([])
    assert not empty.valid and math.isnan(empty.estimate)


def test_a_ratio_change_s_interval_bound_and_scope_follow_its_paired_location():
    from scipy import stats

    from graphbench.gate import ab
    from graphbench.gate.decide import GATE_LEVEL

    ratios = list(np.exp(np.random.default_rng(9).normal(0.02, 0.01, 60)))
    ratios[7] = 3.0  # an outlier, left out
    change = ratio_change(ratios)
    location = ab.paired_location([math.log(r) for r in ratios], ab.RESOLUTION)
    scale = math.exp(location.estimate)
    se, df = location.se * scale, location.effective_n - 1
    half = stats.t.ppf(0.5 + GATE_LEVEL / 2, df) * se
    upper = float(I.hill_t_quantile(0.5 + GATE_LEVEL / 2, np.array([df]))[0])
    assert change.high - change.estimate == pytest.approx(upper * se, rel=1e-12)
    assert change.estimate == pytest.approx(scale - 1, rel=1e-12)
    assert (change.low, change.high) == (pytest.approx(scale - 1 - half, rel=1e-6),
                                         pytest.approx(scale - 1 + half, rel=1e-6))
    bound, power = ab._widths(se, df)
    assert change.bound == pytest.approx(bound, rel=1e-12)
    assert change.detectable == pytest.approx(2 * (bound + power), rel=1e-12)
    assert change.scope == "within one process, 60 pairs, 1 outlier(s) left out"
    assert ratio_change(ratios[8:]).scope == "within one process, 52 pairs"
    short = ratio_change(ratios[8:30])  # few pairs: the t quantile's upper tail, exactly
    few = ab.paired_location([math.log(r) for r in ratios[8:30]], ab.RESOLUTION)
    upper = float(I.hill_t_quantile(0.5 + GATE_LEVEL / 2, np.array([few.effective_n - 1]))[0])
    assert short.high - short.estimate == pytest.approx(
        upper * few.se * math.exp(few.estimate), rel=1e-12)
    # a coarse timer's tick (quantum / sqrt 12) is the floor of the ratios' spread
    coarse = ratio_change(ratios, quantum=0.5)
    assert coarse.detectable > change.detectable
    floored = ab.paired_location([math.log(r) for r in ratios], 0.5 / math.sqrt(12))
    scale = math.exp(floored.estimate)
    assert coarse.estimate == pytest.approx(scale - 1, rel=1e-12)
    assert coarse.detectable == pytest.approx(
        2 * sum(ab._widths(floored.se * scale, floored.effective_n - 1)), rel=1e-12)
    spec = parse_spec("graph.wall:5%")
    verdict = judge_ratios(spec, ratios, 1.0, 1.02)
    assert verdict.resolution == ab.AB_RESOLUTION
    assert verdict.detectable == pytest.approx(change.detectable, rel=1e-12)
    assert judge_ratios(spec, ratios, 1.0, 1.02, 0.5).detectable == \
        pytest.approx(coarse.detectable, rel=1e-12)
    assert judge_ratios(spec, ratios[:4], 1.0, 1.02).resolution is None


def test_the_ratio_s_quantum_is_each_side_s_tick_over_its_median_in_quadrature():
    from graphbench.gate import ab
    from graphbench.stats.intervals import reading_quantum

    base = [10.0, 10.5, 10.0, 11.0, 10.5, 10.0]
    cand = [20.0, 20.25, 20.5, 20.25, 20.0, 20.5]
    qb, qc = reading_quantum(base), reading_quantum(cand)
    assert qb / 10.25 != pytest.approx(qc / 20.25)
    assert ab.ratio_quantum(base, cand) == pytest.approx(math.hypot(qb / 10.25, qc / 20.25),
                                                         rel=1e-12)
    assert ab.ratio_quantum([0.0, 0.0, 0.0], cand) == 0.0
    assert ab.ratio_quantum(base, [0.0, 0.0, 0.0]) == 0.0


def test_an_ab_verdict_allows_for_the_tick_of_both_builds_readings():
    """Readings on a coarse timer's grid: the verdict's detectable change is that of the
    ratios with each side's tick (ratio_quantum) as the floor of their spread."""
    from statistics import median

    from graphbench.gate import ab

    record = two_rung_ab_record()
    run = record.runs[0]
    modes = dict(run.modes)
    for mode, tick in (("individual", 0.25), ("individual@base", 0.5)):
        modes[mode] = dataclasses.replace(modes[mode], wall_us=tuple(
            round(us / tick) * tick for us in modes[mode].wall_us))
    record = dataclasses.replace(record, runs=(dataclasses.replace(run, modes=modes),))
    spec = parse_spec("individual.wall:5%")
    (verdict,) = compare_ab(record, [spec]).verdicts
    cand = record.samples("individual", "wall")
    base = record.samples("individual@base", "wall")
    quantum = ab.ratio_quantum(base, cand)
    assert quantum / math.sqrt(12) > 1e-3
    ratios = [c / b for c, b in zip(cand, base)]
    expected = judge_ratios(spec, ratios, median(base), median(cand), quantum)
    assert verdict.detectable == pytest.approx(expected.detectable, rel=1e-12)
    assert verdict.detectable != pytest.approx(judge_ratios(spec, ratios, median(base),
                                                            median(cand)).detectable)
