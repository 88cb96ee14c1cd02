"""graphbench.measure.cpu_seek: each set of rounds starts on a CPU in the
host's fast speed state, found by reading the probe on a few CPUs.

Covers graphbench/report/host.py."""

import random

from graphbench.measure.cpu_seek import FAST_WITHIN, CpuSeeker, interrupt_cpus, seeker


class Host:
    """CPUs with a fixed probe reading each; `on` is the CPU the process is on."""

    def __init__(self, readings: dict[int, float], on: int):
        self.readings, self.on, self.moves = dict(readings), on, []

    def move(self, cpu: int) -> bool:
        self.on = cpu
        self.moves.append(cpu)
        return True

    def probe(self) -> float:
        return self.readings[self.on]


def make(readings, on=0, seed=0):
    host = Host(readings, on)
    return host, CpuSeeker(sorted(readings), host.probe, on, move=host.move,
                           rng=random.Random(seed))


def test_the_survey_learns_the_fast_level_and_stays_on_the_fastest_cpu():
    host, seek = make({0: 1000.0, 1: 980.0, 2: 560.0, 3: 600.0})
    assert seek.survey() == 560.0
    assert host.on == seek.cpu == 2
    assert seek.fastest == 560.0


def test_a_set_stays_where_it_is_while_the_cpu_is_fast():
    host, seek = make({0: 560.0, 1: 1000.0, 2: 590.0})
    seek.survey()
    host.moves.clear()
    host.readings[0] = 560.0 * FAST_WITHIN  # the edge of the fast state still counts as fast
    assert seek() == 560.0 * FAST_WITHIN
    assert host.moves == [] and seek.moves == 0 and seek.sets == 1


def test_a_slow_cpu_is_left_for_a_fast_one():
    host, seek = make({0: 560.0, 1: 1000.0, 2: 1050.0, 3: 600.0})
    seek.survey()
    host.readings[0] = 1100.0  # the CPU the run is on turned slow
    assert seek() == 600.0
    assert host.on == seek.cpu == 3 and seek.moves == 1


def test_with_no_fast_cpu_the_set_runs_on_the_least_slow_one_found():
    host, seek = make({0: 560.0, 1: 1000.0, 2: 900.0, 3: 1050.0})
    seek.survey()
    host.readings[0] = 1100.0
    assert seek() == 900.0
    assert host.on == seek.cpu == 2


def test_at_most_max_tries_other_cpus_are_probed_before_a_set():
    readings = {cpu: 1000.0 for cpu in range(16)}
    readings[0] = 500.0
    host, seek = make(readings)
    seek.survey()
    host.readings[0] = 1000.0
    host.moves.clear()
    seek()
    from graphbench.measure.cpu_seek import MAX_TRIES
    assert len(host.moves) == MAX_TRIES + 1  # the tries, then back to the best found


def test_no_seeker_for_an_unpinned_process_or_a_single_cpu():
    assert seeker(None, [0, 1, 2], lambda: 1.0, avoid=set()) is None
    assert seeker(3, [3], lambda: 1.0, avoid=set()) is None
    found = seeker(3, [5, 3, 4, 3], lambda: 1.0, avoid=set())
    assert found is not None and list(found.cpus) == [3, 4, 5] and found.cpu == 3


INTERRUPTS = """\
            CPU0       CPU1       CPU2       CPU3
  24:          0          0          0         12   PCI-MSI 1-edge      eth0
  42:          0          3          0      85083   PCI-MSIX-0000:00:06.0   0-edge      nvidia
  43:          0          0          0          0   PCI-MSIX-0000:00:06.0   1-edge      nvidia
  44:         12          0          0          0   PCI-MSIX-0000:00:06.0   2-edge      nvidia
 NMI:          5          5          5          5   Non-maskable interrupts
"""


def test_the_cpus_serving_the_gpu_s_interrupts_are_found_by_their_share():
    # CPU 3 serves almost every interrupt of the busy vector, CPU 0 all of a
    # quiet one; CPU 1's 3 of 85086 and eth0's CPU are not the GPU's
    assert interrupt_cpus(INTERRUPTS) == {0, 3}
    assert interrupt_cpus("") == set()
    assert interrupt_cpus(INTERRUPTS.replace("nvidia", "other")) == set()


def test_the_seeker_never_chooses_a_cpu_serving_the_gpu_s_interrupts():
    found = seeker(3, [0, 1, 2, 3], lambda: 1.0, avoid={3})
    assert list(found.cpus) == [0, 1, 2] and found.cpu == 0  # moved off the pinned one
    assert seeker(1, [1, 3], lambda: 1.0, avoid={3}) is None  # one CPU left: nothing to seek


def test_every_thread_is_back_on_its_own_cpus_after_sampling():
    # seeking moves the whole process; a process that called graphbench (a
    # test session, a training script) must keep its threads' CPUs
    import os
    import threading

    from graphbench.measure.cpu_seek import move_process

    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        import pytest
        pytest.skip("needs two CPUs this process may use")
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        before = {t: os.sched_getaffinity(t) for t in map(int, os.listdir("/proc/self/task"))}
        seek = CpuSeeker(allowed[:2], lambda: 600.0, allowed[0])
        seek.survey()
        assert move_process(allowed[1])
        assert all(os.sched_getaffinity(t) == {allowed[1]} for t in before)
        seek.restore()
        assert {t: os.sched_getaffinity(t) for t in before} == before
    finally:
        stop.set()
        worker.join()


def test_the_report_says_how_the_sampling_chose_its_cpus():
    import dataclasses

    from conftest import make_record
    from graphbench.record.model import Environment
    from graphbench.report.host import seek_line
    from graphbench.report.run import run_report
    from rich.console import Console

    record = make_record()
    assert seek_line(record) == ""  # a record made without seeking (or before it) says nothing
    runs = [dataclasses.replace(run, environment=Environment(None, 3, moves, interrupts))
            for run, moves, interrupts in zip(record.runs * 2, (7, 5), ((14,), (14, 15)))]
    sought = dataclasses.replace(record, runs=tuple(runs))
    line = ("cpu: each set of rounds started on a CPU in the host's fast state (12 moves; "
            "never CPUs 14, 15, which serve the GPU's interrupts)")
    assert seek_line(sought) == line
    console = Console(width=200, record=True)
    console.print(run_report(sought))
    assert line in console.export_text()
    one = dataclasses.replace(record, runs=(dataclasses.replace(
        record.runs[0], environment=Environment(None, 3, 0, ())),))
    assert seek_line(one) == ("cpu: each set of rounds started on a CPU in the host's fast "
                              "state (0 moves)")
    alone = dataclasses.replace(record, runs=(dataclasses.replace(
        record.runs[0], environment=Environment(None, 3, 2, (14,))),))
    assert seek_line(alone).endswith("(2 moves; never CPU 14, which serves the GPU's interrupts)")
