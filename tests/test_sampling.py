"""The adaptive stopping rule on synthetic sample streams, through run_rounds."""

import numpy as np
import pytest

from graphbench.gate.stopping import NOISE_TARGET, TIME_BUDGET, FixedRounds, NoiseTarget
from graphbench.stats.noise import headline_noise
from graphbench.measure.timing import LoopHooks, Sample, run_rounds


def noise(samples):
    return headline_noise({mode: [s.wall_s for s in rounds] for mode, rounds in samples.items()})


class NoisyTimer:
    """Per-iteration wall times scattered by `noise` around each mode's mean;
    advances a fake clock by the time each round 'took'."""

    def __init__(self, means_us, noise, seed=0):
        self.means_us, self.noise = means_us, noise
        self.rng = np.random.default_rng(seed)
        self.now = 0.0

    def clock(self):
        return self.now

    def time_round(self, step, iters):
        us = self.means_us[step.__name__] * (1 + self.noise * self.rng.standard_normal())
        seconds = us * iters / 1e6
        self.now += seconds
        return Sample(seconds, seconds, seconds)


def steps(*names):
    made = {}
    for name in names:
        def step():
            pass
        step.__name__ = name
        made[name] = step
    return made


def sample(noise_level, rule, iters=1000):
    timer = NoisyTimer({"individual": 14.0, "graph": 4.3}, noise_level)
    return run_rounds(steps("individual", "graph"), iters, timer, rule,
                      LoopHooks(warmup_rounds=1, clock=timer.clock))


def test_quiet_data_stops_early_on_the_noise_target():
    result = sample(0.001, NoiseTarget(max_noise=0.01, min_rounds=20, max_time_s=5.0))
    assert result.stop_reason == NOISE_TARGET
    assert result.rounds == 20  # the first check already meets 1%
    assert noise(result.samples) <= 0.01


def test_noisy_data_runs_to_the_budget_and_says_so():
    result = sample(0.3, NoiseTarget(max_noise=0.01, min_rounds=10, max_time_s=0.5))
    assert result.stop_reason == TIME_BUDGET
    assert result.elapsed_s >= 0.5
    assert result.rounds > 10
    assert noise(result.samples) > 0.01


def test_moderate_noise_needs_more_rounds_than_the_minimum():
    result = sample(0.03, NoiseTarget(max_noise=0.01, min_rounds=10, max_time_s=60.0))
    assert result.stop_reason == NOISE_TARGET and result.rounds > 10


def test_fixed_rounds_ignore_noise():
    result = sample(0.3, FixedRounds(7))
    assert result.rounds == 7 and result.stop_reason == "fixed-rounds"


def test_noise_without_graph_uses_the_noisiest_mode():
    quiet = [Sample(1.0, 1.0, 1.0)] * 20
    noisy = [Sample(1.0 + 0.1 * (i % 3), 1.0, 1.0) for i in range(20)]
    assert noise({"individual": quiet}) == 0.0
    assert noise({"individual": quiet, "fused": noisy}) > 0.0
    assert noise({"individual": quiet, "fused": noisy}) == pytest.approx(noise({"fused": noisy}))


def test_before_each_and_monitor_run_outside_the_timed_calls():
    timer = NoisyTimer({"individual": 14.0, "graph": 4.3}, 0.0)
    calls = []
    result = run_rounds(steps("individual", "graph"), 10, timer, FixedRounds(3),
                        LoopHooks(warmup_rounds=0, before_each=lambda: calls.append("flush"),
                                  monitor=lambda: {"sm_clock_mhz": 1980}))
    assert calls == ["flush"] * 6  # before every timed round of every mode
    assert result.conditions == [{"sm_clock_mhz": 1980}] * 3


class RegimeTimer(NoisyTimer):
    """Quiet rounds, but individual launches get 40% slower for a stretch of
    rounds, as seen on a shared virtual machine."""

    def __init__(self):
        super().__init__({"individual": 12.0, "graph": 6.0}, 0.002)
        self.rounds = 0

    def time_round(self, step, iters):
        sample = super().time_round(step, iters)
        if step.__name__ == "graph":
            self.rounds += 1
        slow = step.__name__ == "individual" and (self.rounds // 4) % 2 == 1
        return Sample(sample.wall_s * 1.4, sample.submit_s, sample.device_s) if slow else sample


def test_a_machine_changing_speed_for_many_rounds_is_noise_not_precision():
    timer = RegimeTimer()
    result = run_rounds(steps("individual", "graph"), 1000, timer,
                        NoiseTarget(max_noise=0.01, min_rounds=10, max_time_s=2.0),
                        LoopHooks(warmup_rounds=0, clock=timer.clock))
    # each stretch alone is quiet to 0.2%; together the speedup is 2.0 or 2.8
    assert result.stop_reason == TIME_BUDGET
    assert noise(result.samples) > 0.05
