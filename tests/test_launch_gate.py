"""graphbench.analyze.launch_gate: host-bound figures between two moments
over the launch probe, judged through compare_records on synthetic records
(benchmarks/host_gate_calibration.py's launch model: individual wall is
launches and follows the host's speed in proportion, graph replay does not)."""

import dataclasses
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import make_record, make_run
from graphbench.analyze.host_figures import host_summary
from graphbench.analyze.host_gate import HostGate, Process, gate_values, processes
from graphbench.analyze.compare import compare_records
from graphbench.analyze.host_speed import MIN_FIT_ROUNDS
from graphbench.analyze.launch_gate import (CPU_BOUND_BUSY, MAX_PAIRS_ROUNDS, Rounds, cpu_bound,
                                            elasticity, launch_gate, median_probe, over_probe,
                                            probe_kinds, probe_noise)
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
    # stated at the reference host speed: 12.4 us on a host of the reference's
    # speed, though this current's host launches 10% slower
    assert all(12.2 < r < 12.6 for r in ratios)
    shown = compare_records(base, cur, [parse_spec("individual.wall:10%")]).verdicts[0]
    assert 12.2 < shown.baseline < 12.6 and 12.2 < shown.current < 12.6  # us, not a ratio
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


def following(seed=0, n=60):
    """One process's rounds whose figure follows the probe in proportion."""
    rng = np.random.default_rng(seed)
    probes = 600.0 * np.exp(rng.normal(0, 0.05, n))
    values = 10.0 * probes / 600.0 * np.exp(rng.normal(0, 0.01, n))
    return Rounds(tuple(map(float, values)), probes)


def test_a_round_without_a_probe_reading_or_a_figure_is_left_out_of_the_elasticity():
    rounds = following(0)
    probes, values = rounds.probes.copy(), list(rounds.values)
    probes[3], values[7] = 0.0, 0.0
    holes = elasticity([Rounds(tuple(values), probes)])
    kept = [i for i in range(len(values)) if i not in (3, 7)]
    wanted = elasticity([Rounds(tuple(rounds.values[i] for i in kept), rounds.probes[kept])])
    assert holes.rounds == wanted.rounds == len(values) - 2
    assert (holes.value, holes.low, holes.high) == pytest.approx(
        (wanted.value, wanted.low, wanted.high), rel=1e-9)


def test_the_elasticity_and_the_figures_over_the_probe_are_the_same_in_any_unit():
    """Probe readings and figures in ms rather than us (every one below 1)
    give the same elasticity; figures over readings in ms are 1000 times
    those over readings in us, none left out."""
    us = following(1)
    ms = Rounds(tuple(v / 1000 for v in us.values), us.probes / 1000)
    a, b = elasticity([us]), elasticity([ms])
    assert b.rounds == a.rounds == len(us.values)
    assert (b.value, b.low, b.high) == pytest.approx((a.value, a.low, a.high), rel=1e-9)
    over_ms = over_probe(Rounds(us.values, us.probes / 1000))
    assert over_ms == pytest.approx([r * 1000 for r in over_probe(us)], rel=1e-12)
    assert len(over_ms) == len(us.values)


def test_processes_of_two_readings_count_and_one_of_fewer_is_passed_over():
    pairs = [following(seed, n=2) for seed in range(12)]
    found = elasticity(pairs)
    assert found is not None and found.rounds == 24
    lone = Rounds((10.0, 10.5), np.array([600.0, 0.0]))
    assert elasticity([lone] + pairs).rounds == 24  # the processes after it still read
    assert elasticity(pairs[:9] + [lone]) is None  # 18 rounds


def test_exactly_min_fit_rounds_give_an_elasticity():
    assert MIN_FIT_ROUNDS == 20
    assert elasticity([following(2, n=20)]).rounds == 20
    assert elasticity([following(2, n=19)]) is None


def test_no_process_with_readings_gives_no_elasticity():
    assert elasticity([]) is None
    assert elasticity([Rounds((10.0,), np.array([600.0])), Rounds((), np.zeros(0))]) is None


def test_the_elasticity_is_read_within_processes_whatever_each_one_s_level():
    """A process 3 times slower (a code change between records) moves the
    elasticity no more than rounding: each process is centred on itself."""
    one, two = following(3), following(4)
    slower = Rounds(tuple(3 * v for v in two.values), two.probes * 1.1)
    a, b = elasticity([one, two]), elasticity([one, slower])
    assert (b.value, b.low, b.high) == pytest.approx((a.value, a.low, a.high), rel=1e-6)


def halves(n):
    """Rounds whose even-numbered figures follow the probe in full and odd
    ones by half: the even ones alone give an elasticity of exactly 1."""
    rng = np.random.default_rng(5)
    probes = 600.0 * np.exp(rng.normal(0, 0.05, n))
    values = np.where(np.arange(n) % 2 == 0, probes, 600.0 * np.sqrt(probes / 600.0))
    return Rounds(tuple(map(float, values)), probes)


