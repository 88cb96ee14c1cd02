"""graphbench.gate.decide: a change's verdict at the edges of its threshold, the noise margin
and what is not gateable."""

from __future__ import annotations

import math

from graphbench.gate.decide import (CHANGED, FASTER, NOT_GATEABLE, SAME, SLOWER, Change, decide,
                                    noise_margin, unjudgeable)


def test_decide_at_the_edges():
    assert decide(Change(0.05, 0.01, 0.05, 0.04), 0.05) == (SLOWER, "")
    assert decide(Change(0.03, 0.01, 0.0499, 0.04), 0.05) == (CHANGED, "")
    assert decide(Change(-0.05, -0.05, -0.01, 0.04), 0.05) == (FASTER, "")
    assert decide(Change(-0.03, -0.0499, -0.01, 0.04), 0.05) == (CHANGED, "")
    assert decide(Change(0.0, 0.0, 0.01, 0.04), 0.05) == (SAME, "")
    assert decide(Change(0.0, -0.01, 0.0, 0.04), 0.05) == (SAME, "")
    # an interval that only touches 0 is not significant, nor a change of exactly the floor
    assert decide(Change(0.01, 0.0, 0.02, 0.04), 0.05) == (SAME, "")
    assert decide(Change(-0.01, -0.02, 0.0, 0.04), 0.05) == (SAME, "")
    assert decide(Change(0.001, 0.0005, 0.0015, 0.02, floor=0.001), 0.05) == (SAME, "")
    # a pair that detects 0 takes the default share of the threshold for its bound
    assert decide(Change(0.0, -0.01, 0.01, 0.0, bound=0.0), 0.05) == (SAME, "")
    assert decide(Change(0.1, 0.06, 0.14, 0.05), 0.05)[0] == SLOWER   # detectable == threshold
    verdict, note = decide(Change(0.1, 0.04, 0.16, 0.0501), 0.05)
    assert verdict == NOT_GATEABLE
    assert note == "not gateable on this pair: it detects 5.0%, the threshold is 5.0%"
    # higher is better (speedup): a fall is worse
    assert decide(Change(-0.1, -0.14, -0.06, 0.04), 0.05, higher_is_better=True)[0] == SLOWER
    assert decide(Change(0.1, 0.06, 0.14, 0.04), 0.05, higher_is_better=True)[0] == FASTER


def test_a_pair_too_noisy_to_gate_is_judged_where_its_interval_clears_the_zone():
    """Not gateable by its noise (detects 12% at a 10% threshold), yet its 99%
    interval lies wholly above T (slower), below -T (faster), or below T/2 (a
    pass); an interval that reaches into T/2..T, or touches T, is not gateable."""
    noisy = dict(detectable=0.12)
    verdict, note = decide(Change(0.23, 0.1001, 0.36, **noisy), 0.10)
    assert verdict == SLOWER
    assert note == ("judged though the pair is noisy: it detects 12.0%, the threshold is 10.0%, "
                    "and this change's 99% interval lies wholly above the threshold")
    assert decide(Change(0.2, 0.10, 0.30, **noisy), 0.10)[0] == NOT_GATEABLE
    verdict, note = decide(Change(-0.23, -0.36, -0.1001, **noisy), 0.10)
    assert verdict == FASTER and note.endswith("beyond the threshold in the good direction")
    verdict, note = decide(Change(0.0, -0.0499, 0.0499, **noisy), 0.10)
    assert verdict == SAME
    assert note.endswith("lies wholly below half the threshold")
    assert decide(Change(0.0, -0.05, 0.05, **noisy), 0.10)[0] == NOT_GATEABLE
    assert decide(Change(-0.05, -0.09, -0.01, **noisy), 0.10)[0] == CHANGED
    assert decide(Change(-0.05, -0.09, -0.01, floor=0.06, **noisy), 0.10)[0] == SAME
    assert decide(Change(-0.05, -0.0999, 0.0, **noisy), 0.10)[0] == SAME
    # higher is better: a speedup's rise is the good direction
    assert decide(Change(0.23, 0.1001, 0.36, **noisy), 0.10, higher_is_better=True)[0] == FASTER
    assert decide(Change(-0.23, -0.36, -0.1001, **noisy), 0.10,
                  higher_is_better=True)[0] == SLOWER
    # an unbounded interval is never clear
    assert decide(Change(0.5, 0.2, math.inf, **noisy), 0.10)[0] == NOT_GATEABLE
    assert decide(Change(-0.5, -math.inf, 0.0, **noisy), 0.10)[0] == NOT_GATEABLE


def test_unjudgeable_is_invalid_with_unbounded_interval():
    change = unjudgeable("why", 0.3)
    assert change == Change(0.3, -math.inf, math.inf, math.inf, False, "why")
    assert math.isnan(unjudgeable("why").estimate)
    assert decide(change, 0.05) == (NOT_GATEABLE, "why")


