"""graphbench.gate.gpu_spread: the spread between physical GPUs of one model."""

from graphbench.gate.gpu_spread import SPREADS, UNMEASURED, Spread, spread_of


def test_a_measured_model_gets_its_own_spread():
    assert spread_of("NVIDIA H200") == Spread(busy=0.0075, reference=0.006)
    assert spread_of("NVIDIA H100 80GB HBM3") == Spread(busy=0.009, reference=0.0025)


def test_a_model_not_measured_gets_the_largest_of_each():
    assert spread_of("NVIDIA A100-SXM4-80GB") == UNMEASURED == Spread(0.009, 0.006)
    assert spread_of("") == UNMEASURED
    assert all(UNMEASURED.busy >= s.busy and UNMEASURED.reference >= s.reference
               for s in SPREADS.values())


def test_over_the_reference_the_spread_is_never_above_busy_times_own():
    # the reference is worth reading only where it takes out part of the spread
    assert all(s.reference < s.busy for s in SPREADS.values())
