"""graphbench.analyze.launch_gate: host-bound figures between two moments
over the launch probe, judged through compare_records on synthetic records
(benchmarks/host_gate_calibration.py's launch model: individual wall is
launches and follows the host's speed in proportion, graph replay does not)."""

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import make_record, make_run
from graphbench.analyze.host_figures import host_summary
from graphbench.analyze.host_gate import gate_values, processes
from graphbench.analyze.compare import compare_records
from graphbench.analyze.launch_gate import (CPU_BOUND_BUSY, cpu_bound, elasticity, launch_gate,
                                            over_probe, probe_kinds, probe_noise)
from graphbench.analyze.specs import parse_spec
from graphbench.analyze.summary import summarize_run
from graphbench.record.machine import LAUNCH_PROBE, PYTHON_PROBE
from graphbench.report.host import host_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from host_gate_calibration import ROUNDS, launch_process, record, verdict_counts  # noqa: E402

CONTRACT_RUNS = 40  # comparisons per scenario: a 95% share fails on 3 or more misses


def launch_record(seed=0, processes=3, **settings):
    return record(np.random.default_rng(seed), processes, launch=True, **settings)


@pytest.mark.parametrize("slower, wanted", [(0.0, {"same", "changed"}), (0.05, {"same", "changed"}),
                                            (0.10, {"slower"})])
def test_on_a_host_10_percent_slower_the_gate_keeps_its_contract(slower, wanted):
    """Identical code and a host-side change of half the 10% threshold pass,
    a change of the threshold is slower, every time, though the current's
    host launches 10% slower: as measured, individual wall would read +10%."""
    counts = verdict_counts(CONTRACT_RUNS, dict(launch=True),
                            dict(launch=True, host=1.1, slower=slower), seed=3)
    assert sum(counts["individual.wall"].get(v, 0) for v in wanted) >= CONTRACT_RUNS - 2
    assert counts["graph.wall"].get("slower", 0) == 0  # graph replay never follows the host


@pytest.mark.parametrize("slower, most_slower, least_slower", [(0.0, 0, 0), (0.05, 0, 0),
                                                              (0.25, CONTRACT_RUNS, 38)])
def test_a_pair_too_noisy_to_gate_is_slower_only_where_its_interval_clears_the_threshold(
        slower, most_slower, least_slower):
    """Processes 2% apart over the probe: 5 against 3 detect about 15%, more
    than the 10% threshold, yet a +25% host-side change is slower (its 99%
    interval lies above 10%) and identical code or +5% never is."""
    noisy = dict(launch=True, level_sd=0.02)
    counts = verdict_counts(CONTRACT_RUNS, noisy, dict(noisy, host=1.1, slower=slower), seed=5)
    assert least_slower <= counts["individual.wall"].get("slower", 0) <= most_slower
    rng = np.random.default_rng(6)
    one = compare_records(record(rng, 5, **noisy), record(rng, 3, **noisy, slower=slower),
                          [parse_spec("individual.wall:10%")]).verdicts[0]
    assert one.detectable > 0.10


def test_a_cpu_bound_figure_is_judged_over_the_probe_and_a_graph_replay_as_measured():
    base, cur = launch_record(0, 5), launch_record(1, 3, host=1.1)
    individual = gate_values(base, cur, "individual.wall")
    assert not individual.reason and individual.note.startswith("CPU-bound (individual's GPU busy")
    ratios = [np.median(v) for v in individual.cur]
    assert all(0.019 < r < 0.022 for r in ratios)  # 12.4 us over 600 us per 150 launches
    speedup = gate_values(base, cur, "speedup")  # read by its individual rounds
    assert speedup.note.startswith("CPU-bound (individual's GPU busy")
    graph = gate_values(base, cur, "graph.wall")
    assert not graph.reason and graph.note.startswith("judged as measured (elasticity")
    assert re.search(r"launch probes lie (9|10)\.\d% apart", graph.note)
    assert 0 < graph.systematic < 0.03
    assert np.median(graph.cur[0]) == pytest.approx(5.9, rel=0.05)


def with_wall(record, mode: str, factor: float):
    runs = [dataclasses.replace(run, modes={**run.modes, mode: dataclasses.replace(
        run.modes[mode], wall_us=tuple(v * factor for v in run.modes[mode].wall_us))})
        for run in record.runs]
    return dataclasses.replace(record, runs=tuple(runs))


def test_cpu_bound_is_a_rung_whose_gpu_idles_most_of_its_wall_and_not_a_graph_replay():
    """Busy 3 us of a 12.4 us wall (0.24) is CPU-bound; at 0.35 of the wall
    still, past it not (the GPU's work showing: 2^24 reads about 1); graph
    replay never is, nor a mode the record lacks or one without busy readings."""
    record = launch_record(0, 3)
    busy = float(np.median(record.series("individual", "busy")))
    wall = float(np.median(record.series("individual", "wall")))
    assert cpu_bound(record, "individual") and not cpu_bound(record, "graph")
    at_bound = busy / (CPU_BOUND_BUSY * wall)
    assert cpu_bound(with_wall(record, "individual", at_bound * 1.001), "individual")
    assert not cpu_bound(with_wall(record, "individual", at_bound * 0.999), "individual")
    assert not cpu_bound(with_wall(record, "individual", busy / wall), "individual")
    assert not cpu_bound(record, "fused")  # not in this record
    unread = dataclasses.replace(record, runs=tuple(dataclasses.replace(run, conditions=())
                                                    for run in record.runs))
    assert not cpu_bound(unread, "individual")


