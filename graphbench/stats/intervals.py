"""The median's confidence interval for rounds that are not independent.

Rounds of a benchmark are autocorrelated (a machine stays fast or slow for a
while), so the order-statistic interval, exact for independent rounds, is
too narrow. The count of rounds below the true median is what the median's
interval rests on (Bahadur: the median's error is that count's error over
the density), and with correlated rounds its variance is n/4 times the
integrated autocorrelation time tau. This module keeps the order-statistic
interval and widens its ranks to an effective sample n / tau:
[Q(1/2 - d), Q(1/2 + d)], d = t / (2 sqrt(n_eff)), with Q the sample
quantile and t Student's quantile at n_eff - 1 degrees of freedom. Working
in ranks needs no density estimate, so a bimodal series (slow host phases)
gets the spread of its own quantiles. Where the ranks fall outside the
sample, the bound is extrapolated along the line from the median to the
extreme. tau is that of the sign series 1[x < median] of a Gaussian AR(1),
1 + (4/pi) sum_k arcsin(rho^k), at rho estimated by the von Neumann ratio
(the lag-1 coefficient plus the ends' share of the variance, which reads a
trending slice of a slow swing as correlated), corrected for its bias
(1 + 3 rho)/n at its fixed point, plus a small-sample margin k/n^2 (k = 10
at 0.95, 60 at 0.99): batch means alone under-cover at rho 0.9 and a local
density alone on bimodal series. The autocorrelation reported is the plain
lag-1 one.

Every series of MIN_ROUNDS or more rounds gets its interval, however wide
(at most 4.75x the median-to-extreme distance at 0.95, never past zero for
data of one sign). Withholding the intervals whose autocorrelation read high
would keep those whose autocorrelation read low, the too-narrow ones: at
lag-1 0.9 the intervals left stated covered 89-92% at 20-45 rounds. Callers
judge the width (graphbench.gate.ab asks for 8 effective pairs).

Host phases. A host that turns slow for a while (its CPUs can change speed over
seconds: docs/measurement.md#the-hosts-speed-states) puts a run's rounds in
one phase or both. A window that stayed in one phase looks independent, so
no estimate from its rounds can see the phase it missed, while the
process's median lies off that phase's.
So unless both sides of a ratio were timed in the same phase (an A/B pair:
`shared_phases`), tau has a floor: PHASE_TAU up to PHASE_FULL rounds, falling
linearly to 1 at PHASE_GONE, where windows that missed a phase have become
rare; and no interval is stated from fewer than MIN_ROUNDS rounds, where a
window can lie wholly inside the slow phase (12% of 10-round windows do with
phases 10 rounds long, 30% of the time). Calibrated on that model
(tests/calibration.py): at least 94.5% coverage from 20 to 150 rounds;
its cost is width, 1.5-2.6x the order-statistic interval for independent
rounds up to 60 rounds, and none from 150.

Pure: numpy and the standard library. scipy.special would give the t
quantile, but importing it is slow (docs/measurement.md#host-side-costs);
Hill's algorithm 396 gives it to under 1e-3 relative for df >= 2 (exact at
2) and under 4e-4 from df 3 (the tests check it against scipy.stats).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

from graphbench.limits import MIN_ROUNDS  # noqa: F401 - the interval rule's floor, read through here

# tuned by tests/calibration.py; tests/test_calibration.py holds them to the targets
_R_MAX = 0.99          # the largest autocorrelation used
# small-sample margin on the autocorrelation, _SMALL / n^2, calibrated at 0.95 and 0.99
# and interpolated in the normal quantile between (and beyond) them
_SMALL = {0.95: 10.0, 0.99: 60.0}
PHASE_TAU, PHASE_FULL, PHASE_GONE = 2.5, 60, 150  # the host-phase floor on tau (above)


@dataclass(frozen=True)
class Interval:
    """A median with its confidence interval, valid for correlated rounds."""

    estimate: float
    low: float
    high: float
    confidence: float
    n: int
    effective_n: float
    autocorrelation: float
    valid: bool
    reason: str = ""

    @property
    def relative_half_width(self) -> float:
        if not self.valid or self.estimate == 0 or not math.isfinite(self.high - self.low):
            return math.inf
        return (self.high - self.low) / 2 / abs(self.estimate)


def lag1_autocorrelation(values: Sequence[float]) -> float:
    """Lag-1 autocorrelation of a series in round order; 0.0 for n < 3 or a constant series."""
    data = np.asarray(values, dtype=float).reshape(1, -1)
    if not np.all(np.isfinite(data)):
        raise ValueError("lag-1 autocorrelation needs finite values")
    return float(_lag1(_scaled(data)[0])[0])


def median_interval(values: Sequence[float], confidence: float = 0.95,
                    shared_phases: bool = False) -> Interval:
    """The median of `values` (in round order) and its interval at `confidence`.
    shared_phases: each value is a ratio of two readings taken in the same host
    phase (an A/B pair), so a phase cancels and needs no allowance."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    data = np.asarray(values, dtype=float).reshape(-1)
    n = int(data.size)
    if n == 0:
        return Interval(math.nan, -math.inf, math.inf, confidence, 0, 0.0, 0.0, False, "no rounds")
    if not np.all(np.isfinite(data)):
        return Interval(math.nan, -math.inf, math.inf, confidence, n, 0.0, 0.0, False,
                        "non-finite values")
    rows = _median_intervals(data.reshape(1, -1), confidence, shared_phases)
    estimate, low, high, effective, r, valid = (row[0] for row in rows)
    reason = "" if valid else _invalid_reason(n)
    return Interval(float(estimate), float(low), float(high), confidence, n, float(effective),
                    float(r), bool(valid), reason)


