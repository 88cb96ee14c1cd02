"""The regression gate on record files kept under tests/records/."""

import dataclasses
import json
from pathlib import Path

import pytest

from graphbench.cli import main
from graphbench.analyze.compare import (AMBIGUOUS, FASTER, SAME, SLOWER, compare_records, judge,
                                mann_whitney_p, parse_spec)
from graphbench.errors import UsageError
from graphbench.record.codec import read_run as read_record

RECORDS = Path(__file__).resolve().parent / "records"


def path(name):
    return str(RECORDS / f"{name}.json")


def verdicts(name, specs=None):
    comparison = compare_records(read_record(path("baseline")), read_record(path(name)), specs)
    return comparison, {v.metric: v for v in comparison.verdicts}


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
    out, err = capsys.readouterr()
    assert "FAIL: regression in speedup, graph.wall" in err
    _, by_metric = verdicts("graph_slower_20")
    assert by_metric["graph.wall"].verdict == SLOWER
    assert by_metric["graph.wall"].change == pytest.approx(0.2, abs=0.02)
    assert by_metric["speedup"].verdict == SLOWER
    assert by_metric["individual.wall"].verdict == SAME


def test_a_20_percent_improvement_passes():
    comparison, by_metric = verdicts("graph_faster_20")
    assert comparison.passed
    assert by_metric["graph.wall"].verdict == FASTER and by_metric["speedup"].verdict == FASTER


def test_a_2_percent_change_within_noise_is_same():
    comparison, by_metric = verdicts("within_noise_2", [parse_spec("graph.wall:10%"),
                                                         parse_spec("speedup:5%")])
    assert comparison.passed
    assert by_metric["graph.wall"].verdict == SAME and by_metric["speedup"].verdict == SAME


def test_a_noisy_record_is_ambiguous_not_slower():
    comparison, by_metric = verdicts("noisy_graph_slower")
    assert comparison.passed
    assert by_metric["graph.wall"].verdict == AMBIGUOUS
    assert by_metric["graph.wall"].note


def test_another_device_model_gates_only_the_speedup(capsys):
    assert main(["compare", path("baseline"), path("other_device_slower_times")]) == 0
    out = capsys.readouterr().out
    assert "different device or driver" in out and "not gated" in out
    _, by_metric = verdicts("other_device_slower_times")
    assert by_metric["graph.wall"].verdict == SLOWER and not by_metric["graph.wall"].gated
    assert by_metric["speedup"].gated and by_metric["speedup"].verdict == SAME


def test_different_configuration_is_incompatible_and_exits_2(capsys):
    assert main(["compare", path("baseline"), path("other_elements")]) == 2
    captured = capsys.readouterr()
    assert "incompatible" in captured.out
    assert "not comparable: elements 4096 vs 65536" in captured.err


@pytest.mark.parametrize("name, message", [("corrupted", "not valid JSON"),
                                           ("truncated", "not valid JSON"),
                                           ("future_schema", "schema version 99")])