def test_whether_a_figure_is_cpu_bound_is_read_from_the_baseline():
    """A current whose individual wall doubled is judged over the probe as
    its baseline was, and so is found slower rather than judged another way."""
    base = launch_record(0, 5)
    slower = gate_values(base, with_wall(launch_record(1, 3), "individual", 2.0), "individual.wall")
    assert slower.note.startswith("CPU-bound")
    assert np.median(slower.cur[0]) / np.median(slower.base[0]) == pytest.approx(2.0, rel=0.05)


def test_elasticity_corrected_for_the_probe_s_noise_tells_following_from_not():
    """Uncorrected, the 2% noise of a reading flattens individual wall's
    elasticity (about 0.87 of the true 1 with 5% host jitter); corrected by
    the reliability it is near 1, and graph replay's near its true 0."""
    record = launch_record(0, 5)
    noise = probe_noise([record])
    assert noise == pytest.approx(0.02 ** 2, rel=0.3)
    follows = elasticity(processes(record, "individual.wall"), noise)
    assert 0.8 <= follows.value <= 1.2 and 0.7 <= follows.reliability <= 0.95
    assert follows.low < follows.value < follows.high
    flattened = elasticity(processes(record, "individual.wall")).value
    assert flattened == pytest.approx(follows.value * follows.reliability, rel=0.01)
    flat = elasticity(processes(record, "graph.wall"), noise)
    assert abs(flat.value) < 0.2 and follows.rounds == 5 * ROUNDS


def test_too_few_readings_or_a_probe_that_never_moves_gives_no_elasticity():
    procs = processes(launch_record(0, 1), "individual.wall")
    few = [dataclasses.replace(p, values=p.values[:10], probes=p.probes[:10]) for p in procs]
    assert elasticity(few) is None
    steady = [dataclasses.replace(p, probes=np.full(len(p.values), 600.0)) for p in procs]
    assert elasticity(steady) is None


def test_where_the_readings_cannot_tell_a_figure_is_taken_to_follow_the_host_in_full():
    """A host that moved no more than the probe's noise within the processes:
    graph replay between hosts 10% apart is then not gateable at 10%; on one
    host it is."""
    procs = processes(launch_record(0, 3, jitter=0.0), "graph.wall")
    untold = elasticity(procs, probe_noise([launch_record(0, 3, jitter=0.0)]))
    assert np.isnan(untold.value)
    base = launch_record(0, 5, jitter=0.0)
    elsewhere = gate_values(base, launch_record(1, 3, jitter=0.0, host=1.1), "graph.wall")
    assert "taken to follow the host in full" in elsewhere.note
    assert elsewhere.systematic == pytest.approx(0.1, abs=0.01)
    specs = [parse_spec("graph.wall:10%")]
    verdicts = [compare_records(base, launch_record(1, 3, jitter=0.0, host=h), specs).verdicts[0]
                for h in (1.0, 1.1)]
    assert [v.verdict for v in verdicts] == ["same", "not gateable"]


def test_records_whose_probes_differ_in_kind_are_not_related():
    python = make_record({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS,
                         runs=[make_run({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS,
                                        seed=i) for i in range(3)])
    assert probe_kinds(python) == {PYTHON_PROBE}
    for base, cur in ((python, launch_record()), (launch_record(), python)):
        gate = gate_values(base, cur, "individual.wall")
        assert gate.reason.startswith("the records' host probes differ in kind (launch, python)")
    assert launch_gate(python, python, "individual", [], [], None) is None  # host_gate's states


def test_a_round_without_a_reading_is_left_out_over_the_probe():
    proc = processes(make_record(runs=[launch_process(np.random.default_rng(0), 0)],
                                 rounds=ROUNDS), "individual.wall")[0]
    probes = np.array(proc.probes, dtype=float)
    probes[[0, 5]] = 0.0
    ratios = over_probe(dataclasses.replace(proc, probes=probes))
    assert len(ratios) == ROUNDS - 2
    assert ratios[0] == pytest.approx(proc.values[1] / probes[1])


def test_a_record_of_the_launch_probe_says_so():
    assert probe_kinds(launch_record()) == {LAUNCH_PROBE}


def test_a_launch_probe_record_states_cpu_bound_walls_at_the_reference_and_others_as_measured():
    """On hosts 10% apart, individual wall at the reference probe reads the
    same (12.4 us at 600 us per 150 launches), where its raw figure moved 10%."""
    here, there = (host_summary(launch_record(seed, 3, host=h)) for seed, h in ((0, 1.0), (1, 1.1)))
    assert here.cpu_bound == there.cpu_bound == ("individual",)
    assert here.at_reference["individual"] == pytest.approx(12.4, rel=0.01)
    assert there.at_reference["individual"] == pytest.approx(12.4, rel=0.01)
    assert there.at_reference["graph"] == pytest.approx(5.9, rel=0.02)
    summary = summarize_run(launch_record(0, 3))
    line = host_lines(summary)[-1]
    assert "at the reference host speed (probe 600 us)" in line
    assert line.endswith("(individual CPU-bound: over the launch probe; the others as measured)")


def test_a_current_without_probe_readings_is_not_gateable_on_a_figure_judged_as_measured():
    base = launch_record(0, 5)
    unread = launch_record(1, 3)
    unread = dataclasses.replace(unread, runs=tuple(dataclasses.replace(run, modes={
        m: dataclasses.replace(v, probe_before_us=(), probe_after_us=())
        for m, v in run.modes.items()}, conditions=()) for run in unread.runs))
    gate = gate_values(base, unread, "graph.wall")
    assert gate.reason.startswith("one record has no launch-probe reading")
    verdict = compare_records(base, unread, [parse_spec("graph.wall:10%")]).verdicts[0]
    assert verdict.verdict == "not gateable"
