"""Mutation tests for graphbench.analyze.summary and .sweeps (issue 19 item
9): each figure of a RunSummary against the samples it is derived from, and
a sweep's crossover table on points built to cross where the test says."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import EXTRAS, device_info, make_record, make_run, with_runs

from graphbench.analyze import summary as S
from graphbench.analyze.derived import Crossover
from graphbench.analyze.intervals import lag1_autocorrelation, median_interval
from graphbench.analyze.stats import paired_ratios, summarize
from graphbench.analyze.sweeps import (bytes_per_element, crossover_table, point_speedups,
                                       points_at, several_shapes, short_shape)
from graphbench.config import RunConfig, SweepConfig
from graphbench.record.model import (BusyReading, HostInfo, LegacyProcesses, LifecycleSamples,
                                     SweepRecord, ToolInfo)


def replace_run(record, **changes):
    return dataclasses.replace(record, runs=(dataclasses.replace(record.runs[0], **changes),))


def without_busy(record):
    return with_runs(record, *(dataclasses.replace(run, conditions=tuple(
        dataclasses.replace(c, busy={}) for c in run.conditions)) for run in record.runs))


# ------------------------------------------------------------ mode summary

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


# ----------------------------------------------------------------- speedups

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


def test_between_process_interval_is_a_t_interval():
    from scipy import stats

    medians = [2.0, 2.5, 3.5, 3.0]
    found = S.between_process_interval(medians)
    # on the logarithms: a ratio's interval never reaches 0
    logs = np.log(medians)
    half = stats.t.ppf(0.975, 3) * np.std(logs, ddof=1) / np.sqrt(4)
    assert found["interval"] == pytest.approx(tuple(np.exp(logs.mean() + [-half, half])),
                                              rel=1e-12)
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


# ------------------------------------------------------------- the summary

def test_summarize_run_figures_and_caching():
    record = make_record(noise=0.01)
    summary = S.summarize_run(record)
    assert S.summarize_run(record) is summary
    again = dataclasses.replace(record)
    assert S.summarize_run(again) is not summary and S.summarize_run(again) == summary
    assert set(summary.modes) == {"individual", "graph", "fused"}
    assert summary.modes["graph"] == S.mode_summary(record, "graph")
    assert summary.speedup == S.run_speedups(record)
    assert summary.launch_floor.kernel_launch_us == summarize((4.1, 4.2, 4.0))
    assert summary.launch_floor.graph_replay_us == summarize((5.9, 6.0, 5.8))
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


# ------------------------------------------------------------------ sweeps

def point(elements, depth, walls, grid="auto", block=None, working_set=None):
    record = make_record(walls, noise=0.0, elements=elements, depth=depth, grid=grid,
                         block=block)
    if working_set is not None:
        record = dataclasses.replace(record, pipeline=dataclasses.replace(
            record.pipeline, working_set_bytes=working_set))
    return record


def sweep(points, l2=10**6, device=True, **config):
    cfg = SweepConfig(**config)
    return SweepRecord(ToolInfo("graphbench", "0"), "2026", HostInfo(), cfg,
                       device_info(l2_bytes=l2) if device else None, tuple(points), True)


def test_points_at_a_depth_and_shape():
    points = [point(1024, 1, {"individual": 3.0, "graph": 1.0}),
              point(1024, 2, {"individual": 3.0, "graph": 1.0}),
              point(1024, 1, {"individual": 3.0, "graph": 1.0}, grid="1056", block=128)]
    found = sweep(points, elements=(1024,), depths=(1, 2), grids=("auto", "1056"),
                  blocks=(None, 128))
    assert points_at(found, 1, ("auto", None)) == [points[0]]
    assert points_at(found, 2, ("auto", None)) == [points[1]]
    assert points_at(found, 1, ("1056", 128)) == [points[2]]
    assert points_at(found, 2, ("1056", 128)) == []
    assert several_shapes(sweep(points, elements=(1024,), depths=(1, 2), grids=("auto", "1056")))
    assert several_shapes(found) and not several_shapes(sweep(points[:1], elements=(1024,),
                                                              depths=(1,)))
    assert short_shape(("auto", None)) == "autox256" and short_shape(("1056", 128)) == "1056x128"


def test_point_speedups_and_bytes_per_element():
    p = point(1024, 1, {"individual": 3.0, "graph": 1.5, "fused": 1.0}, working_set=8192)
    assert point_speedups(p) == {"graph": 2.0, "fused": 3.0}
    assert bytes_per_element(p) == 8.0


def test_crossover_table_per_shape_depth_and_rung():
    walls = {1024: (3.0, 1.0, 2.0), 4096: (3.0, 1.5, 2.0), 16384: (3.0, 3.0, 2.0)}
    points = [point(n, 1, {"individual": i, "graph": g, "fused": f}, working_set=8 * n)
              for n, (i, g, f) in walls.items()]
    points += [point(n, 2, {"individual": 3.0, "graph": 2.0}, working_set=8 * n)
               for n in walls]
    found = crossover_table(sweep(points, l2=8 * 16384, elements=tuple(walls), depths=(1, 2),
                                  threshold=1.5))
    assert [(r.depth, r.mode, r.shape) for r in found] == [
        (1, "graph", ("auto", None)), (1, "fused", ("auto", None)), (2, "graph", ("auto", None))]
    graph, fused, deep = found
    # graph: 3.0 -> 2.0 -> 1.0; 1.5 is crossed halfway from 4096 to 16384 in log2
    assert graph.crossover == Crossover("crossover", 2.0 ** 13, (4096, 16384))
    assert graph.fits_in_l2 is True  # 8 B x 8192 < 8 x 16384
    assert fused.crossover == Crossover("none-in-range", None, None) and fused.fits_in_l2 is None
    assert deep.crossover == Crossover("none-in-range", None, None)


def test_fits_in_l2_at_the_boundary_and_from_the_first_points_bytes():
    points = [point(1024, 1, {"individual": 3.0, "graph": 3.0}, working_set=8192),
              point(4096, 1, {"individual": 3.0, "graph": 3.0}, working_set=4 * 4096)]
    config = dict(elements=(1024, 4096), depths=(1,), threshold=1.5)
    (row,) = crossover_table(sweep(points, l2=8192, **config))
    assert row.crossover == Crossover("below-at-smallest", 1024.0, (1024, 1024))
    assert row.fits_in_l2 is True  # 8 B per element (the first point's) x 1024 = 8192
    (row,) = crossover_table(sweep(points, l2=8191, **config))
    assert row.fits_in_l2 is False
    (row,) = crossover_table(sweep(points, device=False, **config))
    assert row.fits_in_l2 is None and row.crossover.status == "below-at-smallest"
    (row,) = crossover_table(sweep(points, l2=None, **config))
    assert row.fits_in_l2 is None


def test_crossover_rows_name_their_shape():
    points = [point(n, 1, {"individual": 3.0, "graph": 1.0}, grid="1056") for n in (1024, 4096)]
    rows = crossover_table(sweep(points, elements=(1024, 4096), depths=(1,), grids=("1056",)))
    assert [(r.mode, r.shape) for r in rows] == [("graph", ("1056", None))]


def test_a_rung_missing_at_some_points_is_judged_where_it_ran():
    points = [point(1024, 1, {"individual": 3.0, "graph": 1.0}),
              point(4096, 1, {"individual": 3.0, "graph": 1.0, "fused": 1.0}),
              point(16384, 1, {"individual": 3.0, "graph": 1.0, "fused": 3.0})]
    rows = crossover_table(sweep(points, elements=(1024, 4096, 16384), depths=(1,),
                                 threshold=1.5))
    fused = next(r for r in rows if r.mode == "fused")
    assert fused.crossover == Crossover("crossover", 2.0 ** 13.5, (4096, 16384))


# --------------------------------------------------------------- intervals

from graphbench.analyze import intervals as I  # noqa: E402


def test_interval_of_no_rounds_and_of_non_finite_values():
    empty = I.median_interval([], 0.9)
    assert np.isnan(empty.estimate) and (empty.low, empty.high) == (-np.inf, np.inf)
    assert (empty.confidence, empty.n, empty.effective_n, empty.autocorrelation) == (0.9, 0, 0.0,
                                                                                     0.0)
    assert empty.valid is False and empty.reason == "no rounds"
    assert empty.relative_half_width == np.inf
    bad = I.median_interval([1.0, np.nan, 2.0, 3.0], 0.95)
    assert np.isnan(bad.estimate) and (bad.low, bad.high) == (-np.inf, np.inf)
    assert (bad.confidence, bad.n, bad.effective_n, bad.autocorrelation) == (0.95, 4, 0.0, 0.0)
    assert bad.valid is False and bad.reason == "non-finite values"
    assert I.median_interval([1.0, np.inf, 2.0]).reason == "non-finite values"


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.1])
def test_confidence_must_be_strictly_between_0_and_1(confidence):
    with pytest.raises(ValueError, match=rf"confidence must be in \(0, 1\), got {confidence}"):
        I.median_interval([1.0, 2.0, 3.0], confidence)


def test_lag1_needs_finite_values():
    with pytest.raises(ValueError, match="^lag-1 autocorrelation needs finite values$"):
        I.lag1_autocorrelation([1.0, np.nan, 2.0])


def test_single_precision_samples_are_analysed_in_double():
    rng = np.random.default_rng(7)
    values = (10 + np.cumsum(rng.standard_normal(40)) * 0.1).astype(np.float32)
    as_double = values.astype(np.float64)
    assert I.lag1_autocorrelation(values) == I.lag1_autocorrelation(as_double)
    single, double = I.median_interval(values), I.median_interval(as_double)
    assert (single.estimate, single.low, single.high, single.effective_n) == \
        (double.estimate, double.low, double.high, double.effective_n)
    from graphbench.analyze.stats import median

    close = np.array([1.0, 1 + 2**-23], dtype=np.float32)  # their mean needs double precision
    assert median(close) == 1 + 2**-24


def _reference_interval(x, confidence, own_parts=False, shared_phases=False):
    """The module docstring's interval, written out plainly, one series at a
    time, with scipy's t quantile and the exact arcsin sum (own_parts: with
    the module's t quantile and tau table, to compare to rounding error;
    shared_phases: without the host-phase floor)."""
    from scipy import stats
    from statistics import NormalDist

    x = [float(v) for v in x]
    n, ordered = len(x), sorted(x)

    def quantile(p):
        position = min(max((n + 1) * p - 1, 0), n - 1)
        below = min(int(np.floor(position)), n - 1)
        above = min(below + 1, n - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (position - below)

    middle = quantile(0.5)
    if n >= 3:
        mean = sum(x) / n
        total = sum((v - mean) ** 2 for v in x)
        steps = sum((b - a) ** 2 for a, b in zip(x, x[1:]))
        rho_hat = 1 - steps / (2 * total) if total > 0 and max(x) > min(x) else 0.0
        z = [NormalDist().inv_cdf(1 - (1 - p) / 2) for p in (0.95, 0.99, confidence)]
        k = max(0.0, 10 + 50 * (z[2] - z[0]) / (z[1] - z[0]))
        rho = (rho_hat + 1 / n) / max(1 - 3 / n, 1 / n) + k / n ** 2
        rho = min(max(rho, 0.0), 0.99)
        tau = 1 + 4 / np.pi * float(np.arcsin(rho ** np.arange(1, 5000)).sum())
        if own_parts:
            tau = float(np.interp(rho, *I._sign_table()))
        if not shared_phases:  # 2.5 up to 60 rounds, then falling linearly to 1 at 150
            tau = max(tau, 2.5 if n <= 60 else 1.0 if n >= 150 else 2.5 - 1.5 * (n - 60) / 90)
        effective = n / tau
    else:
        effective = 0.0
    df = max(effective - 1, 2.0)
    t = float(I._t_quantile(1 - (1 - confidence) / 2, np.array([df]))[0]) if own_parts else \
        stats.t.ppf(1 - (1 - confidence) / 2, df)
    offset = t / (2 * np.sqrt(max(effective, 1.0)))

    def bound(p):
        if n < 2:
            return middle
        edge = 1 / (n + 1)
        reach = abs(p - 0.5) / (0.5 - edge)
        if reach > 1:
            return middle + ((ordered[0] if p < 0.5 else ordered[-1]) - middle) * reach
        return quantile(min(max(p, edge), 1 - edge))

    valid = n >= 20
    low, high = (bound(0.5 - offset), bound(0.5 + offset)) if valid else (-np.inf, np.inf)
    if valid and min(x) >= 0:  # the median of data of one sign has that sign
        low = max(low, 0.0)
    if valid and max(x) <= 0:
        high = min(high, 0.0)
    return middle, low, high, effective, valid


def _series():
    rng = np.random.default_rng(11)
    out = [[5.0, 1.0, 3.0], [2.02, -1.06, 0.37],  # the second: 1.7 effective rounds, valid at 0.8
           [2.0, 9.0, 4.0, 4.5], [1.0, 2.0], [7.0], [3.0] * 6,
           [1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0], list(range(12)), [4.0, 1.0] * 7,
           [4.0, 1.0] * 12, [3.0] * 22, [1.0] * 10 + [2.0] + [1.0] * 10,
           [float(v) for v in range(25)],             # a trend: the bounds extrapolate
           [0.01 * v for v in range(1, 21)],          # positive: the low bound stops at 0
           [-0.01 * v for v in range(1, 21)],         # negative: the high bound stops at 0
           [float(v) for v in range(-10, 12)]]        # both signs: neither stops
    for n, rho in ((5, 0.0), (9, 0.3), (16, 0.6), (40, 0.9), (120, 0.5), (60, -0.4),
                   (20, 0.95), (30, 0.0), (25, 0.7)):
        e, v = rng.standard_normal(n), [0.0]
        for i in range(n):
            v.append(rho * v[-1] + e[i])
        out.append([100.0 + 3.0 * a for a in v[1:]])
    return out


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99, 0.999])
def test_the_interval_is_the_documented_one(confidence, shared):
    for values in _series():
        found = I.median_interval(values, confidence, shared_phases=shared)
        middle, low, high, effective, valid = _reference_interval(values, confidence,
                                                                  shared_phases=shared)
        where = f"{len(values)} values at {confidence}: {values[:4]}"
        assert found.estimate == pytest.approx(middle, rel=1e-12), where
        assert found.valid is valid, where
        assert found.effective_n == pytest.approx(effective, rel=2e-3, abs=1e-12), where
        assert found.low == pytest.approx(low, rel=1e-3, abs=1e-9), where
        assert found.high == pytest.approx(high, rel=1e-3, abs=1e-9), where
        assert found.n == len(values) and found.confidence == confidence
        assert found.autocorrelation == pytest.approx(
            I.lag1_autocorrelation(values), abs=1e-12), where


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_the_interval_is_the_documented_one_to_rounding(confidence, shared):
    for values in _series():
        found = I.median_interval(values, confidence, shared_phases=shared)
        middle, low, high, effective, valid = _reference_interval(values, confidence, True,
                                                                  shared_phases=shared)
        assert found.valid is valid
        assert found.effective_n == pytest.approx(effective, rel=1e-9, abs=1e-12)
        assert (found.low, found.high) == pytest.approx((low, high), rel=1e-9, abs=1e-9)


def test_few_effective_rounds_give_a_wide_interval_not_none():
    values = [1.0 + 0.01 * v for v in range(20)]  # a trend: about one effective round
    found = I.median_interval(values, 0.95)
    assert found.valid and found.effective_n < 1.5
    assert found.low < min(values) and found.high > max(values)


def test_no_interval_from_fewer_than_20_rounds():
    values = [float(v) for v in np.random.default_rng(3).normal(10, 0.1, 20)]
    assert I.median_interval(values, 0.95).valid
    for shared in (True, False):
        short = I.median_interval(values[:19], 0.95, shared_phases=shared)
        assert not short.valid and short.reason == (
            "19 rounds: under 20, a slow host phase can last the whole run")
        assert (short.low, short.high) == (-math.inf, math.inf)


def test_the_host_phase_floor_on_tau():
    assert [I.phase_tau(n) for n in (3, 60, 105, 150, 1000)] == [2.5, 2.5, 1.75, 1.0, 1.0]
    values = [float(v) for v in np.random.default_rng(4).normal(10, 0.1, 300)]
    for n in (20, 60, 105, 300):
        plain = I.median_interval(values[:n], 0.95, shared_phases=True)
        floored = I.median_interval(values[:n], 0.95)
        assert floored.effective_n == pytest.approx(
            min(plain.effective_n, n / I.phase_tau(n)), rel=1e-12)
    assert I.median_interval([5.0, 1.0], 0.99).reason == (
        "2 rounds: under 20, a slow host phase can last the whole run")


def test_scaling_gives_one_exponent_per_row_even_of_no_values():
    scaled, exponent = I._scaled(np.empty((3, 0)))
    assert scaled.shape == (3, 0) and exponent.tolist() == [0, 0, 0]
    assert exponent.dtype.kind == "i"
    scaled, exponent = I._scaled(np.array([[3.0, -6.0], [0.25, 0.125]]))
    assert exponent.tolist() == [3, -1] and scaled.tolist() == [[0.375, -0.75], [0.5, 0.25]]


def _hill(p, df):
    """Hill (1970), Algorithm 396, as the module's docstring names it, one value."""
    from statistics import NormalDist

    tail = 2 * (1 - p)
    if abs(df - 2) < 1e-12:
        return math.sqrt(2 / (tail * (2 - tail)) - 2)
    a = 1 / (df - 0.5)
    b = 48 / (a * a)
    c = ((20700 * a / b - 98) * a - 16) * a + 96.36
    d = ((94.5 / (b + c) - 3) / b + 1) * math.sqrt(a * math.pi / 2) * df
    y = (d * tail) ** (2 / df)
    if y > 0.05 + a:
        x = NormalDist().inv_cdf(1 - tail / 2)
        if df < 5:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c
        y = (((((0.4 * x * x + 6.3) * x * x + 36) * x * x + 94.5) / c - x * x - 3) / b + 1) * x
        y = math.expm1(a * y * y)
    else:
        y = ((1 / (((df + 6) / (df * y) - 0.089 * d - 0.822) * (df + 2) * 3) + 0.5 / (df + 4))
             * y - 1) * (df + 1) / (df + 2) + 1 / y
    return math.sqrt(df * y)


