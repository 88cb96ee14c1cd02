"""The regression gate on record files kept under tests/records/.

Covers graphbench/stats/host_readings.py."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import device_info, make_record, make_run, with_runs
from scipy import stats
from tests_helpers import scaled_busy, short_error, with_busy

import graphbench.gate.decide as decide_module
from graphbench.gate.compare import (Z_GATE, Z_POWER, between_processes, compare_records,
                                     median_noise, shared_busy_note, verdict_on)
from graphbench.gate.gpu_spread import UNMEASURED, spread_of
from graphbench.gate.decide import (CHANGED, FASTER, INCOMPATIBLE, MISSING, NOT_GATEABLE, SAME,
                                    SLOWER, WORSE_AS_MEASURED, Change, decide, unjudgeable)
from graphbench.stats.merge import merge_runs
from graphbench.gate.specs import default_specs, parse_spec
from graphbench.cli import main
from graphbench.errors import RecordError, UsageError
from graphbench.record.codec import read_run as read_record
from graphbench.record.model import BusyReading

RECORDS = Path(__file__).resolve().parent / "records"


def path(name):
    return str(RECORDS / f"{name}.json")


def verdicts(name, specs=None):
    comparison = compare_records(read_record(path("baseline")), read_record(path(name)), specs)
    return comparison, {v.metric: v for v in comparison.verdicts}


def one_line_error(capsys) -> str:
    """The error, at most two short lines (tests_helpers.short_error), and no PASS."""
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    return short_error(captured.err)


def test_identical_code_passes(capsys):
    assert main(["compare", path("baseline"), path("same_code")]) == 0
    assert "PASS" in capsys.readouterr().out
    _, by_metric = verdicts("same_code")
    assert all(v.verdict == SAME for v in by_metric.values())


def test_a_record_compared_with_itself_is_the_same():
    record = read_record(path("baseline"))
    assert compare_records(record, record).passed


def test_graph_20_percent_slower_fails_and_names_the_metric(capsys):
    assert main(["compare", path("baseline"), path("graph_slower_20")]) == 1
    assert "FAIL: regression in graph.wall" in capsys.readouterr().err
    _, by_metric = verdicts("graph_slower_20")
    assert by_metric["graph.wall"].verdict == SLOWER
    assert by_metric["graph.wall"].change == pytest.approx(0.2, abs=0.02)
    assert by_metric["individual.wall"].verdict == SAME


def test_the_speedup_is_shown_but_not_gated_by_default():
    """It falls when individual launches get faster: its direction is ambiguous."""
    comparison, by_metric = verdicts("graph_slower_20")
    assert by_metric["speedup"].verdict == SLOWER and not by_metric["speedup"].gated
    assert "speedup" not in [v.metric for v in comparison.regressions]
    asked, _ = verdicts("graph_slower_20", [parse_spec("speedup:5%")])
    assert [v.metric for v in asked.regressions] == ["speedup"]


def test_faster_individual_launches_pass_the_default_gate():
    baseline = read_record(path("baseline"))
    faster = make_record({"individual": 14.0 * 0.7, "graph": 4.3, "fused": 4.6}, rounds=20, seed=3)
    comparison = compare_records(baseline, faster)
    assert comparison.passed
    assert {v.metric: v.verdict for v in comparison.verdicts}["individual.wall"] == FASTER


def test_a_20_percent_improvement_passes():
    comparison, by_metric = verdicts("graph_faster_20")
    assert comparison.passed and by_metric["graph.wall"].verdict == FASTER


def test_a_2_percent_change_within_the_threshold_passes():
    """Three baseline processes cannot show that 2% is real (same); five can
    (changed): either way it passes a 10% gate."""
    comparison, by_metric = verdicts("within_noise_2", [parse_spec("graph.wall:10%")])
    assert comparison.passed and by_metric["graph.wall"].verdict == SAME
    five = processes({"individual": 14.0, "graph": 4.3, "fused": 4.6}, noise=0.002)
    current = make_record({"individual": 14.0, "graph": 4.3 * 1.02, "fused": 4.6}, rounds=20,
                          seed=40, noise=0.002)
    verdict = gate(five, current, "graph.wall:10%")["graph.wall"]
    assert verdict.verdict == CHANGED and verdict.change == pytest.approx(0.02, abs=0.004)


def test_a_noisy_record_is_not_gateable_rather_than_a_quiet_ambiguous():
    comparison, by_metric = verdicts("noisy_graph_slower")
    assert comparison.passed
    verdict = by_metric["graph.wall"]
    assert verdict.verdict == NOT_GATEABLE and verdict not in comparison.judged
    assert "not gateable on this pair: it detects" in verdict.note and verdict.detectable > 0.10


def test_another_device_model_shows_times_but_a_gate_that_judged_nothing_exits_2(capsys):
    assert main(["compare", path("baseline"), path("other_device_slower_times")]) == 2
    captured = capsys.readouterr()
    assert "different device or driver" in captured.out and "not gated" in captured.out
    assert "judged nothing" in captured.err and "PASS" not in captured.out
    _, by_metric = verdicts("other_device_slower_times")
    assert by_metric["graph.wall"].verdict == SLOWER and not by_metric["graph.wall"].gated


def test_different_configuration_is_incompatible_and_exits_2(capsys):
    assert main(["compare", path("baseline"), path("other_elements")]) == 2
    assert "not comparable" in one_line_error(capsys)


# --- it fails closed -------------------------------------------------------------

def test_a_current_record_that_failed_verification_exits_1_naming_the_check(capsys):
    assert main(["compare", path("baseline"), path("failed_verification")]) == 1
    captured = capsys.readouterr()
    assert "failed verification: graph: 1 of 8 elements wrong" in captured.err
    assert "PASS" not in captured.out


def test_a_baseline_that_failed_verification_cannot_judge_anything(capsys):
    assert main(["compare", path("failed_verification"), path("same_code")]) == 2
    assert "baseline record failed verification" in one_line_error(capsys)


def test_zero_rounds_exit_2(capsys):
    assert main(["compare", path("baseline"), path("zero_rounds")]) == 2
    assert "no timed rounds" in one_line_error(capsys)


@pytest.mark.parametrize("name, message", [
    ("nan_samples", "runs[0].modes[...].wall_us[2]: expected a number, got a string"),
    ("null_config", "config: expected an object, got null"),
    ("truncated", "not valid JSON"),
    ("corrupted", "not valid JSON"),
    ("future_schema", "schema version 99"),
])
def test_unreadable_records_exit_2_in_one_line(capsys, name, message):
    assert main(["compare", path("baseline"), path(name)]) == 2
    assert message in one_line_error(capsys)


def test_a_mistyped_mode_in_fail_on_exits_2(capsys):
    assert main(["compare", path("baseline"), path("same_code"), "--fail-on", "grph.busy:3%"]) == 2
    assert "unknown metric 'grph.busy'" in one_line_error(capsys)


def test_a_gated_metric_missing_from_a_record_exits_2(capsys):
    assert main(["compare", path("baseline"), path("no_busy"), "--fail-on", "graph.busy:3%"]) == 2
    assert "cannot judge graph.busy (not in the current record)" in one_line_error(capsys)


def test_modes_missing_from_the_current_record_are_listed_and_stop_the_gate(capsys):
    assert main(["compare", path("baseline"), path("without_fused")]) == 2
    captured = capsys.readouterr()
    assert "fused.wall" in captured.out and "missing" in captured.out
    assert "cannot judge fused.wall" in captured.err
    _, by_metric = verdicts("without_fused")
    assert by_metric["fused.wall"].verdict == MISSING and by_metric["fused.wall"].gated


# --- specs, statistics, outputs -------------------------------------------------------

def test_fail_on_specs_parse_and_reject_nonsense():
    spec = parse_spec("individual.wall:0.5us")
    assert (spec.metric, spec.threshold, spec.relative) == ("individual.wall", 0.5, False)
    assert parse_spec("speedup:5%").threshold == pytest.approx(0.05)
    sized = parse_spec("graph.busy@2^24:5%")
    assert sized.size == 2**24 and sized.name == "graph.busy@2^24"
    for bad in ("speedup", "speedup:5", "graph.walls:5%", "speedup:1us", "graph.wall:2x",
                "grph.wall:5%", "graph.busy@2^99999:5%"):
        with pytest.raises(UsageError):
            parse_spec(bad)


def processes(walls, count=5, first_seed=10, noise=0.003, **kw):
    """A record of `count` processes of the same code (seeds differ)."""
    return merge_runs([make_record(walls, rounds=20, seed=first_seed + i, noise=noise, **kw)
                       for i in range(count)])


def gate(baseline, current, *specs):
    parsed = [parse_spec(s) for s in specs] or None
    return {v.metric: v for v in compare_records(baseline, current, parsed).verdicts}


def test_absolute_threshold_in_microseconds():
    baseline = processes({"individual": 14.0, "graph": 4.3})
    current = make_record({"individual": 14.0, "graph": 4.6}, rounds=20, seed=40, noise=0.003)
    assert gate(baseline, current, "graph.wall:0.5us")["graph.wall"].verdict == CHANGED
    assert gate(baseline, current, "graph.wall:0.2us")["graph.wall"].verdict == SLOWER


def test_speedup_direction_higher_is_better():
    baseline = processes({"individual": 14.0, "graph": 4.3})
    slower = make_record({"individual": 14.0, "graph": 4.3 / 0.8}, rounds=20, seed=40)
    faster = make_record({"individual": 14.0, "graph": 4.3 / 1.2}, rounds=20, seed=41)
    assert gate(baseline, slower, "speedup:5%")["speedup"].verdict == SLOWER
    assert gate(baseline, faster, "speedup:5%")["speedup"].verdict == FASTER


def test_a_baseline_of_fewer_than_3_processes_gates_nothing(capsys):
    for count in (1, 2):
        verdict = gate(processes({"individual": 14.0, "graph": 4.3}, count=count),
                       make_record({"individual": 14.0, "graph": 6.0}, rounds=20, seed=40),
                       "graph.wall:10%")["graph.wall"]
        assert verdict.verdict == NOT_GATEABLE and "--processes 3 or more" in verdict.note
    assert main(["compare", path("one_process_baseline"), path("graph_slower_20")]) == 2
    assert "judged nothing" in one_line_error(capsys)


def test_three_baseline_processes_are_enough():
    baseline = processes({"individual": 14.0, "graph": 4.3}, count=3)
    slower = make_record({"individual": 14.0, "graph": 6.0}, rounds=20, seed=40)
    assert gate(baseline, slower, "graph.wall:10%")["graph.wall"].verdict == SLOWER


def test_between_processes_the_unit_is_the_process_median():
    """Identical code in different processes: rounds disagree far beyond their
    own noise, process medians do not."""
    walls = [6.1, 6.3, 6.2, 6.4, 6.25]
    baseline = merge_runs([make_record({"individual": 14.0, "graph": w}, seed=i, noise=0.001)
                           for i, w in enumerate(walls)])
    current = make_record({"individual": 14.0, "graph": 6.45}, seed=40, noise=0.001)
    verdict = gate(baseline, current, "graph.wall:30%")["graph.wall"]
    assert verdict.verdict == SAME and verdict.change_low < 0 < verdict.change_high
    assert "between 5 baseline and 1 current process" in verdict.scope
    slower = make_record({"individual": 14.0, "graph": 8.6}, seed=41, noise=0.001)
    assert gate(baseline, slower, "graph.wall:30%")["graph.wall"].verdict == SLOWER
    tight = gate(baseline, slower, "graph.wall:3%")["graph.wall"]
    # a 3% change is beyond what 5 processes can tell, but +37% is far clear of it
    assert tight.verdict == SLOWER and tight.detectable > 0.03
    assert "it detects" in tight.note and "wholly above the threshold" in tight.note
    near = make_record({"individual": 14.0, "graph": 6.45}, seed=42, noise=0.001)
    assert gate(baseline, near, "graph.wall:3%")["graph.wall"].verdict == NOT_GATEABLE


def test_identical_process_medians_do_not_make_every_difference_significant():
    """All five baseline medians equal: the spread is floored by each
    median's own within-process noise, never zero."""
    same = [make_record({"individual": 14.0, "graph": 4.3}, rounds=20, seed=7, noise=0.01)] * 5
    baseline = merge_runs(same)
    current = make_record({"individual": 14.0, "graph": 4.3 * 1.0005}, rounds=20, seed=8,
                          noise=0.01)
    assert gate(baseline, current, "graph.wall:10%")["graph.wall"].verdict == SAME


