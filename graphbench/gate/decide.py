"""The one decision rule every gate uses, stored baseline and A/B alike.

The contract, for a relative threshold T (worse is positive):
1. a true change of T or more is judged `slower` at least POWER of the time;
2. a true change of T/2 or less passes (`same`, `changed` or `faster`) at
   least BOUND_LEVEL of the time;
3. identical code is judged `slower` at most 1% of the time;
4. where the pair's noise cannot give both 1 and 2 the metric is `not
   gateable`, and the note says how much more data would make it gateable,
   unless this change is clear of the indifference zone (below).

T/2 to T is the indifference zone: a change in it may go either way. With s
the standard error of the estimate, and b(s), p(s) the one-sided widths at
BOUND_LEVEL and POWER (Student's t where s is estimated from few degrees of
freedom, its estimated part widened by `noise_margin` for its own error;
normal quantiles for a known systematic part, added in quadrature):
- gateable iff b(s) + p(s) <= T/2; `detectable`, the smallest threshold the
  pair can gate, is 2 (b(s) + p(s));
- `slower` iff the estimate exceeds T/2 + B, B = (T/2) b / (b + p): the
  one-sided bound b at the largest noise at which the pair is still
  gateable (3T/4 while BOUND_LEVEL = POWER). At that noise a change of T/2
  reaches it 1 - BOUND_LEVEL of the time and a change of T falls short of it
  1 - POWER of the time; at any smaller true noise, less often. Deciding
  at T/2 + b(s) instead holds only while s is read right: in simulation, of
  pairs gateable only because their noise read low, up to 16% at T/2 were
  judged slower, against at most 8% with B;
- since B >= b(s), `slower` also means the one-sided BOUND_LEVEL lower bound
  lies above T/2, and the estimate exceeds 3 b(s), beyond the two-sided 99%
  half-width down to 2 degrees of freedom: every `slower` is significant;
- identical code is judged slower only past 3T/4 >= 3 b(s), about 4.9
  standard errors: far inside the 1% of promise 3;
- `faster` the same way in the good direction;
- `changed`: significant at GATE_LEVEL (the two-sided interval excludes 0),
  neither slower nor faster, and |estimate| above the resolution floor that
  identical builds reach (A/A): a change no run of the same code shows;
- `same`: otherwise.

A pair too noisy to be gateable in general can still be clear of the zone:
its two-sided GATE_LEVEL interval lies wholly above T (`slower`: a change of
T/2 or less, identical code included, gets there at most (1 - GATE_LEVEL)/2
of the time, so promises 2 and 3 hold), or wholly below T/2 (a pass: a
change of T or more gets there as rarely, so promise 1 holds), or wholly
below -T (`faster`). A large host-side regression on a noisy pair is so
judged `slower` where rule 4 alone would leave it `not gateable`
(docs/gate.md#the-verdicts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

GATE_LEVEL = 0.99   # two-sided: the interval shown, and what `changed` needs
BOUND_LEVEL = 0.95  # one-sided: a change of half the threshold stays below its bound this often
POWER = 0.95        # a change equal to the threshold is caught this often
Z_BOUND, Z_POWER = 1.6449, 1.6449  # normal quantiles at BOUND_LEVEL and POWER
# Relative: no spread below this, whatever the data say (a stored baseline's
# floor under `changed` too: between processes nothing finer is resolved).
RESOLUTION = 1e-4


def noise_margin(degrees_of_freedom: float) -> float:
    """How much a noise estimate of that many degrees of freedom is widened
    for its own error: a spread estimated from df values reads low by
    1/sqrt(2 df) of itself about one time in six, and a pair that read its
    noise low would be judged gateable where it is not, and a change of the
    threshold would stop short of its bound."""
    return 1 + 1 / math.sqrt(2 * max(degrees_of_freedom, 1.0))


def one_sided_widths(se: float, q_bound: float, q_power: float,
                     systematic: float = 0.0) -> tuple[float, float]:
    """(bound, power): the one-sided widths of the contract for an estimated
    standard error `se` (already widened; quantiles q_bound and q_power for
    its degrees of freedom) and a known systematic sd added in quadrature
    with normal quantiles."""
    return (math.hypot(q_bound * se, Z_BOUND * systematic),
            math.hypot(q_power * se, Z_POWER * systematic))


FASTER, SAME, CHANGED, SLOWER = "faster", "same", "changed", "slower"
NOT_GATEABLE, INCOMPATIBLE, MISSING = "not gateable", "incompatible", "missing"
TOO_FEW = "too few baseline processes"  # how the note on a baseline of 1 or 2 opens
# how the note opens of a metric whose figures, as measured, are worse by
# more than its threshold though the pair could not judge it: not a pass
WORSE_AS_MEASURED = "worse as measured"
JUDGED = (FASTER, SAME, CHANGED, SLOWER)


@dataclass(frozen=True)
class Change:
    """The relative change of current against baseline: its estimate, its
    GATE_LEVEL interval, and the one-sided widths the contract decides on."""

    estimate: float
    low: float
    high: float
    detectable: float    # the smallest threshold this pair can gate: 2 (bound + power)
    valid: bool = True
    reason: str = ""     # why not valid
    scope: str = ""      # what the interval covers, e.g. "between 5 and 1 processes"
    # b(s): estimate - bound is the one-sided BOUND_LEVEL lower bound; not
    # stated (nan): the share of `detectable` the normal quantiles give it
    bound: float = math.nan
    floor: float = 0.0   # |estimate| a `changed` needs: the A/A resolution
    # threshold -> what more data would make the pair gateable at it ("" when nothing would)
    advice: Callable[[float], str] | None = field(default=None, compare=False, repr=False)


def unjudgeable(reason: str, estimate: float = math.nan) -> Change:
    return Change(estimate, -math.inf, math.inf, math.inf, False, reason)


def decide(change: Change, threshold: float, higher_is_better: bool = False) -> tuple[str, str]:
    """The verdict on `change` for a relative `threshold`, and a note saying why."""
    if not change.valid:
        return NOT_GATEABLE, change.reason
    sign = -1.0 if higher_is_better else 1.0
    worse = sign * change.estimate
    low, high = sorted((sign * change.low, sign * change.high))
    if not change.detectable <= threshold:
        noise = f"it detects {change.detectable:.1%}, the threshold is {threshold:.1%}"
        clear, where = _clear_of_zone(change, threshold, worse, low, high)
        if clear:  # the verdict stands, so the note must not open with "not gateable"
            return clear, (f"judged though the pair is noisy: {noise}, and this change's "
                           f"{GATE_LEVEL:.0%} interval lies wholly {where}")
        more = change.advice(threshold) if change.advice else ""
        return NOT_GATEABLE, f"not gateable on this pair: {noise}" + (f"; {more}" if more else "")
    # the bound at the largest noise this pair could have and still be gateable
    share = change.bound / change.detectable if change.detectable > 0 and \
        math.isfinite(change.bound) else Z_BOUND / (Z_BOUND + Z_POWER) / 2
    edge = threshold / 2 + threshold * share
    if worse > edge:
        return SLOWER, ""
    if worse < -edge:
        return FASTER, ""
    return (CHANGED if _significant(change, worse, low, high) else SAME), ""


def _significant(change: Change, worse: float, low: float, high: float) -> bool:
    """`changed` rather than `same`: the interval excludes 0 and the change
    exceeds the resolution floor."""
    return (low > 0 or high < 0) and abs(worse) > change.floor


def _clear_of_zone(change: Change, threshold: float, worse: float, low: float,
                   high: float) -> tuple[str, str]:
    """The verdict of a pair too noisy to be gateable whose GATE_LEVEL
    interval (`low`..`high`, worse positive) is clear of the indifference
    zone (the module docstring), and where it lies; ("", "") where it is not."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "", ""
    if low > threshold:
        return SLOWER, "above the threshold"
    if high < -threshold:
        return FASTER, "beyond the threshold in the good direction"
    if high < threshold / 2:
        return (CHANGED if _significant(change, worse, low, high) else SAME,
                "below half the threshold")
    return "", ""
