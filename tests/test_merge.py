import dataclasses
import json

import pytest
from conftest import make_record

from graphbench.gate.compare import compare_records
from graphbench.gate.decide import SLOWER
from graphbench.stats.merge import merge_runs
from graphbench.stats.metrics import process_values
from graphbench.gate.specs import parse_spec
from graphbench.stats.summary import summarize_run
from graphbench.errors import RecordError
from graphbench.record.model import LegacyProcesses
from tests_helpers import scaled_busy


def test_merging_concatenates_the_runs_in_process_order():
    records = [make_record(seed=i) for i in range(3)]
    merged = merge_runs(records)
    assert merged.runs == tuple(r.runs[0] for r in records)
    assert merged.process_count == 3 and merged.rounds == 30
    assert merged.samples("graph", "wall") == tuple(w for r in records
                                                    for w in r.samples("graph", "wall"))
    summary = summarize_run(merged)
    assert len(summary.speedup["graph"].per_round) == 30
    assert summary.lifecycle.capture_us.n == 9
    assert len(merged.checks) == 3 and merged.verified
    assert merged.checks[1].name == "process 2: graph"


def test_merged_noise_sees_the_spread_between_processes():
    fast = [make_record({"individual": 12.5, "graph": 6.2}, seed=i, rounds=60) for i in range(2)]
    slow = [make_record({"individual": 17.0, "graph": 6.3}, seed=10 + i, rounds=60)
            for i in range(2)]
    merged = merge_runs(fast + slow)
    assert max(summarize_run(r).noise for r in fast + slow) < 0.01
    assert summarize_run(merged).noise > 0.1


def test_a_gate_against_a_merged_baseline_calls_process_drift_noise_not_regression():
    fast = [make_record({"individual": 12.5, "graph": 6.2}, seed=i, rounds=20) for i in range(2)]
    slow = [make_record({"individual": 17.0, "graph": 6.3}, seed=10 + i, rounds=20)
            for i in range(2)]
    current = make_record({"individual": 13.0, "graph": 6.2}, seed=99, rounds=20)
    three_slow = slow + [make_record({"individual": 17.1, "graph": 6.3}, seed=20, rounds=20)]
    single = compare_records(merge_runs(three_slow), current, [parse_spec("speedup:10%")])
    assert single.verdicts[0].verdict == "slower"  # a one-phase baseline calls the phase a change
    merged = compare_records(merge_runs(slow + fast), current)
    assert merged.passed
    assert {v.metric: v.verdict for v in merged.verdicts}["speedup"] == "not gateable"
    # a real regression of GPU time is still caught against the merged baseline
    regressed = scaled_busy(make_record({"individual": 13.0, "graph": 6.2}, seed=98, rounds=20),
                            1.12)
    gate = compare_records(merge_runs(slow + fast), regressed)
    verdicts = {v.metric: v.verdict for v in gate.verdicts}
    assert verdicts["individual.busy"] == SLOWER and not gate.passed


def test_runs_with_different_configurations_do_not_merge():
    with pytest.raises(RecordError, match="elements"):
        merge_runs([make_record(), make_record(elements=65536)])


def test_a_child_process_receives_the_configuration_as_json(tmp_path):
    from graphbench.config import RunConfig
    from graphbench.record.codec import decode, parse_json, to_json

    config = RunConfig(elements=65536, iters=None, rounds=12, depth=2, stages=("mul", "add"),
                       max_noise=0.005, max_time=3.5, flush_l2=True, pin_cpu=False, device=0,
                       kernel_source="k.cu", seed=7)
    text = json.dumps(to_json(config))
    assert decode(RunConfig, parse_json(text, "child"), "config") == config  # iters=None kept


def test_a_child_with_an_unreadable_config_exits_2_with_one_line(tmp_path, capsys):
    from graphbench.cli.child import main

    bad = tmp_path / "config.json"
    bad.write_text('{"elements": "many"}')
    assert main([str(bad), str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "config.elements: expected a whole number" in err[0]


@pytest.mark.parametrize("argv", [["c.json"], ["c.json", "r.json", "3"],
                                  ["c.json", "r.json", "go", "timed"]])
def test_a_child_called_wrongly_exits_2_with_its_usage(argv, capsys):
    from graphbench.cli.child import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["usage: python -m graphbench.cli.child CONFIG.json RECORD.json "
                   "[GO_FD TIMED_FD]"]


def test_the_between_process_interval_is_students_t_on_the_process_medians():
    from scipy import stats

    from graphbench.gate.compare import between_processes

    medians = [12.2, 14.5, 15.8, 17.4, 15.0]
    # one value per process: each is a process's median, as a version-1 record keeps
    change = between_processes([(m,) for m in medians], [(16.0,)], other_gpu=False,
                               medians_only=True)
    se = 1.90316 * (1 + 1 / 5) ** 0.5 / 14.98  # sample sd of the medians, one current process
    assert change.estimate == pytest.approx(16.0 / 14.98 - 1, rel=1e-6)
    assert change.high - change.estimate == pytest.approx(stats.t.ppf(0.995, 4) * se, rel=1e-3)
    margin = 1 + 1 / 8 ** 0.5  # the noise estimate's own error at 4 degrees of freedom
    # the smallest threshold it gates: two one-sided 95% widths each side of T/2
    assert change.detectable == pytest.approx(4 * stats.t.ppf(0.95, 4) * se * margin, rel=1e-3)
    two = between_processes([(m,) for m in medians], [(16.0,), (15.0,)], other_gpu=False,
                            medians_only=True)
    pooled = ((4 * 1.90316 ** 2 + 0.5) / 5) ** 0.5 * (1 / 5 + 1 / 2) ** 0.5 / 14.98
    assert two.high - two.estimate == pytest.approx(stats.t.ppf(0.995, 5) * pooled, rel=1e-3)
    other = between_processes([(m,) for m in medians], [(16.0,)], other_gpu=True,
                              medians_only=True)
    assert other.high - other.estimate > change.high - change.estimate


def test_a_new_process_inside_the_baselines_process_spread_is_not_a_regression():
    """Seen on the H200: a 5-process baseline, then one process 15% slower in
    launch-bound walls while its GPU time was unchanged."""
    walls = [12.2, 14.5, 15.8, 17.4, 15.0]
    baseline = merge_runs([make_record({"individual": w, "graph": 6.3, "fused": w / 3}, seed=i,
                                       rounds=20) for i, w in enumerate(walls)])
    assert len(process_values(baseline, "individual.wall")) == 5
    current = make_record({"individual": 18.1, "graph": 6.3, "fused": 6.0}, seed=50, rounds=20)
    gate = compare_records(baseline, current)
    verdicts = {v.metric: v for v in gate.verdicts}
    assert gate.passed and verdicts["individual.wall"].verdict == "not gateable"
    assert "it detects" in verdicts["individual.wall"].note  # not gateable at 10% on this pair
    # the GPU's busy time is steady across processes, so +11% there still fails
    gate = compare_records(baseline, scaled_busy(current, 1.11))
    assert not gate.passed and "individual.busy" in [v.metric for v in gate.regressions]


def test_processes_that_chose_their_own_iterations_still_merge():
    records = [make_record(seed=1, iters=120), make_record(seed=2, iters=140)]
    assert merge_runs(records).process_count == 2


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