def _invalid_reason(n: int) -> str:
    return f"{n} rounds: under {MIN_ROUNDS}, a slow host phase can last the whole run"


def phase_tau(n: int) -> float:
    """The host-phase floor on tau at n rounds (module docstring)."""
    fall = min(max((PHASE_GONE - n) / (PHASE_GONE - PHASE_FULL), 0.0), 1.0)
    return 1 + (PHASE_TAU - 1) * fall


def _median_intervals(matrix: np.ndarray, confidence: float, shared_phases: bool = False):
    """Each row's (median, low, high, effective n, lag-1 autocorrelation, valid), as arrays.
    Rows are series in round order, all finite; invalid rows get low = -inf, high = +inf."""
    scaled, exponent = _scaled(np.asarray(matrix, dtype=float))
    rows, n = scaled.shape
    ordered = np.sort(scaled, axis=1)
    r = _lag1(scaled)
    tau = _tau(_von_neumann(scaled), n, confidence) if n >= 3 else np.ones(rows)
    if not shared_phases:
        tau = np.maximum(tau, phase_tau(n))
    effective = n / tau if n >= 3 else np.zeros(rows)
    df = np.maximum(effective - 1, 2.0)
    offset = (hill_t_quantile(1 - (1 - confidence) / 2, df)
              / (2 * np.sqrt(np.maximum(effective, 1.0))))
    middle = _quantile(ordered, np.full(rows, 0.5))
    low = _bound(ordered, middle, 0.5 - offset)
    high = _bound(ordered, middle, 0.5 + offset)
    valid = np.full(rows, n >= MIN_ROUNDS)
    # the median of data of one sign has that sign
    low = np.where(ordered[:, 0] >= 0, np.maximum(low, 0.0), low)
    high = np.where(ordered[:, -1] <= 0, np.minimum(high, 0.0), high)
    with np.errstate(over="ignore"):
        low, high = np.ldexp(low, exponent), np.ldexp(high, exponent)
    low, high = np.where(valid, low, -np.inf), np.where(valid, high, np.inf)
    return np.ldexp(middle, exponent), low, high, effective, r, valid


def _scaled(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row times a power of two that brings its largest magnitude into [0.5, 1):
    exact, and no sum or difference of scaled values can overflow."""
    if matrix.shape[1] == 0:
        return matrix, np.zeros(matrix.shape[0], dtype=int)
    _, exponent = np.frexp(np.max(np.abs(matrix), axis=1))
    return np.ldexp(matrix, -exponent[:, None]), exponent


def _lag1(scaled: np.ndarray) -> np.ndarray:
    rows, n = scaled.shape
    if n < 3:
        return np.zeros(rows)
    centered = scaled - scaled.mean(axis=1, keepdims=True)
    total = np.sum(centered * centered, axis=1)
    lagged = np.sum(centered[:, 1:] * centered[:, :-1], axis=1)
    varies = (np.ptp(scaled, axis=1) > 0) & (total > 0)
    return np.where(varies, lagged / np.where(varies, total, 1.0), 0.0)


def _von_neumann(scaled: np.ndarray) -> np.ndarray:
    """1 - (mean square successive difference) / (2 variance): the lag-1 autocorrelation
    plus the ends' share of the variance, so a series that trends (a slice of a slow
    swing) reads as more correlated than its lag-1 coefficient says."""
    rows, n = scaled.shape
    if n < 3:
        return np.zeros(rows)
    centered = scaled - scaled.mean(axis=1, keepdims=True)
    total = np.sum(centered * centered, axis=1)
    steps = np.sum(np.diff(scaled, axis=1) ** 2, axis=1)
    varies = (np.ptp(scaled, axis=1) > 0) & (total > 0)
    return np.where(varies, 1 - steps / 2 / np.where(varies, total, 1.0), 0.0)


def _tau(rho_hat: np.ndarray, n: int, confidence: float) -> np.ndarray:
    """The sign series' integrated autocorrelation time for an AR(1) series whose lag-1
    autocorrelation is estimated as rho_hat: bias-corrected (the fixed point of
    rho_hat = rho - (1 + 3 rho) / n), plus the small-sample margin, clipped to [0, _R_MAX]."""
    shrink = max(1 - 3 / n, 1 / n)  # 0 at n = 3, where the correction has no fixed point
    rho = (rho_hat + 1 / n) / shrink + _small_margin(confidence) / n ** 2
    grid, table = _sign_table()
    return np.interp(np.clip(rho, 0.0, _R_MAX), grid, table)


def _small_margin(confidence: float) -> float:
    (p0, k0), (p1, k1) = sorted(_SMALL.items())
    z0, z1, z = (NormalDist().inv_cdf(1 - (1 - p) / 2) for p in (p0, p1, confidence))
    return max(0.0, k0 + (k1 - k0) * (z - z0) / (z1 - z0))


@functools.lru_cache(maxsize=1)
def _sign_table() -> tuple[np.ndarray, np.ndarray]:
    """tau of 1[x < median] for a Gaussian AR(1) of lag-1 autocorrelation rho, on a grid:
    1 + 2 sum_k (2 / pi) arcsin(rho^k)."""
    grid = np.linspace(0, _R_MAX, 400)
    powers = grid[:, None] ** np.arange(1, 401)[None, :]
    tail = powers[:, -1] * grid / (1 - grid)  # beyond lag 400 arcsin(x) = x to 1e-6
    return grid, 1 + 4 / np.pi * (np.arcsin(powers).sum(axis=1) + tail)


def _quantile(ordered: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Sample quantile at plotting position (n + 1) p, interpolated; p within the sample."""
    rows, n = ordered.shape
    position = np.clip((n + 1) * p - 1, 0, n - 1)
    below = np.minimum(np.floor(position).astype(int), n - 1)
    above = np.minimum(below + 1, n - 1)
    index = np.arange(rows)
    a, b = ordered[index, below], ordered[index, above]
    return a + (b - a) * (position - below)


