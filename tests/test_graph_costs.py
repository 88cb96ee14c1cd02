"""Graph memory and capture cost per node: the record
fields round-trip, the lifecycle reads free memory outside its timed
phases, and the per-node fit recovers a known line from stored samples.

Covers graphbench/stats/node_costs.py.
Covers graphbench/measure/costs.py.
Covers graphbench/measure/graph_memory.py.
Covers graphbench/report/graph_costs.py."""

import dataclasses
import json

import numpy as np
import pytest

from conftest import make_record

from graphbench.stats.node_costs import fit_line, fit_node_costs
from graphbench.stats.summary import summarize_run
from graphbench.errors import RecordError
from graphbench.measure.costs import time_graph_lifecycle, time_node_costs
from graphbench.measure.graph_memory import per_executable
from graphbench.record.codec import load_document, run_document
from graphbench.record.graph_costs import check_node_costs
from graphbench.record.model import LifecycleSamples, NodeCostSamples
from graphbench.report.run import run_report
from graphbench.report.tables import to_text


class FakeGraph:
    def __init__(self, log):
        self.log = log

    def complete(self):
        self.log.append("complete")
        return self

    def upload(self, stream):
        self.log.append("upload")

    def launch(self, stream):
        self.log.append("launch")

    def close(self):
        self.log.append("close")


class FakeStream:
    def __init__(self, log):
        self.log = log

    def sync(self):
        self.log.append("sync")

    def create_graph_builder(self):
        stream = self

        class Builder(FakeGraph):
            def begin_building(self):
                pass

            def end_building(self):
                pass
        return Builder(stream.log)


