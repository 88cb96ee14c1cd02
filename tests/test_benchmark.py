"""graphbench.measure.benchmark, the parts that need no GPU: a process's part
of the record from its sampling."""

from types import SimpleNamespace

from graphbench.config import RunConfig
from graphbench.measure.benchmark import (GATE_POINT_ROUND_S, ROUND_TARGET_S, calibrate_iters,
                                          fast_cpu_seeker, process_run)
from graphbench.measure.timing import Sample, Sampling
from graphbench.record.machine import LAUNCH_PROBE


def session(pinned_cpu=None, near=(), earlier_runs=0):
    mode = SimpleNamespace(name="individual", workload="stages", iterations_per_call=1,
                           calls_per_round=lambda iters: iters)
    return SimpleNamespace(config=RunConfig(iters=10), modes=[mode], pinned_cpu=pinned_cpu,
                           near_cpus=list(near), unavailable={}, earlier_runs=earlier_runs,
                           monitor=SimpleNamespace(other_processes=lambda: ()))


def sampling(**seeking):
    sample = Sample(wall_s=1e-4, submit_s=1e-4, device_s=1e-4)
    return Sampling({"individual": [sample] * 3}, "fixed-rounds", 3, 0.01,
                    probes={"individual": [(600.0, 610.0)] * 3}, **seeking)


def test_the_record_keeps_how_the_sampling_chose_its_cpus():
    run = process_run(session(2), sampling(cpu_moves=4, interrupt_cpus=(14,)), [], {}, 1.0)
    assert (run.environment.pinned_cpu, run.environment.cpu_moves,
            run.environment.interrupt_cpus) == (2, 4, (14,))
    assert run.environment.host_probe == LAUNCH_PROBE  # the probes' kind, for the gate
    assert run.environment.earlier_runs == 0


def test_the_record_counts_the_runs_its_process_measured_before_it():
    run = process_run(session(earlier_runs=2), sampling(), [], {}, 1.0)
    assert run.environment.earlier_runs == 2
    still = process_run(session(2), sampling(), [], {}, 1.0)  # --no-pin, or one CPU
    assert (still.environment.cpu_moves, still.environment.interrupt_cpus) == (None, ())
    failed = process_run(session(2), None, [], {}, 1.0)  # no figures kept
    assert failed.environment.cpu_moves is None and failed.rounds == 0


def test_no_seeking_for_a_process_that_is_not_pinned():
    assert fast_cpu_seeker(session(None, [0, 1, 2]), lambda: 600.0) is None


def test_auto_iterations_aim_at_a_round_of_10_ms_and_half_that_at_a_gate_point():
    # 20 us an iteration, read from the timer's rounds of the first mode
    timer = SimpleNamespace(time_round=lambda step, calls: SimpleNamespace(wall_s=20e-6 * calls))
    mode = SimpleNamespace(step=lambda: None, iterations_per_call=1)
    run = SimpleNamespace(config=RunConfig(), modes=[mode], timer=timer)
    point = SimpleNamespace(config=RunConfig(gate_point=True), modes=[mode], timer=timer)
    assert ROUND_TARGET_S == 2 * GATE_POINT_ROUND_S == 0.01
    assert 499 <= calibrate_iters(run) <= 500  # int() of a float quotient
    assert 249 <= calibrate_iters(point) <= 250