def test_a_change_smaller_than_the_threshold_is_changed_not_same():
    baseline = processes({"individual": 14.0, "graph": 4.3}, noise=0.001)
    current = make_record({"individual": 14.0, "graph": 4.3 * 1.03}, rounds=20, seed=40,
                          noise=0.001)
    verdict = gate(baseline, current, "graph.wall:10%")["graph.wall"]
    assert verdict.verdict == CHANGED and verdict.change == pytest.approx(0.03, abs=0.005)
    assert compare_records(baseline, current, [parse_spec("graph.wall:10%")]).passed


def test_default_gate_covers_modes_workloads_and_gate_sizes():
    point = make_record(elements=2**20, rounds=20, seed=5)
    baseline = dataclasses.replace(read_record(path("baseline")), gate_points=(point,))
    names = [s.name for s in default_specs(baseline)]
    assert names == ["speedup", "individual.wall", "graph.wall", "fused.wall", "floor.launch",
                     "floor.replay", "individual.busy", "fused.busy", "individual.busy@2^20",
                     "fused.busy@2^20"]


def test_a_bandwidth_regression_fails_naming_the_size():
    small = processes(None, first_seed=1)
    big = processes(None, first_seed=20, elements=2**24)
    baseline = dataclasses.replace(small, gate_points=(big,))
    slower_big = scaled_busy(make_record(elements=2**24, rounds=20, seed=3), 1.10)
    current = dataclasses.replace(make_record(rounds=20, seed=4), gate_points=(slower_big,))
    comparison = compare_records(baseline, current)
    assert [v.metric for v in comparison.regressions] == ["individual.busy@2^24",
                                                         "fused.busy@2^24"]