def test_more_than_max_pairs_rounds_are_thinned_evenly_and_fewer_all_read():
    assert MAX_PAIRS_ROUNDS == 2000
    thinned = elasticity([halves(2001)])  # every second round: the even ones
    assert thinned.rounds == 2001 and thinned.value == pytest.approx(1.0, rel=1e-9)
    every = elasticity([halves(41)])
    assert every.rounds == 41 and 0.5 < every.value < 0.99


def test_readings_that_are_mostly_noise_give_an_elasticity_that_cannot_be_told():
    rounds = following(6)
    var = float(np.var(np.log(rounds.probes)))
    for noise in (2 * var, 0.96 * var):
        found = elasticity([rounds], noise)
        assert math.isnan(found.value) and found.low == -math.inf and found.high == math.inf
        assert found.reliability == pytest.approx(max(0.0, 1 - noise / var))
        assert found.rounds == len(rounds.values)
    assert elasticity([rounds], 0.9 * var).value == pytest.approx(10.0, rel=0.3)  # 1 / 0.1


def test_an_interval_holding_both_0_and_1_gives_no_elasticity():
    """Figures that follow the host by half, in 24 rounds of 5% noise: a 95%
    interval from -0.33 to 1.53 cannot tell following in full from not at all."""
    rng = np.random.default_rng(20)
    probes = 600.0 * np.exp(rng.normal(0, 0.05, 24))
    values = 10 * (probes / 600.0) ** 0.5 * np.exp(rng.normal(0, 0.05, 24))
    found = elasticity([Rounds(tuple(map(float, values)), probes)])
    assert found.low <= 0 and 1 <= found.high < 2
    assert math.isnan(found.value) and found.reliability == 1.0


def with_probes(record, change):
    """The record with each mode's (before, after) readings made by `change`."""
    def one(samples):
        before, after = change(samples.probe_before_us, samples.probe_after_us)
        return dataclasses.replace(samples, probe_before_us=tuple(before),
                                   probe_after_us=tuple(after))
    return dataclasses.replace(record, runs=tuple(dataclasses.replace(
        run, modes={m: one(s) for m, s in run.modes.items()}) for run in record.runs))


def test_probe_noise_leaves_out_a_round_missing_either_reading():
    record = launch_record(0, 3)
    holes = with_probes(record, lambda b, a: ((0.0,) + b[1:], a[:5] + (0.0,) + a[6:]))
    without = with_probes(record, lambda b, a: (b[1:5] + b[6:], a[1:5] + a[6:]))
    assert probe_noise([holes]) == pytest.approx(probe_noise([without]), rel=1e-12)
    assert probe_noise([holes]) == pytest.approx(0.02 ** 2, rel=0.3)


def test_probe_noise_is_the_same_in_any_unit():
    record = launch_record(1, 3)
    in_ms = with_probes(record, lambda b, a: ([v / 1000 for v in b], [v / 1000 for v in a]))
    assert probe_noise([in_ms]) == pytest.approx(probe_noise([record]), rel=1e-9)


def test_probe_noise_reads_every_mode_that_has_readings():
    """In these records every mode's rounds share one series of readings, so a
    mode without any (the first, individual) leaves the noise as it was."""
    record = launch_record(2, 3)
    assert next(iter(record.runs[0].modes)) == "individual"
    unread = dataclasses.replace(record, runs=tuple(dataclasses.replace(run, modes={
        **run.modes, "individual": dataclasses.replace(
            run.modes["individual"], probe_before_us=(), probe_after_us=())})
        for run in record.runs))
    assert probe_noise([unread]) == pytest.approx(probe_noise([record]), rel=1e-12)
    assert probe_noise([unread]) > 0


def test_probe_noise_is_0_without_readings_and_read_from_two():
    assert probe_noise([make_record()]) == 0.0
    two = with_probes(make_record({"individual": 14.0}),
                      lambda b, a: ((600.0, 610.0), (606.0, 600.0)))
    gaps = np.log([606.0 / 600.0, 600.0 / 610.0])
    assert probe_noise([two]) == pytest.approx(np.var(gaps) / 4, rel=1e-12)


def test_median_probe_of_no_processes_is_nan():
    assert math.isnan(median_probe([]))


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_median_probe_of_processes_without_readings_is_nan_and_warns_nothing():
    unread = [Process((5.9, 6.0), (None, None)), Process((5.8,), np.zeros(1))]
    assert math.isnan(median_probe(unread))


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_figure_without_busy_readings_is_not_cpu_bound_and_warns_nothing():
    record = launch_record(0, 3)
    unread = dataclasses.replace(record, runs=tuple(dataclasses.replace(run, conditions=())
                                                    for run in record.runs))
    assert unread.series("individual", "wall").size and not cpu_bound(unread, "individual")


