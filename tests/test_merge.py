import pytest
from conftest import make_record

from graphbench.compare import SLOWER, compare_records
from graphbench.errors import RecordError
from graphbench.merge import merge_runs


def test_merged_record_keeps_every_round_in_process_order():
    runs = [make_record(seed=i) for i in range(3)]
    merged = merge_runs(runs)
    assert merged["sampling"]["processes"] == 3 and merged["sampling"]["rounds"] == 30
    walls = merged["modes"]["graph"]["samples"]["wall_us"]
    assert walls == [w for r in runs for w in r["modes"]["graph"]["samples"]["wall_us"]]
    assert len(merged["speedup"]["graph"]["per_round"]) == 30
    assert merged["graph_lifecycle"]["capture_us"]["n"] == 9
    assert len(merged["verification"]["checks"]) == 3 and merged["verification"]["passed"]


def test_merged_noise_sees_the_spread_between_processes():
    fast = [make_record({"individual": 12.5, "graph": 6.2}, seed=i) for i in range(2)]
    slow = [make_record({"individual": 17.0, "graph": 6.3}, seed=10 + i) for i in range(2)]
    merged = merge_runs(fast + slow)
    assert max(r["sampling"]["noise"] for r in fast + slow) < 0.02
    assert merged["sampling"]["noise"] > 0.1


def test_a_gate_against_a_merged_baseline_calls_process_drift_noise_not_regression():
    fast = [make_record({"individual": 12.5, "graph": 6.2}, seed=i) for i in range(2)]
    slow = [make_record({"individual": 17.0, "graph": 6.3}, seed=10 + i) for i in range(2)]
    current = make_record({"individual": 13.0, "graph": 6.2}, seed=99)
    single = compare_records(slow[0], current)
    assert {v.metric: v.verdict for v in single.verdicts}["speedup"] == SLOWER
    merged = compare_records(merge_runs(slow + fast), current)
    assert merged.passed
    # a real regression of GPU time is still caught against the merged baseline
    regressed = make_record({"individual": 13.0, "graph": 6.2}, seed=98)
    for entry in regressed["modes"].values():
        entry["samples"]["busy_us"] = [x * 1.12 for x in entry["samples"]["busy_us"]]
    gate = compare_records(merge_runs(slow + fast), regressed)
    verdicts = {v.metric: v.verdict for v in gate.verdicts}
    assert verdicts["graph.busy"] == SLOWER and not gate.passed


def test_runs_with_different_configurations_do_not_merge():
    with pytest.raises(RecordError, match="elements"):
        merge_runs([make_record(), make_record(elements=65536)])


def test_child_command_line_reproduces_the_configuration():
    from graphbench.cli import build_parser, config_from_args
    from graphbench.config import RunConfig
    from graphbench.processes import child_argv

    config = RunConfig(elements=65536, iters=None, rounds=12, depth=2, stages=("mul", "add"),
                       max_noise=0.005, max_time=3.5, flush_l2=True, pin_cpu=False, device=0,
                       kernel_source="k.cu", seed=7)
    args = build_parser().parse_args(child_argv(config, seed=9, json_path="out.json"))
    again = config_from_args(args, device=args.device[0])
    assert again == RunConfig(**{**config.to_dict(), "stages": ("mul", "add"),
                                 "modes": ("individual", "graph"), "seed": 9,
                                 "iters": 1000})  # --iters is omitted when automatic
    assert args.json == "out.json" and args.no_progress


def test_prediction_noise_of_process_medians():
    from graphbench.stats import prediction_noise, t995

    assert prediction_noise([10.0, 10.0]) == 0.0  # too few processes to say
    assert prediction_noise([10.0] * 5) == 0.0
    medians = [12.2, 14.5, 15.8, 17.4, 15.0]
    sd = 1.90316  # sample standard deviation of the medians
    expected = t995(4) * sd * (1 + 1 / 5) ** 0.5 / 14.98
    assert prediction_noise(medians) == pytest.approx(expected, rel=1e-3)
    assert t995(4) == 4.604 and t995(11) == 3.055 and t995(1000) == 2.576


def test_a_new_process_inside_the_baselines_process_spread_is_not_a_regression():
    """Seen on the H200: a 5-process baseline, then one process 15% slower in
    launch-bound walls while its GPU time was unchanged."""
    walls = [12.2, 14.5, 15.8, 17.4, 15.0]
    baseline = merge_runs([make_record({"individual": w, "graph": 6.3, "fused": w / 3}, seed=i)
                           for i, w in enumerate(walls)])
    assert len(baseline["sampling"]["per_process_medians"]["individual.wall"]) == 5
    current = make_record({"individual": 18.1, "graph": 6.3, "fused": 6.0}, seed=50)
    gate = compare_records(baseline, current)
    verdicts = {v.metric: v for v in gate.verdicts}
    assert gate.passed and verdicts["individual.wall"].verdict != SLOWER
    assert verdicts["individual.wall"].noise > 0.15
    # the GPU's busy time is steady across processes, so +11% there still fails
    for entry in current["modes"].values():
        entry["samples"]["busy_us"] = [x * 1.11 for x in entry["samples"]["busy_us"]]
    gate = compare_records(baseline, current)
    assert not gate.passed and "graph.busy" in [v.metric for v in gate.regressions]