def test_unreadable_records_exit_2_with_one_line(capsys, name, message):
    assert main(["compare", path("baseline"), path(name)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_exits_2(capsys, tmp_path):
    assert main(["compare", path("baseline"), str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_fail_on_specs_parse_and_reject_nonsense():
    spec = parse_spec("individual.wall:0.5us")
    assert (spec.metric, spec.threshold, spec.relative) == ("individual.wall", 0.5, False)
    assert parse_spec("speedup:5%").threshold == pytest.approx(0.05)
    for bad in ("speedup", "speedup:5", "graph.walls:5%", "speedup:1us", "graph.wall:2x"):
        with pytest.raises(UsageError):
            parse_spec(bad)


def test_absolute_threshold_in_microseconds():
    base = [4.3 + 0.001 * i for i in range(20)]
    cur = [x + 0.3 for x in base]  # +0.3 us, about 7%
    assert judge(parse_spec("graph.wall:0.5us"), base, cur, True).verdict == SAME
    assert judge(parse_spec("graph.wall:0.2us"), base, cur, True).verdict == SLOWER


def test_speedup_direction_higher_is_better():
    base = [3.0 + 0.001 * i for i in range(20)]
    assert judge(parse_spec("speedup:5%"), base, [x * 0.8 for x in base], True).verdict == SLOWER
    assert judge(parse_spec("speedup:5%"), base, [x * 1.2 for x in base], True).verdict == FASTER


def test_mann_whitney_matches_known_values():
    assert mann_whitney_p(range(10), range(10)) == pytest.approx(1.0, abs=0.05)
    assert mann_whitney_p(range(10), range(100, 110)) < 0.001
    # tied data: the normal approximation with tie correction (published value)
    tied = ([1, 2, 2, 3, 3, 3, 4, 9], [2, 3, 4, 4, 5, 5, 6, 6])
    assert mann_whitney_p(*tied) == pytest.approx(0.109819, rel=1e-4)
    assert mann_whitney_p([5.0] * 8, [5.0] * 8) == 1.0  # every value equal


def test_few_rounds_use_confidence_intervals():
    base, cur = [10.0, 10.1, 9.9, 10.0, 10.05], [13.0, 13.1, 12.9, 13.0, 13.05]
    verdict = judge(parse_spec("graph.wall:10%"), base, cur, True)
    assert verdict.verdict == SLOWER and verdict.p_value is None


def test_host_speed_difference_makes_host_bound_changes_ambiguous():
    baseline, current = read_record(path("baseline")), read_record(path("graph_slower_20"))
    run = current.runs[0]  # host ran 33% slower than for the baseline
    slower_host = tuple(dataclasses.replace(c, host_probe_us=400.0) for c in run.conditions)
    current = dataclasses.replace(current, runs=(dataclasses.replace(run, conditions=slower_host),))
    comparison = compare_records(baseline, current)
    by_metric = {v.metric: v for v in comparison.verdicts}
    assert by_metric["graph.wall"].verdict == AMBIGUOUS and "host CPU speed" in by_metric["graph.wall"].note
    assert by_metric["individual.busy"].verdict == SAME  # GPU time does not depend on the host
    assert comparison.passed


def test_markdown_and_json_outputs(tmp_path, capsys):
    md, js = tmp_path / "summary.md", tmp_path / "verdicts.json"
    assert main(["compare", path("baseline"), path("graph_slower_20"), "--markdown", str(md),
                 "--json", str(js)]) == 1
    text = md.read_text()
    assert "| metric | baseline | current | change | gate | verdict | note |" in text
    assert "| graph.wall |" in text and "slower" in text and "**FAIL" in text
    data = json.loads(js.read_text())
    assert data["passed"] is False and "graph.wall" in data["regressions"]


def test_run_rejects_gate_options_without_baseline(capsys):
    assert main(["run", "--fail-on", "speedup:5%"]) == 2
    assert "--fail-on and --markdown need --baseline" in capsys.readouterr().err


def test_run_with_unreadable_baseline_fails_before_running(capsys):
    assert main(["run", "--baseline", path("corrupted")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_a_slower_kernel_is_one_regression_not_two():
    """individual and graph modes run the same kernels: one busy series."""
    from conftest import make_record
    from tests_helpers import scaled_busy

    baseline = make_record(seed=1, rounds=20)
    slower = scaled_busy(make_record(seed=2, rounds=20), 1.12)
    comparison = compare_records(baseline, slower)
    regressions = [v.metric for v in comparison.regressions]
    assert regressions == ["individual.busy", "fused.busy"]
    busy = {v.metric: v for v in comparison.verdicts}["individual.busy"]
    assert busy.note == "GPU time of individual, graph (one series)"
    assert "graph.busy" not in {v.metric for v in comparison.verdicts}