def test_the_t_quantile_is_hills_algorithm():
    dfs = [2.0, 2.0000001, 2.3, 2.5, 3.0, 4.0, 4.6, 5.0, 6.0, 10.0, 50.0, 1000.0]
    for p in (0.55, 0.7, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99, 0.9995):
        found = I._t_quantile(p, np.array(dfs))
        for df, q in zip(dfs, found):
            assert q == pytest.approx(_hill(p, df), rel=1e-12), (p, df)


def test_the_lag1_autocorrelation_is_the_plain_one():
    for values in _series():
        x = np.asarray(values, dtype=float)
        if len(x) < 3 or np.ptp(x) == 0:
            expected = 0.0
        else:
            c = x - x.mean()
            expected = float(np.sum(c[1:] * c[:-1]) / np.sum(c * c))
        assert I.lag1_autocorrelation(values) == pytest.approx(expected, abs=1e-12)


def test_the_t_quantile_against_scipy():
    from scipy import stats

    for p in (0.9, 0.975, 0.995, 0.9995):
        for df in (2.0, 2.5, 3.0, 4.4, 4.6, 5.0, 7.5, 12.0, 40.0, 500.0):
            assert float(I._t_quantile(p, np.array([df]))[0]) == pytest.approx(
                stats.t.ppf(p, df), rel=2e-4), (p, df)