def _bound(ordered: np.ndarray, middle: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Q(p), extended past the extremes along the line from the median to the extreme."""
    n = ordered.shape[1]
    edge = 1 / (n + 1)
    if n < 2:
        return middle.copy()
    low_side = p < 0.5
    extreme = np.where(low_side, ordered[:, 0], ordered[:, -1])
    reach = np.abs(p - 0.5) / (0.5 - edge)
    outside = reach > 1
    inside = _quantile(ordered, np.clip(p, edge, 1 - edge))
    return np.where(outside, middle + (extreme - middle) * reach, inside)


def hill_t_quantile(probability: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile at `probability` (> 1/2) for real df >= 2: Hill (1970),
    Algorithm 396, as R's qt uses it before its refinement."""
    tail = 2 * (1 - probability)
    x = NormalDist().inv_cdf(1 - tail / 2)
    df = np.asarray(df, dtype=float)
    a = 1 / (df - 0.5)
    b = 48 / (a * a)
    c = ((20700 * a / b - 98) * a - 16) * a + 96.36
    d = ((94.5 / (b + c) - 3) / b + 1) * np.sqrt(a * math.pi / 2) * df
    y = (d * tail) ** (2 / df)
    c_far = c + np.where(df < 5, 0.3 * (df - 4.5) * (x + 0.6), 0.0)
    c_far = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c_far
    far = (((((0.4 * x * x + 6.3) * x * x + 36) * x * x + 94.5) / c_far - x * x - 3) / b + 1) * x
    far = np.expm1(a * far * far)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = ((1 / (((df + 6) / (df * y) - 0.089 * d - 0.822) * (df + 2) * 3)
                 + 0.5 / (df + 4)) * y - 1) * (df + 1) / (df + 2) + 1 / y
    use_far = y > 0.05 + a
    q = np.sqrt(df * np.where(use_far, far, near))
    exact_two = np.sqrt(2 / (tail * (2 - tail)) - 2)
    return np.where(np.abs(df - 2) < 1e-12, exact_two, q)


# --- for a mean and a robust spread (graphbench.gate.ab, .compare) ---------

# Unbiasing factors of 1.4826 MAD as an sd for Gaussian samples of n values
# (simulated); beyond them n / (n - 0.8) (Croux and Rousseeuw, 1992).
_MAD_SMALL = {3: 1.48, 4: 1.36}


def robust_scale(values: Sequence[float]) -> float:
    """The sd of Gaussian data read from its median absolute deviation,
    corrected for small samples: one outlier moves it by at most one rank."""
    data = np.asarray(values, dtype=float).reshape(-1)
    n = data.size
    if n < 2:
        return 0.0
    mad = float(np.median(np.abs(data - np.median(data))))
    return 1.4826 * mad * _MAD_SMALL.get(n, n / (n - 0.8) if n > 1 else 1.0)


def reading_quantum(values: Sequence[float]) -> float:
    """The readings' resolution: the smallest gap between distinct values,
    gaps under a millionth of the median counting as ties (a time kept in
    float32 milliseconds scatters by that much). For continuous data it is
    negligible (about the range / n^2); for readings on a timer's grid, the
    tick. 0 when every value is the same."""
    data = np.sort(np.asarray(values, dtype=float).reshape(-1))
    if data.size < 2:
        return 0.0
    gaps = np.diff(data)
    gaps = gaps[gaps > 1e-6 * abs(float(np.median(data)))]
    return float(gaps.min()) if gaps.size else 0.0