def test_a_graph_replay_is_not_cpu_bound_even_where_its_gpu_idles():
    record = with_wall(launch_record(0, 3), "graph", 10.0)
    busy = float(np.median(record.series("graph", "busy")))
    assert busy <= CPU_BOUND_BUSY * float(np.median(record.series("graph", "wall")))
    assert not cpu_bound(record, "graph")


def test_a_figure_whose_gpu_is_busy_exactly_cpu_bound_busy_of_its_wall_is_cpu_bound():
    record = launch_record(0, 3)
    busy = float(np.median(record.series("individual", "busy")))
    wall = busy / CPU_BOUND_BUSY
    while CPU_BOUND_BUSY * wall != busy:  # the wall at the bound exactly
        wall = np.nextafter(wall, math.inf if CPU_BOUND_BUSY * wall < busy else 0.0)
    at = dataclasses.replace(record, runs=tuple(dataclasses.replace(run, modes={
        **run.modes, "individual": dataclasses.replace(
            run.modes["individual"], wall_us=(float(wall),) * ROUNDS)}) for run in record.runs))
    assert cpu_bound(at, "individual")


def test_the_gate_s_notes_and_reasons_over_the_launch_probe_are_whole():
    python = make_record({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS,
                         runs=[make_run({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS,
                                        seed=i) for i in range(3)])
    assert gate_values(python, launch_record(), "graph.wall").reason == (
        "the records' host probes differ in kind (launch, python), so their host speeds cannot "
        "be related: make the baseline again with this graphbench")
    base, cur = launch_record(0, 5), launch_record(1, 3)
    assert gate_values(base, cur, "individual.wall").note == (
        f"CPU-bound (individual's GPU busy at most {CPU_BOUND_BUSY:.0%} of its wall in the "
        "baseline): judged at the reference host speed, each round over the launch probe "
        "read beside it times 600 us")
    unread = with_probes(cur, lambda b, a: ((), ()))
    unread = dataclasses.replace(unread, runs=tuple(dataclasses.replace(run, conditions=())
                                                     for run in unread.runs))
    assert gate_values(base, unread, "graph.wall").reason == (
        "one record has no launch-probe reading, so the two host speeds cannot be related: "
        "run it again")


def test_too_few_rounds_with_a_reading_leave_a_figure_judged_as_measured_not_gateable():
    base_record, cur_record = launch_record(0, 5), launch_record(1, 3)
    base = [dataclasses.replace(p, values=p.values[:2], probes=p.probes[:2])
            for p in processes(base_record, "graph.wall")]
    cur = [dataclasses.replace(p, values=p.values[:2], probes=p.probes[:2])
           for p in processes(cur_record, "graph.wall")]
    gate = launch_gate(base_record, cur_record, "graph", base, cur, HostGate)
    assert gate.reason == (f"fewer than {MIN_FIT_ROUNDS} rounds with a launch-probe reading, so "
                           "how the figure follows the host cannot be told: run more rounds")
    assert gate.base == [p.steady() for p in base] and gate.cur == [p.steady() for p in cur]


def test_a_figure_that_follows_the_host_more_than_in_full_counts_the_distance_once():
    """A figure judged as measured that moves twice as much as the probe
    (elasticity about 2) joins the two hosts' distance to the noise in full,
    not twice: its share of the host's move is capped at 1."""
    base_record, cur_record = launch_record(0, 5), launch_record(1, 3, host=1.1)

    def squared(record):
        return [dataclasses.replace(p, values=tuple(5.9 * (p.probes / 600.0) ** 2))
                for p in processes(record, "graph.wall")]
    base, cur = squared(base_record), squared(cur_record)
    gate = launch_gate(base_record, cur_record, "graph", base, cur, HostGate)
    assert re.search(r"elasticity 2\.\d\d on the launch probe", gate.note)
    distance = abs(math.log(median_probe(cur) / median_probe(base)))
    assert 0.05 < distance < 0.15 and gate.systematic == pytest.approx(distance, rel=1e-12)


def test_a_figure_that_follows_the_host_in_half_its_rounds_cannot_be_told():
    """A probe that reads one of two values (600 or 660 us): the figure moves
    with it in 10 of the 24 rounds and not in 5 others, so every slope is
    exactly 0 or exactly 1 and the interval is [0, 1]: it holds both."""
    probes = np.array([600.0] * 14 + [660.0] * 10)
    values = (600.0,) * 14 + (600.0,) * 5 + (660.0,) * 5
    found = elasticity([Rounds(values, probes)])
    assert (found.low, found.high) == (0.0, 1.0) and math.isnan(found.value)
