"""Graph memory and capture cost per node (issue 22, item 3): the record
fields round-trip, the lifecycle reads free memory outside its timed
phases, and the per-node fit recovers a known line from stored samples."""

import dataclasses
import json

import pytest

from conftest import make_record

from graphbench.analyze.node_costs import fit_line, fit_node_costs
from graphbench.analyze.summary import summarize_run
from graphbench.errors import RecordError
from graphbench.measure.costs import time_graph_lifecycle, time_node_costs
from graphbench.record.codec import load_document, run_document
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


def test_lifecycle_reads_free_memory_once_over_copies_of_the_executable():
    """One executable moves free memory by 0 or a 2 MiB chunk: the reading is
    taken over `copies` executables of the first capture, per copy, once."""
    log, free = [], iter([10_000, 10_000 - 4 * 1536])

    def read_free():
        log.append("free")
        return next(free)

    life = time_graph_lifecycle(FakeStream(log), lambda target: log.append("enqueue"),
                                reps=3, free_memory=read_free, copies=4)
    assert life.graph_memory_bytes == (1536,)
    first = log[:log.index("launch") + 1]
    assert first == ["sync", "free", "enqueue", "complete", "upload", "sync",
                     "complete", "upload", "complete", "upload", "complete", "upload",
                     "sync", "free", "close", "close", "close", "launch"]
    assert log.count("free") == 2 and log.count("complete") == 4 + 2  # later reps: one each
    assert log.count("close") == 3 + 3 * 2  # the extra copies; each rep's graph and builder


def test_no_copies_read_no_memory():
    life = time_graph_lifecycle(FakeStream([]), lambda target: None, reps=2, copies=0,
                                free_memory=lambda: pytest.fail("read"))
    assert life.graph_memory_bytes == ()


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
