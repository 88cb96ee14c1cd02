from graphbench.gate.stopping import FixedRounds
from graphbench.measure.timing import LoopHooks, Sample, run_rounds
from graphbench.sampling import round_order


class FakeTimer:
    """Records which mode ran when, and answers with a fixed time per mode."""

    def __init__(self, seconds_by_step):
        self.seconds_by_step = seconds_by_step
        self.calls = []

    def time_round(self, step, iters):
        self.calls.append((step.__name__, iters))
        seconds = self.seconds_by_step[step.__name__] * iters
        return Sample(wall_s=seconds, submit_s=seconds / 2, device_s=seconds)


def _steps(*names):
    def make(name):
        def step():
            pass
        step.__name__ = name
        return step
    return {name: make(name) for name in names}


def test_round_order_rotates_so_every_mode_takes_every_slot():
    names = ["individual", "graph", "fused"]
    orders = [round_order(names, r) for r in range(3)]
    assert orders == [names, ["graph", "fused", "individual"], ["fused", "individual", "graph"]]
    for slot in range(3):  # first (right after the probes), middle, last
        assert {order[slot] for order in orders} == set(names)
    assert round_order(names, 3) == names


def test_every_mode_runs_right_after_the_monitor_in_some_round():
    timer = FakeTimer({"individual": 14e-6, "graph": 4e-6, "fused": 4e-6})
    after_monitor = []
    marks = []
    run_rounds(_steps("individual", "graph", "fused"), 10, timer, FixedRounds(6),
               LoopHooks(warmup_rounds=0, monitor=lambda: marks.append(len(timer.calls))))
    after_monitor = [timer.calls[i][0] for i in marks[:-1]]
    assert set(after_monitor) == {"individual", "graph", "fused"}


def test_garbage_collection_is_off_while_rounds_run_and_restored_after():
    import gc

    seen = []
    timer = FakeTimer({"graph": 4e-6})
    original = timer.time_round
    timer.time_round = lambda step, iters: (seen.append(gc.isenabled()), original(step, iters))[1]
    assert gc.isenabled()
    run_rounds(_steps("graph"), 10, timer, FixedRounds(2), LoopHooks(warmup_rounds=1))
    assert seen and not any(seen)
    assert gc.isenabled()


def test_run_rounds_warms_up_interleaves_and_keeps_only_timed_rounds():
    timer = FakeTimer({"individual": 14e-6, "graph": 4e-6})
    progress = []
    sampling = run_rounds(_steps("individual", "graph"), 100, timer, FixedRounds(3),
                          LoopHooks(warmup_rounds=2, on_round=lambda d, r: progress.append((d, r))))
    samples = sampling.samples
    assert sampling.stop_reason == "fixed-rounds" and sampling.rounds == 3
    assert [len(v) for v in samples.values()] == [3, 3]
    order = [name for name, _ in timer.calls]
    assert order == ["individual", "graph", "graph", "individual",      # warm-up, not kept
                     "individual", "graph", "graph", "individual", "individual", "graph"]
    assert all(iters == 100 for _, iters in timer.calls)
    assert progress == [(1, None), (2, None), (3, "fixed-rounds")]
    assert abs(samples["graph"][0].per_iteration_us(100)["wall"] - 4.0) < 1e-9


def test_the_host_probe_is_read_between_every_two_rounds_and_each_round_keeps_its_pair():
    timer = FakeTimer({"individual": 14e-6, "graph": 4e-6})
    readings = iter(range(100, 1000))
    seen_by_monitor = []

    class Stop:  # the stop rule judges the rounds as measured: it is given no probe
        def reason_to_stop(self, rounds_done, elapsed_s, walls):
            return "fixed" if rounds_done == 2 else None

    hooks = LoopHooks(warmup_rounds=0,
                      monitor=lambda **probes: seen_by_monitor.append(probes) or probes,
                      host_probe=lambda: float(next(readings)))
    sampling = run_rounds(_steps("individual", "graph"), 10, timer, Stop(), hooks)
    # set 0: 100 | individual | 101 | graph | 102; set 1: 103 | graph | 104 | individual | 105
    assert sampling.probes == {"individual": [(100.0, 101.0), (104.0, 105.0)],
                               "graph": [(101.0, 102.0), (103.0, 104.0)]}
    assert seen_by_monitor == [{"host_probe_before_us": 100.0, "host_probe_us": 102.0},
                               {"host_probe_before_us": 103.0, "host_probe_us": 105.0}]


def test_without_a_host_probe_the_loop_reads_none_and_the_monitor_takes_no_readings():
    timer = FakeTimer({"graph": 4e-6})
    marks = []
    sampling = run_rounds(_steps("graph"), 10, timer, FixedRounds(2),
                          LoopHooks(warmup_rounds=0, monitor=lambda: marks.append(1)))
    assert sampling.probes == {} and marks == [1, 1]
