"""GPU tests of the launch ladder: every rung verifies, graph rungs replay
new data, and a PDL kernel that reads before it waits is caught.

Covers graphbench/measure/loop.py."""

import pytest

from graphbench.stats.summary import summarize_run
from graphbench.config import RunConfig
from graphbench.ladder import LADDER, RUNG
from graphbench.runner import run_benchmark
from graphbench.measure.device import describe, open_device
from graphbench.measure.kernels import load_source
from graphbench.measure.session import load_kernels
from graphbench.pipeline.files import load_pipeline, plan

pytestmark = pytest.mark.gpu

SMALL = dict(elements=50_000, iters=30, rounds=3)


@pytest.fixture(scope="module")
def ladder_record():
    return run_benchmark(RunConfig(modes=("all",), unroll=4, **SMALL))


def test_every_rung_runs_and_verifies(ladder_record):
    record = ladder_record
    checks = {c.name: c for c in record.checks}
    assert record.verified, [c for c in record.checks if not c.passed]
    assert set(record.mode_names) | set(record.unavailable) == set(LADDER)
    for mode in record.mode_names:
        assert checks[f"{mode} [r3]"].passed and checks[f"{mode} [r3]"].elements == 50_000
        if RUNG[mode].graph:
            assert checks[f"{mode}: replay with new data [r3]"].passed


def test_every_graph_rung_has_lifecycle_costs_and_a_break_even(ladder_record):
    summary = summarize_run(ladder_record)
    graph_rungs = [m for m in ladder_record.mode_names if RUNG[m].graph]
    assert set(summary.lifecycles) == set(graph_rungs)
    for life in summary.lifecycles.values():
        assert life.build_us > 0 and life.first_launch_us.median > 0


def test_rungs_that_launch_less_submit_less_per_iteration(ladder_record):
    summary = summarize_run(ladder_record)
    held = {m: s.held_submit.median for m, s in summary.modes.items()}
    assert held["unrolled"] < held["graph"] < held["individual"]
    assert held["loop"] < held["unrolled"]  # one launch per 30 iterations against per 4


def test_busy_is_shared_by_rungs_running_the_same_kernels(ladder_record):
    assert ladder_record.workload("driver") == ladder_record.workload("loop") == "stages"
    if "graph-pdl" in ladder_record.mode_names:
        assert ladder_record.workload("graph-pdl") == "stages-pdl"


SPIN = """
__device__ void spin_ns(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
"""


def _early_reading_pdl(source: str) -> str:
    """PDL stages that let their dependant launch at once and never wait:
    each reads its inputs, then takes 200 us before it writes. So every stage
    reads its predecessor's output while the predecessor is still running.
    A race whose window is a few nanoseconds would pass any check by luck;
    this one is wide open, so the NaN poison must expose it every time."""
    racy = source.replace("        GRID_DEPENDENCY_WAIT();", "        TRIGGER_DEPENDENTS();")
    racy = racy.replace("out[i] = x[i] op y[i];",
                        "float v = x[i] op y[i]; spin_ns(200000); out[i] = v;")
    assert racy.count("spin_ns(200000)") == 1, "the PDL kernel template changed; update this test"
    return racy.replace("#define PDL_STAGE", SPIN + "\n#define PDL_STAGE", 1)


def test_a_pdl_kernel_that_reads_before_waiting_is_caught():
    info = describe(open_device(0))
    if tuple(map(int, info.compute_capability.split("."))) < (9, 0):
        pytest.skip("PDL needs compute capability 9.0+")
    built_in = plan(load_pipeline(None).spec, 1 << 16)
    kernels = load_kernels(info.arch, _early_reading_pdl(load_source()), built_in)
    # 2^16 elements: 256 blocks, one wave, so every block of the next stage
    # starts while the previous stage spins
    record = run_benchmark(RunConfig(modes=("individual", "pdl", "graph", "graph-pdl"),
                                     elements=1 << 16, iters=5, rounds=2), kernels=kernels)
    failed = {c.name.removesuffix(" [r3]") for c in record.checks if not c.passed}
    assert not failed & {"individual", "graph"}  # the plain kernels stay right
    assert {"pdl", "graph-pdl"} <= failed
    assert record.rounds == 0  # no figures for wrong results


def test_busy_is_read_again_after_the_checks_for_every_workload(ladder_record):
    run = ladder_record.runs[0]
    workloads = {ladder_record.workload(m) for m in ladder_record.mode_names}
    assert set(run.busy_after_checks) == workloads
    assert all(r.us > 0 and r.covered for r in run.busy_after_checks.values())