def test_rows_are_independent_in_the_vector_form():
    rng = np.random.default_rng(5)
    series = []
    for location, scale, rho in ((100.0, 1.0, 0.3), (5.0, 0.01, 0.6), (1e6, 300.0, 0.0),
                                 (0.002, 1e-4, 0.8), (50.0, 5.0, -0.3)):
        e, v = rng.standard_normal(30), [0.0]
        for i in range(30):
            v.append(rho * v[-1] + e[i])
        series.append([location + scale * a for a in v[1:]])
    series.append([1 / 3] * 30)  # constant: no autocorrelation, whatever its rounding
    series.append([float(v) for v in np.linspace(5, 6, 30)[::-1]])
    rows = I._median_intervals(np.array(series), 0.95, True)
    for i, values in enumerate(series):
        one = I.median_interval(values, 0.95, shared_phases=True)
        assert (rows[0][i], rows[1][i], rows[2][i], rows[3][i], rows[4][i], rows[5][i]) == (
            one.estimate, one.low, one.high, one.effective_n, one.autocorrelation, one.valid), i
        middle, low, high, effective, valid = _reference_interval(values, 0.95,
                                                                  shared_phases=True)
        assert one.effective_n == pytest.approx(effective, rel=2e-3) and one.valid is valid, i
        assert (one.low, one.high) == pytest.approx((low, high), rel=1e-3), i
    assert I.lag1_autocorrelation(series[5]) == 0.0