def test_slower_is_past_the_bound_at_the_largest_gateable_noise():
    """T/2 + T bound / detectable: 3T/4 when the bound is a quarter of
    detectable (equal levels), wherever the interval lies."""
    assert decide(Change(0.0376, 0.030, 0.045, detectable=0.02), 0.05)[0] == SLOWER
    assert decide(Change(0.0374, 0.030, 0.045, detectable=0.02), 0.05)[0] == CHANGED
    assert decide(Change(-0.0376, -0.045, -0.030, 0.02), 0.05)[0] == FASTER
    assert decide(Change(-0.0374, -0.045, -0.030, 0.02), 0.05)[0] == CHANGED
    # a bound stated as a larger share of detectable moves the edge out
    assert decide(Change(0.0376, 0.030, 0.045, 0.02, bound=0.006), 0.05)[0] == CHANGED
    assert decide(Change(0.0401, 0.030, 0.045, 0.02, bound=0.006), 0.05)[0] == SLOWER
    # significance is the 99% interval's, and needs the resolution floor
    assert decide(Change(0.010, -0.001, 0.021, 0.02), 0.05)[0] == SAME
    assert decide(Change(0.0005, 0.0001, 0.0009, 0.02, floor=0.001), 0.05)[0] == SAME
    assert decide(Change(0.0015, 0.0001, 0.0029, 0.02, floor=0.001), 0.05)[0] == CHANGED


def test_noise_margin_is_one_plus_one_over_root_two_df_floored_at_one_df():
    assert noise_margin(8) == 1.25
    assert noise_margin(2) == 1.5
    assert noise_margin(1) == 1 + 1 / math.sqrt(2)
    assert noise_margin(0.5) == 1 + 1 / math.sqrt(2)   # below 1 df: as 1
    assert noise_margin(-3) == 1 + 1 / math.sqrt(2)
    assert noise_margin(50) == 1.1


def test_a_change_states_no_bound_floor_or_advice_unless_given():
    change = Change(0.10, 0.06, 0.12, 0.01)
    assert math.isnan(change.bound) and change.floor == 0.0 and change.advice is None
    # the advice is no part of a change's identity
    assert Change(0.1, 0.06, 0.12, 0.01, advice=lambda t: "x") == change


def test_slower_needs_more_than_the_edge_three_quarters_of_the_threshold():
    # 0.375 and 0.5 are exact in binary: the edge itself is not past it
    assert decide(Change(0.375, 0.25, 0.5, 0.01), 0.5) == (CHANGED, "")
    assert decide(Change(0.3751, 0.25, 0.5, 0.01), 0.5) == (SLOWER, "")
    assert decide(Change(-0.375, -0.5, -0.25, 0.01), 0.5) == (CHANGED, "")
    assert decide(Change(-0.3751, -0.5, -0.25, 0.01), 0.5) == (FASTER, "")
    # where the interval lies does not move the edge
    assert decide(Change(0.3751, 0.001, 0.9, 0.01), 0.5) == (SLOWER, "")


def test_higher_is_better_turns_the_edge_around():
    up = Change(0.04, 0.03, 0.05, 0.01)
    assert decide(up, 0.05, higher_is_better=True) == (FASTER, "")
    assert decide(up, 0.05) == (SLOWER, "")
    down = Change(-0.04, -0.05, -0.03, 0.01)
    assert decide(down, 0.05, higher_is_better=True) == (SLOWER, "")
    small = Change(-0.02, -0.03, -0.01, 0.01)
    assert decide(small, 0.05, higher_is_better=True) == (CHANGED, "")
    # an interval across 0 stays the same however wide
    assert decide(Change(0.0, -0.9, 0.9, 0.01), 0.05) == (SAME, "")


def test_detectable_beyond_the_threshold_is_not_gateable_whatever_the_change():
    verdict, note = decide(Change(0.30, 0.04, 0.56, 0.06), 0.05)  # its interval reaches T
    assert verdict == NOT_GATEABLE
    assert note == "not gateable on this pair: it detects 6.0%, the threshold is 5.0%"
    advised = Change(0.30, 0.04, 0.56, 0.06, advice=lambda t: f"more at {t:.0%}")
    assert decide(advised, 0.05)[1].endswith("; more at 5%")
    assert decide(Change(0.30, 0.04, 0.56, 0.06, advice=lambda t: ""), 0.05)[1] == note


def test_a_pair_that_detects_exactly_the_threshold_is_gateable():
    """detectable == threshold is gateable: the verdict comes from the bound,
    with no note, not from the noisy pair's clear-of-the-zone rule."""
    assert decide(Change(0.06, 0.03, 0.09, 0.05), 0.05) == (SLOWER, "")
    assert decide(Change(0.1, 0.06, 0.14, 0.05), 0.05) == (SLOWER, "")


def test_a_noisy_interval_that_reaches_minus_the_threshold_is_not_faster():
    """Faster needs the interval wholly below -T: one that ends at -T is a
    change below half the threshold."""
    verdict, note = decide(Change(-0.2, -0.3, -0.10, detectable=0.12), 0.10)
    assert verdict == CHANGED and note.endswith("lies wholly below half the threshold")
