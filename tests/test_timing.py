from graphbench.analyze.stopping import FixedRounds
from graphbench.measure.timing import Sample, round_order, run_rounds


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


def test_round_order_alternates():
    assert round_order(["a", "b", "c"], 0) == ["a", "b", "c"]
    assert round_order(["a", "b", "c"], 1) == ["c", "b", "a"]


def test_run_rounds_warms_up_interleaves_and_keeps_only_timed_rounds():
    timer = FakeTimer({"individual": 14e-6, "graph": 4e-6})
    progress = []
    sampling = run_rounds(_steps("individual", "graph"), 100, timer, FixedRounds(3),
                          warmup_rounds=2, on_round=lambda d, r: progress.append((d, r)))
    samples = sampling.samples
    assert sampling.stop_reason == "fixed-rounds" and sampling.rounds == 3
    assert [len(v) for v in samples.values()] == [3, 3]
    order = [name for name, _ in timer.calls]
    assert order == ["individual", "graph", "graph", "individual",      # warm-up, not kept
                     "individual", "graph", "graph", "individual", "individual", "graph"]
    assert all(iters == 100 for _, iters in timer.calls)
    assert progress == [(1, None), (2, None), (3, "fixed-rounds")]
    assert abs(samples["graph"][0].per_iteration_us(100)["wall"] - 4.0) < 1e-9
