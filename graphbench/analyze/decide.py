"""The one decision rule every gate uses, stored baseline and A/B alike.

A gate judges an interval for the true relative change of a metric. The
threshold is the smallest regression the user wants caught, so the rule is
built to catch a change of that size, not merely to notice one:
- `slower`: the change is significantly worse than zero (the GATE_LEVEL
  interval excludes it) and the interval reaches the threshold;
- `faster`: the same in the good direction;
- `changed`: significant, but the whole interval lies within the
  threshold: a real change smaller than the one the gate is set to catch;
- `same`: not significant;
- `not gateable`: the pair cannot tell the threshold from noise.

`detectable` is the smallest true change this pair catches with POWER
probability: the GATE_LEVEL half-width (beyond which chance alone puts the
interval's far end with probability (1 - GATE_LEVEL) / 2) plus the one-sided
POWER half-width, each from a noise estimate widened by `noise_margin` for
that estimate's own error (the same widening decides whether a significant
change reaches the threshold). A metric is gateable only when its detectable
change is within the threshold, so a true change equal to the threshold is judged
slower at least POWER of the time, and identical code at most
(1 - GATE_LEVEL) / 2 of the time (both checked by simulation in
tests/test_gate_calibration.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GATE_LEVEL = 0.99   # two-sided: a false alarm needs a 0.5% tail
POWER = 0.95        # a change equal to the threshold is caught this often
POWER_LEVEL = 2 * POWER - 1  # the two-sided level whose half-width is POWER's one-sided width


def noise_margin(degrees_of_freedom: float) -> float:
    """How much `detectable` widens a noise estimate of that many degrees of
    freedom for the estimate's own error: a spread estimated from df values
    reads low by 1/sqrt(2 df) of itself about one time in six, and a pair
    that read its noise low would be judged gateable where it is not, and a
    change of the threshold would stop short of it. Without it, pairs that
    were gateable only by such luck caught the threshold 87-91% of the time
    (tests/test_gate_calibration.py)."""
    return 1 + 1 / math.sqrt(2 * max(degrees_of_freedom, 1.0))


FASTER, SAME, CHANGED, SLOWER = "faster", "same", "changed", "slower"
NOT_GATEABLE, INCOMPATIBLE, MISSING = "not gateable", "incompatible", "missing"
JUDGED = (FASTER, SAME, CHANGED, SLOWER)


@dataclass(frozen=True)
class Change:
    """The relative change of current against baseline, with its interval."""

    estimate: float
    low: float
    high: float
    detectable: float
    valid: bool = True
    reason: str = ""     # why not valid
    scope: str = ""      # what the interval covers, e.g. "between 5 and 1 processes"
    margin: float = 1.0  # noise_margin of the noise estimate: widens the reach test

    def reach(self) -> tuple[float, float]:
        """The interval widened by `margin` about the estimate: how far the
        change may reach once the noise estimate's own error is allowed for."""
        return (self.estimate - (self.estimate - self.low) * self.margin,
                self.estimate + (self.high - self.estimate) * self.margin)


def unjudgeable(reason: str, estimate: float = math.nan) -> Change:
    return Change(estimate, -math.inf, math.inf, math.inf, False, reason)


def decide(change: Change, threshold: float, higher_is_better: bool = False) -> tuple[str, str]:
    """The verdict on `change` for a relative `threshold`, and a note saying why."""
    if not change.valid:
        return NOT_GATEABLE, change.reason
    if change.detectable > threshold:
        return NOT_GATEABLE, (f"not gateable on this pair: it detects {change.detectable:.1%}, "
                              f"the threshold is {threshold:.1%}")
    sign = -1.0 if higher_is_better else 1.0
    low, high = sorted((sign * change.low, sign * change.high))  # worse is positive
    reach_low, reach_high = sorted(sign * x for x in change.reach())
    if low > 0:
        return (SLOWER if reach_high >= threshold else CHANGED), ""
    if high < 0:
        return (FASTER if reach_low <= -threshold else CHANGED), ""
    return SAME, ""
