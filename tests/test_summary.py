"""graphbench.analyze.summary: each figure of a run's summary against the samples it is derived
from.

Covers graphbench/analyze/__init__.py."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import make_record, make_run, with_runs
from tests_helpers import replace_run

from graphbench.analyze import summary as S
from graphbench.analyze.intervals import lag1_autocorrelation, median_interval
from graphbench.analyze.stats import paired_ratios, summarize
from graphbench.analyze.summary import between_process_interval, mode_summary, speedups
from graphbench.config import RunConfig
from graphbench.record.codec import write_record
from graphbench.record.model import BusyReading, LegacyProcesses, LifecycleSamples


def without_busy(record):
    return with_runs(record, *(dataclasses.replace(run, conditions=tuple(
        dataclasses.replace(c, busy={}) for c in run.conditions)) for run in record.runs))


def test_mode_summary_figures_from_their_samples():
    record = make_record(noise=0.02)
    found = S.mode_summary(record, "graph")
    for metric in ("wall", "submit", "device", "busy"):
        assert getattr(found, metric) == summarize(record.samples("graph", metric))
    assert found.held_submit == summarize(record.samples("graph", "held_submit"))
    assert found.launch_cost == found.held_submit
    assert found.cycles == summarize(record.samples("graph", "cycles"))
    assert found.busy_shared_with == ("individual",)  # fused runs other kernels
    assert S.mode_summary(record, "fused").busy_shared_with == ()
    assert found.autocorrelation == {m: lag1_autocorrelation(record.samples("graph", m))
                                     for m in ("wall", "submit", "device", "busy")}


def test_mode_summary_without_busy_held_or_clock():
    record = without_busy(make_record())
    record = replace_run(record, conditions=tuple(dataclasses.replace(c, submit={})
                                                  for c in record.runs[0].conditions))
    found = S.mode_summary(record, "graph")
    assert found.busy is None and found.held_submit is None and found.cycles is None
    assert found.busy_shared_with == ()  # nothing shared when nothing was read
    assert found.launch_cost == found.submit
    assert set(found.autocorrelation) == {"wall", "submit", "device"}


def test_autocorrelation_is_the_first_processs():
    record = with_runs(make_record(), *(make_run(seed=s, noise=0.05) for s in range(3)))
    found = S.mode_summary(record, "graph")
    first = record.runs[0]
    assert found.autocorrelation["wall"] == lag1_autocorrelation(first.modes["graph"].wall_us)
    assert found.autocorrelation["wall"] != lag1_autocorrelation(record.samples("graph", "wall"))
    assert found.wall.n == 30  # the figures themselves pool every process


def test_speedups_pair_rounds_against_individual():
    walls = {"individual": (10.0, 12.0, 11.0, 9.0), "graph": (5.0, 4.0, 5.5, 3.0),
             "fused@base": (1.0,) * 4, "fused": (2.0, 2.0, 2.0, 2.0)}
    found = S.speedups(walls)
    assert list(found) == ["graph", "fused"]  # rung order; not the base build's
    ratios = paired_ratios(walls["individual"], walls["graph"])
    graph = found["graph"]
    assert graph.stats == summarize(ratios) and graph.per_round == tuple(ratios)
    interval = median_interval(ratios, 0.95)
    assert graph.interval == ((interval.low, interval.high) if interval.valid else None)
    assert graph.why == interval.reason and graph.scope == "within one process's rounds"
    assert S.speedups({"graph": (1.0,)}) == {}


def test_speedup_interval_when_valid():
    rng = np.random.default_rng(3)
    walls = {"individual": tuple(10 + rng.standard_normal(40) * 0.1),
             "graph": tuple(4 + rng.standard_normal(40) * 0.1)}
    graph = S.speedups(walls)["graph"]
    interval = median_interval(list(graph.per_round), 0.95)
    assert interval.valid and graph.interval == (interval.low, interval.high) and graph.why == ""
    short = S.speedups({m: w[:2] for m, w in walls.items()})["graph"]
    assert short.interval is None and short.why == (
        "2 rounds: under 20, a slow host phase can last the whole run")


def test_run_speedups_scope_by_process_count():
    one = S.run_speedups(make_record())
    assert one["graph"].scope == "within one process's rounds"
    two = with_runs(make_record(), make_run(seed=0), make_run(seed=1))
    assert S.run_speedups(two)["graph"].scope == (
        "over the rounds of 2 processes, not between them (that takes 3 or more)")
    pooled = S.speedups({m: two.samples(m, "wall") for m in two.mode_names})
    assert S.run_speedups(two)["graph"].stats == pooled["graph"].stats


def test_run_speedups_between_three_processes():
    record = with_runs(make_record(), *(make_run(seed=s, noise=0.02) for s in range(3)))
    found = S.run_speedups(record)["graph"]
    medians = [S.speedups({m: run.modes[m].wall_us for m in run.modes})["graph"].stats.median
               for run in record.runs]
    pooled = S.speedups({m: record.samples(m, "wall") for m in record.mode_names})["graph"]
    expected = S.between_process_interval(medians, pooled.interval)
    assert found.interval == expected["interval"] and found.scope == expected["scope"]
    assert found.scope.startswith("between 3 processes (t interval of their medians")
    assert found.why == ""
    assert found.stats == pooled.stats and found.per_round == pooled.per_round
    legacy = dataclasses.replace(record, legacy_processes=LegacyProcesses(3, {}))
    assert S.run_speedups(legacy)["graph"].scope.startswith("over the rounds of 3 processes")


def test_an_interval_between_fewer_than_three_process_medians_is_refused():
    # Hill's t quantile is within 4e-4 of Student's only from 2 degrees of freedom
    # (at 1 it reads 15.0 for 12.7): no caller may get an interval from it there
    with pytest.raises(ValueError, match="3 or more process medians, not 2"):
        S.between_process_interval([2.0, 2.5])


def test_between_process_interval_is_a_t_interval():
    from scipy import stats

    medians = [2.0, 2.5, 3.5, 3.0]
    found = S.between_process_interval(medians)
    # on the logarithms: a ratio's interval never reaches 0
    logs = np.log(medians)
    half = stats.t.ppf(0.975, 3) * np.std(logs, ddof=1) / np.sqrt(4)
    # Hill's t quantile (analyze.intervals), within 4e-4 of scipy's from 3 degrees of freedom
    assert np.log(found["interval"]) - logs.mean() == pytest.approx([-half, half], rel=4e-4)
    spread = S.between_process_interval([0.2, 2.5, 3.0])["interval"]
    assert 0 < spread[0] < 0.2  # the linear t interval of these reaches below 0
    assert found["why"] == "" and found["scope"] == "between 4 processes (t interval of " \
        "their medians)"
    inside = S.between_process_interval(medians, (2.7, 2.8))
    assert inside == found
    wider = S.between_process_interval(medians, (1.0, 2.8))
    assert wider["interval"] == (1.0, found["interval"][1])
    assert wider["scope"] == ("between 4 processes (t interval of their medians, widened to "
                              "their pooled rounds' interval)")
    assert S.between_process_interval(medians, (2.7, 9.0))["interval"] == (
        found["interval"][0], 9.0)


def test_summarize_run_figures_and_caching():
    record = make_record(noise=0.01)
    summary = S.summarize_run(record)
    assert S.summarize_run(record) is summary
    again = dataclasses.replace(record)
    assert S.summarize_run(again) is not summary and S.summarize_run(again) == summary
    assert set(summary.modes) == {"individual", "graph", "fused"}
    assert summary.modes["graph"] == S.mode_summary(record, "graph")
    assert summary.speedup == S.run_speedups(record)
    assert summary.launch_floor.kernel_launch_us == summarize((4.10, 4.12, 4.08, 4.11, 4.09))
    assert summary.launch_floor.graph_replay_us == summarize((5.90, 5.93, 5.88, 5.91, 5.89))
    assert summary.update.node_update_us == summarize((6.0,) * 3)
    assert summary.update.recapture_instantiate_us == summarize((70.0,) * 3)
    assert summary.cache.working_set_bytes == record.pipeline.working_set_bytes
    assert summary.cache.l2_bytes == 60 * 2**20 and summary.cache.flush_l2 is False
    assert summary.verified is True and summary.warnings == ()
    assert summary.lifecycle is summary.lifecycles["graph"]
    assert summary.node_costs is None and summary.unavailable == {}
    from graphbench.analyze.stopping import headline_noise

    assert summary.noise == headline_noise({m: record.samples(m, "wall")
                                            for m in record.mode_names})


def test_summarize_run_without_extras_or_rounds():
    bare = make_record(runs=(make_run(extras=False, config=RunConfig(rounds=10).resolved(
        modes=("individual", "graph", "fused"))),))
    bare = replace_run(bare, launch_floor=None)
    summary = S.summarize_run(bare)
    assert summary.launch_floor is None and summary.update is None
    assert summary.breakdown == {}  # no floor measured, no breakdown
    assert summary.lifecycles == {}
    empty = replace_run(make_record(), modes={})
    found = S.summarize_run(empty)
    assert found.noise is None and found.modes == {} and found.speedup == {}


def test_breakdowns_per_mode():
    record = make_record(noise=0.01, unroll=5)
    modes = {m: S.mode_summary(record, m) for m in record.mode_names}
    found = S.breakdowns(record, modes)
    graph = found["graph"]
    assert graph.launches_per_iteration == 1.0
    assert graph.submit_per_launch_us == modes["graph"].held_submit.median
    assert graph.device_us == modes["graph"].device.median
    assert graph.busy_us == modes["graph"].busy.median
    assert graph.idle_gap_us == max(modes["graph"].wall.median - modes["graph"].busy.median, 0)
    individual = found["individual"]
    assert individual.launches_per_iteration == record.pipeline.kernel_launches_per_iteration
    assert individual.submit_per_launch_us == pytest.approx(
        modes["individual"].held_submit.median / 3)
    assert S.summarize_run(record).breakdown == found
    bare = without_busy(record)
    bare = replace_run(bare, conditions=tuple(dataclasses.replace(c, submit={})
                                              for c in bare.runs[0].conditions))
    plain = S.breakdowns(bare, {m: S.mode_summary(bare, m) for m in bare.mode_names})
    assert plain["graph"].busy_us is None and plain["graph"].back_pressured is None
    assert plain["graph"].submit_per_launch_us == S.mode_summary(bare, "graph").submit.median


def test_lifecycles_build_cost_memory_and_break_even():
    lifecycle = LifecycleSamples(capture_us=(40.0, 50.0, 45.0), instantiate_us=(30.0,) * 3,
                                 upload_us=(10.0, 12.0, 11.0), first_launch_us=(12.0,) * 3,
                                 graph_memory_bytes=(1000, 3000, 2000, 4000))
    record = replace_run(make_record(noise=0.0), lifecycles={"graph": lifecycle})
    modes = {m: S.mode_summary(record, m) for m in record.mode_names}
    (found,) = S.lifecycles(record, modes).values()
    assert found.capture_us == summarize((40.0, 50.0, 45.0))
    assert found.upload_us == summarize((10.0, 12.0, 11.0))
    assert found.first_launch_us == summarize((12.0,) * 3)
    assert found.build_us == 45.0 + 30.0 + 11.0  # medians of capture, instantiate, upload
    assert found.graph_memory_bytes == 2500.0
    saving = modes["individual"].wall.median - modes["graph"].wall.median
    assert found.break_even_iterations == pytest.approx(86.0 / saving)
    no_memory = replace_run(record, lifecycles={"graph": dataclasses.replace(
        lifecycle, graph_memory_bytes=())})
    assert S.lifecycles(no_memory, modes)["graph"].graph_memory_bytes is None
    assert S.lifecycles(record, {m: s for m, s in modes.items() if m != "individual"}) == {}


def test_after_checks_per_workload():
    record = make_record()
    run = dataclasses.replace(record.runs[0], busy_after_checks={
        "stages": BusyReading(3.3), "fused": BusyReading(2.5)})
    other = dataclasses.replace(make_run(seed=1), busy_after_checks={"stages": BusyReading(3.5)})
    record = with_runs(record, run, other)
    modes = {m: S.mode_summary(record, m) for m in record.mode_names}
    found = S.after_checks(record, modes)
    assert found == {"stages": (modes["individual"].busy.median, 3.4),
                     "fused": (modes["fused"].busy.median, 2.5)}
    assert S.summarize_run(record).busy_after_checks == found
    assert S.after_checks(without_busy(record), {m: S.mode_summary(without_busy(record), m)
                                                  for m in record.mode_names}) == {}


def test_summary_document_is_the_summary_as_json():
    from graphbench.record.codec import to_json

    record = make_record()
    assert S.summary_document(record) == to_json(S.summarize_run(record))


def test_autocorrelation_is_the_first_process_s_even_with_two():
    record = make_record({"individual": 14.0, "graph": 4.3}, rounds=8)
    second = make_run({"individual": 14.0, "graph": 4.3}, rounds=8, seed=5, config=record.config)
    second = dataclasses.replace(second, modes={m: dataclasses.replace(
        s, wall_us=tuple(w * (1 + 0.2 * i) for i, w in enumerate(s.wall_us)))
        for m, s in second.modes.items()})
    two = with_runs(record, record.runs[0], second)
    summary = mode_summary(two, "graph")
    assert summary.autocorrelation["wall"] == \
        lag1_autocorrelation(record.runs[0].modes["graph"].wall_us)
    assert summary.autocorrelation["wall"] != lag1_autocorrelation(two.samples("graph", "wall"))
    assert summary.wall.n == 16


def test_a_pooled_interval_that_only_touches_the_t_interval_does_not_widen_it():
    medians = [2.0, 2.5, 3.5, 3.0]
    plain = between_process_interval(medians)
    touching = between_process_interval(medians, plain["interval"])
    assert touching == plain and "widened" not in touching["scope"]


def test_no_effective_rounds_without_an_interval():
    few = {"individual": (10.0, 10.2, 9.9, 10.1, 10.0), "graph": (4.0,) * 5}
    entry = speedups(few)["graph"]
    assert entry.interval is None and entry.effective_rounds is None


def test_effective_rounds_are_the_interval_s_when_it_is_valid():
    rng = np.random.default_rng(3)
    walls = {"individual": tuple(10 + rng.standard_normal(40) * 0.1),
             "graph": tuple(4 + rng.standard_normal(40) * 0.1)}
    entry = speedups(walls)["graph"]
    interval = median_interval(list(entry.per_round), 0.95)
    assert interval.valid and entry.effective_rounds is not None
    assert entry.effective_rounds == interval.effective_n


def test_speedups_cover_every_rung_after_individual_the_driver_rung_too():
    walls = {"individual": (10.0,) * 4, "driver": (8.0,) * 4, "graph": (4.0,) * 4}
    found = speedups(walls)
    assert list(found) == ["driver", "graph"]
    assert found["driver"].stats.median == 1.25


def test_run_speedups_use_the_walls_they_are_given():
    record = make_record()
    walls = {"individual": (20.0,) * 10, "graph": (5.0,) * 10}
    found = S.run_speedups(record, walls)
    assert set(found) == {"graph"} and found["graph"].stats.median == 4.0
    assert S.run_speedups(record)["graph"].stats.median != 4.0  # the record's own walls


def test_summarize_run_states_the_walls_as_measured():
    """No probe moves a round: the speedup is that of the rounds as measured,
    however the probe read beside them."""
    record = make_record(noise=0.01)
    run = record.runs[0]
    probes = tuple(float(300 + 200 * (i % 2)) for i in range(len(run.modes["individual"].wall_us)))
    moved = replace_run(record, modes={name: dataclasses.replace(
        mode, probe_before_us=probes, probe_after_us=probes) for name, mode in run.modes.items()})
    summary = S._summarize_run(moved)
    assert summary.speedup == S.speedups({m: np.asarray(record.samples(m, "wall"), dtype=float)
                                          for m in record.mode_names})
    assert summary.speedup == S._summarize_run(record).speedup


def test_summarize_run_noise_drift_is_the_headline_series_drift():
    from graphbench.analyze.stopping import headline_noise_parts

    record = make_record(noise=0.01)
    parts = headline_noise_parts({m: np.asarray(w, dtype=float)
                                  for m, w in S.measured_walls(record).items()})
    summary = S.summarize_run(record)
    assert summary.noise_drift is not None and summary.noise_drift == parts[1]
    assert summary.noise == max(parts)
    assert S.summarize_run(replace_run(make_record(), modes={})).noise_drift is None


def test_summarize_run_fits_node_costs_and_keeps_host_and_unavailable_rungs():
    from graphbench.analyze.node_costs import fit_node_costs
    from graphbench.record.graph_costs import NodeCostSamples

    nodes = (3, 3, 6, 6, 12, 12, 24, 24, 48, 48)
    costs = NodeCostSamples(nodes, tuple(5.0 + 0.8 * n for n in nodes),
                            tuple(2.0 + 1.5 * n for n in nodes), tuple(4096 * n for n in nodes))
    record = replace_run(make_record(noise=0.01), node_costs=costs,
                         unavailable={"loop": "no conditional nodes"})
    summary = S.summarize_run(record)
    assert summary.node_costs is not None
    assert summary.node_costs == fit_node_costs(record.node_cost_samples())
    assert summary.node_costs.capture.per_node_us == pytest.approx(0.8)
    assert summary.cpu_probe_us == 300.0  # the synthetic host's CPU probe
    assert summary.unavailable == {"loop": "no conditional nodes"}


def test_the_report_of_a_three_process_record_leaves_scipy_out(tmp_path):
    # importing scipy.stats took 1.0 s of the 1.3 s a 5-process run's parent spent
    # after its last process, and of `graphbench report` on such a record
    record = with_runs(make_record(), *(make_run(seed=s, noise=0.02) for s in range(3)))
    assert S.run_speedups(record)["graph"].scope.startswith("between 3 processes")
    path = tmp_path / "three.json"
    write_record(str(path), record)
    code = ("import sys; from graphbench.cli import main; main(['report', sys.argv[1]]); "
            "print(any(name.startswith('scipy') for name in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    assert "between 3 processes" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "False"
