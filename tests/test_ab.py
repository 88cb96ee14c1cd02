"""The A/B decision rule: paired round ratios of two builds in one process."""

from conftest import make_record
from tests_helpers import ab_record as shared_ab_record

from graphbench.analyze.ab import compare_ab, default_ab_specs, is_ab
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
        "individual.wall", "graph.wall", "fused.wall", "individual.busy", "fused.busy"]


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

    from graphbench.analyze.specs import parse_spec

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

    from graphbench.analyze.specs import parse_spec

    rng = np.random.default_rng(6)
    base = 0.5 * np.floor((10.0 + 0.1 * rng.standard_normal(100)) / 0.5 + rng.random(100))
    cand = 0.5 * np.floor((10.5 + 0.1 * rng.standard_normal(100)) / 0.5 + rng.random(100))
    verdict = compare_ab(wall_ab(base, cand), [parse_spec("graph.wall:5%")]).verdicts[0]
    assert verdict.verdict == "slower" and abs(verdict.change - 0.05) < 0.01


def test_fewer_than_20_pairs_are_not_gateable_however_clear():
    from graphbench.analyze.specs import parse_spec

    record = wall_ab([10.0 + 0.01 * i for i in range(19)], [20.0 + 0.01 * i for i in range(19)])
    verdict = compare_ab(record, [parse_spec("graph.wall:5%")]).verdicts[0]
    assert verdict.verdict == "not gateable" and verdict.note.startswith("19 pairs: ")