def test_host_speed_difference_makes_host_bound_changes_not_gateable():
    baseline, current = read_record(path("baseline")), read_record(path("graph_slower_20"))
    run = current.runs[0]  # host's CPUs ran 33% slower than for the baseline
    slower_host = tuple(dataclasses.replace(c, cpu_probe_us=400.0) for c in run.conditions)
    current = dataclasses.replace(current, runs=(dataclasses.replace(run, conditions=slower_host),))
    comparison = compare_records(baseline, current)
    by_metric = {v.metric: v for v in comparison.verdicts}
    assert by_metric["graph.wall"].verdict == NOT_GATEABLE
    assert "ran at another speed" in by_metric["graph.wall"].note
    assert "--ab" in by_metric["graph.wall"].note
    assert by_metric["individual.busy"].verdict == SAME  # GPU time does not depend on the host
    assert comparison.passed


def test_differences_in_sources_versions_and_pinning_are_noted():
    baseline = read_record(path("baseline"))
    current = read_record(path("same_code"))
    current = dataclasses.replace(
        current, packages={**current.packages, "cuda-core": "1.3.0"},
        pipeline=dataclasses.replace(current.pipeline, kernel_source="new.cu",
                                     kernel_source_sha256="f" * 64))
    notes = " | ".join(compare_records(baseline, current).notes)
    assert "kernel sources differ (shipped 000000000000 vs new.cu ffffffffffff)" in notes
    assert "cuda-core 1.2.0 vs 1.3.0" in notes


def test_a_slower_kernel_is_one_regression_not_two():
    """individual and graph modes run the same kernels: one busy series."""
    baseline = processes(None, first_seed=1)
    slower = scaled_busy(make_record(seed=2, rounds=20), 1.12)
    comparison = compare_records(baseline, slower)
    assert [v.metric for v in comparison.regressions] == ["individual.busy", "fused.busy"]
    busy = {v.metric: v for v in comparison.verdicts}["individual.busy"]
    assert busy.note == "GPU time of individual, graph (one series)"


def test_markdown_and_json_outputs(tmp_path, capsys):
    md, js = tmp_path / "summary.md", tmp_path / "verdicts.json"
    assert main(["compare", path("baseline"), path("graph_slower_20"), "--markdown", str(md),
                 "--json", str(js)]) == 1
    text = md.read_text()
    assert "| metric | baseline | current | change | detects | gate | verdict | note |" in text
    assert "| graph.wall |" in text and "slower" in text and "**FAIL" in text
    data = json.loads(js.read_text())
    assert data["passed"] is False and data["regressions"] == ["graph.wall"]


def test_run_rejects_gate_options_without_baseline(capsys):
    assert main(["run", "--fail-on", "graph.wall:5%"]) == 2
    assert "--fail-on and --markdown need --baseline" in capsys.readouterr().err