class Pool:
    """Free device memory as the H200's driver keeps it: executables take
    `size` bytes from 2 MiB chunks, and `kept` bytes of chunks that closed
    graphs left are used first."""

    CHUNK = 2 << 20

    def __init__(self, size, kept=0, refuse_after=None):
        self.size, self.kept, self.live, self.refuse_after = size, kept, 0, refuse_after
        self.total = 80 << 30

    def free(self):
        needed = max(0, self.live * self.size - self.kept)
        return self.total - self.kept - -(-needed // self.CHUNK) * self.CHUNK

    def builder(self):
        pool = self

        class Executable:
            def upload(self, stream):
                pass

            def close(self):
                pool.live -= 1

        class Builder:
            def complete(self):
                if pool.refuse_after is not None and pool.live >= pool.refuse_after:
                    raise RuntimeError("CUDA_ERROR_NOT_SUPPORTED")
                pool.live += 1
                return Executable()
        return Builder()


@pytest.mark.parametrize("size, kept", [(104 << 10, 0), (104 << 10, 27 << 20),
                                        (700 << 10, 6 << 20), (2300 << 10, 0)])
def test_graph_memory_per_executable_sees_through_chunks_and_the_kept_pool(size, kept):
    pool = Pool(size, kept)
    found = per_executable(FakeStream([]), pool.builder(), pool.free)
    assert found == pytest.approx(size, rel=0.07)
    assert pool.live == 0  # every copy closed


def test_graph_memory_is_unknown_when_free_memory_rises_meanwhile():
    pool = Pool(104 << 10)
    reads = iter([10 << 30, (10 << 30) - (4 << 20)] + [(10 << 30) + (8 << 20)] * 40)
    assert per_executable(FakeStream([]), pool.builder(), lambda: next(reads)) is None
    assert pool.live == 0


def test_graph_memory_of_tiny_executables_is_zero_and_of_refused_copies_unknown():
    tiny = Pool(1 << 10, kept=4 << 20)
    assert per_executable(FakeStream([]), tiny.builder(), tiny.free) == 0
    refused = Pool(104 << 10, refuse_after=1)
    refused.live = 1  # the timed executable exists; a second one is refused
    assert per_executable(FakeStream([]), refused.builder(), refused.free) is None
    assert refused.live == 1


def test_lifecycle_reads_memory_once_between_upload_and_first_launch():
    log, reads = [], []

    def read_free():
        reads.append(len(log))
        return 1 << 30
    life = time_graph_lifecycle(FakeStream(log), lambda target: log.append("enqueue"),
                                reps=3, free_memory=read_free)
    assert life.graph_memory_bytes == (0,)  # the fakes take no memory: no fall in MOST copies
    first_launch = log.index("launch")
    assert reads and all(log.index("upload") < r <= first_launch for r in reads)
    assert log.count("launch") == 3
    assert time_graph_lifecycle(FakeStream([]), lambda t: None, reps=2, read_memory=False,
                                free_memory=lambda: pytest.fail("read")).graph_memory_bytes == ()


def test_node_costs_capture_each_repeat_count():
    log = []
    costs = time_node_costs(FakeStream(log), lambda target: log.append("enqueue"), 3,
                            repeats=(1, 2, 4), reps=2)
    assert costs.nodes == (3, 3, 6, 6, 12, 12)
    assert log.count("enqueue") == 2 * (1 + 2 + 4)
    assert len(costs.capture_us) == len(costs.instantiate_us) == 6
    assert costs.graph_memory_bytes == ()  # the pool holds what earlier graphs left


def node_costs(a=5.0, b=0.8, c=2.0, d=1.5):
    nodes = (3, 3, 6, 6, 12, 12, 24, 24, 48, 48)
    wobble = [0.1, -0.1] * 5
    return NodeCostSamples(nodes, tuple(a + b * n + w for n, w in zip(nodes, wobble)),
                           tuple(c + d * n for n in nodes), tuple(4096 * n for n in nodes))


def test_fit_recovers_a_known_line():
    fit = fit_node_costs(node_costs())
    assert fit.capture.per_node_us == pytest.approx(0.8, abs=1e-9)
    assert fit.capture.fixed_us == pytest.approx(5.0, abs=1e-9)
    assert fit.capture.residual_us == pytest.approx(0.1, abs=1e-9)
    assert fit.instantiate.per_node_us == pytest.approx(1.5) and fit.instantiate.residual_us < 1e-9
    assert fit.memory_per_node_bytes == pytest.approx(4096)
    assert fit.nodes == (3, 48) and fit.capture.samples == 10


def test_one_node_count_gives_no_fit():
    assert fit_node_costs(NodeCostSamples((3, 3), (1.0, 1.1), (2.0, 2.1))) is None
    assert fit_node_costs(None) is None
    assert fit_line((1, 2, 3), (2, 4, 6)).per_node_us == pytest.approx(2)


def with_costs(record, memory=(2 << 20,) * 10, costs=None):
    run = record.runs[0]
    lifecycles = {name: dataclasses.replace(life, graph_memory_bytes=memory)
                  for name, life in run.lifecycles.items()}
    return dataclasses.replace(record, runs=(dataclasses.replace(
        run, lifecycles=lifecycles, node_costs=costs or node_costs()),))


def test_memory_and_node_costs_round_trip_through_the_record():
    record = with_costs(make_record())
    document = json.loads(json.dumps(run_document(record)))
    back = load_document(document, "test")
    assert back.runs[0].lifecycles == record.runs[0].lifecycles
    assert back.runs[0].node_costs == record.runs[0].node_costs


def test_older_records_read_without_the_new_fields():
    document = json.loads(json.dumps(run_document(make_record())))
    for run in document["runs"]:
        run.pop("node_costs")
        for life in run["lifecycles"].values():
            life.pop("graph_memory_bytes")
    back = load_document(document, "test")
    assert back.runs[0].node_costs is None
    assert all(life.graph_memory_bytes == () for life in back.runs[0].lifecycles.values())


def test_node_costs_of_different_lengths_are_refused():
    document = json.loads(json.dumps(run_document(with_costs(make_record()))))
    document["runs"][0]["node_costs"]["capture_us"].pop()
    with pytest.raises(RecordError, match="node_costs: series of different lengths"):
        load_document(document, "test")


def test_report_shows_memory_and_per_node_costs():
    summary = summarize_run(with_costs(make_record()))
    assert summary.lifecycle.graph_memory_bytes == 2 << 20
    text = to_text(run_report(with_costs(make_record())), width=200)
    assert "takes 2.0 MiB of device memory" in text
    assert "graph per node, fitted over 3..48 nodes: capture 5.0 us + 0.80 us/node" in text
    assert "instantiate 2.0 us + 1.50 us/node (rms 0.0 us)" in text
    assert "4.0 KiB of device memory per node" in text


def test_lifecycle_without_memory_keeps_its_line():
    text = to_text(run_report(make_record()), width=200)
    assert "device memory" not in text and "per node" not in text
    assert LifecycleSamples((1.0,), (1.0,), (1.0,), (1.0,)).graph_memory_bytes == ()


def test_fit_line_and_node_costs():
    line = fit_line([1, 2, 3, 4], [12.0, 14.0, 16.0, 18.5])
    slope, intercept = np.polyfit([1, 2, 3, 4], [12.0, 14.0, 16.0, 18.5], 1)
    assert line.per_node_us == pytest.approx(slope) and line.fixed_us == pytest.approx(intercept)
    residual = np.sqrt(np.mean((np.array([12, 14, 16, 18.5]) -
                                (intercept + slope * np.array([1, 2, 3, 4]))) ** 2))
    assert line.residual_us == pytest.approx(residual) and line.residual_us > 0
    assert line.samples == 4
    samples = NodeCostSamples(nodes=(10, 20, 40, 10), capture_us=(20.0, 30.0, 50.0, 20.0),
                              instantiate_us=(5.0, 7.0, 11.0, 5.0),
                              graph_memory_bytes=(1000.0, 2000.0, 4000.0, 1000.0))
    fit = fit_node_costs(samples)
    assert fit.capture.per_node_us == pytest.approx(1.0)
    assert fit.capture.fixed_us == pytest.approx(10.0)
    assert fit.instantiate.per_node_us == pytest.approx(0.2)
    assert fit.instantiate.fixed_us == pytest.approx(3.0)
    assert fit.nodes == (10, 40) and fit.memory_per_node_bytes == pytest.approx(100.0)
    assert fit_node_costs(dataclasses.replace(samples, graph_memory_bytes=())
                          ).memory_per_node_bytes is None
    assert fit_node_costs(None) is None
    two = NodeCostSamples(nodes=(10, 20), capture_us=(20.0, 30.0), instantiate_us=(5.0, 7.0))
    assert fit_node_costs(two).capture.per_node_us == pytest.approx(1.0)  # two counts: a line
    one_count = NodeCostSamples(nodes=(10, 10), capture_us=(1.0, 2.0), instantiate_us=(1.0, 1.0),
                                graph_memory_bytes=())
    assert fit_node_costs(one_count) is None


def costs(nodes=(10, 20), capture=(5.0, 9.0), instantiate=(7.0, 12.0), memory=()):
    return NodeCostSamples(nodes, capture, instantiate, memory)


def test_node_costs_of_one_length_and_positive_times_pass():
    check_node_costs(None, "runs[0]", 1e12)
    check_node_costs(costs(), "runs[0]", 1e12)
    check_node_costs(costs(memory=(0, 4096)), "runs[0]", 1e12)
    check_node_costs(costs(capture=(1e12, 1.0)), "runs[0]", 1e12)  # at the limit


@pytest.mark.parametrize("bad, named", [
    (costs(nodes=(10,)), "runs[1].node_costs: series of different lengths"),
    (costs(capture=(1.0,)), "runs[1].node_costs: series of different lengths"),
    (costs(instantiate=(1.0, 2.0, 3.0)), "runs[1].node_costs: series of different lengths"),
    (costs(memory=(1,)), "runs[1].node_costs: series of different lengths"),
    (costs(nodes=(0, 20)), "runs[1].node_costs.nodes: a graph of no nodes"),
    (costs(nodes=(10, -1)), "runs[1].node_costs.nodes: a graph of no nodes"),
    (costs(capture=(0.0, 1.0)), "runs[1].node_costs: a time that is not positive"),
    (costs(instantiate=(1.0, -2.0)), "runs[1].node_costs: a time that is not positive"),
    (costs(capture=(1.0, 2e12)), "runs[1].node_costs: a time that is not positive"),
])
def test_bad_node_costs_are_refused_by_path(bad, named):
    with pytest.raises(RecordError) as info:
        check_node_costs(bad, "runs[1]", 1e12)
    assert info.value.message.startswith(named)