def test_run_with_unreadable_baseline_fails_before_running(capsys):
    assert main(["run", "--baseline", path("corrupted")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_the_comparison_fits_80_columns_without_cutting_a_number():
    from graphbench.report.compare import comparison_report
    from graphbench.report.tables import to_text

    small = make_record(rounds=20, seed=1)
    baseline = dataclasses.replace(small, gate_points=(make_record(elements=2**24, seed=2),))
    current = dataclasses.replace(make_record(rounds=20, seed=3),
                                  gate_points=(make_record(elements=2**24, seed=4),))
    text = to_text(comparison_report(compare_records(baseline, current)), width=80)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    assert "individual.busy@2^24" in text and "detect" in text


def test_a_record_without_checks_cannot_be_judged(tmp_path, capsys):
    from graphbench.record.codec import write_record

    current = read_record(path("same_code"))
    current = dataclasses.replace(current, runs=(dataclasses.replace(current.runs[0], checks=()),))
    unchecked = write_record(tmp_path / "unchecked.json", current)
    assert main(["compare", path("baseline"), str(unchecked)]) == 2
    assert "has no verification checks" in one_line_error(capsys)


# --- the verdict contract at the front door (tests/test_verdict_contract.py measures it) ---

def test_a_gate_size_is_judged_against_the_baselines_point_of_that_size():
    """At 2^20 busy time is 1.8x that at 4096: a +10% regression at 2^20 reads
    +10% against the baseline's 2^20 point, not against its top-level record
    (+98%) nor the current's top-level against the baseline's point (-45%)."""
    size = 2**20
    base = processes(None, count=3, first_seed=1)
    base_point = with_busy(processes(None, count=3, first_seed=5, elements=size), 1.8)
    baseline = dataclasses.replace(base, gate_points=(base_point,))
    cur_point = with_busy(make_record(elements=size, rounds=20, seed=9), 1.8 * 1.10)
    current = dataclasses.replace(make_record(rounds=20, seed=8), gate_points=(cur_point,))
    verdict = gate(baseline, current, "graph.busy@2^20:5%")["graph.busy@2^20"]
    assert verdict.verdict == SLOWER
    assert verdict.change == pytest.approx(0.10, abs=0.005)
    assert verdict.baseline == pytest.approx(3.0 * 1.8, rel=0.01)
    assert verdict.current == pytest.approx(3.0 * 1.8 * 1.1, rel=0.01)


@pytest.mark.parametrize("field", ["wall", "submit", "device"])
def test_every_host_bound_figure_is_not_gateable_when_the_host_speed_differs(field):
    baseline = processes({"individual": 14.0, "graph": 4.3}, count=3)
    walls = {"individual": 14.0, "graph": 4.3}
    current = make_record(walls, rounds=20, runs=[make_run(walls, rounds=20, seed=40,
                                                           host_probe_us=400.0)])
    verdict = gate(baseline, current, f"graph.{field}:10%")[f"graph.{field}"]
    assert verdict.verdict == NOT_GATEABLE and "ran at another speed" in verdict.note
    assert gate(baseline, current, "graph.busy:5%")["graph.busy"].verdict != NOT_GATEABLE


@pytest.mark.parametrize("field", ["wall", "submit", "device"])
def test_host_bound_figures_carry_no_spread_between_gpus(field):
    """The spread between GPUs is one of GPU time: another physical GPU widens
    busy time's interval, not a host-bound figure's."""
    baseline = processes({"individual": 14.0, "graph": 4.3}, count=3)
    current = make_record({"individual": 14.0, "graph": 4.3}, rounds=20, seed=40,
                          info=device_info(uuid="GPU-other"))
    verdicts = gate(baseline, current, f"graph.{field}:10%", "graph.busy:10%")
    assert "two physical GPUs" not in verdicts[f"graph.{field}"].scope
    assert verdicts["graph.busy"].scope.endswith("two physical GPUs")


def test_busy_time_of_records_without_measured_clocks_is_judged():
    """No SM clock in either record, or in one: no cycles to compare, the
    verdict on time stands."""
    def no_clock(record):
        runs = tuple(dataclasses.replace(run, conditions=tuple(dataclasses.replace(
            c, sm_clock_mhz=None, busy={w: dataclasses.replace(r, sm_clock_mhz=None)
                                        for w, r in c.busy.items()}) for c in run.conditions))
            for run in record.runs)
        return dataclasses.replace(record, runs=runs)

    baseline = processes({"individual": 14.0, "graph": 4.3}, count=3)
    current = make_record({"individual": 14.0, "graph": 4.3}, rounds=20, seed=40)
    for base, cur in ((no_clock(baseline), no_clock(current)), (baseline, no_clock(current)),
                      (no_clock(baseline), current)):
        assert gate(base, cur, "graph.busy:5%")["graph.busy"].verdict == SAME
        slower = with_busy(cur, 1.2)
        assert gate(base, slower, "graph.busy:5%")["graph.busy"].verdict == SLOWER


def test_slower_means_past_three_quarters_of_the_threshold_where_gateable():
    """The indifference zone: +3% at a 5% gate is `changed` (a change of half
    the threshold must pass), +4.5% is `slower`; each with the same noise."""
    baseline = processes({"individual": 14.0, "graph": 4.3}, noise=0.001)
    for change, expected in ((0.03, CHANGED), (0.045, SLOWER), (-0.03, CHANGED),
                             (-0.045, FASTER)):
        current = make_record({"individual": 14.0, "graph": 4.3 * (1 + change)}, rounds=20,
                              seed=40, noise=0.001)
        verdict = gate(baseline, current, "graph.wall:5%")["graph.wall"]
        assert verdict.verdict == expected, change
        assert verdict.detectable < 0.02 and verdict.resolution == pytest.approx(1e-4)


def test_the_comparison_json_states_the_resolution(tmp_path):
    out = tmp_path / "verdicts.json"
    assert main(["compare", path("baseline"), path("same_code"), "--json", str(out)]) == 0
    judged = [v for v in json.loads(out.read_text())["verdicts"] if v["verdict"] == SAME]
    assert judged and all(v["resolution"] == pytest.approx(1e-4) for v in judged)


def test_detects_is_the_contracts_two_widened_one_sided_widths():
    """5 baseline processes against 1 (4 degrees of freedom): detects =
    2 (t95 + t95) se (1 + 1/sqrt(8)), the 99% half-width t995 se."""
    from scipy import stats

    baseline = processes({"individual": 14.0, "graph": 4.3}, noise=0.003)
    current = make_record({"individual": 14.0, "graph": 4.3}, rounds=20, seed=40, noise=0.003)
    verdict = gate(baseline, current, "graph.wall:10%")["graph.wall"]
    half = (verdict.change_high - verdict.change_low) / 2
    ratio = 4 * stats.t.ppf(0.95, 4) * (1 + 1 / 8 ** 0.5) / stats.t.ppf(0.995, 4)
    assert verdict.detectable == pytest.approx(ratio * half, rel=1e-6)


def test_a_known_systematic_error_joins_in_quadrature_with_normal_quantiles():
    from scipy import stats

    from graphbench.gate.compare import between_processes
    from graphbench.gate.decide import decide

    base = [(2.0 * (1 + 0.001 * i),) * 5 for i in (-1, 0, 1)]
    plain = between_processes(base, [(2.0,) * 5], False)
    known = between_processes(base, [(2.0,) * 5], False, systematic=0.01)
    se = (plain.high - plain.estimate) / stats.t.ppf(0.995, 2)
    assert known.high - known.estimate == pytest.approx(
        ((stats.t.ppf(0.995, 2) * se) ** 2 + (2.5758 * 0.01) ** 2) ** 0.5, rel=1e-6)
    wide = se * 1.5  # widened for 2 degrees of freedom
    one_sided = ((stats.t.ppf(0.95, 2) * wide) ** 2 + (1.6449 * 0.01) ** 2) ** 0.5
    assert known.detectable == pytest.approx(4 * one_sided, rel=1e-6)
    # another GPU and the systematic error add in quadrature too
    both = between_processes(base, [(2.0,) * 5], True, systematic=0.01, gpu_spread=0.0075)
    gpu = 2 ** 0.5 * 0.0075
    assert both.high - both.estimate == pytest.approx(
        ((stats.t.ppf(0.995, 2) * se) ** 2 + 2.5758 ** 2 * (0.01 ** 2 + gpu ** 2)) ** 0.5,
        rel=1e-6)
    verdict, note = decide(known, 0.05)
    assert verdict == NOT_GATEABLE and "its known systematic error alone detects 6.6%" in note


def process(level, n=10, spread=0.001, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(float(x) for x in level * (1 + spread * rng.standard_normal(n)))


def baseline_of(levels, n=10, spread=0.001, seed=0):
    return [process(level, n, spread, seed + i) for i, level in enumerate(levels)]


WALLS = {"individual": 14.0, "graph": 4.3}


def record_of(processes=3, wall_factor=1.0, seed=0, info=None, rounds=10):
    walls = {m: us * wall_factor for m, us in WALLS.items()}
    runs = [make_run(walls, rounds=rounds, seed=seed + i) for i in range(processes)]
    return make_record(walls, rounds=rounds, runs=runs, info=info)


def by_metric(comparison):
    return {v.metric: v for v in comparison.verdicts}


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
    other = between_processes(base, [(2.0,) * 5], True, gpu_spread=0.0075)  # the H200's
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
    moved = between_processes(base, [(2.0 * 1.013,) * 5], True, gpu_spread=0.0075)
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
    from graphbench.stats.intervals import robust_scale

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
    slow_host = tuple(dataclasses.replace(c, cpu_probe_us=c.cpu_probe_us * 2)
                      for c in cur.runs[0].conditions)
    cur = dataclasses.replace(cur, runs=(dataclasses.replace(cur.runs[0],
                                                             conditions=slow_host),))
    comparison = compare_records(base, cur)
    verdicts = by_metric(comparison)
    assert verdicts["graph.wall"].verdict == NOT_GATEABLE
    assert verdicts["graph.wall"].note.startswith("host-bound: the host's CPUs ran at another "
                                                  "speed (probe 300 vs 600 us)")
    assert verdicts["individual.busy"].verdict != NOT_GATEABLE


T995_5, T95_5 = 4.032143, 2.015048   # Student's t quantiles at 5 df (tables)


def t_quantile(p, df):
    assert df == 5
    return {0.995: T995_5, 0.95: T95_5}[p]


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


def _processes(seed, host_probe_us=300.0, count=3, **config):
    record = make_record({"individual": 14.0, "graph": 4.3}, rounds=10, **config)
    runs = [make_run({"individual": 14.0, "graph": 4.3}, rounds=10, seed=seed + p,
                     host_probe_us=host_probe_us, config=record.config) for p in range(count)]
    return with_runs(record, *runs)


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
    gpu = math.sqrt(2) * UNMEASURED.busy  # a model not measured: the largest spread
    half2 = math.hypot(t_quantile(0.995, df) * se, Z_GATE * gpu)
    one_sided = math.hypot(t_quantile(0.95, df) * se * margin, Z_POWER * gpu)
    assert gpus.high - gpus.estimate == pytest.approx(half2, rel=1e-5)
    assert gpus.bound == pytest.approx(one_sided, rel=1e-5)
    assert gpus.detectable == pytest.approx(4 * one_sided, rel=1e-5)
    assert gpus.scope == "between 4 baseline and 3 current process(es), two physical GPUs"


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


def test_a_clock_check_between_two_gpus_allows_for_their_spread_in_cycles_too():
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


def test_the_clock_check_between_two_h200s_allows_for_the_h200s_spread_not_the_largest():
    def on(gpu, busy_us, clock, seed):
        record = _clocked(busy_us, clock, seed)
        return dataclasses.replace(record, device=device_info("NVIDIA H200", uuid=gpu))

    # time +9%, cycles +7.4% (the clock 1.5% lower): both slower at 7.4% with the H200's
    # 0.75% a GPU (detects 7.0%); the largest spread of any model would leave cycles short
    base, cur = on("GPU-a", 3.0, 2000.0, 10), on("GPU-b", 3.0 * 1.09, 1970.0, 20)
    (busy,) = compare_records(base, cur, [parse_spec("graph.busy:7.4%")]).verdicts
    (cycles,) = compare_records(base, cur, [parse_spec("graph.cycles:7.4%")]).verdicts
    assert busy.verdict == SLOWER and "SM clock differs" not in busy.note
    assert cycles.verdict == SLOWER and cycles.detectable < 0.074


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
    assert speedup.note.startswith("host-bound: the host's CPUs ran at another speed (probe 300 "
                                   "vs 400 us)")


def _on_gpu_with_reference(gpu, busy_us, stream_us, seed, rounds=10):
    """Three processes on GPU `gpu` whose every set read busy time busy_us and the GPU
    reference's stream copy stream_us (each scattered 0.01%)."""
    rng = np.random.default_rng(seed)
    record = _clocked(busy_us, 1980.0, seed, rounds=rounds)
    runs = tuple(dataclasses.replace(run, conditions=tuple(dataclasses.replace(c, reference={
        "stream": BusyReading(stream_us * (1 + 1e-4 * rng.standard_normal()), 100.0, True,
                              1980.0)}) for c in run.conditions)) for run in record.runs)
    return dataclasses.replace(record, runs=runs, device=device_info(uuid=gpu))


def _reference_note(base, cur):
    """How the busy time was judged, then (one note beside the other) that the
    graph's busy time is the individual launches' series too."""
    b, c = (float(np.median(r.samples("graph", "relbusy"))) for r in (base, cur))
    return (f"two physical GPUs: judged over the GPU reference (busy / stream copy, {b:.4f} vs "
            f"{c:.4f}); {shared_busy_note(cur, 'graph.busy')}")


def test_busy_time_on_another_gpu_is_judged_over_the_gpu_reference():
    """A GPU 12% slower at everything, its stream copy too: busy time over the reference is
    the same, so the pair passes, showing the busy times themselves and both ratios."""
    base = _on_gpu_with_reference("GPU-a", 3.0, 6.0, 10)
    cur = _on_gpu_with_reference("GPU-b", 3.36, 6.72, 20)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:10%")]).verdicts
    assert verdict.metric == "graph.busy" and verdict.gated and verdict.threshold == "10%"
    assert verdict.verdict == SAME
    assert verdict.baseline == pytest.approx(3.0, rel=1e-3)
    assert verdict.current == pytest.approx(3.36, rel=1e-3)
    assert verdict.change == pytest.approx(0.0, abs=1e-3)
    assert verdict.note == _reference_note(base, cur)
    # without the reference the same pair is 12% slower in busy time
    plain = compare_records(_clocked(3.0, 1980.0, 10), _clocked(3.36, 1980.0, 20),
                            [parse_spec("graph.busy:10%")]).verdicts[0]
    assert plain.verdict == SLOWER


def test_busy_time_slower_than_the_gpu_reference_on_another_gpu_fails():
    """Busy time 25% up while the reference's copy stays: slower, judged over the reference
    with the spread of that ratio between GPUs (0.6% each, sqrt(2) of it for two)."""
    base = _on_gpu_with_reference("GPU-a", 3.0, 6.0, 10)
    cur = _on_gpu_with_reference("GPU-b", 3.75, 6.0, 20)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:10%")]).verdicts
    assert verdict.verdict == SLOWER and verdict.gated
    assert verdict.metric == "graph.busy" and verdict.threshold == "10%"
    assert verdict.change == pytest.approx(0.25, rel=1e-3)
    assert verdict.baseline == pytest.approx(3.0, rel=1e-3)
    assert verdict.current == pytest.approx(3.75, rel=1e-3)
    assert verdict.note == _reference_note(base, cur)
    assert verdict.scope == "between 3 baseline and 3 current process(es)"
    # what that spread alone lets the pair detect: about 5.6%
    assert verdict.detectable == pytest.approx(0.0558, abs=5e-4)
    ungated = compare_records(base, cur, [parse_spec("graph.busy:10%", gated=False)]).verdicts[0]
    assert not ungated.gated and ungated.verdict == SLOWER


@pytest.mark.parametrize("model, detects", [
    ("NVIDIA H200", 0.0558),             # busy over the copy scatters 0.6% a GPU
    ("NVIDIA H100 80GB HBM3", 0.0233),   # 0.25%: the copy follows busy's two groups
    ("NVIDIA A100-SXM4-80GB", 0.0558)])  # not measured: the largest spread
def test_busy_time_between_two_gpus_carries_the_spread_of_their_model(model, detects):
    def on(gpu, busy_us, seed):
        record = _on_gpu_with_reference(gpu, busy_us, 6.0, seed)
        return dataclasses.replace(record, device=dataclasses.replace(record.device, name=model))

    over_reference = compare_records(on("GPU-a", 3.0, 10), on("GPU-b", 3.18, 20),
                                     [parse_spec("graph.busy:5%")]).verdicts[0]
    assert over_reference.detectable == pytest.approx(detects, abs=5e-4)
    # +6% at a 5% gate: slower on H100s, which detect 2.3%; the H200's 5.6% cannot gate 5%
    assert over_reference.verdict == (SLOWER if detects < 0.05 else NOT_GATEABLE)
    plain = [dataclasses.replace(_clocked(busy, 1980.0, seed), device=device_info(
        name=model, uuid=gpu)) for busy, seed, gpu in ((3.0, 10, "GPU-a"), (3.18, 20, "GPU-b"))]
    busy = compare_records(*plain, [parse_spec("graph.busy:5%")]).verdicts[0]
    assert busy.detectable == pytest.approx(6.58 * 2 ** 0.5 * spread_of(model).busy, rel=0.02)


def test_the_gpu_reference_judges_busy_time_from_three_sets_a_process():
    """Three sets of readings in every process are enough to judge over the reference;
    with two the busy times are judged as they are (and too few to gate)."""
    for rounds, over_reference in ((3, True), (2, False)):
        base = _on_gpu_with_reference("GPU-a", 3.0, 6.0, 10, rounds=rounds)
        cur = _on_gpu_with_reference("GPU-b", 3.75, 6.0, 20, rounds=rounds)
        (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:10%")]).verdicts
        assert (verdict.note == _reference_note(base, cur)) == over_reference


# --- the note's advice: how many processes would make a pair gateable ------------------

NOISY_ROUNDS = (1.0, 0.98, 1.02, 0.99, 1.01)   # median exactly 1, its own noise well above 1e-4


def _quiet_base_noisy_current(n_base, n_cur):
    """Baseline processes of constant rounds against current processes of noisy rounds, all
    medians 1.0: each side's variance is its own (the current's far the larger)."""
    return between_processes([(1.0,) * 5] * n_base, [NOISY_ROUNDS] * n_cur, False)


def test_the_advice_names_the_fewest_baseline_processes_that_would_gate():
    """Its answer N is the first baseline whose pair detects the threshold: a pair of N
    baseline processes gates it, one of N - 1 does not; a threshold met exactly counts."""
    advice = _quiet_base_noisy_current(3, 2).advice
    for n in (4, 5, 10, 63, 64):
        said = f"a baseline of {n} processes (--processes {n}) would make it gateable"
        assert advice(_quiet_base_noisy_current(n, 2).detectable) == said, n
        assert advice(_quiet_base_noisy_current(n - 1, 2).detectable * (1 - 1e-12)) == said, n
    # past 64 baseline processes the advice turns to the current: 4 against 4 are enough
    assert advice(_quiet_base_noisy_current(65, 2).detectable) == (
        "a current of 4 processes against a baseline of 4 (--processes) would make it gateable")


def test_where_no_baseline_is_enough_the_advice_names_the_fewest_current_processes():
    """The current's own variance, divided by its 2 processes, stays whatever the baseline:
    the advice asks for more current processes against a baseline at least as large, up to
    64 each."""
    exact = _quiet_base_noisy_current(10, 2).detectable   # a threshold met exactly counts
    assert _quiet_base_noisy_current(10, 1).advice(exact) == (
        "a current of 2 processes against a baseline of 10 (--processes) would make it gateable")
    advice = _quiet_base_noisy_current(10, 2).advice
    for n in (3, 4, 63, 64):
        threshold = _quiet_base_noisy_current(max(10, n), n).detectable * (1 + 1e-12)
        assert advice(threshold) == (f"a current of {n} processes against a baseline of "
                                     f"{max(10, n)} (--processes) would make it gateable"), n
    beyond = _quiet_base_noisy_current(65, 65).detectable * (1 + 1e-12)
    assert advice(beyond) == "not even 64 processes on each side would make it gateable"


def test_a_known_error_that_alone_detects_the_threshold_needs_no_count_of_processes():
    """No number of processes shrinks a known systematic error: a threshold at or below
    what it alone detects, 2 (z95 + z95) sd, gets no count, and the spread between two
    physical GPUs is told to compare on the baseline's GPU."""
    from graphbench.gate.compare import Z_BOUND

    base = [(2.0 * (1 + 0.001 * i),) * 5 for i in (-1, 0, 1)]
    known = between_processes(base, [(2.0,) * 5], False, systematic=0.01).advice
    floor = 2 * (Z_BOUND + Z_POWER) * 0.01
    for threshold in (floor, 0.05):
        assert known(threshold) == ("no number of processes can make it gateable: its known "
                                    "systematic error alone detects 6.6%")
    gpus = between_processes(base, [(2.0,) * 5], True, gpu_spread=0.0075).advice
    assert gpus(0.05) == ("no number of processes can make it gateable: the spread between two "
                          "physical GPUs alone detects 7.0% (compare on the baseline's GPU)")


# --- a process's own noise, short currents, version-1 records -------------------------

def test_a_median_of_readings_on_a_timer_grid_is_never_steadier_than_a_tick():
    """Nine rounds of one tick value and one a tick above: no spread to read, but the
    median is on the grid, off by up to half a tick: tick / sqrt(12)."""
    assert median_noise([2.0] * 9 + [2.5]) == pytest.approx(0.5 / math.sqrt(12), rel=1e-12)
    assert median_noise([2.0] * 10) == 0.0


@pytest.mark.parametrize("side", [1, -1])
def test_far_outlier_rounds_weigh_in_the_autocorrelation_as_rounds_at_four_sds(side):
    """Two adjacent outlier rounds, however far out, count as two rounds at 4 robust sds
    from the median: they cannot stretch the noise by a correlation of their own."""
    from graphbench.stats.intervals import robust_scale

    rng = np.random.default_rng(0)
    far = rng.standard_normal(200)
    far[7:9] = side * 1000.0
    at_four = far.copy()
    at_four[7:9] = float(np.median(far)) + side * 4 * robust_scale(far)
    assert median_noise(far) == median_noise(at_four)
    assert median_noise(far) < 1.2533 * robust_scale(far) / math.sqrt(200) * 1.3


def test_a_current_of_fewer_than_three_rounds_is_not_gateable_but_shows_its_change():
    base = [(2.0,) * 5] * 3
    short = between_processes(base, [(3.0, 3.0)], False)
    assert not short.valid and short.estimate == 0.5
    assert short.reason == ("a current process of 2 round(s): its median scatters by more than "
                            "it can show; run 3 or more rounds")
    zero = between_processes([(0.0,) * 5] * 3, [(3.0, 3.0)], False)
    assert not zero.valid and math.isnan(zero.estimate) and "2 round(s)" in zero.reason
    # a version-1 record's process is its median alone: its count of rounds says nothing
    medians = between_processes(base, [(3.0,)], False, medians_only=True)
    assert medians.valid and medians.estimate == 0.5


def test_version_1_records_are_judged_from_their_process_medians():
    """A version-1 record of 5 processes kept only each process's median: against itself
    its GPU times and graph wall time are the same, between 5 and 5 processes."""
    v1 = read_record(str(RECORDS / "h200" / "v1" / "baseline.json"))
    assert v1.legacy_processes is not None
    verdicts = by_metric(compare_records(v1, v1))
    for metric in ("individual.busy", "fused.busy"):
        assert verdicts[metric].verdict == SAME, metric
        assert verdicts[metric].scope == "between 5 baseline and 5 current process(es)"
    # it read no probe of its host's CPU speed, so no host state can be matched
    assert verdicts["graph.wall"].verdict == NOT_GATEABLE


def test_a_not_gateable_verdict_states_no_resolution():
    verdict = verdict_on(parse_spec("graph.wall:5%"), unjudgeable("too few"), [(2.0,) * 3],
                         [(3.0,) * 3], True)
    assert verdict.verdict == NOT_GATEABLE and verdict.resolution is None
    judged = verdict_on(parse_spec("graph.wall:5%"), between_processes(
        [(2.0,) * 5] * 3, [(2.0,) * 5], False), [(2.0,) * 5] * 3, [(2.0,) * 5], True)
    assert judged.verdict == SAME and judged.resolution == pytest.approx(1e-4)


# --- host-bound figures: like with like, as measured (graphbench.gate.host_match) ---

def _slower_launches(record, factor: float, cpu: float = 1.0):
    """The record with every launch slower by `factor` (individual wall and the
    launch probe) and the host's CPUs `cpu` times slower, as measured."""
    runs = []
    for run in record.runs:
        modes = {**run.modes, "individual": dataclasses.replace(
            run.modes["individual"],
            wall_us=tuple(w * factor for w in run.modes["individual"].wall_us))}
        conditions = tuple(dataclasses.replace(c, host_probe_us=c.host_probe_us * factor,
                                               cpu_probe_us=c.cpu_probe_us * cpu)
                           for c in run.conditions)
        runs.append(dataclasses.replace(run, modes=modes, conditions=conditions))
    return dataclasses.replace(record, runs=tuple(runs))


def test_a_slower_launch_path_reads_slower_on_its_walls_and_the_launch_floor():
    """A delay inside every launch slows the launch probe too: judged as measured on
    the same host in the same CPU state, nothing divides it away."""
    base = _processes(1)
    cur = _slower_launches(_processes(9, count=1), 1.2)
    verdicts = by_metric(compare_records(base, cur))
    assert verdicts["individual.wall"].verdict == SLOWER
    assert verdicts["floor.launch"].verdict == SLOWER
    assert verdicts["graph.wall"].verdict == SAME


def test_a_slower_launch_path_on_a_slower_host_state_is_never_same():
    """The same delay while the host's CPUs also ran slower: not judged (another
    state), and never `same`."""
    cur = _slower_launches(_processes(9, count=1), 1.2, cpu=1.5)
    verdicts = by_metric(compare_records(_processes(1), cur))
    for metric in ("individual.wall", "floor.launch"):
        assert verdicts[metric].verdict == NOT_GATEABLE, metric
        assert "--ab" in verdicts[metric].note


@pytest.mark.parametrize("change, said", [
    (dict(device=device_info(uuid="GPU-11111111-other")), "different machines"),
    (dict(host=dataclasses.replace(make_record().host, hostname="other")), "different hosts"),
])
def test_another_machine_makes_host_bound_figures_not_gateable_and_gpu_time_judged(change, said):
    cur = dataclasses.replace(_processes(9, count=1), **change)
    verdicts = by_metric(compare_records(_processes(1), cur))
    assert verdicts["individual.wall"].verdict == NOT_GATEABLE
    assert said in verdicts["individual.wall"].note
    assert "host-bound" not in verdicts["individual.busy"].note  # GPU time: judged by its own rule


def test_a_record_without_a_cpu_probe_cannot_judge_host_bound_figures():
    cur = _processes(9, count=1)
    run = cur.runs[0]
    unread = tuple(dataclasses.replace(c, cpu_probe_us=None) for c in run.conditions)
    cur = dataclasses.replace(cur, runs=(dataclasses.replace(run, conditions=unread),))
    verdict = by_metric(compare_records(_processes(1), cur))["graph.wall"]
    assert verdict.verdict == NOT_GATEABLE and "no reading of its host's CPU speed" in verdict.note


def test_medians_beyond_the_threshold_are_never_same():
    """Fail closed both ways: a model of the noise that says `same` is overruled
    where the medians themselves differ by more than the threshold."""
    spec = parse_spec("graph.wall:10%")
    quiet = Change(0.0, -0.01, 0.01, 0.02, scope="test")  # says: no change at all
    verdict = verdict_on(spec, quiet, [(4.0,) * 5] * 3, [(4.8,) * 5], True)
    assert verdict.verdict == NOT_GATEABLE and verdict.note.startswith(WORSE_AS_MEASURED)
    assert "+20.0%" in verdict.note and "the processes read same" in verdict.note
    within = verdict_on(spec, quiet, [(4.0,) * 5] * 3, [(4.2,) * 5], True)
    assert within.verdict == SAME


def test_a_noisy_pair_worse_beyond_the_threshold_does_not_pass_the_gate():
    """A like-with-like pair too noisy to judge, whose medians are 20% worse:
    not gateable, and the gate fails closed (RecordError, the CLI's exit 2)
    where it would pass a quiet metric beside it."""
    from graphbench.gate.judge import check_decidable
    from graphbench.record.model import Comparison

    spec = parse_spec("individual.wall:10%")
    noisy = Change(0.2, -0.3, 0.7, 0.5, scope="test")
    worse = verdict_on(spec, noisy, [(4.0,) * 5] * 3, [(4.8,) * 5], True)
    assert worse.verdict == NOT_GATEABLE and worse.note.startswith(WORSE_AS_MEASURED)
    better = verdict_on(spec, noisy, [(4.0,) * 5] * 3, [(3.2,) * 5], True)
    assert better.verdict == NOT_GATEABLE and not better.note.startswith(WORSE_AS_MEASURED)
    quiet = verdict_on(parse_spec("graph.wall:10%"), Change(0.0, -0.01, 0.01, 0.02),
                       [(4.0,) * 5] * 3, [(4.0,) * 5], True)
    check_decidable(Comparison((quiet, better), (), ()))  # judged one, nothing worse: passes
    with pytest.raises(RecordError, match="cannot judge individual.wall: worse as measured"):
        check_decidable(Comparison((quiet, worse), (), ()))
    not_like = verdict_on(spec, unjudgeable("host-bound: the records ran on different hosts"),
                          [(4.0,) * 5] * 3, [(4.8,) * 5], True)
    assert not_like.note.startswith("host-bound")  # a pair not like with like keeps its reason


def test_cycles_from_fewer_than_three_clocked_sets_a_process_cannot_confirm_a_verdict():
    """The clock was read on only 2 sets of each current process: its busy time is judged
    from all 10, but its cycles, busy time at the clock, are 2 a process: too few to judge,
    so a verdict the moved clock puts in doubt is not gateable."""
    base = _clocked(3.0, 1980.0, 10)
    cur = _clocked(3.0, 1980.0 / 1.05, 20)
    runs = tuple(dataclasses.replace(run, conditions=tuple(dataclasses.replace(c, busy={
        w: dataclasses.replace(r, sm_clock_mhz=r.sm_clock_mhz if i < 2 else None)
        for w, r in c.busy.items()}) for i, c in enumerate(run.conditions))) for run in cur.runs)
    (verdict,) = compare_records(base, dataclasses.replace(cur, runs=runs),
                                 [parse_spec("graph.busy:2%")]).verdicts
    assert verdict.verdict == NOT_GATEABLE
    assert verdict.note.startswith("SM clock differs (1980 vs 1886 MHz): same in time but "
                                   "not gateable in cycles (")


def test_a_note_joins_the_verdict_s_own_once():
    from graphbench.gate.compare import with_note
    from graphbench.record.model import Verdict

    bare = Verdict("graph.wall", SAME, True, "10%")
    assert with_note(bare, "") is bare
    assert with_note(bare, "judged so").note == "judged so"
    noted = dataclasses.replace(bare, note="why it reads so")
    assert with_note(noted, "judged so").note == "why it reads so; judged so"
    assert with_note(noted, "why it reads so") is noted
    assert with_note(noted, "") is noted


def test_a_clock_that_moved_keeps_the_note_the_verdict_had():
    """Busy time on another GPU model whose clock moved: not gateable for the
    clock, and still shown, not gated, for the hardware."""
    base = _clocked(3.0, 1980.0, 10)
    other = dataclasses.replace(_clocked(3.15, 1980.0 / 1.05, 20),
                                device=device_info("NVIDIA H100 80GB HBM3"))
    (verdict,) = compare_records(base, other, [parse_spec("graph.busy:2%")]).verdicts
    assert verdict.verdict == NOT_GATEABLE and not verdict.gated
    assert verdict.note.startswith("SM clock differs (1980 vs 1886 MHz): slower in time but "
                                   "same in cycles (")
    assert "; different hardware: shown, not gated; " in verdict.note


def test_busy_over_the_gpu_reference_keeps_its_note_beside_a_verdict_s_own():
    """Not gateable at a threshold no pair of GPUs can meet, and judged over the reference."""
    base = _on_gpu_with_reference("GPU-a", 3.0, 6.0, 10)
    cur = _on_gpu_with_reference("GPU-b", 3.36, 6.72, 20)
    (verdict,) = compare_records(base, cur, [parse_spec("graph.busy:0.01%")]).verdicts
    assert verdict.verdict == NOT_GATEABLE
    assert verdict.note.startswith("not gateable on this pair: it detects ")
    assert verdict.note.endswith("; " + _reference_note(base, cur))


def _two_state_baseline():
    """5 processes: 3 with the CPUs in a fast state (probe 600 us), 2 in a
    slow one (900 us) where individual launches cost 30% more."""
    record = make_record({"individual": 14.0, "graph": 4.3}, rounds=10)
    fast = [make_run({"individual": 14.0, "graph": 4.3}, rounds=10, seed=p, host_probe_us=600.0,
                     config=record.config) for p in range(3)]
    slow = [make_run({"individual": 18.2, "graph": 4.3}, rounds=10, seed=10 + p,
                     host_probe_us=900.0, config=record.config) for p in range(2)]
    return with_runs(record, *fast, *slow)


def test_a_two_state_baseline_is_judged_by_its_processes_in_the_current_s_state():
    base = _two_state_baseline()
    spec = [parse_spec("individual.wall:10%")]
    fast = with_runs(base, make_run({"individual": 14.0, "graph": 4.3}, rounds=10, seed=20,
                                    host_probe_us=600.0, config=base.config))
    (verdict,) = compare_records(base, fast, spec).verdicts
    assert verdict.verdict == SAME and "3 of 5 processes in the current's CPU" in verdict.note
    whole = compare_records(dataclasses.replace(base, runs=base.runs[:3] + base.runs[3:4]),
                            fast, spec).verdicts[0]
    assert "of 4 processes" in whole.note  # 3 of 4 match: still the matching ones
    slower = with_runs(base, make_run({"individual": 15.4, "graph": 4.3}, rounds=10, seed=21,
                                      host_probe_us=600.0, config=base.config))
    assert compare_records(base, slower, spec).verdicts[0].verdict == SLOWER  # +10% caught
    # in the slow state only 2 baseline processes match: too few, and the whole
    # baseline's probe median is the fast state's, so the pair is not like with like
    slow = with_runs(base, make_run({"individual": 18.2, "graph": 4.3}, rounds=10, seed=22,
                                    host_probe_us=900.0, config=base.config))
    (refused,) = compare_records(base, slow, spec).verdicts
    assert refused.verdict == NOT_GATEABLE and "another speed (probe 600 vs 900 us)" in \
        refused.note
